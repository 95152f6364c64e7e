"""Trajectory export: one JSON object per turn, canvas diff materialised, secrets and personal data redacted.

Raw creative trajectories are not training data as they are: exports redact API
keys, bearer tokens, passwords in URLs, e-mail addresses and home-directory
paths always, and include prompt and feedback text only with consent (the
``--consent`` flag or the project setting ``consent = true``).
"""

from __future__ import annotations

import json
import re
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
TEXT_KEYS = frozenset({"request", "text", "prompt", "premise", "brief", "topic", "feedback", "notes", "question",
                       "reply", "change", "instruction"})
WITHHELD = "[withheld: no consent]"


def redact_text(text: str) -> str:
    """Remove secrets, e-mail addresses and home-directory paths from a string."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def redact(value: Any, *, consent: bool, key: str | None = None) -> Any:
    """Redact a JSON value; without consent, free-text fields (prompts, feedback) are withheld."""
    if isinstance(value, str):
        if not consent and key in TEXT_KEYS:
            return WITHHELD
        return redact_text(value)
    if isinstance(value, dict):
        return {k: redact(v, consent=consent, key=k) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, consent=consent, key=key) for v in value]
    return value


def export_thread(store: Neo4jCanvasStore, trajectories: TrajectoryStore, thread_id: str | None, out: Path, *,
                  consent: bool) -> int:
    """Write one JSON object per turn to ``out`` (JSONL); returns the number of turns written."""
    turns = trajectories.turns(thread_id)
    with open(out, "w", encoding="utf-8") as handle:
        for turn in turns:
            diff = store.diff(int(turn.get("canvas_before", 0)), int(turn.get("canvas_after", 0)))
            record = {**turn, "canvas_diff": json.loads(diff.model_dump_json())}
            record.pop("manifest", None)
            record["manifest_tools"] = sorted(t["name"] for t in turn.get("manifest", {}).get("tools", []))
            handle.write(json.dumps(redact(record, consent=consent), default=str, ensure_ascii=False) + "\n")
    return len(turns)
