"""The live canvas nodes' counts by kind and status, known at one canvas version and carried forward by this
process's own commits, so that a model call's view does not count the whole canvas every time.

Exact or absent: counts are kept only for the version they were read at, or moved to the next version by a
commit of this process whose changed nodes are known before and after.  Any other commit (another process's,
or one whose answer was lost) leaves them behind, and the next view counts the canvas again.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

CountKey = tuple[str, str]
"""(kind, status) of a live node."""


class LiveCounts:
    """The counts of one canvas at one version, or none."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version: int | None = None
        self._counts: dict[CountKey, int] = {}
        self._seen = -1

    def seen_version(self) -> int:
        """The newest canvas version this process has read or committed, or -1: the canvas is at least there now
        (versions only rise), so a read of what was written since may start from it."""
        with self._lock:
            return self._seen

    def saw(self, version: int) -> None:
        """A read of the canvas found it at ``version``."""
        with self._lock:
            self._seen = max(self._seen, version)

    def known_version(self) -> int:
        """The canvas version the counts are known at, or -1."""
        with self._lock:
            return -1 if self._version is None else self._version

    def at(self, version: int) -> list[tuple[str, str, int]] | None:
        """The counts at ``version`` (sorted, as the view reads them), or None when they are not known there."""
        with self._lock:
            if self._version != version:
                return None
            return sorted((kind, status, count) for (kind, status), count in self._counts.items() if count > 0)

    def counted(self, version: int, counts: Iterable[tuple[str, str, int]]) -> None:
        """Counts read from the canvas at ``version`` (a newer set already known is kept)."""
        with self._lock:
            self._seen = max(self._seen, version)
            if self._version is None or self._version < version:
                self._version = version
                self._counts = {(kind, status): int(count) for kind, status, count in counts}

    def committed(self, version: int, before: Iterable[CountKey] | None, after: Iterable[CountKey]) -> None:
        """This process's commit made ``version``; ``before``/``after``: the (kind, status) of the nodes it changed
        that were live before and are live after it (``before`` None: not known, so the counts are dropped)."""
        with self._lock:
            self._seen = max(self._seen, version)
            if self._version is not None and self._version >= version:
                return  # already counted with this commit in
            if before is None or self._version != version - 1:
                self._version = None
                return
            for key in before:
                self._counts[key] = self._counts.get(key, 0) - 1
            for key in after:
                self._counts[key] = self._counts.get(key, 0) + 1
            self._version = version
