"""The narrative cut as operations a model can call: reorder, take out, put back, insert, duplicate, retime.

A cut is a video node made by ``assemble_cut`` whose ``inputs.clip_node_ids`` are its clips in playing order.
Every operation here makes a **new version of the cut** (``VERSION_OF`` the current one, which it supersedes)
through ``assemble_cut`` itself, so the cut stays regenerable and an earlier order is one ``undo_change``
away; its clips are the current versions of theirs.  Only the cut is rebuilt, plus, for a new or duplicated
shot, that shot's image and clip (a duplicate's come from the signature cache: no provider call), or, for a
new duration, that clip.  The new cut's ``inputs.intent.order`` lists its clips' titles in the order asked
for, so the evaluator checks the order that was asked, not shot numbers.

A shot is named by its position in the cut (1-based) or by the id of the shot, its image or its clip (any
version).  Inserted and duplicated shots are titled like inserted scenes in a shooting script: after
``shot 3`` comes ``shot 3a`` (then ``3b``), so no other shot is renumbered.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field, model_validator

from content.story_plan import inserted_shot_inputs
from store.base import CanvasReader
from store.models import CanvasNode, Direction, EdgeType, NodeStatus, new_id
from store.mutations import CreateNode, Link, Unlink
from tools.base import Effect, ToolContext, ToolError, ToolFamily, ToolResult, ToolSpec
from tools.generate.base import CameraMove, Lighting
from tools.history import require_output
from tools.recovery import regeneration_args
from tools.restore import VersionBatch
from tools.versions import current_versions

CutRef = int | str
"""A shot of the cut: its 1-based position in the cut (negative counts from the end: -1 is the last shot), or
the id of the shot, its image or its clip."""


class NoCut(ToolError):
    """There is no cut to change (none assembled yet, or the node named is not a cut)."""


class AmbiguousCut(ToolError):
    """Several current cuts exist and none was named."""


class NotInCut(ToolError):
    """A shot named for a cut operation is not in the cut (or the position is past its end)."""


class CutUnchanged(ToolError):
    """The operation would leave the cut as it is."""


class CutEntry(BaseModel):
    """One clip of a cut, with the image and the shot it was made from."""

    model_config = {"arbitrary_types_allowed": True}

    position: int
    clip: CanvasNode
    image: CanvasNode | None = None
    shot: CanvasNode | None = None

    @property
    def label(self) -> str:
        """How a reply names the entry."""
        return (self.shot.title if self.shot else None) or self.clip.title or self.clip.id


# -- reading the cut --------------------------------------------------------------------------------------

def _reader(ctx: ToolContext) -> CanvasReader:
    if ctx.canvas is None:
        raise ToolError("the cut tools need the canvas")
    return ctx.canvas


def find_cut(canvas: CanvasReader, cut_id: str | None) -> CanvasNode:
    """The current version of the cut named (any version of it), or of the project's one current cut."""
    if cut_id:
        node = require_output(canvas, cut_id)
        if node.provenance.tool != "assemble_cut":
            raise NoCut(f"node {cut_id} ({node.kind} {node.title!r}) is not a cut made by assemble_cut")
        return current_versions(canvas, [node])[node.id]
    cuts = [n for n in canvas.find_nodes(kind="video") if n.provenance.tool == "assemble_cut"
            and n.status != NodeStatus.REJECTED]
    heads = {h.id: h for h in current_versions(canvas, cuts).values() if h.status != NodeStatus.REJECTED}
    if not heads:
        raise NoCut("there is no cut on the canvas yet; assemble one with assemble_cut")
    if len(heads) > 1:
        named = ", ".join(f"{h.id} ({h.title!r})" for h in heads.values())
        raise AmbiguousCut(f"there are {len(heads)} current cuts ({named}); pass cut_id")
    return next(iter(heads.values()))


def cut_entries(canvas: CanvasReader, cut: CanvasNode) -> list[CutEntry]:
    """The cut's clips in playing order, each at its current version, with its image and shot."""
    ids = [str(i) for i in cut.inputs.get("clip_node_ids") or []]
    clips = {n.id: n for n in canvas.get_nodes(ids)} if ids else {}
    heads = current_versions(canvas, list(clips.values()))
    made_from = canvas.lineages([h.id for h in heads.values()], [EdgeType.GENERATED_FROM], Direction.OUT,
                                max_depth=2) if heads else {}
    entries = []
    for position, clip_id in enumerate(ids, start=1):
        head = heads[clip_id]
        found = sorted(made_from.get(head.id, []), key=lambda e: e.depth)
        image = next((e.node for e in found if e.node.kind == "image"), None)
        shot = next((e.node for e in found if e.node.kind == "shot"), None)
        entries.append(CutEntry(position=position, clip=head, image=image, shot=shot))
    return entries


def _roots(canvas: CanvasReader, ids: list[str]) -> dict[str, str]:
    """Node id -> the original version of its output."""
    if not ids:
        return {}
    older = canvas.lineages(list(dict.fromkeys(ids)), [EdgeType.VERSION_OF], Direction.OUT, with_start=True)
    return {i: max(found, key=lambda e: e.depth).node.id for i, found in older.items() if found}


def is_position(ref: CutRef) -> bool:
    """Whether a reference is a position in the cut (1-based, or negative from the end), not a node id."""
    return isinstance(ref, int) or bool(re.fullmatch(r"\s*-?\d+\s*", str(ref)))


def locate(canvas: CanvasReader, entries: list[CutEntry], ref: CutRef) -> CutEntry:
    """The entry a reference names: a position (negative from the end), or a shot, image or clip id (any version
    of the image or clip)."""
    if is_position(ref):
        position = int(ref)
        if not 1 <= position <= len(entries) and not -len(entries) <= position <= -1:
            raise NotInCut(f"the cut has {len(entries)} shots; there is no position {position}")
        return entries[position - 1 if position > 0 else position]
    node = require_output(canvas, str(ref).strip())
    for entry in entries:
        if entry.shot is not None and entry.shot.id == node.id:
            return entry
    roots = _roots(canvas, [node.id, *(e.clip.id for e in entries), *(e.image.id for e in entries if e.image)])
    for entry in entries:
        if roots.get(node.id) in {roots.get(entry.clip.id), roots.get(entry.image.id) if entry.image else None}:
            return entry
    raise NotInCut(f"{node.title or node.id} ({node.kind}) is not in the cut; its shots are "
                   f"{', '.join(e.label for e in entries)} (return_to_cut puts a shot back)")


def shot_of(canvas: CanvasReader, node: CanvasNode) -> CanvasNode:
    """The shot a shot, image or clip belongs to (an image GENERATED_FROM its shot, a clip from its image)."""
    if node.kind == "shot":
        return node
    found = canvas.lineage(node.id, [EdgeType.GENERATED_FROM], Direction.OUT, max_depth=2)
    shot = next((e.node for e in sorted(found, key=lambda e: e.depth) if e.node.kind == "shot"), None)
    if shot is None:
        raise NotInCut(f"{node.title or node.id} ({node.kind}) was not made from a storyboard shot")
    return shot


def clip_of_shot(canvas: CanvasReader, shot: CanvasNode) -> tuple[CanvasNode, CanvasNode]:
    """The current image and clip of a storyboard shot."""
    images = [n.node for n in canvas.neighbours(shot.id, [EdgeType.GENERATED_FROM], Direction.IN)
              if n.node.kind == "image" and n.node.status != NodeStatus.REJECTED]
    image = _newest_head(canvas, images)
    clips = [n.node for n in canvas.neighbours(image.id, [EdgeType.GENERATED_FROM], Direction.IN)
             if n.node.kind == "video" and n.node.provenance.tool == "generate_video"
             and n.node.status != NodeStatus.REJECTED] if image else []
    clip = _newest_head(canvas, clips)
    if image is None or clip is None:
        raise NotInCut(f"{shot.title} has no current {'image' if image is None else 'clip'} to put in the cut")
    return image, clip


def _newest_head(canvas: CanvasReader, nodes: list[CanvasNode]) -> CanvasNode | None:
    heads = {h.id: h for h in current_versions(canvas, nodes).values() if h.status != NodeStatus.REJECTED}
    return max(heads.values(), key=lambda n: (n.created_at, n.id)) if heads else None


def story_rank(canvas: CanvasReader, shots: list[CanvasNode]) -> dict[str, int]:
    """Each shot's place in the storyboard's ``CONTINUES`` chain (0 for the first), for shots that have one."""
    edges = canvas.edges([s.id for s in shots], edge_types=[EdgeType.CONTINUES])
    follows = {e.source: e.target for e in edges}
    ranks: dict[str, int] = {}
    for shot in shots:
        seen, here = {shot.id}, shot.id
        while here in follows and follows[here] not in seen:
            here = follows[here]
            seen.add(here)
        ranks[shot.id] = len(seen) - 1
    return ranks


# -- rebuilding the cut -----------------------------------------------------------------------------------

def rebuild_cut(batch: VersionBatch, cut: CanvasNode, clips: list[CanvasNode], note: dict[str, Any]) -> str:
    """A new version of ``cut`` with ``clips`` in this order (assemble_cut, through the cache)."""
    if not clips:
        raise ToolError("a cut needs at least one clip; this would leave it empty")
    if [c.id for c in clips] == list(cut.inputs.get("clip_node_ids") or []):
        raise CutUnchanged(f"{cut.title or 'the cut'} already has these clips in this order; nothing to change")
    order = [c.title or c.id for c in clips]
    new = batch.regenerate(cut, {"clip_node_ids": [c.id for c in clips], "intent": {"order": order}},
                           remade_edges="clip")
    for index, mutation in enumerate(batch.mutations):
        if isinstance(mutation, CreateNode) and mutation.id == new:
            batch.mutations[index] = mutation.model_copy(update={"metadata": {**mutation.metadata, "cut_edit": note}})
    return new


def _cut_result(batch: VersionBatch, cut: CanvasNode, new_cut: str, clips: list[CanvasNode],
                extra: dict[str, Any]) -> ToolResult:
    return batch.result({"cut": {"old": cut.id, "new": new_cut, "title": cut.title},
                         "order": [c.title or c.id for c in clips], **extra})


class _CutArgs(BaseModel):
    cut_id: str | None = Field(default=None, description="The cut (any version); default: the one current cut")


# -- reorder ----------------------------------------------------------------------------------------------

class ReorderCutArgs(_CutArgs):
    """Arguments of ``reorder_cut``: exactly one of ``order``, ``swap``, or ``move`` with one of ``to``,
    ``after``, ``before``, ``by``."""

    order: list[CutRef] | None = Field(default=None, description="Every shot of the cut once, in the new order "
                                                                  "(positions or ids): [1, 2, 4, 3] swaps 3 and 4")
    swap: list[CutRef] | None = Field(default=None, min_length=2, max_length=2, description="Two shots to swap")
    move: CutRef | None = Field(default=None, description="A shot to move (with to, after, before or by)")
    to: int | None = Field(default=None, description="The position 'move' goes to: 1 is the start, -1 the end")
    after: CutRef | None = Field(default=None, description="Move it right after this shot")
    before: CutRef | None = Field(default=None, description="Move it right before this shot")
    by: int | None = Field(default=None, description="Move it this many places from where it plays: -1 is one "
                                                     "place earlier, 2 two places later")

    @model_validator(mode="after")
    def _one_way(self) -> ReorderCutArgs:
        ways = [self.order is not None, self.swap is not None, self.move is not None]
        places = [self.to is not None, self.after is not None, self.before is not None, self.by is not None]
        if sum(ways) != 1 or (self.move is not None) != (sum(places) == 1) or sum(places) > 1 or self.to == 0 \
                or self.by == 0:
            raise ValueError("give exactly one of: order; swap (two shots); move with one of to (1 = the start, "
                             "-1 = the end), after, before or by (places from where it plays: -1 one earlier)")
        return self


def _reorder(ctx: ToolContext, args: ReorderCutArgs) -> ToolResult:
    canvas = _reader(ctx)
    cut = find_cut(canvas, args.cut_id)
    entries = cut_entries(canvas, cut)
    if args.swap is not None:
        first, second = (locate(canvas, entries, r) for r in args.swap)
        if first.position == second.position:
            raise CutUnchanged(f"both name {first.label}; name two different shots to swap")
        order = list(entries)
        order[first.position - 1], order[second.position - 1] = second, first
    elif args.move is not None:
        moving = locate(canvas, entries, args.move)
        order = [e for e in entries if e.position != moving.position]
        order.insert(_move_index(canvas, entries, order, moving, args), moving)
    else:
        order = [locate(canvas, entries, r) for r in args.order or []]
        named = [e.position for e in order]
        missing = [e.label for e in entries if e.position not in named]
        repeated = sorted({entries[p - 1].label for p in named if named.count(p) > 1})
        if missing or repeated:
            raise ToolError("order must name every shot of the cut exactly once"
                            + (f"; missing: {', '.join(missing)}" if missing else "")
                            + (f"; named twice: {', '.join(repeated)}" if repeated else ""))
    batch = VersionBatch(ctx, canvas, reason="the cut reordered")
    clips = [e.clip for e in order]
    new = rebuild_cut(batch, cut, clips, {"op": "reorder", "from": [e.label for e in entries]})
    return _cut_result(batch, cut, new, clips, {"shots": [e.label for e in order]})


def _move_index(canvas: CanvasReader, entries: list[CutEntry], rest: list[CutEntry], moving: CutEntry,
                args: ReorderCutArgs) -> int:
    """Where in ``rest`` (the cut without the moving shot) it goes: a position, some places from where it plays,
    or next to another shot."""
    if args.by is not None:
        return moved_by(entries, moving, args.by) - 1
    if args.to is not None:
        if abs(args.to) > len(entries):
            raise NotInCut(f"the cut has {len(entries)} shots; position {args.to} is past its end")
        return args.to - 1 if args.to > 0 else len(rest) + 1 + args.to
    neighbour = locate(canvas, entries, args.after if args.after is not None else args.before)  # type: ignore[arg-type]
    if neighbour.position == moving.position:
        raise CutUnchanged(f"{moving.label} cannot be moved next to itself")
    index = next(i for i, e in enumerate(rest) if e.position == neighbour.position)
    return index + 1 if args.after is not None else index


def moved_by(entries: list[CutEntry], moving: CutEntry, by: int) -> int:
    """The position ``moving`` takes ``by`` places from where it plays ("move shot 3 up one": -1); past either end
    of the cut is an error, not the end it would stop at (the person counted places that are not there)."""
    to = moving.position + by
    if not 1 <= to <= len(entries):
        way = f"{abs(by)} place{'s' if abs(by) != 1 else ''} {'earlier' if by < 0 else 'later'}"
        raise NotInCut(f"{moving.label} plays at position {moving.position} of {len(entries)}; {way} is past the "
                       f"{'start' if by < 0 else 'end'} of the cut")
    return to


# -- remove and put back ----------------------------------------------------------------------------------

class RemoveFromCutArgs(_CutArgs):
    """Arguments of ``remove_from_cut``."""

    shots: list[CutRef] = Field(min_length=1, description="Shots to take out (positions or ids)")


def _remove(ctx: ToolContext, args: RemoveFromCutArgs) -> ToolResult:
    canvas = _reader(ctx)
    cut = find_cut(canvas, args.cut_id)
    entries = cut_entries(canvas, cut)
    out = {locate(canvas, entries, r).position for r in args.shots}
    kept = [e for e in entries if e.position not in out]
    removed = [e for e in entries if e.position in out]
    batch = VersionBatch(ctx, canvas, reason="shots taken out of the cut")
    new = rebuild_cut(batch, cut, [e.clip for e in kept], {
        "op": "remove", "removed": [{"clip": e.clip.id, "shot": e.shot.id if e.shot else None,
                                     "position": e.position, "title": e.label} for e in removed]})
    return _cut_result(batch, cut, new, [e.clip for e in kept], {"removed": [e.label for e in removed]})


class ReturnToCutArgs(_CutArgs):
    """Arguments of ``return_to_cut``."""

    shot: str = Field(description="The shot to put back: the id of the shot, its image or its clip")
    position: int | None = Field(default=None, ge=1, description="Where (1-based); default: its place in the story")


def _return(ctx: ToolContext, args: ReturnToCutArgs) -> ToolResult:
    canvas = _reader(ctx)
    cut = find_cut(canvas, args.cut_id)
    entries = cut_entries(canvas, cut)
    shot = shot_of(canvas, require_output(canvas, args.shot))
    _, clip = clip_of_shot(canvas, shot)
    present = next((e for e in entries if (e.shot and e.shot.id == shot.id)), None)
    if present is not None:
        raise CutUnchanged(f"{shot.title} is in the cut already, at position {present.position}")
    index = _place(canvas, entries, shot, args.position)
    clips = [e.clip for e in entries]
    clips.insert(index, clip)
    batch = VersionBatch(ctx, canvas, reason=f"{shot.title} put back into the cut")
    new = rebuild_cut(batch, cut, clips, {"op": "return", "clip": clip.id, "shot": shot.id, "position": index + 1})
    return _cut_result(batch, cut, new, clips, {"returned": shot.title, "position": index + 1})


def _place(canvas: CanvasReader, entries: list[CutEntry], shot: CanvasNode, position: int | None) -> int:
    """The 0-based index a shot goes to: ``position``, else after every entry whose shot comes before it."""
    if position is not None:
        if position > len(entries) + 1:
            raise NotInCut(f"the cut has {len(entries)} shots; position {position} is past its end")
        return position - 1
    shots = [e.shot for e in entries if e.shot is not None]
    ranks = story_rank(canvas, [*shots, shot])
    mine = ranks[shot.id]
    index = 0
    for i, entry in enumerate(entries):
        if entry.shot is not None and ranks.get(entry.shot.id, -1) < mine:
            index = i + 1
    return index


# -- insert and duplicate ----------------------------------------------------------------------------------

class InsertShotArgs(_CutArgs):
    """Arguments of ``insert_shot``: a description, and where (after and/or before a shot)."""

    description: str = Field(min_length=1, max_length=1000, description="What happens in the new shot")
    after: CutRef | None = Field(default=None, description="The shot it comes after (position or id)")
    before: CutRef | None = Field(default=None, description="The shot it comes before (position or id)")
    camera: CameraMove | None = Field(default=None, description="Default: the move after the previous shot's")
    lighting: Lighting | None = Field(default=None, description="Default: the previous shot's lighting")

    @model_validator(mode="after")
    def _somewhere(self) -> InsertShotArgs:
        if self.after is None and self.before is None:
            raise ValueError("say where the shot goes: after and/or before a shot")
        return self


def shot_ref(canvas: CanvasReader, entries: list[CutEntry], ref: CutRef) -> CanvasNode:
    """The storyboard shot a reference names: a position in the cut (``entries``), or a shot, image or clip id."""
    if is_position(ref):
        entry = locate(canvas, entries, ref)
        if entry.shot is None:
            raise NotInCut(f"position {entry.position} of the cut ({entry.label}) was not made from a storyboard shot")
        return entry.shot
    return shot_of(canvas, require_output(canvas, str(ref).strip()))


def _continuing(canvas: CanvasReader, shot: CanvasNode) -> tuple[CanvasNode | None, CanvasNode | None]:
    """The live shots before and after ``shot`` in the storyboard's CONTINUES chain."""
    out = [n.node for n in canvas.neighbours(shot.id, [EdgeType.CONTINUES], Direction.OUT)
           if n.node.status != NodeStatus.REJECTED]
    into = [n.node for n in canvas.neighbours(shot.id, [EdgeType.CONTINUES], Direction.IN)
            if n.node.status != NodeStatus.REJECTED]
    return (out[0] if out else None), (into[0] if into else None)


def _free_title(canvas: CanvasReader, near: CanvasNode) -> str:
    """``shot 3a`` for a shot placed after ``shot 3`` (``3b`` if taken, ...)."""
    number = re.match(r"shot (\d+)", near.title or "")
    base = f"shot {number.group(1)}" if number else (near.title or "shot")
    taken = {n.title for n in canvas.find_nodes(kind="shot")}
    for letter in "abcdefghijklmnopqrstuvwxyz":
        if f"{base}{letter}" not in taken:
            return f"{base}{letter}"
    raise ToolError(f"too many shots were inserted after {near.title}")


def current_cut(canvas: CanvasReader, cut_id: str | None) -> CanvasNode | None:
    try:
        return find_cut(canvas, cut_id)
    except NoCut:
        if cut_id:
            raise
        return None


def _plan_of(canvas: CanvasReader, shot: CanvasNode) -> CanvasNode | None:
    return next((n.node for n in canvas.neighbours(shot.id, [EdgeType.GENERATED_FROM], Direction.OUT)
                 if n.node.kind == "plan"), None)


def _new_shot(batch: VersionBatch, shot_id: str, title: str, inputs: dict[str, Any], like: CanvasNode,
              after: CanvasNode | None, before: CanvasNode | None, tool: str) -> None:
    """The shot node, made from the plan and referencing what ``like`` references, linked into CONTINUES."""
    ctx = batch.ctx
    batch.mutations.append(CreateNode(
        id=shot_id, kind="shot", title=title, status=NodeStatus.COMPLETED, group_id=like.group_id, inputs=inputs,
        metadata={"provenance": {"actor": ctx.actor, "tool": tool, "turn_id": ctx.turn_id,
                                 "thread_id": ctx.thread_id}}))
    plan = _plan_of(batch.canvas, like)
    if plan is not None:
        batch.mutations.append(Link(type=EdgeType.GENERATED_FROM, source=shot_id, target=plan.id))
    for ref in batch.canvas.neighbours(like.id, [EdgeType.REFERENCES], Direction.OUT):
        batch.mutations.append(Link(type=EdgeType.REFERENCES, source=shot_id, target=ref.node.id,
                                    properties=ref.edge.properties))
    if after is not None:
        batch.mutations.append(Link(type=EdgeType.CONTINUES, source=shot_id, target=after.id))
    if before is not None:
        if after is not None:
            batch.mutations.append(Unlink(type=EdgeType.CONTINUES, source=before.id, target=after.id))
        batch.mutations.append(Link(type=EdgeType.CONTINUES, source=before.id, target=shot_id))


def neighbours_of_new_shot(canvas: CanvasReader, entries: list[CutEntry], after_ref: CutRef | None,
                           before_ref: CutRef | None) -> tuple[CanvasNode | None, CanvasNode | None]:
    """The storyboard shots a new shot goes between: both named (they must be next to each other), or one and
    its neighbour in the ``CONTINUES`` chain."""
    after = shot_ref(canvas, entries, after_ref) if after_ref is not None else None
    before = shot_ref(canvas, entries, before_ref) if before_ref is not None else None
    if after is not None and before is not None:
        following = _continuing(canvas, after)[1]
        if following is None or following.id != before.id:
            raise ToolError(f"{after.title} and {before.title} are not next to each other in the storyboard; "
                            f"name one of them, or two neighbouring shots")
    elif after is not None:
        before = _continuing(canvas, after)[1]
    elif before is not None:
        after = _continuing(canvas, before)[0]
    return after, before


def _insert(ctx: ToolContext, args: InsertShotArgs) -> ToolResult:
    canvas = _reader(ctx)
    cut = current_cut(canvas, args.cut_id)
    entries = cut_entries(canvas, cut) if cut else []
    after, before = neighbours_of_new_shot(canvas, entries, args.after, args.before)
    like = after or before
    assert like is not None
    plan = _plan_of(canvas, like)
    scene = canvas.get_node(like.inputs["scene_id"]) if like.inputs.get("scene_id") else None
    inputs = inserted_shot_inputs(plan.inputs if plan else {}, args.description, after=like.inputs,
                                  scene_name=str((scene.inputs.get("name") if scene else None) or "the scene"),
                                  camera=args.camera, lighting=args.lighting)
    title = _free_title(canvas, after or like)
    batch = VersionBatch(ctx, canvas, reason=f"{title} inserted")
    shot_id = new_id()
    _new_shot(batch, shot_id, title, inputs, like, after, before, "insert_shot")
    neighbour_image, neighbour_clip = clip_of_shot(canvas, like)
    roles = {i: r for i, r in ((inputs.get("character_id"), "character"), (inputs.get("scene_id"), "scene")) if i}
    image = batch.generate("generate_image", {
        "prompt": inputs["prompt"], "references": list(roles), "reference_roles": roles,
        "lighting": inputs["lighting"], "seed": int(neighbour_image.inputs.get("seed") or 0),
        "width": int(neighbour_image.inputs.get("width") or 512),
        "height": int(neighbour_image.inputs.get("height") or 288), "title": f"{title} image"})
    batch.mutations.append(Link(type=EdgeType.GENERATED_FROM, source=image["node_id"], target=shot_id,
                                properties={"as": "shot"}))
    clip = batch.generate("generate_video", {
        "source_node_id": image["node_id"], "camera": inputs["camera"],
        "duration_s": float(neighbour_clip.inputs.get("duration_s") or 2.0),
        "fps": int(neighbour_clip.inputs.get("fps") or 12), "title": f"{title} clip"})
    made = {"shot": {"node_id": shot_id, "title": title, "after": after.title if after else None,
                     "before": before.title if before else None}, "image": image["node_id"], "clip": clip["node_id"]}
    return _into_cut(batch, cut, entries, after, before, made, {"op": "insert"})


def _into_cut(batch: VersionBatch, cut: CanvasNode | None, entries: list[CutEntry], after: CanvasNode | None,
              before: CanvasNode | None, made: dict[str, Any], note: dict[str, Any]) -> ToolResult:
    """A new shot's clip into the cut, right after ``after``'s clip (else before ``before``'s); with no cut on
    the canvas the shot joins the storyboard only."""
    if cut is None:
        return batch.result({**made, "cut": None, "note": "there is no cut yet; the shot is in the storyboard"})
    clips = [e.clip for e in entries]
    index = _insert_index(entries, after, before)
    clips.insert(index, _pending_clip(batch, made["clip"]))
    new = rebuild_cut(batch, cut, clips, {**note, "shot": made["shot"]["node_id"], "position": index + 1})
    return _cut_result(batch, cut, new, clips, {**made, "position": index + 1})


def _insert_index(entries: list[CutEntry], after: CanvasNode | None, before: CanvasNode | None) -> int:
    """Right after ``after``'s clip, else right before ``before``'s, else at the end."""
    for entry in entries:
        if after is not None and entry.shot is not None and entry.shot.id == after.id:
            return entry.position
    for entry in entries:
        if before is not None and entry.shot is not None and entry.shot.id == before.id:
            return entry.position - 1
    return len(entries)


def _pending_clip(batch: VersionBatch, clip_id: str) -> CanvasNode:
    """The clip this batch makes, as the node it will be."""
    made = next(m for m in batch.mutations if isinstance(m, CreateNode) and m.id == clip_id)
    return CanvasNode(id=made.id, kind=made.kind, title=made.title, status=made.status, inputs=made.inputs,
                      outputs=made.outputs, metadata=made.metadata)


class DuplicateShotArgs(_CutArgs):
    """Arguments of ``duplicate_shot``."""

    shot: CutRef = Field(description="The shot to duplicate (position or id); the copy comes right after it")


def _duplicate(ctx: ToolContext, args: DuplicateShotArgs) -> ToolResult:
    canvas = _reader(ctx)
    cut = current_cut(canvas, args.cut_id)
    entries = cut_entries(canvas, cut) if cut else []
    original = shot_ref(canvas, entries, args.shot)
    image, clip = clip_of_shot(canvas, original)
    following = _continuing(canvas, original)[1]
    title = _free_title(canvas, original)
    batch = VersionBatch(ctx, canvas, reason=f"{original.title} duplicated as {title}")
    shot_id = new_id()
    _new_shot(batch, shot_id, title, {**original.inputs, "duplicate_of": original.id}, original, original,
              following, "duplicate_shot")
    # The same inputs sign the same: the copy's image and clip come from the cache (no provider call).
    new_image = batch.generate("generate_image", {**regeneration_args(image, {}, {}), "version_of": None,
                                                  "title": f"{title} image"})
    batch.mutations.append(Link(type=EdgeType.GENERATED_FROM, source=new_image["node_id"], target=shot_id,
                                properties={"as": "shot"}))
    new_clip = batch.generate("generate_video", {**regeneration_args(clip, {image.id: new_image["node_id"]}, {}),
                                                 "version_of": None, "title": f"{title} clip"})
    made = {"shot": {"node_id": shot_id, "title": title, "duplicate_of": original.title},
            "image": new_image["node_id"], "clip": new_clip["node_id"]}
    return _into_cut(batch, cut, entries, original, following, made, {"op": "duplicate", "of": original.id})


# -- a clip's duration ----------------------------------------------------------------------------------------

class ClipDurationArgs(_CutArgs):
    """Arguments of ``set_clip_duration``."""

    shot: CutRef = Field(description="The shot whose clip to retime (position in the cut, or shot/image/clip id)")
    duration_s: float | None = Field(default=None, gt=0, le=60, description="The clip's new length in seconds")
    by_s: float | None = Field(default=None, ge=-60, le=60, description="Or: seconds to add (negative: to take off)")

    @model_validator(mode="after")
    def _one_length(self) -> ClipDurationArgs:
        if (self.duration_s is None) == (self.by_s is None) or self.by_s == 0:
            raise ValueError("give exactly one of duration_s (the new length) or by_s (seconds to add or take off)")
        return self


def _duration(ctx: ToolContext, args: ClipDurationArgs) -> ToolResult:
    canvas = _reader(ctx)
    if is_position(args.shot):
        cut = find_cut(canvas, args.cut_id)
        clip = locate(canvas, cut_entries(canvas, cut), args.shot).clip
    else:
        node = require_output(canvas, str(args.shot).strip())
        clip = current_versions(canvas, [node])[node.id] if node.provenance.tool == "generate_video" \
            else clip_of_shot(canvas, shot_of(canvas, node))[1]
    now = float(clip.inputs.get("duration_s") or 0)
    length = round(now + args.by_s, 3) if args.by_s is not None else float(args.duration_s or 0)
    if not 0 < length <= 60:
        raise ToolError(f"{clip.title} lasts {now:g} s; {args.by_s:+g} s would make it {length:g} s (a clip lasts "
                        "more than 0 and at most 60 s)")
    if now == length:
        raise CutUnchanged(f"{clip.title} lasts {length:g} s already")
    batch = VersionBatch(ctx, canvas, reason=f"{clip.title} retimed to {length:g} s")
    new_clip = batch.regenerate(clip, {"duration_s": length})
    batch.rebuild_derived()
    return batch.result({"clip": {"old": clip.id, "new": new_clip, "title": clip.title, "duration_s": length,
                                  "was_s": now}})


# -- the specs ----------------------------------------------------------------------------------------------

_CUT_EFFECTS = frozenset({Effect.MUTATES_CANVAS, Effect.GENERATES_MEDIA})
"""Rebuilding a cut is local ffmpeg work: media, no cost."""
_NEW_SHOT_EFFECTS = _CUT_EFFECTS | {Effect.COST_BEARING}
"""A new shot's image and clip are generated (a duplicate's usually come from the cache)."""

REORDER_CUT = ToolSpec(
    "reorder_cut", ToolFamily.GENERATION,
    "Reorder the shots of the cut: swap=[a, b], move=a with to=N (-1: the end), by=N places (-1: one earlier) or "
    "after/before=b, or order=[every shot]. Shots are positions in the cut (negative from the end) or shot/image/clip ids. Rebuilds only the cut.",
    ReorderCutArgs, _CUT_EFFECTS, _reorder)
REMOVE_FROM_CUT = ToolSpec(
    "remove_from_cut", ToolFamily.GENERATION,
    "Take shots out of the cut (positions or ids); the shots stay on the canvas. Rebuilds only the cut.",
    RemoveFromCutArgs, _CUT_EFFECTS, _remove)
RETURN_TO_CUT = ToolSpec(
    "return_to_cut", ToolFamily.GENERATION,
    "Put a shot taken out back into the cut, at its place in the story (or at position). Rebuilds only the cut.",
    ReturnToCutArgs, _CUT_EFFECTS, _return)
INSERT_SHOT = ToolSpec(
    "insert_shot", ToolFamily.GENERATION,
    "Insert a new shot, described in words, after and/or before a shot (in the storyboard and the cut): its "
    "image and clip are made like the others', with the same references.", InsertShotArgs, _NEW_SHOT_EFFECTS,
    _insert)
DUPLICATE_SHOT = ToolSpec(
    "duplicate_shot", ToolFamily.GENERATION,
    "Duplicate a shot: a copy right after it in the storyboard and the cut, its image and clip reused.",
    DuplicateShotArgs, _NEW_SHOT_EFFECTS, _duplicate)
SET_CLIP_DURATION = ToolSpec(
    "set_clip_duration", ToolFamily.GENERATION,
    "Change a shot's clip length: duration_s (seconds) or by_s (seconds more, negative: less); a new version of "
    "the clip, and the cut rebuilt.", ClipDurationArgs,
    _NEW_SHOT_EFFECTS | {Effect.LONG_RUNNING}, _duration)

CUT_TOOLS: tuple[ToolSpec, ...] = (REORDER_CUT, REMOVE_FROM_CUT, RETURN_TO_CUT, INSERT_SHOT, DUPLICATE_SHOT,
                                   SET_CLIP_DURATION)
"""The cut tools, for the manifest."""
