"""The user-query budget binds people's Cypher only: with every slot held, our own reads still run.

The agent's view of the canvas and the web canvas (its views of the canvas and
the live feed's edge endpoints) read with JarvisHub's own reads, outside the budget; the agent's ``query_canvas`` waits
for slots of its own; the web's ``/api/query`` and the CLI's ``query`` are user
Cypher and are refused with "busy, try again".
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

from jarvishub.web.live import change_event
from nodes.actions import ToolCall
from nodes.bridge import Usage
from nodes.grant import Grant
from nodes.view import build_view, find_focus
from store.cypher import FixedCypher
from store.errors import QueryBusy
from tests.web.conftest import REPO, TOKEN


@pytest.fixture(scope="module")
def demo_host() -> None:
    """Another process queries the demo's folder, which finds the canvas in the folder's own engine."""
    return None


pytestmark = pytest.mark.long_file(30)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)

AUTH = {"Authorization": f"Bearer {TOKEN}"}


@contextlib.contextmanager
def budget_spent(demo) -> Iterator[None]:
    """Hold every user-query slot of the demo project (file locks, as running queries of any process would)."""
    locks = demo.project.engine.locks
    with contextlib.ExitStack() as held:
        for _ in range(locks.query_slots):
            held.enter_context(locks.query_slot())
        yield


def _cli(demo, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run([sys.executable, "-m", "jarvishub.cli", "-C", str(demo.project.root), *args],
                          capture_output=True, text=True, timeout=240, env=env)


def test_with_the_budget_spent_our_own_reads_still_run_and_user_queries_hear_busy(demo, server) -> None:
    store = demo.project.store
    grant = demo.runtime.grants.save(Grant(actor="system"))
    with budget_spent(demo):
        with pytest.raises(QueryBusy):  # the control: user Cypher has no slot left
            store.query("RETURN 1 AS one")

        # The agent's view: focus found by title, lineage and summary read.
        _, focus = find_focus(store, 'redo the lighting on "Shot 1: pier, warm"', [], [])
        view = build_view(store, focus)
        assert {demo.ids["pier_warm"], demo.ids["mira"]} <= {n["id"] for n in view["focus"]} and view["summary"]

        # A node made now is in the canvas the page loads, and the live feed names the ends of a new edge.
        made = demo.runtime.bridge.submit(
            ToolCall(action_id="budget-note", tool="create_node", args={"kind": "text", "title": "made while busy"}),
            grant, Usage(), thread_id="budget")
        note = made.observation["created"]
        linked = demo.runtime.bridge.submit(
            ToolCall(action_id="budget-link", tool="link_nodes",
                     args={"type": "REFERENCES", "source": note, "target": demo.ids["mira"]}),
            grant, Usage(), thread_id="budget")
        assert linked.verdict == "allow", linked.message
        with httpx.Client(base_url=server.base_url, timeout=30) as client:
            page = client.get("/api/canvas", headers=AUTH)
            assert page.status_code == 200, page.text
            assert note in {n["id"] for n in page.json()["nodes"]}

            refused = client.post("/api/query", json={"cypher": "RETURN 1 AS one"}, headers=AUTH)
            assert refused.status_code == 429, refused.text
            assert refused.json()["error"] == "QueryBusy" and int(refused.headers["retry-after"]) >= 1
        link = store.commit_for_key("budget:budget-link")
        assert link is not None and link.edge_ids and not link.node_ids  # the link changed no node itself
        assert {note, demo.ids["mira"]} <= set(change_event(store, [link])["node_ids"])

        # The CLI: a turn succeeds; user Cypher exits 75: "busy, try again".
        ran = _cli(demo, "run", "note: written while the budget is spent", "--json")
        assert ran.returncode == 0, ran.stdout + ran.stderr
        # The request interpreter reads the project's shots with the harness's own fixed reads, not as user
        # Cypher, so a spent budget does not make the turn busy: it hears what the canvas holds (this project
        # has images titled "Shot 1", but no storyboard shots).
        relight = _cli(demo, "run", "redo the lighting on shot 1", "--json")
        assert relight.returncode == 4, relight.stdout + relight.stderr
        assert json.loads(relight.stdout)["result"] == "not_found"
        # The agent's own query_canvas reads queue for a budget of their own (issue #23): not busy either.
        # A count or a list of a kind would be answered from the view; which shots have a lighting is read.
        counted = _cli(demo, "run", "which shots are at night?", "--json")
        assert counted.returncode == 0, counted.stdout + counted.stderr
        assert any(step["action"].get("tool") == "query_canvas" for step in json.loads(counted.stdout)["steps"])
        busy = _cli(demo, "query", "RETURN 1 AS one")
        assert busy.returncode == 75, busy.stdout + busy.stderr
        assert "busy:" in busy.stderr and "try again" in busy.stderr
        as_json = _cli(demo, "query", "RETURN 1 AS one", "--json")
        assert as_json.returncode == 75 and json.loads(as_json.stdout)["exit_code"] == 75
    assert store.query("RETURN 1 AS one").rows == [{"one": 1}]  # slots given back: user Cypher runs again


def test_only_fixed_cypher_takes_the_path_outside_the_budget(demo) -> None:
    store = demo.project.store
    with pytest.raises(TypeError, match="FixedCypher"):
        store.fixed_read("MATCH (n:CanvasNode) RETURN n.id AS id")  # user text is a plain str
    # Fixed reads run on the read-only account: the engine refuses a write even there.
    before = store.canvas_version()
    with pytest.raises(Exception) as refused:
        store.fixed_read(FixedCypher("MATCH (m:CanvasMeta) SET m.version = 0 RETURN m.version AS v"))
    assert "QueryBusy" not in type(refused.value).__name__
    assert store.canvas_version() == before
