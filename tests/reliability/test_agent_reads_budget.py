"""The agent's reads have a budget of their own (issue #23): 8 concurrent turns on one project all succeed.

In the campaign one of 8 concurrent turns failed because its ``query_canvas`` was refused by the people's
2-query budget.  Here people's budget is spent for the whole test (this process holds every user slot, as two
long ``jarvishub query`` runs would), and 8 CLI processes each run a turn whose planner reads the canvas with
``query_canvas``: all must exit 0, each having made that read, while a person's query still hears "busy".
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from store.locks import ProjectLocks
from tests.reliability.engine_processes import cli_env, jarvishub, new_project

pytestmark = pytest.mark.long_file(45)

TURNS = 8
EXIT_BUSY = 75


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    with new_project(tmp_path, "note: the keeper's coat is red") as made:
        yield made


@contextlib.contextmanager
def people_budget_spent(project: Path) -> Iterator[None]:
    """Hold every user-query slot of the project (the file locks a running ``jarvishub query`` holds)."""
    locks = ProjectLocks(project / ".jarvishub" / "engine")
    with contextlib.ExitStack() as held:
        for _ in range(locks.query_slots):
            held.enter_context(locks.query_slot())
        yield


def test_eight_concurrent_turns_that_read_the_canvas_all_succeed_while_people_use_their_budget(project):
    with people_budget_spent(project):
        turns = [subprocess.Popen([sys.executable, "-m", "jarvishub.cli", "-C", str(project), "run",
                                   "which notes mention the ferry?", "--json"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env())
                 for _ in range(TURNS)]
        finished = []
        for turn in turns:
            out, err = turn.communicate(timeout=400)
            finished.append((turn.returncode, out, err))
        person = jarvishub("-C", str(project), "query", "MATCH (n:CanvasNode) RETURN count(n) AS n")
    for code, out, err in finished:
        assert code == 0, out + err
        document = json.loads(out)
        assert [step["action"].get("tool") for step in document["steps"]][0] == "query_canvas"
        assert not any((step.get("observation") or {}).get("error") for step in document["steps"])
    assert person.returncode == EXIT_BUSY and "busy" in person.stderr
