"""The head of a version lineage, and the rule that a new version is made only from the head.

An output (shot 3's image, the cut) is a chain of ``VERSION_OF`` edges; its
*head* is the newest version that is not rejected.  A new version made from a
node that is no longer the head would fork the chain: two current versions of
one output, one of them built without the other's change.  So every way of
making a version (``regenerate_stale``, ``generate_*`` with ``version_of``, an
exploration and its selection) refuses a base that another turn has replaced,
naming the head to use instead.  Versions made earlier in the *same* turn do not
count: a turn may make several alternatives of one node (an exploration's
candidates) without racing itself.
"""

from __future__ import annotations

from store.base import CanvasReader, LineageEntry
from store.errors import NodeNotFound
from store.models import CanvasNode, Direction, EdgeType, NodeStatus
from store.mutations import SetStatus
from tools.base import ToolError
from tools.staleness import stale_sets


class NotHeadVersion(ToolError):
    """A new version was asked of a node that a newer version (made by another turn) has replaced."""

    def __init__(self, node_id: str, head: CanvasNode) -> None:
        self.node_id = node_id
        self.head_id = head.id
        made_by = head.provenance.turn_id or "no turn"
        super().__init__(
            f"node {node_id} is no longer the current version of its output: {head.id} ({head.title or head.kind}, "
            f"made by {made_by}) replaced it; make the new version from {head.id}, or reject {head.id} first")


def current_version(canvas: CanvasReader, node: CanvasNode) -> CanvasNode:
    """The newest version of a node that is not rejected (the node itself when nothing newer is live)."""
    return current_versions(canvas, [node])[node.id]


def current_versions(canvas: CanvasReader, nodes: list[CanvasNode]) -> dict[str, CanvasNode]:
    """:func:`current_version` of each node, in one read of their VERSION_OF lineages."""
    newer = canvas.lineages([n.id for n in nodes], [EdgeType.VERSION_OF], Direction.IN) if nodes else {}
    return {node.id: head_of(node, newer.get(node.id, [])) for node in nodes}


def head_of(node: CanvasNode, newer: list[LineageEntry]) -> CanvasNode:
    """The newest live version among ``newer`` (the versions made of ``node``); ``node`` when none is live."""
    live = [e for e in newer if e.node.status != NodeStatus.REJECTED]
    return _newest(live) if live else node


def require_head(canvas: CanvasReader, node_id: str, *, turn_id: str | None) -> CanvasNode:
    """The node, if no newer live version of it was made outside turn ``turn_id``; else :class:`NotHeadVersion`.

    A turn's own newer versions (``turn_id`` not None and equal) are its alternatives, not a replacement.
    """
    # One read: the node with the versions made of it (a generation tool checks this before paying a provider).
    found = canvas.lineages([node_id], [EdgeType.VERSION_OF], Direction.IN, with_start=True).get(node_id) or []
    if not found:
        raise NodeNotFound(node_id)
    node = found[0].node
    newer = [e for e in found[1:] if e.node.status != NodeStatus.REJECTED
             and (turn_id is None or e.node.provenance.turn_id != turn_id)]
    if newer:
        raise NotHeadVersion(node.id, _newest(newer))
    return node


def reinstate_mutations(canvas: CanvasReader, node: CanvasNode, reason: str) -> list[SetStatus]:
    """What making a set-aside (rejected) version current again takes, so its output keeps one current version.

    A live version that is an *earlier* version of ``node`` (the explored image, restored when the candidate
    that had replaced it was rejected) is superseded by it, and what was made from that version is marked
    stale, so a rebuild follows ``node`` (the head of that version).  A live version anywhere else in the
    lineage (the candidate an exploration selected; a newer version of ``node``) is not replaced silently:
    :class:`NotHeadVersion` names it, and rejecting it first restores the lineage to where ``node`` can be
    selected.
    """
    ancestors = canvas.lineage(node.id, [EdgeType.VERSION_OF], Direction.OUT)
    root = ancestors[-1].node if ancestors else node
    earlier = {e.node.id for e in ancestors}
    output = [root, *(e.node for e in canvas.lineage(root.id, [EdgeType.VERSION_OF], Direction.IN))]
    live = {v.id: v for v in output if v.id != node.id and v.status != NodeStatus.REJECTED and not v.deleted}
    elsewhere = [LineageEntry(node=v, depth=0) for v in live.values() if v.id not in earlier]
    if elsewhere:
        raise NotHeadVersion(node.id, _newest(elsewhere))
    mutations = [SetStatus(node_id=v.id, status=NodeStatus.REJECTED, reason=f"superseded by {node.id} ({reason})")
                 for v in live.values()]
    if live:
        derived = {n.id for found in stale_sets(canvas, list(live)).values() for n in found[1:]}
        mutations += [SetStatus(node_id=n, status=NodeStatus.STALE, reason=f"made from a version {node.id} replaced")
                      for n in sorted(derived - set(live) - {node.id})]
    return mutations


def _newest(entries: list[LineageEntry]) -> CanvasNode:
    return max(entries, key=lambda e: (e.depth, e.node.created_at)).node
