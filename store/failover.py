"""A leader-failover drill for the replicated canvas engine, and the canvas checks that follow it.

A writer applies commits through the store with tickets, as the bridge does,
and records every commit the store acknowledged.  Mid-workload the leader is
killed with SIGKILL; the writer carries on (the store's retry lands on the new
leader).  Afterwards every acknowledged commit must be present, once, and the
canvas must verify: node count, node versions, the canvas-version counter
against the commit log, on the leader and on every surviving server.
"""

from __future__ import annotations

import signal
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from store.cluster import ArcadeClusterEngine
from store.mutations import CreateNode, UpdateNode
from store.neo4j import Neo4jCanvasStore
from store.tickets import TicketAuthority


@dataclass(frozen=True)
class Ack:
    """One commit the store acknowledged."""

    key: str
    node_id: str
    canvas_version: int
    started: float
    acked: float
    replayed: bool


@dataclass
class FailoverReport:
    """What the drill saw: the acknowledged commits, the kill, and what the canvas looked like after."""

    killed: str = ""
    leader_after: str = ""
    killed_at: float = 0.0
    acks: list[Ack] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    """Keys of acknowledged commits missing afterwards (must be empty)."""
    problems: list[str] = field(default_factory=list)
    """Ways the canvas failed to verify (must be empty)."""
    writer_error: str | None = None
    rejoins: list[str] = field(default_factory=list)
    """Servers the engine restarted because they failed to rejoin the new leader (an ArcadeDB 26.3 fault)."""

    @property
    def acks_after_kill(self) -> list[Ack]:
        """Commits acknowledged after the kill (on the new leader)."""
        return [a for a in self.acks if a.acked > self.killed_at]

    @property
    def in_flight_at_kill(self) -> int:
        """Commits begun before the kill and acknowledged after it: the store retried them."""
        return sum(1 for a in self.acks if a.started < self.killed_at < a.acked)

    @property
    def seconds_to_first_commit(self) -> float | None:
        """From the kill to the first commit acknowledged after it."""
        after = self.acks_after_kill
        return round(min(a.acked for a in after) - self.killed_at, 3) if after else None

    def summary(self) -> dict[str, Any]:
        """JSON-ready figures."""
        return {
            "killed_leader": self.killed,
            "new_leader": self.leader_after,
            "acknowledged_commits": len(self.acks),
            "acknowledged_after_kill": len(self.acks_after_kill),
            "in_flight_at_kill": self.in_flight_at_kill,
            "replayed_by_key": sum(1 for a in self.acks if a.replayed),
            "seconds_from_kill_to_first_commit": self.seconds_to_first_commit,
            "commits_lost": len(self.lost),
            "canvas_problems": self.problems,
            "writer_error": self.writer_error,
            "servers_restarted_to_rejoin": self.rejoins,
        }


def run_failover(
    engine: ArcadeClusterEngine,
    store: Neo4jCanvasStore,
    authority: TicketAuthority,
    *,
    before: int = 20,
    after: int = 20,
    timeout_s: float = 180.0,
) -> FailoverReport:
    """Write ``before`` commits, SIGKILL the leader while the writer runs on, then write ``after`` more and check."""
    report = FailoverReport()
    # A replica that dropped out earlier would leave the kill without a majority: it rejoins first.
    engine.wait_until_all_online()
    run = uuid.uuid4().hex[:8]
    tally = CreateNode(kind="text", title="tally", inputs={"count": 0})
    store.apply([tally], ticket=authority.issue(f"{run}-tally", [tally]), idempotency_key=f"{run}-tally")
    warmed = threading.Event()
    killed = threading.Event()

    def writer() -> None:
        i = 0
        try:
            while not (killed.is_set() and len(report.acks_after_kill) >= after):
                i += 1
                key = f"{run}-{i}"
                node = CreateNode(kind="text", title=f"commit {i}")
                batch = [node, UpdateNode(node_id=tally.id, inputs_patch={"count": i}, expected_version=i)]
                ticket = authority.issue(key, batch)
                if i == before + 1:
                    warmed.set()  # the kill lands while this commit is under way
                started = time.monotonic()
                record = store.apply(batch, ticket=ticket, idempotency_key=key)
                report.acks.append(
                    Ack(key, node.id, record.canvas_version, started, time.monotonic(), record.replayed)
                )
        except Exception as error:  # reported, and the drill fails on it
            report.writer_error = f"{type(error).__name__}: {error}"
            warmed.set()

    thread = threading.Thread(target=writer, name="failover-writer", daemon=True)
    thread.start()
    if not warmed.wait(timeout_s):
        raise TimeoutError(f"the writer did not reach {before} commits within {timeout_s:.0f} s")
    if report.writer_error is None:
        victim = engine.leader()
        report.killed = victim.name
        report.killed_at = time.monotonic()
        engine.kill(victim.name, signal.SIGKILL)
        killed.set()
    thread.join(timeout_s)
    if thread.is_alive():
        raise TimeoutError(f"the writer did not finish {after} commits after the kill within {timeout_s:.0f} s")
    report.leader_after = engine.leader().name
    report.rejoins = list(engine.rejoins)
    for ack in report.acks:
        found = store.commit_for_key(ack.key)
        if found is None:
            report.lost.append(ack.key)
        elif found.canvas_version != ack.canvas_version:
            report.problems.append(f"commit {ack.key} acknowledged at version {ack.canvas_version}, "
                                   f"found at {found.canvas_version}")
    report.problems += check_canvas(store, expected_commits=len(report.acks) + 1)
    tally_now = store.get_node(tally.id)
    if tally_now.inputs.get("count") != len(report.acks) or tally_now.version != len(report.acks) + 1:
        report.problems.append(
            f"tally at count {tally_now.inputs.get('count')} version {tally_now.version}, "
            f"expected {len(report.acks)} and {len(report.acks) + 1}"
        )
    history = store.node_history(tally.id)
    if [h.version for h in history] != list(range(1, tally_now.version + 1)):
        report.problems.append(f"tally history has versions {[h.version for h in history]}")
    report.problems += check_members_agree(engine, store.database, expected_commits=len(report.acks) + 1)
    return report


def check_canvas(store: Neo4jCanvasStore, *, expected_commits: int) -> list[str]:
    """The canvas's own consistency: the counter, the commit log and the nodes' versions agree."""
    problems: list[str] = []
    commits = store.commits()
    versions = sorted(c.canvas_version for c in commits)
    if len(commits) != expected_commits:
        problems.append(f"{len(commits)} commits in the log, expected {expected_commits}")
    if versions != list(range(1, len(versions) + 1)):
        problems.append(f"commit versions are not 1..{len(versions)} without gaps or repeats")
    if store.canvas_version() != len(versions):
        problems.append(f"canvas version counter {store.canvas_version()} but {len(versions)} commits")
    if len({c.idempotency_key for c in commits}) != len(commits):
        problems.append("an idempotency key was applied twice")
    nodes = store.count_nodes()
    if sum(nodes.values()) != expected_commits:
        problems.append(f"{sum(nodes.values())} nodes, expected {expected_commits} (one per commit)")
    return problems


def check_members_agree(
    engine: ArcadeClusterEngine, database: str, *, expected_commits: int, timeout_s: float = 60.0
) -> list[str]:
    """Every running server holds the same commit log (replicas apply shortly after the leader answers)."""
    deadline = time.monotonic() + timeout_s
    while True:
        counts: dict[str, int] = {}
        for server in engine.servers:
            if not server.running:
                continue
            with engine.driver.driver_for(server.member).session(database=database) as session:  # type: ignore[attr-defined]
                counts[server.member.name] = int(session.run("MATCH (c:Commit) RETURN count(c) AS c").single()["c"])
        if all(count == expected_commits for count in counts.values()):
            return []
        if time.monotonic() > deadline:
            return [f"servers disagree on the commit log: {counts}, expected {expected_commits} each"]
        time.sleep(0.2)
