"""Run the real ``mcp-neo4j-cypher`` server so that its read tool works on ArcadeDB; read-only mode forced.

Run it with the Python that has ``mcp-neo4j-cypher`` installed (its own
environment: it pins an ``mcp`` older than JarvisHub's), by path::

    /path/to/mcp-env/bin/python /path/to/jarvishub/integrations/mcp_cypher_launcher.py

with ``NEO4J_URI`` / ``NEO4J_USERNAME`` / ``NEO4J_PASSWORD`` / ``NEO4J_DATABASE``
from ``jarvishub engine serve``.  Any other argument goes to the server's CLI.

Why: mcp-neo4j-cypher (0.6.0) decides read or write by running ``EXPLAIN`` and
looking for ``w`` in the summary's query type.  ArcadeDB 26.10.2 answers ``w``
for every EXPLAIN, reads included, so the stock ``read_neo4j_cypher`` refuses
every query, and ``write_neo4j_cypher`` runs every query but returns only
update counters, never rows.  On ArcadeDB this launcher answers "not a write"
for every query instead: the read tool then runs it, as the read-only account,
and the **engine** refuses writes.  The write tool is switched off
(``--read-only``), since every write it could run would be refused anyway.  On
any other engine (a real Neo4j) the stock classifier is kept.

Only the standard library and ``mcp_neo4j_cypher`` are imported: JarvisHub is
not installed in the server's environment.
"""

from __future__ import annotations

import os
import sys
from typing import Any

# Run by path, this file's folder is first on sys.path, where its neighbours (langchain.py, ...) would
# shadow the packages of the same name in the server's environment.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

ARCADEDB_AGENT = "ArcadeDB"
"""What ArcadeDB's Bolt plugin puts in its server agent (``Neo4j/5.26.0 compatible (ArcadeDB 26.10.2)``)."""


async def is_write_query(query: str, driver: Any, database: str) -> bool:
    """The server's own check (EXPLAIN, then ``w`` in the query type), except where the engine cannot tell.

    On ArcadeDB the answer is "not a write" for every query: the read-only account, not this answer, keeps
    writes out, and a read tool that refused every query would be no use.
    """
    _, summary, _ = await driver.execute_query(query_="EXPLAIN " + query, database_=database)
    if ARCADEDB_AGENT in (summary.server.agent or ""):
        return False
    return "w" in (summary.query_type or "")


def main(argv: list[str] | None = None) -> None:
    """Start the stdio (or configured) mcp-neo4j-cypher server with the engine-aware classifier, read-only."""
    args = list(sys.argv[1:] if argv is None else argv)
    named = args[args.index("--username") + 1] if "--username" in args[:-1] else None
    if (named or os.environ.get("NEO4J_USERNAME") or os.environ.get("NEO4J_USER")) == "root":
        sys.exit("refusing to serve the engine's root account to an MCP client: use the read-only account "
                 "`jarvishub engine serve` prints")
    try:
        import mcp_neo4j_cypher
        from mcp_neo4j_cypher import server
    except ImportError:
        sys.exit("mcp-neo4j-cypher is not installed for this Python; run this file with the Python of its environment")
    if not hasattr(server, "_is_write_query"):
        sys.exit("this mcp-neo4j-cypher has no _is_write_query; the launcher was written for 0.6.x")
    server._is_write_query = is_write_query
    sys.argv = [sys.argv[0], *args, *([] if "--read-only" in args else ["--read-only"])]
    mcp_neo4j_cypher.main()


if __name__ == "__main__":
    main()
