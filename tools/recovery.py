"""Recovery tools: checkpoints, attempts, staleness, local regeneration and artifact verification.

``mark_stale`` and ``regenerate_stale`` are the local-repair pair: mark a node
and everything derived from it, then regenerate only those, in dependency
order, as new versions (VERSION_OF the old ones, which are kept and marked
superseded), through the generation tools and so through the signature cache.
``repair`` is the pair in one call and one batch (a local edit costs one model
call, not two): the targets and what derives from them get new versions with the
changes, and nothing is marked unless the whole rebuild commits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from store.base import CanvasReader, Neighbour
from store.errors import NodeNotFound
from store.models import CanvasNode, Direction, EdgeType, NodeStatus, new_id
from store.mutations import CreateNode, DeleteNode, GroupNodes, Link, SetStatus, UngroupNodes, Unlink, UpdateNode
from tools.base import Effect, ToolContext, ToolError, ToolFamily, ToolResult, ToolSpec
from tools.staleness import DERIVATION_EDGES, REGENERABLE_TOOLS, stale_sets
from tools.versions import NotHeadVersion, current_version, current_versions, head_of

COMPOSED_TOOLS: dict[str, tuple[str, ...]] = {"repair": ("mark_stale", "regenerate_stale")}
"""Tools that do what others do, in one call: a grant that asks a person to approve a part asks it for the whole."""


def _reader(ctx: ToolContext) -> CanvasReader:
    if ctx.canvas is None:
        raise ToolError("recovery tools need the canvas")
    return ctx.canvas


class CheckpointArgs(BaseModel):
    name: str = Field(min_length=1, max_length=80)


def _create_checkpoint(ctx: ToolContext, args: CheckpointArgs) -> ToolResult:
    canvas = _reader(ctx)
    version = canvas.canvas_version()
    node_id = new_id()
    return ToolResult(observation={"checkpoint": node_id, "canvas_version": version}, mutations=[CreateNode(
        id=node_id, kind="checkpoint", title=args.name, status=NodeStatus.COMPLETED,
        inputs={"name": args.name, "canvas_version": version},
        metadata={"provenance": {"actor": ctx.actor, "tool": "create_checkpoint", "turn_id": ctx.turn_id}})])


class RestoreArgs(BaseModel):
    name: str = Field(description="The checkpoint's name (the latest of that name) or its node id")


def _find_checkpoint(canvas: CanvasReader, name: str) -> CanvasNode:
    checkpoints = [n for n in canvas.find_nodes(kind="checkpoint") if n.id == name or n.title == name]
    if not checkpoints:
        raise ToolError(f"no checkpoint named {name!r}; create one with create_checkpoint")
    return max(checkpoints, key=lambda n: n.inputs.get("canvas_version", 0))


def restore_mutations(canvas: Any, target_version: int, keep: set[str]) -> list[Any]:
    """Mutations that bring the canvas back to how it was at ``target_version`` (history is kept)."""
    then = canvas.snapshot(target_version)
    now = canvas.snapshot()
    then_nodes = {n.id: n for n in then.nodes}
    now_nodes = {n.id: n for n in now.nodes}
    mutations: list[Any] = []
    for node_id, node in now_nodes.items():
        if node_id not in then_nodes and node_id not in keep and node.kind != "checkpoint":
            mutations.append(DeleteNode(node_id=node_id))
    for node_id, old in then_nodes.items():
        current = now_nodes.get(node_id)
        if current is None or (old.title, old.inputs, old.outputs, old.status, old.position) != (
                current.title, current.inputs, current.outputs, current.status, current.position):
            mutations.append(UpdateNode(node_id=node_id, title=old.title, inputs=old.inputs, outputs=old.outputs,
                                        status=old.status, position=old.position, undelete=current is None))
    # Group membership goes back through group mutations, which set group_id and the IN_GROUP edge together
    # (UpdateNode cannot set group_id); the edge diff below leaves those nodes' IN_GROUP edges to them.
    gone = [i for i in then_nodes if i not in now_nodes]
    deleted = {n.id: n for n in canvas.get_nodes(gone, include_deleted=True)} if gone else {}
    regrouped: set[str] = set()
    for node_id, old in then_nodes.items():
        group_now = (now_nodes.get(node_id) or deleted[node_id]).group_id
        if group_now != old.group_id:
            regrouped.add(node_id)
            mutations.append(GroupNodes(group_id=old.group_id, node_ids=[node_id]) if old.group_id
                             else UngroupNodes(group_id=str(group_now), node_ids=[node_id]))

    def diffed(edge: Any) -> bool:
        return not (edge.type == EdgeType.IN_GROUP and edge.source in regrouped)

    then_edges = {(e.type, e.source, e.target): e for e in then.edges if diffed(e)}
    # The edges in the graph, not the snapshot's: a soft-deleted node keeps its edges (the snapshot only hides
    # them), and undeleting it brings them back, so they must be unlinked or left alone, never linked twice.
    now_edges = {(e.type, e.source, e.target): e for e in canvas.edges() if diffed(e)}
    for key, edge in now_edges.items():
        if key not in then_edges and edge.source in then_nodes and edge.target in then_nodes:
            mutations.append(Unlink(edge_id=edge.id))
    for key, edge in then_edges.items():
        if key not in now_edges:
            mutations.append(Link(type=edge.type, source=edge.source, target=edge.target,
                                  properties=edge.properties))
    return mutations


def _restore_checkpoint(ctx: ToolContext, args: RestoreArgs) -> ToolResult:
    canvas = _reader(ctx)
    checkpoint = _find_checkpoint(canvas, args.name)
    target = int(checkpoint.inputs["canvas_version"])
    mutations = restore_mutations(canvas, target, keep={checkpoint.id})
    return ToolResult(observation={"restored_to": target, "checkpoint": checkpoint.id, "changes": len(mutations)},
                      mutations=mutations)


class AttemptsArgs(BaseModel):
    node_id: str


def _list_attempts(ctx: ToolContext, args: AttemptsArgs) -> ToolResult:
    canvas = _reader(ctx)
    node = canvas.get_node(args.node_id, include_deleted=True)
    history = [{"version": h.version, "status": h.status.value, "updated_at": h.updated_at,
                "error": h.metadata.get("error") or h.metadata.get("status_reason")}
               for h in canvas.node_history(node.id)]  # type: ignore[attr-defined]
    versions = []
    # The store walks lineage from live nodes only; a deleted node still shows its own history.
    directions = () if node.deleted else (Direction.OUT, Direction.IN)
    for direction in directions:
        for entry in canvas.lineage(node.id, [EdgeType.VERSION_OF], direction):
            versions.append({"id": entry.node.id, "status": entry.node.status.value, "title": entry.node.title,
                             "relation": "older" if direction == Direction.OUT else "newer", "hops": entry.depth,
                             "reason": entry.node.metadata.get("status_reason")})
    return ToolResult(observation={"node_id": node.id, "history": history, "versions": versions})


class MarkStaleArgs(BaseModel):
    node_id: str | None = Field(default=None, description="One node to mark (with what derives from it)")
    node_ids: list[str] = Field(default_factory=list, description="Several nodes: one dirty set, their union")
    reason: str = "an upstream node changed"


def _mark_stale(ctx: ToolContext, args: MarkStaleArgs) -> ToolResult:
    roots = list(dict.fromkeys([*([args.node_id] if args.node_id else []), *args.node_ids]))
    if not roots:
        raise ToolError("mark_stale needs node_id or node_ids")
    observation, marks = stale_marks(_reader(ctx), roots, args.reason)
    return ToolResult(observation=observation, mutations=marks)


def stale_marks(canvas: CanvasReader, roots: list[str], reason: str) -> tuple[dict[str, Any], list[SetStatus]]:
    """What ``mark_stale`` of ``roots`` writes on the canvas as it is now: (its observation, its status changes).

    Shared with a person's inputs edit on the web canvas (``jarvishub.web.steering``), which commits the change
    and these marks as one batch."""
    heads, replaced, skipped = live_heads(canvas, roots)
    if not heads:
        raise ToolError(f"nothing to mark stale: {'; '.join(f'{i} {why}' for i, why in skipped.items())}")
    nodes = list({n.id: n for found in stale_sets(canvas, heads).values() for n in found}.values())
    # The ids go back to the caller so its regenerate_stale repairs exactly this dirty set, not other turns'.
    observation: dict[str, Any] = {"stale": [n.id for n in nodes]}
    if replaced:
        observation["replaced"] = replaced
    if skipped:
        observation["skipped"] = skipped
    # Each mark holds only if the node is still as read when the batch commits: another turn that supersedes
    # it meanwhile makes the commit raise StaleVersion (and the step runs again on the new canvas), so a
    # rejected version is never turned back into a live one.
    return observation, [SetStatus(node_id=n.id, status=NodeStatus.STALE, reason=reason, expected_version=n.version)
                         for n in nodes]


def live_heads(canvas: CanvasReader, node_ids: list[str]) -> tuple[list[str], dict[str, str], dict[str, str]]:
    """What marking ``node_ids`` stale means on the canvas as it is now: (the live nodes to mark, the superseded
    nodes replaced by their current version, the nodes left out and why).

    A superseded version is history, and history never becomes live again: marking it marks the current
    version of its output instead (another turn's newer version, which this turn then rebuilds).  A rejected
    node with no live version after it, or a deleted one, is left out.
    """
    nodes = canvas.get_nodes(node_ids, include_deleted=True)
    gone = {n.id: "is deleted" for n in nodes if n.deleted}
    rejected = [n for n in nodes if not n.deleted and n.status == NodeStatus.REJECTED]
    current = current_versions(canvas, rejected) if rejected else {}
    heads: list[str] = []
    replaced: dict[str, str] = {}
    skipped = dict(gone)
    for node in nodes:
        if node.deleted:
            continue
        head = current.get(node.id, node)
        if head.status == NodeStatus.REJECTED:
            skipped[node.id] = "is rejected and no live version replaced it"
            continue
        if head.id != node.id:
            replaced[node.id] = head.id
        heads.append(head.id)
    return list(dict.fromkeys(heads)), replaced, skipped


class RegenerateArgs(BaseModel):
    overrides: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="node id -> input changes for its regeneration (e.g. {'lighting': 'night'}); "
                                          "they follow the node's output: a newer version rebuilt instead gets them too")
    node_ids: list[str] | None = Field(default=None, description="Only these stale nodes (default: every stale node)")


def dependency_order(canvas: CanvasReader, nodes: list[CanvasNode]) -> list[CanvasNode]:
    """Stale nodes with each one after the stale nodes it was generated from."""
    ids = {n.id for n in nodes}
    lineages = canvas.lineages([n.id for n in nodes], DERIVATION_EDGES, Direction.OUT) if nodes else {}
    upstream = {n.id: {e.node.id for e in lineages[n.id]} & ids for n in nodes}
    ordered: list[CanvasNode] = []
    placed: set[str] = set()
    pending = sorted(nodes, key=lambda n: (n.created_at, n.id))
    while pending:
        ready = [n for n in pending if upstream[n.id] <= placed]
        if not ready:
            raise ToolError("the stale nodes depend on each other in a cycle; regenerate them one by one")
        for node in ready:
            ordered.append(node)
            placed.add(node.id)
        pending = [n for n in pending if n.id not in placed]
    return ordered


def heads_to_rebuild(canvas: CanvasReader, node_ids: list[str], turn_id: str | None) -> list[CanvasNode]:
    """The current heads of the lineages a turn marked stale, each once.

    Another turn may have committed a newer version of one of them meanwhile (the shared cut): that version
    was built without this turn's changes, so it is rebuilt (its status aside); a head that is not stale and
    is the one the turn marked, or one this turn made, was repaired already and is left alone.
    """
    ids = list(dict.fromkeys(node_ids))
    # One read: each node with the versions made of it.
    lineages = canvas.lineages(ids, [EdgeType.VERSION_OF], Direction.IN, with_start=True)
    heads: dict[str, CanvasNode] = {}
    for node_id in ids:
        if not lineages[node_id]:
            raise NodeNotFound(node_id)
        node = lineages[node_id][0].node
        head = head_of(node, lineages[node_id][1:])
        if head.status == NodeStatus.STALE or (head.id != node.id and head.provenance.turn_id != turn_id):
            heads.setdefault(head.id, head)
    return list(heads.values())


def overrides_by_output(canvas: CanvasReader, nodes: list[CanvasNode],
                        overrides: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The input changes each node to rebuild gets: its own, or those a caller keyed by an older version of it.

    A turn keys its changes by the version it saw (shot 4's image); when another turn has replaced that version
    meanwhile, the turn rebuilds the newer one, and its change must follow: the turn's own modifications
    applied to the current head, never the head rebuilt as it is.  Categorical values (a lighting preset, a
    framing) are set as given.  A number the turn moved (exposure one step down, the seed one take on) moves
    the head's value by as much, so two turns that each asked for "darker" get darker twice.
    """
    found = {n.id: dict(overrides[n.id]) for n in nodes if n.id in overrides}
    keyed_elsewhere = [n for n in nodes if n.id not in overrides]
    if not keyed_elsewhere or not set(overrides) - set(found):
        return found
    older = canvas.lineages([n.id for n in keyed_elsewhere], [EdgeType.VERSION_OF], Direction.OUT)
    for node in keyed_elsewhere:
        seen = next((e.node for e in older.get(node.id, []) if e.node.id in overrides), None)
        if seen is not None:
            found[node.id] = _moved(overrides[seen.id], seen.inputs, node.inputs)
    return found


def _moved(change: dict[str, Any], seen: dict[str, Any], head: dict[str, Any]) -> dict[str, Any]:
    """``change`` (made against inputs ``seen``) re-applied to inputs ``head``: numbers by their move."""

    def number(value: Any) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    moved = dict(change)
    for key, value in change.items():
        absent = 0 if key in _RELATIVE_DEFAULTS else None
        before, now = seen.get(key, absent), head.get(key, absent)
        if number(value) and number(before) and number(now) and before != now:
            moved[key] = type(value)(round(now + (value - before), 6))
    return moved


_RELATIVE_DEFAULTS = frozenset({"exposure", "temperature", "seed"})
"""Inputs that are 0 when absent, so a move from an absent value is a move from 0."""


def _within_bounds(schema: type[BaseModel], change: dict[str, Any]) -> dict[str, Any]:
    """``change`` with each number kept inside its argument's bounds (a move re-applied may step past one)."""
    bounded = dict(change)
    for key, value in change.items():
        field = schema.model_fields.get(key)
        if field is None or not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        for limit in field.metadata:
            low, high = getattr(limit, "ge", None), getattr(limit, "le", None)
            if low is not None:
                value = max(value, low)
            if high is not None:
                value = min(value, high)
        bounded[key] = value
    return bounded


def regeneration_args(node: CanvasNode, remap: dict[str, str], override: dict[str, Any]) -> dict[str, Any]:
    """The generation tool's arguments for a new version of ``node``, pointing at regenerated upstreams."""
    # ``intent`` is what the request that made this version asked for ("brighter than the previous version"): a
    # rebuild is asked for by something else (an upstream or an input changed), and judged by that old intent the
    # evaluator would reject it for not being brighter again.  A rebuild carries only the intent its caller gives.
    args = {k: v for k, v in node.inputs.items() if k not in ("references", "intent")}
    references = node.inputs.get("references") or []
    args["references"] = [remap.get(r["node_id"], r["node_id"]) for r in references]
    args["reference_roles"] = {remap.get(r["node_id"], r["node_id"]): r["role"] for r in references}
    for key in ("source_node_id", "edit_node_id"):
        if args.get(key):
            args[key] = remap.get(args[key], args[key])
    if args.get("clip_node_ids"):
        args["clip_node_ids"] = [remap.get(i, i) for i in args["clip_node_ids"]]
    # Except a cut's order: a person's "swap shots 2 and 3" is what the cut is from then on, not what one version
    # was asked to be.  Dropped, the rebuild after the next shot edit was judged on shot order, found "out of
    # order" and rejected, so no later edit could reach the cut.
    intent = node.inputs.get("intent")
    if isinstance(intent, dict) and intent.get("order"):
        args["intent"] = {"order": list(intent["order"])}
    args.update(override)
    args["version_of"] = node.id
    args["title"] = node.title
    return args


HEAD_RACE_ATTEMPTS = 4
"""How often regenerate_stale starts again when another turn replaced a head between its read and its rebuild."""


def _regenerate_stale(ctx: ToolContext, args: RegenerateArgs) -> ToolResult:
    # Concurrent turns share outputs (the cut): one may commit a new version of a head this call is about to
    # rebuild, and the generation tool then refuses the replaced base.  That is the race the commit-time guard
    # also catches; either way the answer is to read the heads again and rebuild on the current ones (the
    # signature cache serves whatever was already generated).
    return rebuild_on_current_heads(lambda spent: _regenerate_once(ctx, args, spent))


def rebuild_on_current_heads(run: Callable[[list[int]], ToolResult]) -> ToolResult:
    """``run(spent)`` again (reading the heads again) while another turn replaces a head under it, at most
    :data:`HEAD_RACE_ATTEMPTS` times; the result counts the provider calls and cache hits of every attempt."""
    spent = [0, 0]
    for attempt in range(1, HEAD_RACE_ATTEMPTS + 1):
        try:
            result = run(spent)
        except NotHeadVersion:
            if attempt == HEAD_RACE_ATTEMPTS:
                raise
            continue
        return result.model_copy(update={"provider_calls": spent[0], "cache_hits": spent[1]})
    raise AssertionError("unreachable")


def _regenerate_once(ctx: ToolContext, args: RegenerateArgs, spent: list[int]) -> ToolResult:
    canvas = _reader(ctx)
    if ctx.services.get("tool_registry") is None:
        raise ToolError("regenerate_stale needs the generation tools, and none are registered")
    report: list[dict[str, Any]] = []
    if args.node_ids is None:
        # A stale node that a newer live version replaced is history: only heads get a new version.
        stale = []
        for node in canvas.find_nodes(status=NodeStatus.STALE):
            head = current_version(canvas, node)
            if head.id == node.id:
                stale.append(node)
            else:
                report.append({"node_id": node.id, "skipped": f"superseded by {head.id}"})
    else:
        stale = heads_to_rebuild(canvas, args.node_ids, ctx.turn_id)
    mutations, provider_calls, cache_hits = rebuild(ctx, canvas, stale, args.overrides, report, spent)
    return ToolResult(observation={"regenerated": report}, mutations=mutations,
                      provider_calls=provider_calls, cache_hits=cache_hits)


def rebuild(ctx: ToolContext, canvas: CanvasReader, nodes: list[CanvasNode], changes: dict[str, dict[str, Any]],
            report: list[dict[str, Any]], spent: list[int]) -> tuple[list[Any], int, int]:
    """New versions of ``nodes`` in dependency order, each with its ``changes`` (keyed by the node or an older
    version of its output); appends one row per node to ``report`` (old, new, ... or node_id and skipped) and
    adds the provider calls and cache hits to ``spent``.  Returns (mutations, provider calls, cache hits)."""
    registry = ctx.services.get("tool_registry")
    remap: dict[str, str] = {}
    mutations: list[Any] = []
    provider_calls = cache_hits = 0
    # Inputs replaced by a newer version since a node was made (a cut restored after a rejected rebuild)
    # are taken at their current version: a rebuild never goes back to superseded inputs.
    made_from = canvas.neighbours_of([n.id for n in nodes], [EdgeType.GENERATED_FROM], Direction.OUT) if nodes else {}
    upstreams = list({u.node.id: u.node for found in made_from.values() for u in found}.values())
    for old_id, newest in current_versions(canvas, upstreams).items():
        if newest.id != old_id:
            remap.setdefault(old_id, newest.id)
    overrides = overrides_by_output(canvas, nodes, changes)
    unbuilt: set[str] = set()  # nodes that should have been rebuilt and could not be
    for node in dependency_order(canvas, nodes):
        spec = registry.get(node.provenance.tool) if node.provenance.tool else None
        override = _within_bounds(spec.args_schema, overrides.get(node.id, {})) if spec is not None else {}
        upstream = [*(e.node.id for e in made_from[node.id]),
                    *(r.get("node_id") for r in node.inputs.get("references") or [] if isinstance(r, dict))]
        blocked = next((i for i in upstream if i in unbuilt), None)
        if blocked is not None:
            # Rebuilt on an input that is still stale, it would look current while showing the old picture (the
            # cache gives the same clip back): it stays stale, as what it was made from does.
            unbuilt.add(node.id)
            report.append({"node_id": node.id, "title": node.title, "kind": node.kind,
                           "skipped": f"made from {blocked}, which could not be rebuilt"})
            continue
        try:
            result = regenerate_node(ctx, canvas, node, remap, override, mutations, made_from[node.id])
        except ValidationError as error:  # a node whose inputs do not rebuild it (an evaluation's verdict)
            unbuilt.add(node.id)
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors()[:3])
            report.append({"node_id": node.id, "title": node.title, "kind": node.kind,
                           "skipped": f"its inputs are not {node.provenance.tool}'s arguments ({problems})"})
            continue
        if result is None:
            report.append({"node_id": node.id, "skipped": f"not made by a generation tool ({node.provenance.tool})"})
            continue
        new_id_ = result.observation["node_id"]
        provider_calls += result.provider_calls
        cache_hits += result.cache_hits
        spent[0] += result.provider_calls
        spent[1] += result.cache_hits
        report.append({"old": node.id, "new": new_id_, "title": node.title, "kind": node.kind,
                       "sha256": result.observation.get("sha256"), "cache_hit": result.observation.get("cache_hit")})
    return mutations, provider_calls, cache_hits


class RepairArgs(BaseModel):
    targets: list[str] = Field(min_length=1, max_length=200, description=(
        "The nodes to change: generated nodes (an image), or a node they were made from (a shot: its current "
        "image is repaired); what was generated from them (clips, the cut) is rebuilt too"))
    changes: dict[str, dict[str, Any]] = Field(default_factory=dict, description=(
        "target id -> input changes for its new version (e.g. {'lighting': 'night', 'exposure': -0.6}); a "
        "target with none is remade from its inputs as they are"))
    reason: str = Field(default="repaired on request", max_length=300)


def _repair(ctx: ToolContext, args: RepairArgs) -> ToolResult:
    return rebuild_on_current_heads(lambda spent: _repair_once(ctx, args, spent))


def _repair_once(ctx: ToolContext, args: RepairArgs, spent: list[int]) -> ToolResult:
    """mark_stale and regenerate_stale as one batch: the targets and what derives from them get new versions,
    with the changes; what cannot be rebuilt is marked stale.  Nothing is written unless the whole batch commits."""
    canvas = _reader(ctx)
    if ctx.services.get("tool_registry") is None:
        raise ToolError("repair needs the generation tools, and none are registered")
    roots, changes = generated_targets(canvas, args.targets, args.changes)
    heads, replaced, skipped = live_heads(canvas, roots)
    if not heads:
        raise ToolError(f"nothing to repair: {'; '.join(f'{i} {why}' for i, why in skipped.items())}")
    dirty = list({n.id: n for found in stale_sets(canvas, heads).values() for n in found}.values())
    report: list[dict[str, Any]] = []
    mutations, provider_calls, cache_hits = rebuild(ctx, canvas, dirty, changes, report, spent)
    rebuilt = {row["old"] for row in report if "new" in row}
    # A node no tool can remake is left visibly stale (regenerate_stale or a person repairs it), never silently
    # current; each mark holds only if the node is still as read when the batch commits.
    mutations += [SetStatus(node_id=n.id, status=NodeStatus.STALE, reason=args.reason, expected_version=n.version)
                  for n in dirty if n.id not in rebuilt]
    observation: dict[str, Any] = {"regenerated": report, "stale": [n.id for n in dirty if n.id not in rebuilt]}
    if replaced:
        observation["replaced"] = replaced
    if skipped:
        observation["skipped"] = skipped
    return ToolResult(observation=observation, mutations=mutations, provider_calls=provider_calls,
                      cache_hits=cache_hits)


def generated_targets(canvas: CanvasReader, targets: list[str], changes: dict[str, dict[str, Any]]
                      ) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """The generated nodes ``targets`` mean, with their changes: a target a generation tool made is itself; any
    other (a shot) means the live generated nodes made directly from it (its current image), which take its
    changes.  One read for the targets, one for what was made from the ones that are not generated."""
    wanted = list(dict.fromkeys(targets))
    unknown = [i for i in changes if i not in wanted]
    if unknown:
        raise ToolError(f"changes name nodes that are not targets: {', '.join(unknown)}")
    nodes = canvas.get_nodes(wanted, include_deleted=True)
    makers = [n.id for n in nodes if n.provenance.tool not in REGENERABLE_TOOLS]
    made = canvas.neighbours_of(makers, [EdgeType.GENERATED_FROM], Direction.IN) if makers else {}
    roots: list[str] = []
    mapped: dict[str, dict[str, Any]] = {}
    for node in nodes:
        if node.provenance.tool in REGENERABLE_TOOLS:
            roots.append(node.id)
            if node.id in changes:
                mapped[node.id] = dict(changes[node.id])
            continue
        generated = [e.node for e in made.get(node.id, []) if e.node.provenance.tool in REGENERABLE_TOOLS
                     and e.node.status != NodeStatus.REJECTED and not e.node.deleted]
        if not generated:
            raise ToolError(f"{node.id} ({node.kind} {node.title!r}) was not made by a generation tool and nothing "
                            "live was generated from it: there is nothing to repair")
        for child in generated:
            roots.append(child.id)
            if node.id in changes:
                mapped[child.id] = {**mapped.get(child.id, {}), **changes[node.id]}
    return list(dict.fromkeys(roots)), mapped


def regenerate_node(ctx: ToolContext, canvas: CanvasReader, node: CanvasNode, remap: dict[str, str],
                    override: dict[str, Any], mutations: list[Any], made_from: list[Neighbour]) -> ToolResult | None:
    """A new version of ``node`` made by the generation tool that made it, its inputs remapped to regenerated
    upstreams (``remap``, which gains ``node``'s new id) and changed by ``override``; its mutations (the node,
    its guarded edges, the lineage carried over from ``made_from``, and ``node`` superseded) are appended to
    ``mutations``.  None when no registered generation tool made ``node``.

    The tool runs through the signature cache, so a combination generated before costs no provider call.
    """
    registry = ctx.services.get("tool_registry")
    tool_name = node.provenance.tool
    spec = registry.get(tool_name) if tool_name and registry is not None else None
    if spec is None or spec.family != ToolFamily.GENERATION:  # a note, a file, a verdict: nothing to re-make
        return None
    tool_args = spec.args_schema.model_validate(regeneration_args(node, remap, override))
    # Read before the tool reads them: an input that changes after this point fails the commit, never slips by.
    inputs = input_nodes(canvas, tool_args, {m.id for m in mutations if isinstance(m, CreateNode)})
    read = {i: n.version for i, n in inputs.items() if i != node.id}
    # The tool reads exactly these nodes (one read for both): what it builds on is what the commit guards.
    pending_reader = _PendingReader(canvas, mutations, known=inputs)
    result = spec.run(_with_canvas(ctx, pending_reader), tool_args)
    new_id_ = result.observation["node_id"]
    remap[node.id] = new_id_
    mutations.extend(guarded_inputs(result.mutations, new_id_, read))
    mutations.extend(_carried_lineage(made_from, new_id_, remap, result.mutations))
    # Superseding the head the new version was built on, only if it is still that head at commit: a turn
    # that committed another version of this output first makes the commit raise StaleVersion, and the
    # turn rebuilds from the then-current inputs; two turns never both leave a current version.
    mutations.append(SetStatus(node_id=node.id, status=NodeStatus.REJECTED, reason=f"superseded by {new_id_}",
                               expected_version=node.version))
    return result


def input_nodes(canvas: CanvasReader, tool_args: BaseModel, pending: set[str]) -> dict[str, CanvasNode]:
    """The committed nodes a regeneration reads (clips, source, edit base, references, and the version it
    replaces), in one read, as they are now."""
    values = tool_args.model_dump()
    ids = [*(values.get("clip_node_ids") or []), *(values.get("references") or []),
           *(values.get(k) for k in ("source_node_id", "edit_node_id", "version_of") if values.get(k))]
    wanted = [i for i in dict.fromkeys(ids) if isinstance(i, str) and i not in pending]
    return {n.id: n for n in canvas.get_nodes(wanted)} if wanted else {}


def guarded_inputs(made: list[Any], new_id_: str, read: dict[str, int]) -> list[Any]:
    """The tool's mutations with each edge from the new node to an input carrying the input's version as read.

    With the commit lock serialising commits, a cut whose clip another turn replaced (or marked) after this
    turn read it is refused as stale and rebuilt on the current clips instead of being committed out of date.
    """
    return [m.model_copy(update={"expected_target_version": read[m.target]})
            if isinstance(m, Link) and m.source == new_id_ and m.target in read else m for m in made]


def _carried_lineage(made_from: list[Neighbour], new: str, remap: dict[str, str], made: list[Any]) -> list[Link]:
    """GENERATED_FROM edges of the old version (``made_from``) that its tool did not remake (e.g. image → shot),
    carried over."""
    present = {(m.type, m.target) for m in made if isinstance(m, Link) and m.source == new}
    carried = []
    for neighbour in made_from:
        target = remap.get(neighbour.node.id, neighbour.node.id)
        if (EdgeType.GENERATED_FROM, target) not in present:
            carried.append(Link(type=EdgeType.GENERATED_FROM, source=new, target=target,
                                properties=neighbour.edge.properties))
    return carried


class _PendingReader:
    """The canvas as it will be once this tool's pending creations are committed (for chained regeneration)."""

    def __init__(self, canvas: CanvasReader, pending: list[Any], *, known: dict[str, CanvasNode] | None = None) -> None:
        self._canvas = canvas
        self._pending = pending
        self._known = known or {}
        """Live nodes read for this regeneration just before it runs (served without another read)."""

    def _created(self) -> dict[str, CanvasNode]:
        return {m.id: CanvasNode(id=m.id, kind=m.kind, title=m.title, status=m.status, inputs=m.inputs,
                                 outputs=m.outputs, metadata=m.metadata)
                for m in self._pending if isinstance(m, CreateNode)}

    def get_nodes(self, node_ids, *, include_deleted: bool = False):  # noqa: ANN001
        created = {**self._known, **self._created()}
        missing = [i for i in node_ids if i not in created]
        found = {n.id: n for n in self._canvas.get_nodes(missing, include_deleted=include_deleted)} if missing else {}
        return [created.get(i) or found[i] for i in node_ids]

    def get_node(self, node_id: str, *, include_deleted: bool = False) -> CanvasNode:
        return self.get_nodes([node_id], include_deleted=include_deleted)[0]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._canvas, name)


def pending_context(ctx: ToolContext, canvas: CanvasReader, mutations: list[Any]) -> ToolContext:
    """``ctx`` reading the canvas as it will be once ``mutations`` (nodes a tool made but did not commit yet) are
    committed: for a tool that chains generations in one batch (an image, then its clip)."""
    return _with_canvas(ctx, _PendingReader(canvas, mutations))


def _with_canvas(ctx: ToolContext, canvas: Any) -> ToolContext:
    return ToolContext(artifacts=ctx.artifacts, workspace=ctx.workspace, canvas=canvas, settings=ctx.settings,
                       thread_id=ctx.thread_id, turn_id=ctx.turn_id, actor=ctx.actor, services=ctx.services,
                       progress=ctx.progress)


class VerifyArgs(BaseModel):
    node_ids: list[str] | None = Field(default=None, description="Only these nodes (default: the whole canvas)")


def _verify(ctx: ToolContext, args: VerifyArgs) -> ToolResult:
    canvas = _reader(ctx)
    nodes = canvas.get_nodes(args.node_ids) if args.node_ids else canvas.find_nodes()
    checked = 0
    broken = []
    for node in nodes:
        for handle in node.outputs:
            checked += 1
            if not ctx.artifacts.exists(handle.sha256):
                broken.append({"node_id": node.id, "sha256": handle.sha256, "problem": "missing"})
            elif not ctx.artifacts.verify(handle):
                broken.append({"node_id": node.id, "sha256": handle.sha256, "problem": "hash mismatch"})
    return ToolResult(observation={"checked": checked, "ok": not broken, "broken": broken})


def recovery_tools() -> list[ToolSpec]:
    """The recovery family."""
    fam = ToolFamily.RECOVERY
    write = frozenset({Effect.MUTATES_CANVAS})
    read = frozenset({Effect.READ_ONLY})
    return [
        ToolSpec("create_checkpoint", fam, "Name the current canvas version so it can be restored.", CheckpointArgs,
                 write, _create_checkpoint),
        ToolSpec("restore_checkpoint", fam, "Bring the canvas back to a checkpoint (as a new version).", RestoreArgs,
                 frozenset({Effect.MUTATES_CANVAS, Effect.DESTRUCTIVE}), _restore_checkpoint),
        ToolSpec("list_attempts", fam, "A node's versions, other versions and failures.", AttemptsArgs, read,
                 _list_attempts),
        ToolSpec("mark_stale", fam, "Mark a node and everything generated from it stale.", MarkStaleArgs, write,
                 _mark_stale),
        ToolSpec("regenerate_stale", fam, "Regenerate only stale nodes, in dependency order, as new versions.",
                 RegenerateArgs, frozenset({Effect.MUTATES_CANVAS, Effect.GENERATES_MEDIA, Effect.LONG_RUNNING}),
                 _regenerate_stale),
        ToolSpec("repair", fam, "Change nodes and rebuild what was made from them, in one call: mark_stale and "
                 "regenerate_stale together (a local edit: new versions of the targets with the changes).",
                 RepairArgs, frozenset({Effect.MUTATES_CANVAS, Effect.GENERATES_MEDIA, Effect.LONG_RUNNING}), _repair),
        ToolSpec("verify_artifacts", fam, "Check that every artifact exists and matches its hash.", VerifyArgs, read,
                 _verify),
    ]
