"""The offline planner's playbook for skills: a request that asks for a skill runs it, with arguments from its words.

It reads the skills from the tools the planner is bound with (name, description with trigger phrases,
input schema: what a real model is shown too) and matches the request with
:func:`nodes.skill_match.match_skill`.  A match that leaves content words unplaced or a required input
unsaid is a question, never a call that drops part of the request.

Skills the workflow playbooks drive (storyboard, slides, ...) are left to them: a request naming
"slides" is a deck to plan, not a bare ``skill__slides`` call.
"""

from __future__ import annotations

import json
from typing import Any

from nodes.models.playbooks import Call, Done, PlannerInput, stop_on_failure
from nodes.skill_match import SkillMatch, match_skill, skill_descriptions

WORKFLOW_SKILLS = frozenset({"storyboard", "reference_images", "video_clips", "critique", "explore", "design_to_web",
                             "web_revise", "slides"})
"""Built-in skills whose requests other playbooks plan (narrative, web, slides, explore, edits)."""


def skill_match(p: PlannerInput) -> SkillMatch | None:
    """The skill the request asks for among the bound skill tools (workflow skills aside)."""
    skills = [s for s in skill_descriptions(p.tool_schemas.values()) if s.name not in WORKFLOW_SKILLS]
    return match_skill(p.request, skills) if skills else None


class SkillPlaybook:
    """"make a poster titled Night Harbour in neon" calls ``skill__poster`` with title and style."""

    def matches(self, p: PlannerInput) -> bool:
        return skill_match(p) is not None

    def next_step(self, p: PlannerInput) -> Call | Done:
        if (stop := stop_on_failure(p)) is not None:
            return stop
        match = skill_match(p)
        assert match is not None
        done = p.made(match.tool)
        if done:
            return Done(text=f"Ran the skill {match.skill}: {_summary(done[-1].observation)}.")
        if not match.complete:
            return Done(text=_question(match), clarification={
                "type": "clarification", "reason": "unparsed", "question": _question(match),
                "understood": [f"skill: {match.skill}", *(f"{k}: {v}" for k, v in match.arguments.items())],
                "unused": match.unused, "missing": match.missing})
        return Call(match.tool, match.arguments)


def _question(match: SkillMatch) -> str:
    said = ", ".join(f"{k} {json.dumps(v)}" for k, v in match.arguments.items())
    parts = [f"I understood the skill {match.skill}" + (f" with {said}" if said else "")]
    if match.unused:
        parts.append(f"but not: {' '.join(match.unused)}")
    if match.missing:
        parts.append(f"and it needs {', '.join(match.missing)} (say e.g. '{match.missing[0]} ...')")
    return "; ".join(parts) + ". I never run a skill with part of a request left out: say it again without the rest, " \
                              "or ask for the rest in another request."


def _summary(observation: dict[str, Any]) -> str:
    shown = {k: v for k, v in observation.items() if k != "skill"}
    return ", ".join(f"{k} {json.dumps(v, default=str)}" for k, v in shown.items()) or "done"
