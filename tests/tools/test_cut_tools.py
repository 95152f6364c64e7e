"""The cut operations on a small narrative, through the bridge under their smallest grants (tools/cut.py).

Each operation rebuilds only the cut (plus a new shot's image and clip, or a retimed clip): the hashes of
every other output stay, the provider calls are counted, and undoing the operation brings the cut back from
the signature cache.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from nodes.grant import Grant
from nodes.models.scripted import ScriptedModel, tool_call
from store.models import Direction, EdgeType, NodeStatus
from tests.tools.story_ops import (
    assert_invariants,
    call,
    current,
    cut_titles,
    done,
    hashes,
    make_story,
    refused,
    scoped_grant,
)
from tools.generate.measure import probe_video

pytestmark = pytest.mark.long_file(35)


def media_calls(runtime: Any) -> dict[str, int]:
    """Provider calls so far, per medium."""
    return dict(runtime.services["generation"].provider_calls)


def spent(runtime: Any, before: dict[str, int]) -> dict[str, int]:
    """Provider calls per medium since ``before`` (media with none left out)."""
    return {m: n - before[m] for m, n in media_calls(runtime).items() if n != before[m]}


def changed(before: dict[str, str], after: dict[str, str]) -> set[str]:
    return {title for title in after if before.get(title) != after[title]}


def one_tool_turn(make_runtime: Any, request: str, tool: str, args: dict[str, Any]) -> Any:
    """A whole turn (evaluator on) in which a scripted model calls one tool under its smallest grant."""
    runtime = make_runtime(model=ScriptedModel(script=[{"name": tool, "args": args}, "done"]))
    # The person selected the cut: the module's project holds several stories, and "shot 2" alone would ask which.
    outcome = runtime.run(request, grant=scoped_grant(runtime, tool, args),
                          selected=[args["cut_id"]] if "cut_id" in args else None)
    assert outcome.outcome == "replied", outcome.reply
    return outcome


def test_swapping_two_shots_rebuilds_only_the_cut_and_swapping_back_comes_from_the_cache(
        project, runtime, make_runtime):
    store = project.store
    story = make_story(runtime)
    original = hashes(store, story)
    before = media_calls(runtime)

    turn = one_tool_turn(make_runtime, "swap shots 2 and 3 in the cut", "reorder_cut",
                         {"cut_id": story["cut"], "swap": [2, 3]})

    assert cut_titles(store, story["cut"]) == ["shot 1 clip", "shot 3 clip", "shot 2 clip"]
    assert changed(original, hashes(store, story)) == {"final cut"} and turn.provider_calls == 1
    cut = current(store, story["cut"])
    assert cut.status != NodeStatus.REJECTED, "the evaluator judged the order asked, not the shot numbers"
    assert turn.steps[0]["feedback"]["passed"]
    swapped = hashes(store, story)

    back = done(call(runtime, "reorder_cut", cut_id=story["cut"], order=[story["shots"][0], 3, 2]))
    assert hashes(store, story) == original and back["provider_calls"] == 0
    done(call(runtime, "undo_change", node_id=story["cut"]))  # the swap again, undone back
    assert hashes(store, story) == swapped and spent(runtime, before) == {}  # both from the cache
    assert_invariants(store)

    refused(call(runtime, "reorder_cut", cut_id=story["cut"], swap=[1, 1]), "CutUnchanged")
    assert "missing" in refused(call(runtime, "reorder_cut", cut_id=story["cut"], order=[1, 2]), "ToolError")


def test_a_shot_moved_some_places_from_where_it_plays(project, runtime):
    """"move shot 3 up one", "move shot 1 down 2": places counted from where the shot plays now, and places past
    either end of the cut refused, nothing written (not moved to the end it would stop at)."""
    store = project.store
    story = make_story(runtime)
    done(call(runtime, "reorder_cut", cut_id=story["cut"], move=story["shots"][2], by=-1))
    assert cut_titles(store, story["cut"]) == ["shot 1 clip", "shot 3 clip", "shot 2 clip"]
    done(call(runtime, "reorder_cut", cut_id=story["cut"], move=story["shots"][0], by=2))
    assert cut_titles(store, story["cut"]) == ["shot 3 clip", "shot 2 clip", "shot 1 clip"]

    at = store.canvas_version()
    assert "past the start" in refused(call(runtime, "reorder_cut", cut_id=story["cut"], move=story["shots"][2],
                                            by=-1), "NotInCut")
    assert "past the end" in refused(call(runtime, "reorder_cut", cut_id=story["cut"], move=2, by=2), "NotInCut")
    assert store.canvas_version() == at
    assert_invariants(store)


def test_a_shot_edited_after_a_swap_rebuilds_the_cut_in_the_order_asked(project, runtime, make_runtime):
    """The order a person put the cut in outlives the next edit: the cut rebuilt with shot 1's new clip keeps
    shots 2 and 3 swapped, and the evaluator judges it on that order (it was judged on shot order, rejected as
    "out of order", and the cut kept the old clips: no edit after a reorder reached the cut)."""
    store = project.store
    story = make_story(runtime, "a ferry crossing in fog, seen from the wheelhouse")
    one_tool_turn(make_runtime, "swap shots 2 and 3 in the cut", "reorder_cut", {"cut_id": story["cut"], "swap": [2, 3]})
    clip_before = current(store, story["clips"][0]).id

    # A whole turn, evaluator on, as the ferry story's "make shot 1 night" (its request names no other story's
    # shot), under a grant of the repair tool alone.
    args = {"targets": [story["images"][0]], "changes": {story["images"][0]: {"lighting": "night"}}}
    editor = make_runtime(model=ScriptedModel(script=[{"name": "repair", "args": args}, "done"]))
    turn = editor.run("night in the ferry's opening shot", grant=editor.grants.save(Grant(tools=["repair"])))
    assert not turn.steps[0]["observation"].get("not_committed"), turn.steps[0]["observation"]

    cut = current(store, story["cut"])
    assert cut.status != NodeStatus.REJECTED and turn.outcome == "replied", turn.reply
    assert cut_titles(store, story["cut"]) == ["shot 1 clip", "shot 3 clip", "shot 2 clip"]
    new_clip = current(store, story["clips"][0]).id
    assert new_clip != clip_before and cut.inputs["clip_node_ids"][0] == new_clip
    assert_invariants(store)


def test_a_shot_taken_out_of_the_cut_and_put_back(project, runtime):
    store = project.store
    story = make_story(runtime)
    original = hashes(store, story)
    before = media_calls(runtime)

    removed = done(call(runtime, "remove_from_cut", cut_id=story["cut"], shots=[story["shots"][1]]))
    assert removed["removed"] == ["shot 2"] and cut_titles(store, story["cut"]) == ["shot 1 clip", "shot 3 clip"]
    assert changed(original, hashes(store, story)) == {"final cut"} and spent(runtime, before) == {"video": 1}
    cut = current(store, story["cut"])
    assert {n.node.id for n in store.neighbours(cut.id, [EdgeType.GENERATED_FROM])} == {
        story["clips"][0], story["clips"][2]}, "the clip taken out is no longer what the cut is made from"
    assert store.get_node(story["clips"][1]).status == NodeStatus.COMPLETED  # the shot stays on the canvas

    back = done(call(runtime, "return_to_cut", cut_id=story["cut"], shot=story["images"][1]))
    assert back["position"] == 2 and hashes(store, story) == original and spent(runtime, before) == {"video": 1}
    assert_invariants(store)

    at = store.canvas_version()
    refused(call(runtime, "return_to_cut", cut_id=story["cut"], shot=story["shots"][1]), "CutUnchanged")
    refused(call(runtime, "remove_from_cut", cut_id=story["cut"], shots=[9]), "NotInCut")
    refused(call(runtime, "remove_from_cut", cut_id=story["cut"], shots=[1, 2, 3]), "ToolError")
    refused(call(runtime, "remove_from_cut", cut_id=story["shots"][0], shots=[1]), "NoCut")
    # Several cuts on the canvas (one per story of this module): a cut operation must name one.
    assert "pass cut_id" in refused(call(runtime, "remove_from_cut", shots=[1]), "AmbiguousCut")
    assert store.canvas_version() == at


def test_a_shot_inserted_between_two_others_and_the_turn_undone(project, runtime, make_runtime):
    store = project.store
    story = make_story(runtime)
    original = hashes(store, story)
    before = media_calls(runtime)
    first, second = story["shots"][0], story["shots"][1]

    turn = one_tool_turn(make_runtime, "add a shot between 1 and 2 where the train arrives", "insert_shot",
                         {"cut_id": story["cut"], "after": first, "before": 2,
                          "description": "the night train pulls in, steam everywhere"})

    made = turn.steps[0]["observation"]
    shot = store.get_node(made["shot"]["node_id"])
    assert shot.title == "shot 1a" and "night train" in shot.inputs["prompt"]
    assert cut_titles(store, story["cut"]) == ["shot 1 clip", "shot 1a clip", "shot 2 clip", "shot 3 clip"]
    assert changed(original, hashes(store, story)) == {"final cut"}  # the other shots keep their media
    assert turn.provider_calls == 3 and spent(runtime, before) == {}  # its image, its clip, the cut (in the turn)
    assert [s["cache_hit"] for s in made["rebuilt"]] == [False, False, False]
    continues = {(e.source, e.target) for e in store.edges([first, second, shot.id]) if e.type == EdgeType.CONTINUES}
    assert (shot.id, first) in continues and (second, shot.id) in continues and (second, first) not in continues
    references = {n.node.id for n in store.neighbours(made["image"], [EdgeType.REFERENCES])}
    assert references == {n.node.id for n in store.neighbours(first, [EdgeType.REFERENCES])}  # same character, scene
    assert [n.node.id for n in store.neighbours(made["clip"], [EdgeType.GENERATED_FROM])] == [made["image"]]
    assert_invariants(store)

    undo = one_tool_turn(make_runtime, "undo that", "undo_turn", {})
    assert hashes(store, story) == original and undo.provider_calls == 0
    assert store.get_node(shot.id).status == NodeStatus.REJECTED  # set aside, still on the canvas
    assert [n.node.id for n in store.neighbours(second, [EdgeType.CONTINUES], Direction.OUT)] == [first]
    assert cut_titles(store, story["cut"]) == ["shot 1 clip", "shot 2 clip", "shot 3 clip"]
    assert_invariants(store)


def test_a_duplicated_shot_reuses_its_image_and_clip_and_the_turn_undone(project, runtime, make_runtime):
    store = project.store
    story = make_story(runtime)
    original = hashes(store, story)

    turn = one_tool_turn(make_runtime, "duplicate shot 2", "duplicate_shot", {"cut_id": story["cut"], "shot": 2})

    made = turn.steps[0]["observation"]
    assert made["shot"]["title"] == "shot 2a" and made["position"] == 3
    assert cut_titles(store, story["cut"]) == ["shot 1 clip", "shot 2 clip", "shot 2a clip", "shot 3 clip"]
    image, clip = store.get_node(made["image"]), store.get_node(made["clip"])
    assert image.outputs[0].sha256 == original["shot 2 image"] and clip.outputs[0].sha256 == original["shot 2 clip"]
    assert turn.provider_calls == 1  # only the cut: the copy's image and clip come from the cache
    assert changed(original, hashes(store, story)) == {"final cut"}
    third = story["shots"][2]
    assert [n.node.id for n in store.neighbours(third, [EdgeType.CONTINUES], Direction.OUT)] == [made["shot"]["node_id"]]
    assert_invariants(store)

    undo = one_tool_turn(make_runtime, "undo that", "undo_turn", {})
    assert hashes(store, story) == original and undo.provider_calls == 0
    assert [n.node.id for n in store.neighbours(third, [EdgeType.CONTINUES], Direction.OUT)] == [story["shots"][1]]
    assert {store.get_node(i).status for i in (made["shot"]["node_id"], made["image"], made["clip"])} == {
        NodeStatus.REJECTED}
    assert_invariants(store)


def test_a_clip_retimed_and_back(project, runtime):
    store = project.store
    story = make_story(runtime)
    original = hashes(store, story)
    before = media_calls(runtime)
    clips = store.get_nodes(story["clips"])
    lengths = [probe_video(project.artifacts.local_path(c.outputs[0])).duration_s for c in clips]

    done(call(runtime, "set_clip_duration", shot=story["shots"][2], duration_s=1.0))

    clip = current(store, story["clips"][2])
    assert probe_video(project.artifacts.local_path(clip.outputs[0])).duration_s == pytest.approx(1.0, abs=0.1)
    cut = current(store, story["cut"])
    assert probe_video(project.artifacts.local_path(cut.outputs[0])).duration_s == pytest.approx(
        lengths[0] + lengths[1] + 1.0, abs=0.2)
    assert changed(original, hashes(store, story)) == {"shot 3 clip", "final cut"}
    assert spent(runtime, before) == {"video": 2}
    refused(call(runtime, "set_clip_duration", shot=clip.id, duration_s=1.0), "CutUnchanged")

    done(call(runtime, "undo_change", node_id=clip.id))
    assert hashes(store, story) == original and spent(runtime, before) == {"video": 2}
    assert_invariants(store)


def _observation(messages: list[Any]) -> dict[str, Any]:
    return json.loads(str([m for m in messages if isinstance(m, ToolMessage)][-1].content))["observation"]


def test_a_model_reads_the_cut_then_takes_a_shot_out(project, runtime, make_runtime):
    """A scripted model that reads what it needs from one tool's answer before calling the next."""
    store = project.store
    story = make_story(runtime)

    def take_out_the_last(messages: list[Any]) -> AIMessage:
        versions = _observation(messages)
        assert versions["current"] == 1
        return tool_call("remove_from_cut", {"cut_id": versions["root_id"], "shots": [3]}, "c1")

    model = ScriptedModel(script=[{"name": "list_versions", "args": {"node_id": story["cut"]}}, take_out_the_last,
                                  "Removed the last shot."])
    worker = make_runtime(model=model)
    grant = scoped_grant(worker, "remove_from_cut", {"cut_id": story["cut"], "shots": [3]})
    # The cut selected: the project holds several stories, and "the final cut" of which is asked about otherwise.
    outcome = worker.run("remove the last shot from the final cut", selected=[story["cut"]],
                         grant=worker.grants.save(grant.model_copy(update={"tools": ["list_versions",
                                                                                     "remove_from_cut"]})))
    assert outcome.outcome == "replied", outcome.reply
    assert cut_titles(store, story["cut"]) == ["shot 1 clip", "shot 2 clip"]


def test_bring_back_a_shot_that_never_left_the_cut_asks_and_nothing_is_written(project, runtime):
    """"bring back shot 2" with shot 2 in the cut: its earlier look, perhaps; it was answered "in the cut already"
    with exit 0 and nothing done.  Said of the cut ("put shot 2 back in the cut") it is satisfied as it stands."""
    from nodes.understanding.turn import understand

    story = make_story(runtime)
    at = project.store.canvas_version()
    for request in ("bring back shot 2", "put shot 2 back"):
        intent = understand(project.store, request, [story["cut"]])
        assert intent.clarification is not None and intent.clarification.reason == "ambiguous", (request, intent)
        assert "in the cut already" in intent.clarification.message and "undo the last change to shot 2" in \
            intent.clarification.message
    said_of_the_cut = understand(project.store, "put shot 2 back in the cut", [story["cut"]])
    assert said_of_the_cut.clarification is None
    assert [c.modifications.get("already") for c in said_of_the_cut.clauses] == [
        "shot 2 is in the cut already, at position 2"]
    assert project.store.canvas_version() == at
