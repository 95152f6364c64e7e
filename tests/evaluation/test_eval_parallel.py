"""`jarvishub eval --jobs N` as a user runs it: real child processes, each run with its own project and engine.

The runs' results come back in the sequential order; a child killed mid-suite is that run's error and the others
finish; Ctrl-C stops every child and leaves no engine behind."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from jarvishub.evaluation.results import load_results
from store import process as processes
from store.lifecycle import SERVER_CLASS
from tests.cli_run import ROOT

NOTES = '''
name = "{name}"
workflow = "narrative"
description = "A note, then a question: the cheapest session with a project, an engine and two turns."

[[turns]]
kind = "note"
request = "note: the keeper's lamp should stay warm"
[[turns.checks]]
type = "count"
kind = "text"
equals = 1

[[turns]]
kind = "query"
request = "how many notes are there"
[[turns.checks]]
type = "outcome"
equals = "replied"
'''

pytestmark = pytest.mark.long_file(70)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)


def _eval(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.Popen([sys.executable, "-m", "jarvishub.cli", "eval", *args], stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True, env=env)


def _read(process: subprocess.Popen[str], lines: list[str], on_line) -> threading.Thread:
    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line.rstrip("\n"))
            on_line(lines[-1])

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader


def _wait(process: subprocess.Popen[str], reader: threading.Thread, *, interrupt: bool = False) -> tuple[int, float]:
    """The command's exit status (after a Ctrl-C when ``interrupt``) and the seconds it took to end."""
    try:
        if interrupt:
            process.send_signal(signal.SIGINT)
        signalled = time.monotonic()
        code = process.wait(timeout=60 if interrupt else 280)
        return code, time.monotonic() - signalled
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        reader.join(10)


def _scenarios(tmp_path: Path, *names: str) -> list[str]:
    paths = []
    for name in names:
        path = tmp_path / f"{name}.toml"
        path.write_text(NOTES.format(name=name))
        paths.append(str(path))
    return paths


def _engines(runs: Path) -> list[int]:
    return [pid for project in runs.glob("*/*") if (project / ".jarvishub" / "engine").is_dir()
            for pid in processes.working_in(project / ".jarvishub" / "engine", SERVER_CLASS)]


def test_two_jobs_merge_in_the_sequential_order_and_a_dead_child_is_its_runs_error(tmp_path):
    """2 scenarios × 2 agents with --jobs 2; the chat baseline's run of the second is SIGKILLed as it starts."""
    out = tmp_path / "out"
    lines: list[str] = []
    killed: list[int] = []

    def on_line(line: str) -> None:
        found = re.match(r"\[chat\] 2/2 notes-b \(narrative, 2 turns; process (\d+)\)", line)
        if found:
            killed.append(int(found.group(1)))
            os.kill(killed[-1], signal.SIGKILL)

    process = _eval(*_scenarios(tmp_path, "notes-a", "notes-b"), "--agent", "both", "--jobs", "2", "--out", str(out))
    code, _ = _wait(process, _read(process, lines, on_line))
    log = "\n".join(lines)
    assert code == 1 and killed, log  # one run died: the suite did not pass, and went on
    results = load_results(out / "results.json")
    assert [(s.agent, s.name) for s in results.scenarios] == [
        ("canvas", "notes-a"), ("canvas", "notes-b"), ("chat", "notes-a"), ("chat", "notes-b")]
    *whole, dead = results.scenarios
    assert all(s.passed and len(s.turns) == 2 and s.totals.checks_passed == 2 for s in whole), log
    assert not dead.passed and dead.turns == [] and "killed by signal 9" in (dead.error or ""), dead.error
    assert results.finished_at and results.summary["narrative"]["canvas"].checks_passed == 4
    assert (out / "report.html").is_file()
    # Each child's own lines, prefixed by agent and scenario; at most two runs at once.
    assert any(re.match(r"\[chat notes-a\]\s+\[chat\] notes-a turn 1/2 note: replied", line) for line in lines), log
    started = [(i, line) for i, line in enumerate(lines) if re.match(r"\[\w+\] \d/2 notes-\w \(", line)]
    ended = [i for i, line in enumerate(lines) if re.match(r"\[\w+\] notes-\w: (passed|FAILED)", line)]
    assert len(started) == 4 and len(ended) == 4, log
    # The runs the comparison sets side by side start together (one scenario's agents, one round), so that they
    # share the machine's load; the next round starts once both have ended.
    assert [line.split(" (")[0] for _, line in started] == [
        "[canvas] 1/2 notes-a", "[chat] 1/2 notes-a", "[canvas] 2/2 notes-b", "[chat] 2/2 notes-b"], log
    assert started[1][0] < ended[0] and started[2][0] > ended[1], log
    assert not _engines(out / "runs"), log
    assert "Traceback" not in log


def test_ctrl_c_stops_every_child_and_leaves_no_engine(tmp_path):
    out = tmp_path / "out"
    lines: list[str] = []
    turning = threading.Event()
    seen: set[str] = set()

    def on_line(line: str) -> None:
        found = re.match(r"\[canvas (notes-\w)\]", line)
        if found:
            seen.add(found.group(1))
        if len(seen) == 2:
            turning.set()

    process = _eval(*_scenarios(tmp_path, "notes-c", "notes-d"), "--jobs", "2", "--out", str(out))
    reader = _read(process, lines, on_line)
    # Both children have said something: their projects are open, their engines up or starting.
    started = turning.wait(240)
    code, took = _wait(process, reader, interrupt=True)
    log = "\n".join(lines)
    assert started, log
    assert code == 130 and took < 15, f"{took:.1f} s\n{log}"
    assert (out / "results.json").exists(), log  # once (2026-12-04, under load) it was not written: the lines say why
    assert load_results(out / "results.json").stopped == "interrupted (Ctrl-C)"
    deadline = time.monotonic() + 20  # the engines were sent their stop; a JVM takes a moment to go
    while _engines(out / "runs") and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _engines(out / "runs"), log
    children = [pid for pid in map(int, filter(str.isdigit, os.listdir("/proc")))
                if "jarvishub.evaluation.job" in processes.cmdline(pid) and str(out) in processes.cmdline(pid)]
    assert not children, log
    assert "Traceback" not in log


def test_paired_runs_each_scenarios_agents_turn_by_turn_taking_turns_to_go_first(tmp_path):
    """``--paired``: a warm-up of every agent first (unmeasured), then turn 1 of both agents, then turn 2 with the
    other agent first, and the next scenario starting with the other agent (its first turn, a build, is the
    heaviest); results in the sequential order; with --jobs it is a usage error."""
    out = tmp_path / "out"
    lines: list[str] = []
    process = _eval(*_scenarios(tmp_path, "notes-e", "notes-f"), "--agent", "both", "--paired", "--out", str(out))
    code, _ = _wait(process, _read(process, lines, lambda line: None))
    log = "\n".join(lines)
    assert code == 0, log
    results = load_results(out / "results.json")
    assert [(s.agent, s.name) for s in results.scenarios] == [
        ("canvas", "notes-e"), ("canvas", "notes-f"), ("chat", "notes-e"), ("chat", "notes-f")]
    assert all(s.passed and len(s.turns) == 2 for s in results.scenarios), log
    turns = [m.group(1, 2, 3) for line in lines
             if (m := re.match(r"\s+\[(\w+)\] (notes-\w) turn (\d)/2", line))]
    assert turns == [("canvas", "notes-e", "1"), ("chat", "notes-e", "1"), ("chat", "notes-e", "2"),
                     ("canvas", "notes-e", "2"), ("chat", "notes-f", "1"), ("canvas", "notes-f", "1"),
                     ("canvas", "notes-f", "2"), ("chat", "notes-f", "2")], log
    # Before any measured turn, each agent ran the workflow's first turn once, unmeasured, and left no project.
    warmed = [i for i, line in enumerate(lines) if line.startswith("warm-up [")]
    first_turn = next(i for i, line in enumerate(lines) if re.match(r"\s+\[(\w+)\] notes-e turn 1/2", line))
    assert [lines[i].split("]")[0] for i in warmed] == ["warm-up [canvas", "warm-up [chat"], log
    assert max(warmed) < first_turn and not (out / "warm-up").exists(), log
    assert not _engines(out / "runs"), log
    assert "Traceback" not in log

    refused = _eval(*_scenarios(tmp_path, "notes-g"), "--agent", "both", "--paired", "--jobs", "2",
                    "--out", str(tmp_path / "bad"))
    code, _ = _wait(refused, _read(refused, lines := [], lambda line: None))
    assert code == 2 and "--paired" in "\n".join(lines)
