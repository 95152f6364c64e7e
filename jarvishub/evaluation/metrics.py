"""Process metrics of one scripted turn, computed from what was recorded, never from what the agent says.

Pure functions over plain data: trajectory turn dicts (``TrajectoryStore.turns``,
each with its ``steps``), commit records (``CanvasStore.commits``, as dicts or
``CommitRecord``), and the output keys of nodes (``jarvishub.evaluation.outputs``).
The runner gathers that data; these functions only count, so they are tested on
hand-built trajectories with known answers (``tests/evaluation/test_metrics.py``).
The words for each metric are in docs/evaluation.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from jarvishub.evaluation.results import TurnMetrics

# -- the reference price table (offline runs are priced as if every provider call were paid) ----------------
PRICE_PER_CALL_USD: dict[str, float] = {"image": 0.04, "video": 0.25, "audio": 0.015, "page": 0.0}
"""Reference prices of one provider call per media type (2026 list prices of mid-range hosted models)."""

TOOL_MEDIA: dict[str, str] = {
    "generate_image": "image", "skill__reference_images": "image", "skill__explore": "image",
    "skill__design_to_web": "image", "skill__slides": "image", "skill__critique": "image",
    "generate_video": "video", "skill__video_clips": "video", "assemble_cut": "video",
    "generate_audio": "audio", "render_page": "page",
}
"""The media type a tool's provider calls are priced at; a tool not listed (``regenerate_stale``, which redoes
images, clips and cuts alike) is priced at the mean of image and video."""

PRICE_PER_INPUT_BYTE_USD = 2.5e-6 / 4
"""Model input: $2.50 per million tokens at about four bytes a token."""


def _mixed_price() -> float:
    return (PRICE_PER_CALL_USD["image"] + PRICE_PER_CALL_USD["video"]) / 2


def steps_of(turns: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Every step of these turns, in order."""
    return [step for turn in turns for step in turn.get("steps") or []]


def provider_calls(steps: Iterable[Mapping[str, Any]]) -> int:
    """Σ step provider calls (a signature-cache hit is not a provider call)."""
    return sum(int(s.get("provider_calls") or 0) for s in steps)


def step_tool(step: Mapping[str, Any]) -> str:
    """The tool a step called ("" for a reply or a malformed output)."""
    action = step.get("action") or {}
    return str(action.get("tool") or "") if isinstance(action, Mapping) else ""


def estimated_cost_usd(steps: Sequence[Mapping[str, Any]]) -> float:
    """Provider calls priced by the reference table, plus model input at the reference price per byte."""
    cost = 0.0
    for step in steps:
        calls = int(step.get("provider_calls") or 0)
        if calls:
            media = TOOL_MEDIA.get(step_tool(step))
            cost += calls * (PRICE_PER_CALL_USD[media] if media else _mixed_price())
    cost += sum(int(s.get("model_input_bytes") or 0) for s in steps) * PRICE_PER_INPUT_BYTE_USD
    return round(cost, 6)


def context(steps: Iterable[Mapping[str, Any]]) -> tuple[int, int, int, int]:
    """(model calls, Σ model-input bytes, Σ tool-schema bytes, largest single call) of these steps."""
    calls = total = schemas = largest = 0
    for step in steps:
        calls += int(step.get("model_calls") or 0)
        total += int(step.get("model_input_bytes") or 0)
        schemas += int(step.get("tool_schema_bytes") or 0)
        largest = max(largest, int(step.get("max_call_bytes") or 0))
    return calls, total, schemas, largest


def refusal(step: Mapping[str, Any]) -> str | None:
    """Why the bridge refused this step, or None: its verdict was reject, or a skill's sub-action was refused
    (the step's observation carries ``refused``, set by ``Bridge.execute`` from ``SkillStepRejected``)."""
    verdict = step.get("verdict") or {}
    if isinstance(verdict, Mapping) and verdict.get("verdict") == "reject":
        return str(verdict.get("reason") or "unknown")
    observation = step.get("observation") or {}
    if isinstance(observation, Mapping) and observation.get("refused"):
        return str(observation["refused"])
    return None


def rejections(steps: Iterable[Mapping[str, Any]]) -> tuple[int, dict[str, int]]:
    """Steps the bridge refused (see :func:`refusal`), and how often each reason came up."""
    reasons: Counter[str] = Counter(r for r in map(refusal, steps) if r is not None)
    return sum(reasons.values()), dict(sorted(reasons.items()))


def retries(steps: Iterable[Mapping[str, Any]]) -> int:
    """Malformed model outputs plus commit rebuilds (attempts thrown away after a commit conflict)."""
    count = 0
    for step in steps:
        action = step.get("action") or {}
        if step.get("raw_error") or (isinstance(action, Mapping) and action.get("kind") == "malformed"):
            count += 1
        count += int(step.get("rebuilds") or 0)
    return count


def commits_of(commits: Iterable[Any], turn_ids: Iterable[str]) -> list[dict[str, Any]]:
    """The commits made by these turns' actions (action ids are ``<turn id>-…``), in canvas-version order."""
    prefixes = tuple(f"{t}-" for t in turn_ids if t)
    rows = [_as_dict(c) for c in commits]
    mine = [c for c in rows if prefixes and str(c.get("action_id") or "").startswith(prefixes)]
    return sorted(mine, key=lambda c: int(c.get("canvas_version") or 0))


def created_nodes(all_commits: Iterable[Any], turn_ids: Iterable[str]) -> set[str]:
    """Nodes whose first commit on the canvas is one of these turns' commits (made by the turn, not just touched)."""
    prefixes = tuple(f"{t}-" for t in turn_ids if t)
    if not prefixes:
        return set()
    first: dict[str, str] = {}
    for commit in sorted((_as_dict(c) for c in all_commits), key=lambda c: int(c.get("canvas_version") or 0)):
        for node_id in commit.get("node_ids") or []:
            first.setdefault(node_id, str(commit.get("action_id") or ""))
    return {node_id for node_id, action_id in first.items() if action_id.startswith(prefixes)}


def changed_outputs(created: Iterable[str], output_of: Mapping[str, str]) -> set[str]:
    """Output keys that got a new node (a first version, a new version or a candidate) from these nodes."""
    return {output_of[n] for n in created if n in output_of}


def locality(changed: set[str], targeted: set[str] | None) -> tuple[int | None, int, float | None]:
    """(targeted outputs, untargeted outputs changed, changed ÷ targeted); no targets: (None, 0, None)."""
    if targeted is None:
        return None, 0, None
    untargeted = len(changed - targeted)
    return len(targeted), untargeted, (round(len(changed) / len(targeted), 4) if targeted else None)


def clarifications(turns: Iterable[Mapping[str, Any]], questions_asked: int = 0) -> int:
    """Turns that ended in a clarification, plus clarification questions the turns paused on (then answered)."""
    return sum(1 for t in turns if t.get("outcome") == "clarification") + questions_asked


def wall_s(turns: Iterable[Mapping[str, Any]]) -> float:
    """Σ (finished_at − started_at) of the turns, from the trajectory (0 for a turn without both)."""
    total = 0.0
    for turn in turns:
        start, end = turn.get("started_at"), turn.get("finished_at")
        if start and end:
            total += (_time(end) - _time(start)).total_seconds()
    return round(total, 3)


def turn_metrics(turns: Sequence[Mapping[str, Any]], all_commits: Sequence[Any], output_of: Mapping[str, str],
                 *, targeted: set[str] | None = None, questions_asked: int = 0, approvals: int = 0,
                 recovered: bool | None = None, extra_steps: Sequence[Mapping[str, Any]] = ()) -> TurnMetrics:
    """Every metric of one scripted turn from the trajectory turns it produced and the project's commits.

    ``extra_steps``: steps of the scripted turn's turn ids that have not finished (a crashed turn before its
    resume, a turn still waiting on a person); they count like the finished turns' steps.
    """
    turn_ids = [str(t.get("turn_id")) for t in turns if t.get("turn_id")]
    steps = [*steps_of(turns), *extra_steps]
    calls, context_bytes, schema_bytes, largest = context(steps)
    rejected, reasons = rejections(steps)
    changed = changed_outputs(created_nodes(all_commits, turn_ids), output_of)
    targeted_n, untargeted, local = locality(changed, targeted)
    return TurnMetrics(
        provider_calls=provider_calls(steps), estimated_cost_usd=estimated_cost_usd(steps), model_calls=calls,
        context_bytes=context_bytes, max_call_bytes=largest, tool_schema_bytes=schema_bytes,
        targeted_outputs=targeted_n, changed_outputs=len(changed), untargeted_changed=untargeted, locality=local,
        rejections=rejected, rejection_reasons=reasons, retries=retries(steps),
        clarifications=clarifications(turns, questions_asked), approvals=approvals, recovered=recovered,
        wall_s=wall_s(turns), call_bytes=round(context_bytes / calls) if calls else None, changed=sorted(changed))


def _as_dict(commit: Any) -> dict[str, Any]:
    return commit.model_dump() if hasattr(commit, "model_dump") else dict(commit)


def _time(value: str) -> datetime:
    return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
