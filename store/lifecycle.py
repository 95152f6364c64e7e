"""The embedded engine's lifecycle: who uses it (leases), whether it is ours, when it stops.

* ``engine.json`` (0600) records the server's pid and start time, its ports and
  the passwords of its two accounts;
* every process that uses the server holds a lease file ``leases/PID-START-TOKEN``;
  a lease counts only while that pid still has that start time, so a pid
  reused after a crash keeps nothing alive;
* a small detached reaper (``python -m store.lifecycle reap ...``) started with
  the server stops it once no lease has been live for the idle period
  (``JARVISHUB_ENGINE_IDLE_SECONDS``, default 600 s), so the next command of the
  project finds it warm;
* nothing is signalled unless its pid, start time and command line (which names
  this project's data folder) all match what was recorded.

This module imports only the standard library so that the reaper starts fast.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from store import process
from store.locks import exclusive

DEFAULT_IDLE_SECONDS = 600.0
IDLE_ENV = "JARVISHUB_ENGINE_IDLE_SECONDS"


def idle_seconds_from_env() -> float:
    """The idle period from ``JARVISHUB_ENGINE_IDLE_SECONDS`` (600 s when unset or malformed)."""
    raw = os.environ.get(IDLE_ENV, "")
    try:
        return max(0.0, float(raw)) if raw else DEFAULT_IDLE_SECONDS
    except ValueError:
        return DEFAULT_IDLE_SECONDS


def state_file(data_dir: Path) -> Path:
    """Where the running server of ``data_dir`` is recorded."""
    return Path(data_dir) / "engine.json"


def root_path_arg(data_dir: Path) -> str:
    """The java argument that names this project's server folder; it identifies our engine's command line."""
    return f"-Darcadedb.server.rootPath={Path(data_dir).resolve() / 'server'}"


def read_state(data_dir: Path) -> dict[str, Any] | None:
    """The recorded server, or None when there is none (or the file is unreadable)."""
    try:
        return json.loads(state_file(data_dir).read_text())
    except (OSError, ValueError):
        return None


def write_state(data_dir: Path, info: dict[str, Any]) -> None:
    """Record the server atomically, readable by the owner only."""
    tmp = state_file(data_dir).with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(info, handle)
    os.replace(tmp, state_file(data_dir))


def is_our_engine(info: dict[str, Any] | None, data_dir: Path) -> bool:
    """Whether the recorded pid is still our server: same start time, and a command line naming ``data_dir``."""
    if not info:
        return False
    pid = int(info.get("pid", 0))
    if not process.is_same_process(pid, info.get("start_time")):
        return False
    return root_path_arg(data_dir) in process.cmdline(pid)


def engine_lock(data_dir: Path):
    """The lock every start, lease change and stop of ``data_dir``'s server happens under."""
    return exclusive(Path(data_dir) / "engine.lock")


# -- leases ------------------------------------------------------------------------------------
def _leases(data_dir: Path) -> Path:
    return Path(data_dir) / "leases"


def take_lease(data_dir: Path) -> Path:
    """Record that this process uses the server (call under :func:`engine_lock`).

    One lease per engine object (``PID-START-TOKEN``): a process may open the same project twice,
    and closing one must not drop the other's claim.
    """
    folder = _leases(data_dir)
    folder.mkdir(exist_ok=True, mode=0o700)
    pid = os.getpid()
    lease = folder / f"{pid}-{process.start_time(pid)}-{secrets.token_hex(4)}"
    lease.touch()
    return lease


def live_leases(data_dir: Path) -> list[int]:
    """Pids whose lease is still theirs; stale lease files (dead or reused pids) are removed."""
    alive: list[int] = []
    folder = _leases(data_dir)
    if not folder.is_dir():
        return alive
    for lease in folder.iterdir():
        pid_text, start_text = (lease.name.split("-") + ["", ""])[:2]
        if pid_text.isdigit() and start_text.isdigit() and process.is_same_process(int(pid_text), int(start_text)):
            alive.append(int(pid_text))
        else:
            lease.unlink(missing_ok=True)
    return sorted(set(alive))


# -- status and stop -------------------------------------------------------------------------------
@dataclass
class EngineStatus:
    """What ``jarvishub engine status`` shows."""

    data_dir: str
    running: bool
    pid: int | None = None
    bolt_port: int | None = None
    uptime_s: float | None = None
    leases: list[int] = field(default_factory=list)
    idle_seconds: float | None = None
    stale_record: bool = False
    """An ``engine.json`` names a process that is not (or no longer) our server."""

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready fields."""
        return asdict(self)


def engine_status(data_dir: Path) -> EngineStatus:
    """Whether the project's embedded server runs, on which port, for whom; never starts anything."""
    data_dir = Path(data_dir).resolve()
    info = read_state(data_dir)
    if not is_our_engine(info, data_dir):
        return EngineStatus(str(data_dir), running=False, stale_record=info is not None)
    assert info is not None
    return EngineStatus(
        str(data_dir),
        running=True,
        pid=int(info["pid"]),
        bolt_port=int(info["bolt_port"]),
        uptime_s=round(time.time() - float(info.get("started_at", time.time())), 1),
        leases=sorted(live_leases(data_dir)),
        idle_seconds=info.get("idle_seconds"),
    )


def stop_server(data_dir: Path, info: dict[str, Any] | None) -> bool:
    """Stop the recorded server if it is ours (call under :func:`engine_lock`); forget the record either way."""
    stopped = False
    if info and is_our_engine(info, data_dir):
        process.terminate(int(info["pid"]), int(info["start_time"]))
        stopped = True
    state_file(data_dir).unlink(missing_ok=True)
    return stopped


def stop_engine(data_dir: Path) -> bool:
    """Stop the project's embedded server now, whoever holds a lease; True if one was running."""
    data_dir = Path(data_dir).resolve()
    if not data_dir.is_dir():
        return False
    with engine_lock(data_dir):
        return stop_server(data_dir, read_state(data_dir))


# -- the reaper ------------------------------------------------------------------------------------
def reap(data_dir: Path, idle_s: float, engine_pid: int, engine_start: int) -> None:
    """Stop the server once no lease has been live for ``idle_s``; exit when the server is gone or replaced."""
    data_dir = Path(data_dir).resolve()
    poll = min(1.0, max(0.05, idle_s / 4))
    last_busy = time.monotonic()
    while True:
        info = read_state(data_dir)
        if not info or info.get("pid") != engine_pid or info.get("start_time") != engine_start:
            return  # stopped, or replaced by a server with its own reaper
        if not is_our_engine(info, data_dir):
            return
        if live_leases(data_dir):
            last_busy = time.monotonic()
        elif time.monotonic() - last_busy >= idle_s:
            with engine_lock(data_dir):
                if not live_leases(data_dir) and read_state(data_dir) == info:
                    stop_server(data_dir, info)
                    return
            last_busy = time.monotonic()
        time.sleep(poll)


if __name__ == "__main__":  # python -m store.lifecycle reap DATA_DIR IDLE_S ENGINE_PID ENGINE_START
    if len(sys.argv) != 6 or sys.argv[1] != "reap":
        sys.exit("usage: python -m store.lifecycle reap DATA_DIR IDLE_SECONDS ENGINE_PID ENGINE_START")
    reap(Path(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
