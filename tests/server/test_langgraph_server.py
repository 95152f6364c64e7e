"""JarvisHub on LangGraph's own server: `langgraph dev` on loopback, driven through `langgraph_sdk` as a LangGraph user would."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from jarvishub.project import Project
from tests.server.langgraph_dev import langgraph_dev

pytestmark = pytest.mark.long_file(25)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)

@pytest.fixture
def server(tmp_path: Path):
    """`langgraph dev` serving langgraph.json's graph for a fresh project whose `careful` profile needs approval to cut."""
    folder = tmp_path / "p"
    Project.init(folder).close()
    with (folder / "jarvishub.toml").open("a") as toml:
        toml.write('\n[grants.careful]\napproval_tools = ["assemble_cut"]\n')
    with langgraph_dev(tmp_path, folder) as running:
        yield running


def test_a_narrative_turn_with_an_approval_through_the_sdk(server):
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=server["url"])
    assistant = client.assistants.search(graph_id="supervisor")[0]
    schemas = client.assistants.get_schemas(assistant["assistant_id"])
    # The published input is what a person sends, and Studio can build a form from it.
    assert schemas["input_schema"]["required"] == ["request"]
    assert {"request", "selected_ids", "profile"} == set(schemas["input_schema"]["properties"])
    assert "outcome" in schemas["output_schema"]["properties"]

    thread = client.threads.create()
    paused = client.runs.wait(thread["thread_id"], assistant["assistant_id"],
                              input={"request": "a 2-shot short drama about a lighthouse keeper", "profile": "careful"})
    interrupts = paused["__interrupt__"]
    assert len(interrupts) == 1
    question = interrupts[0]["value"]
    assert question["type"] == "approval" and question["action"]["tool"] == "assemble_cut"
    with Project.open(server["project"]) as project:
        assert len(project.store.find_nodes(kind="image")) == 2
        assert not [n for n in project.store.find_nodes(kind="video") if n.title == "final cut"], "cut before approval"

    done = client.runs.wait(thread["thread_id"], assistant["assistant_id"], command={"resume": {"decision": "approve"}})
    assert done["outcome"] == "replied", done
    assert client.threads.get_state(thread["thread_id"])["interrupts"] == []
    with Project.open(server["project"]) as project:
        cuts = [n for n in project.store.find_nodes(kind="video") if n.title == "final cut"]
        assert len(cuts) == 1 and cuts[0].outputs and cuts[0].status.value == "completed"
        assert done["canvas_version"] == project.store.canvas_version()

    # Ctrl-C stops the server cleanly: it exits and leaves no lease of its own on the engine.
    process = server["process"]
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=120) == 0, server["log"].read_text()[-3000:]
    leases = server["project"] / ".jarvishub" / "engine" / "leases"
    assert not [p for p in leases.glob("*") if p.name.split("-")[0] == str(process.pid)]


def test_a_server_without_a_project_says_how_to_configure_it(tmp_path, monkeypatch):
    from graphs import server as graph_server

    monkeypatch.setenv("JARVISHUB_PROJECT", str(tmp_path / "not-a-project"))
    graph = graph_server.make_supervisor({})
    assert graph.checkpointer is None and {"begin", "turn", "finish"} <= set(graph.nodes)
    with pytest.raises(graph_server.ProjectNotConfigured, match="jarvishub init"):
        graph.invoke({"request": "hello"})
    assert not (tmp_path / "not-a-project").exists(), "the factory must never create a project"
