"""Compare the canvas agent with each chat baseline, turn by turn, from one or more results.json files.

    python bench/eval_compare.py RESULTS.json [RESULTS.json ...] [--merged OUT_DIR] [--turns-md FILE]

The runs of one comparison may come from parallel processes (``jarvishub eval SCENARIO --agent AGENT``, one per
scenario and agent): their scenarios are merged into one results.json (``--merged``: with its report.html).
Printed as JSON, per scenario: the checks each agent passed, and for the canvas agent against each baseline,
over the turns both ran, the turns where it sent more bytes per model call, the edit turns where it made more
model calls, and the wall time of both (the sum of the turns' ``wall_s``).  These are the three measures of
issue 21's "Done when"; a loss is listed with its turn number (from 1), never averaged away.
``--turns-md``: every turn's bytes per call, model calls and wall time for every agent, as markdown tables.

``--partial AGENT:SCENARIO:LOG:PROJECT``: a run stopped before its end writes no results.json; its turns are
rebuilt from its progress log (each turn's outcome, checks passed and failed) and its project's trajectories
(model calls, bytes, wall time), and marked as partial (``error``).  Locality and provider calls are not rebuilt.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path[0] = str(REPO)  # bench/store.py would shadow the store package

from jarvishub.evaluation.metrics import turn_metrics  # noqa: E402
from jarvishub.evaluation.results import CheckResult, Results, ScenarioResult, TurnResult, load_results  # noqa: E402
from jarvishub.evaluation.scenario import find_scenarios  # noqa: E402
from store.models import utc_now  # noqa: E402
from store.trajectories import TrajectoryStore  # noqa: E402

CANVAS = "canvas"
EDIT_KINDS = ("edit", "feedback")


def merge(paths: list[Path], partials: list[ScenarioResult] = ()) -> Results:
    """One Results of every scenario run in ``paths`` and the ``partials`` (a scenario and agent run twice: the
    later wins, a whole run over a partial one)."""
    loaded = [load_results(p) for p in paths]
    runs: dict[tuple[str, str], ScenarioResult] = {(s.agent, s.name): s for s in partials}
    for results in loaded:
        for scenario in results.scenarios:
            runs[(scenario.agent, scenario.name)] = scenario
    order = ("canvas", "chat", "chat-trimmed", "chat-summarised")
    agents = sorted({s.agent for s in runs.values()}, key=lambda a: order.index(a) if a in order else len(order))
    started = min((r.started_at for r in loaded), default=utc_now())
    finished = max((r.finished_at for r in loaded), default=started)
    return Results(started_at=started, finished_at=finished, wall_s=round(sum(r.wall_s for r in loaded), 3),
                   model=loaded[0].model if loaded else "offline", agents=agents,
                   jarvishub_version=loaded[0].jarvishub_version if loaded else "",
                   scenarios=sorted(runs.values(), key=lambda s: (s.name, agents.index(s.agent))))


PROGRESS = re.compile(r"^  \[(?P<agent>[\w-]+)\] (?P<name>[\w-]+) turn (?P<n>\d+)/(?P<of>\d+) (?P<kind>\w+): "
                      r"(?P<outcome>\w+), checks (?P<passed>\d+)/(?P<total>\d+), ")
FAILED = re.compile(r"^      FAILED (?P<name>.*?): (?P<detail>.*)$")


def partial(agent: str, name: str, log: Path, project: Path) -> ScenarioResult:
    """A stopped run's turns, from its progress log and its project's trajectories (see the module's doc)."""
    [(_, scenario)] = find_scenarios([name])
    logged: list[dict[str, Any]] = []
    for line in log.read_text().splitlines():
        if (found := PROGRESS.match(line)) and found["agent"] == agent and found["name"] == name:
            logged.append({**found.groupdict(), "failed": []})
        elif (failed := FAILED.match(line)) and logged:
            logged[-1]["failed"].append((failed["name"], failed["detail"]))
    finished = TrajectoryStore(project / ".jarvishub" / "trajectories.sqlite").turns()
    result = ScenarioResult(name=name, workflow=scenario.workflow, agent=agent, project_dir=str(project))
    cursor = 0
    for entry, turn in zip(logged, scenario.turns):
        mine: list[dict[str, Any]] = []
        if turn.person is None:  # the scripted turn's trajectory turns: the next ones with its request
            while cursor < len(finished) and finished[cursor].get("request") != turn.request:
                cursor += 1
            while cursor < len(finished) and finished[cursor].get("request") == turn.request and not mine:
                mine.append(finished[cursor])
                cursor += 1
        passed = int(entry["passed"])
        checks = [CheckResult(name=f"check {i + 1}", passed=True) for i in range(passed)]
        checks += [CheckResult(name=n, passed=False, detail=d) for n, d in entry["failed"]]
        checks += [CheckResult(name="not logged", passed=False)] * (int(entry["total"]) - len(checks))
        result.turns.append(TurnResult(index=int(entry["n"]) - 1, kind=entry["kind"], request=turn.request,
                                       turn_ids=[str(t.get("turn_id")) for t in mine], outcome=entry["outcome"],
                                       metrics=turn_metrics(mine, [], {}), checks=checks))
    result.error = (f"stopped after {len(result.turns)} of {len(scenario.turns)} turns (partial: rebuilt from its "
                    "log and trajectories)")
    return result.finish()


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
    parser.add_argument("results", nargs="*", type=Path)
    parser.add_argument("--partial", action="append", default=[], metavar="AGENT:SCENARIO:LOG:PROJECT",
                        help="a stopped run, rebuilt from its progress log and its project")
    parser.add_argument("--merged", type=Path, help="write the merged results.json and report.html here")
    parser.add_argument("--turns-md", type=Path, help="write every turn's figures as markdown tables here")
    args = parser.parse_args(argv)
    partials = []
    for spec in args.partial:
        agent, name, log, project = spec.split(":", 3)
        partials.append(partial(agent, name, Path(log), Path(project)))
    results = merge(args.results, partials)
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
