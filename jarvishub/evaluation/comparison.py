"""The canvas agent against each chat baseline, scenario by scenario and turn by turn (issue 21's "Done when").

For every scenario both ran, over the turns both ran, and for each baseline:

- the turns where the canvas agent sent more bytes per model call (``call_bytes``), listed by turn number;
- the edit turns (kinds ``edit`` and ``feedback``) where it made more model calls;
- its wall time against the baseline's (the sum of the turns' ``wall_s``: the scenario's own setup, such as a
  restart's engine start, is not a turn's), over all the turns and over the turns both did (both passed every
  check: a baseline that asks instead of acting is quick);
- the checks each passed.

A turn where the baseline failed its checks (it asked ``not_found`` for an id its window lost, was refused, or
did something else) is not a loss of the canvas agent in bytes or calls: a baseline that gave up cheaply did not
do the work.  Such turns are listed apart (``baseline_failed_turns``, with both agents' figures), never
averaged away and never counted as losses.

It reads the runner's results (:mod:`jarvishub.evaluation.results`, whose ``write`` puts this comparison in
results.json) through their fields only, so that module can import this one.  Merging runs made by separate
processes and rebuilding a stopped one are in :mod:`jarvishub.evaluation.merging`; ``bench/eval_compare.py`` is
their command line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

CANVAS = "canvas"
EDIT_KINDS = ("edit", "feedback")
"""Turn kinds that are edits: their provider and model calls are the summary's and the comparison's edit turns."""


def _passed(turn: Any) -> bool:
    return turn.error is None and all(c.passed for c in turn.checks)


def compare(canvas: Any, baseline: Any) -> dict[str, Any]:
    """The canvas agent against one baseline over the turns both ran (turns numbered from 1)."""
    common = min(len(canvas.turns), len(baseline.turns))
    bytes_lost: list[dict[str, Any]] = []
    calls_lost: list[dict[str, Any]] = []
    excused: list[dict[str, Any]] = []
    for ours, theirs in zip(canvas.turns[:common], baseline.turns[:common]):
        mine, other = ours.metrics, theirs.metrics
        more_bytes = mine.call_bytes is not None and other.call_bytes is not None and mine.call_bytes > other.call_bytes
        more_calls = ours.kind in EDIT_KINDS and mine.model_calls > other.model_calls
        if not _passed(theirs):
            excused.append({"turn": ours.index + 1, "kind": ours.kind, "baseline_outcome": theirs.outcome,
                            "baseline_failed": [c.name for c in theirs.checks if not c.passed]
                            + ([f"error: {theirs.error}"] if theirs.error else []),
                            "canvas_passed": _passed(ours),
                            "call_bytes": {"canvas": mine.call_bytes, "baseline": other.call_bytes},
                            "model_calls": {"canvas": mine.model_calls, "baseline": other.model_calls},
                            "more_bytes": more_bytes, "more_calls": more_calls})
            continue
        if more_bytes:
            bytes_lost.append({"turn": ours.index + 1, "canvas": mine.call_bytes, "baseline": other.call_bytes})
        if more_calls:
            calls_lost.append({"turn": ours.index + 1, "canvas": mine.model_calls, "baseline": other.model_calls})
    wall = [round(sum(t.metrics.wall_s for t in s.turns[:common]), 1) for s in (canvas, baseline)]
    # A baseline that asks instead of acting is quick: the wall time of the turns both agents did (both passed
    # every check) is the like-for-like figure beside the whole scenario's.
    both = [(ours, theirs) for ours, theirs in zip(canvas.turns[:common], baseline.turns[:common])
            if _passed(ours) and _passed(theirs)]
    done = [round(sum(pair[i].metrics.wall_s for pair in both), 1) for i in (0, 1)]
    return {"common_turns": common, "bytes_per_call_lost": bytes_lost, "edit_calls_lost": calls_lost,
            "baseline_failed_turns": excused,
            "wall_s": {"canvas": wall[0], "baseline": wall[1]}, "wall_lost": wall[0] > wall[1],
            "wall_s_both_done": {"turns": len(both), "canvas": done[0], "baseline": done[1]},
            "wall_lost_both_done": done[0] > done[1],
            "checks": {"canvas": sum(c.passed for t in canvas.turns[:common] for c in t.checks),
                       "baseline": sum(c.passed for t in baseline.turns[:common] for c in t.checks),
                       "total": sum(len(t.checks) for t in canvas.turns[:common])},
            "checks_lost": sum(c.passed for t in canvas.turns[:common] for c in t.checks)
            < sum(c.passed for t in baseline.turns[:common] for c in t.checks)}


def comparison(scenarios: Sequence[Any]) -> dict[str, Any]:
    """Per scenario: each agent's checks, turns run and wall time, and the canvas agent against each baseline."""
    by_name: dict[str, dict[str, Any]] = {}
    for scenario in scenarios:
        by_name.setdefault(scenario.name, {})[scenario.agent] = scenario
    out: dict[str, Any] = {}
    for name, runs in sorted(by_name.items()):
        entry: dict[str, Any] = {"agents": {
            agent: {"turns_run": len(run.turns), "checks_passed": run.totals.checks_passed,
                    "checks_total": run.totals.checks_total, "error": run.error,
                    "wall_s": round(sum(t.metrics.wall_s for t in run.turns), 1)}
            for agent, run in runs.items()}}
        if CANVAS in runs:
            entry["canvas_against"] = {agent: compare(runs[CANVAS], run) for agent, run in runs.items()
                                       if agent != CANVAS}
        out[name] = entry
    return out


def losses(entry: dict[str, Any]) -> int:
    """How many of the Done-when's measures the canvas agent lost in one scenario's comparison (all baselines):
    a turn of more bytes per call, an edit turn of more calls, more wall time, fewer checks each count one."""
    return sum(len(c["bytes_per_call_lost"]) + len(c["edit_calls_lost"]) + int(c["wall_lost"])
               + int(c["checks_lost"]) for c in (entry.get("canvas_against") or {}).values())

