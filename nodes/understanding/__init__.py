"""Understanding a request: one interpretation per turn (``docs/requests.md``).

:func:`interpret` turns a request, the project's facts (:func:`read_facts`), the previous turn and the
selection into an :class:`Intent`; :func:`resolve_targets` is the reference resolution #21 and #24 reuse.
Names are loaded on first use, so the grammar can import :mod:`nodes.understanding.text` alone.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "CanvasFacts": "facts", "NodeFact": "facts", "ShotFact": "facts", "read_facts": "facts",
    "Clarification": "intent", "Clause": "intent", "Intent": "intent", "Reference": "intent", "Target": "intent",
    "interpret": "pipeline", "READERS": "readers", "SKILLS": "readers", "PreviousTurn": "readers",
    "Resolution": "references", "resolve_targets": "references",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"nodes.understanding.{_EXPORTS[name]}"), name)
