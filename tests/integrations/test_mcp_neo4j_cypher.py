"""The real mcp-neo4j-cypher server (PyPI, over stdio, through the ``mcp`` client) on ``jarvishub engine serve``.

mcp-neo4j-cypher pins an ``mcp`` older than JarvisHub's, so it lives in its own
environment (``.ci/run`` makes it; ``JARVISHUB_MCP_NEO4J_CYPHER_PYTHON`` names
its Python).  Two ways of running it are tested, both on the read-only account
that ``engine serve`` prints:

* stock: its read tool refuses every query (ArcadeDB's EXPLAIN says ``w``), its
  write tool runs every query, returns no rows, and the engine refuses the writes;
* through ``jarvishub/integrations/mcp_cypher_launcher.py``: the read tool returns
  the same rows as ``jarvishub query``; writes sent to it are refused by the engine.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from .conftest import fingerprint, jarvishub

DEFAULT_PYTHON = Path.home() / ".cache" / "jarvishub" / "mcp-neo4j-cypher" / "bin" / "python"
READS = [
    "MATCH (n:CanvasNode) RETURN n.kind AS kind, n.title AS title ORDER BY title",
    "MATCH (i:CanvasNode)-[:REFERENCES]->(r:CanvasNode) RETURN i.title AS image, r.title AS reference",
    "MATCH (n:CanvasNode) OPTIONAL MATCH (n)-[r]->() RETURN n.title AS title, count(r) AS out ORDER BY title",
    "MATCH (m:CanvasMeta) RETURN m.version AS version",
    "CALL db.labels() YIELD label RETURN label ORDER BY label",
]
WRITES = [
    "CREATE (n:CanvasNode {id: 'evil', kind: 'text', title: 'injected'}) RETURN n",
    "MATCH (n:CanvasNode) SET n.title = 'pwned' RETURN n",
    "MATCH (n:CanvasNode) DETACH DELETE n",
    "MATCH (m:CanvasMeta) SET m.version = m.version + 1",
    "CREATE INDEX evil FOR (n:CanvasNode) ON (n.evil)",
]


def _server_python() -> Path:
    python = Path(os.environ.get("JARVISHUB_MCP_NEO4J_CYPHER_PYTHON") or DEFAULT_PYTHON)
    if not python.exists():
        message = f"mcp-neo4j-cypher's environment is missing ({python}); .ci/run creates it"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return python


def call_tools(served_info: dict[str, Any], calls: list[tuple[str, dict[str, Any]]], *,
               launcher: bool) -> tuple[list[str], list[tuple[bool, str]]]:
    """Start the server over stdio with the printed env, list its tools, make the calls; it exits with the session."""
    python = _server_python()
    if launcher:
        command, args = python, [served_info["mcp_cypher_launcher"]]
    else:
        command, args = python.parent / "mcp-neo4j-cypher", []
    params = StdioServerParameters(command=str(command), args=args,
                                   env={"PATH": os.environ.get("PATH", ""), **served_info["env"]})

    async def run() -> tuple[list[str], list[tuple[bool, str]]]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            names = [tool.name for tool in (await session.list_tools()).tools]
            results = []
            for name, arguments in calls:
                result = await session.call_tool(name, arguments)
                results.append((bool(result.isError), "".join(getattr(c, "text", "") for c in result.content)))
            return names, results

    return asyncio.run(run())


def jarvishub_rows(project, cypher: str) -> list[dict[str, Any]]:
    done = jarvishub(project, "query", cypher, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["rows"]


def test_through_the_launcher_reads_return_the_rows_of_jarvishub_query(seeded_project, served):
    tools, results = call_tools(served.info, [("read_neo4j_cypher", {"query": q}) for q in READS], launcher=True)
    assert "read_neo4j_cypher" in tools and "write_neo4j_cypher" not in tools  # read-only mode forced
    for cypher, (is_error, text) in zip(READS, results, strict=True):
        assert not is_error, text
        assert json.loads(text) == jarvishub_rows(seeded_project, cypher), cypher


def test_through_the_launcher_writes_are_refused_by_the_engine(seeded_project, served):
    before = fingerprint(seeded_project)
    _, results = call_tools(served.info, [("read_neo4j_cypher", {"query": q}) for q in WRITES], launcher=True)
    for cypher, (is_error, text) in zip(WRITES, results, strict=True):
        assert is_error, f"{cypher} was not refused: {text}"
        assert "Forbidden" in text or "not allowed" in text or "ecurity" in text, text
    assert fingerprint(seeded_project) == before


def test_stock_server_read_tool_refuses_and_write_tool_is_refused_by_the_engine(seeded_project, served):
    """Documents the stock behaviour on ArcadeDB 26.10.2; the engine is what keeps the canvas unchanged."""
    before = fingerprint(seeded_project)
    calls = [("read_neo4j_cypher", {"query": READS[0]}), ("write_neo4j_cypher", {"query": READS[0]}),
             *(("write_neo4j_cypher", {"query": q}) for q in WRITES)]
    tools, results = call_tools(served.info, calls, launcher=False)
    assert {"read_neo4j_cypher", "write_neo4j_cypher"} <= set(tools)
    (read_error, read_text), (write_read_error, write_read_text), *writes = results
    assert read_error and "Only MATCH queries are allowed" in read_text  # EXPLAIN reports 'w' for a read
    assert not write_read_error and "kind" not in write_read_text  # runs, but returns counters, never rows
    for cypher, (is_error, text) in zip(WRITES, writes, strict=True):
        assert is_error, f"{cypher} was not refused: {text}"
    assert fingerprint(seeded_project) == before


def test_the_launcher_never_serves_the_root_account(served):
    env = {"PATH": os.environ.get("PATH", ""), **served.info["env"], "NEO4J_USERNAME": "root"}
    done = subprocess.run([str(_server_python()), served.info["mcp_cypher_launcher"]], capture_output=True, text=True,
                          env=env, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode != 0 and "refusing to serve the engine's root account" in done.stderr
