"""Results of runs made apart, as one: runs from separate processes merged, a stopped run rebuilt from its log.

``bench/eval_compare.py`` is the command line of these and of :mod:`jarvishub.evaluation.comparison`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from jarvishub.evaluation.metrics import turn_metrics
from jarvishub.evaluation.results import CheckResult, Results, ScenarioResult, TurnResult, load_results
from jarvishub.evaluation.scenario import find_scenarios
from store.models import utc_now

AGENT_ORDER = ("canvas", "chat", "chat-trimmed", "chat-summarised")


def merge(paths: list[Path], partials: list[ScenarioResult] = ()) -> Results:
    """One Results of every scenario run in ``paths`` and the ``partials`` (a scenario and agent run twice: the
    later wins, a whole run over a partial one)."""
    loaded = [load_results(p) for p in paths]
    runs: dict[tuple[str, str], ScenarioResult] = {(s.agent, s.name): s for s in partials}
    for results in loaded:
        for scenario in results.scenarios:
            runs[(scenario.agent, scenario.name)] = scenario
    agents = sorted({s.agent for s in runs.values()},
                    key=lambda a: AGENT_ORDER.index(a) if a in AGENT_ORDER else len(AGENT_ORDER))
    started = min((r.started_at for r in loaded), default=utc_now())
    finished = max((r.finished_at for r in loaded), default=started)
    return Results(started_at=started, finished_at=finished, wall_s=round(sum(r.wall_s for r in loaded), 3),
                   model=loaded[0].model if loaded else "offline", agents=agents,
                   jarvishub_version=loaded[0].jarvishub_version if loaded else "",
                   scenarios=sorted(runs.values(), key=lambda s: (s.name, agents.index(s.agent))))


PROGRESS = re.compile(r"^(?:\[[\w-]+ [\w-]+\] )?  \[(?P<agent>[\w-]+)\] (?P<name>[\w-]+) turn (?P<n>\d+)/(?P<of>\d+) "
                      r"(?P<kind>\w+): (?P<outcome>\w+), checks (?P<passed>\d+)/(?P<total>\d+), ")
"""A turn's progress line (the sequential suite's, or a ``--jobs`` child's with its ``[agent scenario]`` prefix)."""
FAILED = re.compile(r"^(?:\[[\w-]+ [\w-]+\] )?      FAILED (?P<name>.*?): (?P<detail>.*)$")


def partial(agent: str, name: str, log: Path, project: Path) -> ScenarioResult:
    """A stopped run's turns, rebuilt from its progress log (each turn's outcome, checks passed and failed) and
    its project's trajectories (model calls, bytes, wall time), marked partial (``error``).  Locality and
    provider calls are not rebuilt."""
    from store.trajectories import TrajectoryStore

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
