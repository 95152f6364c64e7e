"""Property: no action outside its grant ever changes the canvas, for every tool of the manifest.

Over 10,000 generated (tool, arguments, grant) examples: every tool the manifest
lists (canvas, generation, native with ``run_code``, recovery, skills, and
``query_canvas``) is submitted under grants that do or do not allow it.  Actions
outside their grant are submitted in full (they are refused at validation, which
is cheap); a sample of the ones inside is executed for real, ``run_code``
included (with code that attacks the engine) and ``query_canvas`` with writing
Cypher; the rest are validated only.  The canvas must not move between executed
actions, and at the end every commit in the log must belong to an executed
action the oracle put inside its grant.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nodes.actions import ToolCall
from nodes.bridge import Usage
from nodes.grant import Budget, Grant, Scope
from tests.system_tools import missing_system_tool
from tools.native.code import sandbox_status

pytestmark = pytest.mark.long_file(25)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)

EXAMPLES = 10_000
BATCH = 100
CANVAS_TOOLS = ["create_node", "update_node", "set_status", "link_nodes", "move_node", "branch_node", "group_nodes"]
EXECUTED = [*CANVAS_TOOLS, "query_canvas", "run_code", "read_node"]
KINDS = ["text", "image", "video", "plan"]
QUERIES = [
    "MATCH (n:CanvasNode) RETURN n.id AS id",
    "MATCH (n:CanvasNode) SET n.title = 'owned' RETURN n",
    "CREATE (n:CanvasNode {id: 'evil', kind: 'text'}) RETURN n",
    "MATCH (n) DETACH DELETE n",
    "MERGE (n:Evil {x: 1}) RETURN n",
]
ATTACK = """
import json, socket
for path in {paths!r}:
    try:
        info = json.load(open(path))
    except OSError:
        continue
for port in {ports!r}:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).sendall(b"CREATE (n:Evil)")
    except OSError:
        pass
"""
"""Agent code that goes for the engine: its secrets file, then its ports (every attempt fails in the sandbox)."""
_counter = itertools.count()


def test_no_action_outside_its_grant_changes_the_canvas(make_runtime, project):
    runtime = make_runtime()
    store, bridge = project.store, runtime.bridge
    every_tool = runtime.manifest.tool_names()
    assert {"run_code", "query_canvas"} <= set(every_tool) or not sandbox_status().available
    # Without bubblewrap run_code is not in the manifest: the property holds for every other tool, and the test
    # ends skipped (failed in CI) saying what was left out.
    sandboxed = "run_code" in every_tool
    executed = [t for t in EXECUTED if t in every_tool]
    seeds = []
    for i, kind in enumerate(KINDS):
        result = bridge.submit(
            ToolCall(action_id=f"prop-seed-{i}", tool="create_node", args={"kind": kind, "title": f"seed {i}"}),
            runtime.grant_for("seed"), Usage(), thread_id="prop")
        seeds.append((result.observation["created"], kind))
    ids = [s[0] for s in seeds]
    kind_of = dict(seeds)
    engine_files = [str(p) for p in project.state_dir.rglob("engine.json")]
    ports = [int(v) for f in engine_files for k, v in json.loads(Path(f).read_text()).items() if k.endswith("_port")]
    attack = ATTACK.format(paths=engine_files, ports=ports)
    start = store.canvas_version()
    seen = {"version": start, "examples": 0, "outside": 0, "executed": 0}
    legit: set[str] = set()
    committed: list[str] = []

    def args_for(tool: str, kind: str, a: str, b: str, status: str, pick: int) -> dict[str, Any]:
        table: dict[str, dict[str, Any]] = {
            "create_node": {"kind": kind, "title": "x"},
            "update_node": {"node_id": a, "title": "changed"},
            "set_status": {"node_id": a, "status": status},
            "link_nodes": {"type": "REFERENCES", "source": a, "target": b},
            "move_node": {"node_id": a, "x": 1.0, "y": 2.0},
            "branch_node": {"node_id": a},
            "group_nodes": {"node_ids": [a]},
            "query_canvas": {"cypher": QUERIES[pick % len(QUERIES)]},
            "run_code": {"source": attack},
            "read_node": {"node_id": a},
            "generate_image": {"prompt": "a pier", "width": 64, "height": 64},
            "mark_stale": {"node_id": a, "reason": "upstream changed"},
            "create_checkpoint": {"name": "cp"},
            "restore_checkpoint": {"name": "cp"},
            "write_file": {"path": "x.txt", "content": "x"},
            "skill__explore": {"node_id": a},
            "skill__storyboard": {"premise": "a pier at dawn"},
        }
        return table.get(tool, {"node_id": a})

    def outside_structurally(tool: str, grant: Grant) -> bool:
        spec = runtime.registry.get(tool)
        assert spec is not None
        return (grant.revoked or grant.budget.tool_calls == 0 or not grant.allows_tool(tool)
                or any(not grant.lends_tool(t) for t in spec.requires))

    def outside_by_content(tool: str, kind: str, a: str, grant: Grant, scoped: list[str] | None) -> bool:
        if tool in ("query_canvas", "read_node"):
            return True  # read-only: any change it made would be outside every grant
        touched = {"code"} if tool == "run_code" else {kind} if tool == "create_node" else {kind_of[a]}
        if tool == "group_nodes":
            touched.add("group")
        if not touched <= set(grant.node_kinds if grant.node_kinds is not None else touched):
            return True
        # A branch only reads its original (the copy links to it), so scope is checked on what it writes.
        return scoped is not None and tool not in ("create_node", "branch_node", "run_code") and a not in scoped

    def one_action(rnd: random.Random) -> None:
        tool = rnd.choice(every_tool if rnd.random() < 0.5 else executed)
        kind, a, b = rnd.choice(KINDS), rnd.choice(ids), rnd.choice(ids)
        status, pick = rnd.choice(["selected", "rejected", "stale"]), rnd.randrange(10)
        granted_tools = rnd.choice([None, rnd.sample(every_tool, rnd.randrange(9)),
                                    rnd.sample(executed, rnd.randrange(len(executed) + 1))])
        # Tools lent to the grant's skills only: the actor calling one itself is outside its grant.
        skill_only = rnd.choice([[], rnd.sample(every_tool, rnd.randrange(6))])
        granted_kinds = rnd.choice([None, rnd.sample([*KINDS, "group", "code"], rnd.randrange(7))])
        scoped = rnd.choice([None, rnd.sample(ids, rnd.randrange(len(ids) + 1))])
        budget, revoked = rnd.choice([None, 0, 100]), rnd.random() < 0.3
        seen["examples"] += 1
        # An unsaved grant (id "") is taken as given: no grant-store round trip per action.
        grant = Grant(id="", tools=granted_tools, skill_only_tools=skill_only, node_kinds=granted_kinds,
                      revoked=revoked,
                      scope=Scope() if scoped is None else Scope(all_nodes=False, node_ids=scoped),
                      budget=Budget(tool_calls=budget))
        action = ToolCall(action_id=f"prop-{next(_counter)}", tool=tool, args=args_for(tool, kind, a, b, status, pick))
        if outside_structurally(tool, grant):
            seen["outside"] += 1
            result = bridge.submit(action, grant, Usage(), thread_id="prop")
            assert result.verdict == "reject" and result.commit is None, (tool, grant, result)
            return
        if tool not in executed or pick != 0:
            bridge.validate(action, grant, Usage())  # validated only: nothing runs, nothing can be written
            return
        assert store.canvas_version() == seen["version"], "the canvas moved without an executed action"
        seen["executed"] += 1
        result = bridge.submit(action, grant, Usage(), thread_id="prop")
        if outside_by_content(tool, kind, a, grant, scoped):
            assert result.commit is None, (tool, action.args, grant)
        elif result.commit is not None:
            legit.add(action.action_id)
            committed.append(tool)
        seen["version"] = store.canvas_version()

    # Hypothesis draws a seed per example and each example derives a batch of actions from it: drawing every
    # field through Hypothesis costs about a millisecond per action, a seeded generator microseconds.
    @settings(max_examples=EXAMPLES // BATCH, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(seed=st.integers(0, 2**64 - 1))
    def check(seed: int) -> None:
        rnd = random.Random(seed)
        for _ in range(BATCH):
            one_action(rnd)

    check()
    assert store.canvas_version() == seen["version"]
    strays = [c for c in store.commits(since_version=start) if c.action_id not in legit]
    assert strays == [], strays[:3]
    assert seen["examples"] >= EXAMPLES and seen["outside"] > EXAMPLES // 2, seen
    # The oracle is only a lower bound of what is outside; the property is that nothing outside it was
    # ever written, and that the run did exercise real commits of the executed tools.
    assert len(committed) > 20 and {"create_node", *(["run_code"] if sandboxed else [])} <= set(committed), \
        (seen, set(committed))
    if not sandboxed:
        missing_system_tool(f"run_code was left out of the property: {sandbox_status().reason}")
