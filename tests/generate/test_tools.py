"""The generation tools: build a canvas, run the tools, apply what they propose, look at the canvas."""

from __future__ import annotations

import pytest

from store.models import EdgeType, NodeStatus
from store.mutations import CreateNode, Link
from tools.base import Effect, ToolError, ToolFamily
from tools.generate.measure import colour_fraction, image_stats, probe_video, wav_info
from tools.generate.tools import (
    ASSEMBLE_CUT,
    GENERATE_AUDIO,
    GENERATE_IMAGE,
    GENERATE_VIDEO,
    GENERATION_TOOLS,
    GenerateImageArgs,
    GenerateVideoArgs,
)
from tools.recovery import regeneration_args


def _run(spec, ctx, **args):
    result = spec.run(ctx, spec.args_schema(**args))
    ctx.services["test_canvas"].apply(result.mutations)
    return result


def _edges(canvas, node_id):
    return {(e.type, e.target): e.properties for e in canvas.edges_from(node_id)}


def test_specs_describe_the_family():
    assert [s.name for s in GENERATION_TOOLS] == ["generate_image", "generate_video", "generate_audio", "assemble_cut"]
    assert all(s.family is ToolFamily.GENERATION for s in GENERATION_TOOLS)
    for spec in (GENERATE_IMAGE, GENERATE_VIDEO, GENERATE_AUDIO):
        assert {Effect.GENERATES_MEDIA, Effect.MUTATES_CANVAS, Effect.COST_BEARING} <= spec.effects
    assert Effect.LONG_RUNNING in GENERATE_VIDEO.effects
    assert GENERATE_VIDEO.json_schema()["properties"]["duration_s"]["exclusiveMinimum"] == 0


def test_a_tool_schema_is_the_models_and_each_caller_gets_its_own_copy():
    """The schemas are made once per model (every runtime's manifest reads them); a caller that changes the one it
    got changes nobody else's."""
    first = GENERATE_VIDEO.json_schema()
    assert first == GENERATE_VIDEO.args_schema.model_json_schema()
    first["properties"]["duration_s"]["exclusiveMinimum"] = 5
    first["properties"]["changed"] = {"type": "string"}
    assert GENERATE_VIDEO.json_schema() == GENERATE_VIDEO.args_schema.model_json_schema()


def test_generate_image_creates_a_completed_node_that_references_its_character_and_scene(ctx, fake_canvas, artifacts):
    result = _run(
        GENERATE_IMAGE, ctx, prompt="Mira on the pier", references=["mira", "harbour"], node_id="shot-1", seed=2
    )
    create, *links = result.mutations
    assert isinstance(create, CreateNode) and all(isinstance(m, Link) for m in links)
    node = fake_canvas.nodes["shot-1"]
    assert (node.kind, node.status) == ("image", NodeStatus.COMPLETED)
    assert node.inputs["prompt"] == "Mira on the pier" and node.inputs["seed"] == 2
    assert node.inputs["references"] == [
        {"node_id": "mira", "role": "character"},
        {"node_id": "harbour", "role": "scene"},
    ]
    assert node.provenance.tool == "generate_image" and node.provenance.actor == "agent"
    assert (node.provenance.provider, node.provenance.model) == ("offline", "offline-image-v1")
    assert node.metadata["cache_hit"] is False and len(node.metadata["signature"]) == 64
    assert node.metadata["timings"]["provider_s"] > 0
    assert _edges(fake_canvas, "shot-1") == {
        (EdgeType.REFERENCES, "mira"): {"role": "character"},
        (EdgeType.REFERENCES, "harbour"): {"role": "scene"},
    }
    png = artifacts.read_bytes(node.outputs[0])
    assert colour_fraction(png, "#c0392b", tolerance=0) > 0.01  # Mira's own colour is in the picture
    assert result.observation == {
        "node_id": "shot-1",
        "kind": "image",
        "sha256": node.outputs[0].sha256,
        "mime": "image/png",
        "cache_hit": False,
        "provider": "offline",
        "model": "offline-image-v1",
        "width": 512,
        "height": 512,
    }
    assert (result.provider_calls, result.cache_hits) == (1, 0)


def test_a_new_version_links_to_the_old_one_and_repeats_are_cache_hits(ctx, fake_canvas):
    _run(GENERATE_IMAGE, ctx, prompt="Mira on the pier", references=["mira"], node_id="v1")
    night = _run(
        GENERATE_IMAGE,
        ctx,
        prompt="Mira on the pier",
        references=["mira"],
        lighting="night",
        version_of="v1",
        node_id="v2",
    )
    assert (EdgeType.VERSION_OF, "v1") in _edges(fake_canvas, "v2")
    assert not night.observation["cache_hit"]
    again = _run(GENERATE_IMAGE, ctx, prompt="Mira on the pier", references=["mira"], lighting="night", node_id="v3")
    assert again.observation["cache_hit"] and (again.provider_calls, again.cache_hits) == (0, 1)
    assert fake_canvas.nodes["v3"].outputs == fake_canvas.nodes["v2"].outputs


def test_edit_is_generated_from_the_image_it_edits(ctx, fake_canvas, artifacts):
    _run(GENERATE_IMAGE, ctx, prompt="Mira on the pier", references=["mira"], node_id="day")
    _run(GENERATE_IMAGE, ctx, prompt="make it night", edit_node_id="day", lighting="night", node_id="night")
    assert _edges(fake_canvas, "night") == {(EdgeType.GENERATED_FROM, "day"): {"as": "edit"}}
    day, night = (artifacts.read_bytes(fake_canvas.nodes[n].outputs[0]) for n in ("day", "night"))
    assert image_stats(night).mean_brightness < 0.5 * image_stats(day).mean_brightness


def test_image_to_clips_to_cut(ctx, fake_canvas, artifacts):
    _run(GENERATE_IMAGE, ctx, prompt="Mira on the pier", references=["mira"], node_id="still", width=320, height=192)
    for i, camera in enumerate(["pan", "zoom"]):
        clip = _run(
            GENERATE_VIDEO, ctx, source_node_id="still", camera=camera, duration_s=1, fps=12, node_id=f"clip-{i}"
        )
        assert clip.observation["duration_s"] == 1.0
        assert _edges(fake_canvas, f"clip-{i}") == {(EdgeType.GENERATED_FROM, "still"): {"as": "source"}}
        assert fake_canvas.nodes[f"clip-{i}"].kind == "video"
    _run(ASSEMBLE_CUT, ctx, clip_node_ids=["clip-0", "clip-1"], node_id="cut", title="Pier, rough cut")
    assert _edges(fake_canvas, "cut") == {
        (EdgeType.GENERATED_FROM, "clip-0"): {"as": "clip", "order": 0},
        (EdgeType.GENERATED_FROM, "clip-1"): {"as": "clip", "order": 1},
    }
    node = fake_canvas.nodes["cut"]
    assert (node.kind, node.title, node.provenance.provider) == ("video", "Pier, rough cut", "ffmpeg")
    info = probe_video(artifacts.local_path(node.outputs[0]))
    assert info.duration_s == pytest.approx(2.0, abs=0.05) and (info.width, info.height) == (320, 192)


def test_generate_audio_creates_an_audio_node(ctx, fake_canvas, artifacts):
    result = _run(
        GENERATE_AUDIO,
        ctx,
        kind="ambience",
        prompt="gulls and rigging",
        duration_s=1.5,
        node_id="bed",
        references=["harbour"],
    )
    node = fake_canvas.nodes["bed"]
    assert node.kind == "audio" and node.inputs["kind"] == "ambience"
    assert _edges(fake_canvas, "bed") == {(EdgeType.REFERENCES, "harbour"): {"role": "scene"}}
    assert wav_info(artifacts.read_bytes(node.outputs[0])).duration_s == pytest.approx(1.5)
    assert result.observation["duration_s"] == pytest.approx(1.5)


def test_a_node_made_by_a_tool_can_be_made_again_from_its_inputs(ctx, fake_canvas):
    # Regeneration (tools/recovery.py) rebuilds the tool's arguments from the node's inputs.
    _run(GENERATE_IMAGE, ctx, prompt="Mira", references=["mira"], node_id="img", width=128, height=128)
    _run(GENERATE_VIDEO, ctx, source_node_id="img", duration_s=0.5, fps=8, node_id="clip")
    _run(ASSEMBLE_CUT, ctx, clip_node_ids=["clip"], node_id="cut")
    _run(GENERATE_AUDIO, ctx, prompt="hello", node_id="line")
    for node_id, spec in (
        ("img", GENERATE_IMAGE),
        ("clip", GENERATE_VIDEO),
        ("cut", ASSEMBLE_CUT),
        ("line", GENERATE_AUDIO),
    ):
        node = fake_canvas.nodes[node_id]
        args = regeneration_args(node, {}, {"seed": 1} if spec is not ASSEMBLE_CUT else {})
        again = spec.run(ctx, spec.args_schema.model_validate(args))
        assert (EdgeType.VERSION_OF, node_id) in {(m.type, m.target) for m in again.mutations if isinstance(m, Link)}


def test_unknown_reference_is_an_error_naming_the_id(ctx):
    with pytest.raises(ToolError, match="'ghost'"):
        GENERATE_IMAGE.run(ctx, GenerateImageArgs(prompt="x", references=["mira", "ghost"]))


def test_role_override_and_a_stray_role(ctx, fake_canvas):
    result = GENERATE_IMAGE.run(
        ctx, GenerateImageArgs(prompt="x", references=["harbour"], reference_roles={"harbour": "style"})
    )
    assert result.mutations[1].properties == {"role": "style"}
    with pytest.raises(ToolError, match="reference_roles names 'mira', which is not in references"):
        GENERATE_IMAGE.run(ctx, GenerateImageArgs(prompt="x", references=["harbour"], reference_roles={"mira": "prop"}))


def test_source_without_an_image_is_an_error_the_model_can_act_on(ctx):
    with pytest.raises(ToolError, match="node mira \\(reference\\) has no image output"):
        GENERATE_VIDEO.run(ctx, GenerateVideoArgs(source_node_id="mira"))


def test_cut_of_a_node_without_video_is_an_error(ctx):
    _run(GENERATE_IMAGE, ctx, prompt="a still", node_id="still", width=64, height=64)
    with pytest.raises(ToolError, match="node still \\(image\\) has no video output"):
        ASSEMBLE_CUT.run(ctx, {"clip_node_ids": ["still"]})


@pytest.mark.parametrize(
    "args",
    [
        GenerateVideoArgs.model_construct(prompt="x", duration_s=-2.0),  # skipped validation upstream
        {"prompt": "x", "duration_s": -2},  # a raw tool call
    ],
)
def test_negative_duration_is_refused(ctx, args):
    with pytest.raises(ToolError, match="duration_s: Input should be greater than 0"):
        GENERATE_VIDEO.run(ctx, args)


def test_missing_service_is_reported(ctx):
    ctx.services.clear()
    with pytest.raises(ToolError, match="no generation service"):
        GENERATE_IMAGE.run(ctx, GenerateImageArgs(prompt="x"))
