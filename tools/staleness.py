"""What goes stale when a node changes: the node and every regenerable node derived from it.

The rule the recovery tools (``mark_stale``), version reinstatement (``tools.versions``) and restore share;
its own module so that neither of them imports the other for it.
"""

from __future__ import annotations

from store.base import CanvasReader
from store.errors import NodeNotFound
from store.models import CanvasNode, Direction, EdgeType, NodeStatus

DERIVATION_EDGES = [EdgeType.GENERATED_FROM, EdgeType.REFERENCES]
REGENERABLE_TOOLS = ("generate_image", "generate_video", "generate_audio", "assemble_cut")


def stale_set(canvas: CanvasReader, node_id: str) -> list[CanvasNode]:
    """A node and every regenerable node derived from it (GENERATED_FROM / REFERENCES, downstream)."""
    return stale_sets(canvas, [node_id])[node_id]


def stale_sets(canvas: CanvasReader, node_ids: list[str]) -> dict[str, list[CanvasNode]]:
    """:func:`stale_set` of several nodes in one read (the nodes with every lineage)."""
    roots = list(dict.fromkeys(node_ids))
    lineages = canvas.lineages(roots, DERIVATION_EDGES, Direction.IN, with_start=True)
    sets = {}
    for root in roots:
        found = lineages[root]
        if not found:
            raise NodeNotFound(root)
        sets[root] = [found[0].node, *(e.node for e in found[1:] if e.node.status != NodeStatus.REJECTED
                                       and e.node.provenance.tool in REGENERABLE_TOOLS)]
    return sets
