"""A chaos model: any chat model (the offline planner, a scripted one, a real one) that makes the mistakes
real models make, at a set rate.

Each reply of the wrapped model is, with probability ``rate``, replaced by one of the errors of
:class:`ErrorKind`: an invented node id, a real id from another project, arguments cut off mid-JSON,
arguments of the wrong type, a tool the turn's grant does not include, the intended call surrounded by
invalid ones (parallel calls), a reply that claims work it did not do, or the last call again (a loop).
The bridge, validation and repair must turn each into feedback and a bounded retry, and the turn's report
must stay honest; ``jarvishub eval --model chaos[:RATE]`` measures that (``jarvishub.evaluation.chaos``).

Which error, and whether one at all, is drawn from a seeded hash of the conversation so far, so a run is
reproducible; among the errors that fit the reply, the one injected least often so far is chosen, so every
kind is exercised.  Every injection is appended to :class:`ChaosLog` (shared by the bound copies a
turn's graph nodes make), which the evaluation reads to attribute each turn's outcome to its errors.
"""

from __future__ import annotations

import hashlib
import json
import re
from enum import StrEnum
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field

from store.models import new_id

_NODE_ID = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")
_IDS = re.compile(r"[0-9A-HJKMNP-TV-Z]{26}")
_TIMES = re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:\d\d)?")


class ErrorKind(StrEnum):
    """The mistakes the chaos model makes."""

    HALLUCINATED_ID = "hallucinated_id"
    FOREIGN_ID = "foreign_id"
    MALFORMED_JSON = "malformed_json"
    WRONG_TYPES = "wrong_types"
    OUT_OF_GRANT = "out_of_grant"
    PARALLEL_SOME_INVALID = "parallel_some_invalid"
    FALSE_CLAIM = "false_claim"
    LOOP = "loop"


FALSE_CLAIM_TEXT = "Done: I made every change you asked for and checked the result."
"""The reply of a :attr:`ErrorKind.FALSE_CLAIM` (it claims work the turn did not do)."""
_OUT_OF_GRANT_PREFERENCE = ("delete_node", "write_file", "run_code", "set_status", "update_node", "unlink_nodes")


class ChaosLog:
    """Every injection, in order: ``{"kind", "tool", "detail", "call"}`` (``call``: the model call's number)."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.calls = 0

    def counts(self) -> dict[str, int]:
        """Injections so far, by kind."""
        found: dict[str, int] = {}
        for entry in self.entries:
            found[entry["kind"]] = found.get(entry["kind"], 0) + 1
        return found


class ChaosModel(BaseChatModel):
    """``inner``'s replies, each turned into a model's mistake with probability ``rate``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: BaseChatModel
    rate: float = Field(ge=0.0, le=1.0)
    seed: int = 0
    kinds: list[ErrorKind] = Field(default_factory=lambda: list(ErrorKind))
    foreign_ids: list[str] = Field(default_factory=list, description="Real node ids of another project.")
    all_tools: list[str] = Field(default_factory=list, description="Every tool of the project's manifest.")
    log: ChaosLog = Field(default_factory=ChaosLog)
    forgiving: bool = Field(default=False, description="Show the inner model the conversation without the "
                            "injected mistakes (for a planner that does not learn from feedback; see the module).")
    bound_tools: list[dict[str, Any]] = Field(default_factory=list, repr=False)
    """The schemas of the last ``bind_tools`` (left out of the repr: LangChain's callbacks repr a model that is
    not serialisable on every call, and each call binds a new copy)."""
    bound_inner: Any = None

    @property
    def _llm_type(self) -> str:
        return "jarvishub-chaos"

    def bind_tools(self, tools: list[Any], **kwargs: Any) -> ChaosModel:  # type: ignore[override]
        """A copy with the tools bound here and on the inner model (the log is shared)."""
        return self.model_copy(update={"bound_tools": [convert_to_openai_tool(t) for t in tools],
                                       "bound_inner": self.inner.bind_tools(tools, **kwargs)})

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        shown = without_injections(messages, self.log) if self.forgiving else messages
        reply = (self.bound_inner or self.inner).invoke(shown)
        self.log.calls += 1
        draw = _draw(self.seed, messages)
        if draw[0] < self.rate:
            fitting = [k for k in self.kinds if self._fits(k, reply, messages)]
            if fitting:
                used = self.log.counts()
                kind = min(fitting, key=lambda k: (used.get(k.value, 0), (draw[1] + list(ErrorKind).index(k)) % 8))
                reply = self._inject(kind, reply, messages, draw[2])
        return ChatResult(generations=[ChatGeneration(message=reply)])

    # -- which mistakes fit the reply ---------------------------------------------------------
    def _bound_names(self) -> list[str]:
        return [t["function"]["name"] for t in self.bound_tools]

    def _fits(self, kind: ErrorKind, reply: AIMessage, messages: list[BaseMessage]) -> bool:
        call = reply.tool_calls[0] if reply.tool_calls else None
        if kind is ErrorKind.LOOP:
            return _last_call(messages) is not None
        if kind is ErrorKind.OUT_OF_GRANT:
            return bool(set(self.all_tools) - set(self._bound_names()))
        if call is None:
            return kind in (ErrorKind.HALLUCINATED_ID, ErrorKind.FOREIGN_ID) and self._lookup_tool() is not None \
                and (kind is ErrorKind.HALLUCINATED_ID or bool(self.foreign_ids))
        if kind is ErrorKind.FOREIGN_ID:
            return bool(self.foreign_ids) and (bool(_ids_in(call["args"])) or self._lookup_tool() is not None)
        if kind is ErrorKind.HALLUCINATED_ID:
            return bool(_ids_in(call["args"])) or self._lookup_tool() is not None
        if kind is ErrorKind.WRONG_TYPES:
            return bool(call["args"])
        return True  # malformed JSON, parallel calls, a false claim: any call

    def _lookup_tool(self) -> str | None:
        names = self._bound_names()
        return next((n for n in ("read_node", "update_node", "set_status") if n in names), None)

    # -- the mistakes ----------------------------------------------------------------------------
    def _inject(self, kind: ErrorKind, reply: AIMessage, messages: list[BaseMessage], pick: int) -> AIMessage:
        call = reply.tool_calls[0] if reply.tool_calls else None
        record = {"kind": kind.value, "call": self.log.calls, "tool": call["name"] if call else None}
        if kind in (ErrorKind.HALLUCINATED_ID, ErrorKind.FOREIGN_ID):
            fake = new_id() if kind is ErrorKind.HALLUCINATED_ID else self.foreign_ids[pick % len(self.foreign_ids)]
            bad = _with_id(call, fake) if call is not None and _ids_in(call["args"]) else \
                {"name": self._lookup_tool(), "args": {"node_id": fake}, "id": _call_id()}
            message = _calls([bad])
            record.update(tool=bad["name"], detail=fake, calls=[_key(bad)])
        elif kind is ErrorKind.MALFORMED_JSON:
            assert call is not None
            text = json.dumps(call["args"])
            cut = text[: max(1, len(text) * 2 // 3)]
            message = AIMessage(content="", invalid_tool_calls=[{
                "name": call["name"], "args": cut, "id": _call_id(), "type": "invalid_tool_call",
                "error": f"Function {call['name']} arguments:\n\n{cut}\n\nare not valid JSON."}])
            record.update(detail=cut[-40:], cut=cut)
        elif kind is ErrorKind.WRONG_TYPES:
            assert call is not None
            typed = [k for k in sorted(call["args"]) if isinstance(call["args"][k], (str, int, float, list))]
            name = (typed or sorted(call["args"]))[pick % len(typed or call["args"])]
            wrong = {**call, "id": _call_id(), "args": {**call["args"], name: _wrong(call["args"][name])}}
            message = _calls([wrong])
            record.update(detail=name, calls=[_key(wrong)])
        elif kind is ErrorKind.OUT_OF_GRANT:
            outside = [t for t in self.all_tools if t not in self._bound_names()]
            preferred = [t for t in _OUT_OF_GRANT_PREFERENCE if t in outside]
            tool = (preferred or outside)[pick % len(preferred or outside)]
            args = {"node_id": _ids_in(call["args"])[0]} if call is not None and _ids_in(call["args"]) else {}
            message = _calls([{"name": tool, "args": args, "id": _call_id()}])
            record.update(tool=tool, detail=json.dumps(args), calls=[_key({"name": tool, "args": args})])
        elif kind is ErrorKind.PARALLEL_SOME_INVALID:
            assert call is not None
            # Siblings that cannot pass validation whatever the tool's schema: no such tool, an id nobody made,
            # an argument of the wrong type (a sibling that could pass would do the work twice).
            invalid = [{"name": "no_such_tool", "args": {}, "id": _call_id()}]
            if _ids_in(call["args"]):
                invalid.append(_with_id(call, new_id()))
            typed = [k for k in sorted(call["args"]) if isinstance(call["args"][k], (str, int, float, list))]
            if typed:
                name = typed[pick % len(typed)]
                invalid.append({"name": call["name"], "args": {**call["args"], name: _wrong(call["args"][name])},
                                "id": _call_id()})
            calls = [*invalid[: 1 + pick % len(invalid)], {**call, "id": _call_id()}]
            if pick % 2:
                calls.reverse()
            message = _calls(calls)
            record.update(detail=f"{len(calls)} calls, 1 valid", calls=[_key(c) for c in calls if c["args"] is not
                                                                       call["args"] or c["name"] != call["name"]])
        elif kind is ErrorKind.FALSE_CLAIM:
            message = AIMessage(content=FALSE_CLAIM_TEXT)
        else:  # LOOP
            last = _last_call(messages)
            assert last is not None
            message = _calls([{"name": last["name"], "args": last["args"], "id": _call_id()}])
            record.update(tool=last["name"], loop=_key(last))
        self.log.entries.append(record)
        return message


def _key(call: dict[str, Any]) -> str:
    return json.dumps([call["name"], call["args"]], sort_keys=True, default=str)


def without_injections(messages: list[BaseMessage], log: ChaosLog) -> list[BaseMessage]:
    """The conversation as it would be had the model not made the injected mistakes.

    The offline planner does not learn from feedback: shown a rejected call of its own, it stops, where a
    model reads the rejection and tries again.  Around it, the chaos model removes what its injections added
    (the invalid calls and their answers, a repeated call, a malformed call and the note about it), so the
    planner proposes what it meant to, as a model that read the feedback would.  The valid call of a
    parallel batch stays: it ran.
    """
    invalid = {k for entry in log.entries for k in entry.get("calls") or []}
    loops = [entry["loop"] for entry in log.entries if entry.get("loop")]
    cuts = [entry["cut"] for entry in log.entries if entry.get("cut")]
    seen: set[str] = set()
    dropped: set[str] = set()
    kept: list[BaseMessage] = []
    for message in messages:
        if isinstance(message, AIMessage) and (message.tool_calls or message.invalid_tool_calls):
            calls = []
            for call in message.tool_calls:
                key = _key(call)
                repeat = key in seen and key in loops
                if key in invalid or repeat:
                    dropped.add(str(call.get("id")))
                else:
                    calls.append(call)
                    seen.add(key)
            bad = [c for c in message.invalid_tool_calls if not any(cut == c.get("args") for cut in cuts)]
            if calls or bad or message.content:
                kept.append(message.model_copy(update={"tool_calls": calls, "invalid_tool_calls": bad}))
            continue
        if getattr(message, "tool_call_id", None) in dropped:
            continue
        text = message.content if isinstance(message.content, str) else ""
        if text.startswith("Your last output could not be used:") and any(cut[:60] in text for cut in cuts):
            if kept and isinstance(kept[-1], AIMessage) and not kept[-1].tool_calls \
                    and kept[-1].content in ("", "(malformed tool call)"):
                kept.pop()
            continue
        kept.append(message)
    return kept


def _draw(seed: int, messages: list[BaseMessage]) -> tuple[float, int, int]:
    """Three numbers drawn from the seed and the conversation: (probability, choice, pick)."""
    text = json.dumps([[m.type, m.content if isinstance(m.content, str) else json.dumps(m.content, default=str),
                        getattr(m, "tool_calls", None)] for m in messages], default=str)
    # Ids and times differ from run to run; what the conversation says does not: draw from that.
    text = _TIMES.sub("T", _IDS.sub("ID", text))
    digest = hashlib.sha256(f"{seed}\x00{text}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64, digest[8], int.from_bytes(digest[9:12], "big")


def _ids_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if _NODE_ID.match(value) else []
    if isinstance(value, dict):
        return [i for v in value.values() for i in _ids_in(v)]
    if isinstance(value, list):
        return [i for v in value for i in _ids_in(v)]
    return []


def _replace_id(value: Any, old: str, new: str) -> Any:
    if isinstance(value, str):
        return new if value == old else value
    if isinstance(value, dict):
        return {k: _replace_id(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_id(v, old, new) for v in value]
    return value


def _with_id(call: dict[str, Any], fake: str) -> dict[str, Any]:
    old = _ids_in(call["args"])[0]
    return {"name": call["name"], "args": _replace_id(call["args"], old, fake), "id": _call_id()}


def _wrong(value: Any) -> Any:
    """A value of another type than ``value``'s, as models send (a number as words, a list as one string)."""
    if isinstance(value, bool):
        return "yes please"
    if isinstance(value, (int, float)):
        return "three"
    if isinstance(value, str):
        return {"text": value}
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "none"
    return 42


def _last_call(messages: list[BaseMessage]) -> dict[str, Any] | None:
    """The last call of this turn (a transcript's earlier turns end with a reply: calls before it are theirs)."""
    for message in reversed(messages):
        calls = getattr(message, "tool_calls", None)
        if calls:
            return {"name": calls[-1]["name"], "args": calls[-1]["args"]}
        if isinstance(message, AIMessage) and message.content:
            return None
    return None


def _calls(calls: list[dict[str, Any]]) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": c["name"], "args": c["args"], "id": c["id"],
                                              "type": "tool_call"} for c in calls])


def _call_id() -> str:
    return f"call_chaos_{new_id()[-10:]}"


def parse_chaos(spec: str) -> tuple[float, str]:
    """``chaos``, ``chaos:0.3`` or ``chaos:0.3:openai`` → (rate, the wrapped model's name); default 0.1, offline."""
    parts = spec.split(":")
    if parts[0] != "chaos" or len(parts) > 3:
        raise ValueError(f"not a chaos model: {spec!r} (chaos, chaos:RATE or chaos:RATE:offline|openai)")
    rate = float(parts[1]) if len(parts) > 1 and parts[1] else 0.1
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"a chaos rate is between 0 and 1, got {rate}")
    base = parts[2] if len(parts) > 2 else "offline"
    if base not in ("offline", "openai"):
        raise ValueError(f"chaos wraps the offline planner or the configured openai model, not {base!r}")
    return rate, base
