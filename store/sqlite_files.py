"""The project's own SQLite files (trajectories, grants): how a connection to one is opened and kept."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class SqliteFile:
    """One connection to a project's SQLite file, kept open for the life of its store and used under a lock.

    The file is in write-ahead-log mode with ``synchronous=NORMAL``: each step of a turn writes a row (and each
    turn its grant and its start), so a commit must not wait on the disk; with NORMAL a commit is a write into
    the log, which is synced at the log's checkpoints.  A killed process loses nothing it committed (the log is
    part of the database; the next connection reads it); only an operating-system crash or a power loss can
    take back the last commits.

    Why not a connection per call: when the last connection to a WAL file closes, SQLite checkpoints the log
    into the database, syncs it and deletes the log, so a connection per call paid a disk sync (and a new log)
    on every row a turn wrote or read, which under load cost tens of milliseconds each.  Kept open, a commit is
    a write into the log and a read costs no file open.
    Other processes still see every commit (WAL readers read the log).  ``synchronous="FULL"`` keeps a file's
    commits through an operating-system crash too, each one synced (the spend ledger: what was paid).  A child process made by ``fork``
    opens its own connection: an SQLite connection must not cross a fork.
    """

    def __init__(self, path: Path, *, synchronous: str = "NORMAL") -> None:
        self.path = Path(path)
        self._synchronous = "FULL" if synchronous == "FULL" else "NORMAL"
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self._pid = 0

    def _connection(self) -> sqlite3.Connection:
        if self._db is None or self._pid != os.getpid():
            db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(f"PRAGMA synchronous={self._synchronous}")
            self._db, self._pid = db, os.getpid()
        return self._db

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """The connection, for one transaction (committed on leaving, rolled back on an error); one thread at a
        time."""
        with self._lock:
            db = self._connection()
            with db:
                yield db

    def close(self) -> None:
        """Close the connection (the next use opens a new one)."""
        with self._lock:
            if self._db is not None and self._pid == os.getpid():
                self._db.close()
            self._db = None
