"""Bridges to tools written elsewhere (LangChain, Neo4j MCP servers); all of them get the read-only account."""
