"""The cut: reorder shots, remove one and put it back, insert a new shot, duplicate one, change a clip's
duration.  Recognised here; carried out once the cut tools are in the manifest (until then: an honest
clarification naming the operation, or "there is no story" on a project without one)."""

from __future__ import annotations

import re

from nodes.understanding.readers.base import ReadContext, Reading, not_found, unsupported

_FORMS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"\b(?:swap|switch the order of|reorder|re-order|shuffle)\b.*\b(?:shots?|clips?|cut)\b|"
                r"\bmove (?:shot|the)\b.*\b(?:before|after|to the (?:start|end|beginning))\b"),
     "reorder_cut", "reorder shots in the cut"),
    (re.compile(r"\b(?:remove|drop|take out|cut out|delete)\b.*\b(?:from|out of) the (?:final )?(?:cut|film|edit)\b|"
                r"\bput\b.*\bback\b|\b(?:remove|drop|delete) (?:shot|the (?:last|first|\d+th) shot)\b"),
     "remove_from_cut", "remove or restore a shot in the cut"),
    (re.compile(r"\b(?:insert|add)\b (?:a |an |one )?(?:new |extra |another )?shot\b"),
     "insert_shot", "insert a new shot"),
    (re.compile(r"\bduplicate\b|\bcopy (?:of )?shot\b"), "duplicate_shot", "duplicate a shot"),
    (re.compile(r"\b(?:clip|shot)s?\b.*\b(?:\d+(?:\.\d+)? ?(?:s|sec|secs|seconds)|longer|shorter)\b|\bduration\b|"
                r"\bcut\b.*\b(?:shorter|longer)\b"), "clip_duration", "change a clip's duration"),
)


class CutReader:
    """Recognises cut operations on a project that has a story."""

    name = "cut"

    def read(self, ctx: ReadContext) -> Reading | None:
        for pattern, operation, what in _FORMS:
            if pattern.search(ctx.words.text):
                if not ctx.facts.has_story:
                    return not_found(ctx, "a story", f"There is no story with shots {ctx.facts.where} yet, so there "
                                     "is no cut to change; make a storyboard first.")
                return unsupported(ctx, operation, what, domain=self.name)
        return None
