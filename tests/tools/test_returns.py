"""What the manifest says a tool returns is what it returns: every built-in tool run through the bridge on a real
project, its observation checked against its model in ``tools/returns.py`` (an undeclared key fails too).

The tools are run family by family (canvas and media, the cut, versions, a page, a deck), each test on the
module's one project; every observation checked is recorded in ``CHECKED``, and the file's last test fails when a
tool of ``BUILTIN_RETURNS`` was not run (``--dist loadfile`` keeps a file's tests in one worker, in file order).
"""

from __future__ import annotations

from typing import Any

import pytest
from nodes.actions import ToolCall
from nodes.bridge import Usage
from nodes.grant import Grant
from store.models import new_id
from tests.system_tools import missing_system_tool
from tests.tools.story_ops import make_story
from tools.returns import BUILTIN_RETURNS, ToolFailure

pytestmark = pytest.mark.long_file(45)

CHECKED: dict[str, dict[str, Any]] = {}
"""Tool name -> the observation checked against its model, filled by this file's tests."""


@pytest.fixture(scope="module")
def runtime(project):
    from jarvishub.runtime import Runtime

    made = Runtime(project, evaluate_generations=False, keep_browser=True)
    yield made
    made.close()


def checker(runtime) -> Any:
    """``call(tool, **args)``: one call through the bridge under a grant of every tool (no approvals, so each one
    runs for real); the call must succeed, and its observation must be what ``BUILTIN_RETURNS`` says."""
    grant = runtime.grants.save(Grant())

    def call(tool: str, **args: Any) -> dict[str, Any]:
        result = runtime.bridge.submit(ToolCall(action_id=new_id(), tool=tool, args=args), grant, Usage(),
                                       thread_id="returns")
        assert result.verdict == "allow" and "error" not in result.observation, (tool, result)
        BUILTIN_RETURNS[tool].model_validate(result.observation)
        CHECKED[tool] = result.observation
        return result.observation

    return call


def test_every_built_in_tool_returns_what_the_manifest_says(runtime) -> None:
    grant = runtime.grants.save(Grant())
    call = checker(runtime)

    a = call("create_node", kind="text", title="a", inputs={"text": "a"})["created"]
    b = call("create_node", kind="text", title="b")["created"]
    call("update_node", node_id=a, title="a2")
    edge = call("link_nodes", type="REFERENCES", source=a, target=b)["edge_id"]
    call("unlink_nodes", edge_id=edge)
    call("group_nodes", node_ids=[a, b], title="pair")
    call("move_node", node_id=a, x=10.0, y=20.0)
    call("branch_node", node_id=a)
    call("read_node", node_id=a)
    call("read_lineage", node_id=a)
    call("query_canvas", cypher="MATCH (n:CanvasNode) RETURN n.id AS id")
    call("set_status", node_id=b, status="selected")
    checkpoint = call("create_checkpoint", name="before media")
    image = call("generate_image", prompt="a pier at dusk", lighting="dusk", width=64, height=64)["node_id"]
    clip = call("generate_video", source_node_id=image, duration_s=0.5, fps=4)["node_id"]
    call("generate_audio", prompt="hello")
    call("assemble_cut", clip_node_ids=[clip])
    call("evaluate_node", node_id=image)
    call("list_attempts", node_id=image)
    call("mark_stale", node_id=image)
    call("regenerate_stale")
    call("repair", targets=[image], changes={image: {"lighting": "night"}})
    call("verify_artifacts")
    call("set_status", node_id=b, status="rejected")
    call("write_file", path="notes/a.txt", content="hello")
    call("read_file", path="notes/a.txt")
    call("list_files", path="notes")
    call("build_slides", title="Two", slides=[{"title": "One", "bullets": ["x"]}, {"title": "Two"}])
    manifest = set(runtime.manifest.tool_names())
    if "render_page" in manifest and _chromium():
        call("render_page", html="<h1>hi</h1>", width=64, height=64)
    if "run_code" in manifest:
        call("run_code", source="print('hi')")
    # A skill's tool returns its name and its output fields: the manifest's schema says so.
    critique = runtime.manifest.tool("skill__critique")
    observation = call_skill(runtime, grant, "skill__critique", node_id=image)
    assert set(critique.returns["required"]) <= set(observation) <= set(critique.returns["properties"])
    call("restore_checkpoint", name=checkpoint["checkpoint"])


@pytest.fixture(scope="module")
def story(runtime) -> dict[str, Any]:
    """A 3-shot storyboard, its images, clips and cut, made by a turn of the offline planner."""
    return make_story(runtime)


def test_every_cut_tool_returns_what_the_manifest_says(runtime, story) -> None:
    call = checker(runtime)
    cut, shots = story["cut"], story["shots"]
    call("reorder_cut", cut_id=cut, swap=[2, 3])
    call("remove_from_cut", cut_id=cut, shots=[shots[1]])
    call("return_to_cut", cut_id=cut, shot=story["images"][1])
    call("insert_shot", cut_id=cut, after=shots[0], description="a gull lands on the rail")
    call("duplicate_shot", cut_id=cut, shot=shots[2])
    call("set_clip_duration", cut_id=cut, shot=shots[2], duration_s=1.0)


def test_every_version_tool_returns_what_the_manifest_says(runtime, make_runtime, story) -> None:
    from nodes.models.scripted import ScriptedModel

    call = checker(runtime)
    image = story["images"][1]
    stale = call("mark_stale", node_id=image)["stale"]  # the image, its clip, the cut
    call("regenerate_stale", node_ids=stale, overrides={image: {"lighting": "night"}})  # version 2 of each
    assert [v["number"] for v in call("list_versions", node_id=image)["versions"]] == [1, 2]
    assert "side_by_side" in call("compare_versions", node_id=image, a="original", b="current")
    assert call("undo_change", node_id=image)["rebuilt"]  # the clip and the cut, rebuilt on version 1 again
    call("revert_version", node_id=image, version=2)
    noted = make_runtime(model=ScriptedModel(script=[
        {"name": "create_node", "args": {"kind": "text", "title": "note", "inputs": {"text": "a"}}}, "noted"]))
    turn = noted.run("note a", grant=noted.grants.save(Grant()))
    assert turn.outcome == "replied", turn.reply
    call("undo_turn", turn_id=turn.turn_id)


def test_every_page_tool_returns_what_the_manifest_says(runtime) -> None:
    if not _chromium():
        missing_system_tool("the page tools render every version's preview with Chromium: apt-get install chromium")
    call = checker(runtime)
    page = call_skill(runtime, runtime.grants.save(Grant()), "skill__design_to_web",
                      brief="a website for a ceramics studio by the harbour", n_layouts=1)
    page_id = page["code_id"]
    columns = call("page_read", page_id=page_id)["layout"]["columns"]
    call("page_set_text", page_id=page_id, element="headline", text="Bowls thrown by the harbour")
    call("page_set_style", page_id=page_id, token="headline-size", value="72px")
    call("page_set_layout", page_id=page_id, columns=columns % 4 + 1)
    call("page_add_section", page_id=page_id, name="pricing", after="gallery", text="Bowls from 40 euros.")
    call("page_move_section", page_id=page_id, section="contact", to="first")
    call("page_remove_section", page_id=page_id, section="about")
    call("page_replace_image", page_id=page_id, image=1, image_id=page["image_ids"][-1])
    call("page_undo", page_id=page_id)
    call("page_revert", page_id=page_id, to="original")


def test_every_deck_tool_returns_what_the_manifest_says(runtime) -> None:
    call = checker(runtime)
    deck_id = call_skill(runtime, runtime.grants.save(Grant()), "skill__slides",
                         topic="a 3-slide deck on how solar panels turn light into power")["deck_id"]
    read = call("deck_read", deck_id=deck_id, mentioning="light")
    illustrated = next(s["slide"] for s in read["slides"] if s["pictures"])
    call("deck_regenerate_illustration", deck_id=deck_id, slide=illustrated)
    call("deck_edit_slide", deck_id=deck_id, slide=2, title="Why now")
    call("deck_add_slide", deck_id=deck_id, after=2, about="the cost of a rooftop system")
    call("deck_duplicate_slide", deck_id=deck_id, slide=3)
    call("deck_delete_slide", deck_id=deck_id, slide=4)
    call("deck_move_slide", deck_id=deck_id, slide=1, to=3)
    call("deck_delete_slide", deck_id=deck_id, slide=-1)
    call("deck_set_theme", deck_id=deck_id, theme="dark")
    call("deck_undo", deck_id=deck_id)
    call("deck_revert", deck_id=deck_id, to="original")


def call_skill(runtime, grant, tool: str, **args: Any) -> dict[str, Any]:
    result = runtime.bridge.submit(ToolCall(action_id=new_id(), tool=tool, args=args), grant, Usage(),
                                   thread_id="returns")
    assert result.verdict == "allow" and "error" not in result.observation, result
    return result.observation


def _chromium() -> bool:
    from tools.native.browser import BrowserUnavailable, find_chromium

    try:
        find_chromium()
    except BrowserUnavailable:
        return False
    return True


def test_a_failure_has_the_shape_the_docs_give(runtime) -> None:
    grant = runtime.grants.save(Grant())
    result = runtime.bridge.submit(ToolCall(action_id=new_id(), tool="read_file", args={"path": "nowhere.txt"}),
                                   grant, Usage(), thread_id="returns")
    ToolFailure.model_validate(result.observation)


def test_every_tool_of_the_manifest_says_what_it_returns(runtime) -> None:
    unknown = [t.name for t in runtime.manifest.tools if not t.returns.get("properties")]
    assert unknown == []


def test_the_returns_models_refuse_an_undeclared_key() -> None:
    """So a tool that starts returning a new key fails the test above until its model says so."""
    BUILTIN_RETURNS["create_node"].model_validate({"created": "x"})
    with pytest.raises(ValueError, match="surprise"):
        BUILTIN_RETURNS["create_node"].model_validate({"created": "x", "surprise": 1})


def test_every_tool_of_builtin_returns_was_run_and_checked() -> None:
    """Last in the file: a tool added to ``BUILTIN_RETURNS`` without a call above fails here (skipped locally where
    a system program it needs is missing: run_code needs bubblewrap, render_page and the page tools Chromium)."""
    left = sorted(set(BUILTIN_RETURNS) - set(CHECKED))
    if left:
        missing_system_tool(f"not checked by the tests above: {left}; if a system program is missing: "
                            "run_code needs bubblewrap, render_page and the page tools Chromium (apt-get install "
                            "bubblewrap chromium)")
