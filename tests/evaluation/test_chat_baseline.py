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
from nodes.grant import Grant
from nodes.models.playbooks import PriorCall
from nodes.models.scripted import ScriptedModel
from nodes.models.transcript import TranscriptPlanner
from tests.requests.canvas_checks import build_story, check_invariants, current_outputs, hashes
from tools.generate.measure import image_stats

pytestmark = pytest.mark.long_file(30)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)

THREAD = "baseline-session"
EDITS = ("make shot 3 darker", "redo shot 5 with a wider angle")
CANVAS_READS = {"query_canvas", "read_node", "read_lineage", "list_attempts", "verify_artifacts", "list_versions",
                "compare_versions"}
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
    turns = runtime.trajectories.turns(THREAD)[:1 + len(EDITS)]
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
    # The last edit's transcript holds the whole session: the first turn's calls and both edits' repair calls.
    last = seen[-1]["messages"]
    assert sum(1 for m in last if isinstance(m, AIMessage) and m.tool_calls) >= 4 + 1 + 1  # story, two repairs


def test_trajectories_have_the_keys_of_the_canvas_agent(session, project):
    runtime = session["runtime"]
    edit_turns = runtime.trajectories.turns(THREAD)[1:]
    for turn, edit in zip(edit_turns, session["edits"]):
        assert turn["turn_id"] == edit["outcome"].turn_id and turn["outcome"] == "replied"
        assert turn["started_at"] <= turn["finished_at"]
        assert [s["action"]["tool"] for s in turn["steps"][:-1]] == ["repair"]  # the same tools as the canvas agent
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


def test_an_action_that_needs_approval_pauses_and_resumes_on_the_transcript(session, project):
    runtime = session["runtime"]
    outcome = runtime.run("make shot 7 night", thread_id=THREAD, grant=Grant(approval_tools=["regenerate_stale"]))
    assert outcome.outcome == "interrupted" and outcome.interrupt["type"] == "approval"
    # Its prompt does not list what needs approval (the canvas agent's view does), so it repairs in one call and
    # the bridge asks the person before that call regenerates anything.
    assert runtime.pending(THREAD)["action"]["tool"] == "repair"
    assert not CANVAS_READS & set(runtime.grants.get(outcome.grant_id).tools or ["all"])  # an explicit grant too
    before = hashes(project.store)
    done = runtime.resume(THREAD, "approve")
    assert done.outcome == "replied" and runtime.pending(THREAD) is None
    after = hashes(project.store)
    assert sorted(t for t in before if before[t] != after[t]) == ["final cut", "shot 7 clip", "shot 7 image"]
    assert current_outputs(project.store)["shot 7 image"].inputs["lighting"] == "night"


def test_a_question_after_a_fold_does_not_fold_again_on_resume(project):
    """The summariser's call is made (and paid for, and counted) once per fold, even when the step then pauses
    on a question: LangGraph re-runs a paused graph node from its start on resume, so the fold is its own node."""
    from graphs.chat_context import SUMMARISER_PROMPT, Summarised
    from nodes.models.playbooks import ANSWER_PREFIX

    summarised: list[int] = []

    def reply(messages: list[BaseMessage]) -> AIMessage:
        if str(messages[0].content) == SUMMARISER_PROMPT:
            summarised.append(len(messages))
            return AIMessage(content="the person said hello")
        if "pick" not in str(next(m for m in reversed(messages) if isinstance(m, HumanMessage)
                                  and not str(m.content).startswith(ANSWER_PREFIX)).content):
            return AIMessage(content="Hello.")
        if str(messages[-1].content).startswith(ANSWER_PREFIX):
            return AIMessage(content="Picked the first.")
        return AIMessage(content="Which one?", additional_kwargs={"clarification": {
            "reason": "ambiguous", "question": "Which one?", "candidates": [{"id": "a"}, {"id": "b"}]}})

    # A window smaller than the tool schemas: every turn before the one in progress is folded.
    runtime = ChatRuntime(project, model=ScriptedModel(script=[reply] * 20), context=Summarised(max_tokens=100))
    try:
        assert runtime.run("hello", thread_id="fold-then-ask").outcome == "replied"
        assert summarised == []  # nothing older than the turn in progress to fold
        paused = runtime.run("pick one of them", thread_id="fold-then-ask")
        assert paused.outcome == "interrupted" and summarised and len(summarised) == 1
        done = runtime.resume("fold-then-ask", "a")
        assert done.outcome == "replied", done
        assert len(summarised) == 1  # not asked to fold the same messages again
        [step] = runtime.trajectories.steps("fold-then-ask", done.turn_id)
        assert step["model_calls"] == 3  # the fold, the question, the call after the answer: the fold once
    finally:
        runtime.close()


# -- the transcript planner on hand-written transcripts (no engine) ------------------------------------------

def _ids(prefix: str, n: int) -> list[str]:
    return [f"01{prefix}{i:0>{24 - len(prefix)}}" for i in range(1, n + 1)]


def _transcript(*turns: tuple[str, list[tuple[str, dict[str, Any], dict[str, Any]]]]) -> list[BaseMessage]:
    """Messages of a thread: each turn a request and its (tool, args, answer) calls, as the chat graph writes them."""
    messages: list[BaseMessage] = [SystemMessage(content=SYSTEM_PROMPT)]
    count = 0
    for request, calls in turns:
        messages.append(HumanMessage(content=request))
        for tool, args, answer in calls:
            count += 1
            messages.append(AIMessage(content="", tool_calls=[{"name": tool, "args": args, "id": f"t-s{count}"}]))
            messages.append(ToolMessage(content=json.dumps(answer), tool_call_id=f"t-s{count}"))
        messages.append(AIMessage(content="done"))
    return messages


SHOTS, IMAGES, CLIPS = _ids("SH", 3), _ids("IM", 3), _ids("CL", 3)
PLAN, CUT = _ids("PL", 1)[0], _ids("CU", 1)[0]
STORY = ("a 3-shot short drama", [
    ("skill__storyboard", {"premise": "p", "n_shots": 3},
     {"observation": {"plan_id": PLAN, "shot_ids": SHOTS, "character_id": _ids("CH", 1)[0],
                      "scene_id": _ids("SC", 1)[0], "group_id": _ids("GR", 1)[0]}}),
    ("skill__reference_images", {"shot_ids": SHOTS, "lighting": "warm"}, {"observation": {"image_ids": IMAGES}}),
    ("skill__video_clips", {"image_ids": IMAGES}, {"observation": {"clip_ids": CLIPS}}),
    ("assemble_cut", {"clip_node_ids": CLIPS, "title": "final cut"}, {"observation": {"node_id": CUT}}),
])


def _next(messages: list[BaseMessage]):
    planner = TranscriptPlanner()
    planner_input = planner.read(messages)
    planner_input.tools = {"mark_stale", "regenerate_stale", "skill__web_revise", "skill__explore", "link_nodes",
                           "set_status"}
    return planner.decide(planner_input)


def test_the_transcript_planner_finds_the_current_image_and_its_values_in_earlier_results():
    new_image = _ids("NW", 1)[0]
    earlier = ("make shot 2 darker", [
        ("mark_stale", {"node_ids": [IMAGES[1]]}, {"observation": {"stale": [IMAGES[1], CLIPS[1], CUT]}}),
        ("regenerate_stale", {"node_ids": [IMAGES[1], CLIPS[1], CUT], "overrides": {IMAGES[1]: {"exposure": -0.6}}},
         {"observation": {"regenerated": [{"old": IMAGES[1], "new": new_image, "title": "shot 2 image",
                                           "kind": "image"}]}}),
    ])
    messages = _transcript(STORY, earlier, ("shot 2 is still too bright", []))[:-1]
    call = _next(messages)
    assert (call.tool, call.args["node_ids"]) == ("mark_stale", [new_image])  # the new version, not the first
    messages += [AIMessage(content="", tool_calls=[{"name": "mark_stale", "args": call.args, "id": "x"}]),
                 ToolMessage(content=json.dumps({"observation": {"stale": [new_image, "01STALECLIPXXXXXXXXXXXXXXX"]}}),
                             tool_call_id="x")]
    regenerate = _next(messages)
    assert regenerate.tool == "regenerate_stale"
    assert regenerate.args["node_ids"] == [new_image, "01STALECLIPXXXXXXXXXXXXXXX"]  # what mark_stale returned
    assert regenerate.args["overrides"][new_image]["exposure"] == -1.2  # darker than the -0.6 it set before
    newest = "01NEWESTXXXXXXXXXXXXXXXXXX"
    messages += [AIMessage(content="", tool_calls=[{"name": "regenerate_stale", "args": regenerate.args, "id": "y"}]),
                 ToolMessage(content=json.dumps({"observation": {"regenerated": [
                     {"old": new_image, "new": newest, "title": "shot 2 image", "kind": "image"}]}}), tool_call_id="y")]
    reply = _next(messages)  # its own new version this turn does not make the edit "already done"
    assert reply.text.startswith("Changed shot 2") and newest[-6:] in reply.text


def test_the_transcript_planner_asks_when_two_storyboards_have_a_shot_3_and_follows_the_web_page():
    other = ("another 3-shot short drama", [
        ("skill__storyboard", {}, {"observation": {"plan_id": "01PLANTWOXXXXXXXXXXXXXXXXX", "shot_ids": _ids("SX", 3),
                                                   "character_id": "", "scene_id": "", "group_id": ""}}),
        ("skill__reference_images", {"shot_ids": _ids("SX", 3)}, {"observation": {"image_ids": _ids("IX", 3)}}),
    ])
    asked = _next(_transcript(STORY, other, ("make shot 3 night", []))[:-1])
    assert asked.clarification["reason"] == "ambiguous"
    assert {c["image_id"] for c in asked.clarification["candidates"]} == {IMAGES[2], _ids("IX", 3)[2]}
    assert "storyboard of 'p'" in asked.text  # named by what was asked for, all the transcript knows of it
    page = ("a landing page for a bakery", [("skill__design_to_web", {"brief": "b"},
                                            {"observation": {"code_id": "01CODEONEXXXXXXXXXXXXXXXXX"}}),
                                           ("skill__web_revise", {"code_id": "01CODEONEXXXXXXXXXXXXXXXXX"},
                                            {"observation": {"code_id": "01CODETWOXXXXXXXXXXXXXXXXX"}})])
    revise = _next(_transcript(page, ("make the hero full-bleed", []))[:-1])
    assert (revise.tool, revise.args["code_id"]) == ("skill__web_revise", "01CODETWOXXXXXXXXXXXXXXXXX")
    nothing = _next(_transcript(("make the hero full-bleed", []))[:-1])
    assert "no web page in my transcript" in nothing.text


def test_a_rejected_call_and_a_failed_check_teach_the_transcript_nothing():
    failed = ("make shot 1 night", [
        ("regenerate_stale", {"node_ids": [IMAGES[0]], "overrides": {IMAGES[0]: {"lighting": "night"}}},
         {"observation": {"regenerated": [{"old": IMAGES[0], "new": "01FAILEDXXXXXXXXXXXXXXXXXX", "kind": "image"}]},
          "feedback": {"passed": False, "evaluations": [{"node_id": "01FAILEDXXXXXXXXXXXXXXXXXX", "passed": False}]}}),
        ("skill__storyboard", {}, {"rejected": True, "reason": "tool_not_granted", "message": "no"}),
    ])
    call = _next(_transcript(STORY, failed, ("make shot 1 darker", []))[:-1])
    assert call.args["node_ids"] == [IMAGES[0]]


def test_only_the_table_of_replayed_tools_is_read_and_each_has_its_replay():
    from nodes.models.transcript import REPLAYED, Ledger

    assert all(callable(getattr(Ledger, "_" + tool.removeprefix("skill__"), None)) for tool in REPLAYED)
    forged = [PriorCall(tool="_init__", args={}, answer={"observation": {}}),  # model output naming a method
              PriorCall(tool="skill___init__", args={}, answer={"observation": {}})]
    assert Ledger(forged).nodes == {}
