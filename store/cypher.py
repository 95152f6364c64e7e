"""The friendly first check of user Cypher (DESIGN.md §4); the engine is the guarantee.

User queries run on the engine's read-only account (ArcadeDB group
``jarvishub_reader``, a Neo4j ``READ`` session and ``reader`` role), which
refuses writes, DDL, write procedures and file reads however they are spelled
(docs/engines.md).  This lexical check only answers early and in plain words:
it strips comments and string literals, unquotes backticked names, and refuses
every write clause and every ``CALL`` of a procedure not on the allowlist.
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
    "INSERT": "INSERT (Cypher 25 / GQL) creates nodes and relationships",
    "FINISH": "FINISH ends a query that writes",
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

_SEGMENT = r"(?:[A-Za-z_][A-Za-z0-9_$]*|`(?:[^`]|``)*`)"
_TOKEN = re.compile(
    rf"""
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<word>{_SEGMENT}(?:\s*\.\s*{_SEGMENT})*)
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)
_QUOTED_PART = re.compile(r"`((?:[^`]|``)*)`")


def _tokens(cypher: str) -> list[tuple[str, bool]]:
    """Names and brackets of a query as ``(text, quoted)``, comments and string literals removed.

    A name may be backtick-quoted in whole or in part (``CALL `merge.node```, ``apoc.`create`.node``); it is
    unquoted here so that a quoted procedure name is checked like a bare one.  ``quoted`` tells a keyword
    from a label or property that merely has a keyword's spelling.
    """
    out: list[tuple[str, bool]] = []
    for match in _TOKEN.finditer(cypher):
        if match.lastgroup == "word":
            raw = re.sub(r"\s*\.\s*", ".", match.group())
            name = _QUOTED_PART.sub(lambda part: part.group(1).replace("``", "`"), raw)
            out.append((name, "`" in raw))
        elif match.lastgroup == "other" and match.group() in "{}()":
            out.append((match.group(), False))
    return out


def words(cypher: str) -> list[str]:
    """The names of a query (backticks removed) with comments and string literals dropped."""
    return [text for text, _ in _tokens(cypher)]


def check_read_only(cypher: str) -> None:
    """Raise :class:`CypherWriteRefused` if the query could write; return quietly otherwise.

    This is the friendly first message only: the engine's read-only account is what refuses writes.
    """
    tokens = _tokens(cypher)
    upper = [text.upper() if not quoted else "" for text, quoted in tokens]
    for index, token in enumerate(upper):
        if token in _WRITE_KEYWORDS:
            raise CypherWriteRefused(
                f"user Cypher is read-only: {_WRITE_KEYWORDS[token]}. "
                "Change the canvas through the bridge (a canvas tool or `jarvishub run`) instead."
            )
        if token == "CALL":
            following = tokens[index + 1][0] if index + 1 < len(tokens) else ""
            if following in ("{", "("):
                continue  # a subquery CALL { ... } or CALL (x) { ... }: its clauses are checked by this loop
            if following.lower() not in READ_ONLY_PROCEDURES:
                raise CypherWriteRefused(
                    f"user Cypher may only call read-only procedures ({', '.join(sorted(READ_ONLY_PROCEDURES))}); "
                    f"{following or 'this procedure'} is not one of them"
                )
    # A statement with no clause this check knows ("RETUR 1", a typo) goes to the engine, whose parser says
    # what is wrong and where; the read-only account refuses it should it write after all.


class FixedCypher(str):
    """A read statement JarvisHub itself wrote (a module constant), never text from a person or a model.

    Only :meth:`Neo4jCanvasStore.fixed_read` takes it: our own reads (the web canvas's live feed, the planner's facts)
    run outside the user-query budget, so a burst of user queries cannot stall them.  User text is a plain
    ``str`` and goes through ``query``, in the budget; it still runs on the read-only account here too.
    """

    __slots__ = ()
