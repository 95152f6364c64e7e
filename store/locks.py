"""Cross-process locks of one project: commits one at a time, user queries within a budget.

Both are ``flock`` locks on files in the project's engine folder, so they hold
across every process of the project and vanish with a process that dies.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from store.errors import QueryBusy


@contextlib.contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created 0600 if missing) for the block."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
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
    def query_slot(self) -> Iterator[int]:
        """Take one of the project's user-query slots, or raise :class:`QueryBusy` at once if all are taken."""
        for slot in range(self.query_slots):
            fd = os.open(self.folder / f"query-slot-{slot}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            try:
                yield slot
            finally:
                os.close(fd)
            return
        raise QueryBusy(
            f"{self.query_slots} user queries are already running on this project (the budget that keeps the "
            "engine free for commits); wait for one to finish or narrow the query, then try again"
        )
