"""What a new story, page or deck must hold when the turn that asked for it reports "done".

A build is the one kind of turn whose whole output is new, so a model that stops partway (a storyboard and five
of twelve pictures, an outline and no deck, a page with no preview) and says "done" is caught here by what the
turn's commits wrote, part by part, not by what it replied.  A build also changes nothing that existed before it:
a new version of an earlier output (a shot of another story redrawn, the old deck edited) is unexpected.
"""

from __future__ import annotations

import re
from typing import Any

from nodes.understanding.intent import Intent
from nodes.understanding.measured import Measured

BUILD_OPERATIONS = frozenset({"build_narrative", "build_deck", "build_page"})
_GONE = ("rejected", "failed")


def measure_build(intent: Intent, rows: list[dict[str, Any]], result: Measured) -> Measured:
    """The turn's nodes (``rows``, with their lineage) against the build(s) its intent asked for."""
    result.checked = True
    operations = {c.operation for c in intent.clauses}
    live = [r for r in rows if r["status"] not in _GONE]
    written = {r["id"] for r in rows}
    new = [r for r in live if not set(r["ancestors"]) - written]  # its whole lineage made by this turn
    if "build_narrative" in operations:
        _story(intent, new, result)
    if "build_deck" in operations:
        _deck(intent, new, result)
    if "build_page" in operations:
        _page(new, result)
    result.unexpected = sorted({f"{r['title'] or r['id']} (an earlier output changed by a build)" for r in live
                                if set(r["ancestors"]) - written})
    return result


def _named_count(request: str, noun: str) -> int | None:
    """The count the person wrote ("a 6-shot drama", "a 5-slide deck"), if any: a default is not a promise."""
    found = re.search(rf"\b(\d+)[- ]{noun}s?\b", request or "")
    return int(found.group(1)) if found else None


def _story(intent: Intent, live: list[dict[str, Any]], result: Measured) -> None:
    """Its shots (as many as the request named), an image made from each shot, a clip made from each image and a
    cut made from the clips."""
    shots = sorted((r for r in live if r["kind"] == "shot"), key=lambda r: _number(r["title"]))
    made_from = {r["id"]: set(r["made_from"]) for r in live}
    images = [r for r in live if r["kind"] == "image"]
    videos = [r for r in live if r["kind"] == "video"]
    wanted = _named_count(intent.request, "shot")
    result.expected += [f"{wanted or 'the'} shots, each with its image and clip", "the cut"]
    if not shots:
        result.missing.append("a storyboard (no shot was made)")
        return
    if wanted is not None and len(shots) != wanted:
        result.missing.append(f"{wanted} shots (made {len(shots)})")
    clips: set[str] = set()
    for shot in shots:
        title = str(shot["title"] or shot["id"])
        image_ids = {i["id"] for i in images if shot["id"] in made_from[i["id"]]}
        if not image_ids:
            result.missing.append(f"{title} image")
            continue
        shot_clips = {v["id"] for v in videos if made_from[v["id"]] & image_ids}
        if not shot_clips:
            result.missing.append(f"{title} clip")
        clips |= shot_clips
    if not any(made_from[v["id"]] & clips for v in videos if v["id"] not in clips):
        result.missing.append("the cut")


def _deck(intent: Intent, live: list[dict[str, Any]], result: Measured) -> None:
    """A new deck (not a version of an earlier one) holding its slides: as many as the request named."""
    decks = [r for r in live if r["kind"] == "deck"]
    wanted = _named_count(intent.request, "slide")
    result.expected.append(f"a new deck of {wanted or 'its'} slides")
    if not decks:
        result.missing.append("a new deck (none was made)")
        return
    held = max(sum(1 for r in live if r["kind"] == "slide" and r.get("grp") == d["id"]) for d in decks)
    if not held:
        result.missing.append("the deck's slides (the deck holds none)")
    elif wanted is not None and held != wanted:
        result.missing.append(f"{wanted} slides (made {held})")


def _page(live: list[dict[str, Any]], result: Measured) -> None:
    """A new page (not a version of an earlier one), its HTML file and its preview, both made from it."""
    pages = [r for r in live if r["kind"] == "code"]
    result.expected.append("a new web page with its HTML file and preview")
    if not pages:
        result.missing.append("a new web page (none was made)")
        return
    page_ids = {p["id"] for p in pages}
    made = {r["kind"] for r in live if set(r["made_from"]) & page_ids}
    if "file" not in made:
        result.missing.append("the page's HTML file")
    if "image" not in made:
        result.missing.append("the page's preview")


def _number(title: Any) -> int:
    found = re.search(r"\d+", str(title or ""))
    return int(found.group()) if found else 0
