"""Phrases that name one of several things of a kind by words of its title: "the night markets deck", "shot 3 of the
ferry film", "the deck about coffee", "the last shot of the film about the ferry".

Decks (``nodes.understanding.decks``) and films (``nodes.understanding.references``) are named the same way; what
differs is the noun, and which words of a title can name it (the readers match the phrase's words against them).
"""

from __future__ import annotations

import re

ARTICLE = r"(?:the|my|our|this)"


def named_phrases(noun: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The two phrasings that name a thing of the kind ``noun`` (a regex of its nouns), each with a ``name`` group:
    words before the noun ("in the urban beekeeping deck") and words after it ("the deck about coffee", "the film
    about the ferry"; an article after "about" is not part of the name)."""
    word = rf"(?!{ARTICLE}\b|{noun}\b)[a-z0-9][a-z0-9'-]*"
    before = re.compile(rf"\b(?:(?:in|of|on|from|to|for) )?{ARTICLE} (?P<name>{word}(?: {word}){{0,4}})(?:'s)? "
                        rf"{noun}\b")
    after = re.compile(rf"\b(?:(?:in|of|on|from|to|for) )?{ARTICLE} {noun} (?:about|on|with|called|named|titled) "
                       rf"(?:(?:the|a|an) )?(?P<name>{word}(?: {word}){{0,4}})")
    return before, after
