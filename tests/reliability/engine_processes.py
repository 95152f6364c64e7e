"""Helpers of the reliability tests: the CLI as a user runs it, and the engine processes behind a project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from store import process

ROOT = Path(__file__).resolve().parents[2]


WARM_FOR_S = "120"
"""How long the engines of these tests linger after a command: long enough that the next command of the same
test finds its engine warm (the suite's 3 s would make every command a cold start); the tests stop them."""


def cli_env(**extra: str) -> dict[str, str]:
    """The environment of a user's shell: this checkout on the path, no API key, the given variables."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JARVISHUB_ENGINE_IDLE_SECONDS": WARM_FOR_S, **extra}
    env.pop("OPENAI_API_KEY", None)
    return env


def stop_engines_under(folder: Path) -> None:
    """Stop the engine of every project under ``folder`` (what these tests leave lingering)."""
    from store.lifecycle import stop_engine

    for data_dir in Path(folder).rglob(".jarvishub/engine"):
        stop_engine(data_dir)


def jarvishub(*args: str, env: dict[str, str] | None = None, timeout: float = 240,
              cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``python -m jarvishub.cli ARGS`` in a subprocess, output captured."""
    return subprocess.run([sys.executable, "-m", "jarvishub.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env or cli_env(), cwd=cwd)


def record(project: Path) -> dict:
    """The project's ``engine.json``."""
    return json.loads((project / ".jarvishub" / "engine" / "engine.json").read_text())


def wait_for(condition: Callable[[], bool], what: str, limit_s: float = 60.0) -> float:
    """Wait until ``condition`` holds (failing with ``what`` after ``limit_s``); returns the seconds it took."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < limit_s, what
        time.sleep(0.1)
    return time.monotonic() - started


def gone(pid: int, start: int | None) -> bool:
    """Whether the recorded process no longer runs (a zombie counts as gone)."""
    return not process.is_same_process(pid, start)


def one_line(stderr: str) -> str:
    """The stderr of a command that must fail with one line and no traceback; returns that line."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert "Traceback" not in stderr, stderr
    assert len(lines) == 1, stderr
    return lines[0]


@contextmanager
def new_project(folder: Path, *requests: str, env: dict[str, str] | None = None) -> Iterator[Path]:
    """``jarvishub init FOLDER/p``, then ``run`` each request (each must succeed); every engine under ``folder``
    is stopped afterwards, whatever the test did to the project (moved it, killed its supervisor...)."""
    project = Path(folder) / "p"
    try:
        assert jarvishub("init", str(project), env=env).returncode == 0
        for request in requests:
            ran = jarvishub("-C", str(project), "run", request, env=env)
            assert ran.returncode == 0, ran.stdout + ran.stderr
        yield project
    finally:
        stop_engines_under(folder)
