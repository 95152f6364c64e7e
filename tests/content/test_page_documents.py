"""Page edits on the page document: one token is one CSS custom property, undo gives back the same bytes.

These run without a canvas or a browser: the document is what a page's code node holds, and the HTML it renders
is what the page tools write (tests/content/test_page_operations.py puts them on a real canvas).
"""

from __future__ import annotations

import re

import pytest

from content.page_document import (
    HERO,
    ChangeOverridden,
    PageDocument,
    PageEditRefused,
    UnknownElement,
    UnknownSection,
    add_section,
    apply_edits,
    element_for_words,
    move_section,
    remove_section,
    replace_image,
    set_layout,
    set_style,
    set_text,
    undo_edits,
)
from content.page_style import BadTokenValue, UnknownToken, token_for_words
from content.web_render import LayoutSpec, PageImage, derive_design, render_html, root_tokens
from tools.changes import matching_changes

BRIEF = "a website for a ceramics studio in a harbour town: calm, warm, handmade bowls"


@pytest.fixture
def doc() -> PageDocument:
    images = [PageImage(node_id=f"01IMAGE{n}XXXXXXXXXXXXXXXXXX", path=f"images/gallery-{n}.png", sha256=f"{n}" * 64,
                        alt=f"Bowl {n}") for n in (1, 2, 3)]
    return PageDocument(design=derive_design(BRIEF), layout=LayoutSpec(sections=["hero", "gallery", "about",
                                                                                "contact"], columns=3),
                        images=images)


def css_without_root(html: str) -> str:
    return re.sub(r":root\s*\{[^}]*\}", "", html[html.index("<style>"):html.index("</style>")])


def test_the_page_css_reads_every_token_from_root(doc: PageDocument) -> None:
    html = doc.html()
    assert html == render_html(doc.design, doc.layout, doc.images)  # no overrides: what design_to_web writes
    tokens = root_tokens(html)
    assert tokens["headline-size"] == "56px" and tokens["button-colour"] == doc.design.palette.accent_2
    assert "font-size: var(--headline-size)" in html and "background: var(--button-colour)" in html


@pytest.mark.parametrize(("token", "value", "expected"), [
    ("headline-size", "bigger", {"headline-size": "70px"}),
    ("headline size", "72", {"headline-size": "72px"}),
    ("button colour", "green", {"button-colour": "#008000"}),
    ("button-colour", "#0A8F3C", {"button-colour": "#0a8f3c"}),
    ("heading-font", "serif", {"heading-font": 'Georgia, "DejaVu Serif", serif'}),
    ("body-font", "Georgia", {"body-font": '"Georgia", Georgia, "DejaVu Serif", serif'}),
    ("section-padding", "+8px", {"section-padding": "120px"}),
])
def test_a_style_change_is_one_token_and_nothing_else_in_the_css(doc: PageDocument, token: str, value: str,
                                                                  expected: dict[str, str]) -> None:
    before = doc.html()
    new, change = set_style(doc, token, value)
    after = new.html()
    changed = {k: v for k, v in root_tokens(after).items() if root_tokens(before).get(k) != v}
    assert changed == expected
    assert css_without_root(after) == css_without_root(before)
    assert [e.field for e in change.edits] == [f"token:{k}" for k in expected]


def test_spacing_and_palette_are_presets_over_several_tokens(doc: PageDocument) -> None:
    spaced, change = set_style(doc, "spacing", "compact")
    assert root_tokens(spaced.html())["section-padding"] == "32px" and len(change.edits) == 5
    teal, change = set_style(doc, "palette", "teal")
    assert change.edits[0].field == "palette"
    accent = root_tokens(teal.html())["accent"]
    assert accent != root_tokens(doc.html())["accent"] and int(accent[5:7], 16) > int(accent[1:3], 16)  # blue > red


def test_text_edits_reach_the_page_and_escape_html(doc: PageDocument) -> None:
    new, change = set_text(doc, "the headline", "Bowls <made> by hand")
    html = new.html()
    assert "<h1>Bowls &lt;made&gt; by hand</h1>" in html and change.edits[0].field == "text:headline"
    about, _ = set_text(new, "about", "First paragraph.\n\nSecond paragraph.")
    assert "<p>First paragraph.</p><p>Second paragraph.</p>" in about.html()
    assert element_for_words(doc, "the about heading") == "about.heading"
    assert element_for_words(doc, "the call to action") == "button"


def test_sections_add_remove_and_move(doc: PageDocument) -> None:
    added, _ = add_section(doc, "pricing", after="gallery", text="From 40 euros a bowl.")
    assert added.layout.sections == ["hero", "gallery", "pricing", "about", "contact"]
    assert "From 40 euros a bowl." in added.html()
    removed, _ = remove_section(added, "the About section")
    assert removed.layout.sections == ["hero", "gallery", "pricing", "contact"] and 'id="about"' not in removed.html()
    moved, _ = move_section(removed, "contact", to="first")
    assert moved.layout.sections[0] == "contact"
    ordered, _ = set_layout(moved, sections=["hero", "gallery", "pricing", "contact"])
    assert ordered.layout.sections == ["hero", "gallery", "pricing", "contact"]


def test_undo_gives_back_the_same_bytes_in_any_order(doc: PageDocument) -> None:
    original = doc.html()
    picture = PageImage(node_id="01NEWIMAGEXXXXXXXXXXXXXXXX", path="images/gallery-2--abc.png", sha256="f" * 64,
                        alt="A new bowl")
    steps = [lambda d: set_style(d, "headline-size", "bigger"), lambda d: remove_section(d, "about"),
             lambda d: set_layout(d, hero="full-bleed"), lambda d: add_section(d, "pricing", text="From 40 euros."),
             lambda d: set_text(d, "tagline", "Thrown on the wheel."), lambda d: replace_image(d, 2, picture)]
    current, changes = doc, []
    for step in steps:
        current, change = step(current)
        changes.append(change)
    # Taking back the second change alone keeps the others.
    without_removal = apply_edits(current, undo_edits(current, changes[1]))
    assert "about" in without_removal.layout.sections and without_removal.layout.hero == "full-bleed"
    assert without_removal.layout.sections.index("about") == 2
    for change in (changes[0], *changes[2:]):
        without_removal = apply_edits(without_removal, undo_edits(without_removal, change))
    assert without_removal.html() == original
    assert without_removal.texts == {} and without_removal.tokens == {}


def backdrop(html: str) -> str:
    """The picture the hero section shows."""
    (found,) = re.findall(r"class=\"hero__frame\" style=\"background-image: url\('([^']+)'\)", html)
    return found


def gallery(html: str) -> list[str]:
    return re.findall(r'<img[^>]*\bsrc="([^"]+)"', html)


def test_a_picture_replaced_changes_only_the_place_it_names(doc: PageDocument) -> None:
    """The hero shows gallery picture 1 until one of the two is replaced; then each keeps its own picture, and
    undoing either gives back the same bytes."""
    original = doc.html()
    assert backdrop(original) == "images/gallery-1.png" == gallery(original)[0]
    hero_picture = PageImage(node_id="01HEROXXXXXXXXXXXXXXXXXXXX", path="images/gallery-1--h.png", sha256="a" * 64,
                             alt="The harbour at dawn")
    heroed, change = replace_image(doc, HERO, hero_picture)
    assert backdrop(heroed.html()) == "images/gallery-1--h.png"
    assert gallery(heroed.html()) == gallery(original) and heroed.images == doc.images
    assert "hero" in change.summary and heroed.pictures()[-1] == hero_picture
    assert apply_edits(heroed, undo_edits(heroed, change)).html() == original

    first = PageImage(node_id="01FIRSTXXXXXXXXXXXXXXXXXXX", path="images/gallery-1--f.png", sha256="b" * 64,
                      alt="A blue bowl")
    galleried, change = replace_image(doc, 1, first)
    assert gallery(galleried.html()) == ["images/gallery-1--f.png", *gallery(original)[1:]]
    assert backdrop(galleried.html()) == "images/gallery-1.png"  # the hero keeps the picture it showed
    assert "the hero keeps its picture" in change.summary
    back = apply_edits(galleried, undo_edits(galleried, change))
    assert back.html() == original and back.hero_image is None and back.inputs() == doc.inputs()

    # The document's inputs carry the hero's own picture, and read back as the same page.
    assert PageDocument.from_inputs(heroed.inputs()).html() == heroed.html()
    assert "hero_image" not in doc.inputs()  # pages made before the hero had its own place read as they were
    with pytest.raises(PageEditRefused, match="already shows"):
        replace_image(heroed, HERO, hero_picture)


def test_undo_refuses_to_overwrite_a_later_change_of_the_same_field(doc: PageDocument) -> None:
    bigger, first = set_style(doc, "headline-size", "72px")
    biggest, _ = set_style(bigger, "headline-size", "96px")
    with pytest.raises(ChangeOverridden, match="changed again"):
        undo_edits(biggest, first)


@pytest.mark.parametrize(("edit", "error", "message"), [
    (lambda d: remove_section(d, "pricing"), UnknownSection, "no 'pricing' section; its sections are hero"),
    (lambda d: set_text(d, "footer", "x"), UnknownElement, "no text element 'footer'; its elements are headline"),
    (lambda d: set_style(d, "shadow", "big"), UnknownToken, "no style token 'shadow'"),
    (lambda d: set_style(d, "headline-size", "9000px"), BadTokenValue, "headline-size can be 16 to 200px"),
    (lambda d: set_style(d, "button-colour", "sparkly"), BadTokenValue, "not a colour"),
    # a font stack (what "the same font as the headline" sets) ends no declaration: the page's CSS stays its own
    (lambda d: set_style(d, "body-font", 'Georgia, serif; } body { display: none'), BadTokenValue, "is not a font"),
    (lambda d: set_style(d, "body-font", '"Georgia", url(https://x.invalid/f)'), BadTokenValue, "is not a font"),
    (lambda d: set_style(d, "headline-size", "56px"), PageEditRefused, "nothing to change"),
    (lambda d: add_section(d, "about"), PageEditRefused, "already has a about section"),
    (lambda d: replace_image(d, 7, d.images[0]), PageEditRefused, "no picture 7; it has 3"),
])
def test_bad_edits_are_typed_errors_that_say_what_exists(doc: PageDocument, edit, error, message: str) -> None:
    with pytest.raises(error, match=re.escape(message)):
        edit(doc)


def test_changes_are_found_by_the_words_a_person_uses(doc: PageDocument) -> None:
    _, bleed = set_layout(doc, hero="full-bleed")
    _, button = set_style(doc, "button colour", "green")
    _, about = remove_section(doc, "about")
    versions = [("v4", about), ("v3", button), ("v2", bleed)]
    assert matching_changes("the full-bleed change", versions) == ["v2"]
    assert matching_changes("the green button", versions) == ["v3"]
    assert matching_changes("removing the about section", versions) == ["v4"]
    assert matching_changes("the neon change", versions) == []
    assert token_for_words("make the headline bigger") == "headline-size"
    assert token_for_words("change the button color to green") == "button-colour"
