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
from nodes.actions import CanvasMutation
from nodes.bridge import Usage
from nodes.grant import Grant
from skills.page_document import PageDocument
from store.mutations import CreateNode
from tests.web.conftest import TOKEN, finished_job, send_request
from tests.web.test_web_lenses import close_lens, open_lens

pytestmark = pytest.mark.long_file(35)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)

SLIDES = 3
IMAGES_LOADED = """(selector) => {
  const imgs = [...document.querySelectorAll(selector)];
  return imgs.length && imgs.every((i) => i.complete && i.naturalWidth > 0) ? imgs.length : 0;
}"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, chromium: Any) -> Iterator[dict[str, Any]]:
    """The slides demo (3 slides) and the web demo, each in its own project, both served.  After the browser: the
    web demo renders its page with Chromium, so a machine without it skips here with the install hint."""
    root = tmp_path_factory.mktemp("lenses")
    opened: list[tuple[Project, Runtime]] = []
    try:
        servers = {}
        for workflow in ("slides", "web"):
            project = Project.init(root / workflow)
            runtime = Runtime(project, keep_browser=True)
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


def test_the_slides_demo_opens_in_the_deck_lens(served, chromium, screenshots: Path) -> None:
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
        page.screenshot(path=str(screenshots / "deck.png"))
    finally:
        close_lens(page)


def _retitle_the_selected_slide(page: Any, server: Any, project: Project, selected: str, title: str, before: Any) -> Any:
    """Send "change the title of this slide to ..." from the page; the turn acts on the selected slide, and the
    deck's second slide, only, has the new title.  The deck lens after it."""
    job = send_request(page, server, f"change the title of this slide to '{title}'")
    assert job.status == "done" and job.node_ids == [selected], job
    after = deck_lens(*_snapshot(project))
    assert [c.slide.title for c in after.slides] == [
        title if i == 1 else c.slide.title for i, c in enumerate(before.slides)]
    return after


def test_a_selected_slide_and_a_typed_request_change_that_slide_only(served, chromium, screenshots: Path) -> None:
    project, server = served["slides"]
    before = deck_lens(*_snapshot(project))
    target = before.slides[1].slide
    page = open_lens(chromium, server.base_url, "deck")
    try:
        page.locator(f'.slide[data-id="{target.node_id}"] header').click()
        assert page.locator(f'.slide.picked[data-id="{target.node_id}"]').count() == 1
        after = _retitle_the_selected_slide(page, server, project, target.node_id, "Why now", before)
        changed = [i for i, (new, old) in enumerate(zip(after.slides, before.slides, strict=True))
                   if new.slide.node_id != old.slide.node_id]
        assert changed == [1]  # only the selected slide has a new version
        assert target.node_id in {v.node_id for v in after.slides[1].versions}
        # The Deck lens follows the canvas: the new version's card replaces the old one without a reload.
        page.wait_for_selector(f'#deck-slides .slide[data-id="{after.slides[1].slide.node_id}"]', timeout=15_000)
        page.screenshot(path=str(screenshots / "deck-after-retitle.png"))

        # The selection follows the slide to its new version, so the next request about "this slide" acts on it
        # (the old version, left selected, was an earlier deck's slide: the request asked and changed nothing).
        newest = after.slides[1].slide
        page.wait_for_selector(f'#deck-slides .slide.picked[data-id="{newest.node_id}"]', timeout=15_000)
        assert page.locator("#selection .chip").all_inner_texts() == ["Why now"]
        again = _retitle_the_selected_slide(page, server, project, newest.node_id, "Why not", before)

        # An older version picked from the stack on purpose stays picked when the deck changes again.
        page.wait_for_selector(f'#deck-slides .slide[data-id="{again.slides[1].slide.node_id}"]', timeout=15_000)
        page.locator(f'#deck-slides .stack li[data-id="{target.node_id}"]').first.click()
        request = "change the title of slide 3 to 'Kept'"
        assert send_request(page, server, request).status == "done"
        page.wait_for_selector(f'#deck-slides .slide .title >> text=Kept', timeout=15_000)
        assert page.eval_on_selector_all("#lens .picked", "els => els.map((e) => e.dataset.id)") == [target.node_id]
    finally:
        close_lens(page)


def test_the_web_demo_opens_in_the_page_lens_rendered_in_a_sandboxed_frame(served, chromium, screenshots: Path) -> None:
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
        assert page.locator("#selection .chip").all_inner_texts() == [f"{lens.page.title} · {lens.sections[1]}"]
        page.screenshot(path=str(screenshots / "page.png"))
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


LENS_FETCHES = "() => performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/lenses/page')).length"


def _texts(project: Project, node_id: str) -> dict[str, str]:
    return PageDocument.from_inputs(project.store.get_node(node_id).inputs).text_elements()


def test_a_selected_section_and_a_typed_request_change_that_section_only(served, chromium, screenshots: Path) -> None:
    """The section reaches the planner: "the heading" is the selected section's heading (with only the page
    selected it is the page's headline), and the Page lens follows without fetching for changes it does not
    show, keeping the items of the versions that did not change."""
    project, server = served["web"]
    before = page_lens(*_snapshot(project))
    section = next(s for s in before.sections if s != "hero")
    page = open_lens(chromium, server.base_url, "page")
    try:
        fetched = page.evaluate(LENS_FETCHES)
        page.evaluate("() => document.querySelectorAll('#page-versions li').forEach((li) => { li.kept = true; })")
        # A commit the lens does not show (a note): the page hears of it and leaves the lens alone.
        runtime = server.app.state.steering.runtime
        grant = runtime.grants.save(Grant(actor="system"))
        note = CreateNode(kind="text", title="unrelated", inputs={"text": "not about the page"})
        done = runtime.bridge.submit(
            CanvasMutation(action_id="page-lens-unrelated", mutations=[note]), grant, Usage(), thread_id="test")
        assert done.verdict == "allow", done.message
        version = project.store.canvas_version()
        page.wait_for_function("(v) => window.jarvishub.version >= v", arg=version, timeout=15_000)
        assert page.evaluate("window.jarvishub.lens.skipped") >= 1 and page.evaluate(LENS_FETCHES) == fetched

        page.locator(f'#page-sections li[data-section="{section}"]').click()
        request = "change the heading to 'Made by hand'"
        job = send_request(page, server, request)
        assert job.status == "done" and job.node_ids == [f"{before.page.node_id}#{section}"], job
        after = page_lens(*_snapshot(project))
        assert after.page.node_id != before.page.node_id  # a new version of the page
        old, new = _texts(project, before.page.node_id), _texts(project, after.page.node_id)
        assert {k for k in new if new[k] != old.get(k)} == {f"{section}.heading"}  # that section only
        assert new[f"{section}.heading"] == "Made by hand" and new["headline"] == old["headline"]
        # The lens shows the new version; only its item and the one that stopped being current were built again.
        page.wait_for_selector(f'#page-versions li[data-id="{after.page.node_id}"][data-current="true"]', timeout=15_000)
        kept = page.eval_on_selector_all("#page-versions li", "els => els.map((li) => [li.dataset.id, !!li.kept])")
        assert {i for i, was in kept if not was} == {after.page.node_id, before.page.node_id}
        assert len(kept) == len(before.versions) + 1 and sum(was for _, was in kept) == len(before.versions) - 1
        assert page.evaluate("document.querySelector('#page-frame').dataset.id") == after.page.node_id
        page.screenshot(path=str(screenshots / "page-after-section-edit.png"))
    finally:
        close_lens(page)
    # Without the section, the same words mean the page's headline: the selection is what chose the section.
    plain = runtime.understand("change the heading to 'Made by hand'", selected=[after.page.node_id])
    assert [c.args.get("element") for c in plain.clauses] == ["headline"]


def test_two_selected_sections_and_a_request_change_those_sections_only(served, chromium, screenshots: Path) -> None:
    """Shift-click adds a second section: "change their headings to ..." rewrites both sections' headings and
    nothing else; "it" with both selected asks which one, and changes nothing."""
    project, server = served["web"]
    before = page_lens(*_snapshot(project))
    chosen = [s for s in before.sections if s != "hero"][-2:]
    page = open_lens(chromium, server.base_url, "page")
    try:
        page.locator(f'#page-sections li[data-section="{chosen[0]}"]').click()
        page.locator(f'#page-sections li[data-section="{before.sections[0]}"]').click(modifiers=["Shift"])
        page.locator(f'#page-sections li[data-section="{chosen[1]}"]').click(modifiers=["Control"])
        page.locator(f'#page-sections li[data-section="{before.sections[0]}"]').click(modifiers=["Shift"])  # out
        assert page.locator("#selection .chip").all_inner_texts() == [f"{before.page.title} · {', '.join(chosen)}"]
        assert page.eval_on_selector_all("#page-sections li.current", "els => els.map((e) => e.dataset.section)") \
            == chosen
        ambiguous = "remove it"
        page.fill("#request-text", ambiguous)
        page.click("#send-request")
        asked = finished_job(server, ambiguous)
        assert asked.status == "interrupted" and "which one" in str(asked.interrupt), asked  # it asks
        assert page_lens(*_snapshot(project)).page.node_id == before.page.node_id  # nothing changed

        request = "change their headings to 'Made slowly'"
        job = send_request(page, server, request)
        assert job.status == "done" and job.node_ids == [f"{before.page.node_id}#{s}" for s in chosen], job
        after = page_lens(*_snapshot(project))
        old, new = _texts(project, before.page.node_id), _texts(project, after.page.node_id)
        assert {k for k in new if new[k] != old.get(k)} == {f"{s}.heading" for s in chosen}  # those sections only
        assert all(new[f"{s}.heading"] == "Made slowly" for s in chosen) and after.sections == before.sections
        page.wait_for_selector(f'#page-versions li[data-id="{after.page.node_id}"][data-current="true"]', timeout=15_000)
        page.screenshot(path=str(screenshots / "page-after-two-sections.png"))
    finally:
        close_lens(page)


def test_two_selected_slides_and_delete_these_remove_those_two_only(served, chromium, screenshots: Path) -> None:
    project, server = served["slides"]
    before = deck_lens(*_snapshot(project))
    first, last = before.slides[0].slide, before.slides[-1].slide
    page = open_lens(chromium, server.base_url, "deck")
    try:
        page.locator(f'.slide[data-id="{first.node_id}"] header').click()
        page.locator(f'.slide[data-id="{last.node_id}"] header').click(modifiers=["Shift"])
        assert page.locator("#selection .chip").all_inner_texts() == [first.title, last.title]
        request = "delete these slides"
        job = send_request(page, server, request)
        assert job.status == "done" and job.node_ids == [first.node_id, last.node_id], job
        after = deck_lens(*_snapshot(project))
        assert [c.slide.node_id for c in after.slides] == [c.slide.node_id for c in before.slides[1:-1]]
        page.wait_for_function("(n) => document.querySelectorAll('#deck-slides > li.slide').length === n",
                               arg=len(after.slides), timeout=15_000)
        page.screenshot(path=str(screenshots / "deck-after-two-deleted.png"))
    finally:
        close_lens(page)
