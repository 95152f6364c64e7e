"""Undoing a whole turn: every output the turn changed goes back to how it was before the turn.

A turn is found by its ``(:Turn)`` record (request, canvas versions before and after, thread) and its changes
by the commits of its thread between those versions (a skill's steps included).  Each output it changed is
treated as one lineage (its ``VERSION_OF`` tree):

* an output the turn **made** (no version existed before it) is set aside: its live versions are rejected,
  with a reason naming the turn, so they stay on the canvas, queryable, and a later undo brings them back;
* an output it **replaced** (a new version is current) gets a new version holding the content it had before
  the turn (:meth:`tools.restore.VersionBatch.copy_version`), its references rewritten to the restored
  upstream versions, so a restored cut names the restored clips;
* a node it changed **in place** (inputs, title, status, group) gets its earlier state back in place.

Edges the turn added between nodes that existed before it are removed again, and edges it removed are put
back (a shot inserted into the storyboard's ``CONTINUES`` chain is taken out of it).  What was generated
from a restored output by other turns is rebuilt through the cache.  A turn whose outputs a later turn
changed again is refused with :class:`TurnOverwritten`: undoing it would silently drop the later work.
Undoing the undo turn puts everything back, by the same rules.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from store.base import CanvasReader
from store.errors import NodeNotFound
from store.models import CanvasNode, Direction, EdgeType, NodeStatus
from store.mutations import GroupNodes, Link, SetStatus, UngroupNodes, Unlink, UpdateNode
from tools.base import ToolContext, ToolError, ToolResult
from tools.restore import VersionBatch, read_ids


class NoTurnToUndo(ToolError):
    """No recorded turn (of the thread, or with that id) changed the canvas."""


class TurnOverwritten(ToolError):
    """A later change touched what the turn changed; undoing it would drop that later work."""


class TurnChanges(BaseModel):
    """What one recorded turn changed: its record and the nodes and edges its commits wrote."""

    turn_id: str
    thread_id: str
    request: str = ""
    canvas_before: int
    canvas_after: int
    node_ids: list[str] = Field(default_factory=list)
    edge_ids: list[str] = Field(default_factory=list)

    @property
    def label(self) -> str:
        """How a reply names the turn."""
        return f"turn {self.turn_id} ({self.request[:80]!r})" if self.request else f"turn {self.turn_id}"


def turn_changes(canvas: CanvasReader, turn: dict[str, Any]) -> TurnChanges:
    """The nodes and edges a recorded turn's commits (its thread's, between its versions) wrote."""
    before, after = int(turn.get("canvas_before") or 0), int(turn.get("canvas_after") or 0)
    commits = [c for c in canvas.commits(since_version=before)
               if c.canvas_version <= after and c.thread_id == turn.get("thread_id")]
    return TurnChanges(
        turn_id=str(turn["id"]), thread_id=str(turn.get("thread_id") or ""), request=str(turn.get("request") or ""),
        canvas_before=before, canvas_after=after,
        node_ids=list(dict.fromkeys(i for c in commits for i in c.node_ids)),
        edge_ids=list(dict.fromkeys(i for c in commits for i in c.edge_ids)))


def find_turn(canvas: CanvasReader, *, thread_id: str | None = None, turn_id: str | None = None,
              exclude: str | None = None) -> TurnChanges:
    """The turn to undo: ``turn_id``, else the latest recorded turn (of ``thread_id``, or of the project) that
    changed the canvas, the running turn ``exclude`` aside."""
    turns = canvas.turns(thread_id)  # type: ignore[attr-defined]
    if turn_id is not None:
        found = [t for t in turns if t.get("id") == turn_id]
        if not found:
            raise NoTurnToUndo(f"no recorded turn has id {turn_id!r}" + (f" on thread {thread_id}" if thread_id else ""))
        changes = turn_changes(canvas, found[0])
        if not (changes.node_ids or changes.edge_ids):
            raise NoTurnToUndo(f"{changes.label} changed nothing on the canvas; there is nothing to undo")
        return changes
    for turn in reversed(turns):
        if turn.get("id") == exclude:
            continue
        changes = turn_changes(canvas, turn)
        if changes.node_ids or changes.edge_ids:
            return changes
    where = f"thread {thread_id}" if thread_id else "this project"
    raise NoTurnToUndo(f"no recorded turn of {where} changed the canvas; there is nothing to undo")


def check_undoable(canvas: CanvasReader, changes: TurnChanges) -> dict[str, list[CanvasNode]]:
    """The histories of what the turn wrote, or :class:`TurnOverwritten` when later work changed or built on it
    (what the tool would refuse, asked before it runs)."""
    histories = canvas.node_histories(changes.node_ids)  # type: ignore[attr-defined]
    _refuse_later_changes(canvas, changes, histories)
    return histories


def undo_turn(ctx: ToolContext, canvas: CanvasReader, changes: TurnChanges) -> ToolResult:
    """The batch that takes back every change of one turn (see the module docstring)."""
    before = changes.canvas_before
    histories = check_undoable(canvas, changes)
    nodes = _nodes(canvas, [i for i in changes.node_ids if histories.get(i)])
    batch = VersionBatch(ctx, canvas, reason=f"undo of {changes.label}")
    done: dict[str, list[Any]] = {"restored": [], "set_aside": [], "in_place": [], "undeleted": []}
    live = [n for n in nodes.values() if not n.deleted]
    for node in nodes.values():
        then = _state_at(histories[node.id], before)
        if node.deleted and then is not None and not then.deleted:
            batch.mutations.append(UpdateNode(node_id=node.id, title=then.title, inputs=then.inputs,
                                              outputs=list(then.outputs), status=then.status, undelete=True))
            done["undeleted"].append(node.id)
    lineages = _lineages(canvas, [n.id for n in live])
    members = sorted({m for found in lineages.values() for m in found})
    states = {**histories, **canvas.node_histories([m for m in members if m not in histories])}  # type: ignore[attr-defined]
    copies: dict[str, CanvasNode] = {}
    decks = _decks_back(ctx, canvas, lineages, states, changes)
    for result in decks.values():
        batch.mutations.extend(result.mutations)
        done["restored"].append({"output": "deck", "deck_id": result.observation.get("deck_id"),
                                 "change": (result.observation.get("change") or {}).get("summary")})
    by_deck = _deck_lineages(lineages) if decks else set()
    for root in _in_dependency_order(lineages, states, before):
        if root in by_deck:
            continue
        lineage = lineages[root]
        then_states = {i: s for i in lineage if (s := _state_at(states.get(i) or [], before)) is not None}
        then_head, now = _head(then_states, lineage), _head(lineage, lineage)
        if then_head is None:
            # Nothing of this output was current before the turn: what the turn made of it is set aside.
            for node_id, node in lineage.items():
                if node_id not in then_states and node.status != NodeStatus.REJECTED:
                    batch.mutations.append(SetStatus(node_id=node_id, status=NodeStatus.REJECTED,
                                                     reason=f"set aside by the {batch.reason}, which made it"))
                    batch.settled.add(node_id)
                    done["set_aside"].append(node_id)
        elif now is not None and now.id != then_head.id:
            copy = batch.copy_version(then_head, now, restored={"turn_undone": changes.turn_id})
            copies[now.id] = then_head
            done["restored"].append({"output": then_head.title, "node_id": copy, "replaced": now.id,
                                     "content_of": then_head.id})
            continue
        # The same version is current (or none is now): what changed is in place, node by node.
        for node_id, node in lineage.items():
            then = then_states.get(node_id)
            if node_id not in changes.node_ids or then is None or node.deleted:
                continue
            if _content(then) != _content(node):
                batch.update_in_place(then, node, status=then.status if then.status != node.status else None,
                                      restored={"turn_undone": changes.turn_id})
                done["in_place"].append(node_id)
            elif then.status != node.status:
                batch.mutations.append(SetStatus(node_id=node_id, status=then.status,
                                                 reason=f"status before {changes.label} (undone)"))
                done["in_place"].append(node_id)
    _regroup(batch, {i: n for i, n in nodes.items() if not any(i in lineages[r] for r in by_deck)}, histories, before)
    edges = _edges_back(canvas, changes, histories, before)
    batch.mutations.extend(edges)
    batch.rebuild_derived(copies)
    if not batch.mutations:
        raise NoTurnToUndo(f"{changes.label} left nothing to take back: the canvas already is as it was before it")
    return batch.result({"undone": {"turn_id": changes.turn_id, "thread_id": changes.thread_id,
                                    "request": changes.request, "canvas_before": changes.canvas_before},
                         **{k: v for k, v in done.items() if v},
                         "edges": [m.model_dump(mode="json", include={"op", "type", "source", "target"})
                                   for m in edges]})


def _decks_back(ctx: ToolContext, canvas: CanvasReader, lineages: dict[str, dict[str, CanvasNode]],
                states: dict[str, list[CanvasNode]], changes: TurnChanges) -> dict[str, ToolResult]:
    """Root -> the deck tool's batch that takes a deck the turn changed back to its version before the turn.

    A deck is a document (its version lists its slides, and each slide's node, content and pictures are their
    own lineages), so a copy of its old node would name slides the turn replaced or set aside: the deck's own
    undo (one change) or restore (several) makes the new version, slides and pictures included."""
    from tools.changes import Change, version_history
    from tools.deck.canvas import is_deck, read_deck
    from tools.deck.tools import restore_deck, undo_deck_change

    found: dict[str, ToolResult] = {}
    for root, lineage in lineages.items():
        if not any(is_deck(n) for n in lineage.values()):
            continue
        then = {i: s for i in lineage if (s := _state_at(states.get(i) or [], changes.canvas_before)) is not None}
        then_head, now = _head(then, lineage), _head(lineage, lineage)
        if then_head is None or now is None or now.id == then_head.id:
            continue
        deck, versions = read_deck(canvas, now), version_history(canvas, now)
        last = versions[0]
        if len(versions) > 1 and versions[1].node.id == then_head.id and last.change is not None \
                and last.change.op != "undo":
            found[root] = undo_deck_change(ctx, deck, versions, last, tool="undo_turn")
        else:
            found[root] = restore_deck(ctx, deck, then_head, Change(op="revert", summary=f"undo of {changes.label}"),
                                       tool="undo_turn")
    return found


def _deck_lineages(lineages: dict[str, dict[str, CanvasNode]]) -> set[str]:
    """The roots of the decks, slides, slide contents and pictures among ``lineages`` (a deck's own tools write
    them: they go back with the deck, never one by one)."""
    from tools.deck.canvas import OUTPUTS_FOLDER

    return {root for root, lineage in lineages.items()
            if any(n.kind in ("deck", "slide") or n.metadata.get("outputs_folder") == OUTPUTS_FOLDER
                   for n in lineage.values())}


def _refuse_later_changes(canvas: CanvasReader, changes: TurnChanges,
                          histories: dict[str, list[CanvasNode]]) -> None:
    """Refuse when a later commit changed what the turn changed, or made something from what the turn made."""
    later = sorted({(s.canvas_version, s.id, s.title) for found in histories.values() for s in found
                    if s.canvas_version > changes.canvas_after})
    made = [i for i, found in histories.items() if found and found[0].canvas_version > changes.canvas_before
            and not found[-1].deleted]
    if made and not later:
        built_on = canvas.neighbours_of(made, [EdgeType.GENERATED_FROM, EdgeType.REFERENCES], Direction.IN)
        later = sorted({(n.node.canvas_version, n.node.id, n.node.title) for found in built_on.values()
                        for n in found if n.node.id not in histories and n.node.kind not in ("evaluation", "feedback")
                        and n.node.canvas_version > changes.canvas_after})
    if later:
        named = ", ".join(f"{title or node_id} (canvas version {cv})" for cv, node_id, title in later[:5])
        raise TurnOverwritten(f"{changes.label} cannot be undone on its own: what it changed was changed again "
                              f"after it: {named}; undo the later turn first, or revert those outputs to a version")


def _nodes(canvas: CanvasReader, ids: list[str]) -> dict[str, CanvasNode]:
    """The nodes (deleted ones included); a node hard-deleted since is left out."""
    try:
        return {n.id: n for n in canvas.get_nodes(ids, include_deleted=True)}
    except NodeNotFound:
        found = {}
        for node_id in ids:
            try:
                found[node_id] = canvas.get_node(node_id, include_deleted=True)
            except NodeNotFound:
                continue
        return found


def _state_at(states: list[CanvasNode], version: int) -> CanvasNode | None:
    """A node as it was at canvas version ``version`` (None if it did not exist then)."""
    held = [s for s in states if s.canvas_version <= version]
    return held[-1] if held else None


def _lineages(canvas: CanvasReader, ids: list[str]) -> dict[str, dict[str, CanvasNode]]:
    """Root id -> every live node of that output's VERSION_OF tree, for the outputs of ``ids``."""
    if not ids:
        return {}
    older = canvas.lineages(ids, [EdgeType.VERSION_OF], Direction.OUT, with_start=True)
    roots = list(dict.fromkeys(max(found, key=lambda e: e.depth).node.id for found in older.values() if found))
    trees = canvas.lineages(roots, [EdgeType.VERSION_OF], Direction.IN, with_start=True)
    return {root: {e.node.id: e.node for e in trees[root]} for root in roots}


def _head(states: dict[str, CanvasNode], lineage: dict[str, CanvasNode]) -> CanvasNode | None:
    """The newest state that is live and not set aside (the head rule), by creation order within the tree."""
    standing = [s for s in states.values() if s.status != NodeStatus.REJECTED and not s.deleted]
    order = {node_id: (node.created_at, node_id) for node_id, node in lineage.items()}
    return max(standing, key=lambda s: order[s.id]) if standing else None


def _in_dependency_order(lineages: dict[str, dict[str, CanvasNode]], states: dict[str, list[CanvasNode]],
                         before: int) -> list[str]:
    """Roots ordered so that an output comes after the outputs its earlier head was made from (clips before the
    cut), so a restored cut can name the restored clips."""
    owner = {node_id: root for root, lineage in lineages.items() for node_id in lineage}
    needs: dict[str, set[str]] = {}
    for root, lineage in lineages.items():
        reads = {i for node_id in lineage for s in [_state_at(states.get(node_id) or [], before)] if s is not None
                 for i in read_ids(s.inputs)}
        needs[root] = {owner[i] for i in reads if i in owner and owner[i] != root}
    ordered: list[str] = []
    while len(ordered) < len(lineages):
        ready = sorted(r for r in lineages if r not in ordered and needs[r] <= set(ordered))
        ordered.extend(ready or sorted(r for r in lineages if r not in ordered)[:1])
    return ordered


def _content(node: CanvasNode) -> tuple[Any, ...]:
    return (node.title, node.inputs, [h.sha256 for h in node.outputs])


def _regroup(batch: VersionBatch, nodes: dict[str, CanvasNode], histories: dict[str, list[CanvasNode]],
             before: int) -> None:
    for node in nodes.values():
        then = _state_at(histories[node.id], before)
        if then is None or node.deleted or then.group_id == node.group_id:
            continue
        batch.mutations.append(GroupNodes(group_id=then.group_id, node_ids=[node.id]) if then.group_id
                               else UngroupNodes(group_id=str(node.group_id), node_ids=[node.id]))


def _edges_back(canvas: CanvasReader, changes: TurnChanges, histories: dict[str, list[CanvasNode]],
                before: int) -> list[Any]:
    """Edges the turn added from nodes that existed before it, unlinked; edges it removed, linked again.

    Unlinks name type, source and target (never an edge id), so the grant's scope check sees the source.
    Group edges follow group membership (:func:`_regroup`); lineage edges of new versions stay (history).
    """
    if not changes.edge_ids:
        return []
    diff = canvas.diff(changes.canvas_before, changes.canvas_after)  # type: ignore[attr-defined]
    ours = set(changes.edge_ids)
    touched = [e for e in [*diff.added_edges, *diff.removed_edges] if e.id in ours]
    if not touched:
        return []
    existed = {node_id for node_id, states in histories.items() if _state_at(states, before) is not None}
    present = {(e.type, e.source, e.target) for e in canvas.edges(list({e.source for e in touched}))}
    back: list[Any] = []
    for edge in diff.added_edges:
        if edge.id not in ours or edge.type in (EdgeType.IN_GROUP, EdgeType.VERSION_OF):
            continue
        if (edge.type, edge.source, edge.target) in present and _existed(canvas, edge.source, existed, before):
            back.append(Unlink(type=edge.type, source=edge.source, target=edge.target))
    for edge in diff.removed_edges:
        if edge.id not in ours or edge.type == EdgeType.IN_GROUP or (edge.type, edge.source, edge.target) in present:
            continue
        try:
            canvas.get_nodes([edge.source, edge.target])
        except NodeNotFound:
            continue
        back.append(Link(type=edge.type, source=edge.source, target=edge.target, properties=edge.properties))
    return back


def _existed(canvas: CanvasReader, node_id: str, known: set[str], before: int) -> bool:
    if node_id in known:
        return True
    states = canvas.node_histories([node_id]).get(node_id) or []  # type: ignore[attr-defined]
    return _state_at(states, before) is not None
