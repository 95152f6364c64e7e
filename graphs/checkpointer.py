"""Checkpointer wiring: SQLite in the project folder by default, Postgres when configured."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver

from store import postgres
from store.postgres import is_postgres_url


def open_checkpointer(sqlite_path: Path, postgres_url: str | None = None) -> tuple[BaseCheckpointSaver, Any]:
    """A checkpointer and the connection to close when done (``JARVISHUB_CHECKPOINT_URL`` selects Postgres).

    Every process of a project that points at the same Postgres database shares its threads: a turn
    started in one process can be resumed from another.
    """
    if is_postgres_url(postgres_url):
        connection = postgres.connect(str(postgres_url))
        from langgraph.checkpoint.postgres import PostgresSaver

        saver = PostgresSaver(connection)
        saver.setup()
        return saver, connection
    Path(sqlite_path).parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(str(sqlite_path), check_same_thread=False, timeout=30)
    connection.execute("PRAGMA journal_mode=WAL")
    # A checkpoint per superstep (about twenty a turn): with SQLite's default synchronous=FULL each one waited
    # for the disk, most of a turn's wall time here.  With NORMAL a checkpoint is a write into the log, synced at
    # the log's checkpoints: a killed process (Ctrl-C, a crash) loses nothing it wrote, and only an
    # operating-system crash or a power loss can take back the last checkpoints; the resumed turn then replays
    # its commits by action id (their idempotency keys), as after any kill between a commit and its checkpoint.
    # The trajectory and grant files made the same choice (store/sqlite_files.py).
    connection.execute("PRAGMA synchronous=NORMAL")
    saver = SqliteSaver(connection)
    saver.setup()
    return saver, connection
