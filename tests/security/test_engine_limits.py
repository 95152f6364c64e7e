"""Runaway user queries cannot starve the bridge (issue #11, D2).

Eight runaway queries at once: at most the project's budget (2) reach the
engine, the rest are refused at once with a typed error; the engine's
statement timeout ends the ones that run, and a bridge commit made while
they run completes.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
import uuid

import pytest

from store.embedded import EmbeddedArcadeEngine
from store.engine import EngineLimits
from store.errors import QueryBusy, QueryTimeout
from store.mutations import CreateNode
from store.neo4j import Neo4jCanvasStore
from store.tickets import TicketAuthority

RUNAWAY = "UNWIND range(1, 3000000) AS x UNWIND range(1, 3000000) AS y RETURN count(*) AS n"
STATEMENT_TIMEOUT_S = 6.0


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    """An engine of its own with a short statement timeout, so the runaway queries end within the test."""
    engine = EmbeddedArcadeEngine(
        tmp_path_factory.mktemp("limits") / "engine", limits=EngineLimits(statement_timeout_s=STATEMENT_TIMEOUT_S)
    )
    yield engine
    engine.stop()


@pytest.fixture
def store(limited):
    database = "t" + uuid.uuid4().hex[:12]
    limited.ensure_database(database)
    opened = Neo4jCanvasStore.on(limited, database, authority=TicketAuthority())
    yield opened
    opened.close()
    limited.drop_database(database)


def test_the_engine_ends_a_runaway_query_itself(store):
    with pytest.raises(QueryTimeout) as stopped:
        store.query(RUNAWAY, timeout_s=STATEMENT_TIMEOUT_S * 10)  # the client would wait far longer
    assert "engine" in str(stopped.value)


def test_eight_runaway_queries_leave_commits_free(store):
    outcomes: list[BaseException | None] = [None] * 8
    started = threading.Barrier(9)

    def runaway(index: int) -> None:
        started.wait()
        try:
            store.query(RUNAWAY, timeout_s=1.0)
        except BaseException as error:  # noqa: BLE001 - the outcome is what the test checks
            outcomes[index] = error

    threads = [threading.Thread(target=runaway, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    started.wait()
    for thread in threads:
        thread.join(timeout=60)
    assert sum(isinstance(o, QueryBusy) for o in outcomes) == 6, outcomes
    assert sum(isinstance(o, QueryTimeout) for o in outcomes) == 2, outcomes

    # The two admitted queries still hold their slots: the engine is still running them.
    with pytest.raises(QueryBusy):
        store.query("RETURN 1 AS one")
    authority = store._authority
    node = CreateNode(kind="text", title="written while queries run away")
    began = time.perf_counter()
    record = store.apply([node], ticket=authority.issue("a", [node]))
    elapsed = time.perf_counter() - began
    assert record.canvas_version == 1
    assert elapsed < 2.0, f"a commit took {elapsed:.2f} s next to runaway queries"

    # The engine ends them at its statement timeout and the budget comes back.
    deadline = time.monotonic() + STATEMENT_TIMEOUT_S * 5
    while True:
        try:
            assert store.query("RETURN 1 AS one").rows == [{"one": 1}]
            break
        except QueryBusy:
            assert time.monotonic() < deadline, "the engine never ended the runaway queries"
            time.sleep(0.2)


def test_the_budget_holds_across_processes(limited, store):
    """Slots are file locks of the project: another process finds them taken and is refused at once."""
    with limited.locks.query_slot(), limited.locks.query_slot():
        script = textwrap.dedent(f"""
            import sys
            from store.embedded import EmbeddedArcadeEngine
            from store.errors import QueryBusy
            from store.neo4j import Neo4jCanvasStore
            from store.tickets import TicketAuthority
            engine = EmbeddedArcadeEngine({str(limited.data_dir)!r})
            store = Neo4jCanvasStore.on(engine, {store.database!r}, authority=TicketAuthority())
            try:
                store.query("RETURN 1 AS one")
            except QueryBusy as busy:
                print("busy:", busy)
            engine.close()
        """)
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.startswith("busy:"), out.stdout + out.stderr
