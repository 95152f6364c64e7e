"""The built-in skills."""

from __future__ import annotations

BUILTIN_SKILLS: list = []
