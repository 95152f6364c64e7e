"""Fixtures of the generation tests: a real artifact store and cache on disk, offline providers, a tiny canvas."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.artifacts import LocalArtifactStore
from store.errors import NodeNotFound
from store.base import LineageEntry
from store.models import CanvasEdge, CanvasNode, Direction, EdgeType, NodeStatus
from store.mutations import CreateNode, Link
from tools.base import ToolContext
from tools.generate.cache import SignatureCache
from tools.generate.offline_audio import OfflineAudioProvider
from tools.generate.offline_image import OfflineImageProvider
from tools.generate.offline_video import OfflineVideoProvider
from tools.generate.service import GenerationService


class FakeCanvas:
    """An in-memory canvas reader (``get_nodes``) that can also apply the create/link mutations tools return."""

    def __init__(self, nodes: list[CanvasNode] | None = None) -> None:
        self.nodes: dict[str, CanvasNode] = {n.id: n for n in nodes or []}
        self.edges: list[CanvasEdge] = []

    def get_nodes(self, ids: list[str], *, include_deleted: bool = False) -> list[CanvasNode]:
        """The nodes with these ids, in order; NodeNotFound for the first unknown one."""
        for node_id in ids:
            if node_id not in self.nodes:
                raise NodeNotFound(node_id)
        return [self.nodes[i] for i in ids]

    def add(self, node: CanvasNode) -> CanvasNode:
        self.nodes[node.id] = node
        return node

    def apply(self, mutations: list) -> None:
        """Apply CreateNode and Link the way the store would (enough for chaining tools in a test)."""
        for m in mutations:
            if isinstance(m, CreateNode):
                self.add(
                    CanvasNode(
                        id=m.id,
                        kind=m.kind,
                        title=m.title,
                        status=m.status,
                        inputs=m.inputs,
                        outputs=m.outputs,
                        metadata=m.metadata,
                    )
                )
            elif isinstance(m, Link):
                assert m.source in self.nodes and m.target in self.nodes, f"dangling edge {m}"
                self.edges.append(
                    CanvasEdge(id=m.id, type=m.type, source=m.source, target=m.target, properties=m.properties)
                )
            else:
                raise TypeError(f"unexpected mutation {m!r}")

    def edges_from(self, node_id: str) -> list[CanvasEdge]:
        return [e for e in self.edges if e.source == node_id]

    def lineage(self, node_id: str, edge_types: list[EdgeType] | None = None, direction: Direction = Direction.OUT,
                max_depth: int | None = None) -> list[LineageEntry]:
        """Nodes reached over edges of these types, breadth first (enough for the head-version check)."""
        found: list[LineageEntry] = []
        seen, frontier, depth = {node_id}, [node_id], 0
        while frontier and (max_depth is None or depth < max_depth):
            depth += 1
            step = []
            for edge in self.edges:
                if edge_types is not None and edge.type not in edge_types:
                    continue
                near, far = (edge.source, edge.target) if direction == Direction.OUT else (edge.target, edge.source)
                if near in frontier and far not in seen:
                    seen.add(far)
                    step.append(far)
                    found.append(LineageEntry(node=self.nodes[far], depth=depth))
            frontier = step
        return found


    def lineages(self, node_ids: list[str], edge_types: list[EdgeType] | None = None,
                 direction: Direction = Direction.OUT, *, max_depth: int | None = None,
                 with_start: bool = False) -> dict[str, list[LineageEntry]]:
        """:meth:`lineage` of each node, led by the node itself when ``with_start`` (empty for a missing node)."""
        return {i: ([LineageEntry(node=self.nodes[i], depth=0)] if with_start else [])
                + self.lineage(i, edge_types, direction, max_depth) if i in self.nodes else [] for i in node_ids}

@pytest.fixture
def artifacts(tmp_path: Path) -> LocalArtifactStore:
    return LocalArtifactStore(tmp_path / "artifacts")


@pytest.fixture
def cache_path(tmp_path: Path) -> Path:
    return tmp_path / "project" / ".jarvishub" / "generation-cache.sqlite"


@pytest.fixture
def service(artifacts: LocalArtifactStore, cache_path: Path) -> GenerationService:
    return GenerationService(
        artifacts,
        SignatureCache(cache_path),
        OfflineImageProvider(),
        OfflineVideoProvider(),
        OfflineAudioProvider(use_espeak=False),
    )


@pytest.fixture
def fake_canvas() -> FakeCanvas:
    return FakeCanvas(
        [
            CanvasNode(
                id="mira",
                kind="reference",
                title="Mira",
                status=NodeStatus.COMPLETED,
                inputs={"role": "character", "name": "Mira", "colors": ["#c0392b", "#f5cba7"], "shape": "round"},
            ),
            CanvasNode(
                id="harbour",
                kind="reference",
                title="Harbour",
                status=NodeStatus.COMPLETED,
                inputs={"role": "scene", "name": "old harbour", "setting": "sea"},
            ),
        ]
    )


@pytest.fixture
def ctx(
    artifacts: LocalArtifactStore, service: GenerationService, fake_canvas: FakeCanvas, tmp_path: Path
) -> ToolContext:
    return ToolContext(
        artifacts=artifacts,
        workspace=tmp_path,
        canvas=fake_canvas,  # type: ignore[arg-type]
        actor="agent",
        turn_id="turn-1",
        thread_id="thread-1",
        # The tool sees the canvas read-only; the test keeps the writable fake to apply what tools propose.
        services={"generation": service, "test_canvas": fake_canvas},
    )
