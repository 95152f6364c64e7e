"""Turn cost benchmark: prints JSON (Bolt round trips, Cypher statements, tool-schema bytes, checkpoint bytes, wall
time).

Everything is counted, nothing assumed: a hook on the ``neo4j`` driver's Bolt connection counts every
flush of the outgoing buffer (one client→server send, which the driver then waits on: a round trip)
and every RUN message (one Cypher statement), and times the driver's sends and reply reads.  A chat
model wrapper records the tool schemas bound for each model call.

Scenarios, on a canvas grown to 1k and then 10k nodes around a 6-shot narrative (``python bench/turn.py
[NODES ...]`` for other sizes), with the offline planner:

* ``note``: "note: …", two steps (``create_node``, reply) — the harness's own cost;
* ``repair``: "redo the lighting on shot 3" — query, mark_stale, regenerate_stale (3 media), reply,
  under the default grant scoped to shot 3 and what derives from it;
* ``validate``: one scoped action's validation alone (the grant's scope check and its lineage read);
* ``bare_graph``: a LangGraph graph of no-op nodes with the same checkpointer and as many supersteps as
  the note turn, the floor any turn loop pays; run once right after each note turn, so that each ratio compares
  two runs under the same load (``paired_note_turn_ratio``, the median of those), and again after all the turns;
  ``paired_note_turn_cpu_ratio`` compares CPU time (the turn's: this process's and the engine's), which waits for
  a core on a loaded machine do not inflate.  The bare graph's SQLite file is a plain SqliteSaver's (WAL,
  synchronous=FULL: each checkpoint waits for the disk); ``paired_note_turn_ratio_same_pragmas`` compares with
  one set as the turn's checkpointer is (synchronous=NORMAL).
"""

from __future__ import annotations

import json
import os
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar, TypedDict

sys.path[0] = str(Path(__file__).resolve().parents[1])

from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from neo4j._sync.io._bolt._base import Bolt  # noqa: E402
from neo4j._sync.io._bolt._common import Outbox  # noqa: E402

from jarvishub.project import Project  # noqa: E402
from jarvishub.runtime import Runtime  # noqa: E402
from nodes.actions import CanvasMutation, ToolCall  # noqa: E402
from nodes.bridge import Usage  # noqa: E402
from nodes.models.offline import OfflinePlanner  # noqa: E402
from nodes.verdicts import GrantDenied  # noqa: E402
from store.mutations import CreateNode, SetStatus  # noqa: E402
from store.neo4j import Neo4jCanvasStore  # noqa: E402

CANVAS_SIZES = (1_000, 10_000)
SHOTS = 6
TURNS = int(os.environ.get("JARVISHUB_BENCH_TURNS") or 5)
"""Turns per scenario (``JARVISHUB_BENCH_TURNS``: more turns, a steadier median on a loaded machine)."""
VALIDATIONS = 50
_RUN = b"\x10"  # the Bolt RUN message's signature: one Cypher statement


class BoltCounter:
    """Counts round trips (outbox flushes) and statements (RUN messages), and times the driver's I/O."""

    def __init__(self) -> None:
        self.round_trips = 0
        self.statements = 0
        self.io_s = 0.0
        self.store_s = 0.0
        self._lock = threading.Lock()

    def snapshot(self) -> tuple[int, int, float, float]:
        """The counts so far, to subtract from later ones."""
        return self.round_trips, self.statements, self.io_s, self.store_s

    def since(self, before: tuple[int, int, float, float]) -> dict[str, Any]:
        """What was counted after ``before``."""
        return {"round_trips": self.round_trips - before[0], "statements": self.statements - before[1],
                "bolt_io_s": self.io_s - before[2], "store_s": self.store_s - before[3]}


@contextmanager
def counting_bolt() -> Iterator[BoltCounter]:
    """Patch the driver's Bolt classes for the duration (every connection of every driver is counted)."""
    counter = BoltCounter()
    flush, append, fetch = Outbox.flush, Outbox.append_message, Bolt.fetch_message

    def counted_flush(self: Outbox) -> bool:
        started = time.perf_counter()
        sent = flush(self)
        with counter._lock:
            counter.io_s += time.perf_counter() - started
            counter.round_trips += int(bool(sent))
        return sent

    def counted_append(self: Outbox, tag: bytes, fields: Any, hooks: Any) -> None:
        if tag == _RUN:
            with counter._lock:
                counter.statements += 1
        return append(self, tag, fields, hooks)

    def timed_fetch(self: Bolt) -> Any:
        started = time.perf_counter()
        try:
            return fetch(self)
        finally:
            with counter._lock:
                counter.io_s += time.perf_counter() - started

    # Time inside the store's public methods (outermost call only, per thread): driver, engine and parsing.
    depth = threading.local()
    # The store is assembled from one class per concern (store/bolt/): every public method of each.
    originals = {name: fn for part in reversed(Neo4jCanvasStore.__mro__) for name, fn in vars(part).items()
                 if callable(fn) and not name.startswith("_") and name not in ("close", "on_commit")}

    def timed(fn: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            level = getattr(depth, "level", 0)
            depth.level = level + 1
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                depth.level = level
                if level == 0:
                    with counter._lock:
                        counter.store_s += time.perf_counter() - started
        return wrapper

    own = set(vars(Neo4jCanvasStore))
    Outbox.flush, Outbox.append_message, Bolt.fetch_message = counted_flush, counted_append, timed_fetch
    for name, fn in originals.items():
        setattr(Neo4jCanvasStore, name, timed(fn))
    try:
        yield counter
    finally:
        Outbox.flush, Outbox.append_message, Bolt.fetch_message = flush, append, fetch
        for name, fn in originals.items():
            if name in own:
                setattr(Neo4jCanvasStore, name, fn)
            else:
                delattr(Neo4jCanvasStore, name)  # the wrapper goes; the part's own method shows again


class RecordingPlanner(OfflinePlanner):
    """The offline planner, recording the size of the tool schemas bound for each model call."""

    calls: ClassVar[list[dict[str, Any]]] = []

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        self.calls.append({"schema_bytes": len(json.dumps(self.bound_tools)), "tools": len(self.bound_tools),
                           "prompt_bytes": sum(len(str(m.content)) for m in messages)})
        return super()._generate(messages, stop, run_manager, **kwargs)


def grow(runtime: Runtime, target: int) -> None:
    """Add text nodes through the bridge until the canvas has ``target`` nodes."""
    have = sum(runtime.project.store.count_nodes().values())
    grant = runtime.grant_for("grow")
    index = have
    while have < target:
        batch = [CreateNode(kind="text", title=f"note {index + i}", inputs={"text": f"beat {index + i}"})
                 for i in range(min(500, target - have))]
        runtime.bridge.submit(CanvasMutation(action_id=f"grow-{index}", mutations=batch), grant, Usage(),
                              thread_id="bench-grow")
        index += len(batch)
        have += len(batch)


def checkpoint_bytes(path: Path) -> int:
    """Bytes the SQLite checkpointer holds: its checkpoints (each carries the whole state) and pending writes."""
    connection = sqlite3.connect(str(path))
    try:
        return sum(connection.execute(f"SELECT COALESCE(SUM(LENGTH({column})), 0) FROM {table}").fetchone()[0]
                   for table, column in (("checkpoints", "checkpoint"), ("checkpoints", "metadata"),
                                         ("writes", "value")))
    finally:
        connection.close()


def engine_cpu_s(runtime: Runtime) -> float:
    """CPU seconds the embedded engine's server process has used so far (0 for an engine that is not ours)."""
    pid = getattr(runtime.project.engine, "server_pid", None)
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError, TypeError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def measure_turns(runtime: Runtime, counter: BoltCounter, planner: RecordingPlanner, request: str,
                  bare: BareGraph | None = None, bare_normal: BareGraph | None = None) -> dict[str, Any]:
    """Median per-turn figures of ``TURNS`` runs of ``request``; with ``bare``, the bare graph is run right after
    each turn and the ratio of the two is taken turn by turn (both saw the same moment of this shared machine's
    load), then its median."""
    rows = []
    for _ in range(TURNS):
        planner.calls.clear()
        before = counter.snapshot()
        saved = checkpoint_bytes(runtime.project.checkpoint_path)
        started, cpu, engine = time.perf_counter(), time.process_time(), engine_cpu_s(runtime)
        outcome = runtime.run(request)
        wall = time.perf_counter() - started
        # CPU time, this process's and the engine's: what the turn costs, which a loaded machine inflates far
        # less than wall time (waits for a core are not counted).
        cpu_s = time.process_time() - cpu + engine_cpu_s(runtime) - engine
        assert outcome.outcome == "replied" and "could not" not in (outcome.reply or ""), outcome.reply
        assert all((s.get("verdict") or {}).get("verdict") != "reject" for s in outcome.steps), outcome.steps
        counted = counter.since(before)
        actions = len(outcome.steps)
        paired = {}
        if bare is not None:
            bare_cpu = time.process_time()
            bare_ms = bare.run(9 * actions + 1)  # begin, then observe, resolve … record per action
            bare_cpu_ms = (time.process_time() - bare_cpu) * 1000
            paired = {"bare_ms": bare_ms, "ratio": wall * 1000 / bare_ms, "bare_cpu_ms": bare_cpu_ms,
                      "cpu_ratio": cpu_s * 1000 / bare_cpu_ms}
            if bare_normal is not None:
                normal_ms = bare_normal.run(9 * actions + 1)
                paired.update(bare_normal_ms=normal_ms, normal_ratio=wall * 1000 / normal_ms)
        rows.append({**counted, **paired, "wall_s": wall, "cpu_s": cpu_s, "actions": actions,
                     "checkpoint_bytes": checkpoint_bytes(runtime.project.checkpoint_path) - saved,
                     "schema_bytes": max(c["schema_bytes"] for c in planner.calls),
                     "tools_bound": max(c["tools"] for c in planner.calls),
                     "model_calls": len(planner.calls)})
    median = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
    actions = median["actions"]
    return {
        "actions_per_turn": actions,
        "round_trips_per_turn": median["round_trips"],
        "round_trips_per_action": round(median["round_trips"] / actions, 1),
        "statements_per_turn": median["statements"],
        "statements_per_action": round(median["statements"] / actions, 1),
        "wall_ms_per_turn": round(median["wall_s"] * 1000, 1),
        "cpu_ms_per_turn": round(median["cpu_s"] * 1000, 1),
        "bolt_io_ms_per_turn": round(median["bolt_io_s"] * 1000, 1),
        "bolt_io_share": round(median["bolt_io_s"] / median["wall_s"], 2),
        "store_ms_per_turn": round(median["store_s"] * 1000, 1),
        "store_share": round(median["store_s"] / median["wall_s"], 2),
        "checkpoint_bytes_per_turn": median["checkpoint_bytes"],
        "model_calls_per_turn": median["model_calls"],
        "tools_bound_per_call": median["tools_bound"],
        "schema_bytes_per_call": median["schema_bytes"],
        **({"bare_graph_ms": round(median["bare_ms"], 1), "bare_graph_ratio": round(median["ratio"], 2),
            "bare_graph_ratios": sorted(round(r["ratio"], 2) for r in rows),
            "bare_graph_cpu_ms": round(median["bare_cpu_ms"], 1), "bare_graph_cpu_ratio": round(median["cpu_ratio"], 2)}
           if bare is not None else {}),
        **({"bare_graph_normal_ms": round(median["bare_normal_ms"], 1),
            "bare_graph_normal_ratio": round(median["normal_ratio"], 2)} if bare_normal is not None else {}),
    }


def measure_validation(runtime: Runtime, counter: BoltCounter) -> dict[str, Any]:
    """One action under a scoped grant: the scope check and the lineage it needs, at validation and at commit."""
    store = runtime.project.store
    grant = runtime.grant_for("redo the lighting on shot 3")
    assert not grant.scope.all_nodes, "the local-edit grant is scoped"
    clip = store.query("MATCH (c:CanvasNode {kind: 'video'})-[:GENERATED_FROM]->(:CanvasNode {kind: 'image'})"
                       "-[:GENERATED_FROM]->(s:CanvasNode {title: 'shot 3'}) "
                       "WHERE c.status <> 'rejected' RETURN c.id AS id LIMIT 1").rows[0]["id"]
    outside = store.query("MATCH (s:CanvasNode {kind: 'shot', title: 'shot 5'}) RETURN s.id AS id").rows[0]["id"]

    def validate(node_id: str) -> str:
        action = ToolCall(action_id="v", tool="mark_stale", args={"node_id": node_id, "reason": "bench"})
        return runtime.bridge.validate(action, grant, Usage()).verdict

    def authorize(node_id: str) -> str:
        try:
            runtime.bridge.authorize("a", [SetStatus(node_id=node_id, status="stale")], grant, Usage())
        except GrantDenied as denied:
            return denied.reason
        return "allow"

    result = {}
    for name, check, node_id in (("validate_in_scope", validate, clip), ("validate_out_of_scope", validate, outside),
                                 ("authorize_in_scope", authorize, clip),
                                 ("authorize_out_of_scope", authorize, outside)):
        before = counter.snapshot()
        started = time.perf_counter()
        for _ in range(VALIDATIONS):
            verdict = check(node_id)
        elapsed = time.perf_counter() - started
        counted = counter.since(before)
        result[name] = {"verdict": verdict, "round_trips": counted["round_trips"] / VALIDATIONS,
                        "statements": counted["statements"] / VALIDATIONS,
                        "ms": round(elapsed / VALIDATIONS * 1000, 2)}
    return result


GRANT_REQUESTS = {
    "note": "note: the keeper's lamp flickers",
    "local_edit": "redo the lighting on shot 3",
    "narrative": "a 6-shot short drama about a lighthouse keeper",
    "web": "a website for a bakery",
    "slides": "a 4-slide lecture deck on lighthouses",
    "unrecognised": "do something unusual",
}


def schema_bytes_by_grant(runtime: Runtime) -> dict[str, dict[str, int]]:
    """Bytes of the tool schemas the model is offered under the default grant of typical requests.

    ``skill_only`` counts the tools the grant lends to its skills without offering them (not in the bytes).
    """
    from nodes.propose import tool_schemas

    sizes = {}
    for name, request in GRANT_REQUESTS.items():
        grant = runtime.grant_for(request)
        schemas = tool_schemas(runtime.turn_context, grant)
        sizes[name] = {"tools": len(schemas), "skill_only": len(grant.skill_only_tools),
                       "schema_bytes": len(json.dumps(schemas))}
    return sizes


class _BareInput(TypedDict, total=False):
    step: int
    supersteps: int


class BareGraph:
    """A no-op LangGraph graph with the same SQLite checkpointer (WAL) as a turn: the floor any turn loop pays."""

    def __init__(self, folder: Path, synchronous: str = "FULL") -> None:
        self._connection = sqlite3.connect(str(folder / f"bare-{synchronous}.sqlite"), check_same_thread=False)
        self._connection.execute("PRAGMA journal_mode=WAL")
        # FULL: SQLite's default, a plain SqliteSaver's; NORMAL: what the turn's own checkpointer sets
        # (graphs/checkpointer.py), no wait for the disk on each checkpoint.
        self._connection.execute(f"PRAGMA synchronous={'NORMAL' if synchronous == 'NORMAL' else 'FULL'}")
        saver = SqliteSaver(self._connection)
        saver.setup()
        graph = StateGraph(_BareInput)
        graph.add_node("tick", lambda state: {"step": state.get("step", 0) + 1})
        graph.add_edge(START, "tick")
        graph.add_conditional_edges("tick", lambda state: END if state["step"] >= state["supersteps"] else "tick",
                                    ["tick", END])
        self._graph = graph.compile(checkpointer=saver)
        self._runs = 0

    def run(self, supersteps: int) -> float:
        """One run of ``supersteps`` supersteps on a new thread: its wall time in ms."""
        self._runs += 1
        started = time.perf_counter()
        self._graph.invoke({"step": 0, "supersteps": supersteps},
                           {"configurable": {"thread_id": f"bare-{self._runs}"}, "recursion_limit": 1000})
        return (time.perf_counter() - started) * 1000

    def close(self) -> None:
        self._connection.close()


def bare_graph_ms(folder: Path, supersteps: int) -> float:
    """Median wall time of a no-op LangGraph graph with the same SQLite checkpointer and superstep count."""
    bare = BareGraph(folder)
    try:
        return statistics.median(bare.run(supersteps) for _ in range(TURNS))
    finally:
        bare.close()


def measure_size(folder: Path, planner: RecordingPlanner, runtime: Runtime, nodes: int) -> dict[str, Any]:
    """Every figure of one canvas size (the canvas grows to ``nodes`` first), with the bare graph measured
    right after the turns, so that both see the same load on this shared machine."""
    grow(runtime, nodes)
    (folder / f"bare-{nodes}").mkdir()
    paired, paired_normal = BareGraph(folder / f"bare-{nodes}"), BareGraph(folder / f"bare-{nodes}", "NORMAL")
    with counting_bolt() as counter:
        note = measure_turns(runtime, counter, planner, "note: the keeper's lamp flickers", paired, paired_normal)
        repair = measure_turns(runtime, counter, planner, "redo the lighting on shot 3")
        validation = measure_validation(runtime, counter)
    paired.close()
    paired_normal.close()
    supersteps = 9 * note["actions_per_turn"] + 1  # begin, then observe, resolve … record per action
    (folder / f"bare-{nodes}-after").mkdir()
    bare = bare_graph_ms(folder / f"bare-{nodes}-after", int(supersteps))
    return {
        "canvas_nodes": sum(runtime.project.store.count_nodes().values()),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "note_turn": note,
        "repair_turn": repair,
        "validation": validation,
        "bare_graph": {"supersteps": supersteps, "wall_ms": round(bare, 1),
                       "note_turn_ratio": round(note["wall_ms_per_turn"] / bare, 2),
                       # Each note turn over the bare graph run just after it (the figure to read under load).
                       "paired_note_turn_ratio": note["bare_graph_ratio"],
                       # The same in CPU time (the turn's process and engine against the bare graph's process).
                       "paired_note_turn_cpu_ratio": note["bare_graph_cpu_ratio"],
                       # Against the bare graph with the turn's own checkpointer pragmas (synchronous=NORMAL).
                       "paired_note_turn_ratio_same_pragmas": note["bare_graph_normal_ratio"]},
    }


def main() -> None:
    """``python bench/turn.py [NODES ...]``: the figures at each canvas size (default 1k and 10k nodes), one
    project grown from one size to the next."""
    sizes = [int(arg) for arg in sys.argv[1:]] or list(CANVAS_SIZES)
    folder = Path(tempfile.mkdtemp(prefix="jarvishub-turn-"))
    project = Project.init(folder / "p")
    planner = RecordingPlanner()
    runtime = Runtime(project, model=planner, evaluate_generations=False)
    build = runtime.run(f"a {SHOTS}-shot short drama about a lighthouse keeper and a message in a bottle")
    assert build.outcome == "replied", build.reply
    by_size = {str(size): measure_size(folder, planner, runtime, size) for size in sorted(sizes)}
    grants = schema_bytes_by_grant(runtime)
    runtime.close()
    project.close()
    print(json.dumps({"sizes": by_size, "default_grant_schemas": grants}, indent=2))


if __name__ == "__main__":
    main()
