"""design_to_web and web_revise, invoked as an agent would (through the bridge), on a real store and Chromium."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from content.web_render import LayoutSpec
from jarvishub.runtime import Runtime
from nodes.actions import ToolCall
from nodes.bridge import SubmitResult, Usage
from skills.design_to_web import LayoutChangeRejected, parse_change
from store.models import CanvasNode, EdgeType, NodeStatus, new_id
from tests.system_tools import require_system_tool

BRIEF = "A harbour cafe with fresh fish, ocean views and slow mornings"
SECTIONS = ["hero", "gallery", "about", "contact"]


DESIGN_ARGS = {"brief": BRIEF, "sections": SECTIONS, "n_layouts": 2}
DESIGN_ACTION = new_id()


def invoke(runtime: Runtime, skill: str, args: dict[str, Any], request: str, selected: list[str] | None = None,
           usage: Usage | None = None, action_id: str | None = None) -> SubmitResult:
    grant = runtime.grant_for(request, selected=selected)
    call = ToolCall(action_id=action_id or new_id(), tool=f"skill__{skill}", args=args)
    return runtime.bridge.submit(call, grant, usage or Usage(), thread_id="web-thread")


@pytest.fixture(scope="module")
def design(runtime: Runtime) -> dict[str, Any]:
    require_system_tool("chromium", apt="chromium")  # the page preview is a Chromium screenshot
    result = invoke(runtime, "design_to_web", DESIGN_ARGS, "design a website for the cafe", action_id=DESIGN_ACTION)
    assert result.verdict == "allow" and "error" not in result.observation, result
    return result.observation


def node(runtime: Runtime, node_id: str) -> CanvasNode:
    return runtime.project.store.get_node(node_id)


def targets(runtime: Runtime, node_id: str, edge: EdgeType) -> set[str]:
    return {n.node.id for n in runtime.project.store.neighbours(node_id, [edge])}


def png_of(runtime: Runtime, image: CanvasNode) -> Image.Image:
    (handle,) = image.outputs
    assert handle.mime == "image/png"
    return Image.open(io.BytesIO(runtime.project.artifacts.read_bytes(handle)))


def test_design_makes_styles_images_and_layouts_with_one_selected(runtime: Runtime, design: dict[str, Any]) -> None:
    styles = [node(runtime, i) for i in design["style_ids"]]
    assert [s.kind for s in styles] == ["reference", "reference"]
    assert all(s.inputs["role"] == "style" for s in styles)
    assert styles[0].inputs["colours"] and set(styles[1].inputs["fonts"]) == {"name", "heading", "body"}

    assert 3 <= len(design["image_ids"]) <= 4
    for image_id in design["image_ids"]:
        image = node(runtime, image_id)
        assert image.kind == "image" and image.status == NodeStatus.COMPLETED
        assert targets(runtime, image_id, EdgeType.REFERENCES) >= set(design["style_ids"])

    layouts = [node(runtime, i) for i in design["layout_ids"]]
    assert [l.title for l in layouts] == ["layout A", "layout B"]
    assert all(l.kind == "plan" for l in layouts)
    specs = [LayoutSpec.model_validate(l.inputs["layout_spec"]) for l in layouts]
    assert len({s.model_dump_json() for s in specs}) == 2
    assert all(sorted(s.sections) == sorted(SECTIONS) and s.hero == "contained" for s in specs)
    statuses = {l.id: l.status for l in layouts}
    assert statuses[design["selected_layout_id"]] == NodeStatus.SELECTED
    assert sorted(statuses.values()) == sorted([NodeStatus.SELECTED, NodeStatus.REJECTED])


def test_design_writes_a_page_with_every_section_that_uses_the_images(runtime: Runtime, design: dict[str, Any]) -> None:
    code = node(runtime, design["code_id"])
    assert code.kind == "code" and code.inputs["language"] == "html"
    assert code.inputs["html_path"] == design["html_path"]
    assert targets(runtime, code.id, EdgeType.GENERATED_FROM) == {design["selected_layout_id"]}
    assert targets(runtime, code.id, EdgeType.REFERENCES) == set(design["image_ids"])

    workspace = runtime.project.workspace
    page = workspace / design["html_path"]
    html = page.read_text()
    assert html == code.inputs["source"]
    assert runtime.project.artifacts.read_bytes(code.inputs["html_uri"]).decode() == html
    for section in SECTIONS:
        assert f'<section id="{section}"' in html
    assert "<style>" in html and "grid-template-columns" in html
    for image_id, spec in zip(design["image_ids"], code.inputs["images"], strict=True):
        assert spec["node_id"] == image_id and f'src="{spec["path"]}"' in html
        on_disk = (page.parent / spec["path"]).read_bytes()
        assert hashlib.sha256(on_disk).hexdigest() == node(runtime, image_id).outputs[0].sha256


def test_design_preview_is_a_viewport_screenshot_generated_from_the_code(
    runtime: Runtime, design: dict[str, Any]
) -> None:
    preview = node(runtime, design["preview_id"])
    assert preview.kind == "image" and preview.metadata["blocked_requests"] == []
    assert targets(runtime, preview.id, EdgeType.GENERATED_FROM) == {design["code_id"]}
    picture = png_of(runtime, preview)
    assert picture.size == (1280, 800)
    assert len(picture.convert("RGB").getcolors(1 << 20) or []) > 50  # a page with photos, not a blank frame


def test_running_the_same_design_action_again_replays_its_committed_steps(
    runtime: Runtime, design: dict[str, Any]
) -> None:
    before = runtime.project.store.canvas_version()
    again = invoke(runtime, "design_to_web", DESIGN_ARGS, "design a website for the cafe", action_id=DESIGN_ACTION)
    assert again.observation == design and again.provider_calls == 0
    assert runtime.project.store.canvas_version() == before


def test_revise_makes_a_new_code_version_and_preview_and_reuses_the_images(
    runtime: Runtime, design: dict[str, Any]
) -> None:
    store = runtime.project.store
    images_before = {n.id: (n.version, n.outputs[0].sha256) for n in store.find_nodes(kind="image")}
    usage = Usage()
    result = invoke(runtime, "web_revise", {"code_id": design["code_id"], "change": "make the hero full-bleed"},
                    "make the hero full-bleed", selected=[design["code_id"]], usage=usage)
    assert result.verdict == "allow" and "error" not in result.observation, result
    revised = result.observation
    assert revised["previous_code_id"] == design["code_id"] and revised["code_id"] != design["code_id"]

    code = node(runtime, revised["code_id"])
    assert code.kind == "code" and code.status == NodeStatus.COMPLETED
    assert targets(runtime, code.id, EdgeType.VERSION_OF) == {design["code_id"]}
    assert code.inputs["layout_spec"]["hero"] == "full-bleed"
    # One page, one path: the workspace's index.html is the current version; the old one stays an artifact.
    assert code.inputs["html_path"] == revised["html_path"] == design["html_path"]
    html = (runtime.project.workspace / revised["html_path"]).read_text()
    assert 'class="hero hero--full-bleed"' in html and html == code.inputs["source"]
    old_html = runtime.project.artifacts.read_bytes(node(runtime, design["code_id"]).inputs["html_uri"]).decode()
    assert 'class="hero hero--contained"' in old_html
    assert targets(runtime, code.id, EdgeType.REFERENCES) == set(design["image_ids"])
    assert code.inputs["change"]["edits"] == [{"field": "layout:hero", "from": "contained", "to": "full-bleed",
                                               "detail": {}}]
    # The version it replaced, with its file and preview, is set aside (kept, readable), so one page is current.
    assert node(runtime, design["code_id"]).status == NodeStatus.REJECTED
    assert node(runtime, design["preview_id"]).status == NodeStatus.REJECTED

    preview = node(runtime, revised["preview_id"])
    assert targets(runtime, preview.id, EdgeType.GENERATED_FROM) == {code.id}
    assert png_of(runtime, preview).size == (1280, 800)
    assert preview.outputs[0].sha256 != node(runtime, design["preview_id"]).outputs[0].sha256

    # Nothing else was regenerated: the only new image node is the preview, the gallery is untouched (the old
    # preview only changed status).
    images_after = {n.id: (n.version, n.outputs[0].sha256) for n in store.find_nodes(kind="image")}
    assert set(images_after) - set(images_before) == {preview.id}
    gallery = set(images_before) - {design["preview_id"]}
    assert {i: images_after[i] for i in gallery} == {i: images_before[i] for i in gallery}
    assert usage.generation_calls == 0 and result.provider_calls == 0


def test_revise_rejects_a_change_it_cannot_read_and_changes_nothing(
    runtime: Runtime, design: dict[str, Any]
) -> None:
    before = runtime.project.store.canvas_version()
    result = invoke(runtime, "web_revise", {"code_id": design["code_id"], "change": "make it pop"}, "make it pop")
    assert "cannot read 'make it pop' as a page layout change" in result.observation["error"]
    assert runtime.project.store.canvas_version() == before

    not_a_page = invoke(runtime, "web_revise", {"code_id": design["layout_ids"][0], "change": "dark theme"},
                        "dark theme")
    assert "is not a page made by design_to_web" in not_a_page.observation["error"]


@pytest.mark.parametrize(("change", "expected"), [
    ("make the hero full-bleed", {"hero": "full-bleed"}),
    ("use two columns and a dark theme", {"columns": 2, "theme": "dark"}),
    ("switch from light to dark", {"theme": "dark"}),
    ("remove the about section", {"sections": ["hero", "gallery", "contact"]}),
    ("add a pricing section", {"sections": ["hero", "gallery", "about", "pricing", "contact"]}),
    ("move the gallery first", {"sections": ["gallery", "hero", "about", "contact"]}),
])
def test_parse_change_patches_the_layout_spec(change: str, expected: dict[str, Any]) -> None:
    spec = LayoutSpec(sections=SECTIONS, columns=3, hero="contained", theme="light")
    revised, changes = parse_change(change, spec)
    assert revised.model_dump() == {**spec.model_dump(), **expected} and changes


@pytest.mark.parametrize(("change", "message"), [
    ("make it pop", "cannot read"),
    ("use 9 columns", "1 to 6 columns"),
    ("contained hero", "nothing to change"),
    ("remove the pricing section", "no pricing section"),
])
def test_parse_change_explains_what_it_cannot_do(change: str, message: str) -> None:
    spec = LayoutSpec(sections=SECTIONS, columns=3, hero="contained", theme="light")
    with pytest.raises(LayoutChangeRejected, match=message):
        parse_change(change, spec)


def test_page_folder_holds_only_what_the_skill_wrote(runtime: Runtime, design: dict[str, Any]) -> None:
    site = (runtime.project.workspace / design["html_path"]).parent
    names = sorted(p.relative_to(site).as_posix() for p in Path(site).rglob("*") if p.is_file())
    assert names[0] == "images/gallery-1.png" and "index.html" in names
    assert not [n for n in names if n.startswith(".jarvishub-render")]
