"""The facts a request is read against (``nodes.understanding.facts.read_facts``), read from a real store.

A long session makes long lineages: every edit, undo and revert of an output is one more ``VERSION_OF`` hop.
What the facts find through a lineage must not stop at a fixed depth.
"""

from __future__ import annotations

from store.models import EdgeType, NodeStatus
from store.mutations import CreateNode, Link
from nodes.models.targets import PAGE_COPY_CYPHER
from nodes.understanding.facts import read_facts


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
