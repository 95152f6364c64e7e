"""An engine never outlives its project, and a moved or damaged project opens again (issue #23).

Each test runs the CLI as a user does, with the engine lingering for 10 minutes after the last command (the
default), then does to the project what a person does: removes it, moves it, deletes or garbles
``engine.json``, or kills the engine's supervisor.  The engine must be gone within 60 s, and the next command
must work on the same canvas.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from store import lifecycle, process
from tests.reliability.engine_processes import cli_env, gone, jarvishub, new_project, record, wait_for

pytestmark = pytest.mark.long_file(60)

LINGERING = cli_env(JARVISHUB_ENGINE_IDLE_SECONDS="600")  # the default: only what the test does may stop it
NOTE = "note: the keeper's coat is red"


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """A project with one note on its canvas and its engine lingering; every engine it started is stopped after."""
    with new_project(tmp_path, NOTE, env=LINGERING) as made:
        yield made


def _notes(folder: Path) -> dict:
    done = jarvishub("-C", str(folder), "status", "--json", env=LINGERING)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return json.loads(done.stdout)["by_kind"]


def _supervised(folder: Path) -> bool:
    info = record(folder)
    return lifecycle.is_our_engine(info, folder / ".jarvishub" / "engine") and lifecycle.supervisor_alive(info)


def test_removing_the_project_stops_its_engine_within_60_s(project):
    engine = record(project)
    shutil.rmtree(project, ignore_errors=True)
    waited = wait_for(lambda: gone(engine["pid"], engine["start_time"]), "the engine outlived its project folder")
    assert waited < 60
    wait_for(lambda: gone(engine["supervisor_pid"], engine["supervisor_start"]), "the supervisor lingers")


def test_a_moved_project_opens_again_and_so_does_a_lost_record_a_dead_engine_or_a_killed_supervisor(project):
    """One project through each mishap in turn (a cold start each), the canvas kept every time."""
    engine = record(project)
    moved = project.parent / "q"
    os.rename(project, moved)
    assert _notes(moved) == {"text": 1}, "after mv p q"
    assert gone(engine["pid"], engine["start_time"]), "the engine of the old path was stopped before a new start"
    assert _supervised(moved)
    assert lifecycle.root_path_arg(moved / ".jarvishub" / "engine") in process.cmdline(record(moved)["pid"])

    state = moved / ".jarvishub" / "engine" / "engine.json"
    for damage in ("deleted", "garbled"):
        engine = record(moved)
        if damage == "deleted":
            state.unlink()
        else:
            state.write_text("{\"pid\": \x00garbage")
        assert _notes(moved) == {"text": 1}, f"after engine.json was {damage}"
        assert gone(engine["pid"], engine["start_time"]), f"the engine whose record was {damage} still runs"
        assert _supervised(moved)

    engine = record(moved)
    os.kill(engine["pid"], signal.SIGKILL)  # a dead engine: the next command starts another
    assert _notes(moved) == {"text": 1}, "after the engine was killed"
    assert _supervised(moved)

    engine = record(moved)
    os.kill(engine["supervisor_pid"], signal.SIGKILL)
    waited = wait_for(lambda: gone(engine["pid"], engine["start_time"]), "the engine outlived its supervisor")
    assert waited < 60
    assert _notes(moved) == {"text": 1}, "after the supervisor was killed"
    assert _supervised(moved)
    stopped = jarvishub("-C", str(moved), "engine", "stop", "--json", env=LINGERING)
    assert json.loads(stopped.stdout)["stopped"] is True
