"""``jarvishub engine serve``: the engine stays up for outside tools, on a read-only account, until Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import neo4j
import pytest

from store import lifecycle
from store.arcadedb_security import READER_USER

from .conftest import ROOT, Served, fingerprint, jarvishub


def test_serve_prints_the_read_only_account_never_root(seeded_project, served):
    info = served.info
    state = lifecycle.read_state(seeded_project.engine.data_dir)
    assert info["uri"] == seeded_project.engine.uri and info["database"] == seeded_project.store.database
    assert info["user"] == READER_USER and info["password"] == state["reader_password"]
    assert state["password"] not in served.process.args and info["read_only"] is True
    assert info["env"] == {"NEO4J_URI": info["uri"], "NEO4J_USERNAME": READER_USER,
                           "NEO4J_PASSWORD": info["password"], "NEO4J_DATABASE": info["database"]}
    assert served.process.pid in lifecycle.engine_status(seeded_project.engine.data_dir).leases
    assert info["lingers_s"] == state["idle_seconds"]  # what the engine's reaper applies


def test_the_printed_account_reads_and_the_engine_refuses_its_writes(seeded_project, served):
    info = served.info
    before = fingerprint(seeded_project)
    with neo4j.GraphDatabase.driver(info["uri"], auth=(info["user"], info["password"])) as driver:
        rows, _, _ = driver.execute_query("MATCH (n:CanvasNode) RETURN n.title AS t ORDER BY t",
                                          database_=info["database"])
        assert [r["t"] for r in rows] == ["Mira", "harbour at dusk", "shot 7"]
        for write in ("CREATE (n:CanvasNode {id: 'evil', kind: 'text'})", "MATCH (n:CanvasNode) DETACH DELETE n",
                      "MATCH (n:CanvasNode) SET n.title = 'pwned'", "CREATE INDEX evil FOR (n:CanvasNode) ON (n.x)"):
            with pytest.raises(neo4j.exceptions.Neo4jError):
                driver.execute_query(write, database_=info["database"])
    assert fingerprint(seeded_project) == before


def test_sigterm_stops_serving_cleanly_and_gives_the_lease_back(seeded_project):
    serving = Served(seeded_project)
    data_dir = seeded_project.engine.data_dir
    assert serving.process.pid in lifecycle.engine_status(data_dir).leases
    code, err = serving.stop(signal.SIGTERM)
    assert code == 0 and "stopped serving" in err
    status = lifecycle.engine_status(data_dir)
    assert status.running and serving.process.pid not in status.leases  # the module's project still holds one


def test_serve_outside_a_project_is_a_clear_error(tmp_path, seeded_project):
    done = jarvishub(seeded_project, "-C", str(tmp_path), "engine", "serve")
    assert done.returncode == 4 and "not a JarvisHub project" in done.stderr


def test_serve_exits_1_when_the_engine_dies_under_it_and_prints_no_root_secret(tmp_path):
    folder = tmp_path / "short-lived"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(tmp_path)}
    assert subprocess.run([sys.executable, "-m", "jarvishub.cli", "init", str(folder)], env=env,
                          capture_output=True, timeout=240).returncode == 0
    serving = subprocess.Popen([sys.executable, "-m", "jarvishub.cli", "-C", str(folder), "engine", "serve"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        printed = ""
        while "after Ctrl-C" not in printed:
            line = serving.stdout.readline() if serving.stdout else ""
            assert line, "serve ended before printing its account"
            printed += line
        state = lifecycle.read_state(folder / ".jarvishub" / "engine")
        assert f"password:  {state['reader_password']}" in printed and state["password"] not in printed
        assert f"user:      {READER_USER}" in printed
        stopped = subprocess.run([sys.executable, "-m", "jarvishub.cli", "-C", str(folder), "engine", "stop"],
                                 env=env, capture_output=True, text=True, timeout=120)
        assert stopped.returncode == 0 and "stopped" in stopped.stdout
        _, err = serving.communicate(timeout=60)
        assert serving.returncode == 1 and "the engine stopped" in err
    finally:
        if serving.poll() is None:
            serving.kill()
            serving.wait()


def test_stop_on_exit_stops_the_engine_when_serving_ends(tmp_path):
    folder = tmp_path / "stop-on-exit"
    # A long idle period: only --stop-on-exit, not the reaper, can stop the engine within this test.
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(tmp_path),
           "JARVISHUB_ENGINE_IDLE_SECONDS": "600"}
    assert subprocess.run([sys.executable, "-m", "jarvishub.cli", "init", str(folder)], env=env,
                          capture_output=True, timeout=240).returncode == 0
    serving = subprocess.Popen(
        [sys.executable, "-m", "jarvishub.cli", "-C", str(folder), "engine", "serve", "--json", "--stop-on-exit"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    data_dir = folder / ".jarvishub" / "engine"
    try:
        info = json.loads(serving.stdout.readline() if serving.stdout else "{}")
        status = lifecycle.engine_status(data_dir)
        assert info["lingers_s"] is None and status.running and status.idle_seconds == 600
        serving.send_signal(signal.SIGINT)
        _, err = serving.communicate(timeout=60)
        assert serving.returncode == 0, err
        assert not lifecycle.engine_status(data_dir).running  # stopped before serve returned, not by the reaper
    finally:
        if serving.poll() is None:
            serving.kill()
            serving.wait()
        lifecycle.stop_engine(data_dir)
