"""A scripted chat model: replies from a fixed list, chosen by how far the turn has got.

It ships with the library (as pydantic-ai ships TestModel) so users can test
their own graphs, grants and skills without a network.  The reply for a call
is picked by the number of tool-call steps already in the conversation, not by
an internal counter, so a turn resumed after a crash gets the same replies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

Script = AIMessage | dict[str, Any] | str | Callable[[list[BaseMessage]], AIMessage]


def tool_call(name: str, args: Any, call_id: str = "call") -> AIMessage:
    """An AI message with one tool call (``args`` may be a non-dict to test malformed output)."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}]) \
        if isinstance(args, dict) else AIMessage(content="", invalid_tool_calls=[
            {"name": name, "args": str(args), "id": call_id, "error": "arguments are not a JSON object",
             "type": "invalid_tool_call"}])


class ScriptedModel(BaseChatModel):
    """Replies in order: the n-th reply answers the turn's n-th model call (counted from the messages)."""

    script: list[Any] = Field(default_factory=list)
    bound_tool_names: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "jarvishub-scripted"

    def bind_tools(self, tools: list[Any], **kwargs: Any) -> ScriptedModel:  # type: ignore[override]
        names = [convert_to_openai_tool(t)["function"]["name"] for t in tools]
        return self.model_copy(update={"bound_tool_names": names})

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        position = sum(1 for m in messages if isinstance(m, AIMessage))
        entry = self.script[position] if position < len(self.script) else "done"
        if callable(entry) and not isinstance(entry, (AIMessage, dict, str)):
            message = entry(messages)
        elif isinstance(entry, dict):
            message = tool_call(entry["name"], entry.get("args", {}), f"call_{position}")
        elif isinstance(entry, str):
            message = AIMessage(content=entry)
        else:
            message = entry
        return ChatResult(generations=[ChatGeneration(message=message)])
