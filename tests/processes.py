"""Finding the engine processes of a folder, by their command line (for leak checks and crash tests)."""

from __future__ import annotations

from pathlib import Path


def engine_pids(under: str) -> list[int]:
    """ArcadeDB servers (the JVMs, not their supervisors) whose command line names a path starting with ``under``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        # The supervisor's command line holds the server's, after `store.lifecycle supervise`.
        if "com.arcadedb.server.ArcadeDBServer" in command and "store.lifecycle" not in command and under in command:
            pids.append(int(entry.name))
    return pids


def exited(pid: int) -> bool:
    """Whether the process is gone (or a zombie waiting to be reaped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def _environ_tmpdir(pid: int) -> str:
    try:
        for entry in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
            if entry.startswith(b"TMPDIR="):
                return entry[7:].decode(errors="replace")
    except OSError:
        pass
    return ""


def session_processes(session_tmp: str) -> list[int]:
    """Engines and their supervisors started by a test session: their command line or working folder lies
    under the session's temporary folder, or they inherited it as ``TMPDIR`` (an engine of a project a test
    made elsewhere)."""
    import os

    under = session_tmp.rstrip("/") + "/"
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "com.arcadedb.server.ArcadeDBServer" not in command and "store.lifecycle" not in command:
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            cwd = ""
        if exited(int(entry.name)):
            continue
        if under in command or cwd.startswith(under) or _environ_tmpdir(int(entry.name)).startswith(session_tmp):
            found.append(int(entry.name))
    return found
