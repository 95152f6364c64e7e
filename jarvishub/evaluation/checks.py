"""Checks after a turn: what a person would look at on the canvas, each a pass/fail with a one-line detail.

A check reads the canvas before and after the turn (:class:`~jarvishub.evaluation.outputs.Canvas`),
the turn's recorded steps and metrics, and the project's files; never the agent's reply.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jarvishub.evaluation.outputs import Canvas, current_outputs, invariants
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
from store.models import CanvasNode, NodeStatus


class ReferenceNotFound(LookupError):
    """A scenario reference ("shot 3", "final cut") that names nothing on the canvas."""


def resolve(canvas: Canvas, reference: str) -> list[str]:
    """The output keys a reference names: an output key itself, or the title of a current node (a shot names its
    image).  Case does not matter; "shot 3" on a canvas with two storyboards names two outputs."""
    wanted = reference.strip().lower()
    keys = canvas.output_keys()
    current, _ = current_outputs(canvas)
    exact = sorted(k for k in current if k.lower() == wanted or k.lower().split(" #")[0] == wanted)
    if exact:
        return exact
    found: list[str] = []
    for node in canvas.nodes.values():
        if node.title.lower() != wanted or node.status == NodeStatus.REJECTED:
            continue
        if node.kind == "shot":
            found += [k for k, n in current.items() if n.kind == "image" and canvas.identity(n.id)[0] ==
                      f"shot:{node.id}"]
        elif node.id in keys:
            found.append(keys[node.id])
    if not found:
        raise ReferenceNotFound(f"{reference!r} names nothing on the canvas (outputs: {', '.join(sorted(current))})")
    return sorted(set(found))


def resolve_nodes(canvas: Canvas, reference: str) -> list[CanvasNode]:
    """The current nodes a reference names (for ``selected`` and answers)."""
    current, _ = current_outputs(canvas)
    return [current[k] for k in resolve(canvas, reference)]


def targeted_outputs(canvas: Canvas, references: list[str]) -> set[str]:
    """The output keys of the targets and of everything made from them (before the turn)."""
    keys = canvas.output_keys()
    ids = [n.id for ref in references for n in resolve_nodes(canvas, ref)]
    return {keys[i] for i in canvas.derived(ids) if i in keys}


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
        wanted = {k for ref in check.refs for k in resolve(ev.after, ref)}
        missing = sorted(wanted - changed)
        return not missing, "all changed" if not missing else f"not changed: {', '.join(missing)}"
    if isinstance(check, UnchangedCheck):
        before, _ = current_outputs(ev.before)
        after, _ = current_outputs(ev.after)
        moved = [k for ref in check.refs for k in resolve(ev.before, ref)
                 if k not in after or before[k].id != after[k].id]
        return not moved, "all as before" if not moved else f"changed: {', '.join(sorted(moved))}"
    if isinstance(check, MeasureCheck):
        return _measure(check, ev)
    if isinstance(check, ClarificationCheck):
        asked = [a for a in ev.asked if a.get("type") == "clarification"]
        reasons = [str((ev.clarification or {}).get("reason"))] if ev.outcome == "clarification" else []
        reasons += [str(a.get("reason")) for a in asked]
        return check.reason in reasons, f"asked: {', '.join(reasons) or 'nothing'}"
    if isinstance(check, RefusedCheck):
        verdicts = [s.get("verdict") or {} for s in ev.steps]
        reasons = [str(v.get("reason")) for v in verdicts if v.get("verdict") == "reject"]
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
    [key] = resolve(ev.after, check.ref)[:1]
    after, _ = current_outputs(ev.after)
    value = getattr(_stats(ev, after[key]), _ATTRIBUTE[check.attribute])
    ok, detail = True, f"{check.attribute} {value:.1f}"
    if check.compare:
        before, _ = current_outputs(ev.before)
        if key not in before:
            return False, f"{key} did not exist before the turn"
        old = getattr(_stats(ev, before[key]), _ATTRIBUTE[check.attribute])
        moved = value - old
        detail = f"{check.attribute} {old:.1f} -> {value:.1f}"
        ok = {"lower": moved < 0, "higher": moved > 0, "unchanged": abs(moved) < 1e-9}[check.compare]
    if check.below is not None:
        ok = ok and value < check.below
    if check.above is not None:
        ok = ok and value > check.above
    return ok, detail
