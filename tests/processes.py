"""Finding the engine processes of a folder, by their command line (for leak checks and crash tests)."""

from __future__ import annotations

from pathlib import Path


def engine_pids(under: str) -> list[int]:
    """ArcadeDB JVMs whose command line names a path starting with ``under``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "arcadedb" in command and under in command:
            pids.append(int(entry.name))
    return pids


def exited(pid: int) -> bool:
    """Whether the process is gone (or a zombie waiting to be reaped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")
