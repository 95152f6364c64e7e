"""The offline planner's playbook for skills: a request that names a skill runs it, with arguments from its words.

The interpreter (``nodes/understanding/readers/skills.py``) read the request against the project's skills
with :func:`nodes.skill_match.match_skill` and made a ``skill`` clause holding the skill's tool and arguments;
a match that left a word unplaced or a required input unsaid is already the turn's question.  This playbook
only calls the tool, then reports what it made.
"""

from __future__ import annotations

import json
from typing import Any

from nodes.models.playbooks import Call, Done, PlannerInput, stop_on_failure


class SkillPlaybook:
    """"make a poster titled Night Harbour in neon" calls ``skill__poster`` with title and style."""

    def matches(self, p: PlannerInput) -> bool:
        return p.operation_is("skill")

    def next_step(self, p: PlannerInput) -> Call | Done:
        if (stop := stop_on_failure(p)) is not None:
            return stop
        clause = p.clause("skill")
        assert clause is not None
        tool = str(clause.args["tool"])
        done = p.made(tool)
        if done:
            return Done(text=f"Ran the skill {clause.args['skill']}: {_summary(done[-1].observation)}.")
        return Call(tool, dict(clause.args.get("arguments") or {}))


def _summary(observation: dict[str, Any]) -> str:
    shown = {k: v for k, v in observation.items() if k != "skill"}
    return ", ".join(f"{k} {json.dumps(v, default=str)}" for k, v in shown.items()) or "done"
