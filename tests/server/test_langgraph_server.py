"""JarvisHub on LangGraph's own server: `langgraph dev` on loopback, driven through `langgraph_sdk` as a LangGraph user would,
with a configured model (a key and ``OPENAI_BASE_URL`` in the server's environment)."""

from __future__ import annotations

import signal
import textwrap
from collections.abc import Iterator

import pytest

from jarvishub.project import Project
from tests.providers.conftest import user_env
from tests.providers.loopback import LoopbackOpenAI, ScriptedBrain
from tests.server.langgraph_dev import langgraph_dev
from tests.test_supervisor_graph import NOTES_EACH, NOTES_TWICE, TWO_NOTES
from tools.spend import SpendLedger

pytestmark = pytest.mark.long_file(40)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)

@pytest.fixture(scope="module")
def provider() -> Iterator[LoopbackOpenAI]:
    """The loopback OpenAI endpoint the server's environment names (``tests/providers/loopback.py``)."""
    with LoopbackOpenAI() as running:
        yield running


@pytest.fixture(scope="module")
def server(tmp_path_factory, provider: LoopbackOpenAI):
    """`langgraph dev` serving langgraph.json's graph for a fresh project whose `careful` profile needs approval
    to cut, with a key and the loopback endpoint in the server's environment, as a deployment's would be (one
    server for the module: starting one is the slow part).  Its skills/ folder holds a skill of two graph nodes
    and two composites of it: a sequence and a fan-out."""
    scratch = tmp_path_factory.mktemp("server")
    folder = scratch / "p"
    Project.init(folder).close()
    (folder / "skills").mkdir()
    for name, source in {"two_notes": TWO_NOTES, "notes_twice": NOTES_TWICE, "notes_each": NOTES_EACH}.items():
        (folder / "skills" / f"{name}.py").write_text(textwrap.dedent(source))
    with (folder / "jarvishub.toml").open("a") as toml:
        toml.write('\n[grants.careful]\napproval_tools = ["assemble_cut"]\n')
    with langgraph_dev(scratch, folder, user_env(provider)) as running:
        yield running


def test_a_turn_with_a_configured_model(server, provider: LoopbackOpenAI):
    """The turn's model calls and picture go to the provider the server's environment names, and its spend is
    in the project's ledger."""
    from langgraph_sdk import get_sync_client

    provider.brains["gpt-4o-mini"] = ScriptedBrain([
        {"tool": "generate_image", "arguments": {"prompt": "the harbour at dusk", "lighting": "dusk",
                                                 "title": "served", "width": 512, "height": 512}},
        {"content": "Made the harbour."}])
    client = get_sync_client(url=server["url"])
    assistant = client.assistants.search(graph_id="supervisor")[0]
    thread = client.threads.create()
    try:
        done = client.runs.wait(thread["thread_id"], assistant["assistant_id"],
                                input={"request": "an image of the harbour at dusk"})
    finally:
        del provider.brains["gpt-4o-mini"]  # the next test's agent is the planner behind the wire
    assert done["outcome"] == "replied" and done["reply"] == "Made the harbour.", done
    assert [r["model"] for r in provider.requests("images")] == ["gpt-image-1"]
    assert {r["model"] for r in provider.requests("chat")} == {"gpt-4o-mini"}  # agent and judge
    with Project.open(server["project"]) as project:
        [image] = [n for n in project.store.find_nodes(kind="image") if n.title == "served"]
        assert image.metadata["provenance"]["provider"] == "openai"
        [spent] = SpendLedger(project.state_dir / "spend.sqlite").by_turn().values()  # the one turn's
    assert spent.calls == 4 and spent.cost_usd > 0  # two agent calls, one judge call, one image


LOOP = ["begin", "observe", "resolve", "propose", "validate", "execute", "feedback", "repair", "commit", "record"]


def test_studio_sees_the_loop_and_the_skills_inside_it(server):
    """The served graph is the supervisor loop itself, and each skill is a subgraph Studio can open."""
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=server["url"])
    assistant = client.assistants.search(graph_id="supervisor")[0]
    drawn = client.assistants.get_graph(assistant["assistant_id"], xray=True)
    names = {node["id"] for node in drawn["nodes"]}
    assert set(LOOP) <= names, names
    assert {"skill__storyboard:plan", "skill__storyboard:shots", "skill__slides:deck"} <= names, names
    edges = {(e["source"], e["target"]) for e in drawn["edges"]}
    assert {("begin", "observe"), ("observe", "resolve"), ("resolve", "propose"), ("propose", "validate"), ("validate", "execute"),
            ("execute", "feedback"), ("repair", "commit"), ("record", "observe")} <= edges
    subgraphs = client.assistants.get_subgraphs(assistant["assistant_id"])
    assert {"skill__storyboard", "skill__design_to_web", "skill__slides"} <= set(subgraphs)


def test_studio_sees_a_composites_children_and_their_streamed_steps(server, provider: LoopbackOpenAI):
    """A child skill run by a composite (a sequence's step, a fan-out's work) is drawn by xray inside the
    composite's graph node, and a streamed run's subgraph events carry its steps nested under it."""
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=server["url"])
    assistant = client.assistants.search(graph_id="supervisor")[0]
    names = {node["id"] for node in client.assistants.get_graph(assistant["assistant_id"], xray=True)["nodes"]}
    assert {"skill__notes_twice:step1_two_notes:first", "skill__notes_twice:step2_two_notes:second",
            "skill__notes_each:work:first", "skill__notes_each:work:second"} <= names, names

    provider.brains["gpt-4o-mini"] = ScriptedBrain([
        {"tool": "skill__notes_twice", "arguments": {"topic": "reefs"}},
        {"tool": "skill__notes_each", "arguments": {"topics": ["kelp", "tides"]}},
        {"content": "Pinned eight notes."}])
    thread = client.threads.create()
    try:
        events = list(client.runs.stream(thread["thread_id"], assistant["assistant_id"],
                                          input={"request": "pin notes about reefs twice, then about kelp and tides"},
                                          stream_mode="updates", stream_subgraphs=True))
    finally:
        del provider.brains["gpt-4o-mini"]
    assert [e.data for e in events if e.event == "error"] == []
    nested = [(tuple(part.split(":")[0] for part in e.event.split("|")[1:]), node)
              for e in events if e.event.startswith("updates|") for node in e.data]
    assert [node for ns, node in nested if ns == ("skill__notes_twice",)] == ["step1_two_notes", "step2_two_notes"]
    assert [node for ns, node in nested if ns == ("skill__notes_twice", "step1_two_notes")] == ["first", "second"]
    assert [node for ns, node in nested if ns == ("skill__notes_twice", "step2_two_notes")] == ["first", "second"]
    assert sorted(node for ns, node in nested if ns == ("skill__notes_each", "work")) == [
        "first", "first", "second", "second"]  # one branch per topic
    with Project.open(server["project"]) as project:
        titles = {n.title for n in project.store.find_nodes(kind="text")}
    assert {"first note: reefs", "second note: reefs", "first note: kelp", "second note: tides"} <= titles


def test_a_narrative_turn_with_an_approval_through_the_sdk(server):
    """Runs last of the server's tests: it ends with the server's Ctrl-C."""
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=server["url"])
    assistant = client.assistants.search(graph_id="supervisor")[0]
    schemas = client.assistants.get_schemas(assistant["assistant_id"])
    # The published input is what a person sends, and Studio can build a form from it.
    assert schemas["input_schema"]["required"] == ["request"]
    assert {"request", "selected_ids", "profile"} == set(schemas["input_schema"]["properties"])
    assert "outcome" in schemas["output_schema"]["properties"]

    with Project.open(server["project"]) as project:
        before = {n.id for n in project.store.find_nodes(kind="image")}
    thread = client.threads.create()
    # Streamed with the subgraphs' events: the loop's graph nodes, and the storyboard skill's own steps under
    # its graph node's namespace, each of its tool calls a step through the bridge.
    events = list(client.runs.stream(thread["thread_id"], assistant["assistant_id"],
                                      input={"request": "a 2-shot short drama about a lighthouse keeper",
                                             "profile": "careful"},
                                      stream_mode="updates", stream_subgraphs=True))
    top = [node for e in events if e.event == "updates" for node in e.data]
    assert top[:5] == ["begin", "observe", "resolve", "propose", "validate"], top
    assert "skill__storyboard" in top and "__interrupt__" in top, top
    inner = [(e.event.split("|")[1].split(":")[0], node) for e in events if e.event.startswith("updates|")
             for node in e.data]
    assert [node for ns, node in inner if ns == "skill__storyboard"] == ["plan", "references", "shots", "group"]
    # The storyboard's own state was checkpointed in the server's checkpointer under its graph node: read at
    # the step that ran it, with the subgraphs' states, it is the skill's input, scratch and output.
    history = client.threads.get_history(thread["thread_id"], limit=100)
    [ran] = [h for h in history if h["next"] == ["skill__storyboard"]]
    at = client.threads.get_state(thread["thread_id"], checkpoint=ran["checkpoint"], subgraphs=True)
    [storyboard] = [t["state"] for t in at["tasks"] if t["name"] == "skill__storyboard"]
    assert storyboard["checkpoint"]["checkpoint_ns"].startswith("skill__storyboard:")
    assert storyboard["next"] == [] and storyboard["values"]["input"]["n_shots"] == 2
    made = storyboard["values"]["output"]
    assert len(made["shot_ids"]) == 2 and set(storyboard["values"]["scratch"]["shot_ids"]) == set(made["shot_ids"])
    state = client.threads.get_state(thread["thread_id"], subgraphs=True)
    [task] = [t for t in state["tasks"] if t["interrupts"]]
    assert task["name"] == "validate"  # the approval is validate's interrupt, as Studio shows it
    question = task["interrupts"][0]["value"]
    assert question["type"] == "approval" and question["action"]["tool"] == "assemble_cut"
    with Project.open(server["project"]) as project:
        shots = [n for n in project.store.find_nodes(kind="image") if n.id not in before]
        assert len(shots) == 2 and {n.metadata["provenance"]["provider"] for n in shots} == {"openai"}
        assert {n.kind for n in project.store.get_nodes(made["shot_ids"])} == {"shot"}
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
    import asyncio

    from jarvishub import langgraph_server

    monkeypatch.setenv("JARVISHUB_PROJECT", str(tmp_path / "not-a-project"))
    monkeypatch.setattr(langgraph_server, "_opened", {})
    graph = asyncio.run(langgraph_server.make_supervisor({}))
    assert graph.checkpointer is None and set(LOOP) <= set(graph.nodes)
    with pytest.raises(langgraph_server.ProjectNotConfigured, match="jarvishub init"):
        graph.invoke({"request": "hello"})
    assert not (tmp_path / "not-a-project").exists(), "the factory must never create a project"
