"""The account outside tools connect with: the engine's read-only one, never the store's own.

Outside tools (Neo4j MCP servers, LangChain's ``Neo4jGraph``, Neo4j Browser,
cypher-shell) bypass the bridge, so their only guarantee is an account the
engine refuses writes for (DESIGN.md §4).  On the embedded engine that is
``jarvishub_reader`` (read-only ArcadeDB group, written before the server
starts, fresh password at every start); on Neo4j it is the account named by
``NEO4J_READER_USER`` / ``NEO4J_READER_PASSWORD``, which must hold the
built-in ``reader`` role.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from store import lifecycle
from store.arcadedb_security import READER_USER
from store.errors import CanvasError
from store.hosted import HostedDatabase

if TYPE_CHECKING:
    from jarvishub.project import Project


class NoReadOnlyAccount(CanvasError):
    """There is no read-only account to give an outside tool; the store's own account is never handed out."""


class ReadOnlyAccess(BaseModel):
    """Where and as whom an outside tool reads the canvas."""

    engine: str = Field(description="arcadedb (embedded) or neo4j")
    uri: str = Field(description="the Bolt URI")
    database: str
    user: str
    password: str = Field(repr=False)

    def env(self) -> dict[str, str]:
        """The variables Neo4j tools read (mcp-neo4j-cypher, langchain-neo4j, cypher-shell)."""
        return {
            "NEO4J_URI": self.uri,
            "NEO4J_USERNAME": self.user,
            "NEO4J_PASSWORD": self.password,
            "NEO4J_DATABASE": self.database,
        }


def read_only_access(project: Project) -> ReadOnlyAccess:
    """The read-only account of ``project``'s engine; :class:`NoReadOnlyAccount` when it has none."""
    engine = project.engine
    database = project.store.database
    if isinstance(engine, HostedDatabase):
        raise NoReadOnlyAccount(
            f"the canvas of {project.root} is a database on an engine that hosts other projects too, and that "
            "engine's read-only account reads all of them, so no account is handed to outside tools; query it "
            "in the hosting process (its store runs user Cypher as the reader), or open the project on its own engine"
        )
    if not getattr(engine, "reader_enforced_over_bolt", True):
        raise NoReadOnlyAccount(
            "this engine does not apply the read-only account's permissions over Bolt (an ArcadeDB 26.3 cluster: "
            "its Bolt plugin never sets the session's user), so no Bolt account is handed to outside tools; "
            "use `jarvishub query`, which runs as the reader over the HTTP API (docs/scaling.md)"
        )
    if engine.profile.name == "arcadedb":
        data_dir = engine.data_dir  # type: ignore[attr-defined]
        info = lifecycle.read_state(data_dir)
        if not lifecycle.is_our_engine(info, data_dir) or not info or not info.get("reader_password"):
            raise NoReadOnlyAccount(f"the embedded engine of {project.root} is not running; open the project again")
        return ReadOnlyAccess(
            engine="arcadedb", uri=engine.uri, database=database, user=READER_USER, password=info["reader_password"]
        )
    user = os.environ.get("NEO4J_READER_USER")
    if not user:
        raise NoReadOnlyAccount(
            "outside tools get a read-only account, never the store's own: create one with the built-in reader role "
            "(CREATE USER jh_reader SET PASSWORD '...'; GRANT ROLE reader TO jh_reader) and set "
            "NEO4J_READER_USER / NEO4J_READER_PASSWORD"
        )
    return ReadOnlyAccess(
        engine=engine.profile.name,
        uri=engine.uri,
        database=database,
        user=user,
        password=os.environ.get("NEO4J_READER_PASSWORD", ""),
    )
