"""Server-side automatic layout of the canvas (the L of the canvas state).

Nodes that agents create arrive at the default position (0, 0).  The layout
places those, and only those, on a grid of cards:

* lineage runs left to right: a node sits one column right of the right-most
  node it was ``GENERATED_FROM``, ``REFERENCES`` or is a ``VERSION_OF``;
  siblings stack downward from their parent's row;
* a node with no placed lineage starts a new band below the others on its
  shelf (a strip of :data:`SHELF_COLS` columns, filled down to
  :data:`SHELF_ROWS` rows before the next shelf starts to its right); nodes
  of the same group or the same turn follow one another; many unrelated nodes
  made together are packed in a square block below everything;
* placement is incremental: a node already placed (by the layout, or pinned by
  a person dragging it) never moves, and new nodes only take free cells;
* a group node with members is drawn as a box around them, so it takes no
  cell: it is parked at its members' top-left corner.

The layout writes through the bridge like everything else: one
``CanvasMutation`` of ``move_node`` mutations (each with the version it was
planned from, so a person's concurrent drag wins) under a system grant.
:func:`plan_layout` is the pure part; :func:`layout_pending` reads, plans and
submits.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from nodes.actions import CanvasMutation
from nodes.bridge import Usage
from nodes.grant import Budget, Grant
from store.cypher import FixedCypher
from store.errors import StaleVersion
from store.models import CanvasEdge, CanvasNode, EdgeType, Position, new_id
from store.mutations import MoveNode, Mutation

if TYPE_CHECKING:
    from jarvishub.runtime import Runtime

CARD_W = 180.0
"""Width of a node card on the page, in canvas units."""
CARD_H = 150.0
"""Height of a node card on the page, in canvas units."""
COL_STEP = 240.0
"""Distance between two lineage columns."""
ROW_STEP = 190.0
"""Distance between two rows."""
ORIGIN = (40.0, 40.0)
"""Where cell (0, 0) sits; never (0, 0) itself, which means "not placed yet"."""
PACK_AT = 12
"""Unrelated nodes made together are packed in a square block from this many on."""
SHELF_COLS = 12
SHELF_ROWS = 30
"""New lineage bands fill a shelf of this many columns down to this many rows, then start the next shelf to
its right, so a large canvas stays roughly as wide as it is tall instead of one endless column."""

LAYOUT_ACTOR = "system:layout"
"""The actor of layout commits (the live feed does not re-run the layout for them)."""
LAYOUT_GRANT_ID = "system-layout"
"""The id of the layout's stored grant; revoke it to stop automatic layout."""
LINEAGE_EDGES = (EdgeType.GENERATED_FROM, EdgeType.REFERENCES, EdgeType.VERSION_OF)
"""Edges that put their source to the right of their target."""

_PENDING_QUERY = FixedCypher(
    "MATCH (n:CanvasNode) WHERE n.x = 0 AND n.y = 0 AND (n.pinned IS NULL OR n.pinned = false) "
    "AND (n.deleted IS NULL OR n.deleted = false) RETURN n.id AS id LIMIT 1"
)
_ATTEMPTS = 8

Cell = tuple[int, int]


def is_unplaced(node: CanvasNode) -> bool:
    """Whether a node still sits at the default position and no person pinned it."""
    return node.position.x == 0.0 and node.position.y == 0.0 and not node.position.pinned


def cell_position(cell: Cell) -> Position:
    """The canvas position of a grid cell (never pinned: the layout may not pin)."""
    return Position(x=ORIGIN[0] + cell[0] * COL_STEP, y=ORIGIN[1] + cell[1] * ROW_STEP)


@dataclass
class _Grid:
    """Which cells are taken, and the lowest row in use overall and on each shelf."""

    taken: set[Cell] = field(default_factory=set)
    bottom: int = -1
    shelf_bottoms: dict[int, int] = field(default_factory=dict)

    def take(self, cell: Cell) -> None:
        self.taken.add(cell)
        self.bottom = max(self.bottom, cell[1])
        shelf = cell[0] // SHELF_COLS
        self.shelf_bottoms[shelf] = max(self.shelf_bottoms.get(shelf, -1), cell[1])

    def new_band(self) -> Cell:
        """Where a new band starts: below the others on the first shelf with room."""
        shelf = 0
        while self.shelf_bottoms.get(shelf, -1) + 1 >= SHELF_ROWS:
            shelf += 1
        return shelf * SHELF_COLS, self.shelf_bottoms.get(shelf, -1) + 1

    def cover(self, position: Position) -> None:
        """Take every cell a card at ``position`` overlaps."""
        x, y = position.x - ORIGIN[0], position.y - ORIGIN[1]
        for col in _open_range((x - CARD_W) / COL_STEP, (x + CARD_W) / COL_STEP):
            for row in _open_range((y - CARD_H) / ROW_STEP, (y + CARD_H) / ROW_STEP):
                self.take((col, row))

    def free_from(self, col: int, row: int) -> Cell:
        """The first free cell of a column at or below a row."""
        while (col, row) in self.taken:
            row += 1
        return col, row


def _open_range(low: float, high: float) -> range:
    """Integers strictly between ``low`` and ``high``."""
    return range(math.floor(low) + 1, math.ceil(high))


def _nearest_cell(position: Position) -> Cell:
    return round((position.x - ORIGIN[0]) / COL_STEP), round((position.y - ORIGIN[1]) / ROW_STEP)


def _turn_key(node: CanvasNode) -> str:
    # Nodes of one commit share created_at, so a batch without a turn id still counts as one.
    return str(node.metadata.get("provenance", {}).get("turn_id") or node.created_at)


def plan_layout(nodes: Sequence[CanvasNode], edges: Iterable[CanvasEdge]) -> dict[str, Position]:
    """Positions for the unplaced nodes of a canvas; nodes already placed keep theirs.

    Pure: give it the live nodes and edges, get back ``{node id: position}``
    for the nodes to move (possibly empty).
    """
    by_id = {n.id: n for n in nodes}
    parents: dict[str, list[str]] = defaultdict(list)
    linked: set[str] = set()
    for edge in edges:
        if edge.type in LINEAGE_EDGES and edge.source in by_id and edge.target in by_id:
            parents[edge.source].append(edge.target)
            linked.update((edge.source, edge.target))
    members: dict[str, list[str]] = defaultdict(list)
    for node in nodes:
        if node.group_id:
            members[node.group_id].append(node.id)

    grid = _Grid()
    cells: dict[str, Cell] = {}
    pending: list[CanvasNode] = []
    for node in nodes:
        if is_unplaced(node):
            pending.append(node)
        elif not (node.kind == "group" and members.get(node.id)):
            grid.cover(node.position)
            cells[node.id] = _nearest_cell(node.position)
    if not pending:
        return {}

    boxes = [n for n in pending if n.kind == "group" and members.get(n.id)]
    cards = _parents_first([n for n in pending if n not in boxes], parents)
    planned: dict[str, Position] = {}
    # Unrelated nodes (no lineage, no group) made together in large numbers are packed in a block.
    loose: dict[str, list[CanvasNode]] = defaultdict(list)
    for node in cards:
        if node.id not in linked and not node.group_id:
            loose[_turn_key(node)].append(node)
    packed = {n.id for group in loose.values() if len(group) >= PACK_AT for n in group}
    last_of_group = {n.group_id: cells[n.id] for n in nodes if n.group_id and n.id in cells}
    for node in cards:
        if node.id in packed:
            continue
        placed_parents = [cells[p] for p in parents.get(node.id, []) if p in cells]
        if placed_parents:
            col = max(c for c, _ in placed_parents) + 1
            start = (col, min(r for _, r in placed_parents))
        elif node.group_id in last_of_group:
            start = last_of_group[node.group_id]
        else:  # nodes are taken in creation order, so a turn's new bands follow one another
            start = grid.new_band()
        cell = grid.free_from(*start)
        grid.take(cell)
        cells[node.id] = cell
        planned[node.id] = cell_position(cell)
        if node.group_id:
            last_of_group[node.group_id] = cell

    for group in loose.values():
        if len(group) < PACK_AT:
            continue
        width = math.ceil(math.sqrt(len(group)))
        top = grid.bottom + (1 if grid.bottom < 0 else 2)
        for index, node in enumerate(group):
            cell = (index % width, top + index // width)
            grid.take(cell)
            cells[node.id] = cell
            planned[node.id] = cell_position(cell)

    for box in boxes:
        spots = [planned.get(m) or by_id[m].position for m in members[box.id]]
        planned[box.id] = Position(x=min(p.x for p in spots), y=min(p.y for p in spots))
    # A node whose plan is where it already is needs no move.
    return {i: p for i, p in planned.items() if (p.x, p.y) != (by_id[i].position.x, by_id[i].position.y)}


def _parents_first(nodes: list[CanvasNode], parents: dict[str, list[str]]) -> list[CanvasNode]:
    """Creation order, except that a node comes after the unplaced nodes it derives from."""
    todo = {n.id: n for n in nodes}
    ordered: list[CanvasNode] = []
    seen: set[str] = set()  # a lineage cycle is bad data, not a reason to hang: nobody is visited twice
    for root in sorted(nodes, key=lambda n: (n.created_at, n.id)):
        if root.id in seen:
            continue
        seen.add(root.id)
        stack = [(root.id, iter(parents.get(root.id, [])))]
        while stack:
            node_id, rest = stack[-1]
            for parent in rest:
                if parent in todo and parent not in seen:
                    seen.add(parent)
                    stack.append((parent, iter(parents.get(parent, []))))
                    break
            else:
                stack.pop()
                ordered.append(todo[node_id])
    return ordered


def layout_grant(runtime: Runtime) -> Grant:
    """The stored system grant the layout writes under (created once; a revocation sticks)."""
    try:
        return runtime.grants.get(LAYOUT_GRANT_ID)
    except KeyError:
        return runtime.grants.save(
            Grant(id=LAYOUT_GRANT_ID, actor=LAYOUT_ACTOR, tools=[], operations=["move_node"],
                  budget=Budget(tool_calls=None, generation_calls=0, wall_time_s=None))
        )


def layout_pending(runtime: Runtime,
                   read: Callable[[], tuple[list[CanvasNode], list[CanvasEdge]]] | None = None) -> int:
    """Place every unplaced node of the runtime's canvas through the bridge; return how many moved.

    Cheap when nothing is unplaced (one indexed read).  Safe to call from
    several processes at once: a batch planned from versions that changed
    meanwhile is refused as stale and planned again.  ``read`` gives the live
    nodes and edges when the caller keeps them (the web server's views, caught
    up from the commit log); without it the whole canvas is read.
    """
    store = runtime.project.store
    for _ in range(_ATTEMPTS):
        if not store.fixed_read(_PENDING_QUERY):  # ours: outside the user-query budget
            return 0
        if read is not None:
            nodes, edges = read()
        else:
            nodes = store.find_nodes()
            alive = {n.id for n in nodes}
            edges = [e for e in store.edges() if e.source in alive and e.target in alive]
        plan = plan_layout(nodes, edges)
        if not plan:
            return 0
        versions = {n.id: n.version for n in nodes}
        moves: list[Mutation] = [MoveNode(node_id=i, position=p, expected_version=versions[i]) for i, p in plan.items()]
        action = CanvasMutation(action_id=new_id(), actor=LAYOUT_ACTOR, mutations=moves,
                                rationale="automatic layout of new nodes")
        try:
            result = runtime.bridge.submit(action, layout_grant(runtime), Usage(), thread_id="layout")
        except StaleVersion:
            continue
        if result.reason == StaleVersion.__name__:  # another process moved or changed a node meanwhile
            continue
        if result.verdict != "allow":
            raise PermissionError(f"the layout's move_node batch was refused: {result.message}")
        return len(moves)
    return 0
