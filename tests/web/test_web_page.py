"""The web canvas in Chromium: it draws the demo canvas, shows a node's lineage, follows another process's
commits live, and sends a person's feedback and moves through the bridge."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from store.models import Direction, EdgeType


@pytest.fixture(scope="module")
def demo_host() -> None:
    """Another process commits to the demo's folder, which finds the canvas in the folder's own engine."""
    return None


REPO = Path(__file__).resolve().parents[2]
Demo = Any  # the `demo` fixture's type, defined in conftest.py

ALL_IMAGES_LOADED = """() => {
  const images = [...document.querySelectorAll('.node img')];
  return images.length > 0 && images.every((img) => img.complete && img.naturalWidth > 0) ? images.length : 0;
}"""


def _docs_state() -> dict[str, tuple[int, int]]:
    """Size and modification time of every file under docs/ (which only docs/make_pictures.py may write)."""
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in (REPO / "docs").rglob("*") if p.is_file()}


def _card_box(page, node_id: str) -> dict:
    return page.locator(f'.node[data-id="{node_id}"]').bounding_box()


def test_the_canvas_draws_every_node_with_thumbnails_players_groups_and_edges(page, demo: Demo) -> None:
    ids = demo.ids
    total = sum(demo.project.store.count_nodes().values())
    assert page.locator("#node-count").inner_text() == f"{total} nodes"
    # The first version of shot 1 was superseded by the warm one: folded into it, drawn once asked for.
    assert page.locator("[data-node]").count() == total - 1  # cards, and the group drawn as a box
    assert page.locator(f'.node[data-id="{ids["pier"]}"]').count() == 0
    fold = page.locator(f'.node[data-id="{ids["pier_warm"]}"] button.fold')
    assert fold.inner_text() == "+1"
    fold.click()
    page.locator(f'.node[data-id="{ids["pier"]}"]').wait_for(timeout=5_000)
    # The unfolded version is brought into view and shows its picture (media are attached to cards in view).
    page.locator(f'.node[data-id="{ids["pier"]}"] img').wait_for(timeout=5_000)
    assert page.locator("[data-node]").count() == total
    assert page.locator(f'.node[data-id="{ids["pier_warm"]}"] button.fold').inner_text() == "−1"

    loaded = page.wait_for_function(ALL_IMAGES_LOADED, timeout=15_000).json_value()
    thumbnails = {"pier", "pier_warm", "dusk", "screenshot", "page"}  # the web page shows its screenshot
    assert loaded == len(thumbnails)
    for role in thumbnails:
        assert page.locator(f'.node[data-id="{ids[role]}"] img').count() == 1, role
    video = page.locator(f'.node[data-id="{ids["clip"]}"] video')
    assert video.get_attribute("preload") == "metadata" and video.evaluate("v => v.controls")
    assert page.locator(f'.node[data-id="{ids["waves"]}"] audio').count() == 1
    assert "Keep Mira's red coat" in page.locator(f'.node[data-id="{ids["note"]}"] .text').inner_text()

    box = page.locator(f'.group[data-id="{ids["candidates"]}"]').bounding_box()
    for member in ("pier", "pier_warm"):
        card = _card_box(page, ids[member])
        assert box["x"] < card["x"] and card["x"] + card["width"] < box["x"] + box["width"]
        assert box["y"] < card["y"] and card["y"] + card["height"] < box["y"] + box["height"]

    for edge_type in ("REFERENCES", "VERSION_OF", "GENERATED_FROM"):
        assert page.locator(f"#edges path.e-{edge_type}").count() > 0, edge_type
    assert page.locator("#legend").is_visible()
    for role, status in (("failed", "failed"), ("rendering", "running"), ("clip", "stale"),
                         ("pier_warm", "selected"), ("pier", "rejected")):
        card = page.locator(f'.node[data-id="{ids[role]}"]')
        assert card.get_attribute("data-status") == status
        assert card.locator(f".badge.s-{status}").inner_text() == status

    # Lineage runs left to right: every node sits right of what it came from.
    assert _card_box(page, ids["pier"])["x"] > _card_box(page, ids["mira"])["x"]
    assert _card_box(page, ids["pier_warm"])["x"] > _card_box(page, ids["pier"])["x"]
    assert _card_box(page, ids["clip"])["x"] > _card_box(page, ids["pier_warm"])["x"]
    timings = page.evaluate("window.jarvishub.timings")
    print(f"\ndemo canvas: {total} nodes drawn in {timings['renderMs']:.0f} ms (fetch {timings['fetchMs']:.0f} ms)")


def test_clicking_a_node_shows_its_inputs_versions_and_lineage(page, demo: Demo, tmp_path: Path) -> None:
    ids = demo.ids
    docs_before = _docs_state()
    page.locator(f'.node[data-id="{ids["pier_warm"]}"]').click()
    detail = page.locator(f'#detail-body[data-id="{ids["pier_warm"]}"]')
    detail.wait_for(timeout=10_000)
    ancestors = detail.locator("ul.ancestors li[data-id]")
    assert {ancestors.nth(i).get_attribute("data-id") for i in range(ancestors.count())} == {
        ids["pier"], ids["mira"], ids["harbour"]}
    assert detail.locator(f'ul.descendants li[data-id="{ids["clip"]}"]').count() == 1
    assert detail.locator(f'ul.older li[data-id="{ids["pier"]}"]').count() == 1
    versions = detail.locator("ul.versions li")
    assert versions.count() == len(demo.project.store.node_history(ids["pier_warm"])) >= 2
    assert detail.locator("ul.versions img").count() >= 1  # the version's artifact stays viewable
    assert '"lighting": "warm"' in detail.locator("pre").first.inner_text()
    assert page.locator("#selection .chip").inner_text() == "Shot 1: pier, warm"
    page.wait_for_function(ALL_IMAGES_LOADED, timeout=15_000)
    page.wait_for_function("() => [...document.querySelectorAll('.node video')].every((v) => v.readyState >= 2)",
                           timeout=15_000)  # the poster frame is decoded
    shot = tmp_path / "canvas.png"  # tests never write the checkout; docs/make_pictures.py draws docs/canvas.png
    page.screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert _docs_state() == docs_before

    detail.locator(f'ul.ancestors li[data-id="{ids["mira"]}"]').click()
    page.locator(f'#detail-body[data-id="{ids["mira"]}"]').wait_for(timeout=10_000)
    assert page.locator(f'#detail-body ul.descendants li[data-id="{ids["pier"]}"]').count() == 1


def test_the_filter_highlights_query_results_and_shows_refusals(page, demo: Demo) -> None:
    page.fill("#query-text", "MATCH (n:CanvasNode) WHERE n.kind = 'reference' RETURN n")
    page.click("#run-query")
    page.wait_for_selector(".node.hit")
    hits = page.locator(".node.hit")
    assert {hits.nth(i).get_attribute("data-id") for i in range(hits.count())} == {
        demo.ids["mira"], demo.ids["harbour"]}
    assert "2 node(s) highlighted" in page.locator("#query-result").inner_text()

    page.fill("#query-text", "MATCH (n:CanvasNode) SET n.title = 'gone' RETURN n")
    page.click("#run-query")
    error = page.locator("#query-error")
    error.wait_for(state="visible")
    assert error.inner_text().startswith("400:") and "read-only" in error.inner_text()
    assert page.locator(".node.hit").count() == 0
    assert demo.project.store.get_node(demo.ids["mira"]).title == "Mira"


OTHER_PROCESS = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from jarvishub.project import Project
    from jarvishub.runtime import Runtime
    from nodes.actions import ToolCall
    from nodes.bridge import Usage
    from nodes.grant import Grant

    with Project.open(Path(sys.argv[1])) as project:
        runtime = Runtime(project)
        try:
            grant = runtime.grants.save(Grant(actor="agent"))
            call = ToolCall(action_id="other-1", tool="create_node", args={
                "kind": "text", "title": "From another process", "status": "completed",
                "inputs": {"text": "written by a second process on the same project"}})
            result = runtime.bridge.submit(call, grant, Usage(), thread_id="other-process")
            print(json.dumps({"id": result.observation["created"], "at": time.time()}), flush=True)
        finally:
            runtime.close()
    """
)


def test_a_commit_from_another_process_appears_live(page, demo: Demo) -> None:
    before = page.locator("[data-node]").count()
    done = subprocess.run([sys.executable, "-c", OTHER_PROCESS, str(demo.project.root)], cwd=REPO,
                          capture_output=True, text=True, timeout=90, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    made = json.loads(done.stdout.strip().splitlines()[-1])
    card = page.locator(f'.node[data-id="{made["id"]}"]')
    card.wait_for(timeout=60_000)  # the event: the card appears without a reload (how fast is bench/, not a test)
    print(f"\nanother process's commit on the page after {time.time() - made['at']:.2f} s")
    assert page.locator("[data-node]").count() == before + 1
    # The page's layout placed it: it does not sit at the default (0, 0) the server keeps for unplaced nodes.
    page.wait_for_function(f"() => window.jarvishub.nodes.get('{made['id']}').x !== 0", timeout=5_000)
    assert "second process" in card.locator(".text").inner_text()


def test_feedback_sent_from_the_page_goes_through_the_bridge(page, demo: Demo, until) -> None:
    store, ids = demo.project.store, demo.ids
    page.locator(f'.node[data-id="{ids["dusk"]}"]').click()
    page.fill("#request-text", "redo the lighting here")
    page.click("#send-request")
    job = page.locator('.job[data-status="done"]')
    job.wait_for(timeout=30_000)
    thread_id = job.get_attribute("data-thread")

    feedback = [n.node for n in store.neighbours(ids["dusk"], [EdgeType.REFERENCES], Direction.IN)
                if n.node.kind == "feedback"]
    assert len(feedback) == 1
    node = feedback[0]
    assert node.inputs["text"] == "redo the lighting here"
    assert node.inputs["node_ids"] == [ids["dusk"]] and node.inputs["actor"] == "person:tester"
    commit = next(c for c in store.commits() if node.id in c.node_ids)
    assert commit.actor == "person:tester" and commit.thread_id == thread_id
    turns = until(lambda: store.turns(thread_id))
    assert turns[0]["request"] == "redo the lighting here"
    assert demo.runtime.trajectories.turns(thread_id)[0]["request"] == "redo the lighting here"
    page.locator(f'.node[data-id="{node.id}"]').wait_for(timeout=5_000)  # the feedback node shows up live


def test_an_approval_is_answered_from_the_page(page, demo: Demo, until) -> None:
    page.check("#ask-approval")
    page.fill("#request-text", "note: approved from the page")
    page.click("#send-request")
    waiting = page.locator('.job[data-status="interrupted"]')
    waiting.wait_for(timeout=30_000)
    assert "create_node" in waiting.inner_text()
    assert all(n.title != "approved from the page" for n in demo.project.store.find_nodes(kind="text"))
    waiting.locator('button[data-decision="approve"]').click()
    page.locator('.job[data-status="done"]', has_text="approve").wait_for(timeout=30_000)
    note = until(lambda: [n for n in demo.project.store.find_nodes(kind="text") if n.title == "approved from the page"])
    page.locator(f'.node[data-id="{note[0].id}"]').wait_for(timeout=5_000)


def test_a_late_answer_to_send_does_not_turn_a_finished_job_back(page, demo: Demo, server) -> None:
    """The live feed can bring a job's news before the answer to the POST that started it: the turn is quick, the
    answer is slow. The page keeps the newest state of a job; an older snapshot arriving late does not put a
    finished turn back to "queued" (found when an approval in CI stayed unanswered on the page for 30 s)."""
    page.check("#ask-approval")
    page.fill("#request-text", "note: answered late")
    page.click("#send-request")
    waiting = page.locator('.job[data-status="interrupted"]', has_text="answered late")
    waiting.wait_for(timeout=30_000)
    steering = server.app.state.steering

    def late_answer(route: Any) -> None:
        answer = route.fetch()  # the server has started the resumed turn; its answer says "queued"
        resumed = json.loads(answer.text())
        page.wait_for_selector(f'.job[data-job="{resumed["id"]}"][data-status="done"]', timeout=30_000)
        assert steering.job(resumed["id"]).status == "done"
        route.fulfill(response=answer)

    page.route("**/api/threads/*/resume", late_answer)
    try:
        with page.expect_response("**/api/threads/*/resume") as answered:
            waiting.locator('button[data-decision="approve"]').click()
        job_id = answered.value.json()["id"]
        page.wait_for_timeout(300)  # the page has handled the late answer
        assert page.locator(f'.job[data-job="{job_id}"]').get_attribute("data-status") == "done"
    finally:
        page.unroute("**/api/threads/*/resume")


def test_dragging_a_node_moves_and_pins_it(page, demo: Demo, until) -> None:
    store, note = demo.project.store, demo.ids["note"]
    before = store.get_node(note).position
    box = _card_box(page, note)
    page.mouse.move(box["x"] + 40, box["y"] + 10)
    page.mouse.down()
    page.mouse.move(box["x"] + 140, box["y"] + 30, steps=8)
    page.mouse.move(box["x"] + 240, box["y"] + 50, steps=8)
    page.mouse.up()
    moved = until(lambda: (n := store.get_node(note)).position.pinned and n)
    assert moved.position.x > before.x + 100
    commit = store.commits(since_version=moved.canvas_version - 1)[0]
    assert commit.actor == "person:tester" and commit.node_ids == [note]
    # The person's placement is the one stored position: nothing on the server moves it afterwards.
    time.sleep(0.6)  # more than two polls of the live feed
    assert store.get_node(note).position == moved.position
    page.locator(f'.node[data-id="{note}"] .pin').wait_for(timeout=5_000)


def test_without_the_token_the_page_shows_nothing(chromium, server, demo: Demo) -> None:
    """Reads need the token too: a page opened without it says where to get it, and reads nothing."""
    context = chromium.new_context()
    try:
        page = context.new_page()
        asked: list[str] = []
        page.on("request", lambda request: asked.append(request.url))
        page.goto(server.base_url + "/")
        page.wait_for_selector('body[data-ready="locked"]', timeout=30_000)
        assert "locked" in page.locator("#auth").inner_text()
        assert page.locator("#send-request").is_disabled()
        assert not [url for url in asked if "/api/" in url or "/artifacts/" in url], asked
        assert page.locator(".node").count() == 0
    finally:
        context.close()


def _new_version(demo: Demo, of: str, lighting: str) -> str:
    """A new version of an image, made through the bridge by another writer (under the demo's system grant)."""
    from nodes.actions import ToolCall
    from nodes.bridge import Usage
    from nodes.grant import Grant

    runtime = demo.runtime
    grant = runtime.grants.save(Grant(actor="system"))
    call = ToolCall(action_id=f"version-{of}-{lighting}", tool="generate_image", args={
        "prompt": "The old harbour", "title": f"Shot 2: harbour, {lighting}", "references": [],
        "version_of": of, "lighting": lighting, "width": 192, "height": 128})
    result = runtime.bridge.submit(call, grant, Usage(), thread_id="versions")
    assert result.verdict == "allow" and "error" not in result.observation, (result.message, result.observation)
    return result.observation["node_id"]


def test_a_picked_node_follows_its_new_version_and_an_older_version_picked_on_purpose_stays(page, demo: Demo) -> None:
    """The person picks an image; a turn makes a new version of it: the selection moves to the new version (the old
    one is folded away under it, and a request about "this" would have named a superseded node).  An older version
    picked on purpose stays picked when its line gets another version."""
    picked = "() => [...window.jarvishub.picked]"
    old = demo.ids["dusk"]
    page.locator(f'.node[data-id="{old}"]').click()
    assert page.evaluate(picked) == [old]
    newer = _new_version(demo, old, "dusk")
    page.wait_for_function(f"() => window.jarvishub.picked.has('{newer}')", timeout=30_000)
    assert page.evaluate(picked) == [newer]
    assert page.locator("#selection .chip").all_inner_texts() == ["Shot 2: harbour, dusk"]
    assert page.locator(f'.node.picked[data-id="{newer}"]').count() == 1

    page.evaluate(f"() => window.jarvishub.api.pick('{old}', false)")  # as a click on its entry under the host
    newest = _new_version(demo, newer, "moonlit")
    page.wait_for_function(f"() => window.jarvishub.nodes.has('{newest}')", timeout=30_000)
    page.wait_for_function(f"() => window.jarvishub.hostOf.get('{newer}') === '{newest}'", timeout=10_000)
    assert page.evaluate(picked) == [old]
