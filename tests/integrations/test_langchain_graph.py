"""LangChain's Neo4jGraph and GraphCypherQAChain on the real canvas, with no APOC, as the read-only account."""

from __future__ import annotations

import uuid
from typing import Any

import neo4j
import pytest
from langchain_core.messages import BaseMessage
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_neo4j import GraphCypherQAChain, Neo4jGraph
from pydantic import Field

from jarvishub.integrations.langchain import canvas_graph
from store import lifecycle
from store.arcadedb_security import ROOT_USER

from .conftest import fingerprint

REFERENCES = ("MATCH (i:CanvasNode)-[:REFERENCES]->(r:CanvasNode) "
              "RETURN i.title AS image, r.title AS reference ORDER BY image")


class ScriptedChat(FakeListChatModel):
    """A scripted chat model (langchain_core's) that also records the prompts it was shown."""

    seen: list[str] = Field(default_factory=list)

    def _call(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
              **kwargs: Any) -> str:
        self.seen.extend(str(message.content) for message in messages)
        return super()._call(messages, stop, run_manager, **kwargs)


@pytest.fixture(scope="module")
def graph(seeded_project):
    made = canvas_graph(seeded_project)
    yield made
    made.close()


def test_schema_comes_from_the_kind_registry_and_edge_types_without_apoc(seeded_project, graph):
    structured = graph.get_structured_schema
    kinds = next(p for p in structured["node_props"]["CanvasNode"] if p["property"] == "kind")
    assert "mood_board" in kinds["values"] and "reference" in kinds["values"]
    assert {r["type"] for r in structured["relationships"]} == {
        "REFERENCES", "VERSION_OF", "GENERATED_FROM", "IN_GROUP", "CONTINUES", "TOUCHED"}
    assert "- mood_board: A board of moods for one scene." in graph.get_schema
    # Every CanvasNode property the store really writes is in the schema.
    stored = set(graph.query("MATCH (n:CanvasNode) RETURN keys(n) AS k LIMIT 1")[0]["k"])
    assert stored <= {p["property"] for p in structured["node_props"]["CanvasNode"]}


def test_graph_cypher_qa_chain_runs_a_scripted_query_on_the_real_canvas(seeded_project, graph):
    model = ScriptedChat(responses=[f"```cypher\n{REFERENCES}\n```", "shot 7 references Mira."])
    chain = GraphCypherQAChain.from_llm(model, graph=graph, allow_dangerous_requests=True, validate_cypher=True,
                                        return_intermediate_steps=True)
    answer = chain.invoke({"query": "which images reference whom?"})
    assert answer["result"] == "shot 7 references Mira."
    assert answer["intermediate_steps"][0]["query"].strip() == REFERENCES
    context = answer["intermediate_steps"][1]["context"]
    assert context == seeded_project.store.query(REFERENCES).rows == [{"image": "shot 7", "reference": "Mira"}]
    assert any("mood_board" in p and "GENERATED_FROM" in p for p in model.seen), "the model saw the schema"


WRITES = [
    "CREATE (n:CanvasNode {id: 'evil', kind: 'text', title: 'injected'}) RETURN n",
    "MATCH (n:CanvasNode) SET n.title = 'pwned' RETURN n",
    "MATCH (n:CanvasNode) DETACH DELETE n",
    "MATCH (a:CanvasNode {title: 'shot 7'}), (b:CanvasNode {title: 'Mira'}) CREATE (a)-[:VERSION_OF]->(b)",
    "CREATE INDEX evil FOR (n:CanvasNode) ON (n.evil)",
]


@pytest.mark.parametrize("cypher", WRITES)
def test_the_engine_refuses_writes_from_graph_query(seeded_project, graph, cypher):
    before = fingerprint(seeded_project)
    with pytest.raises(neo4j.exceptions.Neo4jError):
        graph.query(cypher)
    assert fingerprint(seeded_project) == before


def test_a_model_that_writes_cypher_changes_nothing(seeded_project, graph):
    before = fingerprint(seeded_project)
    model = FakeListChatModel(responses=[WRITES[0], "done"])
    chain = GraphCypherQAChain.from_llm(model, graph=graph, allow_dangerous_requests=True)
    with pytest.raises(neo4j.exceptions.Neo4jError):
        chain.invoke({"query": "add a node"})
    assert fingerprint(seeded_project) == before


def test_control_the_root_account_would_write(seeded_project):
    """What makes the refusals above able to fail: the same CREATE as root does write (on a scratch database)."""
    engine = seeded_project.engine
    scratch = "tctl" + uuid.uuid4().hex[:8]
    engine.ensure_database(scratch)
    root = Neo4jGraph(url=engine.uri, username=ROOT_USER, database=scratch, refresh_schema=False,
                      password=lifecycle.read_state(engine.data_dir)["password"])
    try:
        root.query(WRITES[0])
        assert root.query("MATCH (n:CanvasNode {id: 'evil'}) RETURN count(n) AS c") == [{"c": 1}]
    finally:
        root.close()
        engine.drop_database(scratch)
