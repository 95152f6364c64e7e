"""What the slides and web skills make of requests, measured; prints one JSON object.

    python bench/content.py

Opens a scratch project (embedded ArcadeDB, offline providers, the system
Chromium). For each web brief it runs ``design_to_web`` and reports the tokens
read, the preview's mean luma and saturation, and how many of the page's
words are the brief's. For each deck request it runs ``slides`` and reports the
kind, the slide count, how many content titles name the subject, how many
titles name the deck itself, and the wall time.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Run as `python bench/content.py`, this folder comes first on sys.path; keep packages visible.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from content.topics import content_words, read_deck_request
from jarvishub.project import Project
from jarvishub.runtime import Runtime
from nodes.actions import ToolCall
from nodes.bridge import Usage
from tests.content.measure import brief_overlap, luma_and_saturation

BRIEFS = (
    "a website for a photography studio: quiet, editorial, lots of white space, black-and-white portraits",
    "a website for a nightclub: bold, dark, neon",
    "a landing page for a law firm, corporate and trustworthy",
    "a warm, rustic website for a family bakery with sourdough loaves",
    "playful site for a kids bakery called Sugar Cubes with pastel cupcakes",
)
DECKS = (
    "a 4-slide deck about the history of the bicycle",
    "a 5-slide lecture deck on how diffusion models generate images",
    "make a 6-slide deck on how to brew pour-over coffee",
    "slides comparing electric cars and petrol cars, six slides",
    "a 5-slide talk on quantum computing for beginners",
)
_DECK_WORDS = re.compile(r"\b(deck|decks|slides?|lectures?)\b", re.IGNORECASE)


def call(runtime: Runtime, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """One skill call through the bridge; its observation."""
    result = runtime.bridge.submit(ToolCall(action_id=f"bench-{tool}-{time.monotonic_ns()}", tool=tool, args=args),
                                   runtime.grant_for("bench"), Usage(), thread_id="bench-content")
    assert result.verdict == "allow" and "error" not in result.observation, result
    return result.observation


def page_row(runtime: Runtime, brief: str) -> dict[str, Any]:
    """Design a page for a brief and measure it."""
    page = call(runtime, "skill__design_to_web", {"brief": brief})
    store, artifacts = runtime.project.store, runtime.project.artifacts
    luma, saturation = luma_and_saturation(artifacts.read_bytes(store.get_node(page["preview_id"]).outputs[0]))
    code = store.get_node(page["code_id"])
    overlapping, shown = brief_overlap(code.inputs["source"], brief)
    tokens = code.inputs["design"]["tokens"]
    return {"brief": brief, "tokens": {k: tokens[k] for k in ("theme", "imagery", "spacing", "heading", "tone")},
            "preview_luma": round(luma, 1), "preview_saturation": round(saturation, 3),
            "brief_words_on_page": f"{overlapping}/{shown}"}


def deck_row(runtime: Runtime, text: str) -> dict[str, Any]:
    """Build a deck for a request and count what its titles say."""
    start = time.perf_counter()
    deck = call(runtime, "skill__slides", {"topic": text})
    seconds = time.perf_counter() - start
    store = runtime.project.store
    titles = [store.get_node(i).inputs["title"] for i in deck["content_ids"]]
    read = read_deck_request(text)
    subject = set(content_words(read.subject))
    naming = sum(bool(subject & set(content_words(t))) for t in titles[1:-1])
    return {"request": text, "kind": read.kind, "topic": read.topic, "slides": len(titles),
            "content_titles_naming_the_subject": f"{naming}/{len(titles) - 2}",
            "titles_with_deck_words": sum(bool(_DECK_WORDS.search(t)) for t in titles), "seconds": round(seconds, 2)}


def main() -> None:
    """Run every brief and deck on one scratch project and print the rows."""
    with tempfile.TemporaryDirectory() as folder:
        project = Project.init(Path(folder) / "bench", media_provider="offline", openai_api_key=None)
        runtime = Runtime(project)
        try:
            report = {"pages": [page_row(runtime, b) for b in BRIEFS], "decks": [deck_row(runtime, d) for d in DECKS]}
        finally:
            runtime.close()
            project.close()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
