"""Slides: each edit of the project's deck becomes one deck operation with its arguments.

"add a slide about training costs after slide 2" → ``deck_add_slide`` (after, about); "delete the last
slide" → ``deck_delete_slide``; "move slide 4 before slide 2" → ``deck_move_slide`` (slide, to); "change the
title of slide 2 to 'Why now'" → ``deck_edit_slide`` (slide, title); "add a bullet 'Costs fall' to slide 3"
→ ``deck_add_bullet``; "change the theme to dark" → ``deck_set_theme``; "regenerate the illustration on
slide 5" → ``deck_regenerate_illustration``; "undo that", "undo the retitle", "revert the deck to the
original" → ``deck_undo`` / ``deck_revert``.  Slides are named by number, position ("the last slide", "the
second to last slide"), title ("the slide about pricing", "the Costs slide") or selection ("this slide"),
and resolved on the project's current deck, so a slide it lacks is asked about before anything runs.
Routed by what the project holds: on a project with a deck a request about slides edits that deck; a new
deck is a build (``builds.py``), never an edit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from nodes.understanding.decks import (
    DeckChoice,
    deck_candidates,
    which_deck,
    which_deck_question,
)
from nodes.understanding.facts import NodeFact
from nodes.understanding.intent import Clarification, Clause, Reference, Target
from nodes.understanding.readers.base import (
    PreviousTurn,
    ReadContext,
    Reading,
    not_found,
    typed,
)
from nodes.understanding.readers.content import (
    BARE_UNDO,
    DECK_OPERATIONS,
    THE_UNDO,
    A_TOPIC_IN_THE_TITLE,
    NAMED_IN_THE_TOPIC,
    UNREAD_PLACE,
    Ask,
    asks_version,
    clause,
    content_after,
    parse_in_turn,
    previous_changes,
    quotes,
    read_clauses,
    read_undo,
    version_subject,
)
from nodes.understanding.rephrasings import numbers_apart, rephrased
from nodes.understanding.text import (
    BUT_COUNTS,
    CORRECTION_WORDS,
    EITHER_OR,
    INSTEAD_OF,
    PLACE_WORDS,
    POLITE_WORDS,
    Words,
    count_exception,
    either_or_question,
    lower_words,
    places_moved,
    spell_numbers,
)
from tools.deck.document import THEMES, UnknownTheme, theme_named

_SLIDE_WORDS = re.compile(r"\bslides?\b|\b(?:the|this|my|our) (?:deck|presentation|lecture|slide deck|talk)\b|"
                          r"\bbullets?(?: points?)?\b|\bspeaker notes\b|\bdecks?\b|\bpresentation\b")
_THEME = re.compile(r"\btheme\b|\b(?:dark|light) mode\b")
_DECK_ONLY_WORDS = re.compile(r"\b(?:illustrations?|pictures?|images?|diagrams?|titles?|notes)\b")
"""Words that name a part of the deck only on a project that holds a deck and nothing else."""

# ---------------------------------------------------------------- naming slides

_FROM_END = re.compile(r"(\d+)th[- ](?:(?:to|from)[- ](?:the[- ])?)?(?:last|end) slide\b|(\d+)th slide from the "
                       r"(?:end|last)\b|(?:last|final)(?: slide)? but (1|one|2|two|3|three)\b")
"""A slide counted from the end, its count in group 1, 2 or (less one) 3: "3th to last slide", "last but one"."""


def _from_end(said: str) -> int | None:
    """How far from the end a slide named by its place from the end is (1: the last), or None."""
    found = _FROM_END.search(said)
    if found is None:
        return None
    said = found.group(1) or found.group(2)
    return int(said) if said else BUT_COUNTS[found.group(3)] + 1


_SET_ITEM = (r"(?:slides? #?\d+|the (?:very )?(?:\d+th|first|last|final|opening|closing|title|cover)(?: one| slide)?"
             r"|this one|this slide|the selected (?:one|slide)|#?\d+(?!th))")
"""One slide an exception names: "slide 3", "the first", "the last one", "the 2th slide", "3"."""

_REF_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # "the slides after the first", "every slide after slide 3", "all the slides before the last one"
    ("beyond", re.compile(r"\b(?:(?:all(?: of)? |every )?(?:the )?slides|every slide) (?P<side>after|following|before)"
                          r" (?P<edge>" + _SET_ITEM + r")(?!\w)")),
    # "every slide except the first", "all the slides except slides 1 and 5" (a set's "but" is read as "except"
    # before this, rephrasings): the whole deck less the exceptions.  Without an exception it is the whole deck,
    # which a delete refuses (a deck needs one slide).
    ("all", re.compile(r"\b(?:(?:every|each)(?: single)? slide|all(?: of)?(?: the)?(?: \d+)? slides)"
                       r"(?: (?:except|apart from|other than|save)(?: for)? (?P<but>" + _SET_ITEM
                       + r"(?:\s*(?:,|and|&|or)\s*" + _SET_ITEM + r")*))?(?!\w)")),
    ("range", re.compile(r"\bslides? #?(\d+) ?(?:-|–|to|through|thru) ?#?(\d+)\b")),
    ("numbers", re.compile(r"\bslides? #?(\d+)((?:\s*(?:,|and|&|or)\s*(?:slide )?#?\d+\b)*)")),
    ("ordinals", re.compile(r"\bthe (\d+)th((?:\s*(?:,|and|&|or)\s*(?:the )?\d+th)*) slides?\b")),
    # "the 3rd to last slide", "the 3rd slide from the end", "the last slide but one": counted from the end
    ("from-end", re.compile(r"\bthe (?:\d+th[- ](?:(?:to|from)[- ](?:the[- ])?)?(?:last|end) slide|\d+th slide from the "
                            r"(?:end|last)|(?:last|final) slide but (?:1|one|2|two|3|three)|(?:last|final) but "
                            r"(?:1|one|2|two|3|three) slide)\b")),
    ("penultimate", re.compile(r"\bthe (?:2th|second)[- ](?:to[- ]|from[- ](?:the[- ])?)?last slide\b|"
                               r"\bthe penultimate slide\b|\bthe slide before the last(?: one)?\b|"
                               r"\bthe next[- ]to[- ]last slide\b")),
    ("last-n", re.compile(r"\bthe (?:last|final) (\d+) slides\b")),
    ("first-n", re.compile(r"\b(?:the )?(?:first|1th|opening|top) (\d+) slides\b")),
    ("last", re.compile(r"\bthe (?:very )?(?:last|final|closing|end) slide\b|\bthe last one\b")),
    ("first", re.compile(r"\bthe (?:very )?(?:first|1th|opening|title|cover|intro(?:duction)?) slide\b")),
    ("titled", re.compile(r"\bthe slide (?:about|on|titled|called|named|with the title|that covers|covering|"
                          r"that mentions|mentioning) (?P<title>.+?)(?=$| (?:to|after|before|into|as|with|and|then|"
                          r"at|from)\b|[,;])")),
    ("named", re.compile(r"\bthe (?P<title>[a-z0-9'-]+(?: [a-z0-9'-]+){0,3}) slide\b")),
    ("selection", re.compile(r"\bthis slide\b|\bthe selected (?:slides?|ones?)\b|\bthe selection\b|\bthe selected\b|"
                             r"\bselected slides?\b|\bthese slides\b|\bthis one\b|\bit\b|\bthis\b|\bhere\b")),
)


@dataclass
class SlideRef:
    """A phrase naming slides of the deck, and the slides it names (1-based numbers, facts)."""

    said: str
    start: int
    end: int
    slides: list[NodeFact]
    numbers: list[int]


def answered_deck(ctx: ReadContext) -> str | None:
    """The deck the person's answer picked (the id of one of the project's decks), if it is one."""
    return ctx.answer if ctx.answer in {d.id for d in ctx.facts.decks} else None


class Deck:
    """One of the project's decks as the facts have it (its current version): its node and its slides in order."""

    def __init__(self, ctx: ReadContext, node: NodeFact) -> None:
        """``node``: the deck, as ``nodes.understanding.decks.which_deck`` found it (or one of its candidates)."""
        self.node = node
        self.slides = sorted((s for s in ctx.facts.slides if s.group == self.node.id), key=lambda s: s.index or 0)
        self.selected = [n for n in ctx.facts.selection if n.kind == "slide" and n.group == self.node.id]

    def number(self, slide: NodeFact) -> int:
        return self.slides.index(slide) + 1

    def target(self) -> Target:
        """The deck as a target: what a deck tool writes with it (its slides, their contents and pictures)."""
        writes = [s.id for s in self.slides] + [i for s in self.slides for i in s.sources]
        return Target(id=self.node.id, kind="deck", title=self.node.title, referred_as="the deck",
                      writes=list(dict.fromkeys(writes)))

    def missing(self, said: str, numbers: list[int]) -> Ask:
        count = len(self.slides)
        # named, for a slide number past the end of a deck the selection picked of several ("delete slide 5")
        return Ask(Clarification(reason="not_found", missing=[said],
                                 message=f"The deck '{self.node.title}' has no {said}; it has {count} slides (1 to "
                                         f"{count}), so I changed nothing."))


_NEXT_TO_THE_SELECTION = {"previous": -1, "preceding": -1, "prior": -1, "next": 1, "following": 1}
"""A slide named by its place next to the selected one ("the previous slide", "the next slide")."""
_A_NEIGHBOUR_SAID = re.compile(r"\b(?:previous|preceding|prior|next|following)\b|\bthe one (?:before|after)\b")
"""Words for a slide next to another, which no slide pattern read: never the selection itself."""
_A_SLIDE_DESCRIBED = re.compile(r"\bthe (?P<title>[a-z0-9'-]+(?: [a-z0-9'-]+){0,3}) slide\b|"
                                r"\bthe slide (?:about|on|titled|called|named) (?P<about>[a-z0-9'-]+)")
"""A slide said by its title or subject ("the summary slide"): when no slide of the deck is so, never the selected one."""
_NOT_A_DESCRIPTION = frozenset("this that selected current same new next other one previous following whole "
                               "entire".split())
_A_SLIDE_NAMED = re.compile(r"\bslides? #?\d+\b|\bthe (?:[a-z0-9'-]+ ){1,4}slides?\b")
"""A slide the request names (before a pronoun that could be it or the selection)."""
_NEIGHBOUR = re.compile(r"\bthe slide (?:right |just |directly |immediately )?(?P<side>before|after|following) ")
"""A slide named by the one next to it: "the slide right before the summary"."""


def _by_title_alone(ctx: ReadContext, words: Words, deck: Deck, start: int, end: int) -> list[SlideRef]:
    """"the summary": a slide's whole title after "the", without the word slide (titles of up to four words)."""
    found = []
    for number, slide in enumerate(deck.slides, 1):
        title = slide.title.lower().strip()
        if not title or len(title.split()) > 4:
            continue
        for match in re.finditer(rf"\bthe {re.escape(title)}\b(?! slides?\b)", ctx.words.text[:end]):
            if match.start() >= start and not words.used(match.start(), match.end()):
                words.mark(match.start(), match.end())
                found.append(SlideRef(match.group(0), match.start(), match.end(), [slide], [number]))
    return found


def _neighbours(ctx: ReadContext, words: Words, deck: Deck, start: int, end: int) -> list[SlideRef]:
    found = []
    for match in _NEIGHBOUR.finditer(ctx.words.text, start, end):
        if words.used(match.start(), match.end()):
            continue
        trial = words.copy()
        anchors = [r for r in _static_slides(ctx, trial, deck, match.end(), end) + _by_title_alone(
            ctx, trial, deck, match.end(), end) if r.start == match.end()]
        if len(anchors) != 1 or len(anchors[0].numbers) != 1:
            continue
        anchor = anchors[0]
        number = anchor.numbers[0] + (-1 if match["side"] == "before" else 1)
        if not 1 <= number <= len(deck.slides):
            raise deck.missing(f"slide {match['side']} {anchor.said}", [number])
        words.mark(match.start(), anchor.end)
        found.append(SlideRef(ctx.words.text[match.start():anchor.end], match.start(), anchor.end,
                              [deck.slides[number - 1]], [number]))
    return found


def find_slides(ctx: ReadContext, words: Words, deck: Deck, start: int, end: int) -> list[SlideRef]:
    """Every phrase of the span that names slides, resolved on the deck (its words taken): by number, place,
    title, the selection, or the slide next to one of those."""
    found = _neighbours(ctx, words, deck, start, end)
    found += _static_slides(ctx, words, deck, start, end)
    found += _by_title_alone(ctx, words, deck, start, end)
    return sorted(found, key=lambda r: r.start)


def _static_slides(ctx: ReadContext, words: Words, deck: Deck, start: int, end: int) -> list[SlideRef]:
    found: list[SlideRef] = []
    for form, pattern in _REF_PATTERNS:
        for match in pattern.finditer(ctx.words.text, start, end):
            if words.used(match.start(), match.end()):
                continue
            numbers = _numbers(ctx, deck, form, match)
            if numbers is None:
                continue
            words.mark(match.start(), match.end())
            said = match.group(0)
            if any(not 1 <= n <= len(deck.slides) for n in numbers):
                bad = next(n for n in numbers if not 1 <= n <= len(deck.slides))
                raise deck.missing(f"slide {bad}", numbers)
            found.append(SlideRef(said, match.start(), match.end(), [deck.slides[n - 1] for n in numbers], numbers))
    return found


def _set_items(deck: Deck, said: str) -> list[int]:
    """The slide numbers of an exception list ("the first and slide 4", "the last one")."""
    count = len(deck.slides)
    numbers: list[int] = []
    for item in re.finditer(_SET_ITEM, said):
        text = item.group(0)
        if re.search(r"\b(?:this|selected)\b", text):  # "every slide except this one": the selected slide
            chosen = [deck.number(s) for s in deck.selected if s in deck.slides]
            if not chosen:
                raise Ask(Clarification(reason="no_target", understood=[f"except {text}"], message=(
                    f"'{text}': no slide of this deck is selected, so I changed nothing. Select it, or name it "
                    "('every slide except slide 3').")))
            numbers += chosen
        elif re.search(r"\b(?:last|final|closing)\b", text):
            numbers.append(count)
        elif re.search(r"\b(?:first|opening|title|cover)\b", text):
            numbers.append(1)
        else:
            numbers.append(int(re.search(r"\d+", text).group(0)))  # type: ignore[union-attr]
    return numbers


def _numbers(ctx: ReadContext, deck: Deck, form: str, match: re.Match[str]) -> list[int] | None:
    count = len(deck.slides)
    if form == "all":
        spared = _set_items(deck, match.group("but") or "")
        if any(not 1 <= n <= count for n in spared):
            return spared  # the caller names the slide that is not there
        return [n for n in range(1, count + 1) if n not in spared]
    if form == "beyond":
        edge = _set_items(deck, match.group("edge"))[0]
        if not 1 <= edge <= count:
            return [edge]
        return list(range(edge + 1, count + 1)) if match.group("side") != "before" else list(range(1, edge))
    if form == "range":
        low, high = sorted((int(match.group(1)), int(match.group(2))))
        return list(range(low, high + 1))
    if form in ("numbers", "ordinals"):
        return list(dict.fromkeys(int(n) for n in re.findall(r"\d+", match.group(0))))
    if form == "from-end":
        back = _from_end(match.group(0)) or 1
        return [count - back + 1] if back <= count else [count + 1]
    if form == "penultimate":
        return [count - 1] if count > 1 else [0]
    if form == "last-n":
        n = int(match.group(1))
        return list(range(count - n + 1, count + 1)) if n <= count else [count + 1]
    if form == "first-n":  # "delete the first three slides", "swap the first two slides"
        n = int(match.group(1))
        return list(range(1, n + 1)) if n <= count else [count + 1]
    if form == "last":
        return [count]
    if form == "first":
        return [1]
    if form == "selection":
        if not deck.selected:
            return None
        earlier = _A_SLIDE_NAMED.search(ctx.words.text, 0, match.start())
        if match.group(0) in ("it", "this", "this one") and earlier is not None:
            # "retitle slide 4 to Parts and delete it", slide 3 selected: "it" was the selection, and slide 3 was
            # deleted; it may as well be the slide the request named
            raise Ask(Clarification(reason="ambiguous", understood=[earlier.group(0)], message=(
                f"'{match.group(0)}': {earlier.group(0)}, which you named, or the selected slide (slide "
                f"{', '.join(str(deck.number(s)) for s in deck.selected if s in deck.slides)})? Say it again with the "
                "slide's number. I changed nothing.")))
        return [deck.number(s) for s in deck.selected if s in deck.slides]
    said = match.group("title").strip()
    wanted = {w for w in re.findall(r"[a-z0-9]+", said) if w not in ("the", "a", "an", "of", "and")}
    if said in _NEXT_TO_THE_SELECTION:
        # "retitle the previous slide", slide 3 selected: retitled slide 3 (the words read as no slide, the
        # selection taken instead)
        if len(deck.selected) != 1 or deck.selected[0] not in deck.slides:
            raise Ask(Clarification(reason="no_target", understood=[match.group(0)], message=(
                f"'{match.group(0)}': next to which slide? Select one, or name the slide by its number. I changed "
                "nothing.")))
        number = deck.number(deck.selected[0]) + _NEXT_TO_THE_SELECTION[said]
        if not 1 <= number <= count:
            raise deck.missing(match.group(0), [number])
        return [number]
    if not wanted or said in ("new", "next", "other", "same"):
        return None
    exact = [n for n, s in enumerate(deck.slides, 1) if s.title.lower() == said]
    if len(exact) == 1:
        return exact  # the slide's own title, as the person said it
    scored = [(len(wanted & set(re.findall(r"[a-z0-9]+", s.title.lower()))) / len(wanted), n)
              for n, s in enumerate(deck.slides, 1)]
    best = max((score for score, _ in scored), default=0)
    chosen = [n for score, n in scored if score == best and best >= 0.6]
    if not chosen:
        if form == "named":
            return None
        raise Ask(Clarification(reason="not_found", missing=[match.group(0)],
                                message=f"No slide of the deck is about '{said}'; its slides are "
                                        + "; ".join(f"{n}: {s.title}" for n, s in enumerate(deck.slides, 1)) + "."))
    answered = [n for n in chosen if deck.slides[n - 1].id == ctx.answer]
    if len(chosen) > 1 and answered:
        return answered  # the person picked one of the candidates
    if len(chosen) > 1:
        raise Ask(Clarification(reason="ambiguous", candidates=[
            {"id": deck.slides[n - 1].id, "title": deck.slides[n - 1].title, "slide": n} for n in chosen],
            message=f"More than one slide matches '{said}': "
                    + "; ".join(f"slide {n} ({deck.slides[n - 1].title})" for n in chosen) + ". Which one? Answer with "
                    "its id."))
    return chosen


# ---------------------------------------------------------------- the reader


def _stale_selection(ctx: ReadContext) -> Clarification | None:
    """Why "delete this" found nothing to delete when what is selected is a slide (or a deck) of an earlier version
    of the deck: an edit makes a new deck version with new slides, and a selection made before it (a page left open,
    an id copied from an earlier reply) points at the old ones.  None when a current slide or deck is selected."""
    current = {d.id for d in ctx.facts.decks}
    chosen = [n for n in ctx.facts.selection if n.kind in ("slide", "deck")]
    if not chosen or any((n.group if n.kind == "slide" else n.id) in current for n in chosen):
        return None
    what = f"{chosen[0].kind} '{chosen[0].title}'" + (f" and {len(chosen) - 1} more" if len(chosen) > 1 else "")
    return Clarification(
        reason="not_found", understood=[f"the selected {what}"],
        message=(f"The selected {what} belongs to an earlier version of the deck, not to the deck as it is now "
                 f"('{ctx.facts.decks[-1].title}'), so I changed nothing. Select it again on the current deck, or "
                 "name it ('slide 2', 'the last slide')."))


_SAME_AGAIN = re.compile(
    r"^\s*(?:(?:and|now|also|then|ok|okay|please)[, ]+)*(?:(?:do |the )?(?:the )?same(?: thing)? (?:to|for|with|on) "
    r"(?P<ref>.+?)|(?P<ref2>slides? #?\d+|the (?:\d+th|first|1th|last|final|opening|title) slide|the slide (?:about|on|"
    r"titled|called) [a-z0-9' -]+?)(?: too| as well| also)?)\s*[.!]*\s*$")
"""The last turn's deck change asked again for another slide: "do the same to slide 4", "and slide 4 too"."""
_RELATIVE = re.compile(r"^\s*(?:(?:and|now|also|then)[, ]+)*(?:(?:do )?(?:the )?same(?: thing)? (?:to|for|with|on) )?"
                       r"the (?:next|previous|one (?:after|before)(?: (?:it|that|this))?|slide (?:after|before) "
                       r"(?:it|that|this))(?: one| slide)?(?: too| as well| also)?\s*[.!]*\s*$")
"""The same, for a slide named by its place next to the last turn's: which one it is now depends on whether that
turn deleted or moved slides, so it is asked about (it went to the shot readers: "there are no shots")."""
_SLIDE_SAID = re.compile(r"\bslides? #?\d+\b|\bthe (?:\d+th|first|1th|last|final|opening|title|penultimate) slide\b|"
                         r"\bthe slide (?:about|on|titled|called) [a-z0-9' -]+?(?=$|[,.;!?]| and\b| then\b)")
_REPEATABLE = frozenset({"deck_delete_slide", "deck_remove_bullet", "deck_add_bullet", "deck_edit_slide",
                         "deck_regenerate_illustration", "deck_duplicate_slide", "deck_move_slide"})


def _said_again(ctx: ReadContext) -> str | Clarification | None:
    """The last turn's request with its slide replaced by the one this request names ("delete the last slide",
    then "and slide 4 too": "delete slide 4"), a question when that cannot be said for sure, or None when this
    is no such request."""
    text = ctx.words.text
    again, relative = _SAME_AGAIN.match(text), _RELATIVE.match(text)
    clauses = ctx.previous.clauses
    if (again is None and relative is None) or not clauses or not all(
            c.get("operation") in DECK_OPERATIONS for c in clauses):
        return None
    said = rephrased(spell_numbers(numbers_apart(lower_words(ctx.previous.request))))
    spans = list(_SLIDE_SAID.finditer(said))
    if relative is not None or len(clauses) != 1 or clauses[0].get("operation") not in _REPEATABLE or len(spans) != 1:
        return Clarification(
            reason="ambiguous", understood=[f"the last change ('{ctx.previous.request[:80]}') again"],
            message=f"On which slide should I do '{ctx.previous.request[:80]}' again? Name it by its number or "
                    "title ('do the same to slide 4'): the slides' numbers may have changed since.")
    ref = again.group("ref") or again.group("ref2")
    return f"{said[:spans[0].start()]}{ref}{said[spans[0].end():]}"


class SlideReader:
    """Requests about the project's deck: each edit one deck operation; a new deck only when asked for (builds)."""

    name = "slides"

    def read(self, ctx: ReadContext) -> Reading | None:
        text = ctx.words.text
        # A deck picked as the answer to "the page's theme or the deck's?" (the page reader asks) is selected.
        selected = any(n.kind in ("slide", "deck") for n in ctx.facts.selection) or answered_deck(ctx) is not None
        themed = ctx.facts.has_deck and not ctx.facts.has_page and bool(
            _THEME.search(text) or (not ctx.facts.has_story and _DECK_ONLY_WORDS.search(text)))
        version = asks_version(text) and version_subject(ctx) == "deck"
        titled = ctx.facts.has_deck and any(  # "delete the summary": a slide's own title names it
            s.title and len(s.title.split()) <= 4 and re.search(rf"\bthe {re.escape(s.title.lower())}\b", text)
            for s in ctx.facts.slides)
        again = _said_again(ctx) if ctx.facts.has_deck else None
        if isinstance(again, Clarification):
            ctx.words.take_all()
            return Reading(clarification=again)
        if again is not None:  # read as if said whole, on its own (no earlier turn: it is not asked again)
            inner = ReadContext(request=again, words=Words(again), facts=ctx.facts, previous=PreviousTurn(),
                                answer=ctx.answer, skills=ctx.skills)
            reading = self.read(inner)
            ctx.words.take_all()
            if reading is not None and reading.clarification is None:
                for item in reading.clauses:
                    item.understood.insert(0, f"the last change again: '{again}'")
            return reading
        if not (_SLIDE_WORDS.search(text) or themed or version or titled or (selected and ctx.facts.has_deck)):
            return None
        if (BARE_UNDO.fullmatch(text) or THE_UNDO.fullmatch(text)) and previous_changes(ctx, DECK_OPERATIONS)[0] != 1:
            # "undo" after a turn that made several deck versions ("delete the last two slides"), or none (a
            # question in between): the whole last turn that changed the canvas, the versions reader's.  One
            # deck_undo brought back one of the two slides, with exit 0.
            return None
        if not ctx.facts.has_deck:
            return not_found(ctx, "a deck", f"There is no slide deck {ctx.facts.where} yet; ask for one "
                             "('a 5-slide deck about ...').")
        if (_THEME.search(text) and ctx.facts.has_page and not selected
                and not re.search(r"\b(?:slides?|deck|presentation|lecture)\b", text)):
            return None  # the page reader asks which theme
        choice = which_deck(ctx.facts, answer=ctx.answer, words=ctx.words)
        if choice.deck is None:
            return self._which_deck(ctx, choice)
        return self._read_on(ctx, Deck(ctx, choice.deck))

    def _which_deck(self, ctx: ReadContext, choice: DeckChoice) -> Reading:
        """Several decks, and nothing in the request, the selection or an answer picks one: ask which.

        The request is read on each deck, and each reading that holds is a clause of the turn, so that its grant
        holds what any answer needs (the answer, a deck's id, reads the request again on that deck)."""
        clauses: list[Clause] = []
        understood: list[str] = []
        for node in choice.candidates:
            on = replace(ctx, words=ctx.words.copy())
            reading = self._read_on(on, Deck(on, node))
            if reading.clarification is None:
                clauses += reading.clauses
                understood = understood or [c.describe() for c in reading.clauses]
        ctx.words.take_all()
        candidates = deck_candidates(choice.candidates)
        return Reading(clauses=clauses, clarification=Clarification(
            reason="ambiguous", understood=understood, candidates=candidates,
            message=which_deck_question(candidates, choice.named)))

    def _read_on(self, ctx: ReadContext, deck: Deck) -> Reading:
        """The request read as edits of this deck."""
        text = ctx.words.text
        target = deck.target()
        counted, instead, either = count_exception(text), INSTEAD_OF.search(text), EITHER_OR.search(text)
        if counted is not None or instead is not None or either is not None:
            ctx.words.take_all()
            return Reading(clarification=Clarification(
                reason="ambiguous", understood=[f"the deck: {deck.node.title}"],
                message=(f"'{counted.group(0)}' says how many slides, not which. Name them: 'delete every slide "
                         "except slides 1 and 2'." if counted is not None else
                         f"'{instead.group(0).strip()}': shall {instead.group('other').strip()} go back to how it "
                         "was? Say 'undo the last change' for that, and name only the slide to change."
                         if instead is not None else
                         either_or_question(either.group(0)))))
        try:
            read = read_clauses(ctx, lambda c, w, s, e: _parse(c, w, s, e, deck))
        except Ask as asked:
            return asked.reading(ctx, self.name, target)
        if read is None:
            ctx.words.take_all()
            stale = _stale_selection(ctx)
            if stale is not None:
                return Reading(clarification=stale)
            return Reading(clarification=Clarification(
                reason="unparsed", understood=[f"the deck: {deck.node.title}"], not_understood=Words(text).unused(),
                message=("I understood this is about the slide deck, but not what to change, so I changed nothing. "
                         "I can: add a slide about something after slide N, delete, move or retitle a slide, add or "
                         "remove a bullet, change the theme, regenerate a slide's illustration, and undo or revert "
                         "a change. A new deck: 'a 5-slide deck about ...'.")))
        clauses, words = read
        try:
            _renumber(deck, clauses)
        except Ask as asked:
            ctx.words.take_all()
            return Reading(clarification=asked.clarification)
        ctx.words = words
        by_id = {s.id: s for s in deck.slides}
        for item in clauses:
            # The slide a clause edits, deletes or moves (by identity: its number may have changed since).
            slides = [Target(id=i, kind="slide", title=by_id[i].title, referred_as=r.said)
                      for r in item.references if r.form == "number" for i in r.target_ids if i in by_id]
            item.targets = [target, *slides]
        return Reading(clauses=clauses)


_OPERATION_OF = {"_add": "deck_add_slide", "_duplicate": "deck_duplicate_slide", "_bullets": "deck_edit_slide",
                 "_retitle": "deck_edit_slide", "_illustration": "deck_regenerate_illustration",
                 "_delete": "deck_delete_slide", "_move": "deck_move_slide"}


def _parse(ctx: ReadContext, words: Words, start: int, end: int, deck: Deck) -> list[Clause] | None:
    found = parse_in_turn((_version, _duplicate, _add, _bullets, _retitle, _illustration, _delete, _move, _theme),
                          _OPERATION_OF, ctx, words, start, end, deck)
    if found:
        words.take(_DECK_NOUNS, start, end)
    return found


_DECK_NOUNS = re.compile(r"\b(?:the |this |my |our )?(?:deck|presentation|slide deck|slides|lecture|talk)(?:'s)?\b|"
                         r"\b(?:in|of|from|on) the (?:deck|presentation)\b")


def _one(ctx: ReadContext, deck: Deck, refs: list[SlideRef], what: str) -> tuple[int, SlideRef]:
    """The one slide a clause acts on."""
    slides = [n for r in refs for n in r.numbers]
    if len(slides) == 1:
        return slides[0], refs[0]
    if not slides and len(deck.selected) == 1:
        if (near := _A_NEIGHBOUR_SAID.search(ctx.words.text)) is not None:
            # "retitle the one before to Intro", slide 3 selected: the slide next to it was meant, not slide 3
            raise Ask(Clarification(reason="no_target", understood=[what], message=(
                f"'{near.group(0)}': which slide? Name it by its number ('slide 2'). I changed nothing.")))
        described = _A_SLIDE_DESCRIBED.search(ctx.words.text)
        if described is not None and not set((described.group("title") or described.group("about")).split()) <= \
                _NOT_A_DESCRIPTION:
            # "rename the summary slide to End", with a slide of another deck (which has none) selected: the
            # selected slide was renamed
            raise Ask(Clarification(reason="not_found", missing=[described.group(0)], understood=[what], message=(
                f"'{described.group(0)}': no slide of '{deck.node.title}' (the deck of the selected slide) is that, "
                "so I changed nothing; its slides are " + "; ".join(f"{n}: {s.title}" for n, s in
                                                                   enumerate(deck.slides, 1)) +
                ". Name the slide by its number, or select it.")))
        return deck.number(deck.selected[0]), SlideRef("the selected slide", 0, 0, deck.selected, [])
    raise Ask(Clarification(reason="no_target" if not slides else "unparsed", understood=[what],
                            message=(f"Which slide should I {what}? Name one ('slide 3', 'the last slide', 'the slide "
                                     "about pricing') or select it." if not slides else
                                     f"I can {what} one slide at a time; which one?")))


def _subject(deck: Deck, number: int, said: str) -> Reference:
    """The slide a clause acts on, by identity (numbers change as earlier clauses add, delete or move slides)."""
    return Reference(said=said, form="number", domain="slide", numbers=[number],
                     target_ids=[deck.slides[number - 1].id])


def _anchor(deck: Deck, relation: str, number: int | None = None, said: str = "") -> Reference:
    """Where a slide goes: before or after a slide (by identity), the start, the end, a place, up or down."""
    named = relation in ("before", "after") and number is not None
    return Reference(said=said or relation, form="position", domain="slide", position=relation,
                     numbers=[number] if number is not None else [],
                     target_ids=[deck.slides[number - 1].id] if named else [])


def _renumber(deck: Deck, clauses: list[Clause]) -> None:
    """Give each clause the slide numbers of the deck as the clauses before it leave it.

    "delete slide 2 and retitle slide 4" means the slide that was 4th when the person spoke: after the delete it
    is the 3rd, and the retitle is sent for slide 3.  A slide an earlier clause deleted cannot be acted on.
    """
    order = [s.id for s in deck.slides]
    versions = [c for c in clauses if c.operation in ("deck_undo", "deck_revert")]
    if versions and len(versions) < len(clauses):  # "undo the last 2 changes" alone is two undos, in order
        raise Ask(Clarification(reason="unparsed", understood=[u for c in clauses for u in c.understood],
                                message="An undo or a revert with other changes in one request is ambiguous about "
                                        "which slides the numbers mean; ask for them one at a time."))
    titles = {s.id: f"'{s.title}'" for s in deck.slides}
    for index, item in enumerate(clauses):
        subject = next((r for r in item.references if r.form == "number"), None)
        anchor = next((r for r in item.references if r.form == "position"), None)
        number = None
        if subject is not None and subject.target_ids[0] in order:
            _same_edge_after_the_earlier_clauses(subject, clauses[:index], order, titles)
            _same_number_after_the_earlier_clauses(subject, clauses[:index], order, titles)
        if subject is not None:
            if subject.target_ids[0] not in order:
                raise Ask(Clarification(reason="conflict", understood=[u for c in clauses for u in c.understood],
                                        message=f"An earlier part of the request removes {subject.said}, and a later "
                                                "part changes it. Which do you mean?"))
            number = order.index(subject.target_ids[0]) + 1
        if item.operation == "deck_delete_slide":
            item.args["slide"] = number
            order.remove(subject.target_ids[0])
        elif item.operation == "deck_move_slide":
            rest = [i for i in order if i != subject.target_ids[0]]
            to = _place(anchor, rest, number)
            if not 1 <= to <= len(order) or to == number:
                raise Ask(Clarification(reason="conflict", message=f"Moving {subject.said} there changes nothing "
                                        "or leaves the deck; say where it should go."))
            item.args.update(slide=number, to=to)
            order = [*rest[:to - 1], subject.target_ids[0], *rest[to - 1:]]
        elif item.operation == "deck_add_slide":
            after = _place(anchor, order, None) - 1
            item.args["after"] = after
            order.insert(after, f"new:{id(item)}")
        elif item.operation == "deck_duplicate_slide":  # by default right after the slide it copies
            after = _place(anchor, order, None) - 1 if anchor is not None else number
            item.args.update(slide=number, after=after)
            order.insert(after, f"new:{id(item)}")
        elif number is not None:
            item.args["slide"] = number


_EDGE = re.compile(r"\b(?P<first>first|1th|opening|title|cover|intro(?:duction)?)\b|"
                   r"\b(?P<penultimate>penultimate|2th[- ](?:to|from)[- ](?:the[- ])?last|next[- ]to[- ]last|"
                   r"before the last)\b|\b(?P<last>last|final|closing|end)\b")


def _same_edge_after_the_earlier_clauses(subject: Reference, earlier: list[Clause], order: list[str],
                                         titles: dict[str, str]) -> None:
    """Ask when a later clause names a slide by its place ("then delete the last slide") and the earlier clauses
    moved, added or deleted slides so that another slide is in that place now.  Read as spoken, "move slide 8 to
    place 2, then delete the last slide" deleted the slide it had just moved, with exit 0."""
    edge = _EDGE.search(subject.said)
    if edge is None or not any(r.said != subject.said for c in earlier for r in c.references) or len(order) < 2:
        return
    back = _from_end(subject.said)
    if back is not None and back > len(order):
        return
    now = (order[-back] if back is not None else order[0] if edge["first"] else order[-2] if edge["penultimate"]
           else order[-1])
    if now == subject.target_ids[0]:
        return
    raise _moved_under_it(subject, earlier, now, titles, "it would be {later}. Which one do you mean? Name it by its "
                                                        "number or title.")


def _moved_under_it(subject: Reference, earlier: list[Clause], now: str, titles: dict[str, str], after: str) -> Ask:
    """Which slide: the one a later clause names as the deck is now, or ``now``, the one in that place after the
    earlier clauses (``after``: the rest of the question, with ``{later}`` for that slide's title)."""
    spoken, later = titles.get(subject.target_ids[0], "that slide"), titles.get(now, "the new slide")
    return Ask(Clarification(
        reason="ambiguous", understood=[u for c in earlier for u in c.understood],
        candidates=[{"id": i, "title": titles.get(i, "the new slide").strip("'")} for i in (subject.target_ids[0], now)
                    if not i.startswith("new:")],
        message=f"'{subject.said}' is {spoken} now, but after the earlier part of the request "
                + after.format(later=later)))


def _same_number_after_the_earlier_clauses(subject: Reference, earlier: list[Clause], order: list[str],
                                           titles: dict[str, str]) -> None:
    """Ask when a later clause names by its number a slide an earlier clause moved, and another slide has that number
    after the move: "move slide 5 to the front then delete slide 5" deleted the slide it had just moved, with exit 0.
    (Numbers are read as the deck has them when the request is made, "delete slide 2 and retitle slide 4": a slide
    moved and then named again by its old number is the one case where that reading is unlikely to be meant.)"""
    said = re.fullmatch(r"slide #?(\d+)", subject.said.strip())
    moved = {r.target_ids[0] for c in earlier if c.operation == "deck_move_slide"
             for r in c.references[:1] if r.form == "number" and r.target_ids}
    if said is None or subject.target_ids[0] not in moved:
        return
    number = int(said.group(1))
    if not 1 <= number <= len(order) or order[number - 1] == subject.target_ids[0]:
        return
    raise _moved_under_it(subject, earlier, order[number - 1], titles, f"slide {number} would be {{later}}. Which "
                          "one do you mean? Name it by its title, or ask for one change at a time.")


def _place(anchor: Reference | None, rest: list[str], number: int | None) -> int:
    """The 1-based place a slide takes among ``rest`` (the deck without it)."""
    relation = anchor.position if anchor is not None else "end"
    if relation in ("before", "after") and anchor is not None and anchor.target_ids:
        return rest.index(anchor.target_ids[0]) + (1 if relation == "before" else 2)
    if relation == "start":
        return 1
    if relation == "place" and anchor is not None:
        return anchor.numbers[0]
    if relation in ("up", "down") and number is not None:  # anchor.numbers: how many places
        places = anchor.numbers[0] if anchor is not None and anchor.numbers else 1
        return number - places if relation == "up" else number + places
    return len(rest) + 1


def _version(ctx: ReadContext, words: Words, start: int, end: int, deck: Deck) -> list[Clause] | None:
    return read_undo(ctx, words, start, end, what="deck", undo_op="deck_undo", revert_op="deck_revert",
                     domain="slides", operations=DECK_OPERATIONS)


_SLIDE_REF = r"slides? #?\d+|the [a-z0-9' -]+? slide|this slide|the selection|the selected one|it"
"""How an edit names its one slide: a number, a title, or the selection ("retitle it", "add a bullet to the selection")."""

_ADD = re.compile(r"\b(?:(?:add|insert|include|create|put in|append)\b (?:a |an |one more |another |one |new |extra )*|"
                  r"(?:make|write) (?:a |an |one more |another )(?:new |extra )?)slide\b")
_ADD_TOPIC = re.compile(r"\b(?:about|on|covering|explaining|for|called|titled|named|with the title|that covers|"
                        r"describing|introducing|summari[sz]ing)\b (?P<topic>.+)")
_ADD_PLACE = re.compile(r"\b(?:(?:right |just |directly |immediately |straight )?(?P<where>after|following|behind|before|ahead of|in front of) (?P<ref>(?:slide #?\d+|"
                        r"the (?:\d+th|first|last|final|title|opening|second[- ]to[- ]last) slide|this slide|this one|"
                        r"it|the slide (?:about|on|titled|called) [a-z0-9' -]+?)))(?=$|[ ,;])|"
                        r"\bbetween slides? #?(?P<a>\d+) and (?:slide )?#?(?P<b>\d+)\b|"
                        r"\b(?:at|to) the (?P<end>end|start|beginning|front|back|top|bottom)(?: of the (?:deck|"
                        r"presentation))?\b|\bas (?:the )?(?:new )?(?:(?P<nth>\d+)th|(?P<pos>first|last|final)) slide\b|"
                        r"\bas slide #?(?P<number>\d+)\b")


def _add(ctx: ReadContext, words: Words, start: int, end: int, deck: Deck) -> list[Clause] | None:
    text = ctx.words.text
    match = _ADD.search(text, start, end)
    if match is None or re.search(r"\bbullet", text[start:end]):
        return None
    words.mark(match.start(), match.end())
    anchor = _anchor(deck, "end")
    place = _ADD_PLACE.search(text, match.end(), end)
    topic_end = end
    if place is not None:
        anchor = _new_slides_place(ctx, words, deck, place)
        topic_end = place.start() if place.start() > match.end() else end
    elif (titled := _placed_by_title(deck, text, match.end(), end)) is not None:
        # "add a slide about sampling speed before the summary": the slide went last, titled "Sampling speed
        # before the summary"
        refs = find_slides(ctx, words, deck, titled.start("ref"), titled.end("ref"))
        number, _ = _one(ctx, deck, refs, "put the new slide next to")
        relation = "before" if titled.group("where") in ("before", "ahead of", "in front of") else "after"
        anchor = _anchor(deck, relation, number, titled.group(0).strip())
        words.mark(titled.start(), titled.end())
        topic_end = titled.start()
    topic = _ADD_TOPIC.search(text, match.end(), topic_end)
    if topic is None:
        topic = _ADD_TOPIC.search(text, place.end(), end) if place is not None and place.end() < end else None
        if topic is None:
            raise Ask(Clarification(reason="unparsed", understood=["add a slide"],
                                    message="What should the new slide be about? Say 'add a slide about ...'."))
    topic = _topic_alone(ctx, words, topic, place is not None)
    titled = _TITLED_AFTER.search(text, topic.start("topic"), topic.end("topic"))
    if titled is not None and re.match(r"about|on|covering", topic.group(0)):
        # "add a slide about pests titled 'Uninvited guests'": the title is not part of the topic
        about = content_after(ctx, words, topic.start("topic"), titled.start())
        title = content_after(ctx, words, titled.end(), topic.end("topic"), exact=True)
        words.mark(titled.start(), titled.end())
        words.mark(topic.start(), topic.start("topic"))
        after = _place(anchor, [s.id for s in deck.slides], None) - 1
        return [clause(ctx, "slides", "deck_add_slide", {"after": after, "about": about, "title": title},
                       f"add a slide '{title}' about '{about}' ({'first' if after == 0 else f'after slide {after}'})",
                       start=start, end=end, references=[anchor])]
    titled_only = bool(re.match(r"(?:called|titled|named|with the title)\b", topic.group(0)))
    if titled_only and not quotes(ctx, topic.start("topic"), topic.end("topic")) and (
            about := A_TOPIC_IN_THE_TITLE.search(text, topic.start("topic"), topic.end("topic"))) is not None:
        raise Ask(Clarification(reason="unparsed", understood=["add a slide"], message=(
            f"'{text[about.start():topic.end('topic')].strip()}': part of the new slide's title, or what it is "
            "about? I added nothing. Say 'add a slide about swarms titled \"Swarm season\"', or quote the title.")))
    # "add a slide called Thanks!": a title is written as typed, its closing mark asked about (a topic is not)
    about = content_after(ctx, words, topic.start("topic"), topic.end("topic"), exact=titled_only)
    words.mark(topic.start(), topic.start("topic"))
    after = _place(anchor, [s.id for s in deck.slides], None) - 1
    args: dict = {"after": after, "about": about}
    if titled_only or quotes(ctx, topic.start("topic"), topic.end("topic")):
        args["title"] = about
    where = "first" if after == 0 else f"after slide {after}"
    return [clause(ctx, "slides", "deck_add_slide", args, f"add a slide about '{about}' ({where})", start=start,
                   end=end, references=[anchor])]


_TITLED_AFTER = re.compile(r",?\s*\b(?:titled|called|named|with the title)\s+")
_ANOTHER_ONE = re.compile(r"(?:,|;|&|\band\b|\bthen\b|\bplus\b|\bas well as\b|\balong with\b|\balso\b)\s+"
                          r"(?:(?:then|also)\s+)?(?:another|one more|a second|a 2th|one|1|a slide)\b(?:\s+(?:slide|one))?"
                          r"\s+(?:about|on|for|covering)\b")
"""A second new slide in the topic ("add a slide about costs and another about risks", "add a slide about honey,
also one about wax", "... & one on wax", "..., one about wax" where "one" reads as 1): one was made, about both."""
_TO_THE_DECK = re.compile(r"\s*\b(?:to|into|in|for|on) (?:the|this|that|my|our) (?:[a-z0-9'-]+ ){0,5}"
                          r"(?:slide deck|deck|presentation|slideshow)\b")
"""The deck the slide goes into, said after its topic ("add a slide about wax to the beekeeping deck")."""


def _topic_alone(ctx: ReadContext, words: Words, topic: re.Match[str], placed: bool) -> re.Match[str]:
    """The new slide's topic without the deck it goes into; asked about when it holds a second slide or a place
    no pattern read (either was written into the topic, and one slide added at the end)."""
    text = words.text
    deck = _TO_THE_DECK.search(text, topic.start("topic"), topic.end("topic"))
    if deck is not None:
        words.mark(deck.start(), deck.end())
        topic = _ADD_TOPIC.search(text, topic.start(), deck.start()) or topic
    said = text[topic.start("topic"):topic.end("topic")]
    if (choice := re.search(r"\bor (?:about|on|maybe|perhaps|possibly|else)\b", said)) is not None:
        # "add a slide about wax or about honey" was about 'wax or about honey'
        raise Ask(Clarification(reason="ambiguous", understood=["add a slide"], message=(
            f"'{choice.group(0)}': which topic? I added nothing. Say one ('add a slide about wax').")))
    if _ANOTHER_ONE.search(said):
        raise Ask(Clarification(reason="unsupported", understood=["add a slide"],
                                message="That asks for more than one new slide; I add one at a time, so I added "
                                        "none. Ask for the first ('add a slide about ...'), then the next."))
    if (named := NAMED_IN_THE_TOPIC.search(said)) is not None and named.start() > 0 and not _TITLED_AFTER.search(said):
        # "add a slide about pests, title: Pests" was about 'pests, title: Pests', with no title
        raise Ask(Clarification(reason="unparsed", understood=[f"add a slide about '{said[:named.start()].strip(' ,')}'"],
                                message=f"'{named.group(0).strip(' :')}': is that the new slide's title? I added "
                                        "nothing. Say 'add a slide about pests titled \"Uninvited guests\"'."))
    if (place := UNREAD_PLACE.search(said)) is not None and not (placed and place.start() == 0):
        raise Ask(Clarification(reason="unparsed", understood=[f"add a slide about '{said[:place.start()].strip()}'"],
                                message="Where should the new slide go? I did not understand '"
                                        f"{typed(ctx, topic.start('topic') + place.start(), topic.end('topic'))}'"
                                        ", so I added nothing. Say 'after slide 2', 'before the summary', 'at the "
                                        "start' or 'as slide 3'."))
    return topic


def _placed_by_title(deck: Deck, text: str, start: int, end: int) -> re.Match[str] | None:
    """Where a new slide goes, said by a slide's title alone at the end of the request ("... before the summary")."""
    titles = "|".join(re.escape(s.title.lower()) for s in deck.slides if s.title and len(s.title.split()) <= 4)
    if not titles:
        return None
    return re.compile(rf" (?:(?:right|just|directly|immediately|straight) )?(?P<where>before|after|following|ahead of|in front of) (?P<ref>the (?:{titles}))(?: slide)?"
                      r"\s*$").search(text, start, end)


def _new_slides_place(ctx: ReadContext, words: Words, deck: Deck, place: re.Match[str]) -> Reference:
    """Where a new slide goes, from an :data:`_ADD_PLACE` match ("after slide 3", "at the end", "as slide 2"),
    whose words are taken."""
    count = len(deck.slides)
    if place.group("ref"):
        refs = find_slides(ctx, words, deck, place.start("ref"), place.end("ref"))
        number, _ = _one(ctx, deck, refs, "put the new slide next to")
        relation = "after" if place.group("where") in ("after", "following", "behind") else "before"
        anchor = _anchor(deck, relation, number, place.group(0))
    elif place.group("a"):
        low, high = sorted((int(place.group("a")), int(place.group("b"))))
        if high > count:
            raise deck.missing(f"slide {high}", [high])
        if high != low + 1:
            raise Ask(Clarification(reason="unparsed", message=f"Slides {low} and {high} are not next to each "
                                    "other; say after which slide the new one goes."))
        anchor = _anchor(deck, "after", low, place.group(0))
    elif place.group("end"):
        start_words = ("start", "beginning", "front", "top")
        anchor = _anchor(deck, "start" if place.group("end") in start_words else "end", said=place.group(0))
    else:
        wanted = int(place.group("nth") or place.group("number") or 0) or (1 if place.group("pos") == "first"
                                                                            else count + 1)
        if not 1 <= wanted <= count + 1:
            raise deck.missing(f"place {wanted}", [wanted])
        anchor = _anchor(deck, "place", wanted, place.group(0))
    words.mark(place.start(), place.end())
    return anchor


_DUPLICATE = re.compile(r"\b(?:duplicate|clone|copy|(?:make|add|create|put in|insert) (?:a |another |one more )?"
                        r"(?:copy|copies|duplicate|clone) of)\b")


_INTO_A_DECK = re.compile(r"\b(?:to|into|onto|in)\s+(?:the |another |a |my )?(?:[a-z'-]+ ){0,5}?"
                          r"(?:deck|presentation|slideshow)\b")
"""A deck said as where a copy goes ("copy slide 2 to the beekeeping deck"), not whose slide it is."""


def _duplicate(ctx: ReadContext, words: Words, start: int, end: int, deck: Deck) -> list[Clause] | None:
    """"duplicate slide 2", "make a copy of the summary slide at the end": one slide copied, by default right
    after itself (it was asked about: no operation copied a slide)."""
    text = ctx.words.text
    match = _DUPLICATE.search(text, start, end)
    if match is None:
        return None
    if len(ctx.facts.decks) > 1 and _INTO_A_DECK.search(text, match.end(), end):
        # "copy slide 2 to the beekeeping deck" copied the beekeeping deck's own slide 2 within it: the deck
        # named was read as the slide's, and it was where the copy should go
        raise Ask(Clarification(reason="unsupported", understood=["copy a slide"],
                                message="I copy a slide within its own deck, not from one deck into another, so I "
                                        "changed nothing. Name the slide's own deck ('duplicate slide 2 of the "
                                        "beekeeping deck'), or add a new slide there ('add a slide about ... to the "
                                        "beekeeping deck')."))
    place = _ADD_PLACE.search(text, match.end(), end)
    refs = find_slides(ctx, words, deck, match.end(), place.start() if place is not None else end)
    number, ref = _one(ctx, deck, refs, "copy")
    words.mark(match.start(), match.end())
    references = [_subject(deck, number, ref.said)]
    where = "right after it"
    if place is not None:
        anchor = _new_slides_place(ctx, words, deck, place)
        references.append(anchor)
        where = anchor.said
    return [clause(ctx, "slides", "deck_duplicate_slide", {"slide": number}, f"copy slide {number} ({where})",
                   start=start, end=end, references=references)]


_DELETE = re.compile(r"\b(?:delete|remove|drop|cut|get rid of|lose|kill|take out|scrap|trash|ditch)\b")


_PICTURE = r"(?:picture|image|illustration|photo|photograph|graphic|drawing|artwork|art|visual)s?\b"
"""A slide's illustration, as people name it."""
_A_PICTURE = re.compile(r"\s*(?:the |a |an |its |that |this |all (?:of )?(?:the )?|every )?" + _PICTURE)
"""What "remove" names when its object is a slide's picture, not the slide ("remove the picture from slide 4")."""


def _delete(ctx: ReadContext, words: Words, start: int, end: int, deck: Deck) -> list[Clause] | None:
    match = _DELETE.search(ctx.words.text, start, end)
    if match is None:
        return None
    if _A_PICTURE.match(ctx.words.text, match.end(), end) or re.search(
            r"(?:'s|\s)\s*" + _PICTURE, ctx.words.text[match.end():end]):
        # It deleted the whole slide: "remove the picture from slide 4" (the slide reference came after the
        # picture's words, which nothing read), "remove slide 3's picture", "delete slide 2 image"
        raise Ask(Clarification(reason="unsupported", understood=["take a picture off a slide"],
                                message="I cannot take an illustration off a slide and keep the slide. I can draw a "
                                        "new one ('a new illustration for slide 4') or delete the whole slide "
                                        "('delete slide 4'); which do you want?"))
    refs = find_slides(ctx, words, deck, match.end(), end)
    named = [(n, r.said) for r in refs for n in r.numbers]
    if not named and len(deck.selected) and re.fullmatch(r"\s*(?:it|this|them|these|the selection|(?:the )?selected"
                                                         r"(?: ones?)?)?\s*", ctx.words.text[match.end():end]):
        named = [(deck.number(s), "the selected slide") for s in deck.selected]
        words.mark(match.end(), end)
    if not named:
        return None
    _one_slide_said_twice(ctx, refs)
    numbers = sorted({n for n, _ in named}, reverse=True)  # the last first: the numbers of the others stay right
    if len(numbers) >= len(deck.slides):
        raise Ask(Clarification(reason="conflict", understood=["delete slides"],
                                message="That would delete every slide of the deck; a deck needs one. Which should "
                                        "stay?"))
    words.mark(match.start(), match.end())
    said = dict(named)
    return [clause(ctx, "slides", "deck_delete_slide", {"slide": n}, f"delete slide {n}", start=start, end=end,
                   references=[_subject(deck, n, said[n])]) for n in numbers]


_BY_NUMBER = re.compile(r"\s*slides? #?\d+\s*")


def _one_slide_said_twice(ctx: ReadContext, refs: list[SlideRef]) -> None:
    """Asks when a slide's number and a description stand side by side, with no "and" between them, and name two
    slides ("delete slide 4, the summary", "delete the summary (slide 4)", with the summary slide 5): one slide
    meant, said twice, and both were deleted.  Said of one slide ("delete slide 5, the summary") it is that one."""
    text = ctx.words.text
    for first, second in zip(refs, refs[1:]):
        between = text[first.end:second.start]
        if re.search(r"\band\b|&|\bplus\b|\bthen\b", between) or "(" not in between and "," not in between:
            continue
        numbered = [bool(_BY_NUMBER.fullmatch(r.said)) for r in (first, second)]
        if numbered[0] == numbered[1] or set(first.numbers) & set(second.numbers):
            continue
        raise Ask(Clarification(reason="conflict", understood=[f"{r.said}: slide {', '.join(map(str, r.numbers))}"
                                                               for r in (first, second)], message=(
            f"'{first.said}' and '{second.said}' are different slides (slide {', '.join(map(str, first.numbers))} "
            f"and slide {', '.join(map(str, second.numbers))}); which one do you mean? I changed nothing.")))


_MOVE = re.compile(r"\b(?:move|put|place|shift|bring|reorder)\b")
_PLACES = rf"(?:{PLACE_WORDS}|slides?)"
_MOVE_PLACE = re.compile(r"\b(?P<where>before|after|ahead of|in front of|behind|following|above|below|under)\b|"
                         r"\b(?:to|at) (?:the )?(?P<end>end|start|beginning|front|back|top|bottom)\b|"
                         r"\b(?:to|into) (?:position |place |slot |spot )?#?(?P<position>\d+)\b|"
                         r"\bto (?:the )?(?P<nth>\d+)th (?:place|position|spot|slot)\b|"
                         rf"\b(?P<way>up|down|earlier|later)(?: by)?(?: (?:(?P<count>\d+|one)(?: {_PLACES})?|"
                         rf"a (?:place|slide|spot|slot|position)))?\b|"
                         rf"\b(?P<count2>\d+|one|a) {_PLACES} (?P<way2>up|down|earlier|later)\b")
"""Where a slide goes.  Up and down (and earlier, later) by places: "up" alone is one, "up 2", "down by 2", "one
place later", "2 slides earlier" (the number was left unread: "move slide 4 up two" asked)."""
_SWAP = re.compile(r"\b(?:swap|switch|exchange|trade)\b")
_ORDINAL_PLACE = re.compile(r"(?<!\bat)(?<!\bin)(?<!\bon)(?<!\bas)(?<!\bby)(?<!\bfor)(?<!\bwith)(?<!\bfrom) "
                            r"(?:(?P<to>(?:to|into) (?:be )?(?:the )?)|in (?:the )?(?=\S+ (?:place|position|spot|slot)\b))?"
                            r"(?P<nth>\d+th|last|final)(?: (?:place|position|spot|slot))?"
                            rf"(?=\s*(?:,?\s*{POLITE_WORDS})?\s*[.!]*\s*$)")
"""A slide's new place said as an ordinal at the end of the request: "put the summary slide second", "move slide 6
third", "move slide 2 to last", "put slide 5 in second place"; not after "at" ("put slide 2 at last": finally?)."""
_SLIDE_BEFORE_A_PLACE = re.compile(r"(?:\b(?:slide|slides|it|this|that|one)|\d)\s*$")
"""What a bare ordinal place follows: the slide it moves ("move slide 5 third", "put the summary slide second",
"move it last"); after other words ("in a second", "for a second", "back a second", "like the last") it is no
place."""
_ONLY_A_MOVE_BEFORE = re.compile(r"^\s*(?:(?:please|pls|ok|okay|now|can you|could you|would you|will you)\s*,?\s*)*$")
"""Words before the verb of a move whose ordinal is said bare ("put slide 4 first"): a request of one clause only,
since after another change "first" may say when ("delete slide 3 and move slide 5 first")."""
_MAKE_PLACE = re.compile(r"\bmake (?P<ref>.+?) the (?:(?P<nth>\d+)th|(?P<pos>first|last|final|opening|closing)) "
                         r"(?:slide|one)\b")


_A_PICTURE_SAID = re.compile(r"\b(?!art\b)" + _PICTURE)  # "move the art slide" names a slide


def _move(ctx: ReadContext, words: Words, start: int, end: int, deck: Deck) -> list[Clause] | None:
    text = ctx.words.text
    count = len(deck.slides)
    if (_SWAP.search(text, start, end) or _MOVE.search(text, start, end)) and _A_PICTURE_SAID.search(text, start, end):
        # "move the picture on slide 2 to 4" moved slide 2; "swap the picture on slide 2 with slide 4" drew a picture
        # of 'slide 4'
        raise Ask(Clarification(reason="unsupported", understood=["move a slide's picture"],
                                message="A slide's illustration stays on its slide: I can move the whole slide ('move "
                                        "slide 2 to 4') or draw it a new illustration ('a new illustration for slide "
                                        "4'). I changed nothing."))
    if (swap := _SWAP.search(text, start, end)) is not None:
        refs = find_slides(ctx, words, deck, swap.end(), end)
        numbers = [n for r in refs for n in r.numbers]
        if len(numbers) != 2 or numbers[0] == numbers[1]:
            return None
        a, b = sorted(numbers)
        words.mark(swap.start(), swap.end())
        # b takes a's place; then a (now one further on) takes b's old place, when they were not neighbours.
        moves = [(b, _anchor(deck, "before", a))] + ([(a, _anchor(deck, "place", b))] if b - a > 1 else [])
        return [clause(ctx, "slides", "deck_move_slide", {"slide": s}, f"swap slides {a} and {b}", start=start,
                       end=end, references=[_subject(deck, s, f"slide {s}"), where]) for s, where in moves]
    if (made := _MAKE_PLACE.search(text, start, end)) is not None:
        refs = find_slides(ctx, words, deck, made.start("ref"), made.end("ref"))
        number, ref = _one(ctx, deck, refs, "move")
        to = int(made.group("nth")) if made.group("nth") else 1 if made.group("pos") in ("first", "opening") else count
        words.mark(made.start(), made.end())
        return _moved(ctx, deck, number, ref.said, _anchor(deck, "place", to, made.group(0)), start, end)
    match = _MOVE.search(text, start, end)
    if match is None:
        return None
    place = _MOVE_PLACE.search(text, match.end(), end)
    if place is None:
        return _moved_to_an_ordinal(ctx, words, start, end, deck, match)
    refs = find_slides(ctx, words, deck, match.end(), place.start())
    number, ref = _one(ctx, deck, refs, "move")
    if place.group("where"):
        anchors = find_slides(ctx, words, deck, place.end(), end)
        other, _ = _one(ctx, deck, anchors, "put it next to")
        if other == number:
            raise Ask(Clarification(reason="conflict", message=f"Slide {number} cannot move next to itself."))
        # "above" is before in a deck's list of slides, "below" and "under" after ("move slide 5 above slide 4")
        before = place.group("where") in ("before", "ahead of", "in front of", "above")
        anchor = _anchor(deck, "before" if before else "after", other, place.group(0))
    elif place.group("end"):
        start_words = ("start", "beginning", "front", "top")
        anchor = _anchor(deck, "start" if place.group("end") in start_words else "end", said=place.group(0))
    elif place.group("position") or place.group("nth"):
        anchor = _anchor(deck, "place", int(place.group("position") or place.group("nth")), place.group(0))
    else:
        way, count = place.group("way") or place.group("way2"), place.group("count") or place.group("count2")
        if count is None and way in ("earlier", "later") and place.group(0) == way:
            # "move slide 3 later": one place, or to the end? ("up" is one place, as a list's "move up" is)
            raise Ask(Clarification(reason="unparsed", understood=[f"move slide {number} {way}"], message=(
                f"How many places {way}? I changed nothing. Say 'move slide {number} one place {way}', 'move slide "
                f"{number} to position 2' or 'move slide {number} after slide 4'.")))
        by = places_moved(way, count)
        anchor = _anchor(deck, "up" if by < 0 else "down", abs(by), place.group(0))
    words.mark(match.start(), match.end())
    words.mark(place.start(), place.end())
    return _moved(ctx, deck, number, ref.said, anchor, start, end)


def _moved_to_an_ordinal(ctx: ReadContext, words: Words, start: int, end: int, deck: Deck,
                         verb: re.Match[str]) -> list[Clause] | None:
    """"put the summary slide second", "move slide 6 third", "move slide 2 last": the place the slide takes, said as
    an ordinal at the end of the request (:data:`_ORDINAL_PLACE`).  Said bare ("second"), only in a request that is
    this move alone; an ordinal the words before it do not name a slide with ("put slide 2 second or third") is
    left unread, and asked about."""
    text = ctx.words.text
    place = _ORDINAL_PLACE.search(text, verb.end())
    if place is None or place.start() <= verb.end() or place.start() >= end:
        return None  # the ordinal ends the request ("move slide 5 first, then ..." may say when)
    if not place.group("to") and place.group(0).lstrip().startswith(place.group("nth")) and \
            not _ONLY_A_MOVE_BEFORE.match(text, 0, verb.start()):
        return None
    if not place.group("to") and not _SLIDE_BEFORE_A_PLACE.search(text, 0, place.start()):
        return None  # "move slide 4 in a second", "move it for a second", "move slide 4 like the last": not a place
    refs = find_slides(ctx, words, deck, verb.end(), place.start())
    number, ref = _one(ctx, deck, refs, "move")
    nth = place.group("nth")
    anchor = _anchor(deck, "end", said=place.group(0).strip()) if nth in ("last", "final") else \
        _anchor(deck, "place", int(nth.removesuffix("th")), place.group(0).strip())
    words.mark(verb.start(), verb.end())
    words.mark(place.start(), place.end())
    return _moved(ctx, deck, number, ref.said, anchor, start, end)


def _moved(ctx: ReadContext, deck: Deck, number: int, said: str, anchor: Reference, start: int,
           end: int) -> list[Clause]:
    rest = [s.id for s in deck.slides if s.id != deck.slides[number - 1].id]
    to = _place(anchor, rest, number)
    if not 1 <= to <= len(deck.slides):
        raise deck.missing(f"place {to}", [to])
    if to == number:
        raise Ask(Clarification(reason="conflict", message=f"Slide {number} is already there; nothing to move."))
    return [clause(ctx, "slides", "deck_move_slide", {"slide": number, "to": to},
                   f"move slide {number} to place {to}", start=start, end=end,
                   references=[_subject(deck, number, said), anchor])]


_OF_THE_DECK = (r" (?:of|in|on|from) (?:the|this|my|our) (?:[a-z0-9'-]+ ){0,5}?"
                r"(?:slide deck|deck|presentation|slideshow)\b")
"""The deck a slide belongs to, said after it ("rename slide 2 of the deck to Hives"): not part of the new title,
which had been "of the deck to Hives"."""
_RETITLE = re.compile(
    # "make the title of slide 5 say What to do next" ("to" read as the end of the slide's name: 'do next')
    r"\b(?:make|have|let|change)\b (?:the )?(?:title|heading|name|headline) (?:of|on|for) (?P<ref8>.+?) (?:to )?say "
    r"(?P<rest8>.+)$|"
    r"\b(?:change|set|update|edit|make|rewrite|replace)\b (?:the )?(?:title|heading|name|headline) (?:of|on|for) "
    r"(?P<ref>.+?) (?:to|into|as|with)\b(?P<rest>.+)$|"
    r"\b(?:change|set|update|edit|rewrite|replace)\b (?P<ref2>.+?)(?:'s| s)? (?:title|heading|headline) (?:to|into|as|"
    r"with)\b(?P<rest2>.+)$|"
    rf"\b(?:retitle|rename|call|title|name)\b (?P<ref3>{_SLIDE_REF}|this one)(?:{_OF_THE_DECK})?"
    # "rename slide 3 to: Why bees", "rename slide 3 - Why bees", "rename slide 2 → Bees": the mark is no word of
    # the title (each was written into it)
    r"(?: (?:to|as))?(?:\s*(?::|->|=>|→|[-–—](?=\s)))?(?P<rest3> .+)$|"
    r"(?P<ref4>slide #?\d+|the [a-z0-9' -]+? slide|this slide)(?:'s title)? (?:should be|is now|must be)? ?"
    r"(?:called|titled|named) (?P<rest4>.+)$|"
    r"\bgive (?P<ref5>.+?) the (?:title|heading|name) (?P<rest5>.+)$|"
    # the title slide says its title: "make the title slide say 'Bees 101'" (another slide's words are its bullets)
    r"\b(?:make|have|let|change) (?P<ref6>the (?:very )?(?:1th|first|title|cover|opening) slide) (?:to )?say (?P<rest6>.+)$|"
    # a slide by its title alone: "retitle the summary to Wrap-up" (asked about; "delete the summary" was read)
    r"\b(?:retitle|rename)\b (?P<ref7>the [a-z0-9' -]+?) (?:to|as) (?P<rest7>.+)$")
_NOTES = re.compile(r"\b(?:change|set|update|replace|rewrite|edit)\b (?:the )?(?:speaker )?notes (?:of|on|for|in) "
                    r"(?P<ref>.+?) (?:to|with|into|as)\b(?P<rest>.+)$")


_ASKED = re.compile(r"^\s*(?:(?:so|and|ok|okay|hey|hi)[, ]+)*(?:what|whats|which|how|who|why|when|where|is|was|are|were|"
                    r"does|did|do|can you tell|could you tell|tell me)\b|\b(?:called|titled|named) (?:what|which)\b|"
                    r"^(?!\s*(?:please |(?:could|can|would|will) you (?:please )?)?(?:rename|retitle|call|title|name|"
                    r"change|set|update|edit|make|rewrite|replace|"
                    r"give|have|let)\b)[^'\"‘“]*\?\s*$")
"""A question about a slide's title ("what's slide 4 called now?", "slide 4 called what?", "slide 4 is called
Hives?"): never a new title (each renamed slide 4 to the words after "called", with exit 0).  A title that ends
in a question mark is still one when a verb asks for it ("rename slide 4 to 'Why bees?'")."""


def _retitle(ctx: ReadContext, words: Words, start: int, end: int, deck: Deck) -> list[Clause] | None:
    text = ctx.words.text[:end]
    if _ASKED.search(ctx.words.text):
        return None
    for pattern, field in ((_NOTES, "notes"), (_RETITLE, "title")):
        match = pattern.search(text, start)
        if match is None:
            continue
        group = next(g for g in ("ref", "ref2", "ref3", "ref4", "ref5", "ref6", "ref7", "ref8") if g in match.re.groupindex
                     and match.group(g) is not None)
        rest = "rest" + group.removeprefix("ref")
        said = text[start:match.start(rest)]
        if re.search(r"\band\b|&", said) and (other := re.search(r"\b(?:headline|tagline|button|title of the page)\b",
                                                                  said)):
            # "change slide 1 title and headline to Buzz" renamed the slide and left the page's headline
            raise Ask(Clarification(reason="unsupported", understood=[f"change the {field} of a slide"], message=(
                f"'{typed(ctx, start + other.start(), start + other.end())}': a slide and the page in "
                "one change; I changed nothing. Say each on its own ('rename slide 1 to \"Buzz\"', then 'change the "
                "headline to \"Buzz\"').")))
        refs = find_slides(ctx, words, deck, match.start(group), match.end(group))
        if not refs and not deck.selected:
            return None
        if not refs and re.search(r"\b(?:deck|presentation|slideshow|slides|decks)\b",
                                  ctx.words.text[match.start(group):match.end(group)]):
            # "rename the deck to Bees" with slide 3 selected retitled slide 3: the deck is not its selected slide
            raise Ask(Clarification(reason="unsupported", understood=[f"change the {field} of the deck"], message=(
                f"A deck has no {field} of its own apart from its slides', so I changed nothing. Say which slide: "
                "'rename the title slide to \"Bees\"', 'rename slide 3 to \"Bees\"'.")))
        number, _ = _one(ctx, deck, refs, f"change the {field} of")
        # "rename slide 3 to 'Parts' and slide 4 to 'Process'": the second slide gets its own clause (the first
        # title swallowed it: quoted, it was dropped; unquoted, it became part of the title)
        second = _AND_ANOTHER.search(ctx.words.text, match.start(rest), match.end(rest))
        other_refs = find_slides(ctx, words, deck, second.start("ref"), second.end("ref")) if second else []
        said = content_after(ctx, words, match.start(rest), second.start() if second else match.end(rest),
                             exact=True)
        if not said:
            return None
        if second is not None and _TAKEN_BACK.fullmatch(said.lower()) and not re.search(
                r"\b(?:to|as)\s*$", ctx.words.text[match.end(group):match.start(rest)]) and \
                not quotes(ctx, match.start(rest), second.start()):
            # "rename slide 2 sorry, slide 3 to Costs" titled slide 2 'sorry' and slide 3 'Costs'
            raise Ask(Clarification(reason="ambiguous", understood=[f"the {field} of slide {number}"], message=(
                f"'{said}' between slide {number} and the next slide: a correction (only the next one), or the new "
                f"{field} of slide {number}? I changed nothing. Say 'rename slide 3 to \"Costs\"', or put each "
                f"{field} in quotes.")))
        # what follows quoted words is left to be read: "rename the last slide to 'Takeaways' and delete the one
        # before it" renamed the slide and dropped the delete, with exit 0
        words.mark(match.start(), match.start(rest))
        if second is not None:
            words.mark(second.start(), second.end())
        found = [clause(ctx, "slides", "deck_edit_slide", {"slide": number, field: said},
                        f"the {field} of slide {number}: '{said[:60]}'", start=start, end=end,
                        references=[_subject(deck, number, f"slide {number}")])]
        if second is not None:
            other, _ = _one(ctx, deck, other_refs, f"change the {field} of")
            if other == number:
                raise Ask(Clarification(reason="conflict", understood=[f"the {field} of slide {number}"],
                                        message=f"Two new {field}s for slide {number}; which one should it have?"))
            said = content_after(ctx, words, second.end(), match.end(rest), exact=True)
            if not said:
                return None
            found.append(clause(ctx, "slides", "deck_edit_slide", {"slide": other, field: said},
                                f"the {field} of slide {other}: '{said[:60]}'", start=start, end=end,
                                references=[_subject(deck, other, f"slide {other}")]))
        return found
    return None


_TAKEN_BACK = re.compile(rf"(?:no|nope|wait|no wait|wait no|sorry|oops|scratch that|{CORRECTION_WORDS})[,.!:;]*")
"""A first "title" that takes the slide back ("rename slide 2 sorry, slide 3 to Costs"), said with no "to" or quote."""

_AND_ANOTHER = re.compile(r"\s*(?:,|\band\b|,\s*and\b)\s+(?:(?:also |then )?(?:rename|retitle|call|name)\s+)?"
                          r"(?P<ref>slide #?\d+|the (?:\d+th|first|last|final) (?:one|slide))"
                          r"(?: (?:to|as)\b|(?= ['\"‘“]))")
"""A second slide and its new title after the first's: "... and slide 4 to 'Process'"."""


_BULLET = r"(?:a |an |another |one more |the |new |extra )*bullet(?: point)?s?"
_ADD_BULLET = re.compile(
    rf"\badd\b {_BULLET}(?: (?:saying|that says|reading|which says|with|about|on|:)| ?:)? (?P<text>.+?) "
    rf"(?:to|on|in|for) (?P<ref>{_SLIDE_REF})$|"
    rf"\badd\b {_BULLET} (?:to|on|in|for) (?P<ref2>{_SLIDE_REF})(?: (?:saying|that "
    r"says|reading|which says|with|about|:)| ?:) ?(?P<text2>.+)$|"
    r"\badd\b (?P<text3>.+?) as (?:a |an |another |the )?(?:new )?bullet(?: point)? (?:to|on|in|for) "
    rf"(?P<ref3>{_SLIDE_REF})$|"
    # no slide said: the selected one ("add a bullet: hives cost money", slide 3 selected, was not understood)
    rf"\badd\b {_BULLET}(?: (?:saying|that says|reading|which says)| ?:) (?P<text4>.+)$")
_BULLETS_SAID = re.compile(r"\bbullets\b|\bbullet points\b")
_BULLET_PLACE = re.compile(r"\b(?:after|before|above|below|under|between|ahead of) (?:the )?(?:bullet|\d+th|1th|first|"
                           r"second|third|last|top|bottom|one)\b|\bas (?:the )?(?:\d+th|first|second|third|top) bullet\b")
"""A new bullet's place among the others ("after bullet 1"): a bullet is added at the end."""
_SLIDES_REF = (r"slides? #?\d+(?:\s*(?:,|and|&|or)\s*(?:slide )?#?\d+)*|(?:every|each) slide|all(?: of)?(?: the)? slides|"
               + _SLIDE_REF)
"""The slides a bullet removal names: one, several ("slides 2 and 3") or all ("every slide")."""
_REMOVE_BULLET = re.compile(
    r"\b(?:remove|delete|drop|cut|take out)\b (?:the )?(?:(?P<edge>1th|first|last|final) (?P<count>\d+)"
    r"|bullets? #?(?P<list>\d+(?:\s*(?:,|and|&)\s*#?\d+)+)|(?P<nth>\d+)th|(?P<pos>first|last|final)|bullet #?(?P<number>\d+)"
    r"|(?P<about>[a-z0-9' -]+?)) ?(?:bullet(?: point)?s?)?(?: (?:about|on|saying) (?P<about2>[a-z0-9' -]+?))? "
    rf"(?:from|on|of|in) (?P<ref>{_SLIDES_REF})$")


def _bullets(ctx: ReadContext, words: Words, start: int, end: int, deck: Deck) -> list[Clause] | None:
    text = ctx.words.text[:end]
    if not re.search(r"\bbullet", text[start:]):
        return None
    if (match := _ADD_BULLET.search(text, start)) is not None:
        said = match.group(0)
        if _BULLETS_SAID.search(said) or len(re.findall(r"\bbullet\b", said)) > 1 or _BULLET_PLACE.search(said) \
                or len(quotes(ctx, match.start(), match.end())) > 1:
            # "add a bullet 'Water' to slide 2 and a bullet 'Shade' to slide 3" added 'Water' to slide 3; "add the
            # bullets 'Water' and 'Shade'" added one; "... after bullet 1" appended it at the end
            raise Ask(Clarification(reason="unsupported", understood=["add a bullet"], message=(
                "I add one bullet at a time, at the end of one slide's bullets, so I added none. Say 'add a bullet "
                "\"...\" to slide 2', then the next.")))
        n = next(i for i in ("", "2", "3", "4") if match.group("text" + i) is not None)
        refs = find_slides(ctx, words, deck, match.start("ref" + n), match.end("ref" + n)) if n != "4" else []
        number, _ = _one(ctx, deck, refs, "add a bullet to")
        bullet = content_after(ctx, words, match.start("text" + n), match.end("text" + n), exact=True)
        quoted = quotes(ctx, match.start("text" + n), match.end("text" + n))
        after = ctx.words.text[quoted[0].end:match.end("text" + n)] if quoted else ""
        if re.search(r"[a-z0-9]", re.sub(r"\b(?:please|pls|plz|thanks|thank you|thx)\b", "", after)):
            # 'add a bullet to slide 2: "Keep calm", said the keeper' added 'Keep calm': the words after the quote
            # were dropped
            raise Ask(Clarification(reason="unparsed", understood=[f"add the bullet '{bullet[:60]}'"], message=(
                f"'{after.strip(' ,')}' follows the quoted words: part of the bullet, or not? I added nothing. Put the "
                "whole bullet in quotes.")))
        words.mark(match.start(), match.end())
        return [clause(ctx, "slides", "deck_add_bullet", {"slide": number, "bullet": bullet},
                       f"add the bullet '{bullet[:60]}' to slide {number}", start=start, end=end,
                       references=[_subject(deck, number, f"slide {number}")])]
    if (match := _REMOVE_BULLET.search(text, start)) is not None:
        refs = find_slides(ctx, words, deck, match.start("ref"), match.end("ref"))
        numbers = list(dict.fromkeys(n for r in refs for n in r.numbers))
        if not numbers:
            numbers = [_one(ctx, deck, refs, "remove a bullet from")[0]]
        found = []
        for number in numbers:
            which = _bullets_named(match, number, deck.slides[number - 1])
            if which is None:
                return None
            found.append((number, which))
        words.mark(match.start(), match.end())
        return [clause(ctx, "slides", "deck_remove_bullet", {"slide": n, "bullet": w[0] if len(w) == 1 else w},
                       f"remove bullet{'s' if len(w) > 1 else ''} {', '.join(map(str, w))} of slide {n}",
                       start=start, end=end, references=[_subject(deck, n, f"slide {n}")]) for n, w in found]
    return None


def _bullets_named(match: re.Match[str], number: int, slide: NodeFact) -> list[int] | None:
    """The bullets of one slide a removal names ("the last 2 bullets", "bullets 2 and 3", "the bullet about
    cost"), in order; None when it names none; :class:`Ask` when a slide does not have them."""
    count = len(slide.bullets)
    about = (match.group("about2") or match.group("about") or "").strip()
    if match.group("count"):
        n = int(match.group("count"))
        which = list(range(1, n + 1)) if match.group("edge") in ("1th", "first") else list(range(count - n + 1,
                                                                                                 count + 1))
    elif match.group("list"):
        which = sorted({int(n) for n in re.findall(r"\d+", match.group("list"))})
    elif match.group("nth") or match.group("number"):
        which = [int(match.group("nth") or match.group("number"))]
    elif match.group("pos"):
        which = [1 if match.group("pos") == "first" else count or -1]
    elif about:
        wanted = set(re.findall(r"[a-z0-9]+", about)) - {"the", "a", "an", "bullet", "point", "about"}
        matching = [i for i, b in enumerate(slide.bullets, 1) if wanted and wanted <= set(re.findall(
            r"[a-z0-9]+", b.lower()))]
        if len(matching) != 1:
            raise Ask(Clarification(reason="not_found" if not matching else "ambiguous", missing=[about],
                                    message=f"Which bullet of slide {number} do you mean by '{about}'? It says: "
                                            + "; ".join(f"{i}: {b}" for i, b in enumerate(slide.bullets, 1))))
        which = matching
    else:
        return None
    if slide.bullets and not all(1 <= w <= count for w in which):
        wanted = len(which) if len(which) > 1 else which[0]
        raise Ask(Clarification(reason="not_found", missing=[f"bullet {wanted}"],
                                message=f"Slide {number} has {count} bullets, not {wanted}."))
    return which


_THEME_TO = re.compile(
    r"\b(?:change|set|switch|turn|make|update)?\b ?(?:the )?(?:deck'?s? |presentation'?s? |slides'? |colou?r )?"
    r"(?:theme|colou?rs|colou?r scheme)(?: of the (?:deck|presentation|slides))? (?:to|into|:) (?:a |an |the )?"
    r"(?P<value>.+?)(?: (?:theme|one|look))?$|"
    r"\b(?:use|try|apply|give (?:it|the (?:deck|slides|presentation)))\b (?:a |an |the )?(?P<value2>.+?) "
    r"(?:theme|colou?r scheme|look)\b|"
    r"\b(?:switch|change|turn|move|set|convert)\b (?:the |this |my |our )?(?:deck|slides|presentation)(?:'s theme)? "
    r"(?:over )?(?:to|into) (?:a |an |the )?(?P<value5>[a-z#0-9 ]+?)(?: (?:theme|mode|look|one))?$|"
    # a theme's name is a word or three ("make shot 3 night and use the dark theme" looked for a theme called
    # 'make shot 3 night and use the dark')
    r"^(?:(?:switch|change|go|move) (?:over )?to )?(?:a |an )?(?P<value3>[a-z#0-9]+(?: [a-z#0-9]+){0,2}?) "
    r"(?:theme|mode)$|"
    r"\b(?:make|turn)\b (?:the )?(?:deck|slides|presentation|it)(?:'s|s')?(?: into)? (?:a )?(?:theme |colou?rs? )?(?P<value4>[a-z#0-9 ]+?)(?: theme)?$")


_ORDER_KEPT = re.compile(r"\b(?:but |and )?(?:keep|leave) (?:the )?(?:slide |slides' )?(?:order|slides|content|words|"
                         r"text)(?: of the slides)?(?: exactly)?(?: as (?:it is|they are)| the same| alone| unchanged)?")


_ON_IT = re.compile(r" (?:on|to|for|in) (?:it|this|that|them)\b")
"""A theme put on something said by a pronoun, which on a canvas with shots or a page may not be the deck."""


def _theme(ctx: ReadContext, words: Words, start: int, end: int, deck: Deck) -> list[Clause] | None:
    match = _THEME_TO.search(ctx.words.text[start:end])  # on the clause alone: its patterns start at its start
    if match is None:
        return None
    group = next(g for g in ("value", "value2", "value5", "value3", "value4") if match.group(g) is not None)
    value = match.group(group).strip()
    value = {"darker": "dark", "lighter": "light", "brighter": "light"}.get(value, value)
    if group == "value4" and re.search(r"\bit\b", match.group(0)) and not any(
            n.kind == "deck" for n in ctx.facts.selection):
        raise Ask(Clarification(reason="unparsed", understood=[f"'{value}'"],
                                message="A slide has no colours of its own: the theme is the whole deck's. Say "
                                        f"'a {value} theme for the deck' to change every slide."))
    on_it = _ON_IT.match(ctx.words.text, start + match.end(), end)
    if on_it is not None and (ctx.facts.shots or ctx.facts.has_page) and not any(
            n.kind in ("deck", "slide") for n in ctx.facts.selection):
        # "make shot 2 night and use the ocean theme on it" set the deck's theme: "it" was shot 2
        raise Ask(Clarification(reason="ambiguous", understood=[f"the theme '{value}'"],
                                message=f"'{match.group(0).strip()}{on_it.group(0)}': a theme is a deck's, and 'it' may "
                                        "be something else on this canvas, so I changed nothing. Say "
                                        f"'the {value} theme for the deck', or select the deck."))
    try:
        theme = theme_named(value)
    except UnknownTheme:
        if group == "value4":
            return None
        raise Ask(Clarification(reason="not_found", missing=[value], understood=["a change of the deck's theme"],
                                message=f"'{value}' is not a theme I know; give one of {', '.join(THEMES)} or a colour "
                                        "('teal', 'dark green')."))
    words.mark(start + match.start(), start + match.end())
    words.take(_ORDER_KEPT, start, end)  # a theme changes colours only: the slides' order and words stay anyway
    return [clause(ctx, "slides", "deck_set_theme", {"theme": value}, f"the deck's theme: {theme.name}", start=start,
                   end=end)]


_ILLUSTRATION = re.compile(
    r"\b(?:regenerate|redo|redraw|refresh|remake|re-?generate|re-?draw|replace|change|swap|update|try)\b (?:the |a |an )?"
    r"(?:new |different |another )?(?:slide'?s? |deck'?s? )?(?P<noun>illustration|image|picture|diagram|drawing|art(?:work)?|visual|graphic|"
    rf"photo)(?: (?:on|of|for|in) (?P<ref>{_SLIDE_REF}))?"
    r"(?: (?:with|to|as|into|showing|of|so it shows) (?:a |an )?(?:new |different )?(?:one |picture |image |"
    r"illustration |drawing )?(?:of |showing )?(?P<prompt>.+))?$|"
    rf"\b(?:a|give (?P<ref2>{_SLIDE_REF})(?: a)?) (?:new|different|fresh|"
    r"another) (?:illustration|picture|image|drawing)(?: (?:for|on|to|of) (?P<ref3>slides? #?\d+|the [a-z0-9' -]+? "
    r"slide|this slide))?(?: (?:showing|of|with) (?P<prompt2>.+))?$")


def _illustration(ctx: ReadContext, words: Words, start: int, end: int, deck: Deck) -> list[Clause] | None:
    text = ctx.words.text[:end]
    match = _ILLUSTRATION.search(text, start)
    if match is None:
        return None
    groups = [g for g in ("ref", "ref2", "ref3") if match.group(g) is not None]
    refs = [r for g in groups for r in find_slides(ctx, words, deck, match.start(g), match.end(g))]
    if not refs and not deck.selected:
        shown = [n for n, s in enumerate(deck.slides, 1) if s.pictures]
        if len(shown) != 1:
            raise Ask(Clarification(reason="no_target", understood=["regenerate a slide's illustration"],
                                    message="Which slide's illustration? "
                                            + (f"Slides with one: {', '.join(map(str, shown))}." if shown
                                               else "No slide of the deck has one.")))
        number = shown[0]
    else:
        number, _ = _one(ctx, deck, refs, "regenerate the illustration of")
    if not deck.slides[number - 1].pictures:
        shown = [n for n, s in enumerate(deck.slides, 1) if s.pictures]
        raise Ask(Clarification(reason="not_found", missing=[f"an illustration on slide {number}"],
                                message=f"Slide {number} has no illustration to regenerate; "
                                        + (f"slides with one: {', '.join(map(str, shown))}." if shown
                                           else "no slide of the deck has one.")))
    args: dict = {"slide": number}
    prompt_group = "prompt" if match.group("prompt") is not None else "prompt2"
    if match.group(prompt_group):
        if _SLIDE_SAID.search(ctx.words.text, match.start(prompt_group), match.end(prompt_group)) or re.fullmatch(
                r"\s*(?:#?\d+|the (?:\d+th|first|last|next|previous) one|(?:the )?(?:shot|image|picture|photo|pic) #?\d+"
                r"(?:'s (?:image|picture|photo|still))?)\s*", ctx.words.text[match.start(prompt_group):
                                                                                         match.end(prompt_group)]):
            # "swap the picture on slide 2 with slide 4" drew slide 2 a picture of 'slide 4' ("... with shot 2", on a
            # canvas with a film, a picture of 'shot 2')
            raise Ask(Clarification(reason="unsupported", understood=["a new illustration"],
                                    message="A slide's illustration stays on its slide, and another slide (or shot) is no "
                                            "picture to draw: say what the new one shows ('a new illustration for "
                                            "slide 2 showing a hive'). I changed nothing."))
        args["prompt"] = content_after(ctx, words, match.start(prompt_group), match.end(prompt_group))
    words.mark(match.start(), match.end())
    said = f" showing {args['prompt']}" if "prompt" in args else " (another take)"
    return [clause(ctx, "slides", "deck_regenerate_illustration", args,
                   f"a new illustration for slide {number}{said}", start=start, end=end,
                   references=[_subject(deck, number, f"slide {number}")])]
