"""``jarvishub eval --jobs N``: the suite's (agent, scenario) runs in up to N child processes at once.

Each run is :mod:`jarvishub.evaluation.job` in a child process: its own project and engine, exactly the run the
sequential suite makes in-process.  Runs start in rounds (:func:`rounds`): the agents of one scenario side by
side, so that the runs the comparison sets against each other share the machine's load (run at different moments,
one agent's run met another's engine starting and the other's did not, and the wall-time column measured that);
the heaviest scenarios first (:func:`weight`), so that the last to finish is not a long one started late.  Each
result goes back to its place in the sequential order (agent by agent, then the suite's order), so results.json
and report.html read as a sequential run's.

Children run in sessions of their own: a terminal's Ctrl-C reaches this process only, which passes it on once
to every child (each gives its run up and sends its engine its stop, as Ctrl-C does in the sequential suite),
kills the ones that have not ended within :data:`STOP_WAIT_S`, and stops the engines of those itself.  A child
that dies (killed, crashed) is that run's error, not the suite's: its result is a scenario with the error and
no turns, and the others go on.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from jarvishub.evaluation.results import ScenarioResult
from jarvishub.evaluation.scenario import Scenario
from jarvishub.settings import STATE_DIR
from store.lifecycle import stop_engine

Say = Callable[[str], None]

STOP_WAIT_S = 8.0
"""How long the children get after Ctrl-C to give up their runs before they are killed."""
POLL_S = 0.1


class JobUnavailable(RuntimeError):
    """A child could not make its agent (exit 2, e.g. ``--model openai`` without a key): no run will work."""


@dataclass
class Job:
    """One (agent, scenario) run and where it stands in the sequential order."""

    order: int
    agent: str
    number: int
    """The scenario's number in the suite (from 1), for the progress lines."""
    path: Path
    scenario: Scenario
    process: subprocess.Popen[str] | None = None
    readers: list[threading.Thread] = field(default_factory=list)
    last_lines: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"[{self.agent} {self.scenario.name}]"

    def project_dir(self, out: Path) -> Path:
        return out / "runs" / self.agent / self.scenario.name

    def result_file(self, out: Path) -> Path:
        return out / "runs" / self.agent / f".{self.scenario.name}.result.json"


def weight(scenario: Scenario) -> float:
    """How long a run of the scenario will take, roughly, for the order: a turn each, more for what starts
    an engine or a child process (a restart, a crash and its resume) and for the opening builds (a 24-shot film
    is 24 images and clips)."""
    total = 0.0
    for turn in scenario.turns:
        total += 1.0
        if turn.restart:
            total += 2.0
        if turn.crash_after_steps is not None:
            total += 2.0
        if turn.kind == "create":
            total += 2.0 + sum(int(w) for w in turn.request.replace("-", " ").split() if w.isdigit()) / 4
    return total


def plan(suite: list[tuple[Path, Scenario]], agents: list[str]) -> list[Job]:
    """Every run in the sequential order (agent by agent, the suite's order within each)."""
    jobs = []
    for agent in agents:
        for number, (path, scenario) in enumerate(suite, 1):
            jobs.append(Job(order=len(jobs), agent=agent, number=number, path=path.resolve(), scenario=scenario))
    return jobs


def rounds(jobs: list[Job], workers: int) -> list[list[Job]]:
    """The runs in rounds that start together: one scenario's agents side by side (at most ``workers`` of them,
    in the agents' order), the heaviest scenarios first (ties: the suite's order)."""
    by_scenario: dict[int, list[Job]] = {}
    for job in sorted(jobs, key=lambda j: j.order):
        by_scenario.setdefault(job.number, []).append(job)
    size = max(1, workers)
    return [runs[start:start + size]
            for _, runs in sorted(by_scenario.items(), key=lambda item: (-weight(item[1][0].scenario), item[0]))
            for start in range(0, len(runs), size)]


def run_jobs(jobs: list[Job], workers: int, *, model: str, out: Path, say: Say,
             started: Callable[[Job], None], finished: Callable[[Job, ScenarioResult], None],
             stash: bool = False, stopping: Callable[[], None] | None = None) -> None:
    """Run every job, at most ``workers`` at a time; ``finished`` gets each result as its child ends.

    Ctrl-C (KeyboardInterrupt here) calls ``stopping`` first (the caller writes what finished: stopping the
    children can take seconds on a loaded machine), then stops every child and their engines, then is raised
    again.  A child that exits 2 (its agent cannot be made) stops the others and raises :class:`JobUnavailable`.
    """
    waiting = rounds(jobs, workers)
    running: list[Job] = []
    try:
        while waiting or running:
            # A round starts when it fits whole: its runs start at the same moment (a free worker may wait for the
            # other run of its round to end, which costs the difference of two runs of the same scenario).
            while waiting and workers - len(running) >= len(waiting[0]):
                for job in waiting.pop(0):
                    _start(job, model, out, say, stash)
                    started(job)
                    running.append(job)
            for job in [j for j in running if j.process is not None and j.process.poll() is not None]:
                running.remove(job)
                for reader in job.readers:
                    reader.join(5)
                finished(job, _result(job, out))
            time.sleep(POLL_S)
    except BaseException as error:
        if stopping is not None and isinstance(error, KeyboardInterrupt):
            stopping()
        stop_all(running, out)
        raise


def _start(job: Job, model: str, out: Path, say: Say, stash: bool) -> None:
    job.result_file(out).parent.mkdir(parents=True, exist_ok=True)
    job.result_file(out).unlink(missing_ok=True)
    command = [sys.executable, "-m", "jarvishub.evaluation.job", job.agent, model, str(out), str(job.path),
               str(job.result_file(out)), *(["--stash"] if stash else [])]
    # A session of its own: a terminal's Ctrl-C reaches the parent only, which passes it on once.
    job.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, start_new_session=True)
    for stream in (job.process.stdout, job.process.stderr):
        assert stream is not None
        reader = threading.Thread(target=_relay, args=(stream, job, say), daemon=True)
        reader.start()
        job.readers.append(reader)


def _relay(stream: IO[str], job: Job, say: Say) -> None:
    """Each line the child writes, prefixed by its agent and scenario (the last few kept for a death notice)."""
    for line in stream:
        line = line.rstrip("\n")
        job.last_lines = [*job.last_lines[-4:], line]
        say(f"{job.label} {line}")
    stream.close()


def _result(job: Job, out: Path) -> ScenarioResult:
    """The child's result, or the run's error when it ended without writing one."""
    assert job.process is not None
    code = job.process.returncode
    path = job.result_file(out)
    if code == 2 and not path.exists():
        raise JobUnavailable("\n".join(job.last_lines) or f"{job.label} could not make its agent")
    if code == 0 and path.exists():
        result = ScenarioResult.model_validate_json(path.read_text())
        path.unlink(missing_ok=True)
        return result
    how = f"killed by signal {-code}" if code < 0 else f"exit {code}"
    stop_engine(job.project_dir(out) / STATE_DIR / "engine", wait=False)  # its child cannot have stopped it
    tail = "; ".join(line.strip() for line in job.last_lines[-2:] if line.strip())
    return ScenarioResult(name=job.scenario.name, workflow=job.scenario.workflow, agent=job.agent,
                          project_dir=str(job.project_dir(out).relative_to(out)),
                          error=f"the run's process ended ({how}) before it wrote its result"
                                + (f"; its last lines: {tail}" if tail else "")).finish()


def stop_all(running: list[Job], out: Path) -> None:
    """Ctrl-C: every child gives its run up (SIGINT), the ones still there after STOP_WAIT_S are killed, and
    the engines of the killed ones are stopped here."""
    live = [j for j in running if j.process is not None and j.process.poll() is None]
    for job in live:
        assert job.process is not None
        try:
            job.process.send_signal(signal.SIGINT)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + STOP_WAIT_S
    for job in live:
        assert job.process is not None
        try:
            job.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            try:
                os.killpg(job.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            job.process.wait()
        except KeyboardInterrupt:  # a second Ctrl-C: no more waiting
            job.process.kill()
            job.process.wait()
    for job in running:  # whatever became of the child, its engine is sent its stop (a no-op when it stopped it)
        stop_engine(job.project_dir(out) / STATE_DIR / "engine", wait=False)
