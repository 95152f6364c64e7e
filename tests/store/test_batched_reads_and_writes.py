"""The batched reads and the one-statement commit give what the per-node, per-hop and per-write versions gave."""

from __future__ import annotations

import uuid

import pytest

from store.errors import InvalidMutation, NodeNotFound
from store.models import Direction, EdgeType, NodeStatus
from store.mutations import CreateNode, DeleteNode, GroupNodes, Link, RecordTurn, SetStatus, Unlink, UpdateNode


@pytest.fixture
def lineage_canvas(canvas, write):
    """shot ← image ← clip ← cut (GENERATED_FROM), image → character (REFERENCES), image_v2 → image (VERSION_OF),
    a diamond (d → b, d → c, b → a, c → a) and a deleted node in the middle of a chain (x → gone → y)."""
    names = ["shot", "character", "image", "image_v2", "clip", "cut", "a", "b", "c", "d", "x", "gone", "y"]
    nodes = {name: CreateNode(kind="image", title=name) for name in names}
    ids = {name: node.id for name, node in nodes.items()}
    edges = [(EdgeType.GENERATED_FROM, "image", "shot"), (EdgeType.REFERENCES, "image", "character"),
             (EdgeType.VERSION_OF, "image_v2", "image"), (EdgeType.GENERATED_FROM, "clip", "image"),
             (EdgeType.GENERATED_FROM, "cut", "clip"), (EdgeType.GENERATED_FROM, "d", "b"),
             (EdgeType.GENERATED_FROM, "d", "c"), (EdgeType.GENERATED_FROM, "b", "a"),
             (EdgeType.GENERATED_FROM, "c", "a"), (EdgeType.GENERATED_FROM, "x", "gone"),
             (EdgeType.GENERATED_FROM, "gone", "y")]
    write(*nodes.values(), *[Link(type=t, source=ids[s], target=ids[d]) for t, s, d in edges])
    write(DeleteNode(node_id=ids["gone"]))
    return ids


@pytest.mark.parametrize("edge_types, direction, max_depth", [
    (None, Direction.OUT, None),
    (None, Direction.IN, None),
    ([EdgeType.GENERATED_FROM, EdgeType.REFERENCES], Direction.IN, None),
    ([EdgeType.VERSION_OF], Direction.IN, None),
    (None, Direction.OUT, 1),
    (None, Direction.BOTH, 2),
])
def test_lineages_of_many_nodes_equal_each_nodes_lineage(canvas, lineage_canvas, edge_types, direction, max_depth):
    ids = lineage_canvas
    starts = [i for name, i in ids.items() if name != "gone"]
    batched = canvas.lineages(starts, edge_types, direction, max_depth=max_depth)
    for start in starts:
        one = canvas.lineage(start, edge_types, direction, max_depth)
        assert sorted((e.node.id, e.depth) for e in batched[start]) == sorted((e.node.id, e.depth) for e in one)


def test_the_output_graph_is_the_live_nodes_of_its_kinds_and_the_edges_of_its_types(canvas, lineage_canvas, write):
    """One statement gives what ``find_nodes`` and ``edges`` give, in their order (an evaluation's outputs are told
    apart by it): the live nodes of the kinds asked (no deleted node, no other kind), every edge of the types."""
    note = CreateNode(kind="text", title="a note")
    write(note, Link(type=EdgeType.GENERATED_FROM, source=note.id, target=lineage_canvas["image"]))
    kinds, types = ["image", "shot"], [EdgeType.VERSION_OF, EdgeType.GENERATED_FROM]
    nodes, edges = canvas.output_graph(kinds, types)
    assert [n.id for n in nodes] == [n.id for n in canvas.find_nodes() if n.kind in kinds]
    assert note.id not in {n.id for n in nodes} and lineage_canvas["gone"] not in {n.id for n in nodes}
    assert edges == [(e.type, e.source, e.target) for e in canvas.edges(edge_types=types)]
    assert (EdgeType.GENERATED_FROM, note.id, lineage_canvas["image"]) in edges  # edges whatever their ends' kinds
    assert not any(t == EdgeType.REFERENCES for t, _, _ in edges)


def test_lineages_visit_a_diamond_once_and_skip_missing_starts(canvas, lineage_canvas):
    ids = lineage_canvas
    found = canvas.lineages([ids["d"], "no-such-node"])
    assert sorted(e.node.title for e in found[ids["d"]]) == ["a", "b", "c"]
    assert {e.node.title: e.depth for e in found[ids["d"]]}["a"] == 2
    assert found["no-such-node"] == []
    # A deleted node is walked through but not listed.
    assert [e.node.title for e in canvas.lineages([ids["x"]])[ids["x"]]] == ["y"]


def test_neighbours_of_many_nodes_equal_each_nodes_neighbours(canvas, lineage_canvas):
    ids = lineage_canvas
    starts = [ids["image"], ids["clip"], ids["shot"], ids["d"]]
    for direction in (Direction.OUT, Direction.IN, Direction.BOTH):
        batched = canvas.neighbours_of(starts, None, direction)
        for start in starts:
            one = canvas.neighbours(start, None, direction)
            assert [(n.node.id, n.edge.type, n.edge.source, n.edge.target) for n in batched[start]] == \
                   [(n.node.id, n.edge.type, n.edge.source, n.edge.target) for n in one]
    with pytest.raises(NodeNotFound):
        canvas.neighbours_of([ids["image"], ids["gone"]])
    with pytest.raises(NodeNotFound):
        canvas.neighbours_of(["no-such-node"])


def test_overview_reads_focus_lineage_counts_and_recent_in_one(canvas, lineage_canvas, write):
    ids = lineage_canvas
    write(SetStatus(node_id=ids["clip"], status=NodeStatus.STALE))
    seen = canvas.overview([ids["clip"], ids["gone"], "no-such-node"], max_depth=2,
                           since_version=canvas.canvas_version() - 1, recent=8)
    clip = seen.lineages[ids["clip"]]
    assert clip[0].node.id == ids["clip"] and clip[0].depth == 0
    assert sorted((e.node.title, e.depth) for e in clip[1:]) == [("character", 2), ("image", 1), ("shot", 2)]
    assert seen.lineages[ids["gone"]] == [] and seen.lineages["no-such-node"] == []
    assert seen.counts == [("image", "pending", 11), ("image", "stale", 1)]
    assert [n.id for n in seen.recent] == [ids["clip"]]


def test_overview_reads_the_titles_of_named_nodes_as_get_nodes_does(canvas, lineage_canvas):
    ids = lineage_canvas
    named = [ids["cut"], ids["gone"], "no-such-node", ids["cut"]]
    seen = canvas.overview([], max_depth=1, since_version=None, recent=1, within=1, named=named)
    assert seen.titles == {n.id: n.title for n in canvas.get_nodes(named[:2], include_deleted=True)}
    assert seen.titles == {ids["cut"]: "cut", ids["gone"]: "gone"}  # a deleted node too; a missing id left out
    assert canvas.overview([], max_depth=1, since_version=None, recent=1).titles is None


def test_one_commit_writes_creates_updates_links_unlinks_deletes_and_a_turn(canvas, lineage_canvas, write):
    ids = lineage_canvas
    group = CreateNode(kind="group", title="board")
    other = CreateNode(kind="group", title="other board")
    write(group, other, GroupNodes(group_id=group.id, node_ids=[ids["a"]]))
    fresh = CreateNode(kind="text", title="fresh")
    record = write(
        fresh,
        UpdateNode(node_id=ids["b"], title="b2"),
        Link(type=EdgeType.REFERENCES, source=fresh.id, target=ids["b"]),
        Unlink(type=EdgeType.GENERATED_FROM, source=ids["d"], target=ids["c"]),
        GroupNodes(group_id=other.id, node_ids=[ids["a"]]),  # a regroup: an unlink and a link
        DeleteNode(node_id=ids["y"], hard=True),
        RecordTurn(turn_id="t1", thread_id="th", request="r", canvas_before=0, canvas_after=1,
                   node_ids=[ids["b"], ids["y"]]),
    )
    assert canvas.get_node(fresh.id).title == "fresh" and canvas.get_node(ids["b"]).title == "b2"
    assert [n.node.id for n in canvas.neighbours(fresh.id)] == [ids["b"]]
    assert [n.node.title for n in canvas.neighbours(ids["d"])] == ["b2"]
    assert canvas.get_node(ids["a"]).group_id == other.id
    assert [n.node.id for n in canvas.neighbours(ids["a"], [EdgeType.IN_GROUP])] == [other.id]
    with pytest.raises(NodeNotFound):
        canvas.get_node(ids["y"])
    turn = canvas.turns("th")[0]
    assert turn["node_ids"] == [ids["b"]]  # the hard-deleted node has no TOUCHED edge
    assert record.canvas_version == canvas.canvas_version()
    assert canvas.commit_for_key(record.idempotency_key).node_ids == record.node_ids


def test_a_commit_whose_write_matches_nothing_writes_nothing(canvas, lineage_canvas, write):
    ids = lineage_canvas
    before = canvas.canvas_version()
    fresh = CreateNode(kind="text", title="half")
    with pytest.raises((InvalidMutation, NodeNotFound)):
        write(fresh, Link(type=EdgeType.REFERENCES, source=fresh.id, target=ids["gone"]))
    with pytest.raises(NodeNotFound):
        canvas.get_node(fresh.id)
    assert canvas.canvas_version() == before


def test_a_replayed_key_changes_nothing_and_returns_the_first_commit(canvas, write):
    first = write(CreateNode(kind="text", title="once"), key="k-replay")
    version = canvas.canvas_version()
    again = write(CreateNode(kind="text", title="twice"), key="k-replay")
    assert again.replayed and again.id == first.id and canvas.canvas_version() == version
    assert [n.title for n in canvas.find_nodes(kind="text")] == ["once"]


def test_a_new_node_with_the_id_of_one_on_the_canvas_is_refused_and_changes_nothing(canvas, write):
    """A batch of new nodes is written without reading first (this store has seen the canvas's version): a node
    that exists already is still refused before anything is written, and the canvas keeps its node and version."""
    first = CreateNode(kind="text", title="first")
    write(first)  # this store now knows the canvas's version, so the next batch of new nodes writes blind
    version = canvas.canvas_version()
    with pytest.raises(InvalidMutation, match="already exists"):
        write(CreateNode(kind="text", title="other"), CreateNode(id=first.id, kind="image", title="again"))
    assert canvas.canvas_version() == version
    assert [(n.id, n.kind, n.title) for n in canvas.find_nodes()] == [(first.id, "text", "first")]
    assert [h.version for h in canvas.node_history(first.id)] == [1]


def test_lineages_with_their_start_node_first(canvas, lineage_canvas):
    ids = lineage_canvas
    found = canvas.lineages([ids["image"], ids["gone"], "no-such-node"], [EdgeType.VERSION_OF, EdgeType.GENERATED_FROM],
                            Direction.IN, with_start=True)
    assert [(e.node.title, e.depth) for e in found[ids["image"]]] == [("image", 0), ("image_v2", 1), ("clip", 1),
                                                                      ("cut", 2)]
    assert found[ids["gone"]] == [] and found["no-such-node"] == []


def test_the_views_counts_follow_every_commit_of_this_store_and_of_another(canvas, lineage_canvas, write, engine,
                                                                          authority):
    """The view keeps the counts it read and moves them by its own commits; another writer's commit (another
    process's, here another store on the same database) makes it count again: always what a count gives."""
    from store.neo4j import Neo4jCanvasStore

    ids = lineage_canvas
    other = Neo4jCanvasStore.on(engine, canvas.database, authority=authority)

    def counts():
        return canvas.overview([], max_depth=1, since_version=0, recent=1).counts

    try:
        assert counts() == canvas.live_counts() == [("image", "pending", 12)]
        fresh = CreateNode(kind="text", title="fresh")
        write(fresh, SetStatus(node_id=ids["a"], status=NodeStatus.STALE), DeleteNode(node_id=ids["b"]),
              UpdateNode(node_id=ids["gone"], undelete=True))
        assert counts() == canvas.live_counts() == [("image", "pending", 11), ("image", "stale", 1),
                                                    ("text", "pending", 1)]
        write(DeleteNode(node_id=fresh.id, hard=True), RecordTurn(turn_id="t", thread_id="th", canvas_before=0))
        assert counts() == canvas.live_counts() == [("image", "pending", 11), ("image", "stale", 1)]
        batch = [SetStatus(node_id=ids["c"], status=NodeStatus.REJECTED)]
        other.apply(batch, ticket=authority.issue("other", batch))
        write(SetStatus(node_id=ids["d"], status=NodeStatus.COMPLETED))
        assert counts() == canvas.live_counts() == [("image", "completed", 1), ("image", "pending", 9),
                                                    ("image", "rejected", 1), ("image", "stale", 1)]
    finally:
        other.close()


def test_the_views_recent_nodes_are_those_of_the_window_asked_whoever_wrote_since(canvas, lineage_canvas, write,
                                                                                   engine, authority):
    """The recent nodes read from the newest version this store has seen (through the node version index) are
    exactly those written in the last ``within`` versions of the canvas as it is now: another writer's commits
    since (another process's) are in, what a wider window would add is not."""
    from store.neo4j import Neo4jCanvasStore

    other = Neo4jCanvasStore.on(engine, canvas.database, authority=authority)

    def recent(within: int) -> list[str]:
        return [n.title for n in canvas.overview([], max_depth=1, since_version=None, recent=3, within=within).recent]

    try:
        recent(2)  # this store has seen the canvas now
        for title in ("one", "two", "three", "four"):  # four versions this store never saw
            batch = [CreateNode(kind="text", title=title)]
            other.apply(batch, ticket=authority.issue(title, batch))
        assert recent(2) == ["four", "three"]
        assert recent(3) == ["four", "three", "two"]
        write(CreateNode(kind="text", title="five"))
        assert recent(1) == ["five"]
    finally:
        other.close()


def test_the_views_recent_nodes_after_a_large_commit_are_the_newest_of_the_window(canvas, write, engine, authority):
    """A commit of hundreds of nodes inside the window is not read whole to keep the newest few (the floor is
    raised from this store's own commits): what comes back is what the whole window holds, newest first, after
    deletes, and after another writer's commit (another process's) the raised floor no longer applies."""
    from store.neo4j import Neo4jCanvasStore

    other = Neo4jCanvasStore.on(engine, canvas.database, authority=authority)

    def recent(count: int) -> list[str]:
        return [n.id for n in canvas.overview([], max_depth=1, since_version=None, recent=count, within=12).recent]

    def newest_of_window(count: int) -> list[str]:
        floor = canvas.canvas_version() - 12
        live = [n for n in canvas.find_nodes() if n.canvas_version > floor]
        return [n.id for n in sorted(live, key=lambda n: (-n.canvas_version, n.id))][:count]

    try:
        write(CreateNode(kind="text", title="before"))
        batch = [CreateNode(kind="text", title=f"beat {i:03}") for i in range(300)]
        write(*batch)
        singles = [CreateNode(kind="text", title=title) for title in ("one", "two", "three")]
        for node in singles:
            write(node)
        assert recent(3) == newest_of_window(3) == [node.id for node in reversed(singles)]
        assert recent(5) == newest_of_window(5)
        write(DeleteNode(node_id=singles[2].id), RecordTurn(turn_id="t", thread_id="th", canvas_before=0))
        write(DeleteNode(node_id=singles[1].id, hard=True))
        assert recent(3) == newest_of_window(3) and not {n.id for n in singles[1:]} & set(recent(3))
        foreign = [CreateNode(kind="text", title="theirs")]
        other.apply(foreign, ticket=authority.issue("other", foreign))
        other.apply([DeleteNode(node_id=batch[0].id)], ticket=authority.issue("other-delete",
                                                                               [DeleteNode(node_id=batch[0].id)]))
        assert recent(3) == newest_of_window(3) and recent(3)[0] == foreign[0].id
    finally:
        other.close()


def _overview_seen(store, *, since_version=None, recent=3, within=12, named=()):
    """What a view with no focus uses of an overview: the version, counts, recent nodes and named titles."""
    seen = store.overview([], max_depth=1, since_version=since_version, recent=recent, within=within, named=named)
    return (seen.version, seen.counts, [(n.id, n.kind, n.title, n.status, n.canvas_version) for n in seen.recent],
            seen.titles, seen.lineages)


def test_a_view_answered_from_this_stores_own_commits_is_the_statements_answer(canvas, write, engine, authority,
                                                                              monkeypatch):
    """While this store made every commit of the view's window, a view with no focus is answered from what its
    commits wrote (one read of the version, no overview statement), and the answer is exactly what the statement
    reads, here through another store on the same database that made no commit: creates, retitles, statuses,
    soft and hard deletes, a turn record, in windows given by a version and by a width."""
    from store.neo4j import Neo4jCanvasStore

    sent: list[str] = []
    read = canvas._read

    def recorded(cypher, **params):
        sent.append(cypher)
        return read(cypher, **params)

    monkeypatch.setattr(canvas, "_read", recorded)
    reader = Neo4jCanvasStore.on(engine, canvas.database, authority=authority)
    try:
        made = [CreateNode(kind="text", title=f"note {i}") for i in range(5)]
        write(*made[:2])
        canvas.live_counts()  # the counts are known from here on, and carried by each commit
        canvas.overview([], max_depth=1, since_version=0, recent=1)
        steps = [
            [made[2]], [made[3], made[4]],
            [UpdateNode(node_id=made[0].id, title="renamed")],
            [SetStatus(node_id=made[1].id, status=NodeStatus.REJECTED)],
            [DeleteNode(node_id=made[3].id)],
            [RecordTurn(turn_id="t1", thread_id="th", canvas_before=0, node_ids=[made[4].id])],
            [DeleteNode(node_id=made[4].id, hard=True)],
            [UpdateNode(node_id=made[3].id, undelete=True)],
        ]
        named = [m.id for m in made[:2]]
        for batch in steps:
            write(*batch)
            named += [m.id for m in batch if isinstance(m, CreateNode)]
            version = canvas.canvas_version()
            for window in ({"within": 2}, {"within": 12}, {"since_version": max(0, version - 3)},
                           {"since_version": 0, "recent": 10}):
                del sent[:]
                mine = _overview_seen(canvas, named=named, **window)
                assert mine == _overview_seen(reader, named=named, **window), (batch, window)
                assert not any("UNION ALL" in cypher for cypher in sent), sent  # no overview statement was sent
        # A named node this store's commits never wrote: the statement reads it.
        assert _overview_seen(canvas, named=named + ["no-such-node"]) == \
            _overview_seen(reader, named=named + ["no-such-node"])
    finally:
        reader.close()


def test_a_view_after_another_writers_commit_reads_what_it_changed(canvas, write, engine, authority):
    """Another writer's commit (another process's: another store on the same database) after this store's last
    one changes what this store's commits say about the window: the view must read it, not answer from them.  The
    version read is what sees it; without it the retitle, the new node and the count would be missed."""
    from store.neo4j import Neo4jCanvasStore

    other = Neo4jCanvasStore.on(engine, canvas.database, authority=authority)
    try:
        mine = [CreateNode(kind="text", title="mine"), CreateNode(kind="text", title="kept")]
        write(*mine)
        canvas.live_counts()
        write(UpdateNode(node_id=mine[1].id, title="kept still"))
        before = _overview_seen(canvas, named=[mine[0].id])
        assert before[3] == {mine[0].id: "mine"}
        for batch in ([UpdateNode(node_id=mine[0].id, title="theirs now")], [CreateNode(kind="image", title="new")]):
            other.apply(batch, ticket=authority.issue(uuid.uuid4().hex, batch))
        after = _overview_seen(canvas, named=[mine[0].id])
        assert after == _overview_seen(other, named=[mine[0].id])
        assert after[3] == {mine[0].id: "theirs now"} and after[2][0][2] == "new"
        assert ("image", "pending", 1) in after[1]
    finally:
        other.close()
