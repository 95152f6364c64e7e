"""The narrative workflow end to end, then the local repair that motivates the project."""

from __future__ import annotations

import collections

import pytest

from store.models import EdgeType, NodeStatus
from tools.generate.measure import image_stats, probe_video

N_SHOTS = 8


@pytest.fixture(scope="module")
def narrative(project):
    from jarvishub.runtime import Runtime

    runtime = Runtime(project)
    outcome = runtime.run(f"a {N_SHOTS}-shot short drama about a lighthouse keeper and a message in a bottle")
    assert outcome.outcome == "replied", outcome.reply
    yield runtime, outcome
    runtime.close()


def _current(store, kind):
    return {n.title: n for n in store.find_nodes(kind=kind) if n.status != NodeStatus.REJECTED}


def test_every_intermediate_is_a_node_with_its_edges(narrative, project):
    store = project.store
    shots, images, clips = _current(store, "shot"), _current(store, "image"), _current(store, "video")
    assert sorted(shots) == sorted(f"shot {i}" for i in range(1, N_SHOTS + 1))
    assert len(store.find_nodes(kind="plan")) == 1
    cut = clips.pop("final cut")
    assert len(images) == N_SHOTS and len(clips) == N_SHOTS
    character = next(n for n in store.find_nodes(kind="reference") if n.inputs.get("role") == "character")
    for i in range(1, N_SHOTS + 1):
        image, clip = images[f"shot {i} image"], clips[f"shot {i} clip"]
        assert character.id in {n.node.id for n in store.neighbours(image.id, [EdgeType.REFERENCES])}
        assert shots[f"shot {i}"].id in {n.node.id for n in store.neighbours(image.id, [EdgeType.GENERATED_FROM])}
        assert [n.node.id for n in store.neighbours(clip.id, [EdgeType.GENERATED_FROM])] == [image.id]
    assert {n.node.id for n in store.neighbours(cut.id, [EdgeType.GENERATED_FROM])} == {c.id for c in clips.values()}
    continues = [e for e in store.edges() if e.type == EdgeType.CONTINUES]
    assert len(continues) == N_SHOTS - 1
    cut_info = probe_video(project.artifacts.local_path(cut.outputs[0]))
    clip_seconds = sum(probe_video(project.artifacts.local_path(c.outputs[0])).duration_s for c in clips.values())
    assert cut_info.codec == "h264" and cut_info.duration_s == pytest.approx(clip_seconds, abs=0.2)


def test_redo_the_lighting_on_shot_7_regenerates_only_what_depends_on_it(narrative, project):
    runtime, _ = narrative
    store = project.store
    generation = runtime.services["generation"]
    before_images, before_clips = _current(store, "image"), _current(store, "video")
    character = next(n for n in store.find_nodes(kind="reference") if n.inputs.get("role") == "character")
    hashes_before = {t: n.outputs[0].sha256 for t, n in {**before_images, **before_clips}.items()}
    calls_before = dict(generation.provider_calls)

    outcome = runtime.run("keep the character but redo the lighting on shot 7")
    assert outcome.outcome == "replied"

    after_images, after_clips = _current(store, "image"), _current(store, "video")
    hashes_after = {t: n.outputs[0].sha256 for t, n in {**after_images, **after_clips}.items()}
    changed = sorted(t for t in hashes_before if hashes_before[t] != hashes_after[t])
    assert changed == ["final cut", "shot 7 clip", "shot 7 image"]
    assert store.get_node(character.id).outputs == character.outputs and store.get_node(character.id).version == character.version
    # Exactly one image call and two video calls (the clip and the cut): nothing else was paid for.
    made = {m: generation.provider_calls[m] - calls_before.get(m, 0) for m in generation.provider_calls}
    assert made == {"image": 1, "video": 2, "audio": 0}

    new_image, old_image = after_images["shot 7 image"], before_images["shot 7 image"]
    assert [n.node.id for n in store.neighbours(new_image.id, [EdgeType.VERSION_OF])] == [old_image.id]
    assert character.id in {n.node.id for n in store.neighbours(new_image.id, [EdgeType.REFERENCES])}
    assert new_image.inputs["lighting"] != old_image.inputs["lighting"]
    old_stats = image_stats(project.artifacts.read_bytes(old_image.outputs[0]))
    new_stats = image_stats(project.artifacts.read_bytes(new_image.outputs[0]))
    assert (new_stats.mean_brightness, new_stats.warmth) != (old_stats.mean_brightness, old_stats.warmth)
    # The old version stays queryable, marked as superseded.
    rows = store.query("MATCH (n:CanvasNode) WHERE n.title = 'shot 7 image' AND n.status = 'rejected' "
                       "RETURN n.id AS id, n.metadata_json AS m").rows
    assert [r["id"] for r in rows] == [old_image.id] and "superseded" in rows[0]["m"]
    # The turn is recorded with the feedback-driven repair and reports what it did.
    turn = runtime.trajectories.turns(outcome.thread_id)[-1]
    # The view resolved shot 7 before the model was called: one repair call (mark and regenerate), then the reply.
    assert [a.get("tool") for a in turn["actions"]] == ["repair", None]
    assert "shot 7" in outcome.reply and "Reused" in outcome.reply
    counts = collections.Counter(t for t in hashes_after)
    assert counts["shot 7 image"] == 1
