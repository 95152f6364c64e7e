"""User Cypher is read-only because the engine's account cannot write, not because of the lexer (issue #10).

Every test here switches the lexical guard off, sends an attack that reached the
engine on the old main, and checks that the engine refused it and that nothing
changed: the canvas fingerprint, the index list and the schema's types, all read
back on the root account.
"""

from __future__ import annotations

import hashlib
import json

import pytest

import store.bolt.user_queries as store_module  # where query() looks up check_read_only
from store.errors import CypherError
from store.models import EdgeType
from store.mutations import CreateNode, Link
from store.neo4j import Neo4jCanvasStore

ATTACKS = [
    "CALL `merge.node`(['Evil'], {id: 'e1'}) YIELD node RETURN node",
    "CALL `do.when`(true, 'CRE' + 'ATE (n:Evil {id: \"e2\"}) RETURN n', '') YIELD value RETURN value",
    "CALL `do.when`(true, 'CRE' + 'ATE INDEX evil_idx FOR (n:CanvasNode) ON (n.kind_evil)', '') YIELD value RETURN value",
    "CALL `do.when`(true, 'DR' + 'OP INDEX `Commit[idempotency_key]`', '') YIELD value RETURN value",
    "CALL `do.when`(true, 'DR' + 'OP INDEX `CanvasNode[id]`', '') YIELD value RETURN value",
    "DROP INDEX `Commit[idempotency_key]`",
    "CREATE INDEX evil_direct FOR (n:Evil) ON (n.x)",
    "INSERT (n:Evil {id: 'e3'}) RETURN n",
    "MATCH (a:CanvasNode), (b:CanvasNode) WHERE a.id < b.id CALL refactor.mergeNodes([a, b]) YIELD node RETURN node",
    "CALL apoc.merge.node(['Evil'], {id: 'e4'}) YIELD node RETURN node",
    "CALL apoc.create.node(['Evil'], {id: 'e5'}) YIELD node RETURN node",
    "CALL apoc.do.when(true, 'CREATE (n:Evil {id: \"e6\"}) RETURN n', '') YIELD value RETURN value",
    "MATCH (n:CanvasNode) SET n.title = 'pwned' RETURN n",
    "MATCH (n:CanvasNode) DETACH DELETE n",
    "MATCH (n:CanvasNode) CALL (n) { SET n.title = 'sub' } RETURN n",
]


@pytest.fixture
def lexer_off(monkeypatch):
    """The friendly lexical check switched off: what remains is the engine."""
    monkeypatch.setattr(store_module, "check_read_only", lambda cypher: None)


@pytest.fixture
def seeded(canvas, write):
    ref, shot = CreateNode(kind="reference", title="Mira"), CreateNode(kind="image", title="shot 7")
    write(ref, shot, Link(type=EdgeType.REFERENCES, source=shot.id, target=ref.id), key="seed-commit")
    return canvas


def fingerprint(engine, store: Neo4jCanvasStore) -> dict[str, object]:
    """Everything an attack could change, read on the root account."""
    with engine.driver.session(database=store.database) as session:
        nodes = session.run("MATCH (n) RETURN labels(n) AS l, properties(n) AS p").data()
        rels = session.run("MATCH ()-[r]->() RETURN type(r) AS t, properties(r) AS p").data()
        indexes = sorted(
            (row["name"], tuple(row["labelsOrTypes"] or ()), tuple(row["properties"] or ()))
            for row in session.run("SHOW INDEXES").data()
        )
    digest = hashlib.sha256(
        json.dumps([sorted(json.dumps(n, sort_keys=True, default=str) for n in nodes),
                    sorted(json.dumps(r, sort_keys=True, default=str) for r in rels)]).encode()
    ).hexdigest()
    types = None
    if engine.profile.name == "arcadedb":
        result = engine._http(
            f"/api/v1/query/{store.database}", {"language": "sql", "command": "select name from schema:types"}
        )
        types = sorted(row["name"] for row in result["result"])
    return {"canvas": digest, "version": store.canvas_version(), "indexes": indexes, "types": types}


@pytest.mark.parametrize("cypher", ATTACKS)
def test_engine_refuses_every_write_schema_and_procedure_form(engine, seeded, lexer_off, cypher):
    before = fingerprint(engine, seeded)
    with pytest.raises(CypherError):
        seeded.query(cypher)
    assert fingerprint(engine, seeded) == before


def test_unique_indexes_that_exactly_once_relies_on_still_hold(engine, seeded, lexer_off, write):
    for cypher in ATTACKS:
        with pytest.raises(CypherError):
            seeded.query(cypher)
    again = CreateNode(kind="text", title="again")
    first = write(again, key="seed-commit")
    assert first.replayed, "the idempotency key's unique index must still turn a second commit into a replay"


@pytest.mark.parametrize(
    "cypher",
    [
        "LOAD CSV FROM 'file:///etc/hostname' AS row RETURN row",
        "LOAD CSV FROM '/etc/hostname' AS row RETURN row",
        "CALL `do.when`(true, 'LOAD CSV FROM \"file://{engine_json}\" AS row RETURN row', '') YIELD value RETURN value",
        "LOAD CSV FROM 'file://{engine_json}' AS row RETURN row",
        "LOAD CSV FROM 'http://127.0.0.1:{http_port}/api/v1/databases' AS row RETURN row",
    ],
)
def test_cypher_cannot_read_files(engine, seeded, lexer_off, cypher):
    if engine.profile.name != "arcadedb":
        pytest.skip("the embedded engine's files are what this attack targets")
    engine_json = engine.data_dir / "engine.json"
    secret = json.loads(engine_json.read_text())["password"]
    http_port = str(engine._info["http_port"])
    with pytest.raises(CypherError) as refused:
        seeded.query(cypher.replace("{engine_json}", str(engine_json)).replace("{http_port}", http_port))
    assert secret not in str(refused.value)
    assert "Mira" not in str(refused.value)


def test_the_root_account_would_change_the_schema(engine, authority, lexer_off):
    """Control: the same attack on a store whose query account is root does change the index list.

    This is what makes the tests above able to fail: the reader account, not the harness, stops them.
    """
    if engine.profile.name != "arcadedb":
        pytest.skip("run on the scratch databases of the embedded engine")
    database = "tctl" + hashlib.sha256(str(id(engine)).encode()).hexdigest()[:8]
    engine.ensure_database(database)
    try:
        unsafe = Neo4jCanvasStore(
            engine.driver, database, authority=authority, profile=engine.profile, reader=engine.driver
        )
        before = fingerprint(engine, unsafe)
        try:
            unsafe.query(ATTACKS[2])
        except CypherError:
            pass
        assert fingerprint(engine, unsafe)["indexes"] != before["indexes"]
    finally:
        engine.drop_database(database)
