"""Checks after a turn: what a person would look at on the canvas, each a pass/fail with a one-line detail.

A check reads the canvas before and after the turn (:class:`~jarvishub.evaluation.outputs.Canvas`),
the turn's recorded steps and metrics, and the project's files; never the agent's reply.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jarvishub.evaluation.metrics import refusal
from jarvishub.evaluation.outputs import DELIVERABLE_KINDS, Canvas, invariants
from jarvishub.evaluation.results import CheckResult, TurnMetrics
from jarvishub.evaluation.scenario import (
    ChangedCheck,
    ChangedOnlyCheck,
    Check,
    ClarificationCheck,
    CountCheck,
    FileExistsCheck,
    MeasureCheck,
    OutcomeCheck,
    RefusedCheck,
    UnchangedCheck,
    VerifyCheck,
)
from store.models import CanvasNode, EdgeType, NodeStatus


class ReferenceNotFound(LookupError):
    """A scenario reference ("shot 3", "final cut") that names nothing on the canvas."""


def resolve_nodes(canvas: Canvas, reference: str) -> list[CanvasNode]:
    """The current output nodes a reference names: an output key itself ("shot 3 image", "final cut"), or the
    title of a current node (a shot names its image).  Case does not matter; "shot 3" on a canvas with two
    storyboards names two outputs, and "shot 3 of fisherman" the one whose storyboard's title says "fisherman"."""
    wanted = reference.strip().lower()
    current = canvas.current_by_identity()
    head, _, plan = wanted.partition(" of ")
    shots: list[CanvasNode] = []
    if plan and re.fullmatch(r"shot \d+", head) and not any(n.title.lower() == wanted for n in canvas.nodes.values()):
        shots = [n for n in canvas.nodes.values() if n.kind == "shot" and n.title.lower() == head and any(
            plan in canvas.nodes[p].title.lower() for p in canvas.out[n.id].get(EdgeType.GENERATED_FROM) or []
            if canvas.nodes[p].kind == "plan")]
        if not shots:
            raise ReferenceNotFound(f"{reference!r}: no {head!r} of a storyboard titled like {plan!r}")
    else:
        keys = canvas.output_keys()
        exact = [n for n in current.values() if keys[n.id].lower().split(" #")[0] == wanted]
        if exact:
            return sorted(exact, key=lambda n: keys[n.id])
        titled = [n for n in canvas.nodes.values() if n.title.lower() == wanted and n.status != NodeStatus.REJECTED]
        shots = [n for n in titled if n.kind == "shot"]
        found = {canvas.identity(n.id)[0] for n in titled if n.kind in DELIVERABLE_KINDS}
        if found:
            return [current[i] for i in sorted(found) if i in current]
    found_shots = [current[f"shot:{shot.id}"] for shot in shots if f"shot:{shot.id}" in current]
    if not found_shots:
        raise ReferenceNotFound(f"{reference!r} names nothing on the canvas (outputs: "
                                f"{', '.join(sorted(canvas.output_keys()[n.id] for n in current.values()))})")
    return found_shots


def targeted_nodes(canvas: Canvas, references: list[str]) -> set[str]:
    """The ids of the targets' current nodes and of everything made from them (read before the turn)."""
    return canvas.derived([n.id for ref in references for n in resolve_nodes(canvas, ref)])


@dataclass
class TurnEvidence:
    """Everything a check may read about one scripted turn."""

    before: Canvas
    after: Canvas
    outcome: str
    steps: list[dict[str, Any]]
    metrics: TurnMetrics
    targeted: set[str] | None
    project_root: Path
    read_bytes: Callable[[Any], bytes]
    """``ArtifactStore.read_bytes``: the bytes of an output, for measurements."""
    find_nodes: Callable[..., list[CanvasNode]]
    """``CanvasStore.find_nodes`` of the project after the turn (for counts)."""
    clarification: dict[str, Any] | None = None
    asked: list[dict[str, Any]] = field(default_factory=list)
    """Interrupts the turn paused on (approvals, clarification questions), in order."""


def _describe(check: Check) -> str:
    if isinstance(check, OutcomeCheck):
        return f"outcome {check.equals}"
    if isinstance(check, CountCheck):
        bound = f"== {check.equals}" if check.equals is not None else f">= {check.at_least}"
        return f"count {check.kind}{' ' + check.status if check.status else ''} {bound}"
    if isinstance(check, ChangedCheck | UnchangedCheck):
        return f"{check.type} {', '.join(check.refs)}"
    if isinstance(check, MeasureCheck):
        how = check.compare or " ".join(f"{k} {v}" for k, v in (("below", check.below), ("above", check.above))
                                        if v is not None)
        return f"measure {check.attribute} of {check.ref} {how}"
    if isinstance(check, ClarificationCheck):
        return f"clarification {check.reason}"
    if isinstance(check, RefusedCheck):
        return f"refused{' ' + check.reason if check.reason else ''}"
    if isinstance(check, FileExistsCheck):
        return f"file_exists {check.glob}"
    return check.type


def run_check(check: Check, ev: TurnEvidence) -> CheckResult:
    """Run one check; a reference that names nothing fails the check (it does not crash the run)."""
    name = _describe(check)
    try:
        passed, detail = _run(check, ev)
    except ReferenceNotFound as error:
        passed, detail = False, str(error)
    return CheckResult(name=name, passed=passed, detail=detail)


def _run(check: Check, ev: TurnEvidence) -> tuple[bool, str]:
    changed = set(ev.metrics.changed)
    if isinstance(check, OutcomeCheck):
        allowed = [check.equals] if isinstance(check.equals, str) else check.equals
        return ev.outcome in allowed, f"outcome {ev.outcome}"
    if isinstance(check, CountCheck):
        nodes = ev.find_nodes(kind=check.kind)
        if check.status:
            nodes = [n for n in nodes if n.status.value == check.status]
        else:
            nodes = [n for n in nodes if n.status not in (NodeStatus.REJECTED, NodeStatus.FAILED)]
        n = len(nodes)
        ok = n == check.equals if check.equals is not None else n >= (check.at_least or 0)
        return ok, f"{n} {check.kind} node{'s' if n != 1 else ''}{' ' + check.status if check.status else ''}"
    if isinstance(check, ChangedOnlyCheck):
        targeted = ev.targeted or set()
        extra, missed = sorted(changed - targeted), sorted(targeted - changed)
        detail = f"changed {len(changed)} of {len(targeted)} targeted"
        if extra:
            detail += f"; untargeted: {', '.join(extra)}"
        if missed:
            detail += f"; missed: {', '.join(missed)}"
        return not extra and not missed, detail
    if isinstance(check, ChangedCheck):
        keys = ev.after.output_keys()
        wanted = {keys[n.id] for ref in check.refs for n in resolve_nodes(ev.after, ref)}
        missing = sorted(wanted - changed)
        return not missing, "all changed" if not missing else f"not changed: {', '.join(missing)}"
    if isinstance(check, UnchangedCheck):
        after = ev.after.current_by_identity()
        keys = ev.after.output_keys()
        moved = sorted(keys.get(n.id, n.title) for ref in check.refs for n in resolve_nodes(ev.before, ref)
                       if getattr(after.get(ev.before.identity(n.id)[0]), "id", None) != n.id)
        return not moved, "all as before" if not moved else f"changed: {', '.join(moved)}"
    if isinstance(check, MeasureCheck):
        return _measure(check, ev)
    if isinstance(check, ClarificationCheck):
        asked = [a for a in ev.asked if a.get("type") == "clarification"]
        reasons = [str((ev.clarification or {}).get("reason"))] if ev.outcome == "clarification" else []
        reasons += [str(a.get("reason")) for a in asked]
        return check.reason in reasons, f"asked: {', '.join(reasons) or 'nothing'}"
    if isinstance(check, RefusedCheck):
        reasons = [r for r in map(refusal, ev.steps) if r is not None]
        ok = bool(reasons) and (check.reason is None or check.reason in reasons) and not changed
        detail = f"rejections: {', '.join(reasons) or 'none'}; outputs changed: {len(changed)}"
        return ok, detail
    if isinstance(check, VerifyCheck):
        problems = invariants(ev.after)
        return not problems, "invariants hold" if not problems else "; ".join(problems[:3])
    if isinstance(check, FileExistsCheck):
        found = sorted(p for p in ev.project_root.glob(check.glob) if p.is_file())
        return bool(found), f"{len(found)} file(s)" + (f": {found[0].relative_to(ev.project_root)}" if found else "")
    raise TypeError(f"no check of type {type(check).__name__}")


_ATTRIBUTE = {"luma": "mean_brightness", "warmth": "warmth", "saturation": "saturation", "contrast": "contrast"}


def _stats(ev: TurnEvidence, node: CanvasNode) -> Any:
    from tools.generate.measure import image_stats
    from tools.generate.offline_image import CAPTION_SHARE

    if not node.outputs:
        raise ReferenceNotFound(f"{node.title!r} has no image to measure")
    return image_stats(ev.read_bytes(node.outputs[0]), skip_bottom=CAPTION_SHARE)


def _measure(check: MeasureCheck, ev: TurnEvidence) -> tuple[bool, str]:
    node = resolve_nodes(ev.after, check.ref)[0]
    value = getattr(_stats(ev, node), _ATTRIBUTE[check.attribute])
    ok, detail = True, f"{check.attribute} {value:.1f}"
    if check.compare:
        earlier = ev.before.current_by_identity().get(ev.after.identity(node.id)[0])
        if earlier is None:
            return False, f"{check.ref} did not exist before the turn"
        old = getattr(_stats(ev, earlier), _ATTRIBUTE[check.attribute])
        moved = value - old
        detail = f"{check.attribute} {old:.1f} -> {value:.1f}"
        ok = {"lower": moved < 0, "higher": moved > 0, "unchanged": abs(moved) < 1e-9}[check.compare]
    if check.below is not None:
        ok = ok and value < check.below
    if check.above is not None:
        ok = ok and value > check.above
    return ok, detail
