"""Fixtures of the native tool tests: a real workspace folder, a real artifact store, a small canvas reader."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import cast

import pytest

from store.artifacts import LocalArtifactStore
from store.base import CanvasReader
from store.errors import NodeNotFound
from store.models import CanvasNode
from tools.base import ToolContext
from tools.native.settings import NativeSettings


class InMemoryCanvas:
    """The read side of a canvas store, enough for tools: nodes by id, NodeNotFound for unknown ids."""

    def __init__(self, nodes: Iterable[CanvasNode] = ()) -> None:
        self.nodes = {n.id: n for n in nodes}

    def add(self, node: CanvasNode) -> CanvasNode:
        """Put a node on the canvas and hand it back."""
        self.nodes[node.id] = node
        return node

    def get_nodes(self, node_ids: Sequence[str], *, include_deleted: bool = False) -> list[CanvasNode]:
        """The nodes with these ids, in order, like CanvasReader.get_nodes."""
        for node_id in node_ids:
            node = self.nodes.get(node_id)
            if node is None or (node.deleted and not include_deleted):
                raise NodeNotFound(node_id)
        return [self.nodes[i] for i in node_ids]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An empty project workspace folder."""
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture
def artifacts(tmp_path: Path) -> LocalArtifactStore:
    """An artifact store outside the workspace."""
    return LocalArtifactStore(tmp_path / "artifacts")


@pytest.fixture
def canvas() -> InMemoryCanvas:
    """An empty in-memory canvas reader."""
    return InMemoryCanvas()


@pytest.fixture
def ctx(workspace: Path, artifacts: LocalArtifactStore, canvas: InMemoryCanvas) -> ToolContext:
    """A tool context over the workspace, the artifact store and the canvas, with short code limits."""
    return ToolContext(
        artifacts=artifacts,
        workspace=workspace,
        canvas=cast(CanvasReader, canvas),  # the native tools only call get_nodes
        settings=NativeSettings(code_max_timeout_s=10, code_max_memory_mb=512),
        actor="agent",
        thread_id="thread-1",
        turn_id="turn-1",
    )
