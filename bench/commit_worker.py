"""Writing processes for the multi-process commit test and benchmark.

``fleet DATA_DIR DATABASE PROCESSES COMMITS [--no-lock]`` seeds the database,
starts PROCESSES writers, lets them go at once and prints a JSON summary.

``write DATA_DIR DATABASE COMMITS [--no-lock]`` is one writer: it opens (reuses) the project's engine,
prints ``ready``, waits for a line on stdin so that all writers start together,
makes COMMITS commits (each creates a node and updates a shared one), and prints
JSON: commits that succeeded, failed (with the first error), and seconds.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])  # the repository, wherever this runs from

from store.embedded import EmbeddedArcadeEngine  # noqa: E402
from store.mutations import CreateNode, UpdateNode  # noqa: E402
from store.neo4j import Neo4jCanvasStore  # noqa: E402
from store.tickets import TicketAuthority  # noqa: E402


def write(data_dir: Path, database: str, commits: int) -> None:
    """One writer (see the module docstring)."""
    engine = EmbeddedArcadeEngine(data_dir)
    authority = TicketAuthority()
    store = Neo4jCanvasStore.on(engine, database, authority=authority)
    if "--no-lock" in sys.argv:
        store._locks = None  # measure what the lock buys: back to retries only
    shared = store.find_nodes(kind="text")[0].id
    print("ready", flush=True)
    sys.stdin.readline()
    ok, failed, first_error = 0, 0, None
    started = time.perf_counter()
    for i in range(commits):
        batch = [CreateNode(kind="image", title=f"w{i}"), UpdateNode(node_id=shared, title=f"w{i}")]
        try:
            store.apply(batch, ticket=authority.issue(f"c{i}", batch))
            ok += 1
        except Exception as error:  # noqa: BLE001 - counted and reported
            failed += 1
            first_error = first_error or f"{type(error).__name__}: {error}"[:300]
    seconds = time.perf_counter() - started
    store.close()
    engine.close()
    print(json.dumps({"ok": ok, "failed": failed, "first_error": first_error, "seconds": round(seconds, 3)}))


def fleet(data_dir: Path, database: str, processes: int, commits: int) -> dict[str, object]:
    """Start ``processes`` writers on one project and database, release them together, sum their results."""
    engine = EmbeddedArcadeEngine(data_dir)
    authority = TicketAuthority()
    engine.ensure_database(database)
    store = Neo4jCanvasStore.on(engine, database, authority=authority)
    seed = CreateNode(kind="text", title="shared")
    store.apply([seed], ticket=authority.issue("seed", [seed]))
    start_version = store.canvas_version()
    extra = ["--no-lock"] if "--no-lock" in sys.argv else []
    writers = [
        subprocess.Popen(
            [sys.executable, __file__, "write", str(data_dir), database, str(commits), *extra],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        for _ in range(processes)
    ]
    for writer in writers:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
    started = time.perf_counter()
    for writer in writers:
        assert writer.stdin is not None
        writer.stdin.write("go\n")
        writer.stdin.flush()
    results = [json.loads(writer.communicate(timeout=600)[0].strip().splitlines()[-1]) for writer in writers]
    wall = time.perf_counter() - started
    made = store.canvas_version() - start_version
    store.close()
    engine.close()
    ok = sum(int(r["ok"]) for r in results)
    return {
        "processes": processes,
        "commits_per_process": commits,
        "lock": not extra,
        "ok": ok,
        "failed": sum(int(r["failed"]) for r in results),
        "first_error": next((r["first_error"] for r in results if r["first_error"]), None),
        "canvas_versions_made": made,
        "wall_s": round(wall, 3),
        "commits_per_s": round(ok / wall, 1) if wall else None,
    }


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(Path(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
    elif sys.argv[1] == "fleet":
        print(json.dumps(fleet(Path(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))))
    else:
        sys.exit(__doc__)
