"""Project skills named in a request ("run the colour-grade skill on shot 3"): the slot #22's
``match_skill(...)`` plugs into.  With no matcher registered the reader claims nothing."""

from __future__ import annotations

from collections.abc import Callable

from nodes.understanding.intent import Clause
from nodes.understanding.readers.base import ReadContext, Reading

SkillMatcher = Callable[[ReadContext], Clause | None]
"""Reads a request that names a skill: a clause (operation ``skill``, ``args`` the skill's name and input)."""


class SkillReader:
    """Offers the request to each registered skill matcher; the first clause wins and takes every word."""

    name = "skills"

    def __init__(self) -> None:
        self.matchers: list[SkillMatcher] = []

    def read(self, ctx: ReadContext) -> Reading | None:
        for matcher in self.matchers:
            clause = matcher(ctx)
            if clause is not None:
                ctx.words.take_all()
                return Reading(clauses=[clause])
        return None
