"""A turn's manifest is stored once by its hash, not in every turn's row (issue #21: ~90 KB a turn made the
trajectory file grow with the session); reading the turns gives each its manifest back, and a row written before
(with its own manifest) still reads as it did."""

from __future__ import annotations

import json
import sqlite3

from pydantic import BaseModel

from store.trajectories import TrajectoryStore


class _Manifest(BaseModel):
    tools: list[dict[str, str]]


def test_a_manifest_is_stored_once_and_read_back_with_every_turn(tmp_path):
    path = tmp_path / "trajectories.sqlite"
    store = TrajectoryStore(path)
    manifest = _Manifest(tools=[{"name": f"tool_{i}", "description": "x" * 200} for i in range(100)])
    for turn in ("t1", "t2", "t3"):
        store.record_turn("thread", turn, {"request": f"request {turn}", "outcome": "replied"}, manifest=manifest)
    store.record_turn("thread", "t2", {"request": "request t2", "outcome": "replied"}, manifest=manifest)  # again
    store.close()
    with sqlite3.connect(path) as db:
        rows = [json.loads(body) for (body,) in db.execute("SELECT body FROM turns ORDER BY seq")]
        [(stored,)] = db.execute("SELECT body FROM manifests").fetchall()
        # A row written before manifests were stored apart.
        db.execute("INSERT INTO turns VALUES ('thread', 'old', 9, ?, '')",
                   (json.dumps({"manifest": {"tools": [{"name": "old_tool"}]}, "request": "old"}),))
    assert all("manifest" not in row and len(json.dumps(row)) < 200 for row in rows)
    assert json.loads(stored) == manifest.model_dump(mode="json")

    reopened = TrajectoryStore(path)
    turns = reopened.turns("thread")
    assert [t["request"] for t in turns] == ["request t1", "request t2", "request t3", "old"]
    assert all(t["manifest"] == manifest.model_dump(mode="json") for t in turns[:3])
    assert turns[3]["manifest"] == {"tools": [{"name": "old_tool"}]}
    assert not any("manifest_sha256" in t for t in turns)
    assert "manifest" not in reopened.last_turn("thread") and "manifest_sha256" not in reopened.last_turn()
    reopened.close()
