"""`jarvishub eval` as a real subprocess: usage errors and bad scenario files exit 2 with a clear message; a
short suite writes results.json and exits 0 only when every check passed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from jarvishub.evaluation.results import load_results
from jarvishub.evaluation.scenario import SCENARIO_DIR, ScenarioError, find_scenarios, load_scenario
from tests.cli_run import cli as run_cli

pytestmark = pytest.mark.long_file(60)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)

GOOD = '''
name = "{name}"
workflow = "slides"
description = "A deck, then a question."

[[turns]]
kind = "create"
request = "a 4-slide deck about the history of the bicycle"
[[turns.checks]]
type = "count"
kind = "slide"
equals = {slides}

[[turns]]
kind = "query"
request = "how many slides are there"
[[turns.checks]]
type = "outcome"
equals = "replied"
'''

CRASH = '''
[[turns]]
kind = "resume"
request = "a 5-slide deck about the history of the bicycle"
crash_after_steps = 1
[[turns.checks]]
type = "count"
kind = "deck"
equals = 2
'''


def cli(*args: str) -> subprocess.CompletedProcess:
    return run_cli("eval", *args)


@pytest.mark.parametrize("args, says", [
    (["--agent", "robot"], "invalid choice: 'robot'"),
    (["--model", "gpt"], "invalid choice: 'gpt'"),
    (["no-such-scenario"], "no such scenario; the suite has: "),
])
def test_usage_errors_exit_2(args, says):
    done = cli(*args)
    assert done.returncode == 2 and says in done.stderr
    assert "Traceback" not in done.stderr


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("text, field", [
    ('name = "bad"\nworkflow = "narrative"\n[[turns', "not valid TOML"),
    ('name = "bad"\nworkflow = "podcast"\ndescription = "x"\n[[turns]]\nkind = "create"\nrequest = "r"\n',
     "workflow: Input should be 'narrative', 'web', 'slides' or 'mixed'"),
    ('name = "bad"\nworkflow = "web"\ndescription = "x"\n[[turns]]\nkind = "create"\nrequest = "r"\n'
     '[[turns.checks]]\ntype = "count"\nkind = "image"\n', "turns[0].checks[0]: Value error, give exactly one of"),
    ('name = "bad"\nworkflow = "web"\ndescription = "x"\n[[turns]]\nkind = "edit"\nrequest = "r"\n'
     '[[turns.checks]]\ntype = "changed_only"\n', "turns[0]: Value error, a changed_only check needs the turn's targets"),
    ('name = "bad"\nworkflow = "web"\ndescription = "x"\n[[turns]]\nkind = "edit"\nrequest = "r"\n'
     '[[turns.checks]]\ntype = "smells_nice"\n', "turns[0].checks[0]: Input tag 'smells_nice'"),
    ('name = "other"\nworkflow = "web"\ndescription = "x"\n[[turns]]\nkind = "edit"\nrequest = "r"\n',
     "must match the file name"),
    ('name = "bad"\nworkflow = "web"\ndescription = "x"\n[project]\nconfig = "[grants"\n'
     '[[turns]]\nkind = "edit"\nrequest = "r"\n', "project.config is not valid TOML"),
])
def test_a_bad_scenario_file_names_file_and_field(tmp_path, text, field):
    path = _write(tmp_path, "bad", text)
    with pytest.raises(ScenarioError) as raised:
        load_scenario(path)
    assert str(path) in str(raised.value) and field in str(raised.value)


def test_a_bad_scenario_file_exits_2_before_anything_runs(tmp_path):
    path = _write(tmp_path, "bad", 'name = "bad"\nworkflow = "web"\n')
    done = cli(str(path), "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and str(path) in done.stderr and "turns: Field required" in done.stderr
    assert not (tmp_path / "out").exists()


def test_the_shipped_suite_loads():
    suite = find_scenarios()
    assert len(suite) >= 12
    assert {s.workflow for _, s in suite} == {"narrative", "web", "slides", "mixed"}
    assert all(len(s.turns) >= 5 for _, s in suite)  # an opening request and at least 4 follow-ups
    kinds = {t.kind for _, s in suite for t in s.turns}
    assert {"refuse", "clarify", "explore", "select", "resume", "approve", "feedback"} <= kinds
    assert any(t.via == "web" and t.kind == "feedback" for _, s in suite for t in s.turns)
    assert any(t.crash_after_steps for _, s in suite for t in s.turns)
    assert SCENARIO_DIR.is_dir()


def test_a_short_suite_writes_results_and_exits_by_its_checks(tmp_path):
    passing = _write(tmp_path, "deck-ok", GOOD.format(name="deck-ok", slides=4) + CRASH)
    failing = _write(tmp_path, "deck-wrong", GOOD.format(name="deck-wrong", slides=5))
    out = tmp_path / "out"
    done = cli(str(passing), str(failing), "--out", str(out))
    assert done.returncode == 1, done.stderr  # one check failed
    assert "[canvas] 1/2 deck-ok" in done.stderr and "deck-wrong: FAILED (1/2 checks" in done.stderr
    results = load_results(out / "results.json")
    assert json.loads((out / "results.json").read_text())["schema"] == "jarvishub-eval/1"
    ok, wrong = results.scenarios
    assert (ok.name, ok.passed, wrong.passed) == ("deck-ok", True, False)
    assert ok.project_dir == "runs/canvas/deck-ok" and (out / ok.project_dir / ".jarvishub").is_dir()
    assert [c.detail for c in wrong.turns[0].checks] == ["4 slide nodes"]
    assert results.summary["slides"]["canvas"].checks_total == 5
    assert results.summary["slides"]["canvas"].checks_passed == 4
    assert ok.turns[0].metrics.changed_outputs > 0 and ok.turns[1].metrics.changed_outputs == 0
    crashed = ok.turns[2]  # killed in a child process after its first step, resumed by the runner
    assert "killed the turn after 1 steps (exit -9); resuming" in done.stderr
    assert crashed.outcome == "replied" and crashed.metrics.recovered is True and len(crashed.turn_ids) == 1
    assert crashed.metrics.provider_calls == 1  # the illustration, paid once across the kill
    assert (ok.turns[0].metrics.recovered, wrong.turns[0].metrics.recovered) == (None, None)

    # Every check passing exits 0 (a suite without the crash turn: the kill and resume are checked above).
    passing_only = _write(tmp_path, "deck-only", GOOD.format(name="deck-only", slides=4))
    only_ok = cli(str(passing_only), "--out", str(tmp_path / "out2"), "--json")
    assert only_ok.returncode == 0, only_ok.stderr
    assert json.loads(only_ok.stdout)["passed"] is True


def test_ctrl_c_stops_the_suite_at_once_and_keeps_the_runs_that_finished(tmp_path):
    """results.json is written as each scenario run finishes (a killed suite keeps them); Ctrl-C during the next
    one stops the command within seconds, says so once, and results.json says the run stopped."""
    import os
    import signal
    import sys
    import threading
    import time

    from tests.cli_run import ROOT

    first = _write(tmp_path, "deck-first", GOOD.format(name="deck-first", slides=4))
    second = _write(tmp_path, "deck-second", GOOD.format(name="deck-second", slides=4))
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("OPENAI_API_KEY", None)
    process = subprocess.Popen([sys.executable, "-m", "jarvishub.cli", "eval", str(first), str(second), "--out",
                                str(out)], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    lines: list[str] = []
    second_started = threading.Event()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line.rstrip("\n"))
            if line.startswith("[canvas] 2/2 deck-second"):
                second_started.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert second_started.wait(240), "\n".join(lines)
        kept = load_results(out / "results.json")  # written when the first run finished, the suite still going
        assert [s.name for s in kept.scenarios] == ["deck-first"] and kept.finished_at == "" and kept.stopped == ""
        time.sleep(1.0)  # into the second run (its engine starting, or its first turn)
        process.send_signal(signal.SIGINT)
        signalled = time.monotonic()
        code = process.wait(timeout=60)
        took = time.monotonic() - signalled
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    reader.join(10)
    assert code == 130, "\n".join(lines)
    assert took < 10, f"{took:.1f} s after Ctrl-C\n" + "\n".join(lines)  # 2–4 s here; it was 4–10 s
    said = [line for line in lines if "interrupted" in line or "stopped" in line]
    assert said == [f"eval: stopped; 1 finished scenario run(s) kept in {out / 'results.json'}",
                    "interrupted: stopped; what it had already committed is kept (`jarvishub status` shows the "
                    "canvas)"], "\n".join(lines)
    assert not [line for line in lines if "Traceback" in line], "\n".join(lines)
    results = load_results(out / "results.json")
    assert results.stopped == "interrupted (Ctrl-C)" and [s.name for s in results.scenarios] == ["deck-first"]
    assert results.scenarios[0].passed and results.summary["slides"]["canvas"].checks_passed == 2
