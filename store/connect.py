"""Choose and start the canvas engine: Neo4j when configured, embedded ArcadeDB otherwise."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from store.arcadedb_security import READER_USER
from store.embedded import EmbeddedArcadeEngine
from store.engine import Engine, Neo4jServerEngine
from store.kinds import KindRegistry
from store.leader import ClusterMember
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
    arcadedb_cluster: str | None = None
    """An ArcadeDB HA cluster's servers, ``name@host:bolt_port:http_port`` comma-separated
    (``JARVISHUB_ARCADEDB_CLUSTER``); the store writes through whichever is the leader and follows a failover."""


def parse_cluster_members(spec: str) -> list[ClusterMember]:
    """``node0@10.0.0.5:7687:2480,node1@…`` → the cluster's members; a clear error for a malformed entry."""
    members = []
    for entry in (part.strip() for part in spec.split(",")):
        if not entry:
            continue
        match = re.fullmatch(r"(?P<name>[\w.-]+)@(?P<host>[^:@\s]+):(?P<bolt>\d{1,5}):(?P<http>\d{1,5})", entry)
        if match is None:
            raise ValueError(f"cluster server {entry!r} is not name@host:bolt_port:http_port "
                             "(the name is the server's arcadedb.server.name)")
        members.append(ClusterMember(name=match["name"], host=match["host"], bolt_port=int(match["bolt"]),
                                     http_port=int(match["http"])))
    if not members:
        raise ValueError("JARVISHUB_ARCADEDB_CLUSTER names no server")
    return members


def start_engine(settings: EngineSettings) -> Engine:
    """Connect to an ArcadeDB cluster or Neo4j when configured; otherwise start (or reuse) embedded ArcadeDB."""
    if settings.arcadedb_cluster:
        from store.cluster_client import ArcadeClusterClient

        if not settings.neo4j_reader_password:
            raise ValueError("an ArcadeDB cluster needs a read-only account for user queries: set "
                             "NEO4J_READER_USER and NEO4J_READER_PASSWORD (see docs/scaling.md)")
        return ArcadeClusterClient(
            parse_cluster_members(settings.arcadedb_cluster),
            user=settings.neo4j_user,
            password=settings.neo4j_password,
            reader_user=settings.neo4j_reader_user or READER_USER,
            reader_password=settings.neo4j_reader_password,
            state_dir=settings.data_dir / "engine",
            default_database=settings.neo4j_database or "canvas",
        )
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
