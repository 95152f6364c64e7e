"""How much a model call shows the model: the bytes of its messages and of its tool schemas.

Every agent (the canvas agent's propose node, the chat-history baseline, a real
provider) pays for what it sends on every call, so the evaluation measures it
the same way for all of them: UTF-8 bytes of a compact JSON rendering of each
message (role, text, tool calls, tool-call id) plus the JSON of the bound tool
schemas.  It is a size, not a token count: tokenizers differ by model, bytes do
not, and the ratio between two agents is what matters.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import BaseModel


class ModelInput(BaseModel):
    """The size of one or more model calls' input."""

    calls: int = 0
    bytes: int = 0
    """Messages plus tool schemas, summed over the calls."""
    tool_schema_bytes: int = 0
    """The part of ``bytes`` that is tool schemas."""
    max_call_bytes: int = 0
    """The largest single call."""

    def plus(self, other: ModelInput) -> ModelInput:
        """Both together (calls add up, the largest call is the larger of the two)."""
        return ModelInput(calls=self.calls + other.calls, bytes=self.bytes + other.bytes,
                          tool_schema_bytes=self.tool_schema_bytes + other.tool_schema_bytes,
                          max_call_bytes=max(self.max_call_bytes, other.max_call_bytes))


def _message_json(message: BaseMessage) -> dict[str, Any]:
    body: dict[str, Any] = {"role": message.type, "content": message.content}
    calls = getattr(message, "tool_calls", None)
    if calls:
        body["tool_calls"] = [{"name": c["name"], "args": c["args"], "id": c.get("id")} for c in calls]
    call_id = getattr(message, "tool_call_id", None)
    if call_id:
        body["tool_call_id"] = call_id
    return body


def _size(value: Any) -> int:
    return len(json.dumps(value, default=str, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def model_input_size(messages: Sequence[BaseMessage], tools: Sequence[dict[str, Any]] = ()) -> ModelInput:
    """The size of one model call that sends ``messages`` with ``tools`` bound."""
    message_bytes = _size([_message_json(m) for m in messages])
    tool_bytes = _size(list(tools)) if tools else 0
    total = message_bytes + tool_bytes
    return ModelInput(calls=1, bytes=total, tool_schema_bytes=tool_bytes, max_call_bytes=total)
