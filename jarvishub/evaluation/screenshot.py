"""A PNG of a report page in Chromium (Debian's, never a downloaded one): the README's picture of the report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1400, "height": 1500}


class ScreenshotError(RuntimeError):
    """Chromium is missing or could not render the page (says which and how to install it)."""


def screenshot_report(html_path: str | Path, png_path: str | Path, *, browser: Any = None,
                      full_page: bool = False) -> Path:
    """Render ``html_path`` and save what a reader first sees (or the whole page) to ``png_path``.

    Pass a running Playwright ``browser`` to reuse it; otherwise Chromium is started and closed here.
    """
    html = Path(html_path).resolve()
    target = Path(png_path)
    target.parent.mkdir(parents=True, exist_ok=True)
    if browser is not None:
        return _shoot(browser, html, target, full_page)
    if not Path(CHROMIUM).exists():
        raise ScreenshotError(f"no Chromium at {CHROMIUM}: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        started = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            return _shoot(started, html, target, full_page)
        finally:
            started.close()


def _shoot(browser: Any, html: Path, target: Path, full_page: bool) -> Path:
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.goto(html.as_uri())
        page.screenshot(path=str(target), full_page=full_page)
    finally:
        context.close()
    return target
