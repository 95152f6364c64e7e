"""The Deck and Page lenses in Chromium, on the slides and web demos as `jarvishub demo` makes them: each opens
in its lens, with the right number of slides and sections, its thumbnails loaded and the page rendered live in
a sandboxed frame."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from jarvishub.commands.projects import DEMO_REQUESTS
from jarvishub.project import Project
from jarvishub.runtime import Runtime
from jarvishub.web import BackgroundServer, create_app
from jarvishub.web.lenses import Snapshot, deck_lens, page_lens
from tests.web.conftest import TOKEN, wait_until
from tests.web.test_web_lenses import close_lens, open_lens

SLIDES = 3
IMAGES_LOADED = """(selector) => {
  const imgs = [...document.querySelectorAll(selector)];
  return imgs.length && imgs.every((i) => i.complete && i.naturalWidth > 0) ? imgs.length : 0;
}"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The slides demo (3 slides) and the web demo, each in its own project, both served."""
    root = tmp_path_factory.mktemp("lenses")
    opened: list[tuple[Project, Runtime]] = []
    try:
        servers = {}
        for workflow in ("slides", "web"):
            project = Project.init(root / workflow)
            runtime = Runtime(project)
            opened.append((project, runtime))
            for request in DEMO_REQUESTS[workflow]:
                outcome = runtime.run(request.format(shots=3, slides=SLIDES))
                assert outcome.outcome == "replied", outcome.reply
            servers[workflow] = (project, BackgroundServer(create_app(runtime, TOKEN, person="tester")).__enter__())
        yield servers
        for _, server in servers.values():
            server.__exit__(None, None, None)
    finally:
        for project, runtime in opened:
            runtime.close()
            project.close()


def _snapshot(project: Project) -> tuple[Snapshot, int]:
    store = project.store
    return Snapshot(store.find_nodes(), store.edges()), store.canvas_version()


def test_the_slides_demo_opens_in_the_deck_lens(served, chromium, tmp_path: Path) -> None:
    project, server = served["slides"]
    deck = deck_lens(*_snapshot(project))
    assert len(deck.slides) == SLIDES
    page = open_lens(chromium, server.base_url, "deck")
    try:
        ids = page.eval_on_selector_all("#deck-slides > li.slide", "els => els.map((e) => e.dataset.id)")
        assert ids == [card.slide.node_id for card in deck.slides]
        assert page.wait_for_function(IMAGES_LOADED, arg="#deck-slides img.still", timeout=20_000).json_value() == SLIDES
        page.locator(f'.slide[data-id="{ids[1]}"]').click()
        assert page.locator("#selection .chip").all_inner_texts() == [deck.slides[1].slide.title]
        page.screenshot(path=str(tmp_path / "deck.png"))
    finally:
        close_lens(page)


def test_a_selected_slide_and_a_typed_request_change_that_slide_only(served, chromium, tmp_path: Path) -> None:
    project, server = served["slides"]
    before = deck_lens(*_snapshot(project))
    target = before.slides[1].slide
    page = open_lens(chromium, server.base_url, "deck")
    try:
        page.locator(f'.slide[data-id="{target.node_id}"] header').click()
        assert page.locator(f'.slide.picked[data-id="{target.node_id}"]').count() == 1
        page.fill("#request-text", "change the title of this slide to 'Why now'")
        page.click("#send-request")

        def settled() -> Any:
            jobs = server.app.state.steering.jobs()
            return jobs and jobs[0].status in ("done", "failed", "interrupted") and jobs[0]

        job = wait_until(settled, timeout_s=120)
        assert job.status == "done" and job.node_ids == [target.node_id], job
        after = deck_lens(*_snapshot(project))
        assert [c.slide.title for c in after.slides] == [
            "Why now" if i == 1 else c.slide.title for i, c in enumerate(before.slides)]
        changed = [i for i, (new, old) in enumerate(zip(after.slides, before.slides, strict=True))
                   if new.slide.node_id != old.slide.node_id]
        assert changed == [1]  # only the selected slide has a new version
        assert target.node_id in {v.node_id for v in after.slides[1].versions}
        # The Deck lens follows the canvas: the new version's card replaces the old one without a reload.
        page.wait_for_selector(f'#deck-slides .slide[data-id="{after.slides[1].slide.node_id}"]', timeout=15_000)
        page.screenshot(path=str(tmp_path / "deck-after-retitle.png"))
    finally:
        close_lens(page)


def test_the_web_demo_opens_in_the_page_lens_rendered_in_a_sandboxed_frame(served, chromium, tmp_path: Path) -> None:
    project, server = served["web"]
    lens = page_lens(*_snapshot(project))
    assert lens.page is not None and lens.sections and len(lens.versions) == 2  # "make the hero full-bleed"
    page = open_lens(chromium, server.base_url, "page")
    try:
        frame = page.frame_locator("#page-frame")
        assert page.locator("#page-frame").get_attribute("sandbox") == ""
        frame.locator("section").first.wait_for(timeout=20_000)
        assert frame.locator("section[id]").count() == len(lens.sections)
        assert page.eval_on_selector_all("#page-sections li", "els => els.map((e) => e.dataset.section)") == lens.sections
        # The page's own pictures load inside the frame (served from the version's record, by hash).
        inner = page.frame(url=lambda url: "/framed/" in url)  # the keyed path /api/lenses/page gave
        inner.wait_for_function("() => [...document.images].length > 0 && [...document.images].every("
                                "(i) => i.complete && i.naturalWidth > 0)", timeout=20_000)
        assert page.wait_for_function(IMAGES_LOADED, arg="#page-versions img", timeout=20_000).json_value() == 2
        page.locator(f'#page-sections li[data-section="{lens.sections[1]}"]').click()
        assert page.locator("#selection .chip").all_inner_texts() == [lens.page.title]
        page.screenshot(path=str(tmp_path / "page.png"))
    finally:
        close_lens(page)
    assert httpx.get(f"{server.base_url}/pages/{lens.page.node_id}/{lens.entry}", timeout=30).status_code == 401
    # The frame's own path carries a key for that page only: a made-up key, or another node's, reads nothing.
    forged = f"{server.base_url}/framed/{'0' * 64}/{lens.page.node_id}/{lens.entry}"
    assert httpx.get(forged, timeout=30).status_code == 401
    with httpx.Client(base_url=server.base_url, timeout=30, headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        html = client.get(f"/pages/{lens.page.node_id}/{lens.entry}")
        assert html.status_code == 200 and "sandbox" in html.headers["content-security-policy"]
        assert client.get(f"/pages/{lens.page.node_id}/../../etc/passwd").status_code == 404
        assert client.get(f"/pages/{lens.page.node_id}/images/none.png").status_code == 404
        shot = next(iter(project.store.find_nodes()))
        assert client.get(f"/pages/{shot.id}/index.html").status_code == 404  # not a page
