"""The offline planner's edit playbook: a parsed edit request carried out as one local repair.

The request grammar (:mod:`nodes.models.grammar`) says what to change and
where; this playbook finds the targets through its source (the canvas: one query), asks when
a target is missing or ambiguous, then marks the targets' images stale as one
dirty set (``mark_stale`` returns the ids) and regenerates exactly those ids
with the changes as overrides, so their clips and the cut are rebuilt once.
Every regenerated image carries the structured ``intent`` it was made for; the
evaluator judges it on that.
"""

from __future__ import annotations

import json
import re
from typing import Any

from nodes.models.grammar import CAN_DO, Clarification, EditRequest, StaleRepair, parse_edit
from nodes.models.playbooks import Call, Done, PlannerInput, clarification_answer, stop_on_failure
from nodes.models.targets import SHOTS_CYPHER, STALE_CYPHER, CanvasTargets, TargetSource

__all__ = ["EditPlaybook", "SHOTS_CYPHER", "STALE_CYPHER", "already_done", "clarify", "image_overrides",
           "resolve_targets"]

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
    """Edits of shots parsed by the grammar, and "regenerate what is stale"; targets found through ``source``."""

    def __init__(self, source: TargetSource | None = None) -> None:
        self.source = source or CanvasTargets()

    def matches(self, p: PlannerInput) -> bool:
        return parse_edit(p.request) is not None

    def next_step(self, p: PlannerInput) -> Call | Done:
        if (stop := stop_on_failure(p)) is not None:
            return stop
        parsed = parse_edit(p.request)
        if isinstance(parsed, Clarification):
            return Done(text=parsed.message, clarification=parsed.payload())
        if isinstance(parsed, StaleRepair):
            return self._stale(p)
        assert isinstance(parsed, EditRequest)
        return self._edit(p, parsed)

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
        return Done(text=f"Regenerated what was stale: {_report(regenerated[-1].observation)}.")

    # -- edits of shots --------------------------------------------------------------------------------
    def _edit(self, p: PlannerInput, edit: EditRequest) -> Call | Done:
        rows = self.source.shots(p)
        if isinstance(rows, Call):
            return rows
        resolved = resolve_targets(edit, rows, clarification_answer(p), where=self.source.where)
        if isinstance(resolved, Done):
            return resolved
        already = [row for row in resolved if already_done(edit, _inputs(row))]
        resolved = [row for row in resolved if row not in already]
        if not resolved:
            return Done(text=f"{', '.join(r['title'] for r in already)} already "
                             f"{'has' if len(already) == 1 else 'have'} {edit.describe()}; nothing to change.")
        images = [row["image"] for row in resolved]
        marked = p.made("mark_stale")
        if not marked:
            return Call("mark_stale", {"node_ids": images, "reason": p.request[:200]})
        stale = marked[-1].observation.get("stale") or images
        regenerated = p.made("regenerate_stale")
        if not regenerated:
            overrides = {row["image"]: image_overrides(edit, _inputs(row)) for row in resolved}
            return Call("regenerate_stale", {"node_ids": stale, "overrides": overrides})
        titles = ", ".join(row["title"] for row in resolved)
        if already:
            titles += f" (not {', '.join(r['title'] for r in already)}: already {edit.describe()})"
        verdict = regenerated[0].answer.get("feedback") or {}
        rebuild = (regenerated[-1].answer.get("repair") or {}).get("restored_stale") or []
        if rebuild and len(regenerated) < 3:
            # Part of the edit failed its check and was undone; what was made from the parts that stayed
            # (the cut) is stale now, and is rebuilt from the current versions before the turn ends.
            return Call("regenerate_stale", {"node_ids": rebuild})
        if verdict.get("passed") is False:
            notes = "; ".join(e.get("notes", "") for e in verdict.get("evaluations") or [] if not e.get("passed"))
            return Done(text=(f"I regenerated {titles} ({edit.describe()}), but part of it failed its check "
                              f"({notes}); those parts keep their previous versions."), failed=True)
        kept = f" Kept: {', '.join(edit.keep)}." if edit.keep else ""
        made = "; ".join(_report(r.observation) for r in regenerated)
        return Done(text=(f"Changed {titles} ({edit.describe()}). Regenerated: {made}."
                          f"{kept} Reused everything else as it was (other shots, clips and the character "
                          "reference keep their artifacts)."))


def resolve_targets(edit: EditRequest, rows: list[dict[str, Any]], answer: str | None,
                    where: str = "on the canvas") -> list[dict[str, Any]] | Done:
    """The current image row of every targeted shot, or a clarification (not found, ambiguous).

    ``where`` names where the rows came from, so a question says where the planner looked.
    """
    by_shot: dict[str, dict[str, Any]] = {}
    for row in rows:  # newest image version first per shot
        by_shot.setdefault(row["shot"], row)
    shots = list(by_shot.values())
    numbered: dict[int, list[dict[str, Any]]] = {}
    for row in shots:
        match = re.fullmatch(r"\s*shot\s+(\d+)\s*", str(row.get("title") or ""), re.IGNORECASE)
        if match:
            numbered.setdefault(int(match.group(1)), []).append(row)
    if not numbered:
        return clarify("not_found", f"There are no shots with images {where} yet; make a storyboard first.",
                       missing=[edit.targets.describe()])
    targets = edit.targets
    wanted = sorted(numbered) if targets.every else list(targets.numbers)
    if targets.last:
        wanted.append(max(numbered))
    missing = [n for n in wanted if n not in numbered]
    if missing:
        names = ", ".join(f"{targets.noun} {n}" for n in missing)
        return clarify("not_found", f"There is no {names} {where}; the shots are numbered "
                       f"{min(numbered)} to {max(numbered)}.", missing=[f"shot {n}" for n in missing])
    chosen: list[dict[str, Any]] = []
    ambiguous: list[dict[str, Any]] = []
    for number in dict.fromkeys(wanted):
        candidates = numbered[number]
        if len(candidates) == 1:
            chosen.append(candidates[0])
            continue
        picked = _pick(candidates, answer, chosen)
        if picked is None:
            ambiguous.extend(candidates)
        else:
            chosen.append(picked)
    if ambiguous:
        listed = [{"id": c["shot"], "image_id": c["image"], "title": c["title"], "version": c["version"],
                   "plan": c.get("plan_title") or c.get("plan")} for c in ambiguous]
        lines = "; ".join(f"{c['title']} of {c['plan'] or 'no plan'} (id {c['id']}, image v{c['version']})"
                          for c in listed)
        return clarify("ambiguous", f"More than one shot matches: {lines}. Which one do you mean? Answer with its id.",
                       candidates=listed)
    return chosen


def _pick(candidates: list[dict[str, Any]], answer: str | None, chosen: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The candidate the person's answer names (by shot, image or plan id), or one of the same plan as before."""
    if answer:
        for c in candidates:
            if answer in (c["shot"], c["image"], c.get("plan")):
                return c
        plans = {c.get("plan") for c in candidates if answer in (c["shot"], c["image"])}
        for c in candidates:
            if c.get("plan") in plans:
                return c
    plans = {c.get("plan") for c in chosen if c.get("plan")}
    same = [c for c in candidates if c.get("plan") in plans]
    return same[0] if len(same) == 1 else None


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
        sign = 1.0 if direction == "higher" else -1.0
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
    if edit.relative or edit.redo or not edit.changes:
        return False
    defaults = {"lighting": "neutral", "framing": "medium", "weather": "clear", "outfit": None}
    return all(current.get(k, defaults.get(k)) == v for k, v in edit.changes.items())


def _clamp(value: float) -> float:
    return round(max(-3.0, min(3.0, value)), 3)


def _inputs(row: dict[str, Any]) -> dict[str, Any]:
    raw = row.get("inputs")
    if isinstance(raw, dict):
        return raw
    try:
        return json.loads(raw or "{}")
    except (TypeError, json.JSONDecodeError):
        return {}


def _report(observation: dict[str, Any]) -> str:
    rows = observation.get("regenerated") or []
    return ", ".join(f"{r.get('title') or r.get('kind')} ({r['old'][-6:]}→{r['new'][-6:]})" for r in rows if "new" in r) \
        or "nothing"
