"""Process identity for recorded pids: a pid alone is reused after a crash or reboot, a pid + start time is not.

Everything JarvisHub signals (the engine, its supervisor) or counts as alive (a
lease) is recorded as ``(pid, start_time)``, where the start time is field 22
of ``/proc/PID/stat`` (clock ticks since boot).  Before signalling, the
caller also checks the command line names what it expects (DESIGN.md §7).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
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


def cwd_is(pid: int, folder: os.stat_result) -> bool:
    """Whether the working folder of ``pid`` is ``folder`` (the same inode, wherever it has been moved since)."""
    try:
        here = os.stat(f"/proc/{pid}/cwd")
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (folder.st_dev, folder.st_ino)


def working_in(folder: Path, marker: str) -> list[int]:
    """Live processes whose working folder is ``folder`` and whose command line holds ``marker``.

    Finds what a folder's record no longer names (the record deleted or garbled, the folder moved): the
    engine runs with its data folder as its working folder, which follows the folder through a ``mv``.
    """
    try:
        wanted = os.stat(folder)
    except OSError:
        return []
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and cwd_is(int(entry), wanted) and marker in cmdline(int(entry)) \
                and start_time(int(entry)) is not None:
            found.append(int(entry))
    return found


def is_same_process(pid: int, recorded_start: int | None) -> bool:
    """Whether ``pid`` is still the process that was recorded with ``recorded_start``."""
    if pid <= 0 or recorded_start is None:
        return False
    return start_time(pid) == recorded_start


def terminate(pid: int, recorded_start: int, timeout_s: float = 30.0, *, wait: bool = True) -> None:
    """SIGTERM (then SIGKILL after ``timeout_s``) the recorded process, and only while it is still that process.

    ``wait=False``: SIGTERM only, for a caller that must not wait (Ctrl-C); the process stops by itself."""
    if not is_same_process(pid, recorded_start):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    if not wait:
        return
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

    The engine's supervisor outlives the command that started it; as a direct
    child it would linger as a zombie of that command once it exits, and a
    zombie still answers ``kill(pid, 0)``.
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
    inodes = _socket_inodes(pid)
    return {port for table in ("tcp", "tcp6") for port, inode in _listening(pid, table) if inode in inodes}


def listens_on(pid: int, ports: Iterable[int], *, leading_only: bool = False) -> bool:
    """Whether the process ``pid`` itself listens on every one of ``ports``: ``ports <= listening_ports(pid)``.

    The kernel writes ``/proc/PID/net/tcp`` as it is read, listening sockets first, and writing a table
    to its end walks the whole hash table of established connections (262,144 buckets on this 2-core
    machine): 25 to 50 ms a table, most of what a warm command spent checking that the running engine is
    ours.  So the leading listening rows of each table are read first, in small pieces (microseconds), and
    the tables are read in full only when those rows do not answer: the answer never depends on the
    order, only the time it takes.  ``leading_only`` skips the full read, for a caller that polls and
    checks thoroughly now and then: it may answer False for a port that is in fact listened on.
    """
    wanted = set(ports)
    inodes = _socket_inodes(pid)
    for leading in (True,) if leading_only else (True, False):
        found = {port for table in ("tcp", "tcp6") for port, inode in _listening(pid, table, leading)
                 if inode in inodes}
        if wanted <= found:
            return True
    return False


def _socket_inodes(pid: int) -> set[str]:
    """The inodes of the sockets ``pid`` holds open."""
    inodes: set[str] = set()
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
    return inodes


def _listening(pid: int, table: str, leading_only: bool = False) -> Iterator[tuple[int, str]]:
    """(port, inode) of each listening socket in ``/proc/PID/net/TABLE`` (only the leading ones: up to the
    first row in another state), read a kilobyte at a time.

    Small unbuffered reads make the kernel write only as much of the table as is read (see
    :func:`listens_on`); a buffered file would ask for 8 KB, most of the established part.
    """
    with contextlib.suppress(OSError), open(f"/proc/{pid}/net/{table}", "rb", buffering=0) as handle:
        pending = b""
        header = True
        while chunk := handle.read(1024):
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                if header:
                    header = False
                    continue
                fields = line.split()
                if len(fields) > 9 and fields[3] == b"0A":  # 0A: LISTEN
                    yield int(fields[1].rsplit(b":", 1)[1], 16), fields[9].decode("ascii")
                elif leading_only:
                    return


def free_ports(count: int) -> list[int]:
    """``count`` distinct free loopback ports for servers this process starts.

    Every socket stays bound until all are picked: picked one after another, the kernel may hand back the port it
    just released (1 in 10,000 here), and an engine given one port for HTTP and Bolt answered the HTTP API with its
    Bolt listener (a CI failure: "This is a Bolt connector").
    """
    with contextlib.ExitStack() as held:
        ports = []
        for _ in range(count):
            sock = held.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            sock.bind(("127.0.0.1", 0))
            ports.append(int(sock.getsockname()[1]))
        return ports
