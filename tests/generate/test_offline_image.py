"""The offline image provider shows what a request changed: character, scene, palette, lighting, caption."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from tools.generate.base import ImageRequest, Lighting, ReferenceInput, ReferenceRole
from tools.generate.measure import colour_fraction, image_stats
from tools.generate.offline_image import OfflineImageProvider, character_look, png_bytes, render_image

MIRA = ReferenceInput(
    node_id="mira",
    role=ReferenceRole.CHARACTER,
    inputs={"name": "Mira", "colors": ["#c0392b", "#f5cba7"], "shape": "round"},
)
# A character with no colours of its own: its look comes from its artifact hash and inputs.
ODO = ReferenceInput(node_id="odo", role=ReferenceRole.CHARACTER, sha256="ab" * 32, inputs={"name": "Odo"})
KAI = ReferenceInput(node_id="kai", role=ReferenceRole.CHARACTER, sha256="cd" * 32, inputs={"name": "Kai"})


def _png(**fields) -> bytes:
    return OfflineImageProvider().generate(ImageRequest(**fields)).read_bytes()


def test_same_request_gives_identical_png_and_seed_changes_it():
    request = {"prompt": "Mira at the harbour", "seed": 7, "references": [MIRA]}
    first, again = _png(**request), _png(**request)
    assert first == again
    assert first[:8] == b"\x89PNG\r\n\x1a\n"
    assert _png(**{**request, "seed": 8}) != first


def test_output_has_the_requested_size():
    with Image.open(io.BytesIO(_png(prompt="a wide shot", width=320, height=192))) as im:
        assert im.size == (320, 192)


@pytest.mark.parametrize("character", [MIRA, ODO])
def test_same_character_keeps_its_colours_across_prompts_seeds_and_scenes(character):
    look = character_look(character)
    shots = [
        _png(prompt="walking through a forest at dawn", seed=1, references=[character]),
        _png(prompt="standing in a busy city street", seed=99, references=[character]),
    ]
    for shot in shots:
        assert colour_fraction(shot, look.body, tolerance=0) > 0.01
        assert colour_fraction(shot, look.head, tolerance=0) > 0.002


def test_named_colours_are_used_and_different_characters_look_different():
    assert (character_look(MIRA).body, character_look(MIRA).head) == ("#c0392b", "#f5cba7")
    odo, kai = character_look(ODO), character_look(KAI)
    assert (odo.body, odo.head) != (kai.body, kai.head)
    shot = _png(prompt="Odo alone", references=[ODO])
    assert colour_fraction(shot, odo.body, tolerance=0) > 0.01
    assert colour_fraction(shot, kai.body, tolerance=0) == 0.0


def test_character_look_ignores_node_id_but_follows_inputs():
    renamed = MIRA.model_copy(update={"node_id": "other-node"})
    assert character_look(renamed) == character_look(MIRA)
    recoloured = MIRA.model_copy(update={"inputs": {**MIRA.inputs, "colors": ["#2e86c1"]}})
    assert character_look(recoloured).body == "#2e86c1"


def test_lighting_moves_brightness_and_warmth_in_the_expected_direction():
    stats = {
        lighting: image_stats(_png(prompt="a quiet harbour", seed=3, references=[MIRA], lighting=lighting))
        for lighting in Lighting
    }
    neutral = stats[Lighting.NEUTRAL]
    assert stats[Lighting.WARM].warmth > neutral.warmth + 30
    assert stats[Lighting.COLD].warmth < neutral.warmth - 30
    assert stats[Lighting.NIGHT].mean_brightness < 0.5 * neutral.mean_brightness
    assert stats[Lighting.HIGH_KEY].mean_brightness > neutral.mean_brightness + 30
    assert stats[Lighting.HIGH_KEY].mean_brightness > stats[Lighting.WARM].mean_brightness


def test_scene_comes_from_the_scene_reference_not_the_prompt():
    sea = ReferenceInput(
        node_id="s", role=ReferenceRole.SCENE, inputs={"setting": "sea", "colors": ["#112233", "#223344", "#e6d3a3"]}
    )
    a = _png(prompt="a city street", references=[sea], seed=1)
    b = _png(prompt="a dark forest", references=[sea], seed=1)
    for shot in (a, b):
        assert colour_fraction(shot, "#e6d3a3", tolerance=0) > 0.2  # the scene's ground


def test_palette_recolours_the_scene():
    palette = ["#204060", "#406080", "#7a9a3a", "#101010"]
    shot = _png(prompt="rolling hills", palette=palette)
    assert colour_fraction(shot, "#7a9a3a", tolerance=0) > 0.2
    assert colour_fraction(_png(prompt="rolling hills"), "#7a9a3a", tolerance=0) == 0.0


def test_caption_writes_the_prompt():
    def caption(png: bytes) -> np.ndarray:
        with Image.open(io.BytesIO(png)) as im:
            rgb = np.asarray(im.convert("RGB"))
        return rgb[-rgb.shape[0] // 24 :]

    one, other = caption(_png(prompt="first words")), caption(_png(prompt="other words entirely"))
    assert (one > 200).any(), "caption text is light on a dark strip"
    assert not np.array_equal(one, other)


def test_edit_keeps_the_source_and_applies_the_change(tmp_path):
    source_png = _png(prompt="Mira at the harbour", references=[MIRA])
    path = tmp_path / "source.png"
    path.write_bytes(source_png)
    source = ReferenceInput(node_id="img", role=ReferenceRole.SOURCE, path=path, mime="image/png")
    request = ImageRequest(prompt="make it night", source=source, lighting=Lighting.NIGHT)
    assert request.mode.value == "edit"
    edited = OfflineImageProvider().generate(request).read_bytes()
    assert image_stats(edited).mean_brightness < 0.5 * image_stats(source_png).mean_brightness
    neutral_edit = png_bytes(render_image(request.model_copy(update={"lighting": Lighting.NEUTRAL})))
    assert colour_fraction(neutral_edit, "#c0392b", tolerance=12) > 0.01  # Mira is still there


def test_image_stats_reports_dominant_colours():
    stats = image_stats(_png(prompt="rolling hills", palette=["#204060", "#406080", "#7a9a3a", "#101010"]))
    assert "#789838" in stats.dominant_colours[:3]  # the ground #7a9a3a, binned to 16 levels per channel
    assert 0 < stats.mean_brightness < 255
