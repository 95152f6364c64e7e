"""The page and deck playbook of the offline planner: each operation of the intent, one tool call each.

The interpreter read the request into page and deck operations with their arguments
(``nodes/understanding/readers/page.py`` and ``slides.py``); this playbook calls their tools in order, with
the page or deck the intent resolved (``nodes.understanding.kinds.OPERATION_TOOLS``).  Adding or removing a
bullet reads the slide first (``deck_read``): ``deck_edit_slide`` takes every bullet, and the bullets are read
at the moment they are written.  A tool's error ends the turn with its message (nothing more is tried), except
"already so" (:class:`tools.changes.NothingToChange`: the headline is 72px already): that operation is
satisfied as the page or deck stands, the turn goes on with the next one and says so.
"""

from __future__ import annotations

from typing import Any

from nodes.models.playbooks import Call, Done, PlannerInput, PriorCall, stop_on_failure
from nodes.understanding.intent import Clause
from nodes.understanding.kinds import CONTENT_OPERATIONS, OPERATION_TOOLS
from tools.changes import nothing_to_change_errors


def _target(clause: Clause) -> dict[str, str]:
    """The page or deck argument of a clause's tool call."""
    for target in clause.targets:
        if target.kind == "code":
            return {"page_id": target.id}
        if target.kind == "deck":
            return {"deck_id": target.id}
    return {}


class ContentPlaybook:
    """Page and deck operations: a state machine over the calls made so far, one step per operation."""

    def matches(self, p: PlannerInput) -> bool:
        intent = p.intent
        return (intent.clarification is None and bool(intent.clauses)
                and all(c.operation in CONTENT_OPERATIONS for c in intent.clauses))

    def next_step(self, p: PlannerInput) -> Call | Done:
        already = nothing_to_change_errors()
        last = p.calls[-1].observation if p.calls else {}
        if last.get("error_type") not in already and (stop := stop_on_failure(p)) is not None:
            return stop
        at = 0
        done: list[tuple[Clause, PriorCall]] = []
        latest: dict[str, str] = {}
        for clause in p.intent.clauses:
            read: dict[str, Any] = {}
            for step in self._steps(clause):
                if at < len(p.calls) and p.calls[at].tool == step:
                    seen = p.calls[at].observation
                    if seen.get("error_type") in already:  # satisfied as it stands: said, and the next one
                        done.append((clause, p.calls[at]))
                    elif step == "deck_read":
                        read = seen
                    else:
                        done.append((clause, p.calls[at]))
                    # Later operations of the turn name the version the earlier ones made (the tools would follow
                    # an older id to it too; a skill reads the node it is given).
                    latest.update({k: str(seen[v]) for k, v in (("page_id", "page_id"), ("page_id", "code_id"),
                                                                ("deck_id", "deck_id")) if seen.get(v)})
                    at += 1
                    continue
                return self._call(clause, step, read, latest)
        return Done(text=self._summary(done))

    @staticmethod
    def _steps(clause: Clause) -> list[str]:
        write = OPERATION_TOOLS[clause.operation][0]
        if clause.operation in ("deck_add_bullet", "deck_remove_bullet"):
            return ["deck_read", write]
        return [write]

    def _call(self, clause: Clause, tool: str, read: dict[str, Any], latest: dict[str, str]) -> Call | Done:
        where = {k: latest.get(k, v) for k, v in _target(clause).items()}
        if tool == "deck_read":
            return Call("deck_read", where)
        if clause.operation == "revise_page":
            return Call("skill__web_revise", {"code_id": where.get("page_id"),
                                              "change": clause.args.get("change") or clause.text})
        if clause.operation in ("deck_add_bullet", "deck_remove_bullet"):
            return self._bullets(clause, where, read)
        return Call(tool, {**where, **clause.args})

    @staticmethod
    def _bullets(clause: Clause, where: dict[str, str], deck: dict[str, Any]) -> Call | Done:
        number = int(clause.args["slide"])
        slides = deck.get("slides") or []
        if not 1 <= number <= len(slides):
            return Done(text=f"The deck has no slide {number} any more; nothing changed.", failed=True)
        bullets = list(slides[number - 1].get("bullets") or [])
        if clause.operation == "deck_add_bullet":
            bullets.append(str(clause.args["bullet"]))
        else:
            said = clause.args["bullet"]
            which = sorted({int(w) for w in (said if isinstance(said, list) else [said])}, reverse=True)
            if not all(1 <= w <= len(bullets) for w in which):
                return Done(text=f"Slide {number} has {len(bullets)} bullets now, not {which[0]}; nothing changed.",
                            failed=True)
            for w in which:  # the last first: the numbers of the others stay right
                bullets.pop(w - 1)
        return Call("deck_edit_slide", {**where, "slide": number, "bullets": bullets})

    @staticmethod
    def _summary(done: list[tuple[Clause, PriorCall]]) -> str:
        parts = []
        for clause, made in done:
            seen = made.observation
            if "error" in seen:  # already so (NothingToChange)
                said = str(seen["error"])
                parts.append(f"{said[:1].upper()}{said[1:]}.")
                continue
            change = (seen.get("change") or {}).get("summary") if isinstance(seen.get("change"), dict) else None
            if clause.operation == "revise_page":
                parts.append(f"Changed the page's layout as a new version {seen.get('code_id')} (previous "
                             f"{seen.get('previous_code_id')}) and re-rendered only its preview {seen.get('preview_id')}.")
            elif "page_id" in seen:
                reused = " (the earlier screenshot reused)" if seen.get("preview_reused") else ""
                parts.append(f"{change or clause.describe()}: page version {seen['page_id']} (previous "
                             f"{seen.get('previous_page_id')}), preview {seen.get('preview_id')}{reused}.")
            elif "deck_id" in seen:
                redrawn = seen.get("previews_drawn")
                parts.append(f"{change or clause.describe()}: deck version {seen['deck_id']} (previous "
                             f"{seen.get('previous_deck_id')}), {redrawn} slide preview{'s' if redrawn != 1 else ''} "
                             "drawn, the other slides kept as they were.")
        return " ".join(parts) or "Nothing to do."
