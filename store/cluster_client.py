"""The canvas engine for an ArcadeDB HA cluster that is already running, reached from a list of its servers.

Whoever runs the cluster (a team's servers, or :class:`store.cluster.ArcadeClusterEngine` on one machine),
the store needs the same things from it: sessions on the current leader for its commits and reads, user
queries run as a read-only account that the engine enforces (over HTTP: :mod:`store.http_query`), and
databases created where they replicate.  The servers are given as
:class:`store.leader.ClusterMember` entries (name, Bolt port, HTTP port, host); the leader is found through
their HTTP cluster status, never assumed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from store.arcadedb_security import READER_USER, ROOT_USER
from store.engine import ARCADEDB_PROFILE, ARCADEDB_SCHEMA_SQL, Engine, EngineLimits, init_canvas_meta
from store.errors import EngineInconsistent
from store.http_query import ClusterUserQueries
from store.leader import ClusterMember, LeaderDriver, LeaderTracker, MemberView, http_call
from store.locks import ProjectLocks


class ArcadeClusterClient(Engine):
    """An ArcadeDB HA cluster from its server list: writes on the leader, user queries as the reader over HTTP."""

    profile = ARCADEDB_PROFILE
    reader_enforced_over_bolt = False
    """ArcadeDB 26.3's Bolt plugin never sets the session's user, so the reader's group does not apply there."""

    def __init__(
        self,
        members: Sequence[ClusterMember],
        *,
        password: str,
        reader_password: str,
        state_dir: Path,
        user: str = ROOT_USER,
        reader_user: str = READER_USER,
        default_database: str = "canvas",
        limits: EngineLimits | None = None,
        election_timeout_s: float = 120.0,
        on_stall: Callable[[list[MemberView]], None] | None = None,
        on_quorum_loss: Callable[[ClusterMember], None] | None = None,
        stall_after_s: float = 15.0,
    ) -> None:
        self.default_database = default_database
        self.limits = limits or EngineLimits()
        self.locks = ProjectLocks(Path(state_dir), query_slots=self.limits.query_slots)
        self._auth = (user, password)
        self.tracker = LeaderTracker(members, self._auth, election_timeout_s=election_timeout_s, on_stall=on_stall,
                                     on_quorum_loss=on_quorum_loss, stall_after_s=stall_after_s)
        # Neither driver connects before its first session.
        self.driver = LeaderDriver(self.tracker, self._auth, after_delete=self._align)  # type: ignore[assignment]
        # The reader over Bolt is for outside tools only: ArcadeDB 26.3's Bolt plugin does not apply its
        # permissions.  The store's user queries go through the HTTP API, which does (store/http_query.py).
        self.reader_driver = LeaderDriver(self.tracker, (reader_user, reader_password))  # type: ignore[assignment]
        self.user_queries = ClusterUserQueries(self.tracker, (reader_user, reader_password), reopen=self._reopen,
                                               statement_timeout_s=self.limits.statement_timeout_s)
        self._uri = ",".join(member.bolt_uri for member in members)
        self._closed = False

    def leader(self) -> ClusterMember:
        """The member that leads now (asked of the cluster if not known)."""
        return self.tracker.leader()

    def _leader_http(self, path: str, payload: dict[str, object] | None = None) -> dict[str, object]:
        return http_call(self.leader(), self._auth, path, payload)

    def _align(self, leader: ClusterMember, database: str | None) -> None:
        """Repair the replicas after a deleting commit: ArcadeDB 26.3's replication ships a delete without
        every page it changed, so the replicas' page versions fall behind the leader's and they refuse the
        next transaction (measured here).  ALIGN DATABASE sends them the leader's pages that differ."""
        name = database or self.default_database
        http_call(leader, self._auth, f"/api/v1/command/{name}", {"language": "sql", "command": "align database"})

    def _reopen(self, member: ClusterMember, database: str) -> None:
        """Have ``member`` close and open ``database`` again.  ArcadeDB 26.3 opens a database it has just
        created (``ArcadeDBServer.createDatabase``) without the server's security manager, so no user's
        permissions apply to it until it is opened again (``getDatabase`` sets it); replication carries on."""
        http_call(member, self._auth, "/api/v1/server", {"command": f"close database {database}"})
        http_call(member, self._auth, "/api/v1/server", {"command": f"open database {database}"})

    def database_exists(self, database: str) -> bool:
        """Whether the leader has this database."""
        return database in (self._leader_http("/api/v1/databases").get("result") or [])  # type: ignore[operator]

    def ensure_database(self, database: str) -> None:
        """Create the database and its schema on the leader, which replicates both to every server."""
        if not self.database_exists(database):
            self._leader_http("/api/v1/server", {"command": f"create database {database}"})
            self._reopen(self.leader(), database)
        script = ";\n".join(ARCADEDB_SCHEMA_SQL)
        self._leader_http(f"/api/v1/command/{database}", {"language": "sqlscript", "command": script})
        init_canvas_meta(self.driver, database)  # type: ignore[arg-type]

    def drop_database(self, database: str) -> None:
        """Empty the default database (schema kept, as on a Neo4j server); drop any other one on the leader."""
        if database == self.default_database:
            with self.driver.session(database=database) as session:
                session.run("MATCH (n) DETACH DELETE n").consume()
                left = session.run("MATCH (n) RETURN count(n) AS c").single()
            # ArcadeDB 26.3's replication ships a vertex delete without every page it changed: the replicas'
            # page versions fall behind and they refuse the next transaction (measured here).  ALIGN DATABASE
            # sends them the leader's pages that differ.
            self._leader_http(f"/api/v1/command/{database}", {"language": "sql", "command": "align database"})
            if left and left["c"]:
                # Seen once (CI at 4311e1d): after a transaction its replicas refused and a replica that had
                # applied part of it came to lead, 22 of its records survived every later delete.
                raise EngineInconsistent(
                    f"{left['c']} records of database {database} on the leader {self.leader().name} survived a "
                    "delete of every record; the database needs to be made again (drop it on every server)")
            return
        if self.database_exists(database):
            self._leader_http("/api/v1/server", {"command": f"drop database {database}"})

    def close(self) -> None:
        """Close the connections; the servers keep running (they are not this client's)."""
        if self._closed:
            return
        self._closed = True
        self.driver.close()
        self.reader_driver.close()
