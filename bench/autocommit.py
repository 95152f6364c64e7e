"""Whether one auto-commit statement is atomic on the embedded engine, and what an explicit transaction costs.

Prints JSON.  A statement that increments the canvas counter, writes a probe node and then fails (a division by
zero) is sent two ways: as an auto-commit ``session.run`` and inside ``begin_transaction``.  The store commits in
explicit transactions; this says whether the cheaper way would keep a failed commit from leaving half of itself
behind (on ArcadeDB 26 it does not), and what the explicit way's extra round trip costs.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parents[1])

from jarvishub.project import Project  # noqa: E402
from store.engine import CANVAS_META_KEY  # noqa: E402

FAILING = ("MATCH (m:CanvasMeta {key: $meta}) SET m.version = m.version + 1 WITH m CREATE (p:AtomicityProbe {n: 1}) "
           "WITH m UNWIND [1, 0] AS d RETURN 1 / d AS x")
TOUCH = "MATCH (m:CanvasMeta {key: $meta}) SET m.touched = 1 RETURN 1 AS x"
ROUNDS = 200


def state(session: Any) -> dict[str, int]:
    """The counter and the probe nodes, as they are now."""
    version = session.run("MATCH (m:CanvasMeta {key: $meta}) RETURN m.version AS v", meta=CANVAS_META_KEY).single()
    probes = session.run("MATCH (p:AtomicityProbe) RETURN count(p) AS c").single()
    return {"version": int(version["v"] or 0), "probes": int(probes["c"])}


def left_behind(session: Any, explicit: bool) -> dict[str, int]:
    """What a failing statement left: the counter's change and the probes it wrote."""
    before = state(session)
    try:
        if explicit:
            tx = session.begin_transaction()
            try:
                tx.run(FAILING, meta=CANVAS_META_KEY).consume()
                tx.commit()
            finally:
                if not tx.closed():
                    tx.rollback()
        else:
            session.run(FAILING, meta=CANVAS_META_KEY).consume()
    except Exception:  # the division by zero: what matters is what it left
        pass
    after = state(session)
    return {"version_moved": after["version"] - before["version"], "probes_written": after["probes"] - before["probes"]}


def median_ms(session: Any, explicit: bool) -> float:
    """The median time of a one-statement write, each way (the first quarter left out: the engine warming up)."""
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        if explicit:
            tx = session.begin_transaction()
            tx.run(TOUCH, meta=CANVAS_META_KEY).consume()
            tx.commit()
        else:
            session.run(TOUCH, meta=CANVAS_META_KEY).consume()
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times[ROUNDS // 4:]), 3)


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="jarvishub-autocommit-"))
    project = Project.init(folder / "p")
    try:
        with project.store._session() as session:
            auto, explicit = left_behind(session, explicit=False), left_behind(session, explicit=True)
            timing = {"auto_commit_ms": median_ms(session, False), "explicit_ms": median_ms(session, True)}
    finally:
        project.close()
        project.engine.stop()
    print(json.dumps({"failing_statement": {"auto_commit": auto, "explicit_transaction": explicit},
                      "auto_commit_atomic": auto == {"version_moved": 0, "probes_written": 0},
                      "one_statement_write": timing}, indent=2))


if __name__ == "__main__":
    main()
