"""What the web canvas API returns: compact JSON views of canvas nodes and edges, built from store reads.

A page drawing 2,000 nodes needs a few fields per node, not their full inputs
and metadata, so :class:`NodeView` carries what a card shows: position,
status, a short text, and the one artifact to preview (an image thumbnail, a
video, an audio clip).  Full nodes are served one at a time for the detail
panel.  :class:`CanvasViews` keeps the views of the whole canvas for the
current canvas version, so paging through them reads the store once.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from jarvishub.web.lenses import (DeckLens, LensIndex, PageLens, Snapshot, StoryLens, deck_lens, lens_index, page_lens,
                                  story_lens, story_patch)
from jarvishub.web.live import touched_node_ids
from store.base import LineageEntry
from store.cypher import FixedCypher
from store.errors import NodeNotFound
from store.models import ArtifactHandle, CanvasEdge, CanvasNode, Direction, EdgeType
from store.neo4j import Neo4jCanvasStore
from store.bolt.schema import edge_from_log

CARD_W = 180.0
"""Width of a node card on the page, in canvas units (the Graph lens lays cards of this size out)."""
CARD_H = 150.0
"""Height of a node card on the page, in canvas units."""
LINEAGE_EDGES = (EdgeType.GENERATED_FROM, EdgeType.REFERENCES, EdgeType.VERSION_OF)
"""The edges a node's ancestors and descendants are followed over (the detail panel's lineage)."""
PREVIEWED_KINDS = frozenset({"web", "code", "slide", "deck"})
"""Kinds whose card shows an image made from them (a screenshot, a slide render) when they have none of their own."""
_TEXT_KEYS = ("text", "prompt", "question", "brief", "notes", "description", "summary", "script", "name")
_TEXT_LIMIT = 280
_LENS_BUILDERS = {"story": story_lens, "deck": deck_lens, "page": page_lens}
LENS_VERSIONS_KEPT = 8
"""Earlier answers of a lens kept (by canvas version) to patch from: a page a few commits behind gets a patch."""


class MediaView(BaseModel):
    """The artifact a card previews."""

    sha256: str
    mime: str
    media: Literal["image", "video", "audio"]
    from_node: str | None = Field(default=None, description="The node whose output this is, when not the node itself.")


class NodeView(BaseModel):
    """One node as a card draws it."""

    id: str
    kind: str
    title: str
    status: str
    version: int
    x: float
    y: float
    pinned: bool
    group_id: str | None
    deleted: bool = False
    canvas_version: int
    created_at: str
    updated_at: str
    actor: str
    text: str | None = Field(default=None, description="A short text to show: the note, prompt or feedback.")
    media: MediaView | None = None
    outputs: list[ArtifactHandle] = Field(default_factory=list)


class EdgeView(BaseModel):
    """One typed edge."""

    id: str
    type: EdgeType
    source: str
    target: str


class CardSize(BaseModel):
    """The size of a node card in canvas units (what the page's layout places)."""

    w: float = CARD_W
    h: float = CARD_H


class CanvasPage(BaseModel):
    """A page of the canvas: nodes in creation order, and the edges whose source is on the page."""

    canvas_version: int
    total: int
    offset: int
    limit: int
    next_offset: int | None
    card: CardSize = Field(default_factory=CardSize)
    nodes: list[NodeView]
    edges: list[EdgeView]


class NodeBatch(BaseModel):
    """Some nodes by id (what the page fetches after a change event) and every edge touching them."""

    canvas_version: int
    nodes: list[NodeView]
    removed: list[str] = Field(description="Ids asked for that are deleted or gone.")
    edges: list[EdgeView]


class NodeDetail(BaseModel):
    """One node in full, for the detail panel."""

    node: CanvasNode
    view: NodeView
    edges: list[EdgeView]


class LineageItem(BaseModel):
    """A node reached over lineage edges, with its distance."""

    depth: int
    node: NodeView


class Lineage(BaseModel):
    """What a node came from (ancestors) and what came from it (descendants)."""

    node_id: str
    edge_types: list[EdgeType]
    ancestors: list[LineageItem]
    descendants: list[LineageItem]


class History(BaseModel):
    """Every stored version of a node, and the nodes it is a version of (older) or that are versions of it (newer)."""

    node_id: str
    versions: list[NodeView]
    older: list[LineageItem]
    newer: list[LineageItem]


def node_text(node: CanvasNode) -> str | None:
    """The short text a card shows, from the first text-like input."""
    for key in _TEXT_KEYS:
        value = node.inputs.get(key)
        if isinstance(value, str) and value.strip():
            text = value.strip()
            return text if len(text) <= _TEXT_LIMIT else text[: _TEXT_LIMIT - 1] + "…"
    return None


def own_media(node: CanvasNode) -> MediaView | None:
    """The node's own output to preview: its kind's medium first, then any image, video or audio."""
    preferred = {"video": "video", "audio": "audio"}.get(node.kind)
    for medium in (preferred, "image", "video", "audio"):
        if medium is None:
            continue
        for handle in node.outputs:
            if handle.mime.startswith(medium + "/"):
                return MediaView(sha256=handle.sha256, mime=handle.mime, media=medium)  # type: ignore[arg-type]
    return None


def preview_images(nodes: dict[str, CanvasNode], edges: Iterable[CanvasEdge]) -> dict[str, MediaView]:
    """For web, code and slide nodes: the image of the newest image node GENERATED_FROM them."""
    found: dict[str, MediaView] = {}
    for edge in edges:  # oldest first, so the newest preview wins
        source, target = nodes.get(edge.source), nodes.get(edge.target)
        if edge.type != EdgeType.GENERATED_FROM or source is None or target is None:
            continue
        if target.kind in PREVIEWED_KINDS and source.kind == "image":
            media = own_media(source)
            if media is not None and media.media == "image":
                found[target.id] = media.model_copy(update={"from_node": source.id})
    return found


def node_view(node: CanvasNode, preview: MediaView | None = None) -> NodeView:
    """The card view of a node (``preview`` stands in when the node has no media of its own)."""
    media = own_media(node)
    if preview is not None and (media is None or media.media != "image"):
        media = preview
    return NodeView(
        id=node.id, kind=node.kind, title=node.title, status=node.status.value, version=node.version,
        x=node.position.x, y=node.position.y, pinned=node.position.pinned, group_id=node.group_id,
        deleted=node.deleted, canvas_version=node.canvas_version, created_at=node.created_at,
        updated_at=node.updated_at,
        actor=str(node.metadata.get("provenance", {}).get("actor") or node.metadata.get("created_by") or "system"),
        text=node_text(node), media=media, outputs=list(node.outputs),
    )


def edge_view(edge: CanvasEdge) -> EdgeView:
    """The drawn form of an edge."""
    return EdgeView(id=edge.id, type=edge.type, source=edge.source, target=edge.target)


def lineage_items(entries: Sequence[LineageEntry]) -> list[LineageItem]:
    """Lineage entries as views, nearest first."""
    return [LineageItem(depth=e.depth, node=node_view(e.node)) for e in sorted(entries, key=lambda e: e.depth)]


_EDGE_LOG = FixedCypher("UNWIND $ids AS id MATCH (h:EdgeVersion {edge_id: id}) RETURN properties(h) AS h")
"""The link and unlink records of some edges (the edge log): what a commit did to edges, read by edge id
instead of matching every edge touching a node (a scan of every edge on ArcadeDB: about 0.8 s at 2,000
nodes under load)."""
PATCH_LIMIT = 500
"""Nodes touched since the last read above which the views read the whole canvas again instead of patching."""


class CanvasViews:
    """Views of a canvas, read from its store and kept for one canvas version.

    The first read takes the whole canvas; after that, a new canvas version is
    caught up from the commit log: only the nodes its commits touched (and the
    edges touching them) are read again, so a commit on a 2,000-node canvas
    costs a read of a few nodes, not of the canvas.
    """

    def __init__(self, store: Neo4jCanvasStore) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._version = -1
        self._raw: dict[str, CanvasNode] = {}  # live nodes by id
        self._raw_edges: dict[str, CanvasEdge] = {}  # edges between live nodes, by id
        self._views: dict[str, NodeView] = {}
        self._previews: dict[str, MediaView] = {}
        self._nodes: list[NodeView] = []
        self._edges_by_source: dict[str, list[EdgeView]] = {}
        self._snapshot = Snapshot((), ())
        self._lenses: dict[str, tuple[int, BaseModel, bytes]] = {}
        self._earlier: dict[str, dict[int, BaseModel]] = {}  # lens -> canvas version -> its answer then
        self.reads = {"whole": 0, "patched": 0, "patched_nodes": 0}
        """How the views caught up with the canvas: whole reads, patches and the nodes those read."""

    def snapshot(self) -> tuple[int, Snapshot]:
        """The live nodes and edges of the current canvas version, indexed for the lenses."""
        self._whole()
        with self._lock:
            return self._version, self._snapshot

    def canvas(self) -> tuple[list[CanvasNode], list[CanvasEdge]]:
        """The live nodes (creation order) and the edges between them, as of the current canvas version."""
        self._whole()
        with self._lock:
            return list(self._snapshot.nodes.values()), list(self._snapshot.edges)

    def lens(self, name: str) -> StoryLens | DeckLens | PageLens:
        """A lens (``story``, ``deck`` or ``page``), computed once per canvas version."""
        return self._lens(name)[0]  # type: ignore[return-value]

    def lens_json(self, name: str) -> bytes:
        """A lens as the JSON the API sends, serialised once per canvas version (a 400-shot story is ~300 KB)."""
        return self._lens(name)[1]

    def _lens(self, name: str) -> tuple[BaseModel, bytes]:
        version, snap = self.snapshot()
        with self._lock:
            cached = self._lenses.get(name)
            if cached is None or cached[0] != version:
                model = _LENS_BUILDERS[name](snap, version)
                cached = self._lenses[name] = (version, model, model.model_dump_json().encode())
                earlier = self._earlier.setdefault(name, {})
                earlier[version] = model
                for old in sorted(earlier)[:-LENS_VERSIONS_KEPT]:
                    del earlier[old]
            return cached[1], cached[2]

    def story_json(self, since: int | None = None) -> bytes:
        """The Story lens as JSON: a :class:`~jarvishub.web.lenses.StoryPatch` from the answer at canvas version
        ``since`` when that answer is still kept and the shots are the same, else the whole lens."""
        model, whole = self._lens("story")
        if since is None:
            return whole
        with self._lock:
            old = self._earlier.get("story", {}).get(since)
        patch = story_patch(old, model) if isinstance(old, StoryLens) and isinstance(model, StoryLens) else None
        return whole if patch is None else patch.model_dump_json().encode()

    def lenses(self) -> LensIndex:
        """Which lenses this canvas has content for, and its default one."""
        version, snap = self.snapshot()
        return lens_index(snap, version)

    def page(self, offset: int, limit: int) -> CanvasPage:
        """Live nodes ``offset`` to ``offset + limit`` (creation order) with the edges leaving them."""
        version, nodes, edges = self._whole()
        chunk = nodes[offset: offset + limit]
        end = offset + len(chunk)
        return CanvasPage(
            canvas_version=version, total=len(nodes), offset=offset, limit=limit,
            next_offset=end if end < len(nodes) else None, nodes=chunk,
            edges=[e for n in chunk for e in edges.get(n.id, [])],
        )

    def _whole(self) -> tuple[int, list[NodeView], dict[str, list[EdgeView]]]:
        with self._lock:
            version = self.store.canvas_version()
            if version != self._version:
                touched = self._patch() if self._version >= 0 else None
                if touched is None:
                    self._read_all(version)
                self._index(touched)
            return self._version, self._nodes, self._edges_by_source

    def _read_all(self, version: int) -> None:
        nodes = self.store.find_nodes()
        self._raw = {n.id: n for n in nodes}
        self._raw_edges = {e.id: e for e in self.store.edges() if e.source in self._raw and e.target in self._raw}
        self._version = version
        self.reads["whole"] += 1

    def _patch(self) -> set[str] | None:
        """Catch up from the commit log; the ids re-read, or None when a whole read is the better deal."""
        commits = self.store.commits(since_version=self._version)
        if not commits:
            return None
        touched = touched_node_ids(self.store, commits)
        if len(touched) > PATCH_LIMIT:
            return None
        fresh = {n.id: n for n in self._get_any(touched)}
        # A node live again (an undone delete) gets back edges the views dropped with it: read those (rare).
        revived = [i for i, n in fresh.items() if i not in self._raw and not n.deleted and n.version > 1]
        for node_id in touched:
            node = fresh.get(node_id)
            if node is None or node.deleted:
                self._raw.pop(node_id, None)
            else:
                self._raw[node_id] = node
        # Edges change only by link and unlink, each logged under its edge id: replay the last record of each.
        edge_ids = list(dict.fromkeys(i for c in commits for i in c.edge_ids))
        last: dict[str, dict] = {}
        for row in sorted((r["h"] for r in self.store.fixed_read(_EDGE_LOG, ids=edge_ids)) if edge_ids else (),
                          key=lambda h: h["canvas_version"]):
            last[row["edge_id"]] = row
        for edge_id, row in last.items():
            if row["op"] == "link":
                self._raw_edges[edge_id] = edge_from_log(row)
            else:
                self._raw_edges.pop(edge_id, None)
        for edge in self.store.edges(revived) if revived else ():
            self._raw_edges[edge.id] = edge
        self._raw_edges = {i: e for i, e in self._raw_edges.items()
                           if e.source in self._raw and e.target in self._raw}
        ids = set(touched)
        self._version = commits[-1].canvas_version
        self.reads["patched"] += 1
        self.reads["patched_nodes"] += len(touched)
        return ids

    def _index(self, touched: set[str] | None) -> None:
        """Rebuild the views from the raw nodes and edges; with ``touched``, only those nodes' card views (and
        the cards whose preview changed) are made again."""
        nodes = sorted(self._raw.values(), key=lambda n: (n.created_at, n.id))
        edges = sorted(self._raw_edges.values(), key=lambda e: (e.canvas_version, e.id))
        previews = preview_images(self._raw, edges)
        if touched is None:
            self._views = {n.id: node_view(n, previews.get(n.id)) for n in nodes}
        else:
            for gone in [i for i in self._views if i not in self._raw]:
                del self._views[gone]
            for node in nodes:
                if node.id in touched or node.id not in self._views or previews.get(node.id) != self._previews.get(node.id):
                    self._views[node.id] = node_view(node, previews.get(node.id))
        self._previews = previews
        self._nodes = [self._views[n.id] for n in nodes]
        self._edges_by_source = {}
        for edge in edges:
            if edge.type != EdgeType.IN_GROUP:  # a group is drawn as a box, from group_id
                self._edges_by_source.setdefault(edge.source, []).append(edge_view(edge))
        self._snapshot = Snapshot(nodes, edges)

    def batch(self, node_ids: Sequence[str]) -> NodeBatch:
        """The current views of some nodes, the ids among them that are gone, and their edges."""
        version = self.store.canvas_version()
        found = self._get_any(node_ids)
        live = [n for n in found if not n.deleted]
        edges = [e for e in self.store.edges([n.id for n in live]) if e.type != EdgeType.IN_GROUP] if live else []
        previews = self._previews_for(live, edges)
        alive = {n.id for n in live}
        return NodeBatch(
            canvas_version=version,
            nodes=[node_view(n, previews.get(n.id)) for n in live],
            removed=[i for i in dict.fromkeys(node_ids) if i not in alive],
            edges=[edge_view(e) for e in edges],
        )

    def detail(self, node_id: str) -> NodeDetail:
        """One node in full, with its card view and every edge touching it."""
        node = self.store.get_node(node_id)
        edges = self.store.edges([node_id])
        preview = self._previews_for([node], edges).get(node_id)
        return NodeDetail(node=node, view=node_view(node, preview), edges=[edge_view(e) for e in edges])

    def lineage(self, node_id: str, edge_types: Sequence[EdgeType] = LINEAGE_EDGES,
                max_depth: int | None = None) -> Lineage:
        """Ancestors and descendants of a node over the given edge types."""
        return Lineage(
            node_id=node_id, edge_types=list(edge_types),
            ancestors=lineage_items(self.store.lineage(node_id, edge_types, Direction.OUT, max_depth)),
            descendants=lineage_items(self.store.lineage(node_id, edge_types, Direction.IN, max_depth)),
        )

    def history(self, node_id: str) -> History:
        """Every version of a node (old outputs included) and its VERSION_OF lineage."""
        versions = [node_view(n) for n in self.store.node_history(node_id)]
        try:
            older = self.store.lineage(node_id, [EdgeType.VERSION_OF], Direction.OUT)
            newer = self.store.lineage(node_id, [EdgeType.VERSION_OF], Direction.IN)
        except NodeNotFound:  # a deleted node keeps its history but has no lineage to walk
            older, newer = [], []
        return History(node_id=node_id, versions=versions, older=lineage_items(older), newer=lineage_items(newer))

    def _get_any(self, node_ids: Sequence[str]) -> list[CanvasNode]:
        ids = list(dict.fromkeys(node_ids))
        try:
            return self.store.get_nodes(ids, include_deleted=True)
        except NodeNotFound:  # hard-deleted ones are simply gone
            found = []
            for node_id in ids:
                try:
                    found.append(self.store.get_node(node_id, include_deleted=True))
                except NodeNotFound:
                    continue
            return found

    def _previews_for(self, nodes: Sequence[CanvasNode], edges: Sequence[CanvasEdge]) -> dict[str, MediaView]:
        wanted = {n.id for n in nodes if n.kind in PREVIEWED_KINDS}
        sources = [e.source for e in edges if e.type == EdgeType.GENERATED_FROM and e.target in wanted]
        if not sources:
            return {}
        known: dict[str, CanvasNode] = {n.id: n for n in nodes}
        known.update({n.id: n for n in self._get_any(sources) if not n.deleted})
        return preview_images(known, edges)
