"""Trajectory export: one JSON object per turn, canvas diff materialised, secrets and personal data redacted.

Raw creative trajectories are not training data as they are.  With consent (the
``--consent`` flag or the project setting ``consent = true``) an export keeps
the text but redacts API keys, bearer tokens, passwords in URLs, e-mail
addresses and home-directory paths.

Without consent an export keeps only what a closed schema (:data:`RECORD`) names, and changes even that:

* **ids** (node, edge, thread, turn, action, grant, commit ids; a user-chosen ``--thread`` name too) are
  re-keyed: each becomes a ULID-shaped HMAC under a salt drawn for the export, so references between
  records hold within the export and nothing links to the project or to another export;
* **content hashes** (``sha256``, artifact URIs, signatures) are re-keyed the same way (a hash of an
  offline render would confirm a guessed prompt);
* **names from a closed vocabulary** (built-in kinds, tools, statuses, edge types, operations, effects,
  verdicts and reasons, media types, providers) are kept; any other value there is withheld;
* **numbers** are kept only in metric fields (canvas versions, node versions, step counters and sizes,
  scores, timings, the suite's metrics, budgets); timestamps in timestamp fields;
* **everything else**, and every key and value of a free-form object (a node's inputs and metadata,
  tool arguments and observations beyond their named fields, edge properties): strings become
  ``[text:<token>]``, dictionary keys the same, numbers and booleans ``[value:<token>]``, ULIDs and hashes
  are re-keyed.  A key the schema does not name is withheld like a value, whatever it looks like.

Tokens are HMACs under the export's salt: the same text keeps the same token within one export (a title
reused across turns can still be followed) but cannot be looked up in a dictionary or linked across exports.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from store.kinds import BUILTIN_KINDS
from store.models import EdgeType, NodeStatus
from store.mutations import MUTATION_OPS
from store.neo4j import Neo4jCanvasStore
from store.trajectories import TrajectoryStore
from tools.base import Effect

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{12,}"), "[redacted:api-key]"),
    (re.compile(r"\b(?:ghp|gho|xox[bap]|AKIA)[A-Za-z0-9_\-]{10,}"), "[redacted:token]"),
    (re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._\-]{8,}"), "Bearer [redacted:token]"),
    (re.compile(r"(?i)\b(api[_-]?key|token|secret|password|passwd)(\s*[=:]\s*)(\S+)"), r"\1\2[redacted]"),
    (re.compile(r"([a-z][a-z0-9+.\-]*://)([^/\s:@]+):([^@\s/]+)@", re.IGNORECASE), r"\1\2:[redacted]@"),
    (re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}"), "[redacted:email]"),
    (re.compile(r"(/home/|/Users/)[^/\s\"']+"), r"\1[user]"),
    (re.compile(r"(?<![\w/])/root(?=/|\b)"), "/[home]"),
]
PLACEHOLDER = re.compile(r"^\[text:[0-9a-f]{16}\]$")
"""What a withheld string becomes without consent."""
VALUE_PLACEHOLDER = re.compile(r"^\[value:[0-9a-f]{16}\]$")
"""What a withheld number or boolean becomes without consent."""
_ULID = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_ARTIFACT_URI = re.compile(r"^artifact://sha256/([0-9a-f]{64})$")
_TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?$")
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def redact_text(text: str) -> str:
    """Remove secrets, e-mail addresses and home-directory paths from a string."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def redact(value: Any) -> Any:
    """Redact secrets, e-mail addresses and home paths in every string of a JSON value (the consent case)."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: redact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    return value


class Withholder:
    """Keep only what the closed schema names, re-keyed and filtered (the no-consent case; module docstring).

    One withholder is one export: its salt makes every token, so equal inputs get equal tokens within the
    export and unrelated ones in another.  Call it on a turn record (:data:`RECORD`), or use
    :meth:`clean` with another schema (the dataset's media list).
    """

    def __init__(self, salt: bytes | None = None) -> None:
        self._salt = salt or secrets.token_bytes(32)

    def _mac(self, label: str, text: str) -> bytes:
        return hmac.new(self._salt, f"{label}\0{text}".encode("utf-8", "surrogatepass"), hashlib.sha256).digest()

    def token(self, text: str) -> str:
        """The placeholder of a withheld string (or dictionary key) in this export."""
        return f"[text:{self._mac('text', text).hex()[:16]}]"

    def value(self, value: Any) -> str:
        """The placeholder of a withheld number or boolean."""
        return f"[value:{self._mac('value', json.dumps(value)).hex()[:16]}]"

    def rekey(self, identifier: str) -> str:
        """An id's stand-in in this export: ULID-shaped, the same for the same id, unrelated to it."""
        number = int.from_bytes(self._mac("id", identifier)[:17], "big") >> 6  # 130 bits -> 26 characters
        return "".join(_CROCKFORD[(number >> (5 * i)) & 31] for i in reversed(range(26)))

    def rehash(self, digest: str) -> str:
        """A content hash's stand-in in this export (64 hex digits)."""
        return self._mac("sha256", digest).hex()

    def clean(self, value: Any, schema: Field | None = None) -> Any:
        """``value`` as ``schema`` lets it through (free-form content when None)."""
        return (schema or FREE).clean(self, value)

    def __call__(self, record: Any) -> Any:
        """A turn record as an export without consent has it."""
        return RECORD.clean(self, record)


# -- the schema: what an export without consent may keep, field by field ------------------------------
class Field:
    """How one field is withheld; the base is free-form content (nothing kept as it is)."""

    def clean(self, w: Withholder, value: Any) -> Any:
        if value is None:
            return None
        if isinstance(value, str):
            if _ULID.match(value):
                return w.rekey(value)
            if _SHA256.match(value):
                return w.rehash(value)
            return w.token(value)
        if isinstance(value, (bool, int, float)):
            return w.value(value)
        if isinstance(value, (list, tuple)):
            return [self.clean(w, item) for item in value]
        if isinstance(value, dict):
            return {w.token(str(k)): self.clean(w, v) for k, v in value.items()}
        return w.token(str(value))


FREE = Field()
"""Free-form content: a node's inputs, edge properties, tool arguments beyond their named fields."""


class Text(Field):
    """Words: withheld (a string becomes its token)."""

    def clean(self, w: Withholder, value: Any) -> Any:
        return w.token(value) if isinstance(value, str) else FREE.clean(w, value)


class Id(Field):
    """An id: re-keyed for the export, whatever its form (a ULID, ``turn-s0``, a thread name)."""

    def clean(self, w: Withholder, value: Any) -> Any:
        return w.rekey(value) if isinstance(value, str) else FREE.clean(w, value)


class Hash(Field):
    """A content hash or a signature: re-keyed."""

    def clean(self, w: Withholder, value: Any) -> Any:
        if isinstance(value, str) and _ARTIFACT_URI.match(value):
            return f"artifact://sha256/{w.rehash(_ARTIFACT_URI.match(value).group(1))}"  # type: ignore[union-attr]
        return w.rehash(value) if isinstance(value, str) else FREE.clean(w, value)


class Metric(Field):
    """A number that measures the run (a version, a count, a size, a score, a duration): kept."""

    def clean(self, w: Withholder, value: Any) -> Any:
        return value if value is None or isinstance(value, (bool, int, float)) else FREE.clean(w, value)


class Time(Field):
    """A timestamp: kept when it is one."""

    def clean(self, w: Withholder, value: Any) -> Any:
        return value if isinstance(value, str) and _TIMESTAMP.match(value) else FREE.clean(w, value)


class Name(Field):
    """A name from a closed vocabulary (a kind, a tool, a status): kept if the vocabulary has it."""

    def __init__(self, vocabulary: Callable[[], frozenset[str]]) -> None:
        self.vocabulary = vocabulary

    def clean(self, w: Withholder, value: Any) -> Any:
        return value if isinstance(value, str) and value in self.vocabulary() else FREE.clean(w, value)


class Actor(Field):
    """``agent``, ``system:evaluator``, ``skill:storyboard``, ``person:ana``: the kind kept, a name only if built in."""

    def clean(self, w: Withholder, value: Any) -> Any:
        if not isinstance(value, str):
            return FREE.clean(w, value)
        kind, _, name = value.partition(":")
        if kind not in _ACTOR_KINDS():
            return w.token(value)
        if not name or name in _builtin_skills() or name in _SYSTEM_ACTORS:
            return value
        return f"{kind}:{w.token(name)}"


class Obj(Field):
    """An object with named fields; a key it does not name is withheld with its value (free-form), unless it is
    in ``known`` (a closed vocabulary of key names, e.g. the built-in tools' argument names): then the key is
    kept and its value is free-form."""

    def __init__(self, fields: dict[str, Field], known: Callable[[], frozenset[str]] | None = None) -> None:
        self.fields = fields
        self.known = known

    def clean(self, w: Withholder, value: Any) -> Any:
        if not isinstance(value, dict):
            return FREE.clean(w, value)
        known = self.known() if self.known else frozenset()
        return {(k if k in self.fields or k in known else w.token(str(k))): self.fields.get(k, FREE).clean(w, v)
                for k, v in value.items()}


class Items(Field):
    """A list whose items follow one schema."""

    def __init__(self, item: Field) -> None:
        self.item = item

    def clean(self, w: Withholder, value: Any) -> Any:
        if not isinstance(value, (list, tuple)):
            return self.item.clean(w, value)
        return [self.item.clean(w, item) for item in value]


class Values(Field):
    """A map whose keys are withheld and whose values follow one schema (an evaluation's named checks)."""

    def __init__(self, value: Field) -> None:
        self.value = value

    def clean(self, w: Withholder, value: Any) -> Any:
        if not isinstance(value, dict):
            return FREE.clean(w, value)
        return {w.token(str(k)): self.value.clean(w, v) for k, v in value.items()}


class Named(Field):
    """A map whose keys come from a closed vocabulary (kept) and whose values follow one schema."""

    def __init__(self, vocabulary: Callable[[], frozenset[str]], value: Field) -> None:
        self.vocabulary = vocabulary
        self.value = value

    def clean(self, w: Withholder, value: Any) -> Any:
        if not isinstance(value, dict):
            return FREE.clean(w, value)
        return {(k if k in self.vocabulary() else w.token(str(k))): (
            self.value if k in self.vocabulary() else FREE).clean(w, v) for k, v in value.items()}


# -- vocabularies (closed: what JarvisHub itself names) ------------------------------------------------------
@functools.cache
def _builtin_skills() -> frozenset[str]:
    from skills.registry import builtin_skills

    return frozenset(s.name for s in builtin_skills())


def _builtin_specs() -> list[Any]:
    """The tool specs JarvisHub ships (not a project's MCP tools or own skills)."""
    from skills.critique import EVALUATE_NODE
    from tools.canvas import canvas_tools
    from tools.generate.tools import GENERATION_TOOLS
    from tools.native.tools import NATIVE_TOOLS
    from tools.recovery import recovery_tools

    return [*canvas_tools(), *recovery_tools(), *GENERATION_TOOLS, *NATIVE_TOOLS, EVALUATE_NODE]


@functools.cache
def _tools() -> frozenset[str]:
    """The tools JarvisHub ships (a project's MCP tools and own skills are its words, withheld)."""
    return frozenset({t.name for t in _builtin_specs()} | {f"skill__{name}" for name in _builtin_skills()})


@functools.cache
def _argument_names() -> frozenset[str]:
    """The argument names of the built-in tools and skills (their values stay free-form: withheld)."""
    from skills.registry import builtin_skills

    schemas = [t.args_schema for t in _builtin_specs()] + [s.input_model for s in builtin_skills()]
    return frozenset(name for schema in schemas for name in schema.model_fields)


@functools.cache
def _error_names() -> frozenset[str]:
    """Reasons and error types a refusal or a failed step names: the grant's reasons and our error classes."""
    from store.errors import CanvasError
    from tools.base import ToolError

    names: set[str] = set()
    pending: list[type] = [CanvasError, ToolError]
    while pending:
        cls = pending.pop()
        names.add(cls.__name__)
        pending.extend(cls.__subclasses__())
    return frozenset(names | _GRANT_REASONS | {"ValueError", "TimeoutError", "OSError", "KeyError"})


_GRANT_REASONS = frozenset({
    "revoked", "budget", "tool_not_granted", "unknown_tool", "bad_arguments", "unknown_node", "unknown_edge",
    "out_of_scope", "kind_not_granted", "operation_not_granted", "malformed", "rejected_by_person", "model_error",
    "grant_not_held", "unknown_grant", "approval_required"})
_SYSTEM_ACTORS = frozenset({"layout", "seed", "evaluator"})
_MEDIA_TYPES = frozenset({
    "image/png", "image/jpeg", "image/webp", "image/gif", "image/svg+xml", "video/mp4", "video/webm", "audio/wav",
    "audio/mpeg", "audio/ogg", "audio/flac", "text/html", "text/plain", "text/css", "text/csv", "text/markdown",
    "application/json", "application/pdf", "application/octet-stream", "application/javascript",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation"})
_PROVIDERS = frozenset({"offline", "ffmpeg", "openai", "espeak-ng", "chromium", "python-pptx"})
_MODELS = frozenset({"offline-image-v1", "offline-video-v1", "offline-audio-v1", "concat", "offline",
                     # The public models JarvisHub's providers default to; any other name (a fine-tune) is withheld.
                     "gpt-image-1", "dall-e-2", "dall-e-3", "sora-2", "sora-2-pro", "gpt-4o-mini-tts", "tts-1",
                     "tts-1-hd", "gpt-4o-mini", "gpt-4o", "gpt-4.1-mini"})


def _closed(*names: str) -> Callable[[], frozenset[str]]:
    found = frozenset(names)
    return lambda: found


_ACTOR_KINDS = _closed("agent", "system", "skill", "person", "subagent", "evaluator", "explore")


@functools.cache
def _metric_names() -> frozenset[str]:
    from jarvishub.evaluation.definitions import METRICS

    return frozenset(METRICS)
ID, IDS, TEXT, HASH, METRIC, TIME, ACTOR = Id(), Items(Id()), Text(), Hash(), Metric(), Time(), Actor()
KIND, STATUS = Name(_closed(*BUILTIN_KINDS)), Name(_closed(*(s.value for s in NodeStatus)))
EDGE, OP = Name(_closed(*(e.value for e in EdgeType))), Name(_closed(*MUTATION_OPS))
TOOL, EFFECT, ERROR = Name(_tools), Name(_closed(*(e.value for e in Effect))), Name(_error_names)
MIME, PROVIDER, MODEL = Name(_closed(*_MEDIA_TYPES)), Name(_closed(*_PROVIDERS)), Name(_closed(*_MODELS))
SKILL = Name(_builtin_skills)

ARTIFACT = Obj({"sha256": HASH, "uri": HASH, "mime": MIME, "size": METRIC, "name": TEXT})
PROVENANCE = Obj({"actor": ACTOR, "tool": TOOL, "provider": PROVIDER, "model": MODEL, "thread_id": ID,
                  "turn_id": ID})
NODE = Obj({
    "id": ID, "kind": KIND, "title": TEXT, "status": STATUS, "version": METRIC, "group_id": ID,
    "position": Obj({"pinned": METRIC}), "inputs": FREE, "outputs": Items(ARTIFACT),
    "metadata": Obj({"provenance": PROVENANCE, "created_by": ACTOR, "cache_hit": METRIC, "signature": HASH,
                     "status_reason": TEXT, "timings": Named(_closed("elapsed_s", "provider_s"), METRIC),
                     "media": Obj({"mime": MIME, "provider": PROVIDER, "model": MODEL})}),
    "created_at": TIME, "updated_at": TIME, "canvas_version": METRIC, "deleted": METRIC,
})
EDGE_RECORD = Obj({"id": ID, "type": EDGE, "source": ID, "target": ID, "properties": FREE, "created_at": TIME,
                   "canvas_version": METRIC})
_ID_ARGS = {"node_id": ID, "source": ID, "target": ID, "group_id": ID, "version_of": ID, "code_id": ID,
            "edge_id": ID, "node_ids": IDS, "shot_ids": IDS, "image_ids": IDS, "clip_node_ids": IDS,
            "references": IDS, "created": ID}
ARGS = Obj({**_ID_ARGS, "kind": KIND, "status": STATUS, "type": EDGE}, known=_argument_names)
MUTATION = Obj({**_ID_ARGS, "op": OP, "id": ID, "kind": KIND, "status": STATUS, "type": EDGE, "title": TEXT,
                "reason": TEXT, "expected_version": METRIC, "expected_target_version": METRIC, "hard": METRIC,
                "undelete": METRIC, "outputs": Items(ARTIFACT), "turn_id": ID, "thread_id": ID})
_ACTION = {"kind": Name(_closed("tool_call", "canvas_mutation", "evaluation", "clarification", "reply")),
           "action_id": ID, "actor": ACTOR}
ACTION = Obj({**_ACTION, "tool": TOOL, "args": ARGS, "mutations": Items(MUTATION), "node_id": ID,
              "criteria": TEXT, "text": TEXT, "question": TEXT, "options": FREE, "raw_error": TEXT})
OBSERVATION = Obj({**_ID_ARGS, "kind": KIND, "status": STATUS, "tool": TOOL, "skill": SKILL, "sha256": HASH,
                   "mime": MIME, "provider": PROVIDER, "model": MODEL, "cache_hit": METRIC, "error": TEXT,
                   "error_type": ERROR, "refused": ERROR, "reply": TEXT, "question": TEXT, "not_committed": TEXT,
                   "plan_id": ID, "character_id": ID, "scene_id": ID, "clip_ids": IDS, "mutations": METRIC,
                   "unlinked": Obj({"edge_id": ID, "type": EDGE, "source": ID, "target": ID}),
                   "provider_calls": METRIC, "cache_hits": METRIC, "replayed": METRIC})
EVALUATION = Obj({"node_id": ID, "score": METRIC, "passed": METRIC, "evaluator": PROVIDER, "notes": TEXT,
                  "checks": Values(Obj({"score": METRIC, "passed": METRIC}))})
FEEDBACK = Obj({"source": Name(_closed("evaluator", "person", "critic")), "passed": METRIC, "node_ids": IDS,
                "evaluations": Items(EVALUATION), "person": ACTOR, "actor": ACTOR, "text": TEXT, "approve": METRIC})
REPAIR = Obj({"decision": Name(_closed("accept", "retry", "repair", "reject", "ask", "rebuild")), "node_ids": IDS,
              "mutations": Items(MUTATION), "reason": TEXT})
GRANT = Obj({
    "id": ID, "parent_id": ID, "actor": ACTOR, "tools": Items(TOOL), "skill_only_tools": Items(TOOL),
    "node_kinds": Items(KIND), "operations": Items(OP), "approval_tools": Items(TOOL),
    "approval_effects": Items(EFFECT), "revoked": METRIC,
    "scope": Obj({"all_nodes": METRIC, "node_ids": IDS, "group_ids": IDS, "descendants_of": IDS}),
    "budget": Obj({"tool_calls": METRIC, "generation_calls": METRIC, "wall_time_s": METRIC, "rejections": METRIC}),
})
STEP = Obj({
    "index": METRIC, "action": ACTION, "observation": OBSERVATION,
    "verdict": Obj({"verdict": Name(_closed("allow", "reject", "needs_approval")), "reason": ERROR,
                    "message": TEXT}),
    "commit": Obj({"canvas_version": METRIC, "id": ID, "replayed": METRIC}),
    "feedback": FEEDBACK, "repair": REPAIR, "raw_error": TEXT,
    **{name: METRIC for name in ("provider_calls", "cache_hits", "rebuilds", "model_calls", "model_input_bytes",
                                 "tool_schema_bytes", "max_call_bytes")},
})
RECORD = Obj({
    "thread_id": ID, "turn_id": ID, "request": TEXT, "reply": TEXT, "canvas_before": METRIC, "canvas_after": METRIC,
    "manifest_tools": Items(TOOL), "grant": GRANT, "actions": Items(ACTION), "observations": Items(OBSERVATION),
    "feedback": Items(FEEDBACK), "repair": Items(REPAIR),
    "outcome": Name(_closed("replied", "clarification", "failed", "interrupted", "budget", "revoked",
                            "step_budget", "rejected", "refused", "done")),
    "touched_ids": IDS, "steps": Items(STEP), "started_at": TIME, "finished_at": TIME,
    "canvas_diff": Obj({"from_version": METRIC, "to_version": METRIC, "added_nodes": Items(NODE),
                        "removed_nodes": Items(NODE), "changed_nodes": Items(Items(NODE)),
                        "added_edges": Items(EDGE_RECORD), "removed_edges": Items(EDGE_RECORD)}),
    "metrics": Named(_metric_names, METRIC),
})
"""A turn record, field by field: everything an export without consent keeps (and how)."""


def thread_records(store: Neo4jCanvasStore, trajectories: TrajectoryStore, thread_id: str | None, *,
                   consent: bool) -> Iterator[dict[str, Any]]:
    """One export record per turn of a thread (all threads when None), oldest first, cleaned for ``consent``.

    Without consent one :class:`Withholder` (one salt) serves the whole thread, so a title reused across its
    turns keeps its token.
    """
    clean = redact if consent else Withholder()
    for turn in trajectories.turns(thread_id):
        diff = store.diff(int(turn.get("canvas_before", 0)), int(turn.get("canvas_after", 0)))
        record = {**turn, "canvas_diff": json.loads(diff.model_dump_json())}
        record.pop("manifest", None)
        record["manifest_tools"] = sorted(t["name"] for t in turn.get("manifest", {}).get("tools", []))
        # Through JSON first, so values the encoder turns into strings (dates, enums) are withheld too.
        yield clean(json.loads(json.dumps(record, default=str)))


def export_thread(store: Neo4jCanvasStore, trajectories: TrajectoryStore, thread_id: str | None, out: Path, *,
                  consent: bool) -> int:
    """Write one JSON object per turn to ``out`` (JSONL); returns the number of turns written."""
    written = 0
    with open(out, "w", encoding="utf-8") as handle:
        for record in thread_records(store, trajectories, thread_id, consent=consent):
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            written += 1
    return written
