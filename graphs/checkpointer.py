"""Checkpointer wiring: SQLite in the project folder by default, Postgres when configured."""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver


def open_checkpointer(sqlite_path: Path, postgres_url: str | None = None) -> tuple[BaseCheckpointSaver, Any]:
    """A checkpointer and the handle to close when done (``JARVISHUB_CHECKPOINT_URL`` selects Postgres)."""
    if postgres_url and postgres_url.startswith(("postgres://", "postgresql://")):
        try:
            from langgraph.checkpoint.postgres import PostgresSaver
        except ImportError as error:  # the optional extra is not installed
            raise RuntimeError("Postgres checkpoints need `pip install jarvishub[postgres]`") from error
        manager: AbstractContextManager = PostgresSaver.from_conn_string(postgres_url)
        saver = manager.__enter__()
        saver.setup()
        return saver, manager
    Path(sqlite_path).parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(str(sqlite_path), check_same_thread=False, timeout=30)
    connection.execute("PRAGMA journal_mode=WAL")
    saver = SqliteSaver(connection)
    saver.setup()
    return saver, connection
