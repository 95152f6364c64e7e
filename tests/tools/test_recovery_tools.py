"""The recovery tools through the bridge: checkpoints, attempts, local regeneration of stale work, artifact checks."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from jarvishub.project import Project
from jarvishub.runtime import Runtime
from nodes.actions import CanvasMutation, ToolCall
from nodes.bridge import SubmitResult, Usage
from nodes.grant import Grant
from nodes.verdicts import Reject
from store.models import ArtifactHandle, CanvasSnapshot, EdgeType, NodeStatus, new_id
from store.errors import StaleVersion
from store.mutations import DeleteNode


@pytest.fixture
def runtime(make_runtime) -> Runtime:
    return make_runtime()


def call(runtime: Runtime, tool: str, grant: Grant | None = None, **args: Any) -> SubmitResult:
    """Submit one tool call as the agent would (the default grant of a plain request unless one is given)."""
    action = ToolCall(action_id=new_id(), tool=tool, args=args)
    return runtime.bridge.submit(action, grant or runtime.grant_for("test"), Usage(), thread_id="t")


def written(result: SubmitResult) -> SubmitResult:
    """The result of a call that must have been allowed, run cleanly and committed."""
    assert result.verdict == "allow", result
    assert "error" not in result.observation, result.observation
    assert result.commit is not None, result
    return result


def read(result: SubmitResult) -> dict[str, Any]:
    """The observation of a read-only call, which must not have written anything."""
    assert result.verdict == "allow" and result.commit is None, result
    assert "error" not in result.observation, result.observation
    return result.observation


def make(runtime: Runtime, title: str, **args: Any) -> str:
    return written(call(runtime, "create_node", kind="shot", title=title, **args)).observation["created"]


def generate(runtime: Runtime, tool: str, **args: Any) -> str:
    return written(call(runtime, tool, **args)).observation["node_id"]


def chain(runtime: Runtime, prompt: str) -> tuple[str, str, str]:
    """image → clip (GENERATED_FROM the image) → cut (GENERATED_FROM the clip), made with the generation tools."""
    image = generate(runtime, "generate_image", prompt=prompt, width=96, height=64)
    clip = generate(runtime, "generate_video", source_node_id=image, camera="pan", duration_s=0.5, fps=6)
    cut = generate(runtime, "assemble_cut", clip_node_ids=[clip])
    return image, clip, cut


def canvas_state(snapshot: CanvasSnapshot) -> tuple[dict[str, Any], set[tuple[str, str, str]]]:
    """What a person sees of a canvas: live nodes (title, inputs, status, outputs, group) and edges, checkpoints aside."""
    nodes = {n.id: (n.title, n.inputs, n.status, n.outputs, n.group_id) for n in snapshot.nodes
             if n.kind != "checkpoint"}
    edges = [(e.type.value, e.source, e.target) for e in snapshot.edges]
    assert len(edges) == len(set(edges)), f"an edge is on the canvas twice: {sorted(edges)}"
    return nodes, set(edges)


def restoring_grant(runtime: Runtime) -> Grant:
    """restore_checkpoint is destructive: the default grant leaves it out, so name every tool explicitly."""
    return runtime.grants.save(Grant())


def test_the_default_grant_does_not_let_an_agent_restore_a_checkpoint(runtime: Runtime):
    action = ToolCall(action_id=new_id(), tool="restore_checkpoint", args={"name": "anything"})

    verdict = runtime.bridge.validate(action, runtime.grant_for("go back to how it was"), Usage())

    assert isinstance(verdict, Reject) and verdict.reason == "tool_not_granted"


def test_restore_checkpoint_brings_the_canvas_back_as_new_versions(project: Project, runtime: Runtime):
    mira = make(runtime, "Mira", inputs={"role": "character"})
    pier = make(runtime, "Pier", inputs={"prompt": "a pier", "lighting": "day"})
    boat = make(runtime, "Boat", inputs={"prompt": "a boat"})
    written(call(runtime, "link_nodes", type="REFERENCES", source=pier, target=mira))
    written(call(runtime, "link_nodes", type="CONTINUES", source=boat, target=pier))
    day = written(call(runtime, "group_nodes", node_ids=[pier, boat], title="Day")).observation["group_id"]
    checkpoint = written(call(runtime, "create_checkpoint", name="before the night pass")).observation
    expected = canvas_state(project.store.snapshot(checkpoint["canvas_version"]))
    pier_history = project.store.node_history(pier)

    extra = [make(runtime, "Night pier"), make(runtime, "Night boat")]
    written(call(runtime, "update_node", node_id=pier, title="Pier (night)", inputs_patch={"lighting": "night"}))
    written(call(runtime, "set_status", node_id=mira, status="rejected", reason="wrong hair"))
    written(call(runtime, "unlink_nodes", type="CONTINUES", source=boat, target=pier))
    written(call(runtime, "link_nodes", type="CONTINUES", source=mira, target=boat))
    written(call(runtime, "link_nodes", type="GENERATED_FROM", source=extra[0], target=pier))
    night = written(call(runtime, "group_nodes", node_ids=[pier, mira], title="Night")).observation["group_id"]
    changed = project.store.canvas_version()
    assert canvas_state(project.store.snapshot()) != expected

    result = written(call(runtime, "restore_checkpoint", grant=restoring_grant(runtime),
                          name="before the night pass"))

    assert result.observation["restored_to"] == checkpoint["canvas_version"]
    assert result.observation["checkpoint"] == checkpoint["checkpoint"]
    assert result.commit is not None
    assert result.commit.canvas_version == project.store.canvas_version() > changed
    assert canvas_state(project.store.snapshot()) == expected
    assert project.store.get_node(checkpoint["checkpoint"]).kind == "checkpoint"  # the checkpoint itself stays
    assert {n.id for n in project.store.find_nodes(group_id=day)} == {pier, boat}
    assert project.store.get_node(mira).group_id is None
    assert [n.node.id for n in project.store.neighbours(pier, [EdgeType.IN_GROUP])] == [day]
    # History is appended to, never rewritten: the night version is still there, and the restore is a new one.
    history = project.store.node_history(pier)
    assert history[: len(pier_history)] == pier_history
    assert [(h.version, h.title, h.group_id) for h in history] == [
        (1, "Pier", None), (2, "Pier", day), (3, "Pier (night)", day), (4, "Pier (night)", night), (5, "Pier", day)]
    for node_id in extra:  # nodes made after the checkpoint are deleted softly: still in history
        assert [h.deleted for h in project.store.node_history(node_id)][-2:] == [False, True]


def test_restore_checkpoint_brings_back_a_deleted_node_with_its_edges_once(project: Project, runtime: Runtime):
    kept = make(runtime, "Kept")
    lost = make(runtime, "Lost", inputs={"prompt": "a gull"})
    written(call(runtime, "link_nodes", type="REFERENCES", source=kept, target=lost))
    checkpoint = written(call(runtime, "create_checkpoint", name="before the delete")).observation
    expected = canvas_state(project.store.snapshot(checkpoint["canvas_version"]))
    grant = restoring_grant(runtime)
    written(call(runtime, "link_nodes", type="CONTINUES", source=kept, target=lost))  # after the checkpoint
    deleted = runtime.bridge.submit(CanvasMutation(action_id=new_id(), mutations=[DeleteNode(node_id=lost)]),
                                    grant, Usage(), thread_id="t")
    assert deleted.commit is not None and kept in {n.id for n in project.store.find_nodes()}

    written(call(runtime, "restore_checkpoint", grant=grant, name=checkpoint["checkpoint"]))

    assert canvas_state(project.store.snapshot()) == expected
    assert [n.node.id for n in project.store.neighbours(kept, [EdgeType.REFERENCES])] == [lost]
    assert [h.deleted for h in project.store.node_history(lost)] == [False, True, False]


def test_restoring_an_unknown_checkpoint_is_an_error_the_model_sees(project: Project, runtime: Runtime):
    before = project.store.canvas_version()

    result = call(runtime, "restore_checkpoint", grant=restoring_grant(runtime), name="never made")

    assert result.commit is None and "no checkpoint named 'never made'" in result.observation["error"]
    assert project.store.canvas_version() == before


def test_mark_stale_marks_an_image_and_what_was_generated_from_it(project: Project, runtime: Runtime):
    image, clip, cut = chain(runtime, "a lighthouse, stale test")
    other = generate(runtime, "generate_image", prompt="an unrelated gull", width=96, height=64)
    note = make(runtime, "Notes on the lighthouse")
    written(call(runtime, "link_nodes", type="REFERENCES", source=note, target=image))

    result = written(call(runtime, "mark_stale", node_id=image, reason="the lighthouse moved"))

    assert result.observation["stale"] == [image, clip, cut]
    for node_id in (image, clip, cut):
        node = project.store.get_node(node_id)
        assert node.status == NodeStatus.STALE and node.metadata["status_reason"] == "the lighthouse moved"
    # A node that only references the image, made by hand, is not regenerable: left alone, as is unrelated work.
    assert project.store.get_node(note).status == NodeStatus.PENDING
    assert project.store.get_node(other).status == NodeStatus.COMPLETED


def test_regenerate_stale_remakes_only_the_stale_nodes_as_new_versions(project: Project, runtime: Runtime):
    generation = runtime.services["generation"]
    image, clip, cut = chain(runtime, "a harbour at dusk, regenerate test")
    bystander = generate(runtime, "generate_image", prompt="a harbour bystander", width=96, height=64)
    written(call(runtime, "mark_stale", node_id=image))
    calls_before = dict(generation.provider_calls)

    result = written(call(runtime, "regenerate_stale", node_ids=[image, clip, cut, bystander],
                          overrides={image: {"lighting": "night"}}))

    report = result.observation["regenerated"]
    assert [r["old"] for r in report] == [image, clip, cut]  # upstream first
    new = {r["old"]: r["new"] for r in report}
    assert result.provider_calls == 3 and result.cache_hits == 0
    assert generation.provider_calls["image"] == calls_before["image"] + 1
    assert generation.provider_calls["video"] == calls_before["video"] + 2
    for old_id, new_id_ in new.items():
        old, made = project.store.get_node(old_id), project.store.get_node(new_id_)
        assert made.status == NodeStatus.COMPLETED and made.kind == old.kind and made.version == 1
        assert [n.node.id for n in project.store.neighbours(new_id_, [EdgeType.VERSION_OF])] == [old_id]
        assert old.status == NodeStatus.REJECTED and old.metadata["status_reason"] == f"superseded by {new_id_}"
        assert made.outputs[0].sha256 != old.outputs[0].sha256
    assert project.store.get_node(new[image]).inputs["lighting"] == "night"
    assert [n.node.id for n in project.store.neighbours(new[clip], [EdgeType.GENERATED_FROM])] == [new[image]]
    assert [n.node.id for n in project.store.neighbours(new[cut], [EdgeType.GENERATED_FROM])] == [new[clip]]
    assert project.store.get_node(bystander).status == NodeStatus.COMPLETED
    assert [h.version for h in project.store.node_history(image)] == [1, 2, 3]  # made, stale, superseded



def test_regenerate_stale_puts_upstream_first_whatever_the_creation_order(project: Project, runtime: Runtime):
    # An older image that was (by hand) declared generated from a newer one: creation order is the wrong order.
    poster = generate(runtime, "generate_image", prompt="a poster, order test", width=96, height=64)
    photo = generate(runtime, "generate_image", prompt="a photo, order test", width=96, height=64)
    written(call(runtime, "link_nodes", type="GENERATED_FROM", source=poster, target=photo))
    assert written(call(runtime, "mark_stale", node_id=photo)).observation["stale"] == [photo, poster]

    result = written(call(runtime, "regenerate_stale", node_ids=[poster, photo], overrides={photo: {"seed": 3}}))

    report = result.observation["regenerated"]
    assert [r["old"] for r in report] == [photo, poster]
    new = {r["old"]: r["new"] for r in report}
    # The hand-made lineage is carried over to the new versions, pointing at the new upstream.
    assert [n.node.id for n in project.store.neighbours(new[poster], [EdgeType.GENERATED_FROM])] == [new[photo]]


@pytest.mark.parametrize("with_cut", [False, True], ids=["image-clip", "image-clip-cut"])
def test_an_unchanged_regeneration_is_served_from_the_cache(project: Project, runtime: Runtime, with_cut: bool):
    generation = runtime.services["generation"]
    image, clip, cut = chain(runtime, f"a windmill at noon, cache test {with_cut}")
    nodes = [image, clip, cut] if with_cut else [image, clip]
    if not with_cut:
        written(call(runtime, "set_status", node_id=cut, status="rejected", reason="not needed"))
    written(call(runtime, "mark_stale", node_id=image))
    first = written(call(runtime, "regenerate_stale", node_ids=nodes, overrides={image: {"lighting": "night"}}))
    remade = [r["new"] for r in first.observation["regenerated"]]
    assert first.provider_calls == len(nodes)

    # The very same regeneration again: the night image marked stale, regenerated with no new overrides.
    written(call(runtime, "mark_stale", node_id=remade[0]))
    calls_before = dict(generation.provider_calls)
    again = written(call(runtime, "regenerate_stale", node_ids=remade))

    report = again.observation["regenerated"]
    assert [r["old"] for r in report] == remade
    assert [r["sha256"] for r in report] == [r["sha256"] for r in first.observation["regenerated"]]
    assert [r["cache_hit"] for r in report] == [True] * len(nodes)
    assert (again.provider_calls, again.cache_hits) == (0, len(nodes))
    assert generation.provider_calls == calls_before


def test_list_attempts_shows_versions_and_other_versions(project: Project, runtime: Runtime):
    first = generate(runtime, "generate_image", prompt="a red kite, attempts test", width=96, height=64)
    written(call(runtime, "mark_stale", node_id=first, reason="kite too small"))
    second = written(call(runtime, "regenerate_stale", node_ids=[first],
                          overrides={first: {"seed": 7}})).observation["regenerated"][0]["new"]

    older = read(call(runtime, "list_attempts", node_id=first))
    newer = read(call(runtime, "list_attempts", node_id=second))

    assert older["node_id"] == first
    assert [(h["version"], h["status"]) for h in older["history"]] == [(1, "completed"), (2, "stale"),
                                                                       (3, "rejected")]
    assert older["history"][1]["error"] == "kite too small"
    assert older["history"][2]["error"] == f"superseded by {second}"
    assert older["versions"] == [{"id": second, "status": "completed", "title": "a red kite, attempts test",
                                  "relation": "newer", "hops": 1, "reason": None}]
    assert [(v["id"], v["status"], v["relation"], v["reason"]) for v in newer["versions"]] == [
        (first, "rejected", "older", f"superseded by {second}")]
    assert [h["status"] for h in newer["history"]] == ["completed"]


def test_list_attempts_of_a_deleted_node_shows_its_history(project: Project, runtime: Runtime):
    node_id = make(runtime, "Discarded")
    written(call(runtime, "set_status", node_id=node_id, status="failed", reason="provider timed out"))
    runtime.bridge.submit(CanvasMutation(action_id=new_id(), mutations=[DeleteNode(node_id=node_id)]),
                          restoring_grant(runtime), Usage(), thread_id="t")

    attempts = read(call(runtime, "list_attempts", node_id=node_id))

    assert [(h["version"], h["status"], h["error"]) for h in attempts["history"]] == [
        (1, "pending", None), (2, "failed", "provider timed out"), (3, "failed", "provider timed out")]
    assert attempts["versions"] == []


def test_verify_artifacts_finds_damaged_and_missing_media(project: Project, runtime: Runtime):
    damaged = generate(runtime, "generate_image", prompt="a dented buoy, verify test", width=96, height=64)
    missing = generate(runtime, "generate_image", prompt="a lost anchor, verify test", width=96, height=64)
    ids = [damaged, missing]

    assert read(call(runtime, "verify_artifacts", node_ids=ids)) == {"checked": 2, "ok": True, "broken": []}

    damaged_sha = project.store.get_node(damaged).outputs[0].sha256
    path = blob_path(project, project.store.get_node(damaged).outputs[0])
    path.chmod(path.stat().st_mode | stat.S_IWUSR)
    path.write_bytes(b"not the image any more")
    report = read(call(runtime, "verify_artifacts", node_ids=ids))
    assert report["ok"] is False and report["checked"] == 2
    assert report["broken"] == [{"node_id": damaged, "sha256": damaged_sha, "problem": "hash mismatch"}]

    missing_sha = project.store.get_node(missing).outputs[0].sha256
    os.remove(blob_path(project, project.store.get_node(missing).outputs[0]))
    report = read(call(runtime, "verify_artifacts", node_ids=ids))
    assert report["broken"] == [{"node_id": damaged, "sha256": damaged_sha, "problem": "hash mismatch"},
                                {"node_id": missing, "sha256": missing_sha, "problem": "missing"}]


def blob_path(project: Project, handle: ArtifactHandle) -> Path:
    """Where the artifact store keeps a blob (local_path would refuse a damaged one)."""
    path = project.artifacts.root / handle.sha256[:2] / handle.sha256[2:]
    assert path.exists()
    return path


def test_mark_stale_on_an_unknown_node_is_rejected(project: Project, runtime: Runtime):
    ghost = new_id()

    result = call(runtime, "mark_stale", node_id=ghost)

    assert result.verdict == "reject" and f"no canvas node with id '{ghost}'" in result.message


def _rebuild(runtime: Runtime, node_ids: list[str]) -> tuple[str, Any]:
    """One turn's regenerate_stale, executed but not yet committed (as between a turn's execute and commit)."""
    grant = runtime.grant_for("test")
    action = ToolCall(action_id=new_id(), tool="regenerate_stale", args={"node_ids": node_ids})
    ctx = runtime.bridge.context(actor="agent", thread_id="t", turn_id=new_id(), usage=Usage(), grant_id=grant.id,
                                 action_id=action.action_id, progress=None)
    result = runtime.bridge.execute(action, ctx)
    assert "error" not in result.observation, result.observation
    ticket = runtime.bridge.authorize(action.action_id, result.mutations, grant, Usage())
    return action.action_id, lambda: runtime.bridge.commit(result.mutations, ticket, thread_id="t",
                                                           action_id=action.action_id, actor="agent")


def _live_versions(project: Project, title: str) -> list[str]:
    return [n.id for n in project.store.find_nodes(kind="video") if n.title == title and n.status != NodeStatus.REJECTED]


def test_two_rebuilds_of_one_head_never_both_commit(project: Project, runtime: Runtime):
    image, clip, _ = chain(runtime, "a pier at dawn, two rebuilds test")
    title = "pier cut, two rebuilds test"  # the module's other tests make cuts too
    cut = generate(runtime, "assemble_cut", clip_node_ids=[clip], title=title)
    written(call(runtime, "mark_stale", node_id=cut))
    _, first = _rebuild(runtime, [cut])
    _, second = _rebuild(runtime, [cut])  # built on the same head, before the first one commits

    first()
    with pytest.raises(StaleVersion) as refused:
        second()
    assert refused.value.node_id == cut  # the head it meant to supersede is no longer the head
    assert len(_live_versions(project, title)) == 1
    # Run again on the current canvas, the rebuild supersedes the new head: still exactly one current version.
    head = _live_versions(project, title)[0]
    written(call(runtime, "mark_stale", node_id=head))
    _, again = _rebuild(runtime, [cut])
    again()
    assert len(_live_versions(project, title)) == 1 and _live_versions(project, title) != [head]


def test_a_rebuild_whose_input_changed_after_it_read_it_is_refused(project: Project, runtime: Runtime):
    first_image, first_clip, _ = chain(runtime, "a quay at noon, changed input test")
    second_clip = generate(runtime, "generate_video", source_node_id=first_image, camera="zoom", duration_s=0.5,
                           fps=6, title="second clip")
    cut = generate(runtime, "assemble_cut", clip_node_ids=[first_clip, second_clip])
    written(call(runtime, "mark_stale", node_ids=[cut]))
    _, rebuild = _rebuild(runtime, [cut])
    # Another turn changes one of the cut's clips before this rebuild commits; the cut itself is untouched.
    written(call(runtime, "set_status", node_id=second_clip, status="selected"))

    with pytest.raises(StaleVersion) as refused:
        rebuild()
    assert refused.value.node_id == second_clip
    assert project.store.get_node(cut).status == NodeStatus.STALE  # nothing was written
