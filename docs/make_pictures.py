"""Regenerate the docs' pictures from what the demo actually makes: ``python docs/make_pictures.py``.

Runs the narrative demo offline in a temporary project (the same requests as
``jarvishub demo narrative``), relights shot 3 as the README does, and draws a
contact sheet of the files in ``outputs/narrative``: the six current shot
images, then shot 3's superseded version next to its relit one
(``docs/narrative-frames.png``).  Then serves that project's web canvas, opens
it in Debian's Chromium with the relit shot 3 selected, and screenshots it
(``docs/canvas.png``, the picture of docs/web-canvas.md), then the same project in its Story lens
(``docs/lens-story.png``); the slides and web demos in their Deck and Page lenses (``docs/lens-deck.png``,
``docs/lens-page.png``): the README's pictures of each lens.  Only this script writes ``docs/``; tests write
their pictures to temporary folders (tests/web/test_web_lenses.py takes the same shots there).
"""

from __future__ import annotations

import contextlib
import secrets
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent
sys.path[0] = str(DOCS.parent)

from PIL import Image, ImageDraw  # noqa: E402

from jarvishub import outputs  # noqa: E402
from jarvishub.commands.projects import DEMO_REQUESTS  # noqa: E402
from jarvishub.project import Project  # noqa: E402
from jarvishub.runtime import Runtime  # noqa: E402
from store.lifecycle import stop_engine  # noqa: E402

CHROMIUM = "/usr/bin/chromium"  # Debian's, never a downloaded one
SHOTS = 6
RELIGHT = "keep the character but redo the lighting on shot 3"
THUMB = (256, 144)
LABEL_H = 22
GAP = 8
IN_VIEW_LOADED = """() => [...document.querySelectorAll('#lens img')].filter((i) => {
  const r = i.getBoundingClientRect();
  return i.offsetParent && r.right > 0 && r.left < innerWidth && r.bottom > 0 && r.top < innerHeight;
}).every((i) => i.complete && i.naturalWidth > 0)"""


def make_demo(root: Path, canvas_picture: Path) -> Path:
    """The demo project after the main request and the relight, its outputs/ in sync; its web canvas is
    screenshot to ``canvas_picture`` on the way."""
    folder = root / "jarvishub-demo-narrative"
    with Project.init(folder) as project:
        runtime = Runtime(project)
        try:
            for request in [*(t.format(shots=SHOTS, slides=5) for t in DEMO_REQUESTS["narrative"]), RELIGHT]:
                outcome = runtime.run(request)
                if outcome.outcome != "replied":
                    raise SystemExit(f"{request!r} ended {outcome.outcome}: {outcome.reply}")
            files = outputs.sync(folder, project.store, project.artifacts)
            [relit] = [f.node_id for f in files if f.path == "narrative/shot-03-image.png"]
            screenshot_canvas(runtime, relit, canvas_picture)
            screenshot_lens(runtime, "story", DOCS / "lens-story.png")
        finally:
            runtime.close()
    stop_engine(folder / ".jarvishub" / "engine")  # it would linger after the temporary folder is gone
    return folder / "outputs" / "narrative"


@contextlib.contextmanager
def opened_canvas(runtime: Runtime, fragment: str = "") -> Iterator[Any]:
    """The project's web canvas served on loopback and open in Debian's Chromium (``#<fragment>token=...``)."""
    from playwright.sync_api import sync_playwright

    from jarvishub.web import BackgroundServer, create_app

    token = secrets.token_urlsafe(16)
    with BackgroundServer(create_app(runtime, token, person="docs")) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
            page.goto(f"{server.base_url}/#{fragment}token={token}")
            yield page
        finally:
            browser.close()


def screenshot_canvas(runtime: Runtime, selected: str, target: Path) -> None:
    """The project's graph in Chromium, ``selected`` clicked and every thumbnail loaded, saved as PNG."""
    with opened_canvas(runtime, "lens=graph&") as page:
        page.wait_for_selector('body[data-ready="1"]', timeout=30_000)
        page.locator(f'.node[data-id="{selected}"]').click()
        page.locator(f'#detail-body[data-id="{selected}"]').wait_for(timeout=10_000)
        page.wait_for_function("() => [...document.querySelectorAll('.node img')].every("
                               "(img) => img.complete && img.naturalWidth > 0)", timeout=30_000)
        page.screenshot(path=str(target))


POINTING = {
    # What a person has pointed at in each picture, and the request typed (not sent) about it.
    "story": (['#story-shots .shot:nth-child(2) header', '#story-shots .shot:nth-child(4) header'],
              "make these warmer"),
    "deck": (['#deck-slides > li.slide:nth-child(2) header'], "change the title of this slide to 'Why now'"),
    "page": (['#page-sections li:nth-child(2)', '#page-sections li:nth-child(3)'],
             "change their headings to 'Made slowly'"),
}


def screenshot_lens(runtime: Runtime, lens: str, target: Path) -> None:
    """The project's web canvas opened as a person opens it (in its default lens, which must be ``lens``),
    with what :data:`POINTING` names selected (Shift-click for the second) and its request typed, every image in
    the lens loaded, saved as PNG."""
    with opened_canvas(runtime) as page:
        page.wait_for_selector(f'body[data-lens-ready="{lens}"]', timeout=60_000)
        selectors, request = POINTING[lens]
        for n, selector in enumerate(selectors):
            page.locator(selector).click(modifiers=["Shift"] if n else [])
        page.fill("#request-text", request)
        # Back to the start: the story's first shots, the page's top (a selected section scrolls the frame to it).
        page.evaluate("() => { const row = document.querySelector('#story-shots'); if (row) row.scrollLeft = 0;"
                      " const frame = document.querySelector('#page-frame');"
                      " if (frame && frame.dataset.src) frame.src = frame.dataset.src; }")
        page.wait_for_function(IN_VIEW_LOADED, timeout=60_000)
        if lens == "page":
            page.frame(url=lambda url: "/framed/" in url).wait_for_function(
                "() => document.images.length > 0 && [...document.images].every("
                "(i) => i.complete && i.naturalWidth > 0)", timeout=60_000)
        page.screenshot(path=str(target))


def lens_demo(root: Path, workflow: str, lens: str) -> Path:
    """A demo project (``slides`` or ``web``) made offline and screenshot in its lens to docs/lens-LENS.png."""
    folder = root / f"jarvishub-demo-{workflow}"
    target = DOCS / f"lens-{lens}.png"
    with Project.init(folder) as project:
        runtime = Runtime(project)
        try:
            for request in DEMO_REQUESTS[workflow]:
                outcome = runtime.run(request.format(shots=SHOTS, slides=5))
                if outcome.outcome != "replied":
                    raise SystemExit(f"{request!r} ended {outcome.outcome}: {outcome.reply}")
            screenshot_lens(runtime, lens, target)
        finally:
            runtime.close()
    stop_engine(folder / ".jarvishub" / "engine")
    return target


def tile(path: Path, label: str) -> Image.Image:
    picture = Image.open(path).convert("RGB")
    picture.thumbnail(THUMB)
    cell = Image.new("RGB", (THUMB[0], THUMB[1] + LABEL_H), "white")
    cell.paste(picture, ((THUMB[0] - picture.width) // 2, 0))
    ImageDraw.Draw(cell).text((4, THUMB[1] + 5), label, fill="black")
    return cell


def contact_sheet(narrative: Path) -> Image.Image:
    """Row 1-2: the current shots; row 3: shot 3 before and after the relight."""
    current = [tile(narrative / f"shot-{n:02d}-image.png", f"outputs/narrative/shot-{n:02d}-image.png")
               for n in range(1, SHOTS + 1)]
    before = tile(narrative / "versions" / "shot-03-image-v1.png", "versions/shot-03-image-v1.png (before)")
    after = tile(narrative / "shot-03-image.png", "shot-03-image.png (relit)")
    columns = 3
    rows = [current[i:i + columns] for i in range(0, len(current), columns)] + [[before, after]]
    width = columns * THUMB[0] + (columns + 1) * GAP
    height = len(rows) * (THUMB[1] + LABEL_H) + (len(rows) + 1) * GAP
    sheet = Image.new("RGB", (width, height), (235, 235, 235))
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            sheet.paste(cell, (GAP + c * (THUMB[0] + GAP), GAP + r * (THUMB[1] + LABEL_H + GAP)))
    return sheet


def main() -> None:
    canvas = DOCS / "canvas.png"
    with tempfile.TemporaryDirectory(prefix="jarvishub-docs-") as tmp:
        narrative = make_demo(Path(tmp), canvas)
        target = DOCS / "narrative-frames.png"
        contact_sheet(narrative).save(target, optimize=True)
        lenses = [lens_demo(Path(tmp), "slides", "deck"), lens_demo(Path(tmp), "web", "page")]
    print(f"wrote {target}, {canvas}, {DOCS / 'lens-story.png'} and {', '.join(map(str, lenses))}")


if __name__ == "__main__":
    main()
