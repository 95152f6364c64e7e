"""What the security tests share: a runtime with something on its canvas, and a fingerprint of that canvas."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def seeded_runtime(project: Any) -> Iterator[Any]:
    """A runtime on ``project`` whose canvas has one text node (written through the bridge); closed after."""
    from jarvishub.runtime import Runtime
    from nodes.actions import ToolCall
    from nodes.bridge import Usage

    made = Runtime(project)
    made.bridge.submit(ToolCall(action_id="seed", tool="create_node", args={"kind": "text", "title": "seed"}),
                       made.grant_for("seed"), Usage(), thread_id="seed")
    try:
        yield made
    finally:
        made.close()


def fingerprint(store: Any) -> dict[str, Any]:
    """Canvas version, every node version (deleted ones too), every edge and the length of the commit log."""
    nodes = store.find_nodes(include_deleted=True)
    return {
        "canvas_version": store.canvas_version(),
        "nodes": sorted((n.id, n.version, n.kind, n.title, n.status.value, n.deleted) for n in nodes),
        "edges": sorted((e.type.value, e.source, e.target) for e in store.edges()),
        "commits": len(store.commits()),
    }
