"""Neo4j tools benchmark: prints JSON.

* ``serve_ready_cold_s`` / ``serve_ready_warm_s``: from starting ``jarvishub engine serve --json`` to its
  line, with no engine running, and with the engine already up;
* ``driver_read_ms``: median of a read on the printed account with the plain neo4j driver;
* ``langchain_query_ms``: median of ``canvas_graph(project).query`` (same read);
* ``mcp_read_ms``: median of ``read_neo4j_cypher`` through mcp-neo4j-cypher and the launcher, one stdio
  session (needs the server's environment, see docs/neo4j-tools.md; null without it);
* ``mcp_server_start_s``: from spawning that server to its first answered call.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[0] = str(ROOT)

import neo4j  # noqa: E402

from bench.store import _median_ms  # noqa: E402
from jarvishub.integrations.langchain import canvas_graph  # noqa: E402
from jarvishub.project import Project  # noqa: E402

READ = "MATCH (n:CanvasNode) RETURN n.kind AS kind, count(n) AS c ORDER BY kind"
SAMPLES = 50
MCP_PYTHON = Path(os.environ.get("JARVISHUB_MCP_NEO4J_CYPHER_PYTHON")
                  or Path.home() / ".cache" / "jarvishub" / "mcp-neo4j-cypher" / "bin" / "python")


def _serve(folder: Path, env: dict[str, str]) -> tuple[subprocess.Popen, dict[str, Any], float]:
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "jarvishub.cli", "-C", str(folder), "engine", "serve", "--json"],
                               stdout=subprocess.PIPE, text=True, env=env)
    info = json.loads(process.stdout.readline() if process.stdout else "{}")
    return process, info, round(time.perf_counter() - started, 3)


async def _mcp(info: dict[str, Any]) -> tuple[float, float]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=str(MCP_PYTHON), args=[info["mcp_cypher_launcher"]],
                                   env={"PATH": os.environ.get("PATH", ""), **info["env"]})
    started = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.call_tool("read_neo4j_cypher", {"query": READ})
        ready = time.perf_counter() - started
        timings = []
        for _ in range(SAMPLES):
            t0 = time.perf_counter()
            result = await session.call_tool("read_neo4j_cypher", {"query": READ})
            assert not result.isError
            timings.append((time.perf_counter() - t0) * 1000)
    return round(ready, 3), round(statistics.median(timings), 3)


def main() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JARVISHUB_ENGINE_IDLE_SECONDS": "5"}
    os.environ["JARVISHUB_ENGINE_IDLE_SECONDS"] = "5"
    folder = Path(tempfile.mkdtemp(prefix="jh-bench-tools-")) / "p"
    Project.init(folder).close()
    subprocess.run([sys.executable, "-m", "jarvishub.cli", "-C", str(folder), "engine", "stop"], env=env,
                   capture_output=True, check=True)
    cold, info, cold_s = _serve(folder, env)
    warm, _, warm_s = _serve(folder, env)
    warm.send_signal(signal.SIGINT)
    warm.wait()
    out: dict[str, Any] = {"serve_ready_cold_s": cold_s, "serve_ready_warm_s": warm_s}
    try:
        with neo4j.GraphDatabase.driver(info["uri"], auth=(info["user"], info["password"])) as driver:
            out["driver_read_ms"] = _median_ms(lambda: driver.execute_query(READ, database_=info["database"]), SAMPLES)
        with Project.open(folder) as project:
            graph = canvas_graph(project)
            out["langchain_query_ms"] = _median_ms(lambda: graph.query(READ), SAMPLES)
            graph.close()
        if MCP_PYTHON.exists():
            out["mcp_server_start_s"], out["mcp_read_ms"] = asyncio.run(_mcp(info))
        else:
            out["mcp_server_start_s"] = out["mcp_read_ms"] = None
    finally:
        cold.send_signal(signal.SIGINT)
        cold.wait()
        subprocess.run([sys.executable, "-m", "jarvishub.cli", "-C", str(folder), "engine", "stop"], env=env,
                       capture_output=True)
    out["samples"] = SAMPLES
    print(json.dumps(out))


if __name__ == "__main__":
    main()
