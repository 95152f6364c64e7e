"""The brief's adjectives as docs/content.md documents them: every word of its table sets the tokens it lists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from content.brief import ADJECTIVES, read_brief, read_tokens

DOC = Path(__file__).resolve().parents[2] / "docs" / "content.md"


def documented() -> list[tuple[str, dict[str, str]]]:
    text = DOC.read_text()
    table = text[text.index("| words | tokens |"):].split("\n\n")[0].splitlines()[2:]
    rows = []
    for line in table:
        words, tokens = (cell.strip() for cell in line.strip("|").split("|"))
        values = dict(pair.split("=") for pair in tokens.split(", "))
        rows += [(word, values) for word in words.split(", ")]
    return rows


def test_the_doc_table_lists_every_pattern() -> None:
    assert len(DOC.read_text().split("| words | tokens |")[1].split("\n\n")[0].splitlines()) - 2 == len(ADJECTIVES)


@pytest.mark.parametrize(("word", "values"), documented())
def test_each_documented_word_sets_its_tokens(word: str, values: dict[str, str]) -> None:
    tokens = read_tokens(f"a page that feels {word}").model_dump()
    for key, value in values.items():
        if re.fullmatch(r"[0-9.]+", value):
            assert tokens[key] == pytest.approx(float(value))
        else:
            assert str(tokens[key]).lower() == value.lower(), (word, key, tokens[key])


def test_later_words_win_and_black_and_white_is_not_a_light_theme() -> None:
    assert read_tokens("quiet, but dark").theme == "dark"
    assert read_tokens("dark, then bright").theme == "light"
    noir = read_tokens("black-and-white, moody")
    assert (noir.imagery, noir.theme, noir.words) == ("greyscale", "dark", ["black-and-white", "moody"])


@pytest.mark.parametrize(("brief", "subject", "focus"), [
    ("a website for a photography studio: quiet, editorial, lots of white space, black-and-white portraits",
     "a photography studio", "portraits"),
    ("bold, dark, neon nightclub", "a nightclub", ""),
    ("A harbour cafe with fresh fish, ocean views and slow mornings", "a harbour cafe", "fresh fish"),
    ("playful site for a kids bakery called Sugar Cubes with pastel cupcakes", "a bakery", "cupcakes"),
    ("a landing page for an architect, minimal", "an architect", ""),
])
def test_the_brief_is_read_into_subject_and_focus(brief: str, subject: str, focus: str) -> None:
    reading = read_brief(brief)
    assert (reading.subject, reading.focus) == (subject, focus)
    copy = reading.page_copy
    assert brief.lower() not in " ".join([copy.tagline, *copy.about]).lower()
