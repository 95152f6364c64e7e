"""The Bolt plumbing of the canvas store: sessions, and one read or one write transaction with their retries."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable
from typing import Any, TypeVar

import neo4j
from neo4j.exceptions import Neo4jError, TransientError

T = TypeVar("T")

_RETRY_MARKERS = (
    "concurrent",
    "ConcurrentModification",
    "DuplicatedKey",
    "ConstraintValidationFailed",
    "duplicated key",
    "was modified",
    "NeedRetry",
    "deadlock",
)
MAX_ATTEMPTS = 12


class NotRetried(Exception):
    """Raised inside a write transaction on purpose, to end it at once: rolled back and not tried again."""


def is_retryable(error: Exception) -> bool:
    """Whether a failed transaction may simply be run again: a transient conflict, or a lost server."""
    if isinstance(error, (TransientError, neo4j.exceptions.ServiceUnavailable, neo4j.exceptions.SessionExpired)):
        # A lost server (a cluster leader's failover) too: every commit carries an idempotency key, so even
        # one whose outcome is unknown (IncompleteCommit) is safe to re-run: the key replays it.
        return True
    if isinstance(error, Neo4jError) and error.is_retryable():
        return True
    text = f"{type(error).__name__} {error}"
    return any(marker.lower() in text.lower() for marker in _RETRY_MARKERS)


class BoltSession:
    """Sessions on the store's own account and on the engine's read-only account, and the retry rules of a
    read statement and a write transaction.  The store's other parts read and write through these."""

    _driver: neo4j.Driver
    _reader: neo4j.Driver
    _database: str

    def _session(self) -> neo4j.Session:
        return self._driver.session(database=self._database)

    def _write(self, work: Callable[[neo4j.ManagedTransaction], T]) -> T:
        """Run ``work`` in one transaction, retrying transient conflicts with jittered backoff."""
        delay = 0.01
        for attempt in range(1, MAX_ATTEMPTS + 1):
            with self._session() as session:
                tx = begin_pipelined(session)
                try:
                    result = work(tx)
                    tx.commit()
                    return result
                except Exception as error:
                    if tx.closed() is False:
                        try:
                            tx.rollback()
                        except Exception:  # the engine may already have aborted it
                            pass
                    if attempt < MAX_ATTEMPTS and not isinstance(error, NotRetried) and is_retryable(error):
                        time.sleep(delay * (1 + random.random()))
                        delay = min(delay * 2, 0.5)
                        continue
                    raise
        raise AssertionError("unreachable")

    def _read(self, cypher: str, *, on: Callable[[], neo4j.Session] | None = None,
              **params: Any) -> list[dict[str, Any]]:
        """One read statement (in a session of ``on``, default the store's own account); a lost server (a cluster
        leader's failover) is tried again, reads being safe to repeat."""
        delay = 0.05
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                with (on or self._session)() as session:
                    return session.run(cypher, **params).data()
            except (neo4j.exceptions.ServiceUnavailable, neo4j.exceptions.SessionExpired):
                if attempt == MAX_ATTEMPTS:
                    raise
                time.sleep(delay * (1 + random.random()))
                delay = min(delay * 2, 1.0)
        raise AssertionError("unreachable")

    def _reader_session(self) -> neo4j.Session:
        return self._reader.session(database=self._database, default_access_mode=neo4j.READ_ACCESS)


def begin_pipelined(session: neo4j.Session) -> neo4j.Transaction:
    """A transaction whose BEGIN goes out with its first statement instead of on its own: a round trip fewer.

    The driver's own ``execute_query`` begins this way; a driver without the switch begins as usual.
    """
    switch = getattr(session, "_pipelined_begin", None)
    with switch if switch is not None else contextlib.nullcontext():
        return session.begin_transaction()
