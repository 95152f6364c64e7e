"""Measurements the content tests make on what a skill produced: pixels, computed styles, words."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from tools.native.browser import LAUNCH_ARGS, find_chromium

COMMON_WORDS = frozenset({  # words any text shares with any brief
    "a", "an", "the", "and", "or", "of", "for", "to", "in", "on", "at", "with", "by", "from", "is", "are", "we",
    "our", "you", "your", "it", "its", "that", "this", "be", "as", "so", "lots", "site", "website", "page", "web",
})


def luma_and_saturation(png: bytes) -> tuple[float, float]:
    """Mean luma (0-255, Rec. 601) and mean HSV saturation (0-1) of a picture."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    luma = float(np.asarray(image.convert("L"), dtype=np.float64).mean())
    saturation = float(np.asarray(image.convert("HSV"), dtype=np.float64)[..., 1].mean() / 255)
    return luma, saturation


def max_channel_spread(png: bytes) -> int:
    """The largest difference between a pixel's R, G and B: 0 for a greyscale picture."""
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)
    return int((pixels.max(axis=-1) - pixels.min(axis=-1)).max())


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("style", "script", "title"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script", "title"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def visible_words(html: str) -> list[str]:
    """The lower-case words a reader sees on a page (no CSS, no title tag)."""
    parser = _Text()
    parser.feed(html)
    return re.findall(r"[a-z0-9]+(?:'[a-z]+)?", " ".join(parser.parts).lower())


def brief_overlap(html: str, brief: str) -> tuple[int, int]:
    """How many of the page's visible words are meaningful words of the brief, and how many words it shows."""
    brief_words = set(re.findall(r"[a-z0-9]+", brief.lower())) - COMMON_WORDS
    shown = visible_words(html)
    return sum(w in brief_words for w in shown), len(shown)


def longest_shared_run(html: str, brief: str) -> int:
    """The longest run of consecutive brief words that the page shows word for word."""
    shown = " " + " ".join(visible_words(html)) + " "
    said = re.findall(r"[a-z0-9]+", brief.lower())
    best = 0
    for start in range(len(said)):
        for end in range(start + best + 1, len(said) + 1):
            if f" {' '.join(said[start:end])} " in shown:
                best = end - start
            else:
                break
    return best


@contextmanager
def page_styles(page: Path) -> Iterator[Any]:
    """A Playwright page (the system Chromium, no network) showing a local HTML file, for computed styles."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as manager:
        browser = manager.chromium.launch(executable_path=str(find_chromium()), headless=True, args=list(LAUNCH_ARGS))
        try:
            view = browser.new_page(viewport={"width": 1280, "height": 800})
            view.goto(page.resolve().as_uri(), wait_until="load")
            yield view
        finally:
            browser.close()


def computed(view: Any, selector: str, prop: str) -> str:
    """The computed value of a CSS property of the first element matching ``selector``."""
    return str(view.eval_on_selector(selector, f"e => getComputedStyle(e).getPropertyValue('{prop}')"))


def generic_family(stack: str) -> str:
    """The generic family a CSS font stack falls back to (its last entry): serif, sans-serif, monospace."""
    return stack.split(",")[-1].strip().strip('"').lower()
