"""The project's own SQLite files (trajectories, grants): how a connection to one is opened."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def wal_connection(path: Path) -> sqlite3.Connection:
    """A connection with ``synchronous=NORMAL`` to a project's SQLite file in write-ahead-log mode (its store
    sets the mode once when it opens the file: the file keeps it).

    Each step of a turn writes a row (and each turn its grant and its start), so a commit must not wait on the
    disk: in WAL mode with NORMAL a commit is a write into the log, which is synced at the log's checkpoints.
    A killed process loses nothing it committed (the log is part of the database; the next connection reads
    it); only an operating-system crash or a power loss can take back the last commits.
    """
    db = sqlite3.connect(path, timeout=30)
    db.execute("PRAGMA synchronous=NORMAL")
    return db
