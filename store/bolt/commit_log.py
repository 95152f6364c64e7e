"""This process's latest commits by canvas version, so that a turn can read its own commits without asking the
engine (``nodes/record.py``: the turn's measurement).

Exact or silent: it holds the last commits this process made, each as the store returned it (with what it wrote),
and says whether those after a version are every commit after it up to the newest of them; when some may have
been dropped (more than it keeps), it answers nothing and the caller reads the commit log.
"""

from __future__ import annotations

import threading

from store.models import CommitRecord

KEPT = 64
"""Commits kept: a turn with more reads its commits from the engine."""


class CommitLog:
    """The last :data:`KEPT` commits of this process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: dict[int, CommitRecord] = {}
        self._dropped = -1  # the newest version dropped: what came after it is all here

    def add(self, record: CommitRecord) -> None:
        """A commit this process made (not a replay of an earlier one)."""
        with self._lock:
            self._records[record.canvas_version] = record
            while len(self._records) > KEPT:
                oldest = min(self._records)
                del self._records[oldest]
                self._dropped = max(self._dropped, oldest)

    def since(self, version: int) -> tuple[list[CommitRecord], bool] | None:
        """This process's commits after ``version``, oldest first, and whether they are every commit from
        ``version + 1`` to the newest of them (no other writer's in between; an empty list is not); None when
        one of them may have been dropped."""
        with self._lock:
            if self._dropped > version:
                return None
            records = [self._records[v] for v in sorted(self._records) if v > version]
        gapless = bool(records) and [r.canvas_version for r in records] == list(
            range(version + 1, version + 1 + len(records)))
        return records, gapless
