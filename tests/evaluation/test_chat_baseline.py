"""The chat-history baseline: it edits the right shot from its transcript alone, and it cannot read the canvas.

A short session on one thread: the 9-shot story of ``tests/requests/canvas_checks.py`` (scripted model,
small media), then two edits by shot number planned by the real transcript planner.  The planner is wrapped
only to keep a copy of what it was sent, so the assertions are on what the model actually received.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import Field

from graphs import chat_baseline
from graphs.chat_baseline import SYSTEM_PROMPT
from jarvishub.chat_runtime import ChatRuntime, canvas_reading_tools
from jarvishub.runtime import Runtime
from nodes.models.scripted import ScriptedModel
from nodes.models.transcript import TranscriptPlanner
from tests.requests.canvas_checks import build_story, check_invariants, current_outputs, hashes
from tools.generate.measure import image_stats

THREAD = "baseline-session"
EDITS = ("make shot 3 darker", "redo shot 5 with a wider angle")
CANVAS_READS = {"query_canvas", "read_node", "read_lineage", "list_attempts", "verify_artifacts"}
STEP_KEYS = {"model_calls", "model_input_bytes", "tool_schema_bytes", "max_call_bytes", "action", "verdict",
             "observation", "commit", "provider_calls", "cache_hits", "rebuilds"}


class SeeingPlanner(TranscriptPlanner):
    """The real transcript planner, keeping a copy of every call's messages and bound tool names."""

    seen: list[dict[str, Any]] = Field(default_factory=list)

    def bind_tools(self, tools: list[Any], **kwargs: Any) -> SeeingPlanner:  # type: ignore[override]
        return super().bind_tools(tools, **kwargs).model_copy(update={"seen": self.seen})  # share the log

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any):
        self.seen.append({"messages": list(messages), "tools": [t["function"]["name"] for t in self.bound_tools]})
        return super()._generate(messages, *args, **kwargs)


@pytest.fixture(scope="module")
def session(project):
    """The story built on one thread, then the two edits on the same thread; returns what each step saw."""
    made: list[ChatRuntime] = []

    def on_the_thread(**kwargs: Any) -> ChatRuntime:
        runtime = ChatRuntime(project, **kwargs)
        made.append(runtime)
        runtime.run = functools.partial(runtime.run, thread_id=THREAD)  # type: ignore[method-assign]
        return runtime

    build_story(on_the_thread)
    planner = SeeingPlanner()
    runtime = ChatRuntime(project, model=planner)
    made.append(runtime)
    store = project.store
    edits = []
    for request in EDITS:
        before = {"hashes": hashes(store), "outputs": current_outputs(store)}
        outcome = runtime.run(request, thread_id=THREAD)
        edits.append({"request": request, "outcome": outcome, "before": before, "after": hashes(store)})
    yield {"runtime": runtime, "planner": planner, "edits": edits}
    for runtime in made:
        runtime.close()


def test_edits_by_shot_number_change_that_shot_and_what_depends_on_it(session, project):
    darker, wider = session["edits"]
    for edit, shot in ((darker, 3), (wider, 5)):
        assert edit["outcome"].outcome == "replied", edit["outcome"].reply
        changed = sorted(t for t in edit["before"]["hashes"] if edit["before"]["hashes"][t] != edit["after"][t])
        assert changed == ["final cut", f"shot {shot} clip", f"shot {shot} image"], edit["request"]
    check_invariants(project.store)
    old = darker["before"]["outputs"]["shot 3 image"]
    new = current_outputs(project.store)["shot 3 image"]
    luma = [image_stats(project.artifacts.read_bytes(n.outputs[0])).mean_brightness for n in (old, new)]
    assert luma[1] < luma[0]
    assert current_outputs(project.store)["shot 5 image"].inputs["framing"] == "wide"


def test_the_saved_grants_hold_no_canvas_reading_tool(session):
    runtime = session["runtime"]
    assert set(canvas_reading_tools(runtime.manifest)) == CANVAS_READS
    # The canvas agent's policy grants them for the same request: the removal is what keeps them out.
    assert "query_canvas" in Runtime.derive_grant(runtime, EDITS[0]).tools
    turns = runtime.trajectories.turns(THREAD)
    assert len(turns) == 1 + len(EDITS)
    for turn in turns:
        saved = runtime.grants.get(turn["grant"]["id"])
        assert saved.tools is not None and saved.tools
        assert not CANVAS_READS & set(saved.tools)


def test_the_model_got_its_transcript_only(session):
    seen = session["planner"].seen
    assert seen, "the planner was never called"
    for call in seen:
        assert call["tools"] and not CANVAS_READS & set(call["tools"])
        messages = call["messages"]
        assert isinstance(messages[0], SystemMessage) and messages[0].content == SYSTEM_PROMPT
        assert not any(isinstance(m, SystemMessage) for m in messages[1:])
        requests = [m.content for m in messages if isinstance(m, HumanMessage)]
        assert requests == ["build the story", *EDITS][:len(requests)]
        for message in messages:
            if isinstance(message, ToolMessage):  # tool results only, as the bridge answered them
                assert set(json.loads(message.content)) <= {"observation", "feedback", "repair", "rejected",
                                                            "reason", "message"}
            assert "canvas_version" not in str(message.content)
    # The last edit's transcript holds the whole session: the first turn's calls and both edits' calls.
    last = seen[-1]["messages"]
    assert sum(1 for m in last if isinstance(m, AIMessage) and m.tool_calls) >= 4 + 2 + 2


def test_trajectories_have_the_keys_of_the_canvas_agent(session, project):
    runtime = session["runtime"]
    edit_turns = runtime.trajectories.turns(THREAD)[1:]
    for turn, edit in zip(edit_turns, session["edits"]):
        assert turn["turn_id"] == edit["outcome"].turn_id and turn["outcome"] == "replied"
        assert turn["started_at"] <= turn["finished_at"]
        assert [s["action"]["tool"] for s in turn["steps"][:-1]] == ["mark_stale", "regenerate_stale"]
        for step in turn["steps"]:
            assert STEP_KEYS <= set(step)
            assert step["model_calls"] == 1 and step["max_call_bytes"] == step["model_input_bytes"] > 0
            assert 0 < step["tool_schema_bytes"] < step["model_input_bytes"]
        assert sum(s["provider_calls"] for s in turn["steps"]) == 3  # the image, its clip, the cut
    # The transcript grows: each step shows the model more than the one before.
    sizes = [s["model_input_bytes"] for t in edit_turns for s in t["steps"]]
    assert sizes == sorted(sizes)
    recorded = {t["id"] for t in project.store.turns(THREAD)}
    assert {t["turn_id"] for t in edit_turns} <= recorded


def test_a_shot_its_transcript_never_saw_is_a_question_not_a_guess(session, project):
    runtime = session["runtime"]
    before = hashes(project.store)
    outcome = runtime.run("make shot 2 darker", thread_id="baseline-fresh")  # shot 2 exists, not in this thread
    assert outcome.outcome == "clarification"
    assert outcome.clarification["reason"] == "not_found"
    assert "in my transcript" in outcome.clarification["question"]
    assert not [s for s in outcome.steps if (s.get("action") or {}).get("kind") == "tool_call"]
    assert hashes(project.store) == before


def test_a_query_canvas_call_is_refused_by_the_bridge(session, project, monkeypatch):
    runtime = session["runtime"]
    bound: list[list[str]] = []

    def every_tool(deps, grant):  # the filter of the bound tool list, switched off
        schemas = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                     "parameters": t.parameters}} for t in deps.bridge.manifest.tools]
        bound.append([s["function"]["name"] for s in schemas])
        return schemas

    monkeypatch.setattr(chat_baseline, "bound_tools", every_tool)
    attacker = ChatRuntime(project, model=ScriptedModel(script=[
        {"name": "query_canvas", "args": {"cypher": "MATCH (n:CanvasNode) RETURN n.id AS id, n.title AS title"}},
        "done"]))
    try:
        outcome = attacker.run("list what you made", thread_id="baseline-attack")
        state = attacker.graph.get_state({"configurable": {"thread_id": "baseline-attack"}}).values
    finally:
        attacker.close()
    assert bound and "query_canvas" in bound[0]
    first = outcome.steps[0]
    assert first["action"]["tool"] == "query_canvas"
    assert first["verdict"]["verdict"] == "reject" and first["verdict"]["reason"] == "tool_not_granted"
    assert first["observation"] is None and first["provider_calls"] == 0
    answer = json.loads(next(m for m in state["messages"] if isinstance(m, ToolMessage)).content)
    assert answer["rejected"] is True and "rows" not in json.dumps(answer)
