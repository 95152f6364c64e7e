"""LangChain's ``Neo4jGraph`` on the canvas: read-only account, schema from JarvisHub's own registry.

``Neo4jGraph(refresh_schema=True)`` asks ``apoc.meta.data`` for the schema,
which ArcadeDB does not have.  The canvas schema is known without asking: the
labels and properties the store writes (taken from the pydantic models, so
they cannot drift), the five edge types, and the project's node kinds.  So the
graph is built with ``refresh_schema=False`` and its schema filled here, and
``GraphCypherQAChain`` works on it with no APOC.  It connects as the read-only
account (:mod:`jarvishub.integrations.access`): whatever Cypher a model
writes, the engine refuses writes.

Needs the optional extra: ``pip install 'jarvishub[langchain]'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jarvishub.integrations.access import read_only_access
from store.kinds import KindRegistry
from store.models import CanvasEdge, CanvasNode, EdgeType, NodeStatus

if TYPE_CHECKING:
    from langchain_neo4j import Neo4jGraph

    from jarvishub.project import Project

_FULL_LIST_LIMIT = 10  # neo4j_graphrag.schema.DISTINCT_VALUE_LIMIT

_NEO4J_TYPES: dict[type, str] = {str: "STRING", bool: "BOOLEAN", int: "INTEGER", float: "FLOAT"}

# Labels the store writes besides CanvasNode (store/bolt/schema.py; docs/canvas-schema.md), with property types.
_HISTORY_LABELS: dict[str, dict[str, str]] = {
    "NodeVersion": {"node_id": "STRING", "version": "INTEGER", "canvas_version": "INTEGER", "op": "STRING",
                    "snapshot_json": "STRING"},
    "EdgeVersion": {"edge_id": "STRING", "type": "STRING", "source": "STRING", "target": "STRING",
                    "props_json": "STRING", "canvas_version": "INTEGER", "op": "STRING"},
    "Commit": {"id": "STRING", "canvas_version": "INTEGER", "idempotency_key": "STRING", "actor": "STRING",
               "thread_id": "STRING", "action_id": "STRING", "created_at": "STRING", "node_ids_json": "STRING",
               "edge_ids_json": "STRING", "observation_json": "STRING"},
    "Turn": {"id": "STRING", "thread_id": "STRING", "request": "STRING", "canvas_before": "INTEGER",
             "canvas_after": "INTEGER", "summary_json": "STRING"},
    "CanvasMeta": {"key": "STRING", "version": "INTEGER"},
}

_EDGE_MEANING: dict[EdgeType, str] = {
    EdgeType.GENERATED_FROM: "generation dependency: made -> what it was made from (clip -> image, image -> shot)",
    EdgeType.REFERENCES: "reference use: user -> reference (image -> character); props_json has the role",
    EdgeType.VERSION_OF: "version lineage: new version -> old version",
    EdgeType.IN_GROUP: "grouping: member -> group node",
    EdgeType.CONTINUES: "workflow continuation: shot 2 -> shot 1",
}


def _typed(properties: dict[str, Any], overrides: dict[str, str] | None = None) -> list[dict[str, str]]:
    types = {name: _NEO4J_TYPES.get(type(value), "STRING") for name, value in properties.items()}
    types.update(overrides or {})
    return [{"property": name, "type": kind} for name, kind in types.items()]


def canvas_structured_schema(kinds: KindRegistry) -> dict[str, Any]:
    """The canvas schema in ``Neo4jGraph.structured_schema`` form, with kinds and statuses as known values."""
    node = CanvasNode(kind="text")
    # group_id is None on a fresh node; the store keeps it as a string.
    node_props = _typed(node.to_properties(), {"group_id": "STRING"})
    values = {"kind": [k.name for k in kinds.all()], "status": [s.value for s in NodeStatus]}
    for prop in node_props:
        if prop["property"] in values:
            prop["values"] = values[prop["property"]]  # type: ignore[assignment]
            # The formatter lists every value only under its limit of distinct values (meant for values sampled
            # from data); these are the registry's complete set, which the model needs in full.
            prop["distinct_count"] = min(len(values[prop["property"]]), _FULL_LIST_LIMIT)  # type: ignore[assignment]
    edge_props = _typed(CanvasEdge(type=EdgeType.REFERENCES, source="a", target="b").to_properties())
    return {
        "node_props": {
            "CanvasNode": node_props,
            **{label: [{"property": p, "type": t} for p, t in props.items()]
               for label, props in _HISTORY_LABELS.items()},
        },
        "rel_props": {edge.value: edge_props for edge in EdgeType},
        "relationships": [
            *({"start": "CanvasNode", "type": edge.value, "end": "CanvasNode"} for edge in EdgeType),
            {"start": "Turn", "type": "TOUCHED", "end": "CanvasNode"},
        ],
        "metadata": {"constraint": [], "index": []},
    }


def canvas_schema_text(kinds: KindRegistry) -> str:
    """The schema as ``GraphCypherQAChain`` shows it, plus what kinds and edge types mean (``graph.schema``)."""
    from neo4j_graphrag.schema import format_schema

    lines = [format_schema(canvas_structured_schema(kinds), is_enhanced=True), "Node kinds (CanvasNode.kind):"]
    lines += [f"- {kind.name}: {kind.description}" for kind in kinds.all()]
    lines.append("CanvasNode.status is one of: " + ", ".join(s.value for s in NodeStatus))
    lines.append("Relationship meanings:")
    lines += [f"- {edge.value}: {meaning}" for edge, meaning in _EDGE_MEANING.items()]
    lines.append("Structured fields (inputs_json, outputs_json, metadata_json) are JSON strings; use CONTAINS on them. "
                 "Skip deleted nodes with `WHERE coalesce(n.deleted, false) = false`.")
    return "\n".join(lines)


def canvas_graph(project: Project, **kwargs: Any) -> Neo4jGraph:
    """A ``langchain_neo4j.Neo4jGraph`` on ``project``'s canvas, as the read-only account, schema filled in.

    The project must stay open while the graph is used (it holds the embedded engine up).  Extra keyword
    arguments go to ``Neo4jGraph`` (``timeout``, ``sanitize``, ``driver_config``).
    """
    try:
        from langchain_neo4j import Neo4jGraph
    except ImportError as error:  # the optional extra is missing
        raise ImportError("canvas_graph needs langchain-neo4j: pip install 'jarvishub[langchain]'") from error

    access = read_only_access(project)
    # enhanced_schema: GraphCypherQAChain formats the structured schema itself, and only the enhanced form
    # shows the registry's kinds and statuses as the values a query may use.
    graph = Neo4jGraph(url=access.uri, username=access.user, password=access.password, database=access.database,
                       refresh_schema=False, enhanced_schema=True, **kwargs)
    graph.structured_schema = canvas_structured_schema(project.store.kinds)
    graph.schema = canvas_schema_text(project.store.kinds)
    return graph
