"""Random actions under random grants, and an oracle that reads the canvas to find any change outside a grant.

Shared by ``tests/bridge/test_grant_property.py`` (a bounded run in the suite) and ``bench/grant_property.py``
(the full count).  Every tool of the manifest is called with arguments generated from its own JSON schema in
every form the schema allows: ids alone, ids mixed with other fields, edge ids (live, removed, never seen) with
or without endpoints, node ids in lists, in dictionary keys (``regenerate_stale``'s overrides) and in free-form
objects, optional fields present or absent, and a few values that are not ids at all.

The oracle does not ask the bridge.  Before and after each action it reads every canvas node (deleted ones
too) and every edge, and works out which existing nodes the action wrote: a node whose fields changed, the
source of an edge added or removed (and its target for ``VERSION_OF`` and ``IN_GROUP``), and a node whose
currency flipped (current = live and not superseded by a live newer version).  Each written node must be inside
the grant's scope (ids, groups, descendants of roots, all as the canvas stood before the action) and of a kind
the grant allows; an action outside its grant structurally (tool, revoked, budget) must change nothing at all.
"""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nodes.actions import CanvasMutation, ToolCall
from nodes.bridge import Usage
from nodes.grant import Budget, Grant, Scope
from store.models import EdgeType, NodeStatus, new_id
from store.mutations import CreateNode, GroupNodes, Link
from tools.base import Effect

LINEAGE_EDGES = {"GENERATED_FROM", "REFERENCES", "VERSION_OF", "IN_GROUP"}
TARGET_WRITING = {"VERSION_OF", "IN_GROUP"}
ID_KEYS = {"node_id", "source", "target", "group_id", "version_of", "code_id"}
CHEAP_TEXT = ["x", "shot 1", "night", "a pier at dawn", "", "Ω", "01M8ZZZZZZZZZZZZZZZZZZZZZZ"]
QUERIES = [
    "MATCH (n:CanvasNode) RETURN n.id AS id LIMIT 5",
    "MATCH (n:CanvasNode) SET n.title = 'owned' RETURN n",
    "CREATE (n:CanvasNode {id: 'evil', kind: 'text'}) RETURN n",
    "MATCH (n) DETACH DELETE n",
    "MERGE (n:Evil {x: 1}) RETURN n",
    "MATCH ()-[r]->() DELETE r",
]
ATTACK_CODE = """
import json, socket
for path in {paths!r}:
    try:
        json.load(open(path))
    except OSError:
        pass
for port in {ports!r}:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).sendall(b"CREATE (n:Evil)")
    except OSError:
        pass
print("tried")
"""
"""Agent code that goes for the engine: its secrets file, then its ports (every attempt fails in the sandbox)."""
HEAVY = {"skill__storyboard", "skill__reference_images", "skill__video_clips", "skill__explore",
         "skill__design_to_web", "skill__web_revise", "skill__slides", "skill__critique", "render_page",
         "build_slides", "generate_video", "assemble_cut", "run_code", "restore_checkpoint", "regenerate_stale"}
"""Tools that take a second or more (Chromium, ffmpeg, a sandbox, a skill's many steps): drawn less often, with
every tool whose effects say it is long-running (a page tool renders a preview per version)."""
SMALL_INTS = {"n": (1, 2), "n_shots": (1, 2), "n_layouts": (1, 1), "n_slides": (2, 3), "width": (64, 96),
              "height": (64, 96), "fps": (1, 4), "seed": (0, 3), "limit": (1, 20), "max_depth": (1, 3)}


@dataclass
class CanvasState:
    """Every node (deleted too) and every live edge, as the oracle reads them."""

    nodes: dict[str, Any]
    edges: dict[str, tuple[str, str, str]]

    @classmethod
    def read(cls, store: Any) -> CanvasState:
        """Read the whole canvas (two statements)."""
        nodes = {n.id: n for n in store.find_nodes(include_deleted=True)}
        edges = {e.id: (e.type.value, e.source, e.target) for e in store.edges()}
        return cls(nodes, edges)

    def live(self, node_id: str) -> bool:
        node = self.nodes.get(node_id)
        return node is not None and not node.deleted and node.status.value != "rejected"

    def current(self) -> set[str]:
        """Live nodes no live newer version supersedes (through any chain of VERSION_OF edges)."""
        older: dict[str, list[str]] = {}
        for kind, source, target in self.edges.values():
            if kind == "VERSION_OF":
                older.setdefault(source, []).append(target)
        superseded: set[str] = set()
        for node_id in self.nodes:
            if not self.live(node_id):
                continue
            frontier = list(older.get(node_id, []))
            while frontier:
                below = frontier.pop()
                if below not in superseded:
                    superseded.add(below)
                    frontier.extend(older.get(below, []))
        return {i for i in self.nodes if self.live(i) and i not in superseded}

    def scoped(self, scope: Scope) -> set[str] | None:
        """The existing nodes inside ``scope`` on this canvas (None: every node).

        Ids the scope names, members of its groups, its roots and every node with a path of lineage edges
        (GENERATED_FROM, REFERENCES, VERSION_OF, IN_GROUP) up to a live root, found by walking down from the
        roots (deleted nodes are never inside unless named).
        """
        if scope.all_nodes:
            return None
        inside = set(scope.node_ids)
        inside |= {i for i, n in self.nodes.items() if not n.deleted and (
            i in scope.group_ids or (n.group_id and n.group_id in scope.group_ids) or i in scope.descendants_of)}
        below: dict[str, list[str]] = {}
        for kind, source, target in self.edges.values():
            if kind in LINEAGE_EDGES:
                below.setdefault(target, []).append(source)
        frontier = [r for r in scope.descendants_of if r in self.nodes and not self.nodes[r].deleted]
        seen = set(frontier)
        while frontier:
            for made in below.get(frontier.pop(), []):
                if made not in seen:
                    seen.add(made)
                    frontier.append(made)
                    if not self.nodes[made].deleted:
                        inside.add(made)
        return inside


def written(before: CanvasState, after: CanvasState) -> tuple[set[str], set[str]]:
    """(existing nodes the change wrote, nodes it created), from two readings of the canvas."""
    wrote: set[str] = set()
    created = set(after.nodes) - set(before.nodes)
    for node_id, old in before.nodes.items():
        new = after.nodes.get(node_id)
        if new is None or (new.version, new.deleted, new.status, new.group_id) != (
                old.version, old.deleted, old.status, old.group_id):
            wrote.add(node_id)
    for edge_id in set(before.edges) ^ set(after.edges):
        kind, source, target = before.edges.get(edge_id) or after.edges[edge_id]
        wrote.add(source)
        if kind in TARGET_WRITING:
            wrote.add(target)
    wrote |= (before.current() ^ after.current()) - created
    return wrote - created, created


@dataclass
class Fuzz:
    """A runtime, its project and the pools arguments are drawn from; :meth:`one` submits one random action."""

    runtime: Any
    project: Any
    attack_code: str
    stats: dict[str, Any] = field(default_factory=lambda: {
        "actions": 0, "structurally_outside": 0, "executed": 0, "committed": 0, "refused": 0,
        "out_of_grant_changes": 0, "committed_by_tool": {}, "arg_forms": 0})
    violations: list[dict[str, Any]] = field(default_factory=list)
    _counter: Any = field(default_factory=itertools.count)
    state: CanvasState | None = None
    near: list[str] | None = None
    removed_edges: list[str] = field(default_factory=list)

    @classmethod
    def on(cls, runtime: Any, project: Any) -> Fuzz:
        """A fuzzer on a runtime whose canvas :func:`seed_canvas` filled."""
        engine_files = [str(p) for p in project.state_dir.rglob("engine.json")]
        ports = [int(v) for f in engine_files for k, v in json.loads(Path(f).read_text()).items()
                 if k.endswith("_port") and isinstance(v, int)]
        return cls(runtime, project, ATTACK_CODE.format(paths=engine_files, ports=ports))

    # -- arguments from each tool's schema ------------------------------------------------------------
    def node_id(self, rnd: random.Random) -> str:
        assert self.state is not None
        pick = rnd.random()
        if self.near and pick < 0.5:
            return rnd.choice(self.near)
        if pick < 0.9:
            return rnd.choice(list(self.state.nodes))
        return new_id() if pick < 0.95 else rnd.choice(list(self.state.edges) or [new_id()])  # an edge id as a node

    def edge_id(self, rnd: random.Random) -> str:
        assert self.state is not None
        pick = rnd.random()
        if pick < 0.8 and self.state.edges:
            return rnd.choice(list(self.state.edges))
        if pick < 0.9 and self.removed_edges:
            return rnd.choice(self.removed_edges)
        return new_id() if pick < 0.95 else rnd.choice(list(self.state.nodes))  # a node id as an edge

    def value(self, rnd: random.Random, name: str, schema: dict[str, Any], defs: dict[str, Any], tool: str) -> Any:
        if "$ref" in schema:
            return self.value(rnd, name, defs[schema["$ref"].split("/")[-1]], defs, tool)
        if "anyOf" in schema:
            options = [o for o in schema["anyOf"] if o.get("type") != "null"]
            if not options or rnd.random() < 0.1:
                return None
            return self.value(rnd, name, rnd.choice(options), defs, tool)
        if "enum" in schema:
            return rnd.choice(schema["enum"])
        kind = schema.get("type")
        if tool == "run_code" and name == "source":
            return self.attack_code if rnd.random() < 0.7 else "import os; print(os.listdir('/'))"
        if name == "cypher":
            return rnd.choice(QUERIES)
        if name == "kind":
            return rnd.choice(["text", "image", "shot", "group", "plan", "code", "nonsense"])
        if name in ("html", "path") and tool in ("render_page", "read_file", "write_file", "list_files"):
            return rnd.choice(["<h1>hi</h1>", "x.txt", "page.html", "../escape.txt", "."])
        if name.endswith("edge_id"):
            return self.edge_id(rnd)
        if name.endswith("edge_ids"):
            return [self.edge_id(rnd) for _ in range(rnd.randrange(1, 3))]
        if kind == "string":
            if name in ID_KEYS or name.endswith("_id"):
                return self.node_id(rnd)
            return rnd.choice(CHEAP_TEXT)
        if kind == "array":
            item = schema.get("items") or {}
            low, high = int(schema.get("minItems", 0)), min(int(schema.get("maxItems", 3)), 3)
            count = rnd.randint(low, max(low, high))
            if name.endswith("_ids") or name == "references":
                return [self.node_id(rnd) for _ in range(count)]
            if name == "inputs":  # run_code's workspace inputs: a FIFO, a way out, a file outside
                return [rnd.choice(["x.txt", "fifo", "..", "/etc/passwd"]) for _ in range(count)]
            return [self.value(rnd, name, item, defs, tool) for _ in range(count)]
        if kind == "object":
            props = schema.get("properties")
            if props:
                return self.args_for(rnd, schema, defs, tool)
            # A free-form object: keys and values may be node ids (overrides: node id -> input changes).
            inner = schema.get("additionalProperties")
            out: dict[str, Any] = {}
            for _ in range(rnd.randrange(0, 3)):
                key = self.node_id(rnd) if rnd.random() < 0.6 else rnd.choice(["lighting", "prompt", "palette"])
                out[key] = (self.value(rnd, "", inner, defs, tool) if isinstance(inner, dict) and inner
                            else rnd.choice(["night", self.node_id(rnd), 3, True]))
            return out
        if kind == "integer":
            low, high = SMALL_INTS.get(name, (int(schema.get("minimum", 0)), min(int(schema.get("maximum", 5)), 5)))
            return rnd.randint(low, max(low, high))
        if kind == "number":
            if name in ("timeout_s",):
                return rnd.choice([5.0, 600.0])
            return round(rnd.uniform(0.1, 1.0), 2)
        if kind == "boolean":
            return rnd.random() < 0.5
        return rnd.choice(CHEAP_TEXT)

    def args_for(self, rnd: random.Random, schema: dict[str, Any], defs: dict[str, Any], tool: str) -> dict[str, Any]:
        """Arguments for one object schema: required fields always, each optional one half the time."""
        required = set(schema.get("required") or [])
        args: dict[str, Any] = {}
        for name, prop in (schema.get("properties") or {}).items():
            if name in required or rnd.random() < 0.5:
                args[name] = self.value(rnd, name, prop, defs, tool)
        if rnd.random() < 0.05:
            args[rnd.choice(["node_id", "edge_id", "extra"])] = self.node_id(rnd)  # a field the schema lacks
        return args

    def tool_args(self, rnd: random.Random, tool: str) -> dict[str, Any]:
        schema = self.runtime.registry.get(tool).json_schema()
        self.stats["arg_forms"] += 1
        return self.args_for(rnd, schema, schema.get("$defs") or {}, tool)

    # -- grants ---------------------------------------------------------------------------------------
    def grant(self, rnd: random.Random, tools: list[str], tool: str) -> Grant:
        """A random grant; about a third of them leave ``tool`` out (or revoke, or have no budget left)."""
        assert self.state is not None
        ids = list(self.state.nodes)
        groups = [i for i, n in self.state.nodes.items() if n.kind == "group"] or ids
        scope = rnd.choice([
            Scope(),
            Scope(all_nodes=False, node_ids=rnd.sample(ids, min(len(ids), rnd.randrange(1, 4)))),
            Scope(all_nodes=False, descendants_of=rnd.sample(ids, min(len(ids), rnd.randrange(1, 3)))),
            Scope(all_nodes=False, descendants_of=rnd.sample(ids, min(len(ids), rnd.randrange(1, 3)))),
            Scope(all_nodes=False, node_ids=rnd.sample(ids, min(len(ids), 2)),
                  descendants_of=rnd.sample(ids, 1), group_ids=rnd.sample(groups, 1)),
            Scope(all_nodes=False, group_ids=rnd.sample(groups, 1)),
        ])
        kinds = None if rnd.random() < 0.6 else rnd.sample(
            ["text", "image", "video", "shot", "plan", "group", "code", "reference", "audio", "web", "slide",
             "deck", "evaluation", "feedback", "checkpoint", "file"], rnd.randrange(1, 10))
        chosen = None if rnd.random() < 0.5 else rnd.sample(tools, rnd.randrange(0, 8)) + (
            [tool] if rnd.random() < 0.6 else [])
        lent = [] if rnd.random() < 0.8 else rnd.sample(tools, rnd.randrange(1, 4))
        return Grant(id="", tools=chosen, skill_only_tools=lent, node_kinds=kinds, scope=scope,
                     revoked=rnd.random() < 0.03,
                     budget=Budget(tool_calls=0 if rnd.random() < 0.04 else rnd.choice([None, 100]),
                                   generation_calls=rnd.choice([None, 5])))

    # -- one action -----------------------------------------------------------------------------------
    def one(self, rnd: random.Random, *, heavy_share: float = 0.1) -> None:
        """Draw a grant, a tool and arguments; submit; check the canvas against the oracle."""
        if self.state is None:
            self.state = CanvasState.read(self.project.store)
        before = self.state
        tools = self.runtime.manifest.tool_names()
        slow = HEAVY | {t for t in tools if Effect.LONG_RUNNING in self.runtime.registry.get(t).effects}
        light = [t for t in tools if t not in slow]
        heavy = [t for t in tools if t in slow]
        tool = rnd.choice(heavy if heavy and rnd.random() < heavy_share else light)
        grant = self.grant(rnd, tools, tool)
        inside = before.scoped(grant.scope)
        # Half the ids come from inside the scope, so scoped grants commit too and the edges between inside and
        # outside (an in-scope source, an out-of-scope target or edge) are where the draws land.
        self.near = sorted(inside) if inside and rnd.random() < 0.5 else None
        args = self.tool_args(rnd, tool)
        spec = self.runtime.registry.get(tool)
        outside = (grant.revoked or grant.budget.tool_calls == 0 or not grant.allows_tool(tool)
                   or any(not grant.lends_tool(t) for t in spec.requires))
        action = ToolCall(action_id=f"fuzz-{next(self._counter)}-{new_id()}", tool=tool, args=args)
        self.stats["actions"] += 1
        result = self.runtime.bridge.submit(action, grant, Usage(), thread_id="fuzz")
        after = CanvasState.read(self.project.store)
        self.state = after
        self.removed_edges.extend(set(before.edges) - set(after.edges))
        wrote, created = written(before, after)
        problems: list[str] = []
        if outside:
            self.stats["structurally_outside"] += 1
            if wrote or created or result.verdict == "allow":
                problems.append(f"outside the grant ({result.verdict}), wrote {sorted(wrote)} made {sorted(created)}")
        else:
            self.stats["executed"] += 1
            for node_id in sorted(wrote):
                kind = before.nodes[node_id].kind
                if inside is not None and node_id not in inside:
                    problems.append(f"wrote {node_id} ({kind}) outside the scope")
                elif grant.node_kinds is not None and kind not in grant.node_kinds:
                    problems.append(f"wrote {node_id}, a {kind}, not a granted kind")
            if grant.node_kinds is not None:
                problems += [f"created a {after.nodes[i].kind}, not a granted kind" for i in sorted(created)
                             if after.nodes[i].kind not in grant.node_kinds]
        if wrote or created:
            self.stats["committed"] += 1
            by_tool = self.stats["committed_by_tool"]
            by_tool[tool] = by_tool.get(tool, 0) + 1
        elif result.verdict != "allow":
            self.stats["refused"] += 1
            reasons = self.stats.setdefault("refusals", {})
            reasons[result.reason or "?"] = reasons.get(result.reason or "?", 0) + 1
        if problems:
            self.stats["out_of_grant_changes"] += len(problems)
            self.violations.append({"tool": tool, "args": args, "grant": grant.model_dump(mode="json"),
                                    "verdict": result.verdict, "message": result.message, "problems": problems})


def seed_canvas(runtime: Any) -> None:
    """A canvas with every shape the grants and tools care about: a 2-shot film (plan, shots, references,
    images, clips, a cut, CONTINUES), a relit shot (a version lineage), a group, a rejected newer version over
    a live one, and a note."""
    for request in ("a 2-shot short drama about a lighthouse keeper who finds a message in a bottle",
                    "keep the character but redo the lighting on shot 1", "note: a reminder"):
        outcome = runtime.run(request)
        assert outcome.outcome in ("replied",), (request, outcome.outcome, outcome.reply)
    store = runtime.project.store
    image = next(n for n in store.find_nodes(kind="image") if n.status.value != "rejected")
    aside = CreateNode(kind="image", title="a set-aside take", status=NodeStatus.REJECTED)
    group = CreateNode(kind="group", title="notes")
    note = next(iter(store.find_nodes(kind="text")))
    done = runtime.bridge.submit(CanvasMutation(action_id="fuzz-seed", mutations=[
        aside, Link(type=EdgeType.VERSION_OF, source=aside.id, target=image.id),
        group, GroupNodes(group_id=group.id, node_ids=[note.id])]), Grant(id=""), Usage(), thread_id="fuzz-seed")
    assert done.verdict == "allow", done.message
