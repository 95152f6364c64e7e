"""Clarifications (unparsed, not found, ambiguous) and threads that continue, on a small hand-built canvas."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from nodes.actions import ToolCall
from nodes.bridge import Usage
from store.models import NodeStatus

_ids = itertools.count()


def _call(runtime, tool: str, **args: Any) -> dict[str, Any]:
    result = runtime.bridge.submit(ToolCall(action_id=f"setup-{next(_ids)}", tool=tool, args=args),
                                   runtime.grant_for("setup"), Usage(), thread_id="setup")
    assert result.verdict == "allow" and "error" not in result.observation, result.observation
    return result.observation


def _shot_with_image(runtime, plan_title: str, number: int) -> dict[str, str]:
    """A plan → shot N → image chain, as the storyboard and reference_images skills make it (small picture)."""
    plan = _call(runtime, "create_node", kind="plan", title=plan_title, status="completed")["created"]
    shot = _call(runtime, "create_node", kind="shot", title=f"shot {number}", status="completed",
                 inputs={"prompt": f"{plan_title}, shot {number}"})["created"]
    _call(runtime, "link_nodes", type="GENERATED_FROM", source=shot, target=plan)
    image = _call(runtime, "generate_image", prompt=f"{plan_title}: a lighthouse by the sea", width=96, height=64,
                  title=f"shot {number} image")["node_id"]
    _call(runtime, "link_nodes", type="GENERATED_FROM", source=image, target=shot)
    return {"plan": plan, "shot": shot, "image": image}


@pytest.fixture(scope="module")
def two_storyboards(runtime):
    """Two storyboards that both have a 'shot 3' (the demo run twice in one folder), and one 'shot 1'."""
    return {"first": _shot_with_image(runtime, "first story", 3), "second": _shot_with_image(runtime, "second story", 3),
            "lone": _shot_with_image(runtime, "first story too", 1)}


def _current_image_of(store, shot_id: str):
    from store.models import Direction, EdgeType

    images = [n.node for n in store.neighbours(shot_id, [EdgeType.GENERATED_FROM], Direction.IN)
              if n.node.kind == "image" and n.node.status != NodeStatus.REJECTED]
    assert len(images) == 1, f"shot {shot_id} has {len(images)} current images"
    return images[0]


def test_an_ambiguous_target_is_a_question_with_candidates_and_the_answer_resumes_the_turn(
        runtime, project, two_storyboards):
    store = project.store
    first, second = two_storyboards["first"], two_storyboards["second"]
    before = {k: _current_image_of(store, v["shot"]).id for k, v in two_storyboards.items()}

    paused = runtime.run("make shot 3 night")

    assert paused.outcome == "interrupted" and paused.clarification is not None
    assert paused.clarification["reason"] == "ambiguous"
    candidates = {c["id"]: c for c in paused.clarification["candidates"]}
    assert set(candidates) == {first["shot"], second["shot"]}
    assert all(c["title"] == "shot 3" and c["version"] >= 1 and c["image_id"] for c in candidates.values())
    # Nothing was picked while the question waits.
    assert {k: _current_image_of(store, v["shot"]).id for k, v in two_storyboards.items()} == before

    done = runtime.resume(paused.thread_id, second["shot"])

    assert done.outcome == "replied", done.reply
    after = {k: _current_image_of(store, v["shot"]) for k, v in two_storyboards.items()}
    assert after["second"].id != before["second"] and after["second"].inputs["lighting"] == "night"
    assert after["first"].id == before["first"] and after["lone"].id == before["lone"]


def test_an_unparseable_request_is_a_clarification_and_changes_nothing(runtime, project, two_storyboards):
    nodes_before = project.store.count_nodes()
    outcome = runtime.run("make shot 1 more mysterious")
    assert outcome.outcome == "clarification" and outcome.clarification["reason"] == "unparsed"
    assert "target: shot 1" in outcome.clarification["understood"]
    assert "lighting" in outcome.clarification["can_do"] and "mysterious" not in outcome.clarification["can_do"]
    assert project.store.count_nodes() == nodes_before
    gibberish = runtime.run("flibber the wobble")
    assert gibberish.outcome == "clarification" and gibberish.clarification["reason"] == "unparsed"
    no_target = runtime.run("make it darker")
    assert no_target.outcome == "clarification" and no_target.clarification["reason"] == "no_target"
    assert project.store.count_nodes() == nodes_before


def test_a_missing_target_is_a_not_found_clarification(runtime, project, two_storyboards):
    nodes_before = project.store.count_nodes()
    outcome = runtime.run("make shot 99 night")
    assert outcome.outcome == "clarification" and outcome.clarification["reason"] == "not_found"
    assert outcome.clarification["missing"] == ["shot 99"]
    assert project.store.count_nodes() == nodes_before


def test_stale_nodes_left_behind_are_repaired_by_asking(runtime, project, two_storyboards):
    lone = two_storyboards["lone"]
    image = _current_image_of(project.store, lone["shot"])
    _call(runtime, "mark_stale", node_ids=[image.id], reason="a turn that failed half way")
    assert project.store.get_node(image.id).status == NodeStatus.STALE

    outcome = runtime.run("regenerate what is stale")

    assert outcome.outcome == "replied", outcome.reply
    assert project.store.find_nodes(status=NodeStatus.STALE) == []
    fresh = _current_image_of(project.store, lone["shot"])
    assert fresh.id != image.id and fresh.status == NodeStatus.COMPLETED


def test_ten_turns_on_one_thread_each_do_their_own_work(runtime, project):
    thread = "a-long-conversation"
    made: list[str] = []
    for turn in range(10):
        if turn % 3 == 2:
            outcome = runtime.run("how many text nodes are there", thread_id=thread)
            assert outcome.outcome == "replied" and outcome.reply == f"{len(made)} found.", outcome.reply
        else:
            version = project.store.canvas_version()
            outcome = runtime.run(f"note: thought number {turn}", thread_id=thread)
            assert outcome.outcome == "replied", outcome.reply
            created = outcome.steps[0]["observation"]["created"]
            assert created not in made and outcome.reply == f"Added note {created}."
            assert outcome.canvas_before == version
            made.append(created)
        # Fresh per-turn state: this turn's steps only, numbered from 0.
        assert [s["index"] for s in outcome.steps] == list(range(len(outcome.steps)))
    assert sorted(n.inputs["text"] for n in project.store.find_nodes(kind="text")) == sorted(
        f"thought number {t}" for t in range(10) if t % 3 != 2)
    turns = runtime.trajectories.turns(thread)
    assert len(turns) == 10 and all(t["outcome"] == "replied" for t in turns)


def test_the_model_sees_earlier_turns_as_a_short_summary_not_their_tool_calls(make_runtime, project):

    from langchain_core.messages import AIMessage, SystemMessage

    from nodes.models.scripted import ScriptedModel, tool_call

    seen: list[Any] = []

    def first(messages):
        seen.append(messages)
        if "## earlier turns" in str(messages[0].content):
            return AIMessage(content="ok")
        return tool_call("create_node", {"kind": "text", "title": "first", "inputs": {"text": "first"}}, "c0")

    runtime = make_runtime(model=ScriptedModel(script=[first, "done"]))
    runtime.run("write something", thread_id="summary-thread")
    runtime.run("and then?", thread_id="summary-thread")

    second_turn = seen[-1]
    system = second_turn[0]
    assert isinstance(system, SystemMessage)
    earlier = [line for line in system.content.split("## earlier turns")[1].splitlines() if line.startswith("- ")]
    assert earlier == ["- 'write something' -> replied; changed: first"]
    assert not any(isinstance(m, AIMessage) and m.tool_calls for m in second_turn)
    assert [m.content for m in second_turn[1:]] == ["and then?"]


def test_an_earlier_build_is_one_name_and_a_count_in_the_view_and_an_edit_names_what_it_changed():
    """A build's turn touched everything its skill made; named in full, its line made every later call of the
    thread longer than the chat baseline's whole transcript on the short sessions.  An edit's line names the three
    outputs it changed (image, clip, cut)."""
    from nodes.resolve import earlier_lines, named_ids

    build = {"turn_id": "t1", "request": "a landing page for a nightclub", "outcome": "replied",
             "touched_ids": [f"n{i}" for i in range(15)]}
    edit = {"turn_id": "t2", "request": "make shot 3 night", "outcome": "replied",
            "touched_ids": ["img", "clip", "cut"]}
    assert named_ids([build, edit]) == ["n0", "img", "clip", "cut"]
    titles = {"n0": "Nightclub page", "img": "shot 3 image", "clip": "shot 3 clip", "cut": "final cut"}
    assert earlier_lines([build, edit], titles)[1:] == [
        "- 'a landing page for a nightclub' -> replied; changed: Nightclub page +14",
        "- 'make shot 3 night' -> replied; changed: shot 3 image, shot 3 clip, final cut"]
