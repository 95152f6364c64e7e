"""This process's latest commits by canvas version, so that a turn can read its own commits without asking the
engine (``nodes/record.py``: the turn's measurement).

Exact or silent: it holds the last commits this process made, each as the store returned it (with what it wrote),
and says whether those after a version are every commit after it up to the newest of them; when some may have
been dropped (more than it keeps), it answers nothing and the caller reads the commit log.
"""

from __future__ import annotations

import threading
from collections import Counter

from store.models import CanvasNode, CommitRecord

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

    def own_run(self) -> list[CommitRecord]:
        """The newest of these commits and those before it with no other commit between them (consecutive
        versions), oldest first, each saying what it wrote: from the version before the first to the newest,
        every commit of the canvas is here.  [] when the newest does not say what it wrote."""
        with self._lock:
            versions = sorted(self._records, reverse=True)
            run: list[CommitRecord] = []
            for version in versions:
                record = self._records[version]
                if record.written is None or (run and version != run[-1].canvas_version - 1):
                    break
                run.append(record)
        return run[::-1]

    def recent_floor(self, floor: int, wanted: int) -> tuple[int, int] | None:
        """A floor at or above ``floor`` above which lie the ``wanted`` most recently written live nodes of the
        versions after ``floor`` (all of them, when fewer), and the newest version that holds at; None when these
        commits are not every commit after ``floor`` or one of them does not say what it wrote.

        Why: the view's "written last" read fetches every live node written after its floor to keep the newest
        few, and one commit of hundreds of nodes (a storyboard, an import) inside that window made each of the
        next turns' views read them all.  The answer holds while the canvas is at the returned version: the
        caller reads the version in the same statement and reads again from ``floor`` when it has moved.
        """
        got = self.since(max(floor, 0))  # the first commit makes version 1
        if got is None or not got[1] or any(r.written is None for r in got[0]):
            return None
        records = got[0]
        live_by_version = Counter(version for version, node in last_writes(records).values()
                                  if node is not None and not node.deleted)
        found = 0
        for record in reversed(records):
            found += live_by_version[record.canvas_version]
            if found >= wanted:
                return record.canvas_version - 1, records[-1].canvas_version
        return floor, records[-1].canvas_version


def last_writes(records: list[CommitRecord]) -> dict[str, tuple[int, CanvasNode | None]]:
    """Each node these commits (oldest first, each saying what it wrote) wrote: the version of its last write and
    the node as that write left it (None: removed with its edges)."""
    last: dict[str, tuple[int, CanvasNode | None]] = {}
    for record in records:
        assert record.written is not None
        for node in record.written.nodes:
            last[node.id] = (record.canvas_version, node)
        for node_id in record.written.hard_deleted:
            last[node_id] = (record.canvas_version, None)
    return last
