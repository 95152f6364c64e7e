"""Compare the canvas agent with each chat baseline, turn by turn, from one or more results.json files.

    python bench/eval_compare.py RESULTS.json [RESULTS.json ...] [--merged OUT_DIR] [--turns-md FILE]

The runs of one comparison may come from parallel processes (``jarvishub eval SCENARIO --agent AGENT``, one per
scenario and agent): their scenarios are merged into one results.json (``--merged``: with its report.html).
Printed as JSON, per scenario: the checks each agent passed, and for the canvas agent against each baseline,
over the turns both ran, the turns where it sent more bytes per model call, the edit turns where it made more
model calls, and the wall time of both (the sum of the turns' ``wall_s``).  These are the three measures of
issue 21's "Done when"; a loss is listed with its turn number (from 1), never averaged away.
``--turns-md``: every turn's bytes per call, model calls and wall time for every agent, as markdown tables.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from jarvishub.evaluation.results import Results, ScenarioResult, load_results
from store.models import utc_now

CANVAS = "canvas"
EDIT_KINDS = ("edit", "feedback")


def merge(paths: list[Path]) -> Results:
    """One Results of every scenario run in ``paths`` (a scenario and agent run twice: the later file wins)."""
    loaded = [load_results(p) for p in paths]
    runs: dict[tuple[str, str], ScenarioResult] = {}
    for results in loaded:
        for scenario in results.scenarios:
            runs[(scenario.agent, scenario.name)] = scenario
    agents = list(dict.fromkeys(a for r in loaded for a in r.agents))
    started = min((r.started_at for r in loaded), default=utc_now())
    finished = max((r.finished_at for r in loaded), default=started)
    return Results(started_at=started, finished_at=finished, wall_s=round(sum(r.wall_s for r in loaded), 3),
                   model=loaded[0].model if loaded else "offline", agents=agents,
                   jarvishub_version=loaded[0].jarvishub_version if loaded else "",
                   scenarios=sorted(runs.values(), key=lambda s: (s.name, agents.index(s.agent))))


def compare(canvas: ScenarioResult, baseline: ScenarioResult) -> dict[str, Any]:
    """The canvas agent against one baseline over the turns both ran."""
    common = min(len(canvas.turns), len(baseline.turns))
    bytes_lost, calls_lost = [], []
    for ours, theirs in zip(canvas.turns[:common], baseline.turns[:common]):
        mine, other = ours.metrics, theirs.metrics
        if mine.call_bytes is not None and other.call_bytes is not None and mine.call_bytes > other.call_bytes:
            bytes_lost.append({"turn": ours.index + 1, "canvas": mine.call_bytes, "baseline": other.call_bytes})
        if ours.kind in EDIT_KINDS and mine.model_calls > other.model_calls:
            calls_lost.append({"turn": ours.index + 1, "canvas": mine.model_calls, "baseline": other.model_calls})
    wall = [round(sum(t.metrics.wall_s for t in s.turns[:common]), 1) for s in (canvas, baseline)]
    return {"common_turns": common, "bytes_per_call_lost": bytes_lost, "edit_calls_lost": calls_lost,
            "wall_s": {"canvas": wall[0], "baseline": wall[1]}, "wall_lost": wall[0] > wall[1],
            "checks": {"canvas": sum(c.passed for t in canvas.turns[:common] for c in t.checks),
                       "baseline": sum(c.passed for t in baseline.turns[:common] for c in t.checks),
                       "total": sum(len(t.checks) for t in canvas.turns[:common])}}


def comparison(results: Results) -> dict[str, Any]:
    """Per scenario: each agent's checks and turns run, and the canvas agent against each baseline."""
    by_name: dict[str, dict[str, ScenarioResult]] = {}
    for scenario in results.scenarios:
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


def turn_tables(results: Results) -> str:
    """Markdown: per scenario, one row per turn with bytes per call / model calls / wall s for every agent."""
    by_name: dict[str, dict[str, ScenarioResult]] = {}
    for scenario in results.scenarios:
        by_name.setdefault(scenario.name, {})[scenario.agent] = scenario
    lines = []
    for name, runs in sorted(by_name.items()):
        agents = [a for a in results.agents if a in runs]
        lines += [f"### {name}", "", "bytes per call · model calls · wall s; ✓ checks passed/total", "",
                  "| turn | kind | request | " + " | ".join(agents) + " |",
                  "|---|---|---|" + "---|" * len(agents)]
        for index in range(max(len(r.turns) for r in runs.values())):
            first = next(r.turns[index] for r in runs.values() if index < len(r.turns))
            cells = []
            for agent in agents:
                turns = runs[agent].turns
                if index >= len(turns):
                    cells.append("–")
                    continue
                t = turns[index]
                m = t.metrics
                passed = sum(c.passed for c in t.checks)
                cells.append(f"{m.call_bytes if m.call_bytes is not None else '–'} · {m.model_calls} · "
                             f"{m.wall_s:.1f}; ✓ {passed}/{len(t.checks)}")
            request = first.request.replace("|", "/")[:48]
            lines.append(f"| {index + 1} | {first.kind} | {request} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--merged", type=Path, help="write the merged results.json and report.html here")
    parser.add_argument("--turns-md", type=Path, help="write every turn's figures as markdown tables here")
    args = parser.parse_args(argv)
    results = merge(args.results)
    if args.merged:
        path = results.write(args.merged / "results.json")
        from jarvishub.evaluation.report import write_report

        write_report(path, args.merged / "report.html")
    if args.turns_md:
        args.turns_md.write_text(turn_tables(results) + "\n")
    json.dump(comparison(results), sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
