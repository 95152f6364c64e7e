"""Lenses: views of one canvas shaped like the work it holds, computed from a snapshot of its nodes and edges.

The graph view shows the plumbing; a lens shows the work first.  The **Story**
lens lays a storyboard out as a person judges it: the shots in order, each with
its current image, its clip and, under it, the version stack (older versions,
rejected candidates, exploration branches), and the cut at the end.  Everything
here is a pure function of the live nodes and edges (one read of the canvas,
kept per canvas version by :class:`~jarvishub.web.views.CanvasViews`), so a
2,000-node canvas is shaped in a few milliseconds and the page draws from one
JSON answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from store.models import CanvasEdge, CanvasNode, EdgeType, NodeStatus

LensName = Literal["story", "deck", "page", "graph"]
StackRole = Literal["older", "rejected", "branch"]


class Media(BaseModel):
    """One output shown in a lens: the node it belongs to and the artifact to draw."""

    node_id: str
    title: str
    status: str
    version: int
    sha256: str | None = Field(default=None, description="The artifact (an image, or a clip's video).")
    mime: str | None = None
    created_at: str


class StackEntry(Media):
    """A version under a shot's column that is not its current image."""

    role: StackRole = Field(description="older: a version the current one replaced; rejected: set aside; "
                                        "branch: another line of exploration, not current")


class ShotColumn(BaseModel):
    """One shot of the story, as a column."""

    shot_id: str
    number: int = Field(description="1-based place in the story")
    title: str
    text: str | None
    status: str = Field(description="The column's status: its current image's, or the shot's when it has none.")
    shot_status: str
    image: Media | None
    clip: Media | None
    stack: list[StackEntry]


class StoryLens(BaseModel):
    """The storyboard of a canvas: shots in order, their current outputs and version stacks, and the cut."""

    canvas_version: int
    shots: list[ShotColumn]
    cut: Media | None
    cut_clip_ids: list[str] = Field(default_factory=list, description="The cut's clips, in order.")


class LensIndex(BaseModel):
    """Which lenses a canvas has content for, and the one to open by default."""

    canvas_version: int
    default: LensName
    available: list[LensName]
    counts: dict[str, int]


# -- helpers over a snapshot ---------------------------------------------------------------------------------
class Snapshot:
    """Live nodes and edges indexed the ways the lenses walk them."""

    def __init__(self, nodes: Iterable[CanvasNode], edges: Iterable[CanvasEdge]) -> None:
        self.nodes = {n.id: n for n in nodes if not n.deleted}
        self.made_from: dict[str, list[str]] = {}  # target -> sources GENERATED_FROM it
        self.newer: dict[str, list[str]] = {}  # older -> nodes VERSION_OF it
        self.older: dict[str, list[str]] = {}  # newer -> nodes it is VERSION_OF
        self.follows: dict[str, str] = {}  # shot -> the shot it CONTINUES
        for edge in edges:
            if edge.source not in self.nodes or edge.target not in self.nodes:
                continue
            if edge.type == EdgeType.GENERATED_FROM:
                self.made_from.setdefault(edge.target, []).append(edge.source)
            elif edge.type == EdgeType.VERSION_OF:
                self.newer.setdefault(edge.target, []).append(edge.source)
                self.older.setdefault(edge.source, []).append(edge.target)
            elif edge.type == EdgeType.CONTINUES:
                self.follows[edge.source] = edge.target

    def of_kind(self, kind: str) -> list[CanvasNode]:
        """Live nodes of a kind, in creation order."""
        return [n for n in self.nodes.values() if n.kind == kind]

    def derived(self, node_id: str, kind: str) -> list[CanvasNode]:
        """Nodes of ``kind`` GENERATED_FROM a node."""
        return [self.nodes[i] for i in self.made_from.get(node_id, ()) if self.nodes[i].kind == kind]

    def ancestors(self, node_id: str) -> list[str]:
        """Every version a node replaced, nearest first (VERSION_OF, transitively)."""
        found: list[str] = []
        frontier = list(self.older.get(node_id, ()))
        while frontier:
            here = frontier.pop(0)
            if here in found:
                continue
            found.append(here)
            frontier.extend(self.older.get(here, ()))
        return found

    def current(self, candidates: Sequence[CanvasNode]) -> CanvasNode | None:
        """The current one among versions of one output: the newest head (nothing newer among the candidates)
        that is not set aside; the newest head at all when every one is."""
        ids = {c.id for c in candidates}
        heads = [c for c in candidates if not any(n in ids for n in self.newer.get(c.id, ()))]
        live = [h for h in heads if h.status != NodeStatus.REJECTED] or heads
        return max(live, key=lambda n: (n.created_at, n.id)) if live else None


def media(node: CanvasNode, medium: str) -> Media:
    """A node and its first artifact of ``medium`` (``image`` or ``video``)."""
    handle = next((h for h in node.outputs if h.mime.startswith(medium + "/")), None)
    return Media(node_id=node.id, title=node.title, status=node.status.value, version=node.version,
                 sha256=handle.sha256 if handle else None, mime=handle.mime if handle else None,
                 created_at=node.created_at)


def _number(node: CanvasNode) -> int | None:
    value = node.inputs.get("index")
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def story_order(snap: Snapshot, shots: list[CanvasNode]) -> list[CanvasNode]:
    """Shots in story order: their storyboard index, then their place in the CONTINUES chain, then creation."""
    def rank(shot: CanvasNode) -> int:
        seen, here = {shot.id}, shot.id
        while here in snap.follows and snap.follows[here] not in seen:
            here = snap.follows[here]
            seen.add(here)
        return len(seen) - 1

    position = {s.id: i for i, s in enumerate(shots)}
    return sorted(shots, key=lambda s: (_number(s) if _number(s) is not None else 1 << 30, rank(s), position[s.id]))


def shot_column(snap: Snapshot, shot: CanvasNode, number: int) -> ShotColumn:
    """A shot's column: its current image and clip, and every other image version in its stack, newest first."""
    images = snap.derived(shot.id, "image")
    image = snap.current(images)
    clip = snap.current([v for v in snap.derived(image.id, "video")]) if image is not None else None
    replaced = set(snap.ancestors(image.id)) if image is not None else set()
    stack = []
    for other in sorted(images, key=lambda n: (n.created_at, n.id), reverse=True):
        if image is not None and other.id == image.id:
            continue
        role: StackRole = ("older" if other.id in replaced
                           else "rejected" if other.status == NodeStatus.REJECTED else "branch")
        stack.append(StackEntry(**media(other, "image").model_dump(), role=role))
    return ShotColumn(
        shot_id=shot.id, number=number, title=shot.title, text=_shot_text(shot),
        status=(image.status.value if image is not None else shot.status.value), shot_status=shot.status.value,
        image=media(image, "image") if image is not None else None,
        clip=media(clip, "video") if clip is not None else None, stack=stack,
    )


def _shot_text(shot: CanvasNode) -> str | None:
    for key in ("description", "action", "prompt", "text"):
        value = shot.inputs.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:240]
    return None


def story_lens(snap: Snapshot, canvas_version: int) -> StoryLens:
    """The Story lens of a canvas."""
    shots = story_order(snap, snap.of_kind("shot"))
    cuts = [n for n in snap.of_kind("video") if isinstance(n.inputs.get("clip_node_ids"), list)]
    cut = snap.current(cuts)
    return StoryLens(
        canvas_version=canvas_version,
        shots=[shot_column(snap, shot, i + 1) for i, shot in enumerate(shots)],
        cut=media(cut, "video") if cut is not None else None,
        cut_clip_ids=[str(c) for c in cut.inputs.get("clip_node_ids", [])] if cut is not None else [],
    )


def lens_index(snap: Snapshot, canvas_version: int) -> LensIndex:
    """What each lens would show, and the lens a project opens in: Story for a storyboard, Deck for slides,
    Page for a web page, the graph otherwise."""
    counts = {"shots": len(snap.of_kind("shot")), "decks": len(snap.of_kind("deck")),
              "slides": len(snap.of_kind("slide")), "pages": len(snap.of_kind("code")) + len(snap.of_kind("web")),
              "nodes": len(snap.nodes)}
    available: list[LensName] = []
    if counts["shots"]:
        available.append("story")
    if counts["decks"] or counts["slides"]:
        available.append("deck")
    if counts["pages"]:
        available.append("page")
    available.append("graph")
    return LensIndex(canvas_version=canvas_version, default=available[0], available=available, counts=counts)
