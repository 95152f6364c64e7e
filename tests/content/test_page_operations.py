"""Page operations through the bridge on a real project: the canvas, the workspace page, its preview and outputs/.

A page is designed once (design_to_web, offline images, the system Chromium); each test then changes it the way an
agent does, with one page tool called through ``Bridge.submit``, and checks the effect where a person would see it:
the page's CSS and words, a new version of the page with a new preview, the old version kept and set aside,
nothing else on the canvas touched, and ``outputs/`` holding the current page with pictures that resolve.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from content.web_render import root_tokens
from jarvishub import outputs
from jarvishub.runtime import Runtime
from nodes.grant import Grant, Scope
from nodes.models.scripted import ScriptedModel
from store.models import CanvasNode, Direction, EdgeType, NodeStatus
from tests.content.agent import call, submit
from tests.content.measure import computed, page_styles
from tools.page import page_scope
from tools.page.canvas import find_page

pytestmark = pytest.mark.system_tool("chromium", apt="chromium")  # every new version's preview is a screenshot

BRIEF = "a website for a ceramics studio in a harbour town: calm, warm, handmade bowls"


@pytest.fixture(scope="module")
def page(runtime: Runtime) -> dict[str, Any]:
    return call(runtime, "skill__design_to_web", brief=BRIEF, n_layouts=1)


def head(runtime: Runtime) -> CanvasNode:
    return find_page(runtime.project.store, None)


def state(runtime: Runtime) -> dict[str, tuple[int, str, tuple[str, ...]]]:
    """Every node: version, status and output hashes."""
    return {n.id: (n.version, n.status.value, tuple(h.sha256 for h in n.outputs))
            for n in runtime.project.store.snapshot().nodes}


def html_on_disk(runtime: Runtime, code: CanvasNode) -> str:
    return (runtime.project.workspace / code.inputs["html_path"]).read_text()


def assert_only_the_page_changed(runtime: Runtime, before: dict[str, Any], old: CanvasNode, new: CanvasNode,
                                 made: set[str] = frozenset()) -> None:
    """The new version replaced the old code, file and preview (set aside); every other node is as it was."""
    store = runtime.project.store
    after = state(runtime)
    changed = {i for i in before if after[i] != before[i]}
    made_from_new = {n.node.id for n in store.neighbours(new.id, [EdgeType.GENERATED_FROM], Direction.IN)}
    replaced = {m.node.id for i in made_from_new for m in store.neighbours(i, [EdgeType.VERSION_OF])}
    assert changed == {old.id} | replaced, f"changed beyond the page: {changed - {old.id} - replaced}"
    assert len(replaced) == 2 and all(store.get_node(i).status == NodeStatus.REJECTED for i in changed)
    created = set(after) - set(before) - set(made)
    assert sorted(store.get_node(i).kind for i in created) == ["code", "file", "image"]


def assert_outputs_hold_the_current_page(runtime: Runtime, code: CanvasNode) -> None:
    """outputs/ has exactly one current page, this version's bytes, and every picture it shows is there."""
    project = runtime.project
    placed = outputs.sync(project.root, project.store, project.artifacts)
    pages = [f for f in placed if f.current and f.path.endswith(".html")]
    assert [f.path.startswith("web/") for f in pages] == [True], [f.path for f in pages]
    on_disk = project.root / "outputs" / pages[0].path
    assert on_disk.read_text() == code.inputs["source"]
    shown = re.findall(r'src="([^"]+)"', code.inputs["source"]) + re.findall(r"url\('([^']+)'\)", code.inputs["source"])
    assert shown and all((on_disk.parent / path).is_file() for path in shown), shown
    previews = [f for f in placed if f.current and f.kind == "image" and f.node_id in {
        n.node.id for n in project.store.neighbours(code.id, [EdgeType.GENERATED_FROM], Direction.IN)}]
    assert [f.path.split("/")[0] for f in previews] == ["web"]


# ---------------------------------------------------------------- each operation


def test_a_style_token_change_is_one_css_property_in_a_new_version_with_its_own_preview(
        runtime: Runtime, page: dict[str, Any]) -> None:
    old, before = head(runtime), state(runtime)
    result = call(runtime, "page_set_style", token="headline-size", value="72px")
    new = runtime.project.store.get_node(result["page_id"])
    assert result["previous_page_id"] == old.id
    assert [n.node.id for n in runtime.project.store.neighbours(new.id, [EdgeType.VERSION_OF])] == [old.id]
    assert new.inputs["change"]["edits"] == [{"field": "token:headline-size", "from": "56px", "to": "72px",
                                              "detail": {}}]
    html = html_on_disk(runtime, new)
    changed = {k: v for k, v in root_tokens(html).items() if root_tokens(old.inputs["source"]).get(k) != v}
    assert changed == {"headline-size": "72px"} and html == new.inputs["source"]
    with page_styles(runtime.project.workspace / new.inputs["html_path"]) as view:
        assert computed(view, "h1", "font-size") == "72px"
    preview = runtime.project.store.get_node(result["preview_id"])
    old_preview = runtime.project.store.get_node(page["preview_id"])
    assert preview.outputs[0].sha256 != old_preview.outputs[0].sha256 and not result["preview_reused"]
    assert old_preview.status == NodeStatus.REJECTED
    assert runtime.project.store.get_node(old.id).status == NodeStatus.REJECTED != new.status
    assert_only_the_page_changed(runtime, before, old, new)
    assert_outputs_hold_the_current_page(runtime, new)


def test_copy_edits_change_the_words_on_the_page(runtime: Runtime, page: dict[str, Any]) -> None:
    old, before = head(runtime), state(runtime)
    result = call(runtime, "page_set_text", element="headline", text="Bowls thrown by the harbour")
    new = runtime.project.store.get_node(result["page_id"])
    assert "<h1>Bowls thrown by the harbour</h1>" in html_on_disk(runtime, new)
    assert_only_the_page_changed(runtime, before, old, new)
    read = call(runtime, "page_read")
    assert read["texts"]["headline"] == "Bowls thrown by the harbour" and read["page_id"] == new.id
    # A person who selected the page by its (first, since replaced) preview means the page as it is now.
    assert call(runtime, "page_read", page_id=page["preview_id"])["page_id"] == new.id


def test_sections_are_added_and_removed_as_versions(runtime: Runtime, page: dict[str, Any]) -> None:
    added = call(runtime, "page_add_section", name="pricing", after="gallery", text="Bowls from 40 euros.")
    html = runtime.project.store.get_node(added["page_id"]).inputs["source"]
    assert html.index('id="gallery"') < html.index('id="pricing"') < html.index('id="about"')
    assert "Bowls from 40 euros." in html
    removed = call(runtime, "page_remove_section", section="about")
    new = runtime.project.store.get_node(removed["page_id"])
    assert new.inputs["layout_spec"]["sections"] == ["hero", "gallery", "pricing", "contact"]
    assert 'id="about"' not in html_on_disk(runtime, new)


def test_a_replaced_picture_is_generated_in_the_page_look_and_resolves_in_outputs(
        runtime: Runtime, page: dict[str, Any]) -> None:
    old, before = head(runtime), state(runtime)
    result = submit(runtime, "page_replace_image", image=2, prompt="a stack of blue glazed bowls")
    assert result.verdict == "allow" and "error" not in result.observation, result
    assert result.provider_calls == 1
    new = runtime.project.store.get_node(result.observation["page_id"])
    picture = runtime.project.store.get_node(result.observation["image_id"])
    shown = new.inputs["images"][1]
    assert shown["node_id"] == picture.id and shown["sha256"] == picture.outputs[0].sha256
    assert f'src="{shown["path"]}"' in html_on_disk(runtime, new)
    assert (runtime.project.workspace / new.inputs["site_dir"] / shown["path"]).is_file()
    # The old picture is still on the canvas as it was; only the page stopped showing it.
    assert new.inputs["images"][0] == old.inputs["images"][0] and old.inputs["images"][1]["node_id"] in before
    copies = {n.node.id for n in runtime.project.store.neighbours(picture.id, [EdgeType.GENERATED_FROM], Direction.IN)}
    assert_only_the_page_changed(runtime, before, old, new, made={picture.id} | copies)
    assert_outputs_hold_the_current_page(runtime, new)


def test_undoing_a_named_change_keeps_the_changes_made_after_it(runtime: Runtime, page: dict[str, Any]) -> None:
    """Runs after the tests above: the headline size was changed first, words, sections and a picture since."""
    old = head(runtime)
    result = call(runtime, "page_undo", change="the headline size change")
    new = runtime.project.store.get_node(result["page_id"])
    html = html_on_disk(runtime, new)
    assert root_tokens(html)["headline-size"] == "56px"
    assert "<h1>Bowls thrown by the harbour</h1>" in html and 'id="pricing"' in html  # later changes stay
    assert new.inputs["images"] == old.inputs["images"]
    assert new.inputs["change"]["op"] == "undo" and "headline-size" in new.inputs["change"]["summary"]
    again = submit(runtime, "page_undo", change="the headline size change")
    assert again.observation["error_type"] == "NoSuchVersion"  # taken back already: nothing of that name is left


def test_revert_to_the_original_reuses_its_preview_and_bytes(runtime: Runtime, page: dict[str, Any]) -> None:
    store = runtime.project.store
    original = store.get_node(page["code_id"])
    result = call(runtime, "page_revert", to="original")
    new = store.get_node(result["page_id"])
    assert new.inputs["source"] == original.inputs["source"] == html_on_disk(runtime, new)
    assert result["preview_reused"]  # the same HTML: the stored screenshot, no render
    assert store.get_node(result["preview_id"]).outputs == store.get_node(page["preview_id"]).outputs
    versions = call(runtime, "page_read")["versions"]
    assert versions[0]["change"] == "revert to version 1 (the original)" and versions[-1]["page_id"] == original.id
    assert_outputs_hold_the_current_page(runtime, new)


@pytest.mark.parametrize(("tool", "args", "error_type", "message"), [
    ("page_remove_section", {"section": "pricing-table"}, "UnknownSection", "sections are hero"),
    ("page_set_text", {"element": "footer", "text": "x"}, "UnknownElement", "elements are headline"),
    ("page_set_style", {"token": "headline-size", "value": "huge-ish"}, "BadTokenValue", "is not a size"),
    ("page_revert", {"to": "42"}, "NoSuchVersion", "has no version '42'"),
    ("page_set_style", {"page_id": "01M8AAAAAAAAAAAAAAAAAAAAAA", "token": "radius", "value": "0"}, None,
     "01M8AAAAAAAAAAAAAAAAAAAAAA"),
])
def test_bad_requests_are_typed_errors_and_change_nothing(runtime: Runtime, page: dict[str, Any], tool: str,
                                                          args: dict[str, Any], error_type: str | None,
                                                          message: str) -> None:
    before = runtime.project.store.canvas_version()
    page_file = runtime.project.workspace / page["html_path"]
    html = page_file.read_text()
    result = submit(runtime, tool, **args)
    said = result.observation.get("error") or result.message
    assert message in said, result
    if error_type:
        assert result.observation["error_type"] == error_type
    assert runtime.project.store.canvas_version() == before and page_file.read_text() == html


def test_without_a_browser_there_is_no_version_and_the_workspace_page_stays(
        make_runtime: Any, page: dict[str, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JARVISHUB_CHROMIUM", str(tmp_path / "no-such-chromium"))
    runtime = make_runtime()  # a command started with that setting (a runtime keeps the browser it launched)
    before = runtime.project.store.canvas_version()
    page_file = runtime.project.workspace / page["html_path"]
    html = page_file.read_text()
    result = submit(runtime, "page_set_text", element="headline", text="Never shown")
    assert result.observation["error_type"] == "BrowserUnavailable", result
    assert runtime.project.store.canvas_version() == before and page_file.read_text() == html


# ---------------------------------------------------------------- grants and a model's turn


def test_a_grant_scoped_elsewhere_refuses_the_page_edit_and_takes_its_file_back(
        runtime: Runtime, page: dict[str, Any]) -> None:
    before = runtime.project.store.canvas_version()
    page_file = runtime.project.workspace / page["html_path"]
    html = page_file.read_text()
    elsewhere = Grant(tools=["page_set_style"], scope=Scope(all_nodes=False, node_ids=[page["layout_ids"][0]]))
    result = submit(runtime, "page_set_style", grant=elsewhere, token="radius", value="0px")
    assert result.verdict == "reject" and "outside this grant's scope" in result.message
    assert runtime.project.store.canvas_version() == before
    assert page_file.read_text() == html  # the index.html the tool wrote was taken back


def test_a_scripted_model_calls_every_page_tool_in_one_turn_under_the_smallest_grant(
        make_runtime, runtime: Runtime, page: dict[str, Any]) -> None:
    """Each tool's schema is bound to the model, each call is validated, run and committed as a step of the turn."""
    columns = 3 if head(runtime).inputs["layout_spec"]["columns"] != 3 else 2
    steps = [("page_read", {}), ("page_move_section", {"section": "contact", "to": "first"}),
             ("page_set_text", {"element": "tagline", "text": "Glazed in the colours of the sea."}),
             ("page_set_style", {"token": "radius", "value": "+4px"}), ("page_set_layout", {"columns": columns}),
             ("page_add_section", {"name": "workshops", "after": "gallery"}),
             ("page_remove_section", {"section": "workshops"}),
             ("page_replace_image", {"image": 1, "image_id": page["image_ids"][-1]}),
             ("page_undo", {}), ("page_revert", {"to": "previous"})]
    scope = page_scope(runtime.project.store, None)
    grant = Grant(tools=[tool for tool, _ in steps],
                  scope=Scope(all_nodes=False, node_ids=scope[:1], descendants_of=scope[:1]))
    model = ScriptedModel(script=[*({"name": tool, "args": args} for tool, args in steps), "Done."])
    outcome = make_runtime(model=model).run("tidy the page", grant=grant)
    assert outcome.outcome == "replied", outcome
    calls = [step["action"] for step in outcome.steps if step["action"]["kind"] == "tool_call"]
    assert [c["tool"] for c in calls] == [tool for tool, _ in steps]
    errors = [(s["action"].get("tool"), s["observation"]["error"]) for s in outcome.steps if "error" in s["observation"]]
    assert not errors, errors
    new = head(runtime)
    ops = [v["change"] for v in call(runtime, "page_read")["versions"][:9]]
    assert ops[0].startswith("revert to version") and ops[1].startswith("undo: replaced picture 1")
    assert new.inputs["layout_spec"]["sections"][0] == "contact" and new.inputs["layout_spec"]["columns"] == columns
    assert new.inputs["images"][0]["node_id"] == page["image_ids"][-1]  # the revert to "previous" took back the undo
    assert new.provenance.turn_id == outcome.turn_id
    assert_outputs_hold_the_current_page(runtime, new)


def test_only_one_page_is_current_however_many_versions(runtime: Runtime, page: dict[str, Any]) -> None:
    from tools.page.canvas import current_pages

    assert [p.id for p in current_pages(runtime.project.store)] == [head(runtime).id]
    site = Path(runtime.project.workspace / page["html_path"]).parent
    assert sorted(p.name for p in site.glob("*.html")) == ["index.html"]


def _backdrop(html: str) -> str:
    (found,) = re.findall(r"class=\"hero__frame\" style=\"background-image: url\('([^']+)'\)", html)
    return found


def test_the_hero_photo_and_gallery_picture_one_are_replaced_each_alone(runtime: Runtime,
                                                                        page: dict[str, Any]) -> None:
    """The hero shows gallery picture 1 until one of them is replaced: "swap the hero photo" changes the hero and
    no gallery picture, and "replace the first picture" then changes the gallery and not the hero (asked in words,
    through the interpreter, as a person types them)."""
    old = head(runtime)
    gallery_before, html_before = old.inputs["images"], html_on_disk(runtime, old)
    out = runtime.run("swap the hero photo for a picture of the harbour wall at dawn")
    assert out.outcome == "replied" and out.measured["matches"], out.reply
    heroed = head(runtime)
    hero = heroed.inputs["hero_image"]
    assert heroed.inputs["images"] == gallery_before  # every gallery picture as it was, picture 1 too
    html = html_on_disk(runtime, heroed)
    assert _backdrop(html) == hero["path"] != _backdrop(html_before)
    assert re.findall(r'<img[^>]*src="([^"]+)"', html) == re.findall(r'<img[^>]*src="([^"]+)"', html_before)
    assert (runtime.project.workspace / heroed.inputs["site_dir"] / hero["path"]).is_file()
    assert runtime.project.store.get_node(hero["node_id"]).kind == "image"
    assert_outputs_hold_the_current_page(runtime, heroed)

    out = runtime.run("replace the first picture with a photo of a blue glazed bowl")
    assert out.outcome == "replied" and out.measured["matches"], out.reply
    galleried = head(runtime)
    assert galleried.inputs["hero_image"] == hero  # the hero keeps its own picture
    assert galleried.inputs["images"][1:] == gallery_before[1:]
    assert galleried.inputs["images"][0]["node_id"] != gallery_before[0]["node_id"]
    assert _backdrop(html_on_disk(runtime, galleried)) == hero["path"]

    assert runtime.run("undo").outcome == "replied"
    assert runtime.run("undo again").outcome == "replied"
    assert html_on_disk(runtime, head(runtime)) == html_before  # both taken back: the page as it was
