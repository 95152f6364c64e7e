"""``jarvishub eval``: run the scenario suite against the canvas agent, the chat baseline, or both.

Needs no project: each scenario runs in a fresh one under ``OUT/runs/AGENT/SCENARIO``.
Progress goes to stderr; ``OUT/results.json`` (and ``OUT/report.html``) are the result.
Exit 0 only when every check of every scenario passed, 1 otherwise, 2 for usage errors
and unusable scenario files.  Under ``--model chaos``, where injected mistakes are meant to fail checks,
exit 0 only when no turn reported a wrong success and nothing was done outside a grant (``OUT/chaos.md``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

from jarvishub.commands.common import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, command, print_error


def add_parser(sub: Any) -> None:
    """Register eval."""
    p = command(sub, "eval", cmd_eval, "run the evaluation scenarios and measure the process",
                "jarvishub eval narrative-lighthouse-lighting --agent both --out eval-run")
    p.add_argument("scenarios", nargs="*", metavar="SCENARIO",
                   help="scenario names (jarvishub/evaluation/scenarios/NAME.toml) or paths to .toml files (default: all)")
    p.add_argument("--agent", choices=("canvas", "chat", "chat-trimmed", "chat-summarised", "both", "all"),
                   default="canvas",
                   help="the canvas agent, a chat-history baseline (its whole transcript, trimmed to a window, or "
                        "summarised), both (canvas and chat), or all four (default: canvas)")
    p.add_argument("--model", type=_model_name, default="offline", metavar="MODEL",
                   help="offline planners, openai (the configured OpenAI-compatible model), or chaos[:RATE[:BASE]]: "
                        "either one making real models' mistakes at RATE (default 0.1, BASE offline) "
                        "(default: offline)")
    p.add_argument("--out", default="eval-run", help="where results.json, report.html and the projects go "
                                                     "(default: ./eval-run)")
    p.add_argument("--jobs", type=_jobs, default=1, metavar="N",
                   help="run up to N (agent, scenario) runs at once, each in its own process with its own project "
                        "and engine, one scenario's agents started together, the heaviest scenarios first; "
                        "results.json and report.html are the sequential run's (default: 1, one after the other "
                        "in this process)")
    p.add_argument("--paired", action="store_true",
                   help="with several agents (and --jobs 1): run each scenario's agents turn by turn in this "
                        "process, who goes first alternating, so that each turn's wall time is compared with the "
                        "other agents' same turn under the same load")
    p.add_argument("--export-trajectories", action="store_true",
                   help="also write the suite's trajectories as a redacted JSONL dataset to OUT/dataset/")
    p.add_argument("--consent", action="store_true",
                   help="with --export-trajectories: keep the text (redacted) instead of replacing it")


def _model_name(text: str) -> str:
    """An argparse type: offline, openai or chaos[:RATE[:offline|openai]]."""
    from jarvishub.evaluation.agents import check_model_name

    try:
        return check_model_name(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _jobs(text: str) -> int:
    """An argparse type: a whole number of parallel runs, at least 1."""
    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of runs (1 or more)")
    return jobs


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("jarvishub")
    except PackageNotFoundError:
        return "unknown"


def _say(line: str) -> None:
    # One write per line: with --jobs, the children's lines are relayed from several threads at once.
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def cmd_eval(args: argparse.Namespace) -> int:
    """Run the suite; write results.json and report.html; exit 0 only when every check passed."""
    from jarvishub.evaluation.agents import AGENT_KINDS, BOTH, AgentUnavailable, agent_class
    from jarvishub.evaluation.results import Results
    from jarvishub.evaluation.runner import now, run_scenario
    from jarvishub.evaluation.scenario import ScenarioError, find_scenarios

    try:
        suite = find_scenarios(args.scenarios or None)
    except ScenarioError as error:
        print_error(args, EXIT_BAD_INPUT, f"error: {error}")
        return EXIT_BAD_INPUT
    agents = list({"both": BOTH, "all": AGENT_KINDS}.get(args.agent, (args.agent,)))
    try:
        for kind in agents:
            agent_class(kind)
    except AgentUnavailable as error:
        print_error(args, EXIT_BAD_INPUT, f"error: {error}")
        return EXIT_BAD_INPUT
    if args.paired and (args.jobs > 1 or len(agents) < 2):
        print_error(args, EXIT_BAD_INPUT, "error: --paired runs several agents turn by turn in one process: give "
                                          "--agent both or all, without --jobs")
        return EXIT_BAD_INPUT
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    results = Results(started_at=now(), model=args.model, agents=agents, jarvishub_version=_version())
    started = time.monotonic()
    path = out / "results.json"
    _say(f"eval: {len(suite)} scenario(s) × {', '.join(agents)} ({args.model} model) → {out}")
    try:
        if args.jobs > 1:
            code = _run_parallel(args, suite, agents, results, path, started)
            if code is not None:
                return code
        elif args.paired:
            _run_paired(args, suite, agents, results, path, started)
        else:
            for kind in agents:
                for number, (_, scenario) in enumerate(suite, 1):
                    _say(_starting(kind, number, len(suite), scenario))
                    try:
                        result = run_scenario(scenario, kind, args.model, out, progress=_say,
                                              stash_trajectories=args.export_trajectories)
                    except AgentUnavailable as error:  # e.g. --model openai without a key: nothing else will run
                        print_error(args, EXIT_BAD_INPUT, f"error: {error}")
                        return EXIT_BAD_INPUT
                    results.scenarios.append(result)
                    results.wall_s = round(time.monotonic() - started, 3)
                    results.write(path)  # as each run finishes: a killed or interrupted suite keeps what it finished
                    _say(_finished(result))
    except KeyboardInterrupt:
        _stop_now(args, results, path, started)
    results.finished_at = now()
    results.wall_s = round(time.monotonic() - started, 3)
    if args.model.startswith("chaos"):
        _chaos(results, args.model, out)
    results.write(path)
    _say(f"wrote {path}")
    _report(path, out)
    if args.export_trajectories:
        _export(results, out, consent=args.consent)
    passed = sum(1 for s in results.scenarios if s.passed)
    if args.json:
        from jarvishub.output import print_json

        print_json({"results": str(path), "passed": results.passed, "scenarios_passed": passed,
                    "scenarios": len(results.scenarios), "wall_s": results.wall_s})
    elif results.chaos:
        wrong = sum(r["wrong_successes"] for r in results.chaos)
        outside = sum(r["out_of_grant"] for r in results.chaos)
        print(f"chaos {args.model}: {wrong} wrong successes, {outside} out-of-grant changes over "
              f"{len(results.scenarios)} scenario runs in {results.wall_s:.0f} s; results: {path}")
    else:
        print(f"{passed}/{len(results.scenarios)} scenario runs passed in {results.wall_s:.0f} s; results: {path}")
    return EXIT_OK if results.passed else EXIT_FAILED


def _run_paired(args: argparse.Namespace, suite: list[Any], agents: list[str], results: Any, path: Path,
                started: float) -> None:
    """``--paired``: each scenario's agents turn by turn (:func:`jarvishub.evaluation.runner.run_paired`); the
    results kept in the sequential order (agent by agent, then the suite's order)."""
    from jarvishub.evaluation.runner import run_paired, warm_up_paired

    warm_up_paired([scenario for _, scenario in suite], agents, args.model, path.parent,  # type: ignore[arg-type]
                   progress=_say)
    order = {(kind, scenario.name): (a, n) for a, kind in enumerate(agents) for n, (_, scenario) in enumerate(suite)}
    for number, (_, scenario) in enumerate(suite, 1):
        for kind in agents:
            _say(_starting(kind, number, len(suite), scenario, "paired"))
        for result in run_paired(scenario, agents, args.model, path.parent, progress=_say,  # type: ignore[arg-type]
                                 rotation=number - 1,
                                 stash_trajectories=args.export_trajectories):
            results.scenarios.append(result)
            _say(_finished(result))
        results.scenarios.sort(key=lambda s: order[(s.agent, s.name)])
        results.wall_s = round(time.monotonic() - started, 3)
        results.write(path)  # as each scenario finishes: a killed or interrupted suite keeps what it finished


def _starting(kind: str, number: int, total: int, scenario: Any, process: str = "") -> str:
    return (f"[{kind}] {number}/{total} {scenario.name} ({scenario.workflow}, {len(scenario.turns)} turns"
            + (f"; {process}" if process else "") + ")")


def _finished(result: Any) -> str:
    t = result.totals
    return (f"[{result.agent}] {result.name}: {'passed' if result.passed else 'FAILED'} "
            f"({t.checks_passed}/{t.checks_total} checks, {result.wall_s:.1f} s)"
            + (f" — {result.error}" if result.error else ""))


def _run_parallel(args: argparse.Namespace, suite: list[Any], agents: list[str], results: Any, path: Path,
                  started: float) -> int | None:
    """``--jobs N``: the runs in child processes, in rounds (one scenario's agents start together, the heaviest
    scenarios first: :func:`~jarvishub.evaluation.parallel.rounds`); each result put in its sequential place and
    results.json written as each finishes.  Returns an exit code when the suite cannot run (no agent)."""
    from jarvishub.commands.interrupts import allow_wind_down
    from jarvishub.evaluation.parallel import STOP_WAIT_S, JobUnavailable, plan, run_jobs

    jobs = plan(suite, agents)
    allow_wind_down(STOP_WAIT_S + 4)  # the children's bounded stop, then their engines
    done: dict[int, Any] = {}

    def begun(job: Any) -> None:
        assert job.process is not None
        _say(_starting(job.agent, job.number, len(suite), job.scenario, f"process {job.process.pid}"))

    def ended(job: Any, result: Any) -> None:
        done[job.order] = result
        results.scenarios = [done[k] for k in sorted(done)]
        results.wall_s = round(time.monotonic() - started, 3)
        results.write(path)
        _say(_finished(result))

    _say(f"eval: {len(jobs)} run(s), up to {args.jobs} at a time, "
         "one scenario's agents started together")
    try:
        run_jobs(jobs, args.jobs, model=args.model, out=path.parent, say=_say, started=begun, finished=ended,
                 stash=args.export_trajectories, stopping=lambda: _stopped(results, path, started))
    except JobUnavailable as error:
        print_error(args, EXIT_BAD_INPUT, str(error))
        return EXIT_BAD_INPUT
    return None


def _stopped(results: Any, path: Path, started: float) -> None:
    """results.json as a Ctrl-C leaves it: the finished runs, and that the suite stopped."""
    results.stopped = "interrupted (Ctrl-C)"
    results.wall_s = round(time.monotonic() - started, 3)
    results.write(path)


def _stop_now(args: argparse.Namespace, results: Any, path: Path, started: float) -> NoReturn:
    """Ctrl-C: the running scenario is given up (its project stays under OUT/runs for a look, its engine was sent
    its stop), the finished ones are in results.json, which now says the run stopped; then the process ends at
    once with the one "interrupted" line and 130.  Not through the interpreter's shutdown: it would wait for a
    thread still running the given-up turn (a web turn's worker), which then fails loudly on the way out."""
    import os

    from jarvishub.commands.interrupts import report_interrupted

    _stopped(results, path, started)
    _say(f"eval: stopped; {len(results.scenarios)} finished scenario run(s) kept in {path}")
    code = report_interrupted(args, print_error)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _chaos(results: Any, model: str, out: Path) -> None:
    """Classify what became of every injected mistake; chaos.md holds the tables (docs/evaluation.md)."""
    from jarvishub.evaluation.chaos import build_reports, table
    from nodes.models.chaos import parse_chaos

    reports = build_reports(results, parse_chaos(model)[0])
    results.chaos = [r.model_dump(mode="json") for r in reports]
    text = "\n\n".join(table(r) for r in reports) + "\n"
    (out / "chaos.md").write_text(text)
    _say(text)
    for report in reports:
        for problem in report.out_of_grant_detail:
            _say(f"[{report.agent}] OUT OF GRANT: {problem}")


def _report(results_path: Path, out: Path) -> None:
    try:
        from jarvishub.evaluation.report import write_report
    except ImportError as error:
        _say(f"report.html skipped: jarvishub.evaluation.report is not available here ({error})")
        return
    html = write_report(results_path, out / "report.html")
    _say(f"wrote {html or out / 'report.html'}")


def _export(results: Any, out: Path, *, consent: bool) -> None:
    try:
        from jarvishub.evaluation.dataset import export_dataset
    except ImportError as error:
        _say(f"dataset skipped: jarvishub.evaluation.dataset is not available here ({error})")
        return
    export_dataset(results, out / "dataset", consent=consent)
    _say(f"wrote {out / 'dataset'}")
