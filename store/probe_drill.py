"""The reader's-write drill for a replicated canvas engine: does a user query's write ever land on the cluster?

Each run restarts one server (in turn: each server, the leader among them, SIGTERM or SIGKILL) and sends every
attack through ``store.query`` twice: at once, while that server starts and rejoins, and again once it is back
in the cluster.  The caller switches off the string checks above the engine (the Cypher lexer), so what stands
in the way is the probe gate (``store/probe_gate.py``), the per-query check and the reader's permission.  After
each attack, what an attack could change is read as root on every running server: records, relationships,
indexes and types.  A run passes when nothing changed anywhere; an attack that raised no error is counted too
(a write form with nothing to write on a server that lags the leader raises nothing and writes nothing).
"""

from __future__ import annotations

import json
import signal
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from store.cluster import ArcadeClusterEngine
from store.leader import http_call
from store.neo4j import Neo4jCanvasStore


@dataclass
class DrillRun:
    """One run: the server restarted, how, and what the attacks met."""

    restarted: str
    was_leader: bool
    how: str
    outcomes: Counter[str] = field(default_factory=Counter)
    """Per error type (``answered`` when an attack raised nothing), over both rounds of attacks."""
    written: list[str] = field(default_factory=list)
    """Attacks after which a server's records, relationships or schema differed (must be empty)."""
    probes: int = 0
    """Probes the gate ran during the run (the restarted server is probed before it answers again)."""
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        """Nothing was written anywhere."""
        return not self.written


def fingerprint(engine: ArcadeClusterEngine, database: str) -> dict[str, Any]:
    """What an attack could change, read as root on every running server."""
    seen: dict[str, Any] = {}
    for server in engine.servers:
        if not server.running:
            continue
        try:
            with engine.driver.driver_for(server.member).session(database=database) as session:  # type: ignore[attr-defined]
                nodes = session.run("MATCH (n) RETURN labels(n) AS l, properties(n) AS p").data()
                rels = session.run("MATCH ()-[r]->() RETURN type(r) AS t, properties(r) AS p").data()
            types = http_call(server.member, engine._auth, f"/api/v1/query/{database}",
                              {"language": "sql", "command": "select name, indexes from schema:types"})["result"]
        except Exception:  # noqa: BLE001 - a server still starting answers nothing: it holds what it held
            continue
        seen[server.member.name] = {
            "nodes": sorted(json.dumps(n, sort_keys=True, default=str) for n in nodes),
            "rels": sorted(json.dumps(r, sort_keys=True, default=str) for r in rels),
            "types": sorted(json.dumps(t, sort_keys=True, default=str) for t in types),
        }
    return seen


def _changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return [name for name, seen in after.items() if name in before and seen != before[name]]


def run_drill(engine: ArcadeClusterEngine, store: Neo4jCanvasStore, attacks: list[str], runs: int,
              progress: Callable[[DrillRun], None] = lambda run: None) -> list[DrillRun]:
    """``runs`` runs of restart-and-attack (see the module); the caller has switched the lexer off."""
    gate = engine.user_queries.gate
    results: list[DrillRun] = []
    engine.wait_until_all_online()
    for index in range(runs):
        started = time.monotonic()
        leader = engine.leader()
        victim = engine.servers[index % len(engine.servers)]
        how = "SIGKILL" if index % 2 else "SIGTERM"
        run = DrillRun(restarted=victim.member.name, was_leader=victim.member == leader, how=how)
        probes = gate.probes
        baseline = fingerprint(engine, store.database)
        if how == "SIGKILL":
            engine.kill(victim.member.name, signal.SIGKILL)
        else:
            engine.stop_server(victim.member.name)
        engine.tracker.forget(leader)
        engine.restart(victim.member.name)
        for round_ in ("rejoining", "rejoined"):
            if round_ == "rejoined":
                engine.wait_until_all_online()
                baseline = {**baseline, **{k: v for k, v in fingerprint(engine, store.database).items()
                                           if k not in baseline}}
            for cypher in attacks:
                try:
                    store.query(cypher)
                    run.outcomes["answered"] += 1
                except Exception as error:  # noqa: BLE001 - every refusal counts, by its type
                    run.outcomes[type(error).__name__] += 1
                changed = _changed(baseline, fingerprint(engine, store.database))
                if changed:
                    run.written.append(f"{round_}: {cypher} changed {', '.join(changed)}")
                    baseline = fingerprint(engine, store.database)
        run.probes = gate.probes - probes
        run.seconds = round(time.monotonic() - started, 2)
        results.append(run)
        progress(run)
    return results


def summary(results: list[DrillRun]) -> dict[str, Any]:
    """JSON-ready figures of a drill."""
    outcomes: Counter[str] = Counter()
    for run in results:
        outcomes.update(run.outcomes)
    seconds = sorted(r.seconds for r in results)
    return {
        "runs": len(results),
        "runs_passed": sum(1 for r in results if r.passed),
        "writes_accepted": sum(len(r.written) for r in results),
        "written": [w for r in results for w in r.written],
        "restarted": [f"{r.restarted}{' (leader)' if r.was_leader else ''} {r.how}" for r in results],
        "attack_outcomes": dict(outcomes),
        "probes": sum(r.probes for r in results),
        "run_seconds_median": seconds[len(seconds) // 2] if seconds else None,
    }
