"""The embedded engine's lifecycle: who uses it (leases), whether it is ours, when it stops.

* ``engine.json`` (0600) records the server's pid and start time, its ports, the passwords of its two
  accounts and its supervisor's pid and start time;
* every process that uses the server holds a lease file ``leases/PID-START-TOKEN``; a lease counts only
  while that pid still has that start time, so a pid reused after a crash keeps nothing alive;
* the server is the child of a small detached **supervisor** (``python -m store.lifecycle supervise ...``),
  and dies with it (``PR_SET_PDEATHSIG``): an engine never runs without the process that stops it.  The
  supervisor stops the server

  - once no lease has been live for the idle period (``JARVISHUB_ENGINE_IDLE_SECONDS``, default 600 s),
    so the next command of the project finds it warm until then;
  - at once when its data folder is removed or moved (``mv p q``), or when ``engine.json`` stops naming
    it (deleted, garbled, replaced): nobody could connect to it any more;

* nothing is signalled unless its pid and start time match what was recorded and it is this folder's
  engine: its command line names this data folder, or its working folder is this very folder (the same
  inode, so a moved project still finds the engine it must stop).

This module imports only the standard library (and its siblings that do) so that the supervisor starts fast.
"""

from __future__ import annotations

import ctypes
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from store import process
from store.locks import exclusive
from store.private_files import ensure_private_dir, open_private, read_private, write_private

DEFAULT_IDLE_SECONDS = 600.0
IDLE_ENV = "JARVISHUB_ENGINE_IDLE_SECONDS"
SERVER_CLASS = "com.arcadedb.server.ArcadeDBServer"
"""The last argument of the engine's java command line: how a process is recognised as an ArcadeDB server."""
RECORD_GRACE_S = 180.0
"""How long a supervisor waits for its launcher to record the server in ``engine.json`` before it gives up."""
STOP_WAIT_S = 30.0
"""How long a server gets to shut down cleanly before it is killed."""
EVENT_LOG_ENV = "JARVISHUB_ENGINE_EVENT_LOG"
"""A file to which launches and exits of engines are appended as JSON lines (unset: nothing is written).
The test suite's timing report (``tests/timing_plugin.py``) reads it to count engine starts and their CPU."""


def log_event(**event: Any) -> None:
    """Append ``event`` to the file named by :data:`EVENT_LOG_ENV`, if set; never fails the caller."""
    path = os.environ.get(EVENT_LOG_ENV)
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as log:  # one short write: lines of concurrent writers stay whole
            log.write(json.dumps({"at": time.time(), "pid": os.getpid(), **event}) + "\n")
    except OSError:
        pass


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
    """The recorded server, or None when there is none, or the file is unreadable, garbled or a symlink."""
    try:
        info = json.loads(read_private(state_file(data_dir)))
    except (OSError, ValueError):
        return None
    if not isinstance(info, dict) or not all(isinstance(info.get(key), int) for key in ("pid", "start_time")):
        return None
    return info


def write_state(data_dir: Path, info: dict[str, Any]) -> None:
    """Record the server atomically, readable by the owner only, never through a planted link."""
    write_private(state_file(data_dir), json.dumps(info).encode())


def is_engine_of(pid: int, start: int | None, data_dir: Path) -> bool:
    """Whether ``pid`` (with start time ``start``) is an ArcadeDB server of ``data_dir``, even one whose folder
    was moved since it started (its working folder is ``data_dir``'s inode)."""
    if not process.is_same_process(pid, start):
        return False
    arguments = process.cmdline(pid)
    if root_path_arg(data_dir) in arguments:
        return True
    try:
        return SERVER_CLASS in arguments and process.cwd_is(pid, os.stat(data_dir))
    except OSError:
        return False


def is_our_engine(info: dict[str, Any] | None, data_dir: Path) -> bool:
    """Whether the record names a live server started for ``data_dir`` where it is now (same pid, start time
    and a command line naming this folder): one that can be reused."""
    if not info:
        return False
    pid = int(info.get("pid", 0))
    if not process.is_same_process(pid, info.get("start_time")):
        return False
    return root_path_arg(data_dir) in process.cmdline(pid)


def supervisor_alive(info: dict[str, Any] | None) -> bool:
    """Whether the record's supervisor still runs (an engine without one would never be stopped)."""
    if not info:
        return False
    pid = info.get("supervisor_pid")
    return isinstance(pid, int) and process.is_same_process(pid, info.get("supervisor_start")) \
        and "store.lifecycle" in process.cmdline(pid)


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
    folder = ensure_private_dir(_leases(data_dir))
    pid = os.getpid()
    lease = folder / f"{pid}-{process.start_time(pid)}-{secrets.token_hex(4)}"
    os.close(open_private(lease, os.O_WRONLY | os.O_CREAT | os.O_EXCL))
    return lease


def live_leases(data_dir: Path) -> list[int]:
    """Pids whose lease is still theirs; stale lease files (dead or reused pids) are removed."""
    alive: list[int] = []
    folder = _leases(data_dir)
    if not folder.is_dir() or folder.is_symlink():
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
        return EngineStatus(str(data_dir), running=False, stale_record=state_file(data_dir).exists())
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


def stop_server(data_dir: Path, info: dict[str, Any] | None, *, wait: bool = True) -> bool:
    """Stop every server of ``data_dir`` (call under :func:`engine_lock`): the recorded one when it is ours, and
    any other whose working folder is this folder (a record deleted or garbled, a project moved here); forget
    the record either way.  True if one was stopped.  ``wait=False``: ask them to stop (SIGTERM) and return."""
    data_dir = Path(data_dir).resolve()
    targets: dict[int, int] = {}
    if info and is_engine_of(int(info.get("pid", 0)), info.get("start_time"), data_dir):
        targets[int(info["pid"])] = int(info["start_time"])
    for pid in process.working_in(data_dir, SERVER_CLASS):
        start = process.start_time(pid)
        if start is not None and is_engine_of(pid, start, data_dir):
            targets[pid] = start
    for pid, start in targets.items():
        process.terminate(pid, start, timeout_s=STOP_WAIT_S, wait=wait)
    state_file(data_dir).unlink(missing_ok=True)
    return bool(targets)


def stop_engine(data_dir: Path, *, wait: bool = True) -> bool:
    """Stop the project's embedded server now, whoever holds a lease; True if one was running.
    ``wait=False``: ask it to stop and return (it shuts down by itself)."""
    data_dir = Path(data_dir).resolve()
    if not data_dir.is_dir():
        return False
    with engine_lock(data_dir):
        return stop_server(data_dir, read_state(data_dir), wait=wait)


# -- the supervisor ----------------------------------------------------------------------------------
_PR_SET_PDEATHSIG = 1


def _dies_with(parent: int):
    """A ``preexec_fn``: the child gets SIGTERM when ``parent`` exits, however it exits (SIGKILL too)."""
    libc = ctypes.CDLL(None, use_errno=True)

    def arm() -> None:
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the signal was armed
            os._exit(1)

    return arm


def _note(message: str) -> None:
    print(f"jarvishub supervisor {os.getpid()}: {message}", file=sys.stderr, flush=True)


class Supervisor:
    """Runs the server as its child and stops it when it is no longer wanted (see the module docstring)."""

    def __init__(self, data_dir: Path, idle_s: float, token: str, command: list[str],
                 launcher: tuple[int, int | None] | None = None) -> None:
        self.data_dir = Path(data_dir)
        self.idle_s = idle_s
        self.token = token
        self.command = command
        self.launcher = launcher
        """The process that started us (pid, start time): until it records the server, the server is its."""
        self.folder = os.stat(self.data_dir)
        self.folder_fd = os.open(self.data_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        self.child: subprocess.Popen | None = None
        self.child_start: int | None = None

    # -- why stop ------------------------------------------------------------------------------
    def folder_gone(self) -> str | None:
        """Why the data folder is no longer where the server was started, if it is not."""
        if os.fstat(self.folder_fd).st_nlink == 0:
            return "its data folder was removed"
        try:
            now = os.stat(self.data_dir)
        except OSError:
            return "its data folder was moved or removed"
        if (now.st_dev, now.st_ino) != (self.folder.st_dev, self.folder.st_ino):
            return "its data folder was moved (another folder has its name now)"
        return None

    def run(self) -> int:
        """Start the server, record it for the launcher, and watch it until it has to stop or exits."""
        signal.signal(signal.SIGTERM, lambda *_: self.stop("asked to stop (SIGTERM)", exit_code=0))
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        self.child = subprocess.Popen(self.command, cwd=self.data_dir, stdin=subprocess.DEVNULL,
                                      preexec_fn=_dies_with(os.getpid()))
        self.child_start = process.start_time(self.child.pid)
        write_private(self.data_dir / f"launch-{self.token}.json", json.dumps({
            "pid": self.child.pid, "start_time": self.child_start,
            "supervisor_pid": os.getpid(), "supervisor_start": process.start_time(os.getpid())}).encode())
        poll = min(1.0, max(0.05, self.idle_s / 4))
        launched = last_busy = time.monotonic()
        recorded = False
        while True:
            if self.child.poll() is not None:
                _note(f"the server exited ({self.child.returncode})")
                return 0
            gone = self.folder_gone()
            if gone:
                return self.stop(gone)
            info = read_state(self.data_dir)
            names_us = bool(info) and info.get("pid") == self.child.pid and info.get("start_time") == self.child_start
            if names_us:
                recorded = True
            elif recorded:
                return self.stop("engine.json no longer names it (deleted, garbled or replaced)")
            elif time.monotonic() - launched > RECORD_GRACE_S:
                return self.stop("its launcher never recorded it")
            elif self.launcher and not process.is_same_process(*self.launcher):
                return self.stop("its launcher exited before recording it (interrupted or killed)")
            if live_leases(self.data_dir):
                last_busy = time.monotonic()
            elif recorded and time.monotonic() - last_busy >= self.idle_s:
                try:
                    with engine_lock(self.data_dir):
                        # Re-checked under the lock: a command may have just taken a lease.
                        if not live_leases(self.data_dir) and read_state(self.data_dir) == info:
                            stopped = self.stop(f"no lease for {self.idle_s:g} s")
                            state_file(self.data_dir).unlink(missing_ok=True)  # once gone: never names a live one
                            return stopped
                except OSError:
                    continue  # the folder went away meanwhile: the next round says so
                last_busy = time.monotonic()
            time.sleep(poll)

    def stop(self, why: str, exit_code: int = 0) -> int:
        """SIGTERM the server, SIGKILL it if it has not exited after :data:`STOP_WAIT_S`; then exit."""
        _note(f"stopping the server: {why}")
        child = self.child
        if child is not None and child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        if why.startswith("asked"):
            sys.exit(exit_code)
        return exit_code


def supervise(data_dir: Path, idle_s: float, token: str, command: list[str],
              launcher: tuple[int, int | None] | None = None) -> int:
    """Run ``command`` (the server) under a :class:`Supervisor` for ``data_dir``, started by ``launcher``."""
    try:
        return Supervisor(data_dir, idle_s, token, command, launcher).run()
    finally:
        if os.environ.get(EVENT_LOG_ENV):
            import resource

            used = resource.getrusage(resource.RUSAGE_CHILDREN)  # the server, once reaped
            log_event(event="engine_exit", token=token, data_dir=str(data_dir),
                      cpu_s=round(used.ru_utime + used.ru_stime, 3))


def read_launch(data_dir: Path, token: str) -> dict[str, Any] | None:
    """What the supervisor started under ``token`` recorded (the server's pid and start time, its own), once."""
    path = Path(data_dir) / f"launch-{token}.json"
    try:
        info = json.loads(read_private(path))
    except (OSError, ValueError):
        return None
    path.unlink(missing_ok=True)
    return info if isinstance(info, dict) else None


if __name__ == "__main__":  # python -m store.lifecycle supervise DATA_DIR IDLE_S TOKEN LAUNCHER_PID -- COMMAND...
    if len(sys.argv) < 8 or sys.argv[1] != "supervise" or sys.argv[6] != "--":
        sys.exit("usage: python -m store.lifecycle supervise DATA_DIR IDLE_SECONDS TOKEN LAUNCHER_PID -- COMMAND...")
    launched_by = int(sys.argv[5])
    sys.exit(supervise(Path(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[7:],
                       (launched_by, process.start_time(launched_by))))
