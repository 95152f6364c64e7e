"""Follow the leader of an ArcadeDB HA cluster over Bolt.

ArcadeDB's Bolt plugin has no cluster view: its ROUTE reply names only the
server asked, for every role (``BoltNetworkExecutor.handleRoute``), so a
``neo4j://`` driver never learns the other members and loses the cluster with
the server it first reached.  The cluster does say who leads, over HTTP
(``GET /api/v1/server?mode=cluster``).  :class:`LeaderTracker` asks every
configured member, and :class:`LeaderDriver` gives the store sessions on the
current leader.  When a session fails because its server went away or stopped
leading, the driver forgets the leader and raises ``SessionExpired`` (as
Neo4j's own routing driver does for ``NotALeader``); the store's commit retry
then opens a new session, which waits for the election and lands on the new
leader.  Every commit carries an idempotency key, so a retried commit whose
first attempt did reach the cluster is replayed, not applied twice.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import neo4j
from neo4j.exceptions import Neo4jError, ServiceUnavailable, SessionExpired

from store.errors import EngineUnavailable

_log = logging.getLogger(__name__)
_DELETES = re.compile(r"\bDELETE\b", re.IGNORECASE)
_LOST_MID_COMMIT = "Cannot execute command"
"""26.3's ``ServerIsNotTheLeaderException`` as its Bolt plugin reports a failed COMMIT (the message alone, under
``TransactionNotFound``): ``HAServer.checkCurrentNodeIsTheLeader`` found, while replicating the transaction, that
the server had lost its leadership, most often because its replicas refused the transaction and elected another
(seen here, CI at 4311e1d).  The leader rolls its copy back; the commit is retried under its key."""
_LEADER_LOSS_MARKERS = (
    "ServerIsNotTheLeader",
    "not the leader",
    "Leader not available",
    "QuorumNotReached",
    "Quorum ",
    "ReplicationException",
    "forwarding transaction to the Leader",
    _LOST_MID_COMMIT,
)
"""What the servers say when the one a session is on does not (or no longer) lead."""


@dataclass(frozen=True)
class ClusterMember:
    """One ArcadeDB server of the cluster: its name (``arcadedb.server.name``) and loopback ports."""

    name: str
    bolt_port: int
    http_port: int
    host: str = "127.0.0.1"

    @property
    def bolt_uri(self) -> str:
        """Where its Bolt plugin listens."""
        return f"bolt://{self.host}:{self.bolt_port}"

    @property
    def http_url(self) -> str:
        """Its HTTP API."""
        return f"http://{self.host}:{self.http_port}"


def http_exchange(
    member: ClusterMember,
    auth: tuple[str, str],
    path: str,
    payload: dict[str, Any] | None = None,
    *,
    timeout: float = 60.0,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, Any], dict[str, str]]:
    """One request to a member's HTTP API as ``auth``: its status, JSON body and headers, error statuses included.

    A server that cannot be reached raises ``OSError`` (``urllib.error.URLError``); callers choose another member.
    """
    token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
    request = urllib.request.Request(
        member.http_url + path,
        data=None if payload is None else json.dumps(payload).encode(),
        headers={"Authorization": f"Basic {token}", "Content-Type": "application/json", **(headers or {})},
        method="GET" if payload is None else "POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, body, reply_headers = response.status, response.read(), dict(response.headers.items())
    except urllib.error.HTTPError as error:
        status, body, reply_headers = error.code, error.read(), dict(error.headers.items())
    try:
        parsed = json.loads(body or b"{}")
    except ValueError:
        parsed = {"error": body.decode(errors="replace")}
    return status, parsed if isinstance(parsed, dict) else {"result": parsed}, reply_headers


def http_call(
    member: ClusterMember, auth: tuple[str, str], path: str, payload: dict[str, Any] | None = None,
    *, timeout: float = 60.0,
) -> dict[str, Any]:
    """Call one member's HTTP API as ``auth``; HTTP errors become :class:`EngineUnavailable` with ArcadeDB's text."""
    status, body, _ = http_exchange(member, auth, path, payload, timeout=timeout)
    if status >= 400:
        detail = body.get("detail") or body.get("error") or body
        raise EngineUnavailable(f"ArcadeDB server {member.name} refused {path}: {status} {detail}")
    return body


@dataclass(frozen=True)
class MemberView:
    """What one member said about the cluster."""

    member: ClusterMember
    role: str
    leader: str | None
    online_replicas: frozenset[str]
    """Names of the replicas this member, if it leads, has online."""
    election_status: str = ""
    """ArcadeDB's election state on this member: ``DONE`` once an election has ended for it."""
    started_on: str = ""
    """When this member says it took its place in the cluster (its own ``joinedOn``, a time of day to the second):
    a restart changes it."""
    joined: tuple[tuple[str, str], ...] = ()
    """(replica name, when this member, if it leads, last counted it joined: ``joinedOn``): a rejoin changes it."""

    @property
    def joined_on(self) -> dict[str, str]:
        """When each replica last joined this member, by name (empty unless it leads)."""
        return dict(self.joined)


class LeaderTracker:
    """Which member leads, asked of the members themselves; remembered until a failure says otherwise."""

    def __init__(
        self,
        members: Sequence[ClusterMember],
        auth: tuple[str, str],
        *,
        election_timeout_s: float = 120.0,
        on_stall: Callable[[list[MemberView]], None] | None = None,
        stall_after_s: float = 15.0,
        on_quorum_loss: Callable[[ClusterMember], None] | None = None,
    ) -> None:
        if not members:
            raise ValueError("a cluster needs at least one member")
        self.members = list(members)
        self._auth = auth
        self.election_timeout_s = election_timeout_s
        self._leader: ClusterMember | None = None
        self._on_stall = on_stall
        self._stall_after_s = stall_after_s
        self._on_quorum_loss = on_quorum_loss
        self._lock = threading.Lock()
        self.changes = 0
        """How many times a leader was (re)discovered: 1 after the first lookup, +1 per failover."""

    def view(self, member: ClusterMember, *, timeout: float = 2.0) -> MemberView | None:
        """The member's own account of its role and leader, or None when it does not answer."""
        try:
            status = http_call(member, self._auth, "/api/v1/server?mode=cluster", timeout=timeout)
        except (OSError, EngineUnavailable, ValueError):
            return None
        ha = status.get("ha") or {}
        network = ha.get("network") or {}
        replicas = network.get("replicas") or []
        return MemberView(
            member=member,
            role=str((network.get("current") or {}).get("role", "")),
            leader=ha.get("leader"),
            online_replicas=frozenset(str(r.get("name")) for r in replicas if r.get("status") == "ONLINE"),
            election_status=str(ha.get("electionStatus") or ""),
            started_on=str((network.get("current") or {}).get("joinedOn") or ""),
            joined=tuple(sorted((str(r.get("name")), str(r.get("joinedOn") or "")) for r in replicas
                                if r.get("status") == "ONLINE")),
        )

    def views(self) -> list[MemberView]:
        """Every answering member's view, asked in parallel (a dead member costs one timeout, not one each)."""
        results: list[MemberView | None] = [None] * len(self.members)

        def ask(index: int) -> None:
            results[index] = self.view(self.members[index])

        threads = [threading.Thread(target=ask, args=(i,), daemon=True) for i in range(len(self.members))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return [view for view in results if view is not None]

    def find_leader(self, views: list[MemberView] | None = None) -> MemberView | None:
        """The member that says it leads, that a majority of the configured members name as leader, and that
        has enough replicas online to commit (a majority of the servers, itself included).

        Just after a failover the new leader may lead alone for a few seconds, until the other replicas
        reconnect; its commits then fail with ``QuorumNotReached``, so it is not handed out before then."""
        views = self.views() if views is None else views
        majority = len(self.members) // 2 + 1
        for candidate in views:
            if candidate.role != "Leader" or len(candidate.online_replicas) + 1 < majority:
                continue
            agreeing = sum(1 for view in views if view.leader == candidate.member.name)
            if agreeing >= majority:
                return candidate
        return None

    def leader(self) -> ClusterMember:
        """The current leader; after a failure, waits (up to ``election_timeout_s``) for the cluster to elect one."""
        with self._lock:
            if self._leader is not None:
                return self._leader
            started = time.monotonic()
            deadline = started + self.election_timeout_s
            stalled_at = started + self._stall_after_s
            while True:
                views = self.views()
                found = self.find_leader(views)
                if found is not None:
                    self._leader = found.member
                    self.changes += 1
                    return found.member
                if self._on_stall is not None and time.monotonic() > stalled_at:
                    self._on_stall(views)
                    stalled_at = time.monotonic() + self._stall_after_s
                if time.monotonic() > deadline:
                    names = ", ".join(m.name for m in self.members)
                    raise EngineUnavailable(
                        f"no leader among ArcadeDB servers {names} after {self.election_timeout_s:.0f} s; "
                        "a majority of them must be running to elect one"
                    )
                time.sleep(0.1)

    @property
    def known_leader(self) -> ClusterMember | None:
        """The leader as last found, without asking the cluster (None while none is known)."""
        return self._leader

    def forget(self, member: ClusterMember, error: BaseException | None = None) -> None:
        """Stop trusting ``member`` as leader (a session on it failed); the next lookup asks the cluster again.

        When the failure was the leader's quorum (its replicas did not confirm a transaction in time, or refused it
        and elected another leader meanwhile), whoever runs the servers is told (``on_quorum_loss``): a replica
        that cannot apply what the leader sends stays connected, and counted online, while every commit fails."""
        with self._lock:
            if self._leader == member:
                self._leader = None
        if error is None or self._on_quorum_loss is None:
            return
        text = str(error).lower()
        if "quorum" in text or _LOST_MID_COMMIT.lower() in text:
            self._on_quorum_loss(member)


def is_leader_loss(error: BaseException) -> bool:
    """Whether ``error`` means the server went away or no longer leads (as opposed to a bad query)."""
    if isinstance(error, (ServiceUnavailable, SessionExpired, ConnectionError)):
        return True
    text = f"{type(error).__name__} {error}"
    return isinstance(error, Neo4jError) and any(marker.lower() in text.lower() for marker in _LEADER_LOSS_MARKERS)


def _guard(call: Callable[..., Any], on_loss: Callable[[BaseException], None]) -> Callable[..., Any]:
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return call(*args, **kwargs)
        except Exception as error:
            if not is_leader_loss(error):
                raise
            on_loss(error)
            if isinstance(error, (ServiceUnavailable, SessionExpired)):
                raise
            raise SessionExpired(f"the ArcadeDB server stopped leading the cluster: {error}") from error

    return guarded


class _LeaderTransaction:
    """A transaction on the leader whose failures from a lost leader make the driver look again."""

    def __init__(
        self, tx: neo4j.Transaction, on_loss: Callable[[BaseException], None], after_delete: Callable[[], None] | None
    ) -> None:
        self._tx = tx
        self._run = _guard(tx.run, on_loss)
        self._commit = _guard(tx.commit, on_loss)
        self._after_delete = after_delete
        self._deletes = False

    def run(self, query: str, *args: Any, **kwargs: Any) -> Any:
        """Run on the leader, noting whether the transaction deletes anything."""
        if _DELETES.search(query):
            self._deletes = True
        return self._run(query, *args, **kwargs)

    def commit(self) -> None:
        """Commit; after a deleting transaction, let the engine repair its replicas before anything else runs."""
        self._commit()
        if self._deletes and self._after_delete is not None:
            try:
                self._after_delete()
            except Exception as error:  # the commit stands; a replica left behind drops out and rejoins
                _log.warning("could not realign the replicas after a deleting commit: %s", error)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tx, name)

    def __enter__(self) -> _LeaderTransaction:
        return self

    def __exit__(self, *exc: object) -> None:
        self._tx.__exit__(*exc)


class _LeaderSession:
    """A session on the member that leads; it moves to a new leader while no transaction has begun."""

    def __init__(self, driver: LeaderDriver, config: dict[str, Any]) -> None:
        self._driver = driver
        self._config = config
        self._open()

    def _open(self) -> None:
        member = self._driver.leader

        def lost(error: BaseException) -> None:
            self._driver.tracker.forget(member, error)

        def aligned() -> None:
            if self._driver.after_delete is not None:
                self._driver.after_delete(member, self._config.get("database"))

        self._member = member
        self._on_loss = lost
        self._after_delete = aligned
        self._session = self._driver.driver_for(member).session(**self._config)
        self.run = _guard(self._session.run, lost)

    def begin_transaction(self, *args: Any, **kwargs: Any) -> _LeaderTransaction:
        """Begin on the leader; nothing was sent yet when beginning fails, so a lost leader is looked up again."""
        for _attempt in range(len(self._driver.tracker.members) + 1):
            try:
                tx = self._session.begin_transaction(*args, **kwargs)
            except Exception as error:
                if not is_leader_loss(error):
                    raise
                self._on_loss(error)
                self._close_quietly()
                self._open()
                continue
            return _LeaderTransaction(tx, self._on_loss, self._after_delete)
        return _LeaderTransaction(_guard(self._session.begin_transaction, self._on_loss)(*args, **kwargs),
                                  self._on_loss, self._after_delete)

    def _close_quietly(self) -> None:
        try:
            self._session.close()
        except Exception:  # the server it was on is gone
            pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    def __enter__(self) -> _LeaderSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self._close_quietly()


class LeaderDriver:
    """The part of ``neo4j.Driver`` the store uses (``session``, ``close``), always on the cluster's leader."""

    def __init__(
        self,
        tracker: LeaderTracker,
        auth: tuple[str, str],
        *,
        after_delete: Callable[[ClusterMember, str | None], None] | None = None,
    ) -> None:
        self._tracker = tracker
        self.after_delete = after_delete
        """Called with the leader and database after a transaction that deleted something committed."""
        self._auth = auth
        self._drivers: dict[str, neo4j.Driver] = {}
        self._lock = threading.Lock()
        self._closed = False

    @property
    def tracker(self) -> LeaderTracker:
        """Who leads."""
        return self._tracker

    def driver_for(self, member: ClusterMember) -> neo4j.Driver:
        """The plain driver of one member (created on first use)."""
        with self._lock:
            if self._closed:
                raise EngineUnavailable("the cluster driver is closed")
            driver = self._drivers.get(member.name)
            if driver is None:
                driver = neo4j.GraphDatabase.driver(member.bolt_uri, auth=self._auth, connection_timeout=5.0)
                self._drivers[member.name] = driver
            return driver

    def session(self, **config: Any) -> _LeaderSession:
        """A session on the current leader (waiting for an election if there is none)."""
        return _LeaderSession(self, config)

    @property
    def leader(self) -> ClusterMember:
        """The member sessions go to now."""
        return self._tracker.leader()

    def close(self) -> None:
        """Close the connections to every member."""
        with self._lock:
            self._closed = True
            drivers, self._drivers = list(self._drivers.values()), {}
        for driver in drivers:
            try:
                driver.close()
            except Exception:  # a dead member's pool may fail to close cleanly; nothing is left to release
                pass
