"""Notes: "note: the keeper's lamp stays warm" adds a text node with the words after the colon."""

from __future__ import annotations

import re

from nodes.understanding.intent import Clause
from nodes.understanding.readers.base import ReadContext, Reading

_NOTE = re.compile(r"^\s*(?:add a |take a |make a |write a )?note(?: down)?\s*[:\-]\s*(.+)$|^\s*note\s+(.+)$",
                   re.IGNORECASE | re.DOTALL)


class NoteReader:
    """A note's text is content kept whole: every word is used."""

    name = "notes"

    def read(self, ctx: ReadContext) -> Reading | None:
        match = _NOTE.match(ctx.request)
        if match is None:
            return None
        text = (match.group(1) or match.group(2) or "").strip()
        ctx.words.take_all()
        return Reading(clauses=[Clause(text=ctx.request, domain=self.name, operation="note", args={"text": text},
                                       understood=[f"note: {text[:60]}"])])
