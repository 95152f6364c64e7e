"""Notes: "note: the keeper's lamp stays warm" adds a text node with the words after the colon."""

from __future__ import annotations

import re

from nodes.understanding.intent import Clause
from nodes.understanding.readers.base import ReadContext, Reading, with_a_change
from nodes.understanding.text import THEN_A_CHANGE

_NOTE = re.compile(r"^\s*(?:add a |take a |make a |write a )?note(?: down| to (?:self|myself|me|us|all|everyone))?"
                   r"\s*[:\-]\s*(.+)$|^\s*note\s+(.+)$", re.IGNORECASE | re.DOTALL)
"""A note: its words after the colon ("note: ...", "note to self: ..."; who it is to is not part of it), or after
"note" when there is no colon ("note that ...")."""


class NoteReader:
    """A note's text is content kept whole: every word is used."""

    name = "notes"

    def read(self, ctx: ReadContext) -> Reading | None:
        match = _NOTE.match(ctx.request)
        if match is None:
            return None
        text = (match.group(1) or match.group(2) or "").strip()
        if match.group(2) is not None and (then := THEN_A_CHANGE.search(ctx.words.text)) is not None:
            # "note that shot 3 is approved, and make shot 4 night": without a colon the note has no clear end, and
            # the change after it was written into the note and never made.  With a colon, all of it is the note.
            return with_a_change(ctx, "a note", then, "That reads as a note and a change in one request, so I "
                                 "did neither. Take the note with a colon ('note: ...'), which keeps every word of it, "
                                 "then say the change.")
        ctx.words.take_all()
        return Reading(clauses=[Clause(text=ctx.request, domain=self.name, operation="note", args={"text": text},
                                       understood=[f"note: {text[:60]}"])])
