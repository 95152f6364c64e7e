"""Versions: undo the last change to X, revert X (to its original, version N, before a named change, a
time), undo the last turn, compare versions.

The tools are being built alongside this reader (undo/revert/compare); until they are in the manifest the
reader recognises the words and answers with an honest clarification naming the operation.  When a tool
lands, :data:`OPERATIONS` maps the operation to it and the reader returns a clause instead
(``docs/requests.md``, "Adding a domain").
"""

from __future__ import annotations

import re

from nodes.understanding.readers.base import ReadContext, Reading, unsupported

_FORMS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"\bundo (?:the )?(?:whole |entire )?(?:last|previous) (?:turn|request|step)\b|"
                r"\bundo everything (?:you|i) (?:just )?did\b"), "undo_turn", "undo the whole last turn"),
    (re.compile(r"\bcompare\b.*\bversions?\b|\bversions?\b.*\bside by side\b|\bdiff(?:erence)? between\b.*\bversions?\b|"
                r"\bwhat(?:'s| is) different between\b"), "compare_versions", "compare two versions"),
    (re.compile(r"\b(?:revert|restore|roll ?back|go back|back)\b.*\b(?:original|version \d+|v\d+|first version|"
                r"previous version|before the|yesterday|this morning|last week|an hour ago|earlier version)\b|"
                r"\brevert\b|\broll ?back\b|\brestore\b"), "revert", "revert to an earlier version"),
    (re.compile(r"\bundo\b|\bun-do\b|\btake (?:that|it) back\b|\bput (?:it|that) back the way\b"),
     "undo_change", "undo the last change"),
)


class VersionReader:
    """Recognises version operations; none is available until its tool is in the manifest."""

    name = "versions"

    def read(self, ctx: ReadContext) -> Reading | None:
        for pattern, operation, what in _FORMS:
            if pattern.search(ctx.words.text):
                return unsupported(ctx, operation, what, domain=self.name)
        return None
