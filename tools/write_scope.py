"""What the version and cut tools write, from their arguments and the canvas: the smallest grant scope for them.

The grant policy (``nodes/policy.py``) derives a turn's grant before the model proposes anything; for these
tools it can ask :func:`write_scope` which existing nodes a call would write, and grant exactly that as a
:class:`nodes.grant.Scope` (``node_ids`` and ``descendants_of``).  The bridge still checks every mutation a
tool produces against the grant at commit (``Bridge.authorize``): this is what lets the grant be small, not
what enforces it.

* a restore (``undo_change``, ``revert_version``) writes the output's current version (superseded) and what
  was generated from it (rebuilt): the output's original version, with its descendants; of a page, its code
  node, HTML file and preview; of a deck, the deck with its slides, their contents and pictures;
* ``undo_turn`` writes what the turn wrote, and the outputs of those nodes with their descendants;
* the cut tools write the cut (a new version supersedes it) and, when they insert a shot into the
  storyboard, the shot whose ``CONTINUES`` edge moves and the shots' group;
* ``set_clip_duration`` writes the clip and what was made from it (the cut).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from store.base import CanvasReader
from store.errors import NodeNotFound
from store.models import Direction, EdgeType
from tools.base import ToolError
from tools.cut import NoCut, clip_of_shot, cut_entries, find_cut, is_position, shot_ref
from tools.history import output_of, outputs_of
from tools.restore import inputs_to_restore
from tools.turn_undo import find_turn
from tools.version_tools import RevertArgs, UndoChangeArgs, document_of, restore_target


class WriteScope(BaseModel):
    """Existing nodes a tool call may write: ``node_ids`` themselves, and ``descendants_of`` with what derives
    from them (the fields of :class:`nodes.grant.Scope`); ``kinds`` it may create."""

    node_ids: list[str] = Field(default_factory=list)
    descendants_of: list[str] = Field(default_factory=list)
    kinds: list[str] = Field(default_factory=list)


def _restore(canvas: CanvasReader, args: dict[str, Any], schema: type[BaseModel]) -> WriteScope:
    """The output's lineage, and the lineages of the inputs the restored version needs back; for a page or a
    deck, what its own undo and revert write (``tools.version_tools.document_of``)."""
    document = document_of(canvas, canvas.get_node(str(args["node_id"])))
    if document is not None:
        return _document(canvas, *document)
    try:
        history, target, _ = restore_target(canvas, schema.model_validate(args))  # type: ignore[arg-type]
    except ToolError:  # no such version: the call writes nothing, and the tool tells the model why
        return WriteScope(descendants_of=[output_of(canvas, str(args["node_id"]))])
    state = history.state(target.number)
    upstream = [h.id for h in inputs_to_restore(canvas, state)]
    roots = [history.root_id, *(outputs_of(canvas, upstream).values() if upstream else [])]
    groups = [n.group_id for n in canvas.get_nodes([v.node_id for v in history.versions[-1:]]) if n.group_id]
    return WriteScope(node_ids=groups, descendants_of=list(dict.fromkeys(roots)),
                      kinds=[state.kind, "image", "video", "audio"])


def _document(canvas: CanvasReader, kind: str, node_id: str) -> WriteScope:
    """A page's current code node with what is made from it (its HTML file and preview); a deck's current
    version with its slides, their contents and pictures."""
    from tools.deck.tools import deck_scope
    from tools.page.tools import page_scope

    if kind == "page":
        ids = page_scope(canvas, node_id)
        return WriteScope(node_ids=ids, descendants_of=ids[:1], kinds=["code", "file", "image"])
    return WriteScope(node_ids=deck_scope(canvas, node_id, history=True), kinds=["deck", "slide", "text", "image"])


def _undo_turn(canvas: CanvasReader, args: dict[str, Any]) -> WriteScope:
    try:
        changes = find_turn(canvas, thread_id=args.get("thread_id"), turn_id=args.get("turn_id"))
    except ToolError:  # no turn to undo: the call writes nothing, and the tool tells the model why
        return WriteScope()
    diff = canvas.diff(changes.canvas_before, changes.canvas_after)  # type: ignore[attr-defined]
    sources = [e.source for e in [*diff.added_edges, *diff.removed_edges] if e.id in set(changes.edge_ids)]
    nodes = canvas.get_nodes(changes.node_ids, include_deleted=True) if changes.node_ids else []
    live = [n.id for n in nodes if not n.deleted]
    roots = set(outputs_of(canvas, live).values()) if live else set()
    groups = [n.group_id for n in nodes if n.group_id]
    return WriteScope(node_ids=list(dict.fromkeys([*changes.node_ids, *sources, *groups])),
                      descendants_of=sorted(roots), kinds=sorted({n.kind for n in nodes}))


def _cut(canvas: CanvasReader, args: dict[str, Any]) -> WriteScope:
    try:
        cut = find_cut(canvas, args.get("cut_id"))
    except ToolError:  # no cut, or several: the call writes nothing, and the tool tells the model why
        return WriteScope()
    return WriteScope(descendants_of=[output_of(canvas, cut.id)], kinds=["video"])


def _new_shot(canvas: CanvasReader, args: dict[str, Any]) -> WriteScope:
    """The cut, the shots next to the new one (their CONTINUES edge moves), and the shots' group."""
    try:
        cut = find_cut(canvas, args.get("cut_id"))
    except NoCut:
        cut = None
    scope = WriteScope(descendants_of=[output_of(canvas, cut.id)] if cut else [], kinds=["shot", "image", "video"])
    entries = cut_entries(canvas, cut) if cut else []
    for key in ("after", "before", "shot"):
        if args.get(key) is None:
            continue
        shot = shot_ref(canvas, entries, args[key])
        neighbours = canvas.neighbours(shot.id, [EdgeType.CONTINUES], Direction.BOTH)
        scope.node_ids += [shot.id, *(n.node.id for n in neighbours), *([shot.group_id] if shot.group_id else [])]
    scope.node_ids = list(dict.fromkeys(scope.node_ids))
    return scope


def _clip(canvas: CanvasReader, args: dict[str, Any]) -> WriteScope:
    ref = args["shot"]
    if is_position(ref):
        cut = find_cut(canvas, args.get("cut_id"))
        shot = shot_ref(canvas, cut_entries(canvas, cut), ref)
    else:
        node = canvas.get_node(str(ref))
        if node.provenance.tool == "generate_video":
            return WriteScope(descendants_of=[output_of(canvas, node.id)], kinds=["video"])
        shot = shot_ref(canvas, [], str(ref))
    _, clip = clip_of_shot(canvas, shot)
    return WriteScope(descendants_of=[output_of(canvas, clip.id)], kinds=["video"])


WRITE_SCOPES: dict[str, Callable[[CanvasReader, dict[str, Any]], WriteScope]] = {
    "undo_change": lambda canvas, args: _restore(canvas, args, UndoChangeArgs),
    "revert_version": lambda canvas, args: _restore(canvas, args, RevertArgs),
    "undo_turn": _undo_turn,
    "reorder_cut": _cut,
    "remove_from_cut": _cut,
    "return_to_cut": _cut,
    "insert_shot": _new_shot,
    "duplicate_shot": _new_shot,
    "set_clip_duration": _clip,
}
"""Tool name -> what a call with these arguments writes (read-only tools write nothing and are absent)."""


def write_scope(canvas: CanvasReader, tool: str, args: dict[str, Any]) -> WriteScope:
    """What a call of ``tool`` with ``args`` writes on this canvas: empty for a tool that writes nothing, and for
    a call that cannot run (an unknown node, no such shot), which the tool refuses with its reason when run."""
    found = WRITE_SCOPES.get(tool)
    if found is None:
        return WriteScope()
    try:
        return found(canvas, args)
    except (ToolError, NodeNotFound):  # a call that cannot run writes nothing; the tool says why when it runs
        return WriteScope()
