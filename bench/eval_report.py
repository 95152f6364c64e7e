"""What the evaluation's report and dataset export cost: prints JSON (seconds, bytes).

* ``report``: ``render_report`` of a full-size suite (the test fixture's three workflows, four scenarios
  each, both agents: 24 scenario runs), median of N renders, and the page's size;
* ``export``: ``export_dataset`` of real runs (projects with a note turn and a query turn made by the
  runtime's offline planner), per scenario run — it opens each run's project, so it is mostly the
  canvas engine's start.

Usage: ``python bench/eval_report.py [--runs N] [--projects N]``.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[0] = str(REPO)

from jarvishub.evaluation.dataset import export_dataset  # noqa: E402
from jarvishub.evaluation.report import render_report  # noqa: E402
from jarvishub.project import Project  # noqa: E402
from jarvishub.runtime import Runtime  # noqa: E402
from store.lifecycle import stop_engine  # noqa: E402

FIXTURE = REPO / "tests" / "evaluation" / "data" / "results-small.json"


def full_suite() -> dict:
    """The fixture with every scenario four times: 12 scenarios x 2 agents."""
    data = json.loads(FIXTURE.read_text())
    data["scenarios"] = [{**copy.deepcopy(s), "name": f"{s['name']}-{k}"} for s in data["scenarios"] for k in range(4)]
    data["summary"] = {}
    return data


def bench_report(runs: int) -> dict:
    data = full_suite()
    times, html = [], ""
    for _ in range(runs):
        start = time.perf_counter()
        html = render_report(data)
        times.append(time.perf_counter() - start)
    return {"scenario_runs": len(data["scenarios"]), "turns": sum(len(s["turns"]) for s in data["scenarios"]),
            "render_s_median": round(statistics.median(times), 4), "html_bytes": len(html.encode())}


def bench_export(projects: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="jarvishub-bench-eval-") as tmp:
        base = Path(tmp)
        scenarios = []
        for n in range(projects):
            root = base / "runs" / "canvas" / f"s{n}"
            with Project.init(root) as project:
                runtime = Runtime(project)
                try:
                    note = runtime.run("note: a bench note")
                    query = runtime.run("how many text nodes", thread_id=note.thread_id)
                finally:
                    runtime.close()
            scenarios.append({"name": f"s{n}", "workflow": "narrative", "agent": "canvas",
                              "project_dir": f"runs/canvas/s{n}",
                              "turns": [{"index": i, "kind": k, "thread_id": note.thread_id, "turn_ids": [t]}
                                        for i, (k, t) in enumerate([("note", note.turn_id),
                                                                    ("query", query.turn_id)])]})
        results = {"schema": "jarvishub-eval/1", "agents": ["canvas"], "scenarios": scenarios}
        engines = [base / "runs" / "canvas" / f"s{n}" / ".jarvishub" / "engine" for n in range(projects)]
        timed = {}
        for state in ("warm", "cold"):  # warm: the runs' engines still up; cold: each export starts one
            if state == "cold":
                for engine in engines:
                    stop_engine(engine)
            start = time.perf_counter()
            export_dataset(results, base / f"dataset-{state}", consent=False, base_dir=base)
            timed[f"export_{state}_s_per_run"] = round((time.perf_counter() - start) / projects, 3)
        for engine in engines:  # they would linger after the temporary folder is gone
            stop_engine(engine)
        return {"scenario_runs": projects, **timed,
                "jsonl_bytes": (base / "dataset-cold" / "trajectories.jsonl").stat().st_size}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--projects", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps({"report": bench_report(args.runs), "export": bench_export(args.projects)}, indent=2))


if __name__ == "__main__":
    main()
