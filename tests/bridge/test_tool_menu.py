"""The tool menu of a model call (issue #21): shaped by the turn's intent under any grant, and never a cage.

One real project for the module, with a page built by the offline planner and a grant profile that grants
everything.  A local page edit under that profile is offered the page's tools and no canvas read; a count
question is answered from the view's counts in one model call; a model that needs a granted tool it was not
offered asks for it with ``more_tools`` (the only way a real model can: it calls what it was sent the schemas
of) and is offered it from its next call on, a model that calls one anyway is served, and a call outside the
grant is refused as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from langchain_core.messages import SystemMessage

from jarvishub.project import DEFAULT_PROJECT_FILE, Project
from jarvishub.runtime import Runtime
from nodes.manifest import canvas_reading_tools
from nodes.menu import MORE_TOOLS, named_tools
from nodes.models.offline import OfflinePlanner
from nodes.models.scripted import ScriptedModel
from tests.system_tools import require_system_tool

EVERYTHING = "\n[grants.everything]\nactor = \"agent\"\n"
"""A profile with no limits: every tool of the manifest, the whole canvas."""


class Recorded:
    """What each model call of a test was sent: the tool names bound, and the system message."""

    offered: ClassVar[list[list[str]]] = []
    named: ClassVar[list[set[str]]] = []
    systems: ClassVar[list[str]] = []

    @classmethod
    def clear(cls) -> None:
        cls.offered, cls.named, cls.systems = [], [], []

    @classmethod
    def note(cls, names: list[str], messages: list[Any], schemas: list[dict[str, Any]] = ()) -> None:
        cls.offered.append([n for n in names if n != MORE_TOOLS])
        cls.named.append(named_tools(schemas))
        cls.systems.append(str(messages[0].content) if isinstance(messages[0], SystemMessage) else "")


class RecordingPlanner(OfflinePlanner):
    """The offline planner, remembering what each call was sent."""

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        Recorded.note([t["function"]["name"] for t in self.bound_tools], messages, self.bound_tools)
        return super()._generate(messages, stop, run_manager, **kwargs)


class RecordingScript(ScriptedModel):
    """A scripted model, remembering what each call was sent."""

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        Recorded.note(self.bound_tool_names, messages)
        return super()._generate(messages, stop, run_manager, **kwargs)


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    """A project whose file has the ``everything`` profile, with a bakery page built by the offline planner."""
    require_system_tool("chromium", apt="chromium")  # a page is rendered to its preview
    folder = tmp_path_factory.mktemp("menu") / "p"
    folder.mkdir()
    (folder / "jarvishub.toml").write_text(DEFAULT_PROJECT_FILE.format(name="p") + EVERYTHING)
    project = Project.init(folder)
    runtime = Runtime(project)
    try:
        built = runtime.run("a website for a bakery: warm, rustic, with photos of fresh bread")
        assert built.outcome == "replied", built.reply
    finally:
        runtime.close()
    yield project
    project.close()


def _page(project: Project) -> str:
    return next(n.id for n in project.store.find_nodes(kind="code") if n.status.value != "rejected")


def test_a_local_page_edit_under_a_profile_that_grants_everything_is_offered_no_canvas_read(web):
    Recorded.clear()
    runtime = Runtime(web, model=RecordingPlanner())
    try:
        page = _page(web)
        outcome = runtime.run("make the hero full-bleed", profile="everything")
        grant = runtime.grants.get(outcome.grant_id)
        reads = set(canvas_reading_tools(runtime.manifest))
    finally:
        runtime.close()
    assert outcome.outcome == "replied", outcome.reply
    assert grant.tools is None and grant.allows_tool("query_canvas")  # the grant stays what the profile says
    assert Recorded.offered and all(not reads & set(names) for names in Recorded.offered), Recorded.offered
    assert "skill__web_revise" in Recorded.offered[0] and len(Recorded.offered[0]) <= 4, Recorded.offered[0]
    # The rest of the grant is named by the menu's own tool, so a model that needs a read (or anything else
    # granted) can ask for it.
    assert {"query_canvas", "read_node", "generate_image"} <= Recorded.named[0], Recorded.named[0]
    assert _page(web) != page  # the page was revised: a new current version


def test_a_count_question_is_answered_from_the_view_in_one_model_call(web):
    Recorded.clear()
    runtime = Runtime(web, model=RecordingPlanner())
    try:
        images = web.store.count_nodes(by="kind").get("image", 0)
        counted = runtime.run("how many images are there")
        listed = runtime.run("which notes mention the oven?")
    finally:
        runtime.close()
    assert counted.outcome == "replied" and counted.reply == f"{images} found.", counted.reply
    assert images > 0 and sum(s.get("model_calls") or 0 for s in counted.steps) == 1, counted.steps
    assert not [s for s in counted.steps if (s.get("action") or {}).get("kind") == "tool_call"]
    # A question the view cannot answer (what notes say) still reads the canvas.
    assert listed.outcome == "replied" and listed.steps[0]["action"]["tool"] == "query_canvas"


def test_a_granted_tool_left_off_the_menu_is_asked_for_and_offered_one_called_anyway_is_served_and_one_outside_the_grant_is_refused(web):
    Recorded.clear()
    page = _page(web)
    runtime = Runtime(web, model=RecordingScript(script=[
        {"name": "read_node", "args": {"node_id": page}},  # granted, not offered: called anyway
        {"name": MORE_TOOLS, "args": {"names": ["query_canvas", "generate_image", "no_such_tool"]}},
        {"name": "query_canvas", "args": {"cypher": "MATCH (n:CanvasNode) RETURN count(n) AS nodes"}},
        {"name": "generate_image", "args": {"prompt": "bread", "width": 64, "height": 64}},
        "done"]))
    try:
        outcome = runtime.run("make the hero full-bleed")
        grant = runtime.grants.get(outcome.grant_id)
    finally:
        runtime.close()
    assert grant.allows_tool("read_node") and grant.allows_tool("query_canvas")
    assert not grant.allows_tool("generate_image")
    first, second, third = Recorded.offered[:3]
    assert "read_node" not in first and "query_canvas" not in first and "skill__web_revise" in first, first
    assert "read_node" in second and "query_canvas" not in second  # called once, offered from then on
    assert "query_canvas" in third and "generate_image" not in third, third  # asked for: offered; never granted
    served = outcome.steps[0]
    assert served["action"]["tool"] == "read_node" and served["verdict"]["verdict"] == "allow"
    assert served["observation"]["node"]["id"] == page
    lineage = outcome.steps[1]
    assert lineage["action"]["tool"] == "query_canvas" and lineage["verdict"]["verdict"] == "allow"
    refused = outcome.steps[2]
    assert refused["verdict"]["verdict"] == "reject" and refused["verdict"]["reason"] == "tool_not_granted"
    # The ask was a model call of its own, counted with the step it came before.
    assert lineage["model_calls"] == 2 and served["model_calls"] == 1, [s.get("model_calls") for s in outcome.steps]


def test_the_offline_planner_asks_for_a_granted_tool_left_off_its_menu_before_it_calls_it():
    """A model can call only what it was sent the schemas of: the offline planner behaves so too (it must not
    read the canvas through a tool a real model could not have called)."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    from nodes.menu import ToolMenu, answer_ask, more_tools_schema
    from nodes.propose import SYSTEM_PROMPT

    menu = ToolMenu(offered=[], named=["query_canvas", "read_node"])
    conversation = [SystemMessage(SYSTEM_PROMPT + "\n\nThe canvas holds 3 nodes."), HumanMessage("list the images")]
    asked = OfflinePlanner().bind_tools([more_tools_schema(menu)]).invoke(conversation)
    assert asked.tool_calls and asked.tool_calls[0]["name"] == MORE_TOOLS
    assert asked.tool_calls[0]["args"] == {"names": ["query_canvas"]}
    given, answer = answer_ask(menu, asked.tool_calls[0]["args"])
    assert given == ["query_canvas"]
    wider = ToolMenu(offered=["query_canvas"], named=["read_node"])
    schemas = [{"type": "function", "function": {"name": "query_canvas", "description": "read the canvas",
                                                  "parameters": {"type": "object", "properties": {}}}},
               more_tools_schema(wider)]
    conversation += [asked, ToolMessage(content=answer, tool_call_id=asked.tool_calls[0]["id"])]
    called = OfflinePlanner().bind_tools(schemas).invoke(conversation)
    assert called.tool_calls and called.tool_calls[0]["name"] == "query_canvas", called
