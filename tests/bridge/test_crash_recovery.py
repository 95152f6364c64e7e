"""SIGKILL at several points of a turn, then resume: the same final canvas, nothing applied or paid for twice."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jarvishub.project import Project
from jarvishub.runtime import Runtime
from nodes.models.scripted import ScriptedModel
from store.trajectories import TrajectoryStore
from tests.bridge.crash_worker import script
from tests.canvas_fingerprint import canvas_fingerprint, fingerprint_difference
from tools.generate.cache import SignatureCache

pytestmark = pytest.mark.long_file(70)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("crash_worker.py")
GENERATIONS = 4  # three images and a clip


def _env(checkpoint_url: str | None, scratch: Path) -> dict[str, str]:
    # A worker killed mid-step cannot remove its temporary files: they go in the test's own folder.
    scratch.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JARVISHUB_GENERATION_OFFLINE_LATENCY_S": "0.3",
           "TMPDIR": str(scratch)}
    env.pop("JARVISHUB_CHECKPOINT_URL", None)
    if checkpoint_url:
        env["JARVISHUB_CHECKPOINT_URL"] = checkpoint_url
    return env


def _worker(project_dir: Path, thread_id: str, mode: str, checkpoint_url: str | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(WORKER), str(project_dir), thread_id, mode],
                            env=_env(checkpoint_url, project_dir.parent / "tmp"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The canvas an uninterrupted run makes (in this process: nothing is killed, so no worker is needed)."""
    folder = tmp_path_factory.mktemp("reference") / "p"
    with Project.init(folder) as project:
        runtime = Runtime(project, model=ScriptedModel(script=script()), evaluate_generations=False)
        try:
            outcome = runtime.run("make the harbour set", thread_id="thread-ref")
            assert outcome.outcome == "replied", outcome.reply
            assert sum(runtime.services["generation"].provider_calls.values()) == GENERATIONS
        finally:
            runtime.close()
        return canvas_fingerprint(project.store)


# The kill points, each a distinct way a turn can die:
# - 1 commit + 0.25 s: inside the second image's generation (paid, not cached, not committed);
# - 3 commits + 0.3 s: inside the clip's generation, whose source is an image already committed;
# - 5 commits + 0 s: right after the last tool step's commit, before its checkpoint and the turn record
#   (the resumed step replays the commit by its key);
# - 6 commits + 0 s: right after the Turn node's commit, before the trajectory row (the resumed record step
#   replays that commit and writes the row with the same canvas version).
# Postgres checkpoints take the same resume path as SQLite's; one kill point shows they are the ones used.
@pytest.mark.parametrize("checkpoints, kill_after_commits, extra_delay_s", [
    ("sqlite", 1, 0.25), ("sqlite", 3, 0.3), ("sqlite", 5, 0.0), ("sqlite", 6, 0.0), ("postgres", 3, 0.3),
])
def test_a_killed_turn_resumes_to_the_same_canvas(request, tmp_path, reference, checkpoints, kill_after_commits,
                                                  extra_delay_s):
    url = request.getfixturevalue("postgres_url") if checkpoints == "postgres" else None
    folder = tmp_path / "p"
    workers: list[subprocess.Popen] = []
    with Project.init(folder) as project:  # this process keeps the engine up while workers come and go
        try:
            base = project.store.canvas_version()
            worker = _worker(folder, "thread-1", "run", url)
            workers.append(worker)
            deadline = time.monotonic() + 120
            while project.store.canvas_version() < base + kill_after_commits:
                assert worker.poll() is None, worker.communicate()[1]
                assert time.monotonic() < deadline
                time.sleep(0.02)
            time.sleep(extra_delay_s)
            worker.send_signal(signal.SIGKILL)
            worker.wait()
            cached_before_resume = len(SignatureCache(folder / ".jarvishub" / "generation-cache.sqlite"))

            resumed = _worker(folder, "thread-1", "resume", url)
            workers.append(resumed)
            out, err = resumed.communicate(timeout=240)
        finally:
            # A worker left running by a failed assertion would hold an engine lease, and the engine
            # would outlive the test (and its deleted folder).
            for started in workers:
                if started.poll() is None:
                    started.kill()
                    started.wait()
        assert resumed.returncode == 0, err
        result = json.loads(out.strip().splitlines()[-1])
        assert result["outcome"] == "replied"
        # Generations whose artifacts already existed were not paid for again.
        assert result["provider_calls"] == GENERATIONS - cached_before_resume
        resumed_canvas = canvas_fingerprint(project.store)
        assert resumed_canvas == reference, fingerprint_difference(resumed_canvas, reference)
        # The trajectory has the turn once, where the Turn node on the canvas says it left the canvas.
        [recorded] = TrajectoryStore(folder / ".jarvishub" / "trajectories.sqlite").turns("thread-1")
        [turn_node] = project.store.turns("thread-1")
        assert recorded["outcome"] == "replied" and recorded["manifest"]["tools"]
        assert recorded["canvas_after"] == turn_node["canvas_after"] == turn_node["canvas_version"] - 1
    if url:  # the turn's checkpoints are in Postgres, none in the project's SQLite file
        import psycopg

        with psycopg.connect(url) as connection:
            rows = connection.execute("SELECT count(*) FROM checkpoints WHERE thread_id = 'thread-1'").fetchone()
        assert rows[0] > 0
        sqlite_file = folder / ".jarvishub" / "checkpoints.sqlite"
        with sqlite3.connect(sqlite_file) as local:  # created empty and private by the project, never written
            tables = {row[0] for row in local.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "checkpoints" not in tables
