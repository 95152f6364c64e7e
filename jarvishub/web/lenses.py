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

import re
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


class StoryPatch(BaseModel):
    """What changed in the Story lens between the version a page holds (``since``) and now: the columns that
    differ (each knows its place, ``number``), and the cut.  A page applies it to the answer it has, so a change
    to one shot of a 400-shot story sends that shot's column, not the ~300 KB of the whole lens."""

    canvas_version: int
    since: int
    shot_count: int = Field(description="Shots in the story now (the same shots, in the same order, as at since).")
    columns: list[ShotColumn] = Field(description="The columns that changed, in story order.")
    cut: Media | None
    cut_clip_ids: list[str] | None = Field(default=None, description="The cut's clips, when they changed.")


def story_patch(old: StoryLens, new: StoryLens) -> StoryPatch | None:
    """The patch from ``old`` to ``new``; None when the shots themselves changed (one added, removed or moved),
    which the whole answer says better."""
    if [c.shot_id for c in old.shots] != [c.shot_id for c in new.shots]:
        return None
    return StoryPatch(canvas_version=new.canvas_version, since=old.canvas_version, shot_count=len(new.shots),
                      columns=[c for c, was in zip(new.shots, old.shots, strict=True) if c != was], cut=new.cut,
                      cut_clip_ids=new.cut_clip_ids if new.cut_clip_ids != old.cut_clip_ids else None)


class SlideCard(BaseModel):
    """One slide of the deck, in order, with the versions it replaced."""

    number: int
    slide: Media
    versions: list[StackEntry] = Field(description="Older versions of this slide, newest first.")


class DeckLens(BaseModel):
    """The current deck: its slides in order as thumbnails, each with its versions; the deck's own versions."""

    canvas_version: int
    deck: Media | None
    slides: list[SlideCard]
    deck_versions: list[StackEntry]


class PageVersion(Media):
    """One version of a web page: the code node, its preview image (``sha256``) and what it changed."""

    change: str | None = None
    current: bool = False


class PageLens(BaseModel):
    """The current web page (served for a sandboxed iframe from ``/pages/{node_id}/``), its sections and
    versions."""

    canvas_version: int
    page: PageVersion | None
    entry: str | None = Field(default=None, description="Path of the page's HTML under /pages/{node_id}/.")
    frame_src: str | None = Field(default=None, description="Where the iframe loads the page: a path whose key "
                                  "stands for the token (a sandboxed frame's requests carry no cookie).")
    sections: list[str] = Field(default_factory=list, description="Section ids, top to bottom.")
    versions: list[PageVersion] = Field(default_factory=list, description="Every version, newest first.")


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
        self.edges: list[CanvasEdge] = []  # every edge between live nodes, in the order given
        for edge in edges:
            if edge.source not in self.nodes or edge.target not in self.nodes:
                continue
            self.edges.append(edge)
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
              "slides": len(snap.of_kind("slide")), "pages": sum(1 for n in snap.of_kind("code") if is_page(n)),
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


# -- the Deck lens --------------------------------------------------------------------------------------------
def deck_lens(snap: Snapshot, canvas_version: int) -> DeckLens:
    """The Deck lens: the current deck's slides in ``slide_ids`` order, each with the versions it replaced."""
    deck = snap.current(snap.of_kind("deck"))
    if deck is None:
        return DeckLens(canvas_version=canvas_version, deck=None, slides=[], deck_versions=[])
    slide_ids = [str(i) for i in deck.inputs.get("slide_ids") or [] if str(i) in snap.nodes]
    slides = [SlideCard(number=i + 1, slide=media(snap.nodes[sid], "image"),
                        versions=[StackEntry(**media(snap.nodes[old], "image").model_dump(), role="older")
                                  for old in snap.ancestors(sid)])
              for i, sid in enumerate(slide_ids)]
    return DeckLens(canvas_version=canvas_version, deck=media(deck, "image"), slides=slides,
                    deck_versions=[StackEntry(**media(snap.nodes[old], "image").model_dump(), role="older")
                                   for old in snap.ancestors(deck.id)])


# -- the Page lens --------------------------------------------------------------------------------------------
_SECTION = re.compile(r"<section\b[^>]*\bid\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)


def is_page(node: CanvasNode) -> bool:
    """A version of a web page: a ``code`` node holding an HTML document (tools/page)."""
    return node.kind == "code" and isinstance(node.inputs.get("source"), str) and \
        str(node.inputs.get("language", "html")).lower() == "html"


def page_sections(node: CanvasNode) -> list[str]:
    """The ids of the page's ``<section>`` elements, top to bottom."""
    return list(dict.fromkeys(_SECTION.findall(str(node.inputs.get("source", "")))))


def page_version(snap: Snapshot, node: CanvasNode, current: bool) -> PageVersion:
    """A page version with its preview: the newest image GENERATED_FROM it."""
    previews = sorted(snap.derived(node.id, "image"), key=lambda n: (n.created_at, n.id))
    base = media(previews[-1], "image") if previews else media(node, "image")
    change = node.inputs.get("change")
    summary = change.get("summary") if isinstance(change, dict) else change if isinstance(change, str) else None
    return PageVersion(**{**base.model_dump(), "node_id": node.id, "title": node.title, "status": node.status.value,
                          "version": node.version, "created_at": node.created_at},
                       change=str(summary)[:200] if summary else None, current=current)


def page_lens(snap: Snapshot, canvas_version: int) -> PageLens:
    """The Page lens: the current page, its sections, and every version of it, newest first."""
    pages = [n for n in snap.of_kind("code") if is_page(n)]
    page = snap.current(pages)
    if page is None:
        return PageLens(canvas_version=canvas_version, page=None)
    family = {page.id, *snap.ancestors(page.id)}
    versions = sorted((snap.nodes[i] for i in family), key=lambda n: (n.created_at, n.id), reverse=True)
    return PageLens(canvas_version=canvas_version, page=page_version(snap, page, True), entry=page_entry(page),
                    sections=page_sections(page), versions=[page_version(snap, v, v.id == page.id) for v in versions])


def page_entry(node: CanvasNode) -> str:
    """The file name the page's HTML is served under (its own name, so relative links resolve beside it)."""
    path = str(node.inputs.get("html_path") or "index.html")
    return path.rsplit("/", 1)[-1] or "index.html"
