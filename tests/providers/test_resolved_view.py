"""A local edit needs no lookup: the resolve step puts the request's targets in the model's view (#21).

A configured model (a script behind the loopback OpenAI server) reads the shot's current image id from the view's
targets table and repairs it in one call; the offline planner does the same.  Either way the turn is two model
calls (the repair and the reply), and the canvas shows the change on that shot alone.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from langchain_core.messages import SystemMessage

from jarvishub.runtime import Runtime
from nodes.actions import ToolCall
from nodes.bridge import Usage
from nodes.grant import Grant
from nodes.models.offline import OfflinePlanner
from nodes.view import LISTED_MAX, listed_lines, read_listed
from store.models import Direction, EdgeType, NodeStatus
from tests.providers.loopback import ScriptedBrain
from tests.providers.test_python_api import runtime_with


@pytest.fixture(scope="module")
def project(own_engine_project: Any) -> Any:
    """Its tests open the project's folder again, which finds the canvas in the folder's own engine."""
    return own_engine_project


pytestmark = pytest.mark.long_file(25)


class CountingPlanner(OfflinePlanner):
    """The offline planner, keeping the system message of every call it answers."""

    seen: list[str] = []

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        type(self).seen.append(next(str(m.content) for m in messages if isinstance(m, SystemMessage)))
        return super()._generate(messages, stop, run_manager, **kwargs)


@pytest.fixture(scope="module")
def story(project) -> dict[str, str]:
    """A 3-shot story on this module's own project (the providers' shared one is left without a story: a
    request is read by what the project holds), made offline: shot title -> shot id."""
    runtime = Runtime(project, model=OfflinePlanner(), evaluate_generations=False)
    try:
        built = runtime.run("a 3-shot short drama about a ferryman and a lantern", thread_id="view-story")
        assert built.outcome == "replied", built.reply
    finally:
        runtime.close()
    return {n.title: n.id for n in project.store.find_nodes(kind="shot")}


def current_image(store: Any, shot_id: str) -> Any:
    """The live image drawn for a shot."""
    made = store.neighbours(shot_id, [EdgeType.GENERATED_FROM], Direction.IN)
    [image] = [m.node for m in made if m.node.kind == "image" and m.node.status != NodeStatus.REJECTED]
    return image


def target_row(system: str, title: str) -> dict[str, str]:
    """The view's targets table row of ``title``, by column name."""
    lines = system.split("## targets")[1].splitlines()[1:]
    header = [h.strip() for h in lines[0].split("|")]
    for line in lines[1:]:
        cells = [c.strip() for c in line.split("|")]
        if len(cells) == len(header) and cells[header.index("title")] == title:
            return dict(zip(header, cells))
    raise AssertionError(f"no target row for {title!r} in:\n{system}")


def test_a_configured_model_repairs_the_target_the_view_resolved_without_a_lookup(monkeypatch, loopback,
                                                                                     project, story):
    store = project.store
    before = {title: current_image(store, shot) for title, shot in story.items()}
    read: dict[str, Any] = {}

    def repair_from_the_view(messages: list[dict[str, Any]]) -> dict[str, Any]:
        system = next(m["content"] for m in messages if m["role"] == "system")
        read["bytes"] = len(system.encode("utf-8"))
        image = target_row(system, "shot 2")["image (what changes)"]
        read["image"] = image
        return {"tool": "repair", "arguments": {"targets": [image], "changes": {image: {"lighting": "night"}}}}

    loopback.brains["agent-view"] = ScriptedBrain([repair_from_the_view, {"content": "Shot 2 is at night now."}])
    with runtime_with(monkeypatch, loopback, project.root, JARVISHUB_MODEL="agent-view") as runtime:
        asked_before = len(loopback.requests("chat"))
        outcome = runtime.run("put shot 2 at night", thread_id="view-configured")
    assert outcome.outcome == "replied", outcome.reply
    agent_calls = [r for r in loopback.requests("chat")[asked_before:] if r["body"].get("tools")]
    assert len(agent_calls) == 2  # the repair and the reply: no lookup
    assert [(s.get("action") or {}).get("tool") for s in outcome.steps] == ["repair", None]
    assert read["image"] == before["shot 2"].id and read["bytes"] <= 2048

    after = {title: current_image(store, shot) for title, shot in story.items()}
    assert after["shot 2"].inputs["lighting"] == "night" and after["shot 2"].id != before["shot 2"].id
    assert {e.node.id for e in store.neighbours(after["shot 2"].id, [EdgeType.VERSION_OF])} == {before["shot 2"].id}
    assert store.get_node(before["shot 2"].id).status == NodeStatus.REJECTED
    assert after["shot 1"].id == before["shot 1"].id and after["shot 3"].id == before["shot 3"].id


def test_the_offline_planner_edits_in_two_calls_with_a_small_view(project, story):
    store = project.store
    before = current_image(store, story["shot 3"])
    cut_before = [n for n in store.find_nodes(kind="video") if n.title == "final cut" and n.status != NodeStatus.REJECTED]
    CountingPlanner.seen = []
    runtime = Runtime(project, model=CountingPlanner(), evaluate_generations=False)
    try:
        outcome = runtime.run("make shot 3 darker", thread_id="view-offline")
    finally:
        runtime.close()
    assert outcome.outcome == "replied", outcome.reply
    assert [(s.get("action") or {}).get("tool") for s in outcome.steps] == ["repair", None]
    assert len(CountingPlanner.seen) == 2 and max(len(s.encode("utf-8")) for s in CountingPlanner.seen) <= 2048
    row = target_row(CountingPlanner.seen[0], "shot 3")
    assert row["image (what changes)"] == before.id and re.search(r"\bexposure=", row["values"])
    after = current_image(store, story["shot 3"])
    assert after.inputs["exposure"] == pytest.approx(float(before.inputs.get("exposure") or 0.0) - 0.6)
    cut_after = [n for n in store.find_nodes(kind="video") if n.title == "final cut" and n.status != NodeStatus.REJECTED]
    assert len(cut_after) == 1 and cut_after[0].id not in {c.id for c in cut_before}  # the cut was rebuilt once


def test_repair_refuses_what_it_cannot_rebuild_and_asks_approval_where_its_parts_would(project, story):
    runtime = Runtime(project, model=OfflinePlanner(), evaluate_generations=False)
    try:
        grant = runtime.grant_for("everything")
        note = runtime.bridge.submit(ToolCall(action_id="view-note", tool="create_node",
                                              args={"kind": "text", "title": "view note"}), grant, Usage(),
                                     thread_id="view-errors").observation["created"]
        version = project.store.canvas_version()
        plain = runtime.bridge.submit(ToolCall(action_id="view-r1", tool="repair", args={"targets": [note]}), grant,
                                      Usage(), thread_id="view-errors")
        assert "nothing live was generated from it" in plain.observation["error"]
        image = current_image(project.store, story["shot 1"]).id
        stray = runtime.bridge.submit(ToolCall(action_id="view-r2", tool="repair", args={
            "targets": [image], "changes": {story["shot 2"]: {"lighting": "night"}}}), grant, Usage(),
            thread_id="view-errors")
        assert "not targets" in stray.observation["error"]
        assert project.store.canvas_version() == version  # neither wrote anything
        # A grant that wants a person to approve the rebuild wants it for the repair that includes it.
        careful = runtime.grants.save(Grant(approval_tools=["regenerate_stale"]))
        asked = runtime.bridge.validate(ToolCall(action_id="view-r3", tool="repair", args={"targets": [image]}),
                                        careful, Usage())
        assert asked.verdict == "needs_approval"
        assert runtime.bridge.validate(ToolCall(action_id="view-r4", tool="repair", args={"targets": [image]}),
                                       grant, Usage()).verdict == "allow"
    finally:
        runtime.close()


def _listed_turn(project, request: str, thread: str) -> tuple[Any, list[str]]:
    CountingPlanner.seen = []
    runtime = Runtime(project, model=CountingPlanner(), evaluate_generations=False)
    try:
        return runtime.run(request, thread_id=thread), list(CountingPlanner.seen)
    finally:
        runtime.close()


def _live(store: Any, kind: str) -> list[Any]:
    return sorted((n for n in store.find_nodes(kind=kind)), key=lambda n: (n.created_at, n.id))


def test_a_list_question_is_answered_from_the_view_in_one_call_with_every_live_node(project, story):
    images = _live(project.store, "image")
    outcome, seen = _listed_turn(project, "list the images", "view-list")
    assert outcome.outcome == "replied", outcome.reply
    assert len(seen) == 1 and [s.get("action", {}).get("tool") for s in outcome.steps] == [None]
    assert outcome.reply.splitlines() == [f"- {n.title} ({n.status.value}) {n.id}" for n in images]
    assert "## listed: every live image" in seen[0] and len(seen[0].encode("utf-8")) <= 4096


def test_a_list_longer_than_the_view_holds_is_looked_up_and_still_complete(project, story):
    runtime = Runtime(project, model=OfflinePlanner(), evaluate_generations=False)
    try:
        for number in range(LISTED_MAX + 1):
            assert runtime.run(f"note: call the ferry office, item {number}", thread_id="view-notes").outcome == "replied"
    finally:
        runtime.close()
    notes = _live(project.store, "text")
    assert len(notes) > LISTED_MAX
    outcome, seen = _listed_turn(project, "list the notes", "view-list-long")
    assert outcome.outcome == "replied", outcome.reply
    assert "## listed:" not in seen[0]
    assert [(s.get("action") or {}).get("tool") for s in outcome.steps] == ["query_canvas", None]
    assert outcome.reply.splitlines() == [f"- {n.title} ({n.status.value}) {n.id}" for n in notes]


def test_a_listing_cut_to_fit_the_view_is_not_read_as_the_whole_list():
    whole = listed_lines("slide", [("a1", "Intro | why", "completed"), ("b2", None, "stale")])
    assert read_listed("\n".join(whole)) == ("slide", [{"id": "a1", "title": "Intro | why", "status": "completed"},
                                                       {"id": "b2", "title": "", "status": "stale"}])
    for cut in range(len(whole)):
        assert read_listed("\n".join(whole[:cut])) is None
    for broken in ("two\nlines", "two\u2028lines", "form\x0cfeed"):  # anything splitlines() would split
        assert listed_lines("slide", [("a1", broken, "completed")]) == []
    assert listed_lines("slide", [(f"n{i}", "t", "completed") for i in range(LISTED_MAX + 1)]) == []
