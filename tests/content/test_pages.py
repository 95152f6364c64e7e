"""Web pages from a brief's meaning, measured in the output: the Chromium preview's pixels, computed styles, words.

Two briefs that ask for opposite looks go through ``design_to_web`` as an agent
calls it (bridge, real store, offline images, the system Chromium): a quiet,
editorial, black-and-white studio and a bold, dark, neon nightclub.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from jarvishub.runtime import Runtime
from nodes.actions import ToolCall
from nodes.bridge import Usage
from store.models import new_id
from tests.content.measure import (
    COMMON_WORDS,
    brief_overlap,
    computed,
    generic_family,
    longest_shared_run,
    luma_and_saturation,
    max_channel_spread,
    page_styles,
    visible_words,
)

pytestmark = pytest.mark.system_tool("chromium", apt="chromium")  # the page is rendered by the system Chromium

EDITORIAL = "a website for a photography studio: quiet, editorial, lots of white space, black-and-white portraits"
NIGHTCLUB = "a website for a nightclub: bold, dark, neon"


def design(runtime: Runtime, brief: str) -> dict[str, Any]:
    grant = runtime.grant_for(f"design a page: {brief}")
    call = ToolCall(action_id=new_id(), tool="skill__design_to_web", args={"brief": brief})
    result = runtime.bridge.submit(call, grant, Usage(), thread_id="content-web")
    assert result.verdict == "allow" and "error" not in result.observation, result
    return result.observation


@pytest.fixture(scope="module")
def pages(runtime: Runtime) -> dict[str, dict[str, Any]]:
    return {"editorial": design(runtime, EDITORIAL), "nightclub": design(runtime, NIGHTCLUB)}


def preview_png(runtime: Runtime, page: dict[str, Any]) -> bytes:
    (handle,) = runtime.project.store.get_node(page["preview_id"]).outputs
    return runtime.project.artifacts.read_bytes(handle)


def html_file(runtime: Runtime, page: dict[str, Any]) -> Path:
    return runtime.project.workspace / page["html_path"]


def test_the_editorial_black_and_white_brief_renders_light_and_colourless(runtime: Runtime, pages) -> None:
    luma, saturation = luma_and_saturation(preview_png(runtime, pages["editorial"]))
    assert luma > 200, f"a quiet, white-space page should be light; mean luma {luma:.0f}"
    assert saturation < 0.02, f"black-and-white asks for no colour; mean saturation {saturation:.3f}"


def test_the_editorial_gallery_images_are_drawn_in_greys(runtime: Runtime, pages) -> None:
    store, artifacts = runtime.project.store, runtime.project.artifacts
    for image_id in pages["editorial"]["image_ids"]:
        image = store.get_node(image_id)
        assert "Black-and-white photograph" in image.inputs["prompt"]
        # The offline renderer paints the scene in the grey palette (its small sun keeps a pale yellow).
        assert luma_and_saturation(artifacts.read_bytes(image.outputs[0]))[1] < 0.03


def test_the_nightclub_brief_measures_dark_and_saturated(runtime: Runtime, pages) -> None:
    editorial = luma_and_saturation(preview_png(runtime, pages["editorial"]))
    luma, saturation = luma_and_saturation(preview_png(runtime, pages["nightclub"]))
    assert luma < 90, f"a dark page should measure dark; mean luma {luma:.0f}"
    assert saturation > 0.3, f"neon asks for strong colour; mean saturation {saturation:.3f}"
    assert luma < editorial[0] - 100 and saturation > editorial[1] + 0.25
    store, artifacts = runtime.project.store, runtime.project.artifacts
    handle = store.get_node(pages["nightclub"]["image_ids"][0]).outputs[0]
    assert max_channel_spread(artifacts.read_bytes(handle)) > 100  # colour pictures


def test_editorial_headings_are_serif_with_generous_spacing(runtime: Runtime, pages) -> None:
    with page_styles(html_file(runtime, pages["editorial"])) as view:
        heading = computed(view, "h1", "font-family")
        gallery_padding = float(computed(view, "section.gallery", "padding-top").removesuffix("px"))
        image_filter = computed(view, "figure img", "filter")
        background = computed(view, "body", "background-color")
    with page_styles(html_file(runtime, pages["nightclub"])) as view:
        club_heading = computed(view, "h1", "font-family")
        club_padding = float(computed(view, "section.gallery", "padding-top").removesuffix("px"))
        club_weight = computed(view, "h1", "font-weight")
        club_filter = computed(view, "figure img", "filter")
    assert generic_family(heading) == "serif", heading
    assert generic_family(club_heading) == "sans-serif", club_heading
    assert gallery_padding >= 100 > club_padding
    assert image_filter == "grayscale(1)" and club_filter == "none"
    assert background == "rgb(247, 247, 247)"  # paper, not a dark theme
    assert club_weight == "900"


@pytest.mark.parametrize(("which", "names"), [("editorial", {"photography", "studio", "portraits"}),
                                              ("nightclub", {"nightclub"})])
def test_the_page_writes_its_own_copy_instead_of_pasting_the_brief(runtime: Runtime, pages, which: str,
                                                                   names: set[str]) -> None:
    brief = EDITORIAL if which == "editorial" else NIGHTCLUB
    html = html_file(runtime, pages[which]).read_text()
    overlapping, shown = brief_overlap(html, brief)
    assert shown >= 60, "the page has real copy"
    assert overlapping / shown < 0.2, f"{overlapping} of {shown} words come from the brief"
    # Only the subject's own names come back; the brief's adjectives and sentences do not.
    assert set(visible_words(html)) & set(re.findall(r"[a-z]+", brief)) - COMMON_WORDS <= names
    assert longest_shared_run(html, brief) <= 3  # "a photography studio", never a clause of the brief


def test_the_subject_and_focus_fill_the_copy(runtime: Runtime, pages) -> None:
    html = html_file(runtime, pages["editorial"]).read_text()
    assert "Photography Studio" in html and "We are a photography studio" in html
    assert "Selected portraits" in html
