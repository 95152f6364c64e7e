"""The version tools on a small narrative, through the bridge under their smallest grants (docs/versions.md).

Real store over Bolt, real files, offline providers.  Each test checks the canvas effect by hashes (exactly
the outputs that should change do), the provider calls (0 for a restore whose rebuild the cache has seen),
that the operation can itself be undone, and the typed errors of requests no version answers.
"""

from __future__ import annotations

import io
import json
from datetime import datetime, timedelta
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from PIL import Image

from nodes.grant import Grant
from nodes.models.scripted import ScriptedModel, tool_call
from store.models import NodeStatus, new_id
from tests.bridge.openai_chat_server import ScriptedChatServer
from tests.test_api_key_path import keyed_cli
from tests.tools.story_ops import (
    assert_invariants,
    call,
    current,
    done,
    hashes,
    heads,
    make_story,
    provider_calls,
    refused,
    scoped_grant,
    version_of,
)


@pytest.fixture(scope="module")
def project(own_engine_project: Any) -> Any:
    """The CLI runs on this project's folder, so its canvas is in the folder's own engine."""
    return own_engine_project


pytestmark = pytest.mark.long_file(40)


def _observation(messages: list[Any]) -> dict[str, Any]:
    return json.loads(str([m for m in messages if isinstance(m, ToolMessage)][-1].content))["observation"]


def relight(make_runtime: Any, image_id: str, lighting: str, request: str) -> Any:
    """A recorded turn (scripted model) that marks an image stale and regenerates it with another lighting."""

    def regenerate(messages: list[Any]) -> AIMessage:
        stale = _observation(messages)["stale"]
        return tool_call("regenerate_stale", {"node_ids": stale, "overrides": {image_id: {"lighting": lighting}}})

    runtime = make_runtime(model=ScriptedModel(script=[
        {"name": "mark_stale", "args": {"node_id": image_id}}, regenerate, f"relit it {lighting}"]))
    # The person selected the image: the module's project holds several stories, and "shot 1" alone would ask which.
    outcome = runtime.run(request, grant=runtime.grants.save(Grant()), selected=[image_id])
    assert outcome.outcome == "replied", outcome.reply
    return outcome


def scripted_turn(make_runtime: Any, request: str, tool: str, args: dict[str, Any], reply: str) -> Any:
    """A whole turn in which a scripted model calls one tool, under that call's smallest grant."""
    runtime = make_runtime(model=ScriptedModel(script=[{"name": tool, "args": args}, reply]))
    outcome = runtime.run(request, grant=scoped_grant(runtime, tool, args))
    assert outcome.outcome == "replied", outcome.reply
    return outcome


@pytest.fixture(scope="module")
def neon(project, runtime):
    """A story whose shot 2 was relit neon in a recorded turn: (story, hashes before, hashes after)."""
    from jarvishub.runtime import Runtime

    story = make_story(runtime)
    before = hashes(project.store, story)
    made: list[Runtime] = []

    def factory(**kwargs: Any) -> Runtime:
        made.append(Runtime(project, **kwargs))
        return made[-1]

    relight(factory, story["images"][1], "neon", "make shot 2 neon")
    for scripted in made:
        scripted.close()
    return story, before, hashes(project.store, story)


def test_reverting_a_clip_to_its_original_brings_back_its_image_and_rebuilds_the_cut_from_the_cache(
        project, runtime, neon):
    store = project.store
    story, original, relit = neon
    assert {t for t in original if original[t] != relit[t]} == {"shot 2 image", "shot 2 clip", "final cut"}
    clip = current(store, story["clips"][1])
    calls = provider_calls(runtime)

    reverted = done(call(runtime, "revert_version", node_id=clip.id, original=True))

    assert hashes(store, story) == original  # the clip, the image it needs, and the cut: exactly as they were
    assert provider_calls(runtime) == calls == calls + reverted["provider_calls"]
    assert [r["output"] for r in reverted["restored_inputs"]] == ["shot 2 image"]
    assert [r["title"] for r in reverted["rebuilt"]] == ["final cut"] and reverted["rebuilt"][0]["cache_hit"]
    new_clip = current(store, clip.id)
    assert version_of(store, new_clip.id) == [clip.id]  # a new version of the head: history only grows
    assert store.get_node(clip.id).status == NodeStatus.REJECTED
    assert new_clip.metadata["restored"]["from"] == story["clips"][1]
    assert_invariants(store)

    # Undo the last change to the image (the restore): the neon image comes back, its clip and the cut follow.
    undone = done(call(runtime, "undo_change", node_id=current(store, story["images"][1]).id))
    assert hashes(store, story) == relit and undone["provider_calls"] == 0
    assert provider_calls(runtime) == calls
    listed = call(runtime, "list_versions", node_id=story["images"][1]).observation
    assert [v["number"] for v in listed["versions"]] == [1, 2, 3, 4] and listed["current"] == 4
    assert listed["versions"][3]["restored_from"] == 2 and listed["versions"][2]["restored_from"] == 1
    assert listed["versions"][1]["request"] == "make shot 2 neon"
    assert listed["versions"][1]["changes"]["inputs.lighting"] == {"before": "neutral", "after": "neon"}
    assert listed["history"] == [4, 3, 2, 1]
    assert_invariants(store)


def test_the_version_before_a_named_change_at_a_time_and_by_number(project, runtime, make_runtime):
    store = project.store
    story = make_story(runtime)
    original = hashes(store, story)
    image = story["images"][0]
    relight(make_runtime, image, "neon", "shot 1 in neon")
    neon = hashes(store, story)
    relight(make_runtime, current(store, image).id, "dusk", "then make shot 1 dusk")
    calls = provider_calls(runtime)

    before_neon = done(call(runtime, "revert_version", node_id=image, before_change="the neon change"))
    assert before_neon["restored_version"] == 1 and "shot 1 in neon" in before_neon["found_by"]
    assert hashes(store, story) == original

    versions = call(runtime, "list_versions", node_id=image).observation["versions"]
    just_before_dusk = datetime.fromisoformat(versions[2]["at"]) - timedelta(microseconds=1)
    at_time = done(call(runtime, "revert_version", node_id=image, at=just_before_dusk.isoformat()))
    assert at_time["restored_version"] == 2 and hashes(store, story) == neon

    by_number = done(call(runtime, "revert_version", node_id=image, version=3))
    assert by_number["restored_version"] == 3 and provider_calls(runtime) == calls  # dusk: seen before, cached
    assert_invariants(store)

    # Requests no version answers: a typed error the model sees, and nothing is written.
    other_shot = story["images"][1]
    at = store.canvas_version()
    assert "no version 99" in refused(call(runtime, "revert_version", node_id=image, version=99), "NoSuchVersion")
    assert "neon" in refused(call(runtime, "revert_version", node_id=image, before_change="sepia"), "NoSuchVersion")
    assert "did not exist yet" in refused(call(runtime, "revert_version", node_id=image, at="yesterday"),
                                          "NoSuchVersion")
    refused(call(runtime, "revert_version", node_id=image, at="when the moon is blue"), "UnknownTime")
    refused(call(runtime, "revert_version", node_id=image, version_id=other_shot), "NotAVersionOf")
    refused(call(runtime, "revert_version", node_id=image, version=3), "AlreadyCurrent")
    shot = refused(call(runtime, "undo_change", node_id=story["shots"][0]), "NoSuchVersion")
    assert "has not changed" in shot and f"shot 1 image ({current(store, image).id})" in shot
    unknown = call(runtime, "revert_version", node_id=new_id(), original=True, grant=runtime.grants.save(Grant()))
    assert unknown.verdict == "reject" and unknown.reason == "unknown_node"
    two_ways = call(runtime, "revert_version", node_id=image, original=True, version=2,
                    grant=runtime.grants.save(Grant()))
    assert two_ways.verdict == "reject" and two_ways.reason == "bad_arguments"
    assert store.canvas_version() == at


def test_undo_the_last_turn_then_undo_the_undo(project, runtime, make_runtime):
    store = project.store
    story = make_story(runtime)
    before = hashes(store, story)
    relit = relight(make_runtime, story["images"][2], "night", "make shot 3 night")
    after = hashes(store, story)
    assert {t for t in before if before[t] != after[t]} == {"shot 3 image", "shot 3 clip", "final cut"}

    undo = scripted_turn(make_runtime, "undo that", "undo_turn", {}, "Undid the last turn.")
    assert hashes(store, story) == before and undo.provider_calls == 0
    record = store.turns(undo.thread_id)[-1]
    assert record["request"] == "undo that"
    observation = undo.steps[0]["observation"]
    assert observation["undone"]["turn_id"] == relit.turn_id
    assert {r["output"] for r in observation["restored"]} == {"shot 3 image", "shot 3 clip", "final cut"}
    assert_invariants(store)

    redo = scripted_turn(make_runtime, "undo the undo", "undo_turn", {}, "Redid it.")
    assert redo.steps[0]["observation"]["undone"]["turn_id"] == undo.turn_id
    assert hashes(store, story) == after and redo.provider_calls == 0
    assert_invariants(store)

    # The first turn cannot be undone on its own any more: later turns changed what it made.
    later = call(runtime, "undo_turn", turn_id=relit.turn_id, grant=runtime.grants.save(Grant()))
    assert "changed again after it" in refused(later, "TurnOverwritten")
    refused(call(runtime, "undo_turn", turn_id=new_id(), grant=runtime.grants.save(Grant())), "NoTurnToUndo")


def test_compare_two_versions_side_by_side_changes_nothing(project, runtime, neon):
    store = project.store
    story, _, _ = neon
    at = store.canvas_version()

    compared = call(runtime, "compare_versions", node_id=story["images"][1], a="original", b=2).observation
    again = call(runtime, "compare_versions", node_id=story["images"][1], a=1, b="2").observation

    assert compared["differences"]["inputs.lighting"] == {"before": "neutral", "after": "neon"}
    assert compared["side_by_side"]["sha256"] == again["side_by_side"]["sha256"]  # content-addressed, repeatable
    picture = Image.open(io.BytesIO(project.artifacts.read_bytes(compared["side_by_side"]["sha256"])))
    first = Image.open(io.BytesIO(project.artifacts.read_bytes(store.get_node(story["images"][1]).outputs[0])))
    assert picture.width > 2 * first.width and picture.height > first.height
    clips = call(runtime, "compare_versions", node_id=story["clips"][1], a="original", b=2).observation
    assert clips["side_by_side"]["mime"] == "image/png" and not clips["same_artifact"]
    assert store.canvas_version() == at  # comparing never changes the canvas
    refused(call(runtime, "compare_versions", node_id=story["images"][1], a=story["images"][0]), "NotAVersionOf")


def test_a_note_edited_in_place_gets_its_text_back_in_place(project, runtime):
    store = project.store
    anyone = runtime.grants.save(Grant())
    note = done(call(runtime, "create_node", kind="text", title="logline", status="completed",
                     inputs={"text": "A keeper and a bottle."}, grant=anyone))["created"]
    done(call(runtime, "update_node", node_id=note, inputs_patch={"text": "A keeper, a bottle, a storm."},
              grant=anyone))
    done(call(runtime, "update_node", node_id=note, title="logline (final)", grant=anyone))
    version = store.get_node(note).version

    done(call(runtime, "undo_change", node_id=note))
    assert store.get_node(note).title == "logline" and store.get_node(note).version == version + 1
    done(call(runtime, "revert_version", node_id=note, original=True))
    restored = store.get_node(note)
    assert (restored.title, restored.inputs["text"]) == ("logline", "A keeper and a bottle.")
    assert [v["number"] for v in call(runtime, "list_versions", node_id=note).observation["versions"]] == [1, 2, 3,
                                                                                                          4, 5]
    refused(call(runtime, "undo_change", node_id=note, steps=9), "NoSuchVersion")


def test_a_restore_outside_its_grant_is_refused_and_writes_nothing(project, runtime, neon):
    store = project.store
    story, _, _ = neon
    other = make_story(runtime)
    before = heads(store, story), store.canvas_version()
    wrong_scope = scoped_grant(runtime, "revert_version", {"node_id": other["images"][0], "version": 1})
    image = current(store, story["images"][1]).id

    result = call(runtime, "revert_version", node_id=image, original=True, grant=wrong_scope)

    assert result.verdict == "reject" and result.reason == "out_of_scope", result
    assert (heads(store, story), store.canvas_version()) == before


def test_undo_the_last_turn_through_the_cli_with_a_model_on_a_loopback_endpoint(project, runtime, make_runtime):
    """As a user runs it: ``jarvishub run`` in a subprocess, an API key and an OpenAI-compatible endpoint in the
    environment, the default grant of the request; the model's only move is the tool call."""
    store = project.store
    story = make_story(runtime)
    before = hashes(store, story)
    relight(make_runtime, story["images"][0], "night", "make shot 1 night")
    assert hashes(store, story) != before

    # With a key, the evaluator is the model too: it judges the three restored outputs (image, clip, cut).
    judged = {"content": json.dumps({"score": 0.9, "passed": True, "notes": "as it was"})}
    replies = [{"tool": "undo_turn", "arguments": {}}, judged, judged, judged, {"content": "Undid the last turn."}]
    with ScriptedChatServer(replies) as server:
        ran = keyed_cli(server.base_url, "-C", str(project.root), "run", "undo the last turn", "--json")

    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["result"] == "done"
    offered = {t["function"]["name"] for t in server.requests[0]["tools"]}
    assert "undo_turn" in offered  # the default grant of this request offers it
    assert len(server.requests) == 5 and all("art director" in json.dumps(r) for r in server.requests[1:4])
    assert hashes(store, story) == before
    assert_invariants(store)


def test_a_page_reverted_gets_its_file_back_in_the_workspace(project, runtime):
    """A page-like output without a browser: a code node with the HTML file written from it; the revision
    supersedes it and writes another file. Reverting copies back the file made from the original, and the
    workspace holds its bytes again."""
    store = project.store
    anyone = runtime.grants.save(Grant())
    path = "site/tea-room/index.html"
    page = done(call(runtime, "create_node", kind="code", title="tea room page", status="completed",
                     inputs={"language": "html", "html_path": path, "hero": "contained"}, grant=anyone))["created"]
    first = done(call(runtime, "write_file", path=path, content="<h1>Tea</h1>", grant=anyone))["node_id"]
    done(call(runtime, "link_nodes", type="GENERATED_FROM", source=first, target=page, grant=anyone))
    revised = done(call(runtime, "branch_node", node_id=page, inputs_patch={"hero": "full-bleed"},
                        grant=anyone))["branch"]
    second = done(call(runtime, "write_file", path=path, content="<h1>Tea, full bleed</h1>", grant=anyone))["node_id"]
    done(call(runtime, "link_nodes", type="GENERATED_FROM", source=second, target=revised, grant=anyone))
    done(call(runtime, "set_status", node_id=page, status="rejected", reason="superseded by the revision",
              grant=anyone))
    done(call(runtime, "set_status", node_id=revised, status="completed", grant=anyone))

    reverted = done(call(runtime, "revert_version", node_id=revised, before_change="full-bleed"))

    assert reverted["restored_version"] == 1
    [copied] = [r for r in reverted["rebuilt"] if r.get("copied_from") == first]
    assert (project.workspace / path).read_text() == "<h1>Tea</h1>"
    current_file = store.get_node(copied["new"])
    assert current_file.outputs == store.get_node(first).outputs and store.get_node(second).status == NodeStatus.REJECTED
    assert current(store, page).inputs["hero"] == "contained"
    done(call(runtime, "undo_change", node_id=page))  # and the revision back, its file too
    assert (project.workspace / path).read_text() == "<h1>Tea, full bleed</h1>"
