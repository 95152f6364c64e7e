"""Which servers of an ArcadeDB cluster may answer a user query: those whose reader probe has passed since they
last started or rejoined the cluster.

The read-only account is the guarantee on a cluster (``store/http_query.py``), but it holds on a server only when
that server opened the database with its security manager: 26.3 opens a database it has just *created* without
one, and a server that restarts, rejoins its leader or is given a fresh copy of the databases is a new server as
far as that goes.  So a server takes user queries only after a **probe** (a record insert by the reader, in a
transaction that is rolled back) was refused by its permission, and only while it is the same incarnation that
passed: the probe is forgotten when the server starts again or rejoins the cluster, and the server is probed
before it answers anything again.

An incarnation is what the cluster itself says about the server (``GET /api/v1/server?mode=cluster``): when it
took its place (its own ``joinedOn``), whom it follows, and, for a replica, when its leader last counted it
joined (the leader's ``joinedOn`` for it).  26.3 gives these as times of day to the second, so whoever starts
the servers also says so (:meth:`ProbeGate.forget`, from ``ArcadeClusterEngine`` at every launch), and a restart
is noticed even between two status reads.  A server that is not part of the cluster (no agreed leader names it,
or its leader does not count it online) gets no user query: its records may lag or diverge, and its status says
nothing about what it will load next.

When no server passes, the gate fails closed: :class:`~store.errors.NoProbedServer`, naming each server and why.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from store.errors import EngineUnavailable, NoProbedServer
from store.leader import ClusterMember, LeaderTracker, MemberView

_log = logging.getLogger(__name__)

Probe = Callable[[ClusterMember, str], bool]
"""``probe(member, database)``: whether ``member`` refuses the reader's record write there by its permission
(reopening the database once if it does not); raises ``OSError`` / ``EngineUnavailable`` when it cannot say."""


@dataclass(frozen=True)
class Incarnation:
    """One life of a server in the cluster: a new start or a new join makes a new one."""

    started_on: str
    leader: str
    joined_on: str


def incarnation(member: ClusterMember, views: list[MemberView], configured: int) -> Incarnation | None:
    """``member``'s current incarnation from the cluster's own views, or None when it is not in the cluster: not
    answering, or not following a leader that a majority of the ``configured`` servers names, or a replica its
    leader does not count online."""
    own = next((v for v in views if v.member == member), None)
    if own is None or not own.leader:
        return None
    majority = configured // 2 + 1
    if sum(1 for v in views if v.leader == own.leader) < majority:
        return None
    if own.role == "Leader":
        if own.leader != member.name:
            return None
        return Incarnation(own.started_on, member.name, "")
    lead = next((v for v in views if v.member.name == own.leader and v.role == "Leader"), None)
    if lead is None or member.name not in lead.online_replicas:
        return None
    return Incarnation(own.started_on, own.leader, lead.joined_on.get(member.name, ""))


class ProbeGate:
    """Remembers, per server, the incarnation whose reader probe passed; probes a server whose incarnation changed."""

    def __init__(self, tracker: LeaderTracker, probe: Probe) -> None:
        self._tracker = tracker
        self._probe = probe
        self._passed: dict[tuple[str, str], Incarnation] = {}
        self._lock = threading.Lock()
        self.probes = 0
        """How many probes this gate ran (a server is probed once per incarnation and database)."""

    def forget(self, name: str) -> None:
        """The server ``name`` (re)starts: nothing it passed before counts."""
        with self._lock:
            for key in [k for k in self._passed if k[0] == name]:
                del self._passed[key]

    def passed(self, member: ClusterMember, database: str) -> Incarnation | None:
        """The incarnation of ``member`` whose probe passed on ``database``, if any (no probe is run)."""
        with self._lock:
            return self._passed.get((member.name, database))

    def admitted(self, database: str, order: list[ClusterMember]) -> list[ClusterMember]:
        """The servers of ``order`` (in that order) that may answer a user query on ``database`` now, probing any
        whose incarnation has not passed; :class:`NoProbedServer` when none may."""
        views = self._tracker.views()
        admitted: list[ClusterMember] = []
        why: dict[str, str] = {}
        for member in order:
            now = incarnation(member, views, len(self._tracker.members))
            if now is None:
                why[member.name] = "not in the cluster (not answering, or no agreed leader counts it online)"
                continue
            if self.passed(member, database) == now:
                admitted.append(member)
                continue
            self.forget(member.name)  # a new start or join: the old pass is void until this probe passes
            try:
                self.probes += 1
                refused = self._probe(member, database)
            except Exception as error:  # noqa: BLE001 - any failure to say is a failure to pass
                why[member.name] = f"its probe could not run ({type(error).__name__}: {error})"
                continue
            if not refused:
                why[member.name] = "it did not refuse the read-only account's write, even after a reopen"
                _log.error("ArcadeDB server %s does not enforce the read-only account on %s; no user query goes "
                           "there until a probe passes", member.name, database)
                continue
            with self._lock:
                self._passed[(member.name, database)] = now
            admitted.append(member)
        if not admitted and not views:
            raise EngineUnavailable("no ArcadeDB server of the cluster answered its status: "
                                    + ", ".join(m.name for m in order))
        if not admitted:
            raise NoProbedServer(
                f"no ArcadeDB server of the cluster has passed the read-only account's probe on {database} since "
                "it last started or rejoined, so no user query runs: "
                + "; ".join(f"{name}: {reason}" for name, reason in why.items()))
        return admitted
