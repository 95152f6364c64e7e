"""The read-only guard for user Cypher (DESIGN.md §4).

Three layers, because no single one holds on every engine:

1. a lexical check here, which strips comments and string literals and refuses
   every write clause and every procedure not known to be read-only;
2. ``EXPLAIN`` on the engine, refused unless it reports a read-only query type
   (Neo4j reports it faithfully; ArcadeDB reports ``w`` for every query, so the
   engine profile says whether to trust it);
3. the query runs inside an explicit transaction that is always rolled back.
"""

from __future__ import annotations

import re

from store.errors import CypherWriteRefused

# Clauses that write, in any position (a FOREACH can only hold writes; LOAD CSV reads files
# from the server's disk, which a user query has no business doing).
_WRITE_KEYWORDS: dict[str, str] = {
    "CREATE": "CREATE makes nodes, relationships, indexes or constraints",
    "MERGE": "MERGE may create nodes or relationships",
    "SET": "SET changes properties or labels",
    "REMOVE": "REMOVE deletes properties or labels",
    "DELETE": "DELETE removes nodes or relationships",
    "DETACH": "DETACH DELETE removes nodes and their relationships",
    "FOREACH": "FOREACH exists to run writes",
    "DROP": "DROP removes indexes, constraints or databases",
    "ALTER": "ALTER changes the schema or a database",
    "GRANT": "GRANT changes privileges",
    "DENY": "DENY changes privileges",
    "REVOKE": "REVOKE changes privileges",
    "LOAD": "LOAD CSV reads files from the database server",
    "START": "START DATABASE changes the server",
    "STOP": "STOP DATABASE changes the server",
    "TERMINATE": "TERMINATE ends transactions",
    "USE": "USE switches the database the query runs on",
}

# Procedures a user query may call; anything else could write (apoc.create.*, db.createIndex, ...).
READ_ONLY_PROCEDURES: frozenset[str] = frozenset(
    {
        "db.labels",
        "db.relationshiptypes",
        "db.propertykeys",
        "db.schema.visualization",
        "db.schema.nodetypeproperties",
        "db.schema.reltypeproperties",
    }
)

_TOKEN = re.compile(
    r"""
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<quoted>`(?:[^`]|``)*`)
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*)
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)


def words(cypher: str) -> list[str]:
    """The bare words of a query with comments, string literals and `quoted names` removed."""
    out: list[str] = []
    for match in _TOKEN.finditer(cypher):
        if match.lastgroup == "word":
            out.append(re.sub(r"\s+", "", match.group()))
        elif match.lastgroup == "other" and match.group() in "{}()":
            out.append(match.group())
    return out


def check_read_only(cypher: str) -> None:
    """Raise :class:`CypherWriteRefused` if the query could write; return quietly otherwise."""
    tokens = words(cypher)
    upper = [t.upper() for t in tokens]
    for index, token in enumerate(upper):
        if token in _WRITE_KEYWORDS:
            raise CypherWriteRefused(
                f"user Cypher is read-only: {_WRITE_KEYWORDS[token]}. "
                "Change the canvas through the bridge (a canvas tool or `jarvishub run`) instead."
            )
        if token == "CALL":
            following = tokens[index + 1] if index + 1 < len(tokens) else ""
            if following == "{" or following == "(":
                continue  # a subquery: its own clauses are checked by this same loop
            if following.lower() not in READ_ONLY_PROCEDURES:
                raise CypherWriteRefused(
                    f"user Cypher may only call read-only procedures ({', '.join(sorted(READ_ONLY_PROCEDURES))}); "
                    f"{following or 'this procedure'} is not one of them"
                )
    if not any(t in ("MATCH", "RETURN", "WITH", "UNWIND", "CALL", "SHOW") for t in upper):
        raise CypherWriteRefused("a user query must read something: start it with MATCH, RETURN, UNWIND or WITH")
