"""What a deck request is about: its topic, its slide count, the kind of topic, and the noun phrases to fill in.

A request reaches the ``slides`` skill as words ("a 4-slide deck about the
history of the bicycle").  :func:`read_deck_request` peels off what the words
say about the *deck* (a count, "lecture deck", "slides on", "for beginners")
and keeps what they say about the *topic*, then reads the kind of topic from
its phrasing:

=============  ===========================================================  ==========================
kind           phrasings                                                    phrases kept
=============  ===========================================================  ==========================
history        "the history / story / evolution / origins of X",            subject X
               "X through the ages", "how X evolved"
how-to         "how to V X", "how do I V X", "a guide to X",                action "V X", thing X
               "getting started with X", "steps to V X"
comparison     "A vs B", "A versus B", "comparing A and B", "A compared to  sides A and B
               B", "the difference between A and B", short "A or B"
process        "how S V O" ("how diffusion models generate images",         subject S, clause, object O
               "how vaccines work")
concept        anything else ("quantum computing", "what is inflation",     subject
               "an introduction to X", "X explained")
=============  ===========================================================  ==========================

Everything here is pure: the outline patterns that use these phrases are in
:mod:`content.outlines`.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from tools.base import ToolError

TopicKind = Literal["history", "how-to", "comparison", "process", "concept"]

NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19, "twenty": 20,
}
"""Counts written as words ("a four-slide deck")."""

DECK_WORDS = frozenset({"deck", "decks", "slide", "slides", "slideshow", "lecture", "lectures", "presentation"})
"""Words that name the deck itself; an outline never puts them in a title (unless the topic is about them)."""

_COUNT = r"(\d{1,3}|" + "|".join(NUMBER_WORDS) + r")"
_COUNT_PHRASES = (
    re.compile(rf"\b(?:in|with|of|across|over)?\s*{_COUNT}[\s-]+(?:slides?|pages?)(?:[\s-]+long)?\b", re.I),
    re.compile(rf"\b{_COUNT}[\s-]*slide\b", re.I),
)
_LEAD = re.compile(
    r"^(?:please\s+)?(?:(?:can|could|would)\s+you\s+)?(?:i\s+(?:need|want|would like)\s+|let'?s\s+)?"
    r"(?:make|build|create|write|prepare|put\s+together|draft|produce|generate|design|give\s+me|do)?\s*(?:me\s+)?",
    re.I)
_FRAME = re.compile(
    r"^(?:(?:a|an|the|my|our|some|one)\s+)?(?:(?:short|quick|brief|simple|small|new|little|\d+[\s-]*minutes?)\s+)*"
    r"(?:(?:lecture|slide|presentation|teaching|class|pitch|talk|keynote|training|workshop|intro|introductory)\s+)*"
    r"(?:deck|slides|slideshow|slide\s+show|presentation|lecture|talk|keynote|pitch)\b"
    r"(?:\s*(?:about|on|covering|explaining|introducing|that\s+explains|to\s+explain|to\s+teach|teaching|regarding"
    r"|of|for|:|-|–|—)\s*)?", re.I)
_AUDIENCE = re.compile(
    r"[\s,]+for\s+(?:an?\s+|the\s+|my\s+|our\s+)?(?:[\w-]+\s+){0,2}"
    r"(?:beginners|students|audience|kids|children|engineers|managers|executives|class|team|newcomers|novices"
    r"|developers|investors|staff|colleagues|people)$", re.I)
_ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.I)

_HISTORY = (
    re.compile(r"\b(?:(?:a|the)\s+)?(?:(?:brief|short|quick)\s+)?(?:history|story|evolution|origins?|timeline"
               r"|rise(?:\s+and\s+fall)?)\s+of\s+(?P<s>.+)$", re.I),
    re.compile(r"^(?P<s>.+?)\s+(?:through|across|over)\s+the\s+(?:ages|years|centuries|decades|time)$", re.I),
    re.compile(r"^how\s+(?P<s>.+?)\s+(?:evolved|changed|developed|came\s+to\s+be|began|was\s+invented"
               r"|were\s+invented)(?:\s+over\s+time)?$", re.I),
)
_HOW_TO = (
    re.compile(r"^(?:how\s+to|how\s+(?:do|can|should)\s+(?:i|you|we|one)|steps\s+to|learn(?:ing)?\s+(?:how\s+)?to"
               r"|ways\s+to)\s+(?P<a>.+)$", re.I),
    re.compile(r"^(?:an?\s+)?(?:(?:beginner'?s?|practical|step[\s-]+by[\s-]+step|quick)\s+)*"
               r"(?:guide|tutorial|walkthrough|primer)\s+(?:to|on|for)\s+(?P<t>.+)$", re.I),
    re.compile(r"^(?:getting\s+started\s+with|get\s+started\s+with)\s+(?P<t>.+)$", re.I),
)
_COMPARISON = (
    re.compile(r"^(?:comparing|compare|a\s+comparison\s+of)\s+(?P<a>.+?)\s+(?:and|with|to|vs\.?|versus)\s+(?P<b>.+)$",
               re.I),
    re.compile(r"^(?:the\s+)?differences?\s+between\s+(?P<a>.+?)\s+and\s+(?P<b>.+)$", re.I),
    re.compile(r"^(?P<a>.+?)\s+(?:vs\.?|versus|v\.|compared\s+(?:to|with)|against)\s+(?P<b>.+)$", re.I),
    re.compile(r"^(?P<a>.+?)\s+and\s+(?P<b>.+?)\s+compared$", re.I),
    re.compile(r"^(?:which\s+is\s+better:?\s+)?(?P<a>(?:[\w'-]+\s+){0,2}[\w'-]+)\s+or\s+"
               r"(?P<b>(?:[\w'-]+\s+){0,2}[\w'-]+)\??$", re.I),
)
_CONCEPT = (
    re.compile(r"^(?:what\s+(?:is|are)|why|an?\s+introduction\s+to|introduction\s+to|intro\s+to|understanding"
               r"|the\s+basics\s+of|basics\s+of|explaining|an?\s+overview\s+of|overview\s+of)\s+(?P<s>.+?)\??$", re.I),
    re.compile(r"^(?P<s>.+?)\s+(?:explained|101|basics|in\s+a\s+nutshell|for\s+dummies)$", re.I),
)
# Verbs that can end the subject of "how S V ...": "how vaccines work", "how diffusion models generate images".
_VERBS = frozenset("""
work make generate create produce learn grow fly move change turn use store send travel spread fight heal see
hear think talk find power keep stay get become help protect cause affect shape form build run decide predict
compute process read write speak sleep breathe digest remember forget detect recognise recognize translate
compress encrypt train reason plan drive float sink burn cool heat convert transform carry connect communicate
evolve reproduce survive adapt navigate choose sell buy pay earn invest lend borrow price rank search recommend
render draw paint compose play sing sound light shine fall rise orbit rotate spin balance stop start feel taste
smell measure control regulate respond defend attack infect replicate copy encode decode transmit receive
""".split())
_PARTICLES = frozenset({"up", "down", "out", "off", "in", "on", "over", "back", "away", "started", "with", "into",
                        "at", "better", "about", "around", "through"})
_PREPOSITIONS = frozenset({"in", "of", "for", "with", "at", "on", "from", "by", "to", "across", "during", "under",
                           "over", "between", "without", "within", "through", "into", "around", "among", "after",
                           "before", "since", "that", "which", "who"})


class TopicMissing(ToolError):
    """The words name a deck ("make a 5-slide deck") but no topic: a failed step whose message says so, from a
    skill and from a deck tool alike."""


class DeckRequest(BaseModel):
    """A deck request read into its parts; the phrases an outline pattern is filled with."""

    text: str = Field(description="The words as given.")
    topic: str = Field(description="What the deck is about, without the deck's own words.")
    n_slides: int | None = Field(default=None, description="A count written in the words, if any.")
    kind: TopicKind
    subject: str = Field(description="The noun phrase the sections are about (for a comparison: 'A and B').")
    head: str = Field(description="The subject cut to its first noun phrase ('coffee shops in towns' -> "
                      "'coffee shops'), for titles.")
    side_a: str = ""
    side_b: str = ""
    action: str = Field(default="", description="how-to: what to do ('brew pour-over coffee').")
    clause: str = Field(default="", description="process: the whole clause after 'how'.")
    obj: str = Field(default="", description="process: what comes out ('images'), if said.")


def read_deck_request(text: str) -> DeckRequest:
    """Read a deck request: its count, its topic (the deck's own words removed) and the topic's kind and phrases."""
    raw = " ".join(text.split())
    count, rest = _take_count(raw)
    rest = _LEAD.sub("", rest, count=1)
    framed = _FRAME.match(rest)
    if framed and framed.group(0).strip():
        rest = rest[framed.end():]
    # "make 5 slides about X": the count took "5 slides" with it, the connector is left over.
    rest = re.sub(r"^\s*(?:about|on|covering|regarding|explaining|introducing|:|-|–|—)\s+", "", rest, flags=re.I)
    rest = _AUDIENCE.sub("", _tidy(rest))
    topic = _tidy(rest)
    if not topic:
        raise TopicMissing(f"{text!r} says what kind of deck to make but not what it is about; "
                           "say a topic, e.g. 'a 5-slide deck about the history of the bicycle'")
    phrases = _kind_of(topic)
    if raw.startswith(topic):  # a sentence's capital, not a name: "Zero-waste shops" -> "zero-waste shops" inside
        phrases = {k: _uncapitalise(v) if k != "kind" and v.startswith(topic.split()[0]) else v
                   for k, v in phrases.items()}
    return DeckRequest(text=text, topic=topic, n_slides=count, **phrases)


def _uncapitalise(text: str) -> str:
    first = text.split()[0]
    return text[:1].lower() + text[1:] if first[:1].isupper() and first[1:] == first[1:].lower() else text


def _take_count(text: str) -> tuple[int | None, str]:
    for pattern in _COUNT_PHRASES:
        found = pattern.search(text)
        if found:
            word = found.group(1).lower()
            count = int(NUMBER_WORDS.get(word, word if word.isdigit() else 0))
            return count, text[:found.start()] + " " + text[found.end():]
    return None, text


def _tidy(text: str) -> str:
    text = " ".join(text.split())
    return text.strip(" ,;:.!?-–—\"'").strip()


def _kind_of(topic: str) -> dict[str, str]:
    for pattern in _HISTORY:
        if found := pattern.search(topic):
            subject = _tidy(found.group("s"))
            return {"kind": "history", "subject": subject, "head": head_phrase(subject)}
    for pattern in _HOW_TO:
        if found := pattern.match(topic):
            if "a" in found.groupdict():
                action = _tidy(found.group("a"))
                thing = _object_of(action)
            else:
                thing = _tidy(found.group("t"))
                action = f"get started with {thing}"
            return {"kind": "how-to", "subject": thing, "head": head_phrase(thing), "action": action}
    for pattern in _COMPARISON:
        if found := pattern.match(topic):
            a, b = _tidy(found.group("a")), _tidy(found.group("b"))
            if a and b and a.lower() != b.lower():
                return {"kind": "comparison", "subject": f"{a} and {b}", "head": f"{a} and {b}",
                        "side_a": a, "side_b": b}
    if process := _process(topic):
        return process
    subject = topic
    for pattern in _CONCEPT:
        if found := pattern.match(topic):
            subject = _tidy(found.group("s"))
            break
    return {"kind": "concept", "subject": subject, "head": head_phrase(subject)}


def _process(topic: str) -> dict[str, str] | None:
    found = re.match(r"^how\s+(?P<c>.+)$", topic, re.I)
    if not found:
        return None
    clause = _tidy(found.group("c"))
    words = clause.split()
    for index, word in enumerate(words[1:], start=1):
        base = word.lower()
        stem = base[:-2] if base.endswith("es") and base[:-2] in _VERBS else base[:-1] if base.endswith("s") else base
        if base in _VERBS or stem in _VERBS:
            subject = " ".join(words[:index])
            obj = _tidy(" ".join(w for w in words[index + 1:]))
            obj = _ARTICLE.sub("", obj) if obj.split()[:1] and obj.split()[0].lower() not in _PARTICLES else ""
            return {"kind": "process", "subject": subject, "head": head_phrase(subject), "clause": clause,
                    "obj": head_phrase(obj) if obj else ""}
    return None


def _object_of(action: str) -> str:
    """The thing a how-to action works on: 'change a bike tyre' -> 'a bike tyre', 'set up a home network' -> ..."""
    words = action.split()
    rest = words[1:]
    while rest and rest[0].lower() in _PARTICLES:
        rest = rest[1:]
    thing = " ".join(rest)
    thing = re.sub(r"^(?:my|our|their|his|her)\s+", "your ", thing, flags=re.I)
    return _tidy(thing) or action


def head_phrase(phrase: str) -> str:
    """The first noun phrase of a phrase: everything before the first preposition ('shops in towns' -> 'shops')."""
    words = phrase.split()
    for index, word in enumerate(words[1:], start=1):
        if word.lower() in _PREPOSITIONS:
            return " ".join(words[:index])
    return phrase


def content_words(phrase: str) -> list[str]:
    """The words of a phrase that carry meaning (no articles, prepositions or deck words), lower-case, in order."""
    found = re.findall(r"[a-z0-9][a-z0-9'-]*", phrase.lower())
    skip = _PREPOSITIONS | {"a", "an", "the", "and", "or", "how", "to", "what", "why", "is", "are", "your"}
    return [w for w in dict.fromkeys(found) if w not in skip and w not in DECK_WORDS]


__all__ = ["DECK_WORDS", "NUMBER_WORDS", "DeckRequest", "TopicKind", "TopicMissing", "content_words", "head_phrase",
           "read_deck_request"]
