"""What the security tests compare before and after an attack: everything a write could change on the canvas."""

from __future__ import annotations

from typing import Any


def fingerprint(store: Any) -> dict[str, Any]:
    """Canvas version, every node version (deleted ones too), every edge and the length of the commit log."""
    nodes = store.find_nodes(include_deleted=True)
    return {
        "canvas_version": store.canvas_version(),
        "nodes": sorted((n.id, n.version, n.kind, n.title, n.status.value, n.deleted) for n in nodes),
        "edges": sorted((e.type.value, e.source, e.target) for e in store.edges()),
        "commits": len(store.commits()),
    }
