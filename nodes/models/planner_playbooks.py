"""The offline planner's playbooks in the order it tries them, and the status playbook.

Kept apart from ``nodes/models/playbooks.py`` (what a playbook is: its input, its calls, its protocol), which
every playbook imports: the list of all of them belongs above them.
"""

from __future__ import annotations

from nodes.models.content import ContentPlaybook
from nodes.models.edits import EditPlaybook
from nodes.models.playbooks import Call, Done, NotePlaybook, PlannerInput, Playbook, PriorCall, stop_on_rejection
from nodes.models.questions import QuestionPlaybook
from nodes.models.skill_playbook import SkillPlaybook
from nodes.models.targets import CanvasTargets, TargetSource
from nodes.models.versions import VersionPlaybook
from nodes.models.workflows import ExplorePlaybook, NarrativePlaybook, SlidesPlaybook, WebPlaybook


class StatusPlaybook:
    """"mark shot 3 as rejected" / 'mark "shot 5 image" as selected' sets a node's status."""

    def __init__(self, source: TargetSource | None = None) -> None:
        self.source = source or CanvasTargets()

    def matches(self, p: PlannerInput) -> bool:
        return p.operation_is("status")

    def next_step(self, p: PlannerInput) -> Call | Done:
        if (stop := stop_on_rejection(p)) is not None:
            return stop
        clause = p.clause("status")
        status = str(clause.args.get("status")) if clause else "completed"
        targets = [{"id": t.id} for t in clause.targets] if clause and clause.targets else \
            [n for n in self.source.focus(p) if n.get("focus")]
        if not targets:
            return Done(text=f"I could not find the node you mean {self.source.where}; name it by title or id.",
                        clarification={"type": "clarification", "reason": "not_found",
                                       "question": "Which node? Name it by its title in quotes or its id."})
        done = {c.args["node_id"] for c in p.made("set_status")}
        for node in targets:
            if node["id"] not in done:
                return Call("set_status", {"node_id": node["id"], "status": status})
        # A rejection brings back each output's previous version; one whose inputs changed since (a cut of clips
        # replaced later) comes back stale, and is rebuilt from the current versions before the turn ends.
        stale = list(dict.fromkeys(i for c in p.made("set_status") for i in c.observation.get("stale") or []))
        if stale and not p.made("regenerate_stale"):
            return Call("regenerate_stale", {"node_ids": stale})
        return Done(text=status_reply(p.made("set_status"), status))


def status_reply(calls: list[PriorCall], status: str) -> str:
    """What the status calls did, in the words a person knows the nodes by: their titles, and what a rejection
    took along or brought back (a rejected image takes its clip and the cut with it)."""
    names = sorted({str(c.observation.get("title") or c.args["node_id"]) for c in calls})
    marked = {c.args["node_id"] for c in calls}
    along = {i for c in calls for i in c.observation.get("rejected") or []} - marked
    restored = {i for c in calls for i in c.observation.get("restored") or []}
    text = f"Marked {_joined(names)} as {status}."
    if along:
        text += f" Rejected with {'them' if len(names) > 1 else 'it'}: {_count(len(along), 'output')} made from " \
                f"{'them' if len(names) > 1 else 'it'}."
    if restored:
        text += f" Made current again: {_count(len(restored), 'earlier version')}."
    return text


def _joined(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def default_playbooks(source: TargetSource | None = None) -> list[Playbook]:
    """The playbooks of the built-in offline planner, most specific first, finding targets with ``source``."""
    source = source or CanvasTargets()
    return [SkillPlaybook(), VersionPlaybook(), ExplorePlaybook(source), StatusPlaybook(source), NotePlaybook(),
            QuestionPlaybook(source), EditPlaybook(source), ContentPlaybook(), WebPlaybook(source), SlidesPlaybook(),
            NarrativePlaybook()]
