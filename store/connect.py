"""Choose and start the canvas engine: Neo4j when configured, embedded ArcadeDB otherwise."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from store.embedded import EmbeddedArcadeEngine
from store.engine import Engine, Neo4jServerEngine
from store.kinds import KindRegistry
from store.neo4j import Neo4jCanvasStore
from store.tickets import TicketAuthority


@dataclass(frozen=True)
class EngineSettings:
    """Where the canvas lives: a Neo4j server, or the embedded engine under ``data_dir``."""

    data_dir: Path
    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: str = ""
    neo4j_database: str | None = None


def start_engine(settings: EngineSettings) -> Engine:
    """Connect to Neo4j if ``neo4j_uri`` is set; otherwise start (or reuse) embedded ArcadeDB."""
    if settings.neo4j_uri:
        return Neo4jServerEngine(
            settings.neo4j_uri,
            settings.neo4j_user,
            settings.neo4j_password,
            settings.neo4j_database or "neo4j",
        )
    return EmbeddedArcadeEngine(settings.data_dir / "engine")


def database_name(name: str) -> str:
    """A database name both engines accept (letters, digits; Neo4j forbids underscores)."""
    cleaned = re.sub(r"[^a-zA-Z0-9]", "", name).lower()
    return cleaned or "canvas"


def open_store(
    engine: Engine,
    authority: TicketAuthority,
    *,
    database: str | None = None,
    kinds: KindRegistry | None = None,
) -> Neo4jCanvasStore:
    """A canvas store on ``database`` (the engine's default when None), created if missing."""
    name = database or engine.default_database
    engine.ensure_database(name)
    return Neo4jCanvasStore(engine.driver, name, authority=authority, profile=engine.profile, kinds=kinds)
