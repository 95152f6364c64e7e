"""Ctrl-C is a pause (issue #23): a real SIGINT to the CLI's process group, as a terminal sends it, at several
points of a turn, ffmpeg's encode included.

Each interrupted turn must end within seconds (no hang in ``threading._shutdown``) with exactly one line on
stderr naming ``jarvishub resume THREAD`` and no traceback; ``status`` must point at that resume and at no
command that would drop the request; and ``resume`` must finish the request with a canvas equal to the one an
uninterrupted run of the same request makes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from jarvishub.project import Project
from tests.canvas_fingerprint import canvas_fingerprint, fingerprint_difference
from tests.reliability.engine_processes import cli_env, jarvishub, new_project, one_line

pytestmark = pytest.mark.long_file(150)

REQUEST = "a 1-shot short drama about a lighthouse keeper who finds a message in a bottle"
EXIT_INTERRUPTED = 130


class RunningTurn:
    """``jarvishub run REQUEST`` in its own session (so a signal to its group is what a terminal's ^C is)."""

    def __init__(self, project: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jarvishub.cli", "-C", str(project), "run", REQUEST],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env(), start_new_session=True)
        self.stdout: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.stdout.append(line)

    def printed(self, text: str) -> bool:
        return any(text in line for line in self.stdout)

    def running(self, program: str) -> bool:
        """Whether a descendant of the CLI runs ``program`` now."""
        return any(program in name for name in _descendant_commands(self.process.pid))

    def interrupt_when(self, condition: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + 240
        while not condition():
            assert self.process.poll() is None, f"the turn ended before {what}: {''.join(self.stdout)}"
            assert time.monotonic() < deadline, f"never saw {what}"
            time.sleep(0.005)
        os.killpg(self.process.pid, signal.SIGINT)

    def finish(self, within_s: float = 30) -> tuple[int, str]:
        try:
            _, stderr = self.process.communicate(timeout=within_s)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.communicate()
            pytest.fail(f"the interrupted command hung for {within_s} s")
        self.reader.join(5)
        return self.process.returncode, stderr


def _descendant_commands(pid: int) -> list[str]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parent = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], list(children.get(pid, []))
    while todo:
        child = todo.pop()
        todo += children.get(child, [])
        try:
            found.append(Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace"))
        except OSError:
            pass
    return found


def _fingerprint(project: Path) -> dict:
    with Project.open(project, follow_outputs=False) as opened:
        return canvas_fingerprint(opened.store)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> Iterator[dict]:
    """The canvas the request makes when nothing interrupts it."""
    with new_project(tmp_path_factory.mktemp("straight"), REQUEST) as project:
        yield _fingerprint(project)


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """A new project; its engine is stopped after the test."""
    with new_project(tmp_path) as made:
        yield made


POINTS: dict[str, Callable[[RunningTurn], bool]] = {
    "as the thread id is printed": lambda turn: turn.printed("starting thread"),
    "between two steps": lambda turn: turn.printed("step 1:"),
    "during ffmpeg's encode": lambda turn: turn.running("ffmpeg"),
}


@pytest.mark.parametrize("point", list(POINTS))
def test_an_interrupted_turn_says_how_to_resume_and_resumes_to_the_same_canvas(project, uninterrupted, point):
    turn = RunningTurn(project)
    turn.interrupt_when(lambda: POINTS[point](turn), point)
    code, stderr = turn.finish()
    assert code == EXIT_INTERRUPTED, stderr
    line = one_line(stderr)
    thread = line.rsplit("jarvishub resume ", 1)[1].rstrip("`")
    assert turn.printed(f"thread {thread}")

    status = jarvishub("-C", str(project), "status", "--json")
    repairs = [row["repair"] for row in json.loads(status.stdout)["attention"]]
    assert f"jarvishub resume {thread}" in repairs
    assert all("jarvishub resume" in repair for repair in repairs), f"a repair that drops the request: {repairs}"

    resumed = jarvishub("-C", str(project), "resume", thread)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    after = _fingerprint(project)
    assert after == uninterrupted, fingerprint_difference(after, uninterrupted)


def test_an_interrupt_while_the_engine_starts_says_nothing_was_started(project):
    """Ctrl-C while the command waits for a cold engine: before any turn was recorded."""
    assert jarvishub("-C", str(project), "engine", "stop").returncode == 0
    before = _supervisors(project)  # the stopped engine's supervisor may take a moment to exit
    turn = RunningTurn(project)
    turn.interrupt_when(lambda: bool(_supervisors(project) - before), "the engine starting")
    code, stderr = turn.finish()
    assert code == EXIT_INTERRUPTED, stderr
    assert "run the command again" in one_line(stderr)
    history = json.loads(jarvishub("-C", str(project), "history", "--json").stdout)
    assert history["turns"] == [] and history["unfinished"] == []


def _supervisors(project: Path) -> set[str]:
    """The supervisors of the project's engine that run now (each starts with a server on its way up)."""
    data_dir = str(project / ".jarvishub" / "engine")
    return {command for command in _all_commands() if data_dir in command and "store.lifecycle" in command}


def _all_commands() -> list[str]:
    commands = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                commands.append(f"{entry} {command}")
            except OSError:
                pass
    return commands


IN_A_FINALISER = '''
import os, signal, time
from jarvishub.commands.interrupts import watch_interrupts

watch_interrupts("run")


class Connection:
    def __del__(self):  # as the Bolt driver's objects have: the signal lands while it runs
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(100_000):
            pass


Connection()
try:
    time.sleep(3)
    print("the Ctrl-C was lost", flush=True)
except KeyboardInterrupt:
    print("interrupted after the finaliser", flush=True)
'''


def test_a_ctrl_c_during_a_finaliser_still_interrupts_and_prints_nothing_else():
    """Python drops an exception raised in ``__del__`` (and prints "Exception ignored in ..."): the handler must
    deliver such a Ctrl-C once the finaliser is done, not raise it there."""
    ran = subprocess.run([sys.executable, "-c", IN_A_FINALISER], capture_output=True, text=True, timeout=30,
                         env=cli_env())
    assert ran.stdout.strip() == "interrupted after the finaliser", ran.stdout + ran.stderr
    assert ran.stderr == ""
