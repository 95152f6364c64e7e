"""Which of the project's slide decks a request is about.

A project may hold several decks ("a new deck about pollinators" builds a second one beside the first).  An
edit that names no deck used to go to the newest, and exited 0: a person who meant the other deck read a report
of work done on the wrong one.  A deck is now known only from what the person gave: a selected deck or slide,
the answer to "which deck?", the deck's own title in the request ("the beekeeping deck", "the deck about
coffee"), its place among the decks ("the newest deck", "the first deck"), or a project that holds one deck.
Otherwise every deck is a candidate, and the reader asks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from nodes.understanding.facts import CanvasFacts, NodeFact
from nodes.understanding.naming import named_phrases
from nodes.understanding.text import Words

_DECK = r"(?:slide deck|deck|presentation|slideshow)"
NAMED_BEFORE, NAMED_AFTER = named_phrases(_DECK)
"""A deck named by words before the noun ("in the urban beekeeping deck", "of the coffee presentation") or after
it ("the deck about coffee", "the presentation called urban beekeeping")."""

_PLACES = {"first": 0, "1th": 0, "oldest": 0, "second": 1, "2th": 1, "third": 2, "3th": 2, "newest": -1,
           "latest": -1, "new": -1, "last": -1, "most recent": -1}
"""A deck by its place among the project's decks (ordinals as the normaliser writes them too).  Not "original",
"earlier" or "previous": those name a deck's own versions ("go back to the original deck")."""
_SAID = {"1th": "first", "2th": "second", "3th": "third"}
"""Ordinals as the normaliser writes them, as a person wrote them (for the question)."""
_TITLE_FILLERS = frozenset({"a", "an", "the", "of", "on", "about", "and", "in", "for", "to", "with", "my", "our"})


@dataclass
class DeckChoice:
    """The deck a request is about, or every deck it could be about."""

    deck: NodeFact | None = None
    """The one deck (None: no deck on the canvas, or several and nothing picks one)."""
    candidates: list[NodeFact] = field(default_factory=list)
    """With several decks and nothing picking one, or words naming a deck no title has: every deck, oldest
    first."""
    named: str | None = None
    """The words that named a deck no deck's title has ("the pricing deck"), when that is why it is not known."""
    span: tuple[int, int] | None = None
    """Where in the request the words that named ``deck`` are (taken from ``words`` when it was given)."""


def deck_candidates(decks: list[NodeFact]) -> list[dict[str, str]]:
    """Decks as a question's candidates (a person answers with one's id)."""
    return [{"id": d.id, "kind": "deck", "title": d.title} for d in decks]


def which_deck_question(candidates: list[dict[str, Any]], named: str | None = None) -> str:
    """"Which deck?", with the decks to pick from and how to say it next time."""
    listed = "; ".join(f"'{c['title']}' (id {c['id']})" for c in candidates)
    others = {w for c in candidates[1:] for w in title_words(str(c["title"]))}
    own = title_words(str(candidates[0]["title"])) - others  # a word that names the first deck and no other
    example = max(sorted(own), key=len) if own else "first"
    unknown = f"No deck is called '{named}'. " if named else ""
    if len(candidates) == 1:
        return (f"{unknown}The project has one slide deck: {listed}. Is that the one? Answer with its id, or say "
                "it again without the deck's name. I changed nothing.")
    return (f"{unknown}The project has {len(candidates)} slide decks: {listed}. Which one? Name it ('... of the "
            f"{example} deck'), select it or one of its slides, or answer with its id. I changed nothing.")


def which_deck(facts: CanvasFacts, *, answer: str | None = None, words: Words | None = None) -> DeckChoice:
    """The deck the selection, the person's answer, the request's words or the canvas itself picks.

    ``words``: the request; the phrase that names a deck is taken (so that no word of it is left unread)."""
    decks = facts.decks
    if not decks:
        return DeckChoice()
    by_id = {d.id: d for d in decks}
    # The deck the words name comes first: "retitle slide 3 of the beekeeping deck", said with a slide of another
    # deck selected, retitled that other deck's slide 3.
    named = _named(decks, words) if words is not None else None
    if isinstance(named, tuple):
        return DeckChoice(deck=named[0], span=named[1])
    for node in facts.selection:
        picked = by_id.get(node.group or "") if node.kind == "slide" else by_id.get(node.id) \
            if node.kind == "deck" else None
        if picked is not None:
            return DeckChoice(deck=picked)
    if answer in by_id:
        return DeckChoice(deck=by_id[answer])
    if len(decks) == 1 and named is None:
        return DeckChoice(deck=decks[0])
    return DeckChoice(candidates=list(decks), named=named)


def _named(decks: list[NodeFact], words: Words) -> tuple[NodeFact, tuple[int, int]] | str | None:
    """The deck a phrase of the request names with the phrase's span (its words taken), the phrase when no one
    deck has it, or None."""
    unmatched = None
    for pattern in (NAMED_AFTER, NAMED_BEFORE):
        for match in pattern.finditer(words.text):
            if words.used(match.start(), match.end()):
                continue
            name = match.group("name")
            place = _PLACES.get(name)
            if place is not None and place < len(decks):  # "the newest deck" of one deck is that one
                words.mark(match.start(), match.end())
                return decks[place], (match.start(), match.end())
            said = _by_title(decks, name, after=pattern is NAMED_AFTER)
            if said is not None:
                deck, length = said
                span = (match.start(), match.end() if pattern is NAMED_BEFORE else match.start("name") + length)
                words.mark(*span)
                return deck, span
            unmatched = unmatched or _SAID.get(name, name)
    return unmatched


def _by_title(decks: list[NodeFact], name: str, *, after: bool) -> tuple[NodeFact, int] | None:
    """The one deck whose title has every word of ``name``, with how many characters of ``name`` named it.  After
    the noun ("the deck about coffee delete slide 2") the name may run on into the rest of the request, so the
    longest start of it that one title has is taken."""
    said = name.split()
    lengths = range(len(said), 0, -1) if after else (len(said),)
    for length in lengths:
        wanted = {w.removesuffix("'s") for w in said[:length]} - _TITLE_FILLERS
        if not wanted:
            continue
        matching = [d for d in decks if wanted <= title_words(d.title)]
        if len(matching) == 1:
            return matching[0], len(" ".join(said[:length]))
        if matching:
            return None
    return None


def title_words(title: str) -> set[str]:
    """A deck title's words that can name it (lower case, no small words)."""
    return {w for w in re.findall(r"[a-z0-9][a-z0-9'-]*", title.lower())} - _TITLE_FILLERS
