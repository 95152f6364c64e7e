"""Canvas tools: read and change the canvas graph.  Write tools return mutations; the bridge commits them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from store.base import CanvasReader
from store.models import Direction, EdgeType, NodeStatus, Position, new_id
from store.mutations import CreateNode, GroupNodes, Link, MoveNode, SetStatus, Unlink, UpdateNode
from tools.base import Effect, ToolContext, ToolError, ToolFamily, ToolResult, ToolSpec
from tools.node_inputs import check_inputs_patch
from tools.versions import reinstate_mutations

WRITE = frozenset({Effect.MUTATES_CANVAS})
READ = frozenset({Effect.READ_ONLY})


def node_summary(node: Any) -> dict[str, Any]:
    """The compact JSON form of a node that tools and views show a model."""
    return {
        "id": node.id,
        "kind": node.kind,
        "title": node.title,
        "status": node.status.value,
        "version": node.version,
        "group_id": node.group_id,
        "inputs": node.inputs,
        "outputs": [{"sha256": h.sha256, "mime": h.mime, "size": h.size} for h in node.outputs],
    }


def _reader(ctx: ToolContext) -> CanvasReader:
    if ctx.canvas is None:
        raise ToolError("this tool needs the canvas, and none is attached to the tool context")
    return ctx.canvas


class CreateNodeArgs(BaseModel):
    kind: str = Field(description="A node kind from the manifest")
    title: str = ""
    inputs: dict[str, Any] = Field(default_factory=dict)
    status: NodeStatus = NodeStatus.PENDING
    group_id: str | None = None
    x: float | None = None
    y: float | None = None


def _create(ctx: ToolContext, args: CreateNodeArgs) -> ToolResult:
    # Refuse an unknown kind here, where it becomes an error the model sees (InvalidMutation naming the
    # known kinds); left to the commit, the bridge's authorize raises it out of submit as a crash.
    kinds = getattr(ctx.canvas, "kinds", None)
    if kinds is not None:
        kinds.require(args.kind)
    node_id = new_id()
    position = Position(x=args.x, y=args.y) if args.x is not None and args.y is not None else None
    mutation = CreateNode(id=node_id, kind=args.kind, title=args.title, inputs=args.inputs, status=args.status,
                          group_id=args.group_id, position=position,
                          metadata={"provenance": {"actor": ctx.actor, "tool": "create_node", "turn_id": ctx.turn_id}})
    return ToolResult(observation={"created": node_id}, mutations=[mutation])


class UpdateNodeArgs(BaseModel):
    node_id: str
    title: str | None = None
    inputs_patch: dict[str, Any] | None = None
    status: NodeStatus | None = None
    expected_version: int | None = None


def _update(ctx: ToolContext, args: UpdateNodeArgs) -> ToolResult:
    node = _reader(ctx).get_node(args.node_id)
    if args.inputs_patch:
        # A generated node's inputs are its tool's arguments: a value that tool would not take is refused here,
        # before it is written, rather than failing the rebuild after the node and its clips went stale.
        check_inputs_patch(ctx.services.get("tool_registry"), node, args.inputs_patch)
    return ToolResult(observation={"updated": args.node_id},
                      mutations=[UpdateNode(node_id=args.node_id, title=args.title, inputs_patch=args.inputs_patch,
                                            status=args.status, expected_version=args.expected_version)])


class LinkArgs(BaseModel):
    type: EdgeType
    source: str
    target: str
    properties: dict[str, Any] = Field(default_factory=dict)


def _link(ctx: ToolContext, args: LinkArgs) -> ToolResult:
    if args.source == args.target:
        raise ToolError(f"a node cannot be linked to itself ({args.source}); pick two different nodes")
    _reader(ctx).get_nodes([args.source, args.target])
    edge = Link(type=args.type, source=args.source, target=args.target, properties=args.properties)
    return ToolResult(observation={"edge_id": edge.id}, mutations=[edge])


class UnlinkArgs(BaseModel):
    edge_id: str | None = None
    type: EdgeType | None = None
    source: str | None = None
    target: str | None = None


def _unlink(ctx: ToolContext, args: UnlinkArgs) -> ToolResult:
    if not args.edge_id and not (args.type and args.source and args.target):
        raise ToolError("unlink needs edge_id, or type with source and target")
    named = args.model_dump()
    if args.edge_id:
        # The edge an id names, as the canvas recorded it: the batch names its real endpoints (the bridge reads
        # them again before it issues the ticket), and an id given with other endpoints is a mistake to show.
        live = [r for r in _reader(ctx).edge_records([args.edge_id]).get(args.edge_id, []) if r.live]
        if not live:
            raise ToolError(f"there is no edge with id {args.edge_id!r} on the canvas; read_node lists a node's edges")
        edge = live[0]
        found = {"type": edge.type, "source": edge.source, "target": edge.target}
        wrong = {k: v for k, v in named.items() if k in found and v is not None and v != found[k]}
        if wrong:
            raise ToolError(f"edge {args.edge_id} is {edge.type.value} {edge.source} → {edge.target}, not "
                            + ", ".join(f"{k} {v}" for k, v in wrong.items()))
        named.update(found)
    unlink = Unlink(**named)
    return ToolResult(observation={"unlinked": unlink.model_dump(mode="json", exclude_none=True, exclude={"op"})},
                      mutations=[unlink])


class GroupArgs(BaseModel):
    node_ids: list[str] = Field(min_length=1)
    group_id: str | None = Field(default=None, description="An existing group node; a new one is made when absent")
    title: str = ""


def _group(ctx: ToolContext, args: GroupArgs) -> ToolResult:
    _reader(ctx).get_nodes(args.node_ids)
    mutations: list[Any] = []
    group_id = args.group_id
    if group_id is None:
        group_id = new_id()
        mutations.append(CreateNode(id=group_id, kind="group", title=args.title, status=NodeStatus.COMPLETED))
    mutations.append(GroupNodes(group_id=group_id, node_ids=args.node_ids))
    return ToolResult(observation={"group_id": group_id}, mutations=mutations)


class MoveArgs(BaseModel):
    node_id: str
    x: float
    y: float
    pinned: bool = True


def _move(ctx: ToolContext, args: MoveArgs) -> ToolResult:
    _reader(ctx).get_node(args.node_id)
    return ToolResult(observation={"moved": args.node_id},
                      mutations=[MoveNode(node_id=args.node_id, position=Position(x=args.x, y=args.y, pinned=args.pinned))])


class SetStatusArgs(BaseModel):
    node_id: str
    status: NodeStatus
    reason: str | None = None


def _set_status(ctx: ToolContext, args: SetStatusArgs) -> ToolResult:
    reader = _reader(ctx)
    node = reader.get_node(args.node_id)
    # Rejecting the current version of an output (no newer version stays) takes what was made from it along and
    # restores the previous one; setting aside a version that a newer one replaced (an exploration's selection
    # supersedes the explored image) is a plain status change, and the planner rebuilds what follows from it.
    if (args.status == NodeStatus.REJECTED and node.status != NodeStatus.REJECTED
            and not _has_live_successor(reader, node.id, {node.id})):
        mutations = rejection_mutations(reader, node.id, args.reason or f"rejected by {ctx.actor}")
        restored = [m.node_id for m in mutations if m.status != NodeStatus.REJECTED]
        rejected = [m.node_id for m in mutations if m.status == NodeStatus.REJECTED]
        stale = [m.node_id for m in mutations if m.status == NodeStatus.STALE]  # to rebuild: its inputs changed since
        return ToolResult(observation={"node_id": node.id, "title": node.title, "status": args.status.value,
                                       "rejected": rejected,
                                       "restored": restored, "stale": stale}, mutations=mutations)
    mutations = []
    if args.status != NodeStatus.REJECTED and node.status == NodeStatus.REJECTED:
        # Bringing back a set-aside version (an exploration's losing candidate): it must become the one current
        # version of its output, never a second one beside the head.
        mutations = reinstate_mutations(reader, node, args.reason or f"{args.status.value} by {ctx.actor}")
    superseded = [m.node_id for m in mutations if m.status == NodeStatus.REJECTED]
    observation = {"node_id": args.node_id, "title": node.title, "status": args.status.value}
    if mutations:
        observation.update(superseded=superseded,
                           stale=[m.node_id for m in mutations if m.status == NodeStatus.STALE])
    return ToolResult(observation=observation,
                      mutations=[*mutations, SetStatus(node_id=args.node_id, status=args.status, reason=args.reason)])


def _replaced(node: Any) -> bool:
    """Whether a rejected node was set aside because a newer version replaced it (not judged bad itself)."""
    return node.status == NodeStatus.REJECTED and str(node.metadata.get("status_reason") or "").startswith(
        "superseded")


def rejection_mutations(reader: CanvasReader, node_id: str, reason: str) -> list[SetStatus]:
    """Reject a node and keep exactly one current version of every output it touched.

    What was made from the node (its clip, the cut of that clip, transitively) is rejected with it, and each
    rejected node's newest predecessor outside that set, if a newer version had replaced it, becomes current
    again: ``completed``, or ``stale`` when one of its own inputs has since been replaced by a version that
    stays (a cut whose clips changed must be rebuilt). This is the same rule the turn loop applies when the
    evaluator or a person rejects a step's new versions, for a rejection that comes later (the web canvas,
    an agent's ``set_status``).
    """
    # Everything made from the node, also versions already set aside: none of them may come back.
    closure, frontier, live = {node_id}, [node_id], {node_id}
    while frontier:
        for link in reader.neighbours(frontier.pop(), [EdgeType.GENERATED_FROM], Direction.IN):
            if link.node.id not in closure:
                closure.add(link.node.id)
                frontier.append(link.node.id)
                if link.node.status != NodeStatus.REJECTED:
                    live.add(link.node.id)
    mutations = [SetStatus(node_id=n, status=NodeStatus.REJECTED,
                           reason=reason if n == node_id else f"made from {node_id}, which was rejected")
                 for n in sorted(live)]
    restored: dict[str, tuple[Any, str]] = {}  # the version brought back → (it, the version rejected in its place)
    for rejected_id in sorted(live):
        previous = _predecessor_outside(reader, rejected_id, closure)
        if previous is None or previous.id in restored or not _replaced(previous):
            continue
        if _has_live_successor(reader, previous.id, closure):
            continue  # another version replaced it and stays (an exploration's selected candidate): not restored
        restored[previous.id] = (previous, rejected_id)
    for previous, rejected_id in restored.values():
        inputs = reader.neighbours(previous.id, [EdgeType.GENERATED_FROM], Direction.OUT)
        # An input that is no longer current: a newer version replaced it and stays, or it was itself set aside
        # since and does not come back now (an undo brought back its own predecessor: an old cut's other clips).
        changed = any(_has_live_successor(reader, link.node.id, closure)
                      or (link.node.status == NodeStatus.REJECTED and link.node.id not in restored) for link in inputs)
        mutations.append(SetStatus(node_id=previous.id, status=NodeStatus.STALE if changed else NodeStatus.COMPLETED,
                                   reason=f"{rejected_id} was rejected; restored"
                                   + (", its inputs changed since" if changed else "")))
    return mutations


def _predecessor_outside(reader: CanvasReader, node_id: str, closure: set[str]) -> Any:
    """The newest earlier version of a node that is not itself being rejected now (None if there is none)."""
    seen = {node_id}
    current = node_id
    while True:
        older = reader.neighbours(current, [EdgeType.VERSION_OF], Direction.OUT)
        if not older or older[0].node.id in seen:
            return None
        candidate = older[0].node
        if candidate.id not in closure:
            return candidate
        seen.add(candidate.id)
        current = candidate.id


def _has_live_successor(reader: CanvasReader, node_id: str, closure: set[str]) -> bool:
    """Whether a newer version of this node stays current (so what was made from the old one is out of date)."""
    return any(link.node.id not in closure and link.node.status != NodeStatus.REJECTED
               for link in reader.neighbours(node_id, [EdgeType.VERSION_OF], Direction.IN))


class BranchArgs(BaseModel):
    node_id: str
    inputs_patch: dict[str, Any] = Field(default_factory=dict)
    title: str | None = None


def _branch(ctx: ToolContext, args: BranchArgs) -> ToolResult:
    original = _reader(ctx).get_node(args.node_id)
    copy_id = new_id()
    mutations = [
        CreateNode(id=copy_id, kind=original.kind, title=args.title or original.title,
                   inputs={**original.inputs, **args.inputs_patch}, outputs=original.outputs,
                   status=NodeStatus.PENDING, group_id=original.group_id,
                   metadata={"provenance": {"actor": ctx.actor, "tool": "branch", "turn_id": ctx.turn_id},
                             "branched_from": original.id, "branched_from_version": original.version}),
        Link(type=EdgeType.VERSION_OF, source=copy_id, target=original.id),
    ]
    return ToolResult(observation={"branch": copy_id, "of": original.id}, mutations=mutations)


class ReadNodeArgs(BaseModel):
    node_id: str


def _read_node(ctx: ToolContext, args: ReadNodeArgs) -> ToolResult:
    reader = _reader(ctx)
    node = reader.get_node(args.node_id)
    out = [{"edge": n.edge.type.value, "to": n.node.id, "kind": n.node.kind, "title": n.node.title}
           for n in reader.neighbours(node.id, direction=Direction.OUT)]
    return ToolResult(observation={"node": node_summary(node), "edges_out": out})


class ReadLineageArgs(BaseModel):
    node_id: str
    direction: Literal["ancestors", "descendants"] = "ancestors"
    edge_types: list[EdgeType] | None = None
    max_depth: int | None = Field(default=None, ge=1)


def _read_lineage(ctx: ToolContext, args: ReadLineageArgs) -> ToolResult:
    direction = Direction.OUT if args.direction == "ancestors" else Direction.IN
    entries = _reader(ctx).lineage(args.node_id, args.edge_types, direction, args.max_depth)
    return ToolResult(observation={"node_id": args.node_id, "lineage": [
        {"depth": e.depth, **node_summary(e.node)} for e in entries]})


class QueryArgs(BaseModel):
    cypher: str = Field(description="Read-only Neo4j Cypher over (:CanvasNode) and its typed relationships")
    params: dict[str, Any] = Field(default_factory=dict)
    limit: int = Field(default=200, ge=1, le=5000)


def _query(ctx: ToolContext, args: QueryArgs) -> ToolResult:
    # The agent's read: it waits in line for the agent's own query slots, never refused by people's budget.
    result = _reader(ctx).query(args.cypher, args.params, row_limit=args.limit, budget="agent")
    return ToolResult(observation={"columns": result.columns, "rows": result.rows, "truncated": result.truncated})


def canvas_tools() -> list[ToolSpec]:
    """The canvas family."""
    fam = ToolFamily.CANVAS
    return [
        ToolSpec("create_node", fam, "Create a canvas node of a manifest kind.", CreateNodeArgs, WRITE, _create),
        ToolSpec("update_node", fam, "Change a node's title, inputs or status.", UpdateNodeArgs, WRITE, _update),
        ToolSpec("link_nodes", fam, "Add a typed edge between two nodes.", LinkArgs, WRITE, _link),
        ToolSpec("unlink_nodes", fam, "Remove an edge.", UnlinkArgs, WRITE, _unlink),
        ToolSpec("group_nodes", fam, "Put nodes into a (new) group.", GroupArgs, WRITE, _group),
        ToolSpec("move_node", fam, "Move a node on the canvas.", MoveArgs, WRITE, _move),
        ToolSpec("set_status", fam, "Mark a node selected, rejected, stale, ...", SetStatusArgs, WRITE, _set_status),
        ToolSpec("branch_node", fam, "Copy a node as a new version (VERSION_OF) to edit.", BranchArgs, WRITE, _branch),
        ToolSpec("read_node", fam, "Read one node and its outgoing edges.", ReadNodeArgs, READ, _read_node),
        ToolSpec("read_lineage", fam, "Ancestors or descendants of a node.", ReadLineageArgs, READ, _read_lineage),
        ToolSpec("query_canvas", fam, "Run read-only Cypher on the canvas.", QueryArgs, READ, _query),
    ]
