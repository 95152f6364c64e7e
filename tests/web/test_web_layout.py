"""The automatic layout: lineage left to right, groups and turns together, placed nodes never move."""

from __future__ import annotations

from jarvishub.web.layout import COL_STEP, ORIGIN, PACK_AT, ROW_STEP, SHELF_COLS, SHELF_ROWS, is_unplaced, plan_layout
from store.models import CanvasEdge, CanvasNode, EdgeType, Position


def _node(node_id: str, kind: str = "image", *, at: Position | None = None, turn: str = "t1",
          group: str | None = None) -> CanvasNode:
    return CanvasNode(id=node_id, kind=kind, position=at or Position(), group_id=group,
                      metadata={"provenance": {"turn_id": turn}}, created_at=f"2026-01-01T00:00:{len(node_id):02d}")


def _edge(source: str, target: str, edge_type: EdgeType = EdgeType.GENERATED_FROM) -> CanvasEdge:
    return CanvasEdge(type=edge_type, source=source, target=target)


def _cell(position: Position) -> tuple[float, float]:
    return (position.x - ORIGIN[0]) / COL_STEP, (position.y - ORIGIN[1]) / ROW_STEP


def test_lineage_runs_left_to_right_and_siblings_stack() -> None:
    nodes = [_node("ref", "reference"), _node("img"), _node("edit"), _node("clip", "video"), _node("clip2", "video")]
    edges = [_edge("img", "ref", EdgeType.REFERENCES), _edge("edit", "img", EdgeType.VERSION_OF),
             _edge("clip", "img"), _edge("clip2", "img")]
    plan = plan_layout(nodes, edges)
    cells = {i: _cell(p) for i, p in plan.items()}
    assert cells["ref"] == (0, 0) and cells["img"] == (1, 0)
    assert {cells["edit"], cells["clip"], cells["clip2"]} == {(2, 0), (2, 1), (2, 2)}
    assert all((p.x, p.y) != (0, 0) and not p.pinned for p in plan.values())


def test_placed_and_pinned_nodes_keep_their_place_and_new_nodes_avoid_them() -> None:
    pinned = _node("pinned", at=Position(x=ORIGIN[0] + COL_STEP, y=ORIGIN[1], pinned=True))
    placed = _node("placed", at=Position(x=ORIGIN[0], y=ORIGIN[1]), turn="t0")
    child = _node("child", turn="t2")
    plan = plan_layout([placed, pinned, child], [_edge("child", "placed")])
    assert set(plan) == {"child"}  # only the unplaced node moves
    assert _cell(plan["child"]) == (1, 1)  # right of its parent, below the pinned card in the way
    moved = child.model_copy(update={"position": plan["child"]})
    assert plan_layout([placed, pinned, moved], [_edge("child", "placed")]) == {}  # incremental: nothing jumps


def test_new_roots_start_a_band_below_everything_and_turns_stay_together() -> None:
    old = _node("old", at=Position(x=ORIGIN[0], y=ORIGIN[1] + 3 * ROW_STEP), turn="t0")
    a, b = _node("a", "text", turn="t9"), _node("bb", "text", turn="t9")
    plan = plan_layout([old, a, b], [])
    assert _cell(plan["a"]) == (0, 4) and _cell(plan["bb"]) == (0, 5)


def test_bands_fill_a_shelf_then_start_the_next_one_to_the_right() -> None:
    nodes, edges = [], []
    for chain in range(SHELF_ROWS + 2):
        root, child = _node(f"r{chain:03d}", turn=f"t{chain:03d}"), _node(f"c{chain:03d}", turn=f"t{chain:03d}")
        nodes += [root, child]
        edges.append(_edge(child.id, root.id))
    cells = {i: _cell(p) for i, p in plan_layout(nodes, edges).items()}
    assert cells["r000"] == (0, 0) and cells["c000"] == (1, 0)
    assert cells[f"r{SHELF_ROWS - 1:03d}"] == (0, SHELF_ROWS - 1)
    assert cells[f"r{SHELF_ROWS:03d}"] == (SHELF_COLS, 0) and cells[f"c{SHELF_ROWS:03d}"] == (SHELF_COLS + 1, 0)
    assert cells[f"r{SHELF_ROWS + 1:03d}"] == (SHELF_COLS, 1)


def test_group_members_follow_one_another_and_the_group_box_takes_no_cell() -> None:
    group = _node("g", "group")
    members = [_node(f"m{i}", turn=f"turn{i}", group="g") for i in range(3)]
    plan = plan_layout([group, *members], [])
    cells = [_cell(plan[m.id]) for m in members]
    assert cells == [(0, 0), (0, 1), (0, 2)]
    assert (plan["g"].x, plan["g"].y) == (plan["m0"].x, plan["m0"].y)


def test_many_unrelated_nodes_of_one_turn_are_packed_in_a_block() -> None:
    loose = [_node(f"n{i:03d}", "text") for i in range(PACK_AT * 3)]
    plan = plan_layout(loose, [])
    cells = {_cell(p) for p in plan.values()}
    assert len(cells) == len(loose)
    assert max(c for c, _ in cells) == 5 and max(r for _, r in cells) == 5  # 36 nodes: 6 x 6


def test_a_lineage_cycle_does_not_hang() -> None:
    nodes = [_node("x"), _node("yy")]
    plan = plan_layout(nodes, [_edge("x", "yy"), _edge("yy", "x")])
    assert len({(p.x, p.y) for p in plan.values()}) == 2 and not any(map(is_unplaced, [
        n.model_copy(update={"position": plan[n.id]}) for n in nodes]))
