"""Conformance suite for CanvasStore: every engine must pass all of it (embedded ArcadeDB; Neo4j with NEO4J_URI)."""

from __future__ import annotations

import threading

import pytest

from store.errors import InvalidMutation, NodeNotFound, StaleVersion, TicketRequired
from store.models import Direction, EdgeType, NodeStatus, Position
from store.mutations import (
    CreateNode,
    DeleteNode,
    GroupNodes,
    Link,
    MoveNode,
    SetStatus,
    UngroupNodes,
    Unlink,
    UpdateNode,
)
from store.tickets import TicketAuthority, WriteTicket


def test_created_nodes_read_back_with_every_field(canvas, write):
    ref = CreateNode(kind="reference", title="Mira", inputs={"role": "character", "colors": ["#c0392b"]},
                     metadata={"provenance": {"actor": "person:ana"}}, position=Position(x=10, y=20))
    commit = write(ref)
    node = canvas.get_node(ref.id)
    assert (node.kind, node.title, node.version, node.status) == ("reference", "Mira", 1, NodeStatus.PENDING)
    assert node.inputs == {"role": "character", "colors": ["#c0392b"]}
    assert node.provenance.actor == "person:ana"
    assert (node.position.x, node.position.y) == (10, 20)
    assert commit.canvas_version == canvas.canvas_version() == 1
    assert commit.node_ids == [ref.id]


def test_unknown_ids_raise_node_not_found(canvas, write):
    with pytest.raises(NodeNotFound, match="nope"):
        canvas.get_node("nope")
    a = CreateNode(kind="text")
    write(a)
    with pytest.raises(NodeNotFound):
        canvas.get_nodes([a.id, "missing"])
    with pytest.raises(NodeNotFound):
        write(UpdateNode(node_id="missing", title="x"))


def test_unknown_kind_is_refused(canvas, write):
    with pytest.raises(InvalidMutation, match="unknown node kind"):
        write(CreateNode(kind="hologram"))
    canvas.kinds.register("hologram", "a project's own kind")
    node = CreateNode(kind="hologram")
    write(node)
    assert canvas.get_node(node.id).kind == "hologram"


def test_update_patches_fields_and_raises_the_version_once_per_batch(canvas, write):
    a = CreateNode(kind="prompt", inputs={"prompt": "a cat", "seed": 1})
    write(a)
    write(UpdateNode(node_id=a.id, inputs_patch={"seed": 2}, metadata_patch={"note": "x"}, expected_version=1),
          SetStatus(node_id=a.id, status=NodeStatus.COMPLETED, expected_version=1))
    node = canvas.get_node(a.id)
    assert node.version == 2
    assert node.inputs == {"prompt": "a cat", "seed": 2}
    assert node.metadata["note"] == "x"
    assert node.status == NodeStatus.COMPLETED
    history = canvas.node_history(a.id)
    assert [h.version for h in history] == [1, 2]
    assert history[0].inputs["seed"] == 1


def test_find_nodes_by_kind_status_and_group(canvas, write):
    group = CreateNode(kind="group", title="shot 7 candidates")
    a = CreateNode(kind="image", status=NodeStatus.REJECTED)
    b = CreateNode(kind="image", status=NodeStatus.SELECTED)
    c = CreateNode(kind="video")
    write(group, a, b, c, GroupNodes(group_id=group.id, node_ids=[a.id, b.id]))
    assert {n.id for n in canvas.find_nodes(kind="image")} == {a.id, b.id}
    assert [n.id for n in canvas.find_nodes(kind="image", status=NodeStatus.REJECTED)] == [a.id]
    assert {n.id for n in canvas.find_nodes(group_id=group.id)} == {a.id, b.id}
    assert canvas.count_nodes() == {"group": 1, "image": 2, "video": 1}
    assert canvas.count_nodes(by="status")["rejected"] == 1


def test_soft_delete_hides_the_node_but_keeps_its_history(canvas, write):
    a = CreateNode(kind="image")
    write(a)
    write(DeleteNode(node_id=a.id))
    with pytest.raises(NodeNotFound):
        canvas.get_node(a.id)
    assert canvas.get_node(a.id, include_deleted=True).deleted
    assert canvas.find_nodes(kind="image") == []
    assert [n.id for n in canvas.snapshot(1).nodes] == [a.id]
    assert canvas.snapshot().nodes == []
    hard = CreateNode(kind="text")
    write(hard)
    write(DeleteNode(node_id=hard.id, hard=True))
    with pytest.raises(NodeNotFound):
        canvas.get_node(hard.id, include_deleted=True)
    assert len(canvas.node_history(hard.id)) == 2


def test_link_unlink_and_neighbours_in_each_direction(canvas, write):
    ref, img, vid = CreateNode(kind="reference"), CreateNode(kind="image"), CreateNode(kind="video")
    link = Link(type=EdgeType.REFERENCES, source=img.id, target=ref.id, properties={"role": "character"})
    write(ref, img, vid, link, Link(type=EdgeType.GENERATED_FROM, source=vid.id, target=img.id))
    out = canvas.neighbours(img.id)
    assert [(n.node.id, n.edge.type) for n in out] == [(ref.id, EdgeType.REFERENCES)]
    assert out[0].edge.properties == {"role": "character"}
    assert [n.node.id for n in canvas.neighbours(img.id, direction=Direction.IN)] == [vid.id]
    assert {n.node.id for n in canvas.neighbours(img.id, direction=Direction.BOTH)} == {ref.id, vid.id}
    assert canvas.neighbours(img.id, [EdgeType.VERSION_OF]) == []
    write(Unlink(edge_id=link.id))
    assert canvas.neighbours(img.id) == []
    write(Unlink(type=EdgeType.GENERATED_FROM, source=vid.id, target=img.id))
    assert canvas.edges() == []
    with pytest.raises(InvalidMutation):
        write(Unlink(edge_id=link.id))


def test_the_edges_of_some_nodes_are_those_into_and_out_of_each_once(canvas, write):
    """``edges(ids)``: every edge with an end among the ids (an edge between two of them once), none other."""
    ref, img, vid, other = (CreateNode(kind=k) for k in ("reference", "image", "video", "text"))
    write(ref, img, vid, other)
    made_from = Link(type=EdgeType.GENERATED_FROM, source=img.id, target=ref.id)
    clip_of = Link(type=EdgeType.GENERATED_FROM, source=vid.id, target=img.id)
    unrelated = Link(type=EdgeType.REFERENCES, source=other.id, target=ref.id)
    write(made_from, clip_of, unrelated)
    pairs = lambda ids: sorted((e.source, e.target) for e in canvas.edges(ids))  # noqa: E731
    assert pairs([img.id]) == sorted([(img.id, ref.id), (vid.id, img.id)])  # out of it and into it
    assert pairs([vid.id, img.id]) == sorted([(img.id, ref.id), (vid.id, img.id)])  # the one between them once
    assert pairs([ref.id]) == sorted([(img.id, ref.id), (other.id, ref.id)])  # only edges into it
    assert pairs(["no-such-id"]) == []
    # Of some types only: the same edges filtered by the engine, with or without ids.
    typed = lambda ids, *types: sorted((e.source, e.target) for e in canvas.edges(ids, edge_types=list(types)))  # noqa: E731
    assert typed([ref.id], EdgeType.REFERENCES) == [(other.id, ref.id)]
    assert typed([img.id], EdgeType.GENERATED_FROM, EdgeType.REFERENCES) == pairs([img.id])
    assert typed(None, EdgeType.GENERATED_FROM) == sorted([(img.id, ref.id), (vid.id, img.id)])
    assert typed(None, EdgeType.VERSION_OF) == []
    # The types are written into the statement's pattern: only the enum's own names get there, never a caller's.
    injected = "GENERATED_FROM]->() DETACH DELETE (a) WITH a MATCH (a)-[r:REFERENCES"
    with pytest.raises(ValueError):
        canvas.edges(edge_types=[injected])
    assert pairs([img.id]) == sorted([(img.id, ref.id), (vid.id, img.id)]) and sum(canvas.count_nodes().values()) == 4


def test_move_and_group_change_layout(canvas, write):
    g1, g2, a = CreateNode(kind="group"), CreateNode(kind="group"), CreateNode(kind="image")
    write(g1, g2, a)
    write(MoveNode(node_id=a.id, position=Position(x=300, y=40, pinned=True)))
    assert canvas.get_node(a.id).position == Position(x=300, y=40, pinned=True)
    write(GroupNodes(group_id=g1.id, node_ids=[a.id]))
    write(GroupNodes(group_id=g2.id, node_ids=[a.id]))  # moving between groups replaces the IN_GROUP edge
    assert canvas.get_node(a.id).group_id == g2.id
    assert [e.target for e in canvas.edges([a.id]) if e.type == EdgeType.IN_GROUP] == [g2.id]
    write(UngroupNodes(group_id=g2.id, node_ids=[a.id]))
    assert canvas.get_node(a.id).group_id is None
    assert canvas.edges([a.id]) == []


def test_a_batch_that_fails_half_way_leaves_nothing(canvas, write):
    a = CreateNode(kind="image")
    write(a)
    before = canvas.canvas_version()
    b = CreateNode(kind="image")
    with pytest.raises(NodeNotFound):
        write(b, UpdateNode(node_id=a.id, title="changed"), Link(type=EdgeType.REFERENCES, source=b.id, target="ghost"))
    assert canvas.canvas_version() == before
    assert canvas.get_node(a.id).title == ""
    with pytest.raises(NodeNotFound):
        canvas.get_node(b.id)


def test_a_stale_version_raises_and_changes_nothing(canvas, write):
    a = CreateNode(kind="prompt", inputs={"n": 0})
    write(a)
    write(UpdateNode(node_id=a.id, inputs_patch={"n": 1}, expected_version=1))
    other = CreateNode(kind="text")
    with pytest.raises(StaleVersion) as raised:
        write(other, UpdateNode(node_id=a.id, inputs_patch={"n": 99}, expected_version=1))
    assert (raised.value.expected, raised.value.actual) == (1, 2)
    assert canvas.get_node(a.id).inputs == {"n": 1}
    with pytest.raises(NodeNotFound):
        canvas.get_node(other.id)


def test_the_same_idempotency_key_applies_once(canvas, write):
    a = CreateNode(kind="image")
    first = write(a, key="turn-1/action-1")
    again = write(a, key="turn-1/action-1")
    assert again.replayed and again.id == first.id and again.canvas_version == first.canvas_version
    assert canvas.canvas_version() == 1
    assert len(canvas.find_nodes()) == 1


def test_lineage_follows_fifty_hops_both_ways(canvas, write):
    chain = [CreateNode(kind="image", title=f"v{i}") for i in range(52)]
    links = [Link(type=EdgeType.VERSION_OF, source=chain[i].id, target=chain[i - 1].id) for i in range(1, 52)]
    write(*chain, *links)
    ancestors = canvas.lineage(chain[51].id, [EdgeType.VERSION_OF])
    assert len(ancestors) == 51
    assert ancestors[-1].node.id == chain[0].id and ancestors[-1].depth == 51
    descendants = canvas.lineage(chain[0].id, [EdgeType.VERSION_OF], direction=Direction.IN)
    assert [e.node.id for e in descendants] == [n.id for n in chain[1:]]
    assert len(canvas.lineage(chain[51].id, max_depth=5)) == 5
    assert canvas.lineage(chain[51].id, [EdgeType.REFERENCES]) == []


def test_lineage_of_a_diamond_visits_each_ancestor_once(canvas, write):
    nodes = [CreateNode(kind="image") for _ in range(4)]
    a, b, c, d = (n.id for n in nodes)
    write(*nodes, *[Link(type=EdgeType.GENERATED_FROM, source=s, target=t) for s, t in [(d, b), (d, c), (b, a), (c, a)]])
    entries = canvas.lineage(d)
    assert sorted(e.node.id for e in entries) == sorted([a, b, c])
    assert {e.node.id: e.depth for e in entries}[a] == 2


def test_scope_facts_find_a_root_at_any_depth_and_only_a_live_one(canvas, write):
    """A scope check reads whether a node derives from a root however many hops lie between (a version many
    edits after the first is far from its shot), past the near hops its first statement looks at."""
    shot, other = CreateNode(kind="shot", title="shot 1"), CreateNode(kind="shot", title="shot 2")
    images = [CreateNode(kind="image", title=f"v{i}") for i in range(12)]
    clips = [CreateNode(kind="video", title=f"clip {i}") for i in range(12)]
    stray = CreateNode(kind="image", title="of shot 2")
    write(shot, other, *images, *clips, stray,
          Link(type=EdgeType.GENERATED_FROM, source=images[0].id, target=shot.id),
          *[Link(type=EdgeType.VERSION_OF, source=images[i].id, target=images[i - 1].id) for i in range(1, 12)],
          # Each clip is made from an image and is a version of the clip before: many paths to the shot.
          *[Link(type=EdgeType.GENERATED_FROM, source=clips[i].id, target=images[i].id) for i in range(12)],
          *[Link(type=EdgeType.VERSION_OF, source=clips[i].id, target=clips[i - 1].id) for i in range(1, 12)],
          Link(type=EdgeType.GENERATED_FROM, source=stray.id, target=other.id))
    ids = [images[1].id, images[11].id, clips[11].id, stray.id, other.id]
    facts = canvas.scope_facts(ids, [shot.id])
    assert {i: f.derived for i, f in facts.items()} == {
        images[1].id: True, images[11].id: True, clips[11].id: True, stray.id: False, other.id: False}
    assert facts[clips[11].id].kind == "video" and not facts[stray.id].deleted
    write(DeleteNode(node_id=shot.id))  # a deleted root counts for nothing
    assert not any(f.derived for f in canvas.scope_facts(ids, [shot.id]).values())
    assert canvas.scope_facts(ids, [images[5].id])[images[11].id].derived  # any node may be a root


def test_time_travel_and_diff(canvas, write):
    a, b = CreateNode(kind="image", title="first"), CreateNode(kind="image")
    write(a)                                                          # v1
    write(b, Link(type=EdgeType.VERSION_OF, source=b.id, target=a.id))  # v2
    write(UpdateNode(node_id=a.id, title="renamed"), DeleteNode(node_id=b.id))  # v3
    assert [n.title for n in canvas.snapshot(1).nodes] == ["first"]
    at2 = canvas.snapshot(2)
    assert {n.id for n in at2.nodes} == {a.id, b.id} and len(at2.edges) == 1
    at3 = canvas.snapshot(3)
    assert [n.title for n in at3.nodes] == ["renamed"] and at3.edges == []
    diff = canvas.diff(1, 3)
    assert [n.id for n in diff.added_nodes] == []  # b was added and removed inside the range
    assert [(old.title, new.title) for old, new in diff.changed_nodes] == [("first", "renamed")]
    diff12 = canvas.diff(1, 2)
    assert [n.id for n in diff12.added_nodes] == [b.id] and len(diff12.added_edges) == 1
    diff23 = canvas.diff(2, 3)
    assert [n.id for n in diff23.removed_nodes] == [b.id]
    assert canvas.diff(3, 3).is_empty
    assert [c.canvas_version for c in canvas.commits(since_version=1)] == [2, 3]


def test_writes_without_a_valid_ticket_are_refused(canvas, authority):
    batch = [CreateNode(kind="image")]
    with pytest.raises(TicketRequired, match="validation node"):
        canvas.apply(batch, ticket=None)  # type: ignore[arg-type]
    forged = WriteTicket("a", "0" * 64, "", 0.0, "f" * 64)
    with pytest.raises(TicketRequired):
        canvas.apply(batch, ticket=forged)
    foreign = TicketAuthority().issue("a", batch)
    with pytest.raises(TicketRequired, match="not issued"):
        canvas.apply(batch, ticket=foreign)
    other_batch_ticket = authority.issue("a", [CreateNode(kind="text")])
    with pytest.raises(TicketRequired, match="different batch"):
        canvas.apply(batch, ticket=other_batch_ticket)
    assert canvas.canvas_version() == 0


def test_eight_threads_writing_at_once_lose_no_update(canvas, write, authority):
    counter = CreateNode(kind="text", inputs={"count": 0})
    write(counter)
    applied: list[int] = []
    conflicts: list[int] = []
    lock = threading.Lock()

    def worker(n: int) -> None:
        for _ in range(6):
            node = canvas.get_node(counter.id)
            batch = [UpdateNode(node_id=node.id, inputs_patch={"count": node.inputs["count"] + 1},
                                expected_version=node.version)]
            try:
                canvas.apply(batch, ticket=authority.issue(f"w{n}", batch))
                with lock:
                    applied.append(n)
            except StaleVersion:
                with lock:
                    conflicts.append(n)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    final = canvas.get_node(counter.id)
    assert len(applied) + len(conflicts) == 48
    assert final.inputs["count"] == len(applied) >= 1
    assert final.version == 1 + len(applied)
