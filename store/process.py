"""Process identity for recorded pids: a pid alone is reused after a crash or reboot, a pid + start time is not.

Everything JarvisHub signals (the engine, its reaper) or counts as alive (a
lease) is recorded as ``(pid, start_time)``, where the start time is field 22
of ``/proc/PID/stat`` (clock ticks since boot).  Before signalling, the
caller also checks the command line names what it expects (DESIGN.md §7).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path


def start_time(pid: int) -> int | None:
    """The start time of ``pid`` in clock ticks since boot, or None if there is no such (live) process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after its last ')'.
    fields = stat.rsplit(")", 1)[-1].split()
    if not fields or fields[0] in ("Z", "X"):  # a zombie has exited; it only waits to be reaped
        return None
    return int(fields[19])


def cmdline(pid: int) -> list[str]:
    """The command line of ``pid`` (empty when it is gone or unreadable)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def is_same_process(pid: int, recorded_start: int | None) -> bool:
    """Whether ``pid`` is still the process that was recorded with ``recorded_start``."""
    if pid <= 0 or recorded_start is None:
        return False
    return start_time(pid) == recorded_start


def terminate(pid: int, recorded_start: int, timeout_s: float = 30.0) -> None:
    """SIGTERM (then SIGKILL after ``timeout_s``) the recorded process, and only while it is still that process."""
    if not is_same_process(pid, recorded_start):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        if not is_same_process(pid, recorded_start):
            return
        time.sleep(0.05)
    if is_same_process(pid, recorded_start):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


_SPAWN = (
    "import os, subprocess, sys\n"
    "os.umask(0o077)\n"  # what the child creates (databases, logs) is the owner's alone
    "log = os.fdopen(os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), 'ab')\n"
    "p = subprocess.Popen(sys.argv[3:], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,"
    " cwd=sys.argv[2], start_new_session=True)\n"
    "print(p.pid, flush=True)\n"
)


def spawn_detached(command: Sequence[str], *, log: Path, cwd: Path, env: dict[str, str]) -> int:
    """Start ``command`` as a grandchild that init adopts, and return its pid.

    The engine and its reaper outlive the command that started them; as direct
    children they would linger as zombies of that command once they exit, and
    a zombie still answers ``kill(pid, 0)``.
    """
    out = subprocess.run(
        [sys.executable, "-c", _SPAWN, str(log), str(cwd), *command],
        env=env, check=True, capture_output=True, text=True, timeout=60,
    )
    return int(out.stdout.strip().splitlines()[-1])


def listening_ports(pid: int) -> set[int]:
    """The TCP ports a process itself listens on (IPv4 and IPv6), from ``/proc``.

    "Something answers on the port" is not enough to know a server we started is up: two engines
    starting at once can pick the same free port, and then the one that lost the bind would talk to
    the other's server.  A listening socket belongs to the process holding its inode.
    """
    inodes: set[str] = set()
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
    ports: set[int] = set()
    for table in ("tcp", "tcp6"):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/net/{table}", encoding="ascii") as handle:
            next(handle, None)
            for line in handle:
                fields = line.split()
                if len(fields) > 9 and fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports
