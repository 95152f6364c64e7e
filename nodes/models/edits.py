"""The offline planner's edit playbook: the intent's shot edits carried out as one local repair.

The interpreter (:mod:`nodes.understanding`) says what to change and where,
clause by clause; this playbook reads the targets' current image inputs through
its source (the canvas agent: the targets the resolve step put in its view, no
query; the chat baseline: its transcript), then, with ``repair`` granted, changes
and rebuilds them in that one call; otherwise it marks the targets' images stale
as one dirty set (``mark_stale`` returns the ids) and regenerates exactly those
ids with the changes as overrides.  Either way their clips and the cut are
rebuilt once.
Every regenerated image carries the structured ``intent`` it was made for; the
evaluator judges it on that.
"""

from __future__ import annotations

from typing import Any

from nodes.models.grammar import CAN_DO, EditRequest
from nodes.models.playbooks import Call, Done, PlannerInput, stop_on_failure
from nodes.models.targets import SHOTS_CYPHER, STALE_CYPHER, CanvasTargets, TargetSource
from nodes.understanding.facts import json_object

__all__ = ["EditPlaybook", "SHOTS_CYPHER", "STALE_CYPHER", "already_done", "clarify", "image_overrides",
           "plan_edits"]

LIGHTING_CYCLE = ("warm", "cold", "night", "high-key", "dawn", "dusk", "golden-hour", "moonlit", "neutral")
"""What "redo the lighting" moves to: the next preset after the current one."""
EXPOSURE_STEP = 0.6
"""Stops per "darker"/"brighter"."""
TEMPERATURE_STEP = 1.0
"""Temperature per "warmer"/"cooler"/"less blue"."""

def clarify(reason: str, text: str, **extra: Any) -> Done:
    """A reply that asks instead of acting; the turn's outcome becomes ``clarification`` with ``reason``."""
    return Done(text=text, clarification={"type": "clarification", "reason": reason, "question": text,
                                          "can_do": CAN_DO, **extra})


class EditPlaybook:
    """Edits of shots (each clause of the intent with its own targets and changes), and "regenerate what is
    stale"; current image inputs found through ``source``."""

    def __init__(self, source: TargetSource | None = None) -> None:
        self.source = source or CanvasTargets()

    def matches(self, p: PlannerInput) -> bool:
        return p.operation_is("edit", "stale_repair")

    def next_step(self, p: PlannerInput) -> Call | Done:
        if (stop := stop_on_failure(p)) is not None:
            return stop
        if p.intent.operation == "stale_repair":
            return self._stale(p)
        return self._edit(p)

    # -- "regenerate what is stale" ------------------------------------------------------------------
    def _stale(self, p: PlannerInput) -> Call | Done:
        rows = self.source.stale(p)
        if isinstance(rows, Call):
            return rows
        if not rows:
            return Done(text=f"Nothing {self.source.where} is stale.")
        regenerated = p.made("regenerate_stale")
        if not regenerated:
            return Call("regenerate_stale", {"node_ids": [r["id"] for r in rows]})
        made = _report(regenerated[-1].observation)
        skipped = [f"{r.get('title') or r['node_id']} ({r['skipped']})"
                   for r in regenerated[-1].observation.get("regenerated") or []
                   if "skipped" in r and not str(r["skipped"]).startswith(("superseded", "not made by"))]
        verdict = regenerated[-1].answer.get("feedback") or {}
        failed = [e.get("notes", "") for e in verdict.get("evaluations") or [] if not e.get("passed")]
        if skipped or verdict.get("passed") is False:
            # What failed its check was set aside and what could not be rebuilt was left: both stay stale.
            why = "; ".join([*(f"failed its check: {n}" for n in failed if n), *(f"not rebuilt: {s}" for s in skipped)])
            return Done(text=f"Regenerated {made}, but not everything that was stale: {why}. Those stay stale.",
                        failed=True)
        return Done(text=f"Regenerated what was stale: {made}.")

    # -- edits of shots --------------------------------------------------------------------------------
    def _edit(self, p: PlannerInput) -> Call | Done:
        rows = self.source.edit_rows(p)
        if isinstance(rows, Call):
            return rows
        planned = plan_edits(p, rows, where=self.source.where)
        if isinstance(planned, Done):
            return planned
        already = [(row, edit) for row, edit in planned if already_done(edit, _inputs(row))]
        resolved = [(row, edit) for row, edit in planned if (row, edit) not in already]
        if not resolved:
            return Done(text=f"{', '.join(r['title'] for r, _ in already)} already "
                             f"{'has' if len(already) == 1 else 'have'} {already[0][1].describe()}; nothing to change.")
        images = [row["image"] for row, _ in resolved]
        overrides = {row["image"]: image_overrides(edit, _inputs(row)) for row, edit in resolved}
        one_call = self.source.repairs_in_one_call and "repair" in p.tools \
            and not p.needs_approval("mark_stale", "regenerate_stale", "repair")
        if one_call or p.made("repair"):
            # One call marks and regenerates together (one batch): the turn is this call and the reply.  A grant
            # that wants a person to approve the rebuild keeps the two steps (the mark, then the approved rebuild).
            if not p.made("repair"):
                return Call("repair", {"targets": images, "changes": overrides, "reason": p.request[:200]})
            regenerated = [*p.made("repair"), *p.made("regenerate_stale")]
        else:
            marked = p.made("mark_stale")
            if not marked:
                return Call("mark_stale", {"node_ids": images, "reason": p.request[:200]})
            stale = marked[-1].observation.get("stale") or images
            regenerated = p.made("regenerate_stale")
            if not regenerated:
                return Call("regenerate_stale", {"node_ids": stale, "overrides": overrides})
        titles = "; ".join(f"{row['title']} ({edit.describe()})" for row, edit in resolved)
        if already:
            titles += f" (not {', '.join(r['title'] for r, _ in already)}: already {already[0][1].describe()})"
        verdict = regenerated[0].answer.get("feedback") or {}
        rebuild = (regenerated[-1].answer.get("repair") or {}).get("restored_stale") or []
        if rebuild and len(regenerated) < 3:
            # Part of the edit failed its check and was undone; what was made from the parts that stayed
            # (the cut) is stale now, and is rebuilt from the current versions before the turn ends.
            return Call("regenerate_stale", {"node_ids": rebuild})
        read_as = f" {p.intent.read_as()}" if p.intent.corrections else ""
        if verdict.get("passed") is False:
            notes = "; ".join(e.get("notes", "") for e in verdict.get("evaluations") or [] if not e.get("passed"))
            return Done(text=(f"I regenerated {titles}, but part of it failed its check "
                              f"({notes}); those parts keep their previous versions.{read_as}"), failed=True)
        keep = sorted({k for _, edit in resolved for k in edit.keep})
        kept = f" Kept: {', '.join(keep)}." if keep else ""
        made = "; ".join(_report(r.observation) for r in regenerated)
        return Done(text=(f"Changed {titles}. Regenerated: {made}.{kept} Reused everything else as it was (other "
                          f"shots, clips and the character reference keep their artifacts).{read_as}"))


def plan_edits(p: PlannerInput, rows: list[dict[str, Any]], where: str = "on the canvas"
               ) -> list[tuple[dict[str, Any], EditRequest]] | Done:
    """The current image row of every target of the intent's edit clauses with that clause's edit, or a
    clarification when a target has no image ``where`` the rows came from."""
    by_shot: dict[str, dict[str, Any]] = {}
    for row in rows:  # newest image version first per shot
        by_shot.setdefault(row["shot"], row)
    planned: list[tuple[dict[str, Any], EditRequest]] = []
    missing: list[str] = []
    for clause in p.intent.clauses:
        if clause.operation != "edit":
            continue
        edit = EditRequest.model_validate(clause.modifications)
        for target in clause.targets:
            row = by_shot.get(target.id)
            if row is None:
                missing.append(target.title or target.id)
            else:
                planned.append((row, edit))
    if missing:
        return clarify("not_found", f"There is no {', '.join(missing)} with an image {where}.", missing=missing)
    return planned


def image_overrides(edit: EditRequest, current: dict[str, Any]) -> dict[str, Any]:
    """The new inputs of one image: absolute changes, comparatives applied to its current values, and its intent."""
    changes: dict[str, Any] = dict(edit.changes)
    if edit.redo == "lighting":
        now = str(current.get("lighting") or "neutral")
        cycle = list(LIGHTING_CYCLE)
        changes["lighting"] = cycle[(cycle.index(now) + 1) % len(cycle)] if now in cycle else cycle[0]
    elif edit.redo == "take":
        changes["seed"] = int(current.get("seed") or 0) + 1
    for attribute, direction in edit.relative.items():
        sign = (1.0 if direction == "higher" else -1.0) * edit.degree(attribute)
        if attribute == "luma":
            changes["exposure"] = _clamp(float(current.get("exposure") or 0.0) + sign * EXPOSURE_STEP)
        else:  # warmth up, or blue down: the same move of colour temperature
            sign = sign if attribute == "warmth" else -sign
            changes["temperature"] = _clamp(float(current.get("temperature") or 0.0) + sign * TEMPERATURE_STEP)
    intent: dict[str, Any] = {k: v for k, v in changes.items() if k in ("lighting", "framing", "weather", "outfit")}
    if edit.relative:
        intent["relative"] = dict(edit.relative)
    if edit.redo:
        intent["redo"] = edit.redo
    return {**changes, "intent": intent}


def already_done(edit: EditRequest, current: dict[str, Any]) -> bool:
    """Whether a shot's image already has every absolute change asked for (and nothing relative is asked)."""
    return edit.already_in(current)


def _clamp(value: float) -> float:
    return round(max(-3.0, min(3.0, value)), 3)


def _inputs(row: dict[str, Any]) -> dict[str, Any]:
    return json_object(row.get("inputs"))


def _report(observation: dict[str, Any]) -> str:
    rows = observation.get("regenerated") or []
    return ", ".join(f"{r.get('title') or r.get('kind')} ({r['old'][-6:]}→{r['new'][-6:]})" for r in rows if "new" in r) \
        or "nothing"
