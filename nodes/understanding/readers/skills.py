"""Skills a request names ("make a poster titled Night Harbour in neon", or one of a skill's trigger phrases).

The project's skills (built-in, installed, the project's own) reach the reader through the read context, and
:func:`nodes.skill_match.match_skill` reads the request against their names, trigger phrases and input
schemas.  A match that places every content word and fills every required input is a ``skill`` clause whose
``args`` name the skill, its tool and its arguments; one that leaves a word unplaced or a required input unsaid
is a question, never a call that drops part of the request.  Skills that a story, a page, a deck or an
exploration drive (:data:`~nodes.skill_match.WORKFLOW_SKILLS`) are left to those readers.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from nodes.skill_match import WORKFLOW_SKILLS, SkillMatch, match_skill
from nodes.understanding.intent import Clarification, Clause
from nodes.understanding.readers.base import ReadContext, Reading

SkillMatcher = Callable[[ReadContext], Reading | None]
"""Reads a request that names a skill: a ``skill`` clause, a question about it, or None (not a skill's)."""


def read_named_skill(ctx: ReadContext) -> Reading | None:
    """The project's skill the request names, read with :func:`match_skill`."""
    skills = [s for s in ctx.skills if s.name not in WORKFLOW_SKILLS]
    match = match_skill(ctx.request, skills) if skills else None
    if match is None:
        return None
    understood = [f"skill: {match.skill}", *(f"{k}: {json.dumps(v)}" for k, v in match.arguments.items())]
    if not match.complete:
        return Reading(clarification=Clarification(
            reason="unparsed", understood=understood, not_understood=list(match.unused),
            missing=list(match.missing), message=skill_question(match)))
    return Reading(clauses=[Clause(text=ctx.request, domain="skills", operation="skill", understood=understood,
                                   args={"skill": match.skill, "tool": match.tool,
                                         "arguments": dict(match.arguments)})])


def skill_question(match: SkillMatch) -> str:
    """What to ask when a skill was named but part of the request has no place in its inputs."""
    said = ", ".join(f"{k} {json.dumps(v)}" for k, v in match.arguments.items())
    parts = [f"I understood the skill {match.skill}" + (f" with {said}" if said else "")]
    if match.unused:
        parts.append(f"but not: {' '.join(match.unused)}")
    if match.missing:
        parts.append(f"and it needs {', '.join(match.missing)} (say e.g. '{match.missing[0]} ...')")
    return "; ".join(parts) + ". I never run a skill with part of a request left out: say it again without the rest, " \
                              "or ask for the rest in another request."


class SkillReader:
    """Offers the request to each skill matcher; the first that reads it decides, and takes every word (the
    matcher has accounted for them itself)."""

    name = "skills"

    def __init__(self, matchers: list[SkillMatcher] | None = None) -> None:
        self.matchers: list[SkillMatcher] = list(matchers if matchers is not None else [read_named_skill])

    def read(self, ctx: ReadContext) -> Reading | None:
        for matcher in self.matchers:
            reading = matcher(ctx)
            if reading is not None:
                ctx.words.take_all()
                return reading
        return None
