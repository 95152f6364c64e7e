"""Outside tools get a read-only account or nothing: never the store's own (NEO4J_USER / root)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from jarvishub.integrations.access import NoReadOnlyAccount, read_only_access
from store.engine import ARCADEDB_PROFILE, NEO4J_PROFILE


def _neo4j_project() -> SimpleNamespace:
    """A project on a Neo4j server, as far as read_only_access looks at it (no server is installed here)."""
    engine = SimpleNamespace(profile=NEO4J_PROFILE, uri="neo4j://db.example:7687")
    return SimpleNamespace(engine=engine, store=SimpleNamespace(database="canvas"), root="/p")


def test_neo4j_without_a_reader_account_is_refused_not_given_the_main_account(monkeypatch):
    monkeypatch.setenv("NEO4J_USER", "neo4j")
    monkeypatch.setenv("NEO4J_PASSWORD", "admin-secret")
    monkeypatch.delenv("NEO4J_READER_USER", raising=False)
    with pytest.raises(NoReadOnlyAccount) as refused:
        read_only_access(_neo4j_project())  # type: ignore[arg-type]
    assert "NEO4J_READER_USER" in str(refused.value) and "admin-secret" not in str(refused.value)


def test_neo4j_hands_out_the_reader_account(monkeypatch):
    monkeypatch.setenv("NEO4J_PASSWORD", "admin-secret")
    monkeypatch.setenv("NEO4J_READER_USER", "jh_reader")
    monkeypatch.setenv("NEO4J_READER_PASSWORD", "reader-secret")
    access = read_only_access(_neo4j_project())  # type: ignore[arg-type]
    assert (access.user, access.password, access.uri, access.database) == (
        "jh_reader", "reader-secret", "neo4j://db.example:7687", "canvas")
    assert "reader-secret" not in repr(access)


def test_embedded_engine_that_is_gone_has_no_account_to_give(tmp_path):
    (tmp_path / "engine.json").write_text('{"pid": 1, "start_time": 1, "reader_password": "stale"}')
    engine = SimpleNamespace(profile=ARCADEDB_PROFILE, data_dir=tmp_path, uri="bolt://127.0.0.1:1")
    gone = SimpleNamespace(engine=engine,
                           store=SimpleNamespace(database="canvas"), root=tmp_path)
    with pytest.raises(NoReadOnlyAccount):
        read_only_access(gone)  # type: ignore[arg-type]
