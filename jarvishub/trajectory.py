"""Trajectory export: one JSON object per turn, canvas diff materialised, secrets and personal data redacted.

Raw creative trajectories are not training data as they are.  With consent (the
``--consent`` flag or the project setting ``consent = true``) an export keeps
the text but redacts API keys, bearer tokens, passwords in URLs, e-mail
addresses and home-directory paths.

Without consent it contains none of the user's words anywhere: every string is
replaced by a placeholder ``[text:<token>]`` unless it is structure (an id, a
content hash, a timestamp, an artifact URI, or a token-shaped value under a
structural key such as ``kind``, ``status``, ``tool`` or ``op``).  The token is
an HMAC of the text under a salt drawn for that export, so the same text keeps
the same token within one export (a title reused across turns can still be
followed) but cannot be looked up in a dictionary or linked across exports.
Dictionary keys that are not identifier-shaped are replaced the same way.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from store.neo4j import Neo4jCanvasStore
from store.trajectories import TrajectoryStore

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
STRUCTURAL_KEYS = frozenset({
    "id", "kind", "status", "op", "type", "tool", "tools", "actor", "verdict", "outcome", "mime", "sha256", "uri",
    "family", "effects", "manifest_tools", "provider", "model", "language", "direction", "edge_types", "node_kinds",
    "operations", "approval_tools", "approval_effects", "skill_only_tools", "source", "target", "created",
    "cache_hit", "critic",
})
"""Keys whose token-shaped string values are structure (ids, enums, tool and kind names), kept without consent."""
_STRUCTURAL_SUFFIXES = ("_id", "_ids", "_at", "_kind", "_status")
_TOKEN = re.compile(r"^[A-Za-z0-9_.:+\-/]{1,120}$")
_ALWAYS_KEPT = [
    re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$"),  # ULID ids
    re.compile(r"^[0-9a-f]{32,128}$"),  # content hashes and digests
    re.compile(r"^artifact://sha256/[0-9a-f]{64}$"),
    re.compile(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?$"),  # timestamps
]
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


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
    """Replace every non-structural string of a JSON value by a salted placeholder (the no-consent case)."""

    def __init__(self, salt: bytes | None = None) -> None:
        self._salt = salt or secrets.token_bytes(32)

    def token(self, text: str) -> str:
        """The placeholder of ``text`` in this export."""
        digest = hmac.new(self._salt, text.encode("utf-8"), hashlib.sha256).hexdigest()[:16]
        return f"[text:{digest}]"

    def __call__(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, str):
            return value if _structural(value, key) else self.token(value)
        if isinstance(value, dict):
            return {(k if _IDENTIFIER.match(k) or _kept(k) else self.token(k)): self(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self(v, key) for v in value]
        return value


def _kept(text: str) -> bool:
    return any(p.match(text) for p in _ALWAYS_KEPT)


def _structural(text: str, key: str | None) -> bool:
    if _kept(text):
        return True
    structural_key = key is not None and (key in STRUCTURAL_KEYS or key.endswith(_STRUCTURAL_SUFFIXES))
    return structural_key and bool(_TOKEN.match(text))


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
