"""The canvas store on the official ``neo4j`` driver: one implementation for every Bolt engine.

The store is assembled from one part per concern, under :mod:`store.bolt`: the graph layout and its records
(``schema.py``), the Bolt sessions and retries (``session.py``), the reads (``reads.py``), the one write
(``commits.py``) and the user's read-only Cypher (``user_queries.py``).  Import the store and its record types
from here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import neo4j

from store.base import CanvasStore
from store.bolt.commit_log import CommitLog
from store.bolt.commits import CanvasCommits
from store.bolt.live_counts import LiveCounts
from store.bolt.reads import CanvasReads
from store.bolt.schema import CanvasOverview, EdgeRecord, ScopeFacts
from store.bolt.user_queries import UserCypher
from store.engine import Engine, EngineProfile, UserQueries
from store.kinds import KindRegistry
from store.locks import ProjectLocks
from store.models import CommitRecord
from store.tickets import TicketAuthority

__all__ = ["CanvasOverview", "EdgeRecord", "Neo4jCanvasStore", "ScopeFacts"]


class Neo4jCanvasStore(CanvasCommits, CanvasReads, UserCypher, CanvasStore):
    """The canvas on any engine that speaks Bolt and Neo4j Cypher."""

    def __init__(
        self,
        driver: neo4j.Driver,
        database: str,
        *,
        authority: TicketAuthority,
        profile: EngineProfile,
        reader: neo4j.Driver,
        locks: ProjectLocks | None = None,
        kinds: KindRegistry | None = None,
        user_queries: UserQueries | None = None,
    ) -> None:
        self._driver = driver
        self._reader = reader
        self._user_queries = user_queries
        self._locks = locks
        self._database = database
        self._authority = authority
        self._profile = profile
        self.kinds = kinds or KindRegistry.default()
        self._query_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="canvas-query")
        self._listeners: list[Callable[[CommitRecord], None]] = []
        self._lock = threading.Lock()
        self._apply_lock = threading.Lock()
        self._live_counts = LiveCounts()
        self._commit_log = CommitLog()

    @classmethod
    def on(
        cls, engine: Engine, database: str, *, authority: TicketAuthority, kinds: KindRegistry | None = None
    ) -> Neo4jCanvasStore:
        """The canvas in ``database`` of ``engine``: writes on its root account, user queries on its reader."""
        return cls(
            engine.driver,
            database,
            authority=authority,
            profile=engine.profile,
            reader=engine.reader_driver,
            locks=engine.locks,
            kinds=kinds,
            user_queries=engine.user_queries,
        )

    @property
    def database(self) -> str:
        """The database this canvas lives in."""
        return self._database

    @property
    def profile(self) -> EngineProfile:
        """What the engine under this store does differently from Neo4j."""
        return self._profile

    def on_commit(self, listener: Callable[[CommitRecord], None]) -> None:
        """Call ``listener`` after each commit this process makes (the UI's live feed uses the log instead)."""
        with self._lock:
            self._listeners.append(listener)

    def close(self) -> None:
        self._query_pool.shutdown(wait=False, cancel_futures=True)
