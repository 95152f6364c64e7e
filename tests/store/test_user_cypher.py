"""Read-only user Cypher: every write form refused, the canvas unchanged, engine messages passed on."""

from __future__ import annotations

import pytest

from store.cypher import check_read_only
from store.errors import CypherSyntaxError, CypherWriteRefused, QueryTimeout
from store.models import EdgeType
from store.mutations import CreateNode, Link

WRITE_FORMS = [
    "CREATE (n:CanvasNode {id: 'x'}) RETURN n",
    "MATCH (n:CanvasNode) MERGE (m:CanvasNode {id: 'y'}) RETURN m",
    "MATCH (n:CanvasNode) SET n.title = 'hacked' RETURN n",
    "MATCH (n:CanvasNode) REMOVE n.title RETURN n",
    "MATCH (n:CanvasNode) DELETE n",
    "MATCH (n:CanvasNode) DETACH DELETE n",
    "MATCH (n:CanvasNode) WITH collect(n) AS ns FOREACH (x IN ns | SET x.title = 'a')",
    "MATCH (n:CanvasNode) CALL { WITH n SET n.title = 'b' } RETURN n",
    "MATCH (n:CanvasNode) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS RETURN 1",
    "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line",
    "CREATE INDEX idx FOR (n:CanvasNode) ON (n.title)",
    "CREATE CONSTRAINT c FOR (n:CanvasNode) REQUIRE n.title IS UNIQUE",
    "DROP INDEX idx",
    "CALL apoc.create.node(['X'], {}) YIELD node RETURN node",
    "CALL db.createLabel('X')",
    "match (n) /* sneaky */ set n.x = 1 return n",
    "MATCH (n) WITH n `x` SET n.y = 1 RETURN n",
    "CALL `merge.node`(['Evil'], {id: 'e'}) YIELD node RETURN node",
    "CALL `do.when`(true, 'CRE' + 'ATE (n:Evil)', '') YIELD value RETURN value",
    "CALL apoc.`create`.node(['Evil'], {}) YIELD node RETURN node",
    "MATCH (a), (b) CALL refactor.mergeNodes([a, b]) YIELD node RETURN node",
    "INSERT (n:Evil) RETURN n",
]


@pytest.fixture
def seeded(canvas, write):
    ref, shot = CreateNode(kind="reference", title="Mira"), CreateNode(kind="image", title="shot 7")
    write(ref, shot, Link(type=EdgeType.REFERENCES, source=shot.id, target=ref.id))
    return canvas


@pytest.mark.parametrize("cypher", WRITE_FORMS)
def test_every_write_form_is_refused_and_changes_nothing(seeded, cypher):
    before = (seeded.canvas_version(), seeded.count_nodes(), len(seeded.edges()))
    with pytest.raises(CypherWriteRefused):
        seeded.query(cypher)
    assert (seeded.canvas_version(), seeded.count_nodes(), len(seeded.edges())) == before
    assert {n.title for n in seeded.find_nodes()} == {"Mira", "shot 7"}


def test_keywords_inside_strings_and_comments_are_not_writes():
    check_read_only("MATCH (n) WHERE n.title = 'CREATE a SET' RETURN n // DELETE later")
    check_read_only("MATCH (n) RETURN n.`set` AS x, n.delete AS y")
    check_read_only("CALL db.labels() YIELD label RETURN label")
    check_read_only("CALL `db.labels`() YIELD label RETURN label")
    check_read_only("MATCH (n:`CREATE`) RETURN n.`SET` AS s")
    check_read_only("MATCH (n) CALL (n) { RETURN n.title AS t } RETURN t")


def test_reads_return_rows_with_parameters(seeded):
    result = seeded.query(
        "MATCH (s:CanvasNode)-[:REFERENCES]->(r:CanvasNode) WHERE s.title = $t RETURN s.title AS shot, r.title AS ref",
        {"t": "shot 7"},
    )
    assert result.columns == ["shot", "ref"]
    assert result.rows == [{"shot": "shot 7", "ref": "Mira"}]


def test_row_limit_truncates(seeded):
    result = seeded.query("UNWIND range(1, 50) AS i RETURN i", row_limit=10)
    assert len(result.rows) == 10 and result.truncated


def test_syntax_errors_carry_the_engine_message(seeded):
    with pytest.raises(CypherSyntaxError) as raised:
        seeded.query("MATCH (n RETURN n")
    assert "could not parse" in str(raised.value)
    assert len(str(raised.value)) > len("the engine could not parse the query: ") + 5


def test_a_slow_query_times_out(seeded):
    with pytest.raises(QueryTimeout):
        seeded.query("UNWIND range(1, 5000000) AS i UNWIND range(1, 4) AS j WITH i, j WHERE (i * j) % 7 = 0 RETURN count(*) AS c", timeout_s=0.3)
