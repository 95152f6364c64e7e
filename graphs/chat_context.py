"""How much of its transcript the chat baseline sends each call: all of it, the newest window, or a summary.

A production chat agent cannot send an ever-growing transcript: its model has a context window.  The two
policies real LangChain/LangGraph agents use are implemented here, so the evaluation can report the baseline
the way it would be deployed:

* :class:`Untrimmed`: the whole transcript, every call (the upper bound of bytes and of recall);
* :class:`Trimmed`: LangChain's ``trim_messages`` (strategy ``last``), keeping the newest messages that fit the
  window with the tool schemas, starting on a request so that a tool call never loses its result.  What falls
  out of the window is gone: a shot whose ids were only in the trimmed part is a question (``not_found``), as a
  real trimmed agent would have to ask;
* :class:`Summarised`: LangGraph's summarisation pattern (the "summarise the conversation" how-to, the shape
  of ``langmem``'s ``SummarizationNode``): when the transcript does not fit, the *same model* the baseline
  plans with is asked to fold the oldest messages (and the previous summary) into a running summary; the
  summary is kept in the graph state (``summary``), sent as a system message after the prompt, and the folded
  messages are removed from the thread (``RemoveMessage``).  The summarising call is a model call of the step
  and is measured like any other.

Tokens are counted with ``langchain_core``'s ``count_tokens_approximately`` (about four characters a token
plus three per message), and the tool schemas at four bytes a token: an approximation documented here and in
docs/evaluation.md, so no tokenizer is downloaded.  The default window is 32k tokens, the context many common
small models are served with (Qwen2.5-7B-Instruct, Mistral-7B-Instruct v0.2+, Llama 3.1 8B on small GPUs).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, RemoveMessage, SystemMessage, trim_messages
from langchain_core.messages.utils import count_tokens_approximately

from nodes.context_size import ModelInput, model_input_size
from nodes.models.playbooks import ANSWER_PREFIX
from nodes.models.transcript import SUMMARISE_INSTRUCTION, SUMMARY_PREFIX, UNUSABLE_PREFIX

DEFAULT_WINDOW_TOKENS = 32_000
"""The default context window of the trimmed and summarised baselines (a common small model's)."""
BYTES_PER_TOKEN = 4
"""The approximation for tool schemas (messages use ``count_tokens_approximately``, at the same ratio)."""
SUMMARISER_PROMPT = """You keep the memory of a creative agent that works in a chat. Summarise the conversation \
below for the agent itself: every node id it still needs (storyboards, shots in order, their current images \
with the lighting and seed they were drawn with, clips, cuts, pages, decks and slides), what was replaced or \
rejected, and what is stale. Drop what no longer matters. Answer with the summary only."""


def schema_tokens(schemas: Sequence[dict[str, Any]]) -> int:
    """Approximate tokens of the bound tool schemas (their compact JSON at four bytes a token)."""
    if not schemas:
        return 0
    return math.ceil(len(json.dumps(list(schemas), separators=(",", ":")).encode()) / BYTES_PER_TOKEN)


def approximate_tokens(messages: Sequence[BaseMessage], schemas: Sequence[dict[str, Any]] = ()) -> int:
    """Approximate tokens of one call: ``count_tokens_approximately`` over the messages, plus the schemas."""
    return count_tokens_approximately(list(messages)) + schema_tokens(schemas)


def is_request(message: BaseMessage) -> bool:
    """A person's request (where a turn starts), not an answer to a question or a note about a bad output."""
    return isinstance(message, HumanMessage) and not str(message.content).startswith((ANSWER_PREFIX, UNUSABLE_PREFIX))


def current_turn_start(messages: Sequence[BaseMessage]) -> int:
    """The index of the last request (the turn in progress); 0 when there is none."""
    return next((i for i in range(len(messages) - 1, -1, -1) if is_request(messages[i])), 0)


def newest_that_fit(messages: Sequence[BaseMessage], budget: int) -> int:
    """Where the newest messages that fit ``budget`` tokens start, on a request boundary (``trim_messages``,
    strategy ``last``), never after the turn in progress began: that turn is sent whole, even over the budget."""
    kept = trim_messages(list(messages), max_tokens=max(budget, 0), strategy="last",
                         token_counter=count_tokens_approximately, start_on="human", allow_partial=False)
    start = len(messages) - len(kept)
    # trim_messages may start on a person's answer to a question: move on to the request that starts a turn.
    while start < len(messages) and not is_request(messages[start]):
        start += 1
    return min(start, current_turn_start(messages))


@dataclass
class Window:
    """What one call sends, and what preparing it changed."""

    messages: list[BaseMessage]
    """The messages the model is sent (system prompt first)."""
    update: dict[str, Any] = field(default_factory=dict)
    """The graph-state update (a new ``summary``, ``RemoveMessage`` of what it folded)."""
    spent: ModelInput = field(default_factory=ModelInput)
    """Model calls made to prepare it (the summariser's), measured as the agent's own calls are."""
    dropped: int = 0
    """Transcript messages not sent (trimmed, or folded into the summary)."""
    reply: Any = None
    """The summariser's reply (its provider's usage is charged from it)."""


class ContextPolicy(Protocol):
    """How the baseline fits its transcript into a call."""

    name: str

    def window(self, system: SystemMessage, messages: list[BaseMessage], summary: str,
               schemas: Sequence[dict[str, Any]], model: BaseChatModel, *, fold: bool = True) -> Window:
        """The call's messages from the system prompt, the thread's messages and the running summary.

        ``fold=False``: never call the model (the agent graph node's own call, after the ``fit_window`` graph
        node folded what had to be folded and checkpointed it, so a resumed agent node does not fold again).
        """
        ...


@dataclass(frozen=True)
class Untrimmed:
    """The whole transcript on every call."""

    name: str = "untrimmed"

    def window(self, system: SystemMessage, messages: list[BaseMessage], summary: str,
               schemas: Sequence[dict[str, Any]], model: BaseChatModel, *, fold: bool = True) -> Window:
        return Window([system, *messages])


@dataclass(frozen=True)
class Trimmed:
    """The newest messages that fit the window with the system prompt and the tool schemas."""

    max_tokens: int = DEFAULT_WINDOW_TOKENS
    name: str = "trimmed"

    def window(self, system: SystemMessage, messages: list[BaseMessage], summary: str,
               schemas: Sequence[dict[str, Any]], model: BaseChatModel, *, fold: bool = True) -> Window:
        budget = self.max_tokens - schema_tokens(schemas) - count_tokens_approximately([system])
        start = newest_that_fit(messages, budget)
        return Window([system, *messages[start:]], dropped=start)


@dataclass(frozen=True)
class Summarised:
    """A running summary of what no longer fits, written by the baseline's own model, and the newest messages.

    When the call would exceed ``max_tokens``, the messages before the newest ``keep_share`` of the window
    (on a request boundary) are folded, with the previous summary, into a new summary.
    """

    max_tokens: int = DEFAULT_WINDOW_TOKENS
    keep_share: float = 0.5
    name: str = "summarised"

    def window(self, system: SystemMessage, messages: list[BaseMessage], summary: str,
               schemas: Sequence[dict[str, Any]], model: BaseChatModel, *, fold: bool = True) -> Window:
        shown = [system, *([summary_message(summary)] if summary else []), *messages]
        if not fold or approximate_tokens(shown, schemas) <= self.max_tokens:
            return Window(shown)
        budget = int(self.max_tokens * self.keep_share) - schema_tokens(schemas) - count_tokens_approximately([system])
        start = newest_that_fit(messages, budget)
        if start == 0:  # the turn in progress is all there is: nothing older to fold
            return Window(shown)
        folded = messages[:start]
        ask = [SystemMessage(content=SUMMARISER_PROMPT), *([summary_message(summary)] if summary else []), *folded,
               HumanMessage(content=SUMMARISE_INSTRUCTION)]
        reply = model.invoke(ask)
        new_summary = str(reply.content)
        removed = [RemoveMessage(id=m.id) for m in folded if m.id]
        return Window([system, summary_message(new_summary), *messages[start:]],
                      update={"summary": new_summary, "messages": removed},
                      spent=model_input_size(ask), dropped=start, reply=reply)


def summary_message(summary: str) -> SystemMessage:
    """The running summary as the model reads it: a system message after the prompt."""
    return SystemMessage(content=SUMMARY_PREFIX + summary)


POLICIES = {"untrimmed": Untrimmed, "trimmed": Trimmed, "summarised": Summarised}
"""Policy name -> class (the chat baseline variants of ``jarvishub eval``)."""


def make_policy(name: str, max_tokens: int | None = None) -> ContextPolicy:
    """The policy of this name, with this window (default :data:`DEFAULT_WINDOW_TOKENS`)."""
    if name not in POLICIES:
        raise ValueError(f"no context policy {name!r}; the policies are: {', '.join(POLICIES)}")
    if name == "untrimmed":
        return Untrimmed()
    return POLICIES[name](max_tokens=max_tokens or DEFAULT_WINDOW_TOKENS)  # type: ignore[call-arg,return-value]
