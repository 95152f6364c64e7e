"""Page and deck requests end to end: words typed as people type them, on a project that holds a page and a deck.

One project (a fresh brief: a rooftop honey bar with a menu and testimonials; a fresh topic: urban beekeeping) is
changed turn by turn through ``Runtime.run`` (the offline planner), through a model calling the tools itself, and
through the CLI in a subprocess; each effect is read where a person would see it: the page's CSS tokens and words in
``index.html``, the .pptx's slide titles, the slides' preview hashes (the ones not asked about keep theirs), a new
version of the same page or deck.  Every turn is counted: a turn that exits 0 without its effect is a wrong
success, and there must be none.  (Each page version is a Chromium screenshot, 2-7 s under load: the cases are few;
the rest of the page and deck rows are checked without an engine, tests/requests/test_content_plans.py.)
"""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from pptx import Presentation

from content.page_document import PageDocument
from content.web_render import root_tokens
from jarvishub.commands.outcomes import exit_code, result_of
from jarvishub.runtime import Runtime
from nodes.models.scripted import ScriptedModel
from nodes.understanding.decks import title_words
from store.models import CanvasNode, EdgeType
from tests.cli_run import cli
from tests.content.agent import call
from tests.requests.suite import DECK_TOPIC, PAGE_BRIEF, PAGE_SECTIONS
from tests.system_tools import require_system_tool
from tools.deck.canvas import current_decks, find_deck, read_deck
from tools.page.canvas import find_page, made_from_page


@pytest.fixture(scope="module")
def project(own_engine_project: Any) -> Any:
    """The CLI runs on this project's folder, so its canvas is in the folder's own engine."""
    return own_engine_project


pytestmark = pytest.mark.long_file(90)

LEDGER: list[tuple[str, str, str]] = []
"""(request, the result it should have, the result it had): every turn of the module."""


@pytest.fixture(scope="module")
def made(runtime: Runtime) -> dict[str, Any]:
    deck = call(runtime, "skill__slides", topic=DECK_TOPIC)
    return {"deck": deck}


@pytest.fixture(scope="module")
def page(runtime: Runtime, made: dict[str, Any]) -> dict[str, Any]:
    require_system_tool("chromium", apt="chromium")
    return call(runtime, "skill__design_to_web", brief=PAGE_BRIEF, n_layouts=1, sections=PAGE_SECTIONS)


def turn(runtime: Runtime, request: str, expect: str = "done", **kwargs: Any) -> Any:
    """One turn, counted in the ledger with the result it should have."""
    outcome = runtime.run(request, **kwargs)
    LEDGER.append((request, expect, result_of(outcome)))
    return outcome


def snapshot(runtime: Runtime) -> dict[str, tuple[int, str, tuple[str, ...]]]:
    return {n.id: (n.version, n.status.value, tuple(h.sha256 for h in n.outputs))
            for n in runtime.project.store.snapshot().nodes}


def page_html(runtime: Runtime) -> str:
    code = find_page(runtime.project.store, None)
    return (runtime.project.workspace / code.inputs["html_path"]).read_text()


def px(value: str) -> float:
    return float(value.removesuffix("px"))


def luma(colour: str) -> float:
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b


def deck_head(runtime: Runtime) -> CanvasNode:
    return find_deck(runtime.project.store, None)


def titles(runtime: Runtime) -> list[str]:
    (pptx,) = deck_head(runtime).outputs
    return [s.shapes.title.text for s in Presentation(io.BytesIO(runtime.project.artifacts.read_bytes(pptx))).slides]


def previews(runtime: Runtime) -> dict[str, str]:
    """Each slide's preview hash, by the slide's title."""
    return {s.spec.title: s.node.outputs[0].sha256 for s in read_deck(runtime.project.store, deck_head(runtime)).slides}


def is_version_of(runtime: Runtime, new: CanvasNode, old: CanvasNode) -> bool:
    store = runtime.project.store
    return old.id in {e.node.id for e in store.lineage(new.id, [EdgeType.VERSION_OF])}


# ---------------------------------------------------------------- the deck


def test_slide_words_make_versions_of_the_same_deck(runtime: Runtime, made: dict[str, Any]) -> None:
    first = deck_head(runtime)
    before, shown = titles(runtime), previews(runtime)

    out = turn(runtime, "delete the last slide")
    assert out.outcome == "replied" and exit_code(out) == 0, out.reply
    assert titles(runtime) == before[:-1] and previews(runtime) == {t: shown[t] for t in before[:-1]}

    out = turn(runtime, "add a slide about training costs after slide 2")
    assert exit_code(out) == 0, out.reply
    now = titles(runtime)
    assert now[:2] == before[:2] and now[2] == "Training costs" and now[3:] == before[2:-1]
    assert {t: h for t, h in previews(runtime).items() if t != "Training costs"} == {t: shown[t] for t in before[:-1]}

    out = turn(runtime, "change the title of slide 2 to 'Why now'")
    assert exit_code(out) == 0, out.reply
    assert titles(runtime) == [now[0], "Why now", *now[2:]]
    after = previews(runtime)
    assert after["Why now"] != shown[before[1]] and all(after[t] == shown[t] for t in (before[0], *before[2:-1]))

    out = turn(runtime, "move slide 4 before slide 2")
    assert exit_code(out) == 0, out.reply
    assert titles(runtime) == [now[0], now[3], "Why now", now[2], *now[4:]]
    assert previews(runtime) == after  # a move draws nothing

    # One deck lineage, four versions later: never a second deck.
    head = deck_head(runtime)
    assert is_version_of(runtime, head, first) and [d.id for d in current_decks(runtime.project.store)] == [head.id]
    assert out.measured["checked"] and out.measured["matches"]


def test_theme_and_illustration_change_what_they_name_and_undo_gives_back_the_same_pptx(
        runtime: Runtime, made: dict[str, Any]) -> None:
    before, shown = titles(runtime), previews(runtime)
    out = turn(runtime, "use the ocean theme")
    assert exit_code(out) == 0, out.reply
    themed = previews(runtime)
    assert titles(runtime) == before and all(themed[t] != shown[t] for t in before)

    pptx = deck_head(runtime).outputs[0].sha256
    pictured = next(n for n, s in enumerate(read_deck(runtime.project.store, deck_head(runtime)).slides, 1)
                    if s.pictures)
    out = turn(runtime, f"regenerate the illustration on slide {pictured}")
    assert exit_code(out) == 0 and out.provider_calls == 1, out.reply
    redrawn = previews(runtime)
    assert [t for t in before if redrawn[t] != themed[t]] == [before[pictured - 1]]

    out = turn(runtime, "undo that")
    assert exit_code(out) == 0 and out.provider_calls == 0, out.reply
    assert deck_head(runtime).outputs[0].sha256 == pptx and previews(runtime) == themed


def test_questions_read_the_deck_and_what_it_does_not_hold_changes_nothing(
        runtime: Runtime, made: dict[str, Any]) -> None:
    before = snapshot(runtime)
    out = turn(runtime, "which slides mention training costs?")
    assert exit_code(out) == 0 and "'Training costs'" in out.reply and snapshot(runtime) == before, out.reply

    # one slide's words, read from the deck (it answered with every slide's title, or as a shot's look)
    deck = read_deck(runtime.project.store, find_deck(runtime.project.store, None))
    third = deck.slides[2].spec
    for request in ("what is on slide 3?", "describe slide 3", "what does the third slide say?"):
        out = turn(runtime, request)
        assert exit_code(out) == 0 and snapshot(runtime) == before, out.reply
        assert f"'{third.title}'" in out.reply and all(b in out.reply for b in third.bullets), out.reply
        assert not any(f"'{s.spec.title}'" in out.reply for s in deck.slides if s.spec.title != third.title)

    for request, reason in (("delete slide 9", "not_found"), ("make slide 3 more exciting", "unparsed"),
                            ("what is on slide 9?", "not_found"),
                            ("regenerate the illustration on slide 1", "not_found")):
        out = turn(runtime, request, expect={"not_found": "not_found"}.get(reason, "bad_request"))
        assert out.outcome == "clarification" and out.clarification["reason"] == reason, (request, out.reply)
        assert snapshot(runtime) == before


def out_deck(outcome: Any) -> str:
    return next(s["observation"]["deck_id"] for s in outcome.steps
                if (s.get("action") or {}).get("tool") == "skill__slides")


# ---------------------------------------------------------------- the page


def test_page_words_set_one_token_or_one_element(runtime: Runtime, page: dict[str, Any]) -> None:
    old = find_page(runtime.project.store, None)
    tokens = root_tokens(page_html(runtime))

    out = turn(runtime, "make the headline bigger")
    assert exit_code(out) == 0, out.reply
    new = find_page(runtime.project.store, None)
    changed = root_tokens(page_html(runtime))
    assert px(changed["headline-size"]) > px(tokens["headline-size"])
    assert {k: v for k, v in changed.items() if k != "headline-size"} == {
        k: v for k, v in tokens.items() if k != "headline-size"}
    assert is_version_of(runtime, new, old)

    out = turn(runtime, "change the button colour to green")
    assert exit_code(out) == 0, out.reply
    green = root_tokens(page_html(runtime))
    r, g, b = (int(green["button-colour"][i:i + 2], 16) for i in (1, 3, 5))
    button = ("button-colour", "button-text-colour")  # the text colour may follow, for contrast
    assert g > r and g > b and {k: v for k, v in green.items() if k not in button} == {
        k: v for k, v in changed.items() if k not in button}

    out = turn(runtime, "change the headline to 'Honey, slowly'")
    assert exit_code(out) == 0, out.reply
    assert re.search(r"<h1[^>]*>\s*Honey, slowly\s*</h1>", page_html(runtime))

    before = snapshot(runtime)
    out = turn(runtime, "what does the headline say?")
    assert exit_code(out) == 0 and "'Honey, slowly'" in out.reply and snapshot(runtime) == before, out.reply


def test_a_selected_preview_is_its_page(runtime: Runtime, page: dict[str, Any]) -> None:
    code = find_page(runtime.project.store, None)
    _, preview = made_from_page(runtime.project.store, code.id)
    background = root_tokens(page_html(runtime))["background"]
    out = turn(runtime, "make it darker", selected=[preview.id])
    assert exit_code(out) == 0, out.reply
    grant = runtime.grants.get(out.grant_id)
    assert grant.scope.node_ids == [code.id] and grant.scope.descendants_of == [code.id]  # the page, not the preview
    assert luma(root_tokens(page_html(runtime))["background"]) < luma(background)


def test_a_selected_section_is_what_the_heading_and_it_mean(runtime: Runtime, page: dict[str, Any]) -> None:
    """The Page lens sends a selected section as ``PAGE_ID#section``: 'the heading', 'the title', 'it' and 'this
    section' mean that section; with the page alone selected, 'the heading' is the page's headline; a page-wide
    style with a section selected is asked about, not applied to the whole page."""
    code = find_page(runtime.project.store, None)
    section = next(s for s in PageDocument.from_inputs(code.inputs).layout.sections if s != "hero")
    picked = [f"{code.id}#{section}"]

    def read(text: str, selected: list[str]) -> list[tuple[str, dict[str, Any]]]:
        intent = runtime.understand(text, selected=selected)
        return [(c.operation, c.args) for c in intent.clauses]

    for text in ("change the heading to 'Open late'", "change the title to 'Open late'"):
        assert read(text, picked) == [("page_set_text", {"element": f"{section}.heading", "text": "Open late"})], text
        assert read(text, [code.id]) == [("page_set_text", {"element": "headline", "text": "Open late"})], text
    for text in ("remove it", "remove this section"):
        assert read(text, picked) == [("page_remove_section", {"section": section})], text
    assert read("move it to the bottom", picked) == [("page_move_section", {"section": section, "to": "last"})]
    snap = snapshot(runtime)
    out = turn(runtime, "make it darker", expect="bad_request", selected=picked)
    assert out.outcome == "clarification" and out.clarification["reason"] == "conflict", out.reply
    assert section in out.reply and snapshot(runtime) == snap


def test_several_selected_sections_are_what_these_and_their_headings_mean(runtime: Runtime,
                                                                           page: dict[str, Any]) -> None:
    """Shift-click in the Page lens selects several sections (one ``PAGE_ID#section`` each): 'these', 'both' and
    'their headings' mean every one of them; 'it' and a move of several ask which, and so does 'these' with no
    section selected; nothing is acted on for one section alone."""
    code = find_page(runtime.project.store, None)
    sections = [s for s in PageDocument.from_inputs(code.inputs).layout.sections if s != "hero"][:2]
    picked = [f"{code.id}#{s}" for s in sections]

    def read(text: str, selected: list[str]) -> tuple[list[tuple[str, dict[str, Any]]], str | None]:
        intent = runtime.understand(text, selected=selected)
        return [(c.operation, c.args) for c in intent.clauses], intent.clarification and intent.clarification.reason

    for text in ("remove these", "remove these sections", "delete both sections"):
        assert read(text, picked) == ([("page_remove_section", {"section": s}) for s in sections], None), text
    for text in ("change the heading to 'Open late'", "change their headings to 'Open late'"):
        assert read(text, picked) == ([("page_set_text", {"element": f"{s}.heading", "text": "Open late"})
                                       for s in sections], None), text
    for text, selected in (("remove it", picked), ("move these to the bottom", picked),
                           ("remove these", [code.id])):
        clauses, asked = read(text, selected)
        assert clauses == [] and asked in ("ambiguous", "no_target"), (text, asked)


def test_sections_by_name_and_undo_that_takes_back_the_whole_turn(runtime: Runtime, page: dict[str, Any]) -> None:
    before = page_html(runtime)
    out = turn(runtime, "remove the testimonials section and move the gallery above the menu")
    assert exit_code(out) == 0, out.reply
    html = page_html(runtime)
    assert 'id="testimonials"' not in html and html.index('id="gallery"') < html.index('id="menu"')

    out = turn(runtime, "undo that")
    assert exit_code(out) == 0, out.reply
    assert page_html(runtime) == before  # both changes taken back, byte for byte
    undos = [s["observation"] for s in out.steps if (s.get("action") or {}).get("tool") == "page_undo"]
    assert len(undos) == 2 and all(o["preview_reused"] for o in undos)  # no screenshot taken again

    snap = snapshot(runtime)
    for request, reason in (("remove the pricing section", "not_found"), ("make the headline red", "unparsed")):
        out = turn(runtime, request, expect={"not_found": "not_found"}.get(reason, "bad_request"))
        assert out.outcome == "clarification" and out.clarification["reason"] == reason, (request, out.reply)
        assert snapshot(runtime) == snap


def test_a_theme_with_a_page_and_a_deck_asks_which_and_the_answer_picks_it(runtime: Runtime, page: dict[str, Any]
                                                                           ) -> None:
    """"change the theme to dark" in a project holding a page and a deck: nothing says which, so the turn asks
    (ambiguous, the page and the deck as candidates) and changes nothing; the answer changes that one's theme."""
    snap = snapshot(runtime)
    out = turn(runtime, "change the theme to dark", expect="paused")
    asked = out.interrupt or {}
    assert out.outcome == "interrupted" and asked.get("reason") == "ambiguous", out.reply
    kinds = {c["kind"]: c["id"] for c in asked["candidates"]}
    assert set(kinds) == {"code", "deck"} and snapshot(runtime) == snap
    answered = runtime.resume(out.thread_id, kinds["deck"])
    assert answered.outcome == "replied" and answered.measured["matches"], answered.reply
    after = snapshot(runtime)
    changed = {i for i in after if snap.get(i) != after[i]}
    kinds_changed = {runtime.project.store.get_node(i).kind for i in changed}
    assert "deck" in kinds_changed and "code" not in kinds_changed, kinds_changed  # the deck's theme, not the page
    assert kinds["code"] not in changed


def test_the_full_bleed_change_undone_by_its_name(runtime: Runtime, page: dict[str, Any]) -> None:
    before = page_html(runtime)
    out = turn(runtime, "make the hero full-bleed")
    assert exit_code(out) == 0 and page_html(runtime) != before, out.reply
    out = turn(runtime, "undo the full-bleed change")
    assert exit_code(out) == 0 and out.measured["matches"], out.reply
    assert page_html(runtime) == before


def test_the_hero_picture_made_smaller_is_its_height_and_nothing_else(runtime: Runtime, page: dict[str, Any]) -> None:
    """"make the hero image smaller" was asked about (no token named the hero's size): now it is the hero's height,
    read back from the CSS the page renders, every other token kept."""
    tokens = root_tokens(page_html(runtime))
    out = turn(runtime, "make the hero image smaller")
    assert exit_code(out) == 0 and out.measured["matches"], out.reply
    html = page_html(runtime)
    after = root_tokens(html)
    assert px(after["hero-height"]) < px(tokens["hero-height"])
    assert {k: v for k, v in after.items() if k != "hero-height"} == {
        k: v for k, v in tokens.items() if k != "hero-height"}
    assert re.search(r"\.hero__frame \{[^}]*min-height: var\(--hero-height\)", html)


def test_sections_swapped_by_name_one_font_given_the_others_and_a_removal_that_keeps_one(
        runtime: Runtime, page: dict[str, Any]) -> None:
    """Three requests a newcomer typed and the project asked about: two sections named without the word "section"
    (on a project with a deck too), a font copied from another, a removal with a section kept."""

    def order(html: str) -> list[str]:
        return sorted((s for s in PAGE_SECTIONS if f'id="{s}"' in html), key=lambda s: html.index(f'id="{s}"'))

    before = order(page_html(runtime))
    out = turn(runtime, "swap the menu and the testimonials")
    assert exit_code(out) == 0 and out.measured["matches"], out.reply
    at = {s: i for i, s in enumerate(before)}
    swapped = [{"menu": "testimonials", "testimonials": "menu"}.get(s, s) for s in sorted(before, key=at.get)]
    assert order(page_html(runtime)) == swapped

    tokens = root_tokens(page_html(runtime))
    assert tokens["body-font"] != tokens["heading-font"]
    out = turn(runtime, "use the same font as the headline for the body")
    assert exit_code(out) == 0 and out.measured["matches"], out.reply
    after = root_tokens(page_html(runtime))
    assert after["body-font"] == tokens["heading-font"]
    assert {k: v for k, v in after.items() if k != "body-font"} == {k: v for k, v in tokens.items() if k != "body-font"}

    out = turn(runtime, "remove the about section but keep the contact section")
    assert exit_code(out) == 0 and out.measured["matches"], out.reply
    assert order(page_html(runtime)) == [s for s in swapped if s != "about"]


# ---------------------------------------------------------------- a model calling the tools, the CLI


def test_a_model_that_calls_the_tools_is_measured_the_same_way(make_runtime, made: dict[str, Any]) -> None:
    """A model's reply is not its report: the change its version records is compared with the words."""
    right = make_runtime(model=ScriptedModel(script=[{"name": "deck_move_slide", "args": {"slide": 1, "to": -1}},
                                                     "Moved it."]))
    out = right.run("move the first slide to the end")
    LEDGER.append(("move the first slide to the end (a model)", "done", result_of(out)))
    assert exit_code(out) == 0 and out.measured["matches"], out.reply

    wrong = make_runtime(model=ScriptedModel(script=[
        {"name": "deck_edit_slide", "args": {"slide": 3, "title": "Costs, honestly"}}, "Retitled slide 2."]))
    out = wrong.run("retitle slide 2 'Costs, honestly'")
    LEDGER.append(("retitle slide 2 (a model that retitles slide 3)", "failed", result_of(out)))
    assert out.outcome == "failed" and exit_code(out) == 1, out.reply
    assert "Measured on the canvas" in out.reply and out.measured["missing"]


def test_through_the_cli(runtime: Runtime, made: dict[str, Any]) -> None:
    folder = runtime.project.root
    before = titles(runtime)
    ran = cli("-C", str(folder), "run", "move slide 2 to the end")
    LEDGER.append(("move slide 2 to the end (CLI)", "done", "done" if ran.returncode == 0 else str(ran.returncode)))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert titles(runtime) == [before[0], *before[2:], before[1]]
    # A question about a slide's title is answered: it renamed slide 2 'now', with exit 0.
    moved = titles(runtime)
    ran = cli("-C", str(folder), "run", "what's slide 2 called now?")
    LEDGER.append(("what's slide 2 called now? (CLI)", "done", "done" if ran.returncode == 0 else str(ran.returncode)))
    assert ran.returncode == 0 and f"'{moved[1]}'" in ran.stdout, ran.stdout + ran.stderr
    assert titles(runtime) == moved
    ran = cli("-C", str(folder), "run", "delete slide 12")
    LEDGER.append(("delete slide 12 (CLI)", "not_found", "not_found" if ran.returncode == 4 else str(ran.returncode)))
    assert ran.returncode == 4, ran.stdout + ran.stderr


def test_a_new_deck_is_built_only_when_asked(runtime: Runtime, made: dict[str, Any]) -> None:
    """Last of the deck tests: the project holds two decks after it."""
    out = turn(runtime, "a new deck about pollinators in cities")
    assert exit_code(out) == 0, out.reply
    roots = [d for d in runtime.project.store.find_nodes(kind="deck")
             if not runtime.project.store.neighbours(d.id, [EdgeType.VERSION_OF])]
    assert {d.id for d in roots} == {made["deck"]["deck_id"], out_deck(out)}


def test_with_two_decks_an_edit_asks_which_and_the_answer_or_a_title_picks_one(runtime: Runtime,
                                                                                  made: dict[str, Any]) -> None:
    """After the new deck, "delete the last slide" names neither deck: it went to the newest, with exit 0.  Now the
    turn asks (both decks the candidates) and changes nothing; the answer deletes that deck's last slide and no
    other; a request that names a deck by a word of its title edits that one; the CLI pauses (exit 5)."""
    store = runtime.project.store
    first = find_deck(store, made["deck"]["deck_id"])
    (other,) = [d for d in current_decks(store) if d.id != first.id]

    def slides(deck: CanvasNode) -> list[str]:
        return [s.spec.title for s in read_deck(store, find_deck(store, deck.id)).slides]

    first_slides, other_slides = slides(first), slides(other)
    snap = snapshot(runtime)
    out = turn(runtime, "delete the last slide", expect="paused")
    asked = out.interrupt or {}
    assert out.outcome == "interrupted" and asked.get("reason") == "ambiguous", out.reply
    assert {c["id"] for c in asked["candidates"]} == {first.id, other.id} and snapshot(runtime) == snap
    answered = runtime.resume(out.thread_id, first.id)
    LEDGER.append(("delete the last slide (answered: the first deck)", "done", result_of(answered)))
    assert answered.outcome == "replied" and answered.measured["matches"], answered.reply
    assert slides(first) == first_slides[:-1] and slides(other) == other_slides

    word = max(title_words(other.title) - title_words(first.title), key=len)  # "pollinators"
    out = turn(runtime, f"delete slide 1 of the {word} deck")
    assert exit_code(out) == 0 and out.measured["matches"], out.reply
    assert slides(other) == other_slides[1:] and slides(first) == first_slides[:-1]

    snap = snapshot(runtime)
    ran = cli("-C", str(runtime.project.root), "run", "move slide 2 to the end")
    LEDGER.append(("move slide 2 to the end (CLI, two decks)", "paused", "paused" if ran.returncode == 5
                   else str(ran.returncode)))
    assert ran.returncode == 5 and first.title in ran.stdout and other.title in ran.stdout, ran.stdout + ran.stderr
    assert snapshot(runtime) == snap


def test_a_model_that_picks_a_deck_without_asking_is_not_done(make_runtime, runtime: Runtime,
                                                               made: dict[str, Any]) -> None:
    """With two decks, a model that deletes the last slide of one without asking made a choice nobody made: the
    slide is gone (the grant holds both decks, as either answer needs), but the turn is not reported done."""
    store = runtime.project.store
    first = find_deck(store, made["deck"]["deck_id"])
    kept = [s.spec.title for s in read_deck(store, first).slides]
    picker = make_runtime(model=ScriptedModel(script=[
        {"name": "deck_delete_slide", "args": {"deck_id": first.id, "slide": len(kept)}}, "Deleted the last slide."]))
    out = picker.run("delete the last slide")
    LEDGER.append(("delete the last slide (a model that picks a deck)", "failed", result_of(out)))
    assert [s.spec.title for s in read_deck(store, find_deck(store, first.id)).slides] == kept[:-1]
    assert out.outcome == "failed" and exit_code(out) == 1, out.reply
    assert "without asking which" in out.reply and first.title in out.reply


def test_no_turn_exited_0_without_its_effect() -> None:
    """The count of wrong successes over every turn above: a turn reported done where it should not be."""
    assert LEDGER, "the turns above ran first"
    wrong = [(r, want, got) for r, want, got in LEDGER if got == "done" and want != "done"]
    assert wrong == [] and [(r, want, got) for r, want, got in LEDGER if want != got] == []
