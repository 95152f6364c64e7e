"""The facts a request is read against (``nodes.understanding.facts.read_facts``), read from a real store.

A long session makes long lineages: every edit, undo and revert of an output is one more ``VERSION_OF`` hop.
What the facts find through a lineage must not stop at a fixed depth.
"""

from __future__ import annotations

from typing import Any

from store.models import EdgeType, NodeStatus
from store.mutations import CreateNode, Link, RecordTurn, SetStatus, UpdateNode
from nodes.models.targets import PAGE_COPY_CYPHER
from nodes.understanding.facts import FACTS, KeptFacts, read_facts


def test_a_selected_image_many_versions_from_its_shot_names_that_shot(canvas, write) -> None:
    """"Make it darker" on the picture a person selected: the selection is the shot whose image it is a version
    of, however many versions ago the first one was made for the shot (only the first carries the shot's edge:
    a version a model made with ``generate_image(version_of=...)`` need not)."""
    shot = CreateNode(kind="shot", title="shot 3", inputs={"index": 3, "beat": "the ferry leaves"})
    first = CreateNode(kind="image", title="shot 3 image", status=NodeStatus.REJECTED)
    write(shot, first, Link(type=EdgeType.GENERATED_FROM, source=first.id, target=shot.id))
    versions = [first]
    for n in range(2, 17):  # 15 hops: more than the 12 the facts once followed
        status = NodeStatus.COMPLETED if n == 16 else NodeStatus.REJECTED
        newer = CreateNode(kind="image", title="shot 3 image", status=status)
        write(newer, Link(type=EdgeType.VERSION_OF, source=newer.id, target=versions[-1].id))
        versions.append(newer)

    facts = read_facts(canvas, [versions[-1].id])

    assert [node.shot for node in facts.selection] == [shot.id]


def test_a_page_s_version_number_counts_its_whole_lineage(canvas, write) -> None:
    """The offline planner reads a page's version number (its place in the lineage) with read-only Cypher; a page
    revised more than 200 times is still numbered by its whole lineage."""
    chain = [CreateNode(kind="code", title="page", status=NodeStatus.REJECTED) for _ in range(205)]
    write(*chain, *[Link(type=EdgeType.VERSION_OF, source=chain[i].id, target=chain[i - 1].id)
                    for i in range(1, len(chain))])

    (row,) = canvas.query(PAGE_COPY_CYPHER, {"id": chain[-1].id}).rows

    assert row["version"] == 205


class CountedReads:
    """The store, counting the facts statements sent through it (everything else passes straight through)."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.facts_reads = 0

    def fixed_read(self, cypher: Any, **params: Any) -> list[dict[str, Any]]:
        self.facts_reads += cypher is FACTS
        return self._store.fixed_read(cypher, **params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def test_facts_kept_between_turns_are_what_a_read_gives_after_every_kind_of_write(canvas, write, engine,
                                                                                   authority) -> None:
    """A turn's start keeps its facts for the next (``KeptFacts``) only while the canvas moved by this process's
    commits that cannot change them (a note, a turn's record); after any other write (a shot's new image, a
    status, a title, a new slide, another writer's commit) the next start reads the canvas again, and what it
    gets is always what a read of the canvas now gives."""
    from store.neo4j import Neo4jCanvasStore

    kept, counted = KeptFacts(), CountedReads(canvas)

    def kept_read_is_fresh() -> bool:
        """Whether the kept facts equal a read of the canvas now; True when they were kept (no statement)."""
        before = counted.facts_reads
        assert kept.read(counted).model_dump() == read_facts(canvas).model_dump()
        return counted.facts_reads == before

    shot = CreateNode(kind="shot", title="shot 1", inputs={"index": 1, "beat": "the ferry leaves at dawn"})
    image = CreateNode(kind="image", title="shot 1 image", status=NodeStatus.COMPLETED, inputs={"lighting": "dawn"})
    write(shot, image, Link(type=EdgeType.GENERATED_FROM, source=image.id, target=shot.id))
    assert not kept_read_is_fresh()  # nothing kept yet
    write(CreateNode(kind="text", title="note: the horn sounds twice"))
    write(RecordTurn(turn_id="t1", thread_id="th", canvas_before=0))
    assert kept_read_is_fresh()  # a note and a turn's record: kept
    newer = CreateNode(kind="image", title="shot 1 image", status=NodeStatus.COMPLETED, inputs={"lighting": "dusk"})
    write(newer, Link(type=EdgeType.VERSION_OF, source=newer.id, target=image.id),
          Link(type=EdgeType.GENERATED_FROM, source=newer.id, target=shot.id))
    assert not kept_read_is_fresh()
    write(SetStatus(node_id=newer.id, status=NodeStatus.REJECTED))
    assert not kept_read_is_fresh()
    write(UpdateNode(node_id=shot.id, title="shot 1: departure"))
    assert not kept_read_is_fresh()
    write(CreateNode(kind="slide", title="slide 1", inputs={"index": 1}))  # found by its kind, with no edge
    assert not kept_read_is_fresh()
    other = Neo4jCanvasStore.on(engine, canvas.database, authority=authority)
    try:
        theirs = [CreateNode(kind="text", title="their note")]  # another process's commit: never trusted
        other.apply(theirs, ticket=authority.issue("theirs", theirs))
        assert not kept_read_is_fresh()
        theirs = [CreateNode(kind="shot", title="shot 2", inputs={"index": 2})]
        other.apply(theirs, ticket=authority.issue("their shot", theirs))
        write(CreateNode(kind="text", title="note: ours after theirs"))
        assert not kept_read_is_fresh()
        assert [s.title for s in kept.read(counted).shots] == ["shot 1: departure", "shot 2"]
    finally:
        other.close()
