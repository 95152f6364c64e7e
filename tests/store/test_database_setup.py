"""A command on a running engine skips setting up a database that this server run already set up, and only then."""

from __future__ import annotations

import json
import uuid

from store.embedded import EmbeddedArcadeEngine
from store.engine import CANVAS_META_KEY


def _counters(engine: EmbeddedArcadeEngine, database: str) -> int:
    with engine.driver.session(database=database) as session:
        return session.run("MATCH (m:CanvasMeta {key: $key}) RETURN count(m) AS c", key=CANVAS_META_KEY).single()["c"]


def test_a_database_is_set_up_again_unless_this_server_run_recorded_it(engines):
    engine = engines["arcadedb"]
    assert isinstance(engine, EmbeddedArcadeEngine)
    database = "t" + uuid.uuid4().hex[:12]
    ready = engine.data_dir / f"ready-{database}.json"
    try:
        engine.ensure_database(database)
        record = json.loads(ready.read_text())
        assert record["pid"] == engine.server_pid and _counters(engine, database) == 1

        # A record of another server run (a reused pid after a restart) does not count: the database is
        # dropped behind its back and set up again, counter included.
        engine._http("/api/v1/server", {"command": f"drop database {database}"})
        ready.write_text(json.dumps({**record, "start_time": (record["start_time"] or 0) + 1}))
        engine.ensure_database(database)
        assert engine.database_exists(database) and _counters(engine, database) == 1
        assert json.loads(ready.read_text()) == record

        # Nor does a record of another schema.
        engine._http("/api/v1/server", {"command": f"drop database {database}"})
        ready.write_text(json.dumps({**record, "schema": "an older schema"}))
        engine.ensure_database(database)
        assert engine.database_exists(database) and _counters(engine, database) == 1

        # The record of this run is what lets a later command skip the set-up (and dropping forgets it).
        engine.ensure_database(database)
        assert json.loads(ready.read_text()) == record
    finally:
        engine.drop_database(database)
    assert not ready.exists() and not engine.database_exists(database)
    engine.ensure_database(database)  # after a drop, the set-up runs again
    try:
        assert engine.database_exists(database) and _counters(engine, database) == 1
    finally:
        engine.drop_database(database)
