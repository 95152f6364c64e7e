"""The embedded engine lingers, stops when idle, and never signals a process that is not ours (issue #11, D3/D5)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from store import lifecycle, process
from store.embedded import EmbeddedArcadeEngine


def wait_for(condition: Callable[[], bool], what: str, limit_s: float = 60.0) -> None:
    """Wait until ``condition`` holds; fail with ``what`` if it never does within a generous bound."""
    deadline = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen]:
    """A live process that has nothing to do with JarvisHub."""
    proc = subprocess.Popen(["sleep", "600"])
    yield proc
    proc.kill()
    proc.wait()


def _alive(proc: subprocess.Popen) -> bool:
    return proc.poll() is None


def test_a_stale_engine_record_naming_another_process_leaves_it_alive(tmp_path, sleeper):
    data_dir = tmp_path / "engine"
    data_dir.mkdir()
    # The record's pid and even its start time are the sleeper's (a pid reused after a reboot):
    # only the command line tells it is not our engine.
    stale = {"pid": sleeper.pid, "start_time": process.start_time(sleeper.pid), "bolt_port": 1, "http_port": 1,
             "password": "x", "reader_password": "y"}
    (data_dir / "engine.json").write_text(json.dumps(stale))
    engine = EmbeddedArcadeEngine(data_dir, idle_seconds=30)
    try:
        assert engine.server_pid != sleeper.pid
        assert _alive(sleeper)
        assert lifecycle.engine_status(data_dir).running
    finally:
        engine.stop()
    assert _alive(sleeper), "stop must not signal the process of the stale record either"


def _closed_with_a_lease_of(data_dir: Path, pid: int, start: int | None) -> tuple[int, int | None]:
    """Start an engine with a 1 s idle period, plant a lease for ``pid``/``start``, close ours."""
    engine = EmbeddedArcadeEngine(data_dir, idle_seconds=1)
    (data_dir / "leases" / f"{pid}-{start}").touch()
    engine.close()
    return engine.server_pid, process.start_time(engine.server_pid)


def test_a_lease_with_a_reused_pid_does_not_keep_the_engine_alive(tmp_path, sleeper):
    data_dir = tmp_path / "engine"
    # A lease left by a crashed process whose pid now belongs to the sleeper (another start time).
    pid, start = _closed_with_a_lease_of(data_dir, sleeper.pid, process.start_time(sleeper.pid) - 1)
    wait_for(lambda: not (data_dir / "engine.json").exists(), "the engine outlived its idle period")
    assert not process.is_same_process(pid, start)
    assert _alive(sleeper)


def test_a_live_lease_keeps_the_engine_until_its_holder_exits(tmp_path, sleeper):
    data_dir = tmp_path / "engine"
    pid, start = _closed_with_a_lease_of(data_dir, sleeper.pid, process.start_time(sleeper.pid))
    assert lifecycle.engine_status(data_dir).leases == [sleeper.pid]
    assert process.is_same_process(pid, start)
    sleeper.kill()
    sleeper.wait()
    wait_for(lambda: not process.is_same_process(pid, start), "the engine outlived its last lease's idle period")


def test_the_engine_lingers_for_the_next_process_and_stops_on_request(tmp_path, monkeypatch):
    project = tmp_path / "p"
    data_dir = project / ".jarvishub" / "engine"
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")  # a user's shell that keeps bytecode out of the checkout
    first = EmbeddedArcadeEngine(data_dir, idle_seconds=600)
    pid = first.server_pid
    # The supervisor is Python run from the checkout: it keeps that setting (and any PYTHONPYCACHEPREFIX), so
    # it writes no __pycache__ there; the rest of the environment stays filtered.
    supervisor = int(lifecycle.read_state(data_dir)["supervisor_pid"])
    environ = dict(item.split("=", 1) for item in Path(f"/proc/{supervisor}/environ").read_text().split("\0") if item)
    assert environ.get("PYTHONDONTWRITEBYTECODE") == "1"
    assert environ.get("PYTHONPYCACHEPREFIX") == os.environ.get("PYTHONPYCACHEPREFIX")
    second = EmbeddedArcadeEngine(data_dir, idle_seconds=600)
    first.close()
    assert lifecycle.engine_status(data_dir).leases == [os.getpid()], "closing one object keeps the other's lease"
    second.close()
    third = EmbeddedArcadeEngine(data_dir, idle_seconds=600)
    try:
        assert (third.server_pid, third.start_seconds) == (pid, 0.0), "a warm engine is reused"
    finally:
        third.close()

    (project / "jarvishub.toml").write_text('[project]\nname = "p"\n')  # the CLI acts only on a project
    cli = [sys.executable, "-m", "jarvishub.cli", "-C", str(project), "engine"]
    env = {**os.environ}
    status = json.loads(subprocess.run([*cli, "status", "--json"], capture_output=True, text=True, check=True,
                                       env=env, timeout=60).stdout)
    assert status["running"] and status["pid"] == pid and status["leases"] == []
    stopped = json.loads(subprocess.run([*cli, "stop", "--json"], capture_output=True, text=True, check=True,
                                        env=env, timeout=120).stdout)
    assert stopped == {"stopped": True, "pid": pid}
    assert not lifecycle.engine_status(data_dir).running
    text = subprocess.run([*cli, "status"], capture_output=True, text=True, check=True, env=env, timeout=60).stdout
    assert "not running" in text


def test_engine_status_never_starts_an_engine(tmp_path):
    assert lifecycle.engine_status(tmp_path / "nothing") == lifecycle.EngineStatus(
        str((tmp_path / "nothing").resolve()), running=False
    )
    assert lifecycle.stop_engine(tmp_path / "nothing") is False
    assert not (tmp_path / "nothing").exists()
