"""Postgres connections for checkpoints and memory (``JARVISHUB_CHECKPOINT_URL=postgresql://…``).

LangGraph's Postgres saver and store both want a psycopg connection in autocommit
mode with dict rows and no server-side prepared statements (they run through
poolers such as PgBouncer).  Both are opened here so the two agree, and so the
optional dependency is imported only when a Postgres URL is configured.
"""

from __future__ import annotations

from typing import Any

POSTGRES_SCHEMES = ("postgres://", "postgresql://")


class PostgresUnavailable(RuntimeError):
    """The Postgres extra is not installed, or the server could not be reached."""


def is_postgres_url(url: str | None) -> bool:
    """Whether a configured URL names a Postgres server."""
    return bool(url) and str(url).startswith(POSTGRES_SCHEMES)


def connect(url: str) -> Any:
    """An autocommit psycopg connection with dict rows, as LangGraph's Postgres classes expect."""
    try:
        import psycopg
        from psycopg.rows import dict_row
    except ImportError as error:  # the optional extra is not installed
        raise PostgresUnavailable('Postgres checkpoints and memory need `pip install -e ".[postgres]"`') from error
    try:
        return psycopg.Connection.connect(url, autocommit=True, prepare_threshold=0, row_factory=dict_row,
                                          connect_timeout=10)
    except psycopg.OperationalError as error:
        detail = " ".join(str(error).split())  # libpq's message spans lines; a person gets one
        raise PostgresUnavailable(f"cannot connect to the Postgres server of JARVISHUB_CHECKPOINT_URL "
                                  f"(checkpoints and memory live there): {detail}; start it, or unset the "
                                  "variable to keep them in the project folder") from error
