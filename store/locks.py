"""Cross-process locks of one project: commits one at a time, user queries within a budget.

Both are ``flock`` locks on files in the project's engine folder, so they hold
across every process of the project and vanish with a process that dies.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from store.errors import QueryBusy
from store.private_files import open_private


@contextlib.contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created 0600 if missing, never through a symlink) for the block."""
    fd = open_private(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


class ProjectLocks:
    """The commit lock and the user-query slots of one project folder."""

    def __init__(self, folder: Path, *, query_slots: int = 2) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.query_slots = query_slots

    @contextlib.contextmanager
    def commit(self) -> Iterator[None]:
        """Serialise commit transactions across processes: every commit bumps one counter, so they would only
        conflict and retry (and, under load, run out of retries)."""
        with exclusive(self.folder / "commit.lock"):
            yield

    @contextlib.contextmanager
    def query_slot(self, wait_s: float = 0.5) -> Iterator[int]:
        """Take one of the project's user-query slots, or raise :class:`QueryBusy` if none frees up in ``wait_s``.

        The short wait lets quick queries (a turn's canvas view, the web canvas) queue behind each other;
        a slot held by a slow query is not given back within it, so the caller hears "busy" at once.
        """
        deadline = time.monotonic() + wait_s
        while True:
            fd = self._try_slots()
            if fd is not None or time.monotonic() >= deadline:
                break
            time.sleep(0.01)
        if fd is not None:
            try:
                yield fd
            finally:
                os.close(fd)
            return
        raise QueryBusy(
            f"{self.query_slots} user queries are already running on this project (the budget that keeps the "
            "engine free for commits); wait for one to finish or narrow the query, then try again"
        )

    def _try_slots(self) -> int | None:
        for slot in range(self.query_slots):
            fd = open_private(self.folder / f"query-slot-{slot}.lock")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return fd
        return None
