"""Choose and start the canvas engine: Neo4j when configured, embedded ArcadeDB otherwise."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
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
    neo4j_reader_user: str | None = field(default_factory=lambda: os.environ.get("NEO4J_READER_USER") or None)
    """A Neo4j account with the built-in ``reader`` role, for user queries (Enterprise)."""
    neo4j_reader_password: str | None = field(default_factory=lambda: os.environ.get("NEO4J_READER_PASSWORD"))
    idle_seconds: float | None = None
    """How long the embedded engine lingers after its last user; None reads JARVISHUB_ENGINE_IDLE_SECONDS."""


def start_engine(settings: EngineSettings) -> Engine:
    """Connect to Neo4j if ``neo4j_uri`` is set; otherwise start (or reuse) embedded ArcadeDB."""
    if settings.neo4j_uri:
        return Neo4jServerEngine(
            settings.neo4j_uri,
            settings.neo4j_user,
            settings.neo4j_password,
            settings.neo4j_database or "neo4j",
            state_dir=settings.data_dir / "engine",
            reader_user=settings.neo4j_reader_user,
            reader_password=settings.neo4j_reader_password,
        )
    return EmbeddedArcadeEngine(settings.data_dir / "engine", idle_seconds=settings.idle_seconds)


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
    return Neo4jCanvasStore.on(engine, name, authority=authority, kinds=kinds)
