"""Making an earlier version current again, and rebuilding what was made from the output, in one batch.

A restore never rewinds a node.  It makes a **new version** (``VERSION_OF`` the current head) that holds the
earlier version's content, artifact handle included, and supersedes the head, so history only grows, the
restored version is the head of its lineage like any other new version, and a restore can itself be undone
(docs/versions.md says why).  A node edited in place (a note, a shot's inputs) gets its earlier content back
in place instead, as a new state of its node history.

What was generated from the output (a clip from the image, the cut from the clip) is rebuilt with the tool
that made it, on the restored version (:func:`tools.recovery.regenerate_node`), through the signature
cache: a combination generated before comes back with no provider call.  Outputs made by tools that are not
generation tools (a page's preview and file) get the counterpart made from the restored version back, copied
the same way; with no counterpart they are marked stale, and the observation says so.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from store.base import CanvasReader
from store.errors import NodeNotFound
from store.models import CanvasNode, Direction, EdgeType, NodeStatus, new_id
from store.mutations import CreateNode, Link, SetStatus, UpdateNode
from tools.base import ToolContext, ToolError, ToolResult
from tools.native import files
from tools.recovery import dependency_order, pending_context, regenerate_node
from tools.staleness import REGENERABLE_TOOLS, stale_sets
from tools.versions import current_versions

READ_KEYS = ("source_node_id", "edit_node_id")
"""Inputs that name one node a generation reads (``references`` and ``clip_node_ids`` name several)."""


def read_ids(inputs: dict[str, Any]) -> list[str]:
    """The nodes a generated node's inputs say it was made from (references, source, edit base, clips)."""
    ids = [str(r["node_id"]) for r in inputs.get("references") or [] if isinstance(r, dict) and r.get("node_id")]
    ids += [str(inputs[k]) for k in READ_KEYS if inputs.get(k)]
    ids += [str(i) for i in inputs.get("clip_node_ids") or []]
    return ids


def remap_inputs(inputs: dict[str, Any], remap: dict[str, str]) -> dict[str, Any]:
    """``inputs`` with every node it names replaced by its stand-in in ``remap`` (a restored copy)."""
    out = dict(inputs)
    if out.get("references"):
        out["references"] = [{**r, "node_id": remap.get(r.get("node_id"), r.get("node_id"))} if isinstance(r, dict)
                             else r for r in out["references"]]
    for key in READ_KEYS:
        if out.get(key):
            out[key] = remap.get(out[key], out[key])
    if out.get("clip_node_ids"):
        out["clip_node_ids"] = [remap.get(i, i) for i in out["clip_node_ids"]]
    return out


def input_heads(canvas: CanvasReader, state: CanvasNode) -> list[tuple[CanvasNode, CanvasNode]]:
    """(input, its current version) for each node ``state`` was made from that is no longer its output's
    current version."""
    ids = list(dict.fromkeys(read_ids(state.inputs)))
    if not ids:
        return []
    try:
        nodes = canvas.get_nodes(ids)
    except NodeNotFound:
        return []  # an input deleted since: nothing current to compare with, the copy names it as it was
    heads = current_versions(canvas, nodes)
    return [(node, heads[node.id]) for node in nodes if heads[node.id].id != node.id]


def outdated_inputs(canvas: CanvasReader, state: CanvasNode) -> list[tuple[CanvasNode, CanvasNode]]:
    """(input, its current version) for each node ``state`` was made from whose output now holds other content."""
    return [(node, head) for node, head in input_heads(canvas, state) if _held(head) != _held(node)]


def inputs_to_restore(canvas: CanvasReader, state: CanvasNode) -> list[CanvasNode]:
    """The current versions a restore of ``state`` supersedes upstream (:meth:`VersionBatch._restore_inputs`),
    transitively: what a grant for the restore must let it write."""
    found: dict[str, CanvasNode] = {}
    pending = [state]
    while pending:
        for made_from, head in outdated_inputs(canvas, pending.pop()):
            if head.id not in found:
                found[head.id] = head
                pending.append(made_from)
    return list(found.values())


def _held(node: CanvasNode) -> tuple[Any, ...]:
    """What a version holds: its artifacts, or (without one) its inputs."""
    return tuple(h.sha256 for h in node.outputs) or (json.dumps(node.inputs, sort_keys=True, default=str),)


class VersionBatch:
    """The mutations of one version operation, built step by step, with what it spent and what it did.

    ``remap`` maps every node the batch replaced (and every earlier state it copied) to the node that now
    stands for it, so later steps (a clip rebuilt on a restored image, a cut on that clip) build on the new ones.
    """

    def __init__(self, ctx: ToolContext, canvas: CanvasReader, reason: str) -> None:
        self.ctx = ctx
        self.canvas = canvas
        self.reason = reason
        self.mutations: list[Any] = []
        self.remap: dict[str, str] = {}
        self.changed: list[str] = []
        """Ids of nodes this batch replaced by new versions (what was made from them is rebuilt on those)."""
        self.settled: set[str] = set()
        """Ids of nodes this batch sets aside or otherwise decides itself (nothing is rebuilt on them)."""
        self.updated: list[str] = []
        """Ids of nodes this batch changes in place (what was made from them is marked stale)."""
        self.provider_calls = 0
        self.cache_hits = 0
        self.rebuilt: list[dict[str, Any]] = []
        self.stale: list[str] = []
        self.restored_inputs: list[dict[str, Any]] = []

    # -- one output ----------------------------------------------------------------------------------
    def copy_version(self, state: CanvasNode, head: CanvasNode | None, *, restored: dict[str, Any]) -> str:
        """A new version holding ``state``'s content and artifact, ``VERSION_OF`` ``head``, which it supersedes.

        ``state`` keeps its tool in its provenance (a restored image is still regenerable by
        ``generate_image``); ``metadata.restored`` says which version it restores and why.
        """
        self._restore_inputs(state)
        copy_id = new_id()
        # An input whose current version holds the same content (a restored copy of it) is named by that
        # version: what is current is made from what is current, never from a version set aside.
        remap = {**{node.id: head.id for node, head in input_heads(self.canvas, state)
                    if _held(head) == _held(node)}, **self.remap}
        inputs = remap_inputs(state.inputs, remap)
        if isinstance(inputs.get("intent"), dict) and "relative" in inputs["intent"]:
            # 'warmer than the version before' was asked of the earlier version against its own predecessor.
            inputs["intent"] = {k: v for k, v in inputs["intent"].items() if k != "relative"}
        provenance = {**state.metadata.get("provenance", {}), "actor": self.ctx.actor, "turn_id": self.ctx.turn_id,
                      "thread_id": self.ctx.thread_id}
        metadata = {k: v for k, v in state.metadata.items()
                    if k not in ("status_reason", "created_by", "restored", "replaced")}
        metadata.update(provenance=provenance, cache_hit=True,
                        restored={"from": state.id, "from_node_version": state.version, "reason": self.reason,
                                  **restored})
        metadata.update(self._write_back(state))
        group = head.group_id if head is not None else state.group_id
        self.mutations.append(CreateNode(id=copy_id, kind=state.kind, title=state.title, status=NodeStatus.COMPLETED,
                                         group_id=group, inputs=inputs, outputs=list(state.outputs),
                                         metadata=metadata))
        for link in self.canvas.neighbours(state.id, [EdgeType.REFERENCES, EdgeType.GENERATED_FROM], Direction.OUT):
            target = remap.get(link.node.id, link.node.id)
            if target != copy_id:
                self.mutations.append(Link(type=link.edge.type, source=copy_id, target=target,
                                           properties=link.edge.properties))
        self.remap[state.id] = copy_id
        if head is not None:
            self.mutations.append(Link(type=EdgeType.VERSION_OF, source=copy_id, target=head.id))
            self.supersede(head, copy_id)
        return copy_id

    def _write_back(self, state: CanvasNode) -> dict[str, Any]:
        """A workspace file's version restored puts its bytes back in the workspace (as ``write_file`` would),
        so the workspace holds what the canvas says is current; ``replaced`` lets a refused batch take the write
        back (``tools.native.files.take_back_refused``)."""
        path = state.inputs.get("path")
        if state.kind != "file" or not isinstance(path, str) or not state.outputs:
            return {}
        handle = state.outputs[0]
        written = files.write_file(self.ctx.workspace, path, self.ctx.artifacts.read_bytes(handle),
                                   self.ctx.artifacts, handle.mime)
        return {"replaced": written.replaced.model_dump(mode="json")} if written.replaced else {}

    def _restore_inputs(self, state: CanvasNode) -> None:
        """Bring back, first, the inputs ``state`` was made from whose outputs have changed since.

        A clip restored to its original is the original clip only with the original image as its source; a
        cut restored to an earlier version names the clips it had.  An input whose current version holds the
        same artifact (restored before) is named by that version (``copy_version``); one that changed is restored
        too, so what is current is always made from what is current (one current version per output, and the cut
        of current clips).
        """
        for made_from, head in outdated_inputs(self.canvas, state):
            if made_from.id in self.remap or head.id in self.remap:
                continue
            self.copy_version(made_from, head, restored={"as_input_of": state.id})
            self.restored_inputs.append({"output": made_from.title or made_from.id, "node_id": self.remap[made_from.id],
                                         "content_of": made_from.id, "for": state.title or state.id})

    def supersede(self, head: CanvasNode, by: str) -> None:
        """Set ``head`` aside for ``by``, only if it is still the version read (else the commit is refused)."""
        self.mutations.append(SetStatus(node_id=head.id, status=NodeStatus.REJECTED,
                                        reason=f"superseded by {by} ({self.reason})", expected_version=head.version))
        self.remap[head.id] = by
        self.changed.append(head.id)

    def update_in_place(self, state: CanvasNode, node: CanvasNode, *, status: NodeStatus | None = None,
                        restored: dict[str, Any]) -> None:
        """Give a node edited in place its earlier content back (title, inputs, outputs), as a new state."""
        self.mutations.append(UpdateNode(
            node_id=node.id, title=state.title, inputs=state.inputs, outputs=list(state.outputs), status=status,
            expected_version=node.version,
            metadata_patch={"restored": {"from": state.id, "from_node_version": state.version,
                                         "reason": self.reason, **restored}}))
        self.updated.append(node.id)

    def regenerate(self, node: CanvasNode, override: dict[str, Any], *, remade_edges: str | None = None) -> str:
        """A new version of ``node`` by the generation tool that made it, with ``override`` on its inputs.

        Edges the old version was made from are carried over to the new one unless the tool remakes them;
        ``remade_edges`` names the ``as`` of edges the override replaces (``"clip"`` for a cut whose clips
        change: a clip taken out must not stay linked).
        """
        made_from = [n for n in self.canvas.neighbours(node.id, [EdgeType.GENERATED_FROM], Direction.OUT)
                     if remade_edges is None or n.edge.properties.get("as") != remade_edges]
        result = regenerate_node(self.ctx, self.canvas, node, self.remap, override, self.mutations, made_from)
        if result is None:
            raise ToolError(f"{node.title or node.id} was not made by a generation tool "
                            f"({node.provenance.tool}), so it cannot be remade with other inputs")
        if "error" in result.observation:
            raise ToolError(f"could not remake {node.title or node.id}: {result.observation['error']}")
        self.provider_calls += result.provider_calls
        self.cache_hits += result.cache_hits
        self.changed.append(node.id)
        new = str(result.observation["node_id"])
        self.rebuilt.append({"old": node.id, "new": new, "title": node.title, "kind": node.kind,
                             "sha256": result.observation.get("sha256"),
                             "cache_hit": result.observation.get("cache_hit")})
        return new

    def generate(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run a generation tool for a node that is not a version of another (a new shot's image), reading the
        canvas as this batch leaves it; its mutations join the batch.  Returns its observation."""
        registry = self.ctx.services.get("tool_registry")
        spec = registry.get(tool) if registry is not None else None
        if spec is None:
            raise ToolError(f"{tool} is not registered in this project; it is needed to make the new node")
        try:
            validated = spec.args_schema.model_validate(args)
        except ValidationError as error:  # stored inputs anyone may have edited: a step error, nothing written
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors()[:3])
            raise ToolError(f"{tool} cannot remake this node from its stored inputs ({problems})") from error
        result = spec.run(pending_context(self.ctx, self.canvas, self.mutations), validated)
        if "error" in result.observation:
            raise ToolError(f"{tool} failed: {result.observation['error']}")
        self.mutations.extend(result.mutations)
        self.provider_calls += result.provider_calls
        self.cache_hits += result.cache_hits
        self.rebuilt.append({"new": result.observation["node_id"], "title": args.get("title"), "tool": tool,
                             "sha256": result.observation.get("sha256"),
                             "cache_hit": result.observation.get("cache_hit")})
        return result.observation

    # -- what follows from it ---------------------------------------------------------------------------
    def rebuild_derived(self, copies: dict[str, CanvasNode] | None = None) -> None:
        """Rebuild what was generated from the nodes this batch replaced, on their new versions.

        A node made by a generation tool that reads a replaced node (its references, source image, clips) is
        regenerated, in dependency order, through the cache.  A node made from a replaced output by another
        tool (a page's preview) gets the counterpart made from the restored state (``copies``: replaced head
        id -> the state that replaced it) copied back, or is marked stale when there is none.  What was made
        from a node changed in place is marked stale (a generation tool would read the node as committed, not
        as this batch leaves it): ``regenerate_stale`` rebuilds it.
        """
        if self.changed:
            found = stale_sets(self.canvas, list(dict.fromkeys(self.changed)))
            candidates = {n.id: n for members in found.values() for n in members[1:]
                          if n.id not in self.remap and n.id not in self.settled}
            for node in dependency_order(self.canvas, self._heads(list(candidates.values()))):
                if set(read_ids(node.inputs)) & set(self.remap):
                    self.regenerate(node, {})
        for head_id, state in (copies or {}).items():
            self._follow_other_tools(head_id, state)
        if self.updated:
            self._mark_made_from_updated()

    def _mark_made_from_updated(self) -> None:
        found = stale_sets(self.canvas, list(dict.fromkeys(self.updated)))
        derived = {n.id: n for members in found.values() for n in members[1:]
                   if n.id not in self.remap and n.id not in self.settled}
        other = self.canvas.neighbours_of(list(dict.fromkeys(self.updated)), [EdgeType.GENERATED_FROM], Direction.IN)
        derived |= {n.node.id: n.node for found_here in other.values() for n in found_here
                    if n.node.outputs and n.node.status != NodeStatus.REJECTED and n.node.id not in self.remap
                    and n.node.id not in self.settled}
        for node in self._heads([n for n in derived.values() if n.id not in self.updated]):
            if node.status != NodeStatus.STALE:
                self.mutations.append(SetStatus(node_id=node.id, status=NodeStatus.STALE,
                                                reason=f"made from a node that {self.reason} changed"))
            self.stale.append(node.id)

    def _heads(self, nodes: list[CanvasNode]) -> list[CanvasNode]:
        """Those of ``nodes`` that are the current version of their output (no live newer version)."""
        if not nodes:
            return []
        newer = self.canvas.lineages([n.id for n in nodes], [EdgeType.VERSION_OF], Direction.IN)
        return [n for n in nodes if not any(e.node.status != NodeStatus.REJECTED for e in newer.get(n.id, []))]

    def _follow_other_tools(self, head_id: str, state: CanvasNode) -> None:
        made = [n.node for n in self.canvas.neighbours(head_id, [EdgeType.GENERATED_FROM], Direction.IN)
                if n.node.outputs and n.node.status != NodeStatus.REJECTED and n.node.id not in self.remap
                and n.node.id not in self.settled and n.node.provenance.tool not in REGENERABLE_TOOLS]
        if not made:
            return
        then = [n.node for n in self.canvas.neighbours(state.id, [EdgeType.GENERATED_FROM], Direction.IN)]
        for node in self._heads(made):
            twins = [t for t in then if t.kind == node.kind and t.provenance.tool == node.provenance.tool]
            if twins:
                twin = max(twins, key=lambda t: (t.created_at, t.id))
                new = self.copy_version(twin, node, restored={"with": self.remap.get(head_id)})
                self.rebuilt.append({"old": node.id, "new": new, "title": node.title, "kind": node.kind,
                                     "copied_from": twin.id})
            else:
                self.mutations.append(SetStatus(node_id=node.id, status=NodeStatus.STALE,
                                                reason=f"made from a version that {self.reason} replaced"))
                self.stale.append(node.id)

    def result(self, observation: dict[str, Any]) -> ToolResult:
        """The tool result: the batch, what it spent, and what it did."""
        body = {**observation, "rebuilt": self.rebuilt, "provider_calls": self.provider_calls}
        if self.restored_inputs:
            body["restored_inputs"] = self.restored_inputs
        if self.stale:
            body["stale"] = self.stale
            body["not_rebuilt"] = (f"{len(self.stale)} node(s) made from what changed were marked stale; "
                                   "regenerate_stale with their ids rebuilds them")
        return ToolResult(observation=body, mutations=self.mutations, provider_calls=self.provider_calls,
                          cache_hits=self.cache_hits)
