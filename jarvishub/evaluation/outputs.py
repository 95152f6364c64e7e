"""Output keys: which deliverable a canvas node is a version of, by its place in the lineage, never by its id.

The evaluation counts *outputs* (a shot's image, its clip, the cut, a page, its
preview, a slide, the deck), not nodes: a new version of shot 3's image is the
same output changed, and an exploration's candidates are candidates for that
same output.  The key of a node is:

* an image made for a shot (``GENERATED_FROM`` a ``shot``), or a version of one,
  or an exploration candidate of one: ``"<shot title> image"``;
* a preview (``render_page``) or a workspace file (``write_file``): ``"preview of
  <key of what it was made from>"`` / ``"file of <key>"``, so a re-rendered
  preview of a revised page is the same output;
* anything else: the title of the first version of its ``VERSION_OF`` chain.

When two different outputs would get the same key (two storyboards both have a
"shot 3"), the key gets the last six characters of the identity that tells them
apart, so they stay two outputs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from store.models import CanvasEdge, CanvasNode, EdgeType, NodeStatus

DELIVERABLE_KINDS = ("image", "video", "audio", "web", "slide", "deck", "code", "file")
"""Node kinds a person receives; plans, shots, references, notes, feedback, evaluations and groups are not outputs."""

_DERIVED_BY_TOOL = {"render_page": "preview", "write_file": "file"}


class CanvasReader(Protocol):
    """The store read output keys need (``store.bolt.reads.CanvasReads`` has it)."""

    def output_graph(self, kinds: Sequence[str],
                     edge_types: Sequence[EdgeType]) -> tuple[list[CanvasNode], list[tuple[EdgeType, str, str]]]: ...


READ_KINDS = frozenset((*DELIVERABLE_KINDS, "shot", "plan"))
READ_EDGES = [EdgeType.VERSION_OF, EdgeType.GENERATED_FROM]
"""The edges outputs are told apart by (versions and what each was made from); checks read no others."""


class Canvas:
    """Every deliverable node, shot and plan of a canvas with the edges between them, read once."""

    def __init__(self, nodes: list[CanvasNode], edges: Iterable[CanvasEdge | tuple[EdgeType, str, str]]) -> None:
        self.nodes = {n.id: n for n in nodes}
        self.out: dict[str, dict[EdgeType, list[str]]] = defaultdict(lambda: defaultdict(list))
        self.into: dict[str, dict[EdgeType, list[str]]] = defaultdict(lambda: defaultdict(list))
        for edge in edges:
            edge_type, source, target = (edge.type, edge.source, edge.target) if isinstance(edge, CanvasEdge) \
                else edge
            if source in self.nodes and target in self.nodes:
                self.out[source][edge_type].append(target)
                self.into[target][edge_type].append(source)

    @classmethod
    def read(cls, store: CanvasReader) -> Canvas:
        """Read the deliverables, the shots, the plans and the edges between them from a store, in one statement
        however many kinds and nodes."""
        return cls(*store.output_graph(READ_KINDS, READ_EDGES))

    def root(self, node_id: str) -> str:
        """The first version of a node's ``VERSION_OF`` chain."""
        seen = {node_id}
        while True:
            older = self.out[node_id].get(EdgeType.VERSION_OF) or []
            if not older or older[0] in seen:
                return node_id
            node_id = older[0]
            seen.add(node_id)

    def _shot(self, node_id: str) -> CanvasNode | None:
        for candidate in (node_id, self.root(node_id)):
            for target in self.out[candidate].get(EdgeType.GENERATED_FROM) or []:
                if self.nodes[target].kind == "shot":
                    return self.nodes[target]
        return None

    def identity(self, node_id: str, depth: int = 0) -> tuple[str, str]:
        """(what tells this output apart, its readable key)."""
        node = self.nodes[node_id]
        if node.kind == "image" and (shot := self._shot(node_id)) is not None:
            return f"shot:{shot.id}", f"{shot.title} image"
        label = _DERIVED_BY_TOOL.get(node.provenance.tool or "")
        sources = [s for s in self.out[node_id].get(EdgeType.GENERATED_FROM) or [] if self.nodes[s].kind != "shot"]
        if label and sources and depth < 8:
            ident, key = self.identity(sources[0], depth + 1)
            return f"{label}:{ident}", f"{label} of {key}"
        root = self.root(node_id)
        return f"root:{root}", self.nodes[root].title or root

    def output_keys(self) -> dict[str, str]:
        """Node id → output key, for every deliverable node (rejected versions included)."""
        identities = {i: self.identity(i) for i, n in self.nodes.items() if n.kind in DELIVERABLE_KINDS}
        owners: dict[str, set[str]] = defaultdict(set)
        for ident, key in identities.values():
            owners[key].add(ident)
        return {i: key if len(owners[key]) == 1 else f"{key} #{ident.rsplit(':', 1)[-1][-6:]}"
                for i, (ident, key) in identities.items()}

    def current_by_identity(self) -> dict[str, CanvasNode]:
        """What tells an output apart → its newest live node.  Unlike output keys, identities do not change when
        another output with the same title appears later, so before/after comparisons use them."""
        found: dict[str, CanvasNode] = {}
        for node in sorted(self.nodes.values(), key=lambda n: n.canvas_version):
            if node.kind in DELIVERABLE_KINDS and node.status not in (NodeStatus.REJECTED, NodeStatus.FAILED):
                found[self.identity(node.id)[0]] = node
        return found

    def derived(self, node_ids: list[str]) -> set[str]:
        """Every node made from these (``GENERATED_FROM`` followed backwards), the nodes themselves included."""
        found = set(node_ids)
        frontier = list(node_ids)
        while frontier:
            nxt = []
            for node_id in frontier:
                for made in self.into[node_id].get(EdgeType.GENERATED_FROM) or []:
                    if made not in found and self.nodes[made].status != NodeStatus.REJECTED:
                        found.add(made)
                        nxt.append(made)
            frontier = nxt
        return found


def current_outputs(canvas: Canvas) -> tuple[dict[str, CanvasNode], list[str]]:
    """Output key → its current (not rejected) node, and the problems found (two current versions of one output)."""
    keys = canvas.output_keys()
    found: dict[str, CanvasNode] = {}
    problems: list[str] = []
    for node_id, key in sorted(keys.items(), key=lambda item: canvas.nodes[item[0]].canvas_version):
        node = canvas.nodes[node_id]
        if node.status in (NodeStatus.REJECTED, NodeStatus.FAILED):
            continue
        if key in found and one_current(found[key]) and one_current(node):
            problems.append(f"two current versions of {key!r}: {found[key].id} and {node.id}")
        found[key] = node  # the newest live version (a revised page keeps its earlier version as a branch)
    return found, problems


ONE_CURRENT_TOOLS = ("generate_image", "generate_video", "generate_audio", "assemble_cut")
"""Media whose lineage has exactly one current version (docs/requests.md, "Invariants after every commit"); a
revised page or deck is a branch, and its earlier version stays live."""


def one_current(node: CanvasNode) -> bool:
    """Whether the one-current-version invariant applies to this node."""
    return (node.provenance.tool or "") in ONE_CURRENT_TOOLS


def invariants(canvas: Canvas) -> list[str]:
    """What is wrong with the canvas (empty when every invariant holds).

    Every output has one current version; no live node has a newer live version; a clip is made from its
    shot's current image; a cut is made of current clips (docs/requests.md, "Invariants after every commit").
    """
    outputs, problems = current_outputs(canvas)
    current_ids = {n.id for n in outputs.values()}
    for node in canvas.nodes.values():
        if not one_current(node) or node.status == NodeStatus.REJECTED:
            continue
        newer = [canvas.nodes[i] for i in canvas.into[node.id].get(EdgeType.VERSION_OF) or []]
        live = [n for n in newer if n.status != NodeStatus.REJECTED]
        if live:
            problems.append(f"{node.title!r} ({node.id}) is live but has a newer live version {live[0].id}")
    for node in outputs.values():
        if node.kind == "video" and node.provenance.tool == "generate_video":
            source = node.inputs.get("source_node_id")
            if source and source not in current_ids:
                problems.append(f"{node.title!r} is made from {source}, which is not a current output")
        if node.kind == "video" and node.provenance.tool == "assemble_cut":
            stale = [c for c in node.inputs.get("clip_node_ids") or [] if c not in current_ids]
            if stale:  # its inputs changed and it was not rebuilt
                problems.append(f"{node.title!r} uses clips that are not current: {', '.join(stale)}")
    return problems


def describe(canvas: Canvas) -> dict[str, Any]:
    """Output key → id and status of its current node (for reports and failing checks)."""
    outputs, _ = current_outputs(canvas)
    return {key: {"id": node.id, "status": node.status.value} for key, node in sorted(outputs.items())}
