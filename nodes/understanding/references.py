"""References: the phrases of a request that point at canvas nodes, and their resolution on the canvas.

:func:`find_references` reads the phrases (numbers, number words, ordinals, lists, ranges; positions such
as "the opening shot", "the last two", "the middle shot", "the one before the last", "the next one";
descriptions, "the shot where Mara pushes on"; the selection, "it", "this", "these"; the previous turn,
"the same shots", "that one").  :func:`resolve` turns them into targets on :class:`CanvasFacts`;
:func:`resolve_targets` is the reusable entry point (#21, #24): references and a facts reader in, resolved
targets with their current versions, what derives from them, and the ambiguities out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from nodes.understanding.decks import DeckChoice, deck_candidates, which_deck, which_deck_question
from nodes.understanding.facts import CanvasFacts, NodeFact, ShotFact
from nodes.understanding.intent import Reference, Target
from nodes.understanding.naming import ARTICLE, named_phrases
from nodes.understanding.text import BUT_COUNTS, FILLERS, Words

_N = r"(?:shots?|images?|frames?|pictures?)"
CHANGE_NOUNS = (r"(?:changes?|things?|edits?|actions?|steps?|turns?|requests?|times?|modifications?|tweaks?|commands?|"
                r"undos?|tries|try)")
"""Nouns that name a change in the history, not an output ("the last change", "my last two edits")."""
_NOT_A_SHOT = rf"(?!(?: \d+)? {CHANGE_NOUNS}\b)"
"""After "the last", "the first 2": words that make it no shot ("redo the last change" took another take of the
last shot, "change" being a filler word)."""
_N1 = r"(?:shot|image|frame|picture|one)"
_NS = r"(?:shots|images|frames|pictures|ones)"
_NUM = r"#?(\d+)"
_LIST_TAIL = rf"((?:\s*(?:,|and|&|, and|or)\s*(?:(?:the )?{_N} )?#?\d+\b(?:\s*(?:-|–|to|through|thru)\s*#?\d+\b)?)*)"
"""The numbers listed after the first: single ones, and ranges ("shots 1, 3 and 5-7": 6 and 7 were dropped)."""


@dataclass
class Found:
    """A reference phrase found in the text, before resolution."""

    reference: Reference
    start: int
    end: int


@dataclass
class _Pattern:
    form: str
    regex: re.Pattern[str]
    build: Any


def _numbers_of(text: str) -> list[int]:
    """The numbers of a list's tail, each range's whole span included ("and 5-7": 5, 6, 7)."""
    numbers: list[int] = []
    for low, high in re.findall(r"(\d+)(?:\s*(?:-|–|to|through|thru)\s*#?(\d+))?", text):
        first, last = sorted((int(low), int(high or low)))
        numbers += range(first, min(last, first + 99) + 1)
    return numbers


def _list(match: re.Match[str]) -> Reference:
    numbers = [int(match.group(2)), *_numbers_of(match.group(3) or "")]
    return Reference(said=match.group(0), form="number", numbers=list(dict.fromkeys(numbers)))


def _range(match: re.Match[str]) -> Reference:
    """A range, and the numbers listed after it ("shots 1-3 and 5")."""
    low, high = sorted((int(match.group(2)), int(match.group(3))))
    listed = _numbers_of(match.group(4) or "")
    return Reference(said=match.group(0), form="number",
                     numbers=list(dict.fromkeys([*range(low, min(high, low + 99) + 1), *listed])))


def _range_from(match: re.Match[str]) -> Reference:
    """"the shots from 3 to 6", "every shot between shot 2 and shot 5", "the 3rd to 6th shots": both ends held."""
    ends = match.groupdict()
    low, high = sorted((int(ends.get("a") or ends["a2"]), int(ends["b"])))
    return Reference(said=match.group(0), form="number", numbers=list(range(low, min(high, low + 99) + 1)))


def _ordinals(match: re.Match[str]) -> Reference:
    return Reference(said=match.group(0), form="number",
                     numbers=list(dict.fromkeys(int(n) for n in re.findall(r"(\d+)th", match.group(0)))))


def _position(name: str, count_group: int | None = None):
    def build(match: re.Match[str]) -> Reference:
        count = int(match.group(count_group)) if count_group else 1
        return Reference(said=match.group(0), form="position", position=name, numbers=[count])
    return build


def _from_end(match: re.Match[str]) -> Reference:
    """The Nth from the end as the position "penultimate" with ``numbers`` [N] (2 for the penultimate itself)."""
    ordinal, ordinal_of, but = match.group(1), match.group(2), match.group(3)
    count = int(ordinal or ordinal_of) if (ordinal or ordinal_of) else BUT_COUNTS[but] + 1
    return Reference(said=match.group(0), form="position", position="penultimate" if count > 1 else "last",
                     numbers=[count if count > 1 else 1])


_ONWARD_RELATIONS = {"from": "from", "starting at": "from", "starting from": "from", "starting with": "from",
                     "beginning at": "from", "beginning with": "from", "on": "from", "onwards": "from",
                     "onward": "from", "and later": "from", "and after": "from", "and beyond": "from",
                     "and everything after": "from", "and everything after it": "from", "after": "after",
                     "following": "after", "before": "before", "up to and including": "through",
                     "through": "through"}
"""How a span of the story is counted from a shot ("every shot from shot 3", "shot 5 onwards", "everything
after shot 5", "all shots before shot 4"): from it, after it, before it, or up to it and it."""


def _onward(match: re.Match[str]) -> Reference:
    """A span counted from a shot, in whichever of the onward pattern's three phrasings it was said."""
    relation = next(match.group(g) for g in ("rel", "rel2", "rel3") if match.group(g))
    number = next(match.group(g) for g in ("n", "n2", "n3") if match.group(g))
    return Reference(said=match.group(0), form="position", position=_ONWARD_RELATIONS[re.sub(r"\s+", " ", relation)],
                     numbers=[int(number)])


def _simple(form: str):
    def build(match: re.Match[str]) -> Reference:
        return Reference(said=match.group(0), form=form)  # type: ignore[arg-type]
    return build


def _slides(match: re.Match[str]) -> Reference:
    return Reference(said=match.group(0), form="number", domain="slide", numbers=_numbers_of(match.group(0)))


_NOT_A_RANGE = r"(?!\s*(?:-|–|to|through|thru|and|or|,)\s*(?:(?:the )?(?:shot|image|frame|picture) )?#?\d)"

_AFTER_A_LEAD = "(?:^|" + "|".join(rf"(?<=\b{w} )" for w in (
    "make", "set", "turn", "change", "give", "render", "put", "redo", "relight", "remove", "drop", "take", "revert",
    "undo", "restore", "move", "to", "on", "for", "of", "in", "and", "also", "then", "please")) + ")"
""""the shots from 3 to 6" only right after a verb or a small word: after any other word ("the even shots between 2
and 6", "the foggy shots between 2 and 6") the shots are those the word picks, and the range was read instead, the
word dropped or made a change (the foggy shots between 2 and 6 were all made foggy)."""

SHOT_PATTERNS: tuple[_Pattern, ...] = (
    # A span of the story counted from one shot.  "make every shot from shot 3 night" was read as every shot and shot
    # 3, and changed all eight (exit 0); "everything after shot 5" and "shots 5 onwards" were asked about.  A bare
    # "from shot 3" is not one ("take the lighting from shot 3"): a quantifier before it or "on(wards)" after it is.
    _Pattern("onward", re.compile(
        rf"\b(?:(?:every|each|all(?: of)?(?: the)?) {_N}|everything|(?:the )?{_NS}) (?P<rel>from|after|following|"
        rf"starting (?:at|from|with)|beginning (?:at|with)|before|up to and including|through) (?:{_N1} )?#?(?P<n>\d+)"
        rf"{_NOT_A_RANGE}(?: (?:on|onwards|onward)\b)?|"
        rf"\bfrom {_N1} #?(?P<n2>\d+) (?P<rel2>on|onwards|onward)\b|"
        rf"\b{_N} #?(?P<n3>\d+) (?P<rel3>onwards|onward|and (?:later|after|beyond|everything after(?: it)?))\b"),
        _onward),
    # A range said with "from" after a plural or a quantifier: "the shots from 3 to 6", "every shot from shot 3 to
    # shot 6" (asked about before).  After one shot ("from shot 3 to shot 6") it may be a transfer: the shots
    # reader asks (``_SHOT_TO_SHOT``).
    _Pattern("range-from", re.compile(
        rf"\b(?:(?:every|each|all(?: of)?(?: the)?) {_N}|{_AFTER_A_LEAD}(?:the )?{_NS}) "
        rf"(?:from (?:{_N1} )?#?(?P<a>\d+)\s*"
        rf"(?:-|–|to|through|thru|till|until)|between (?:{_N1} )?#?(?P<a2>\d+) and)\s*(?:(?:the )?{_N1} )?"
        rf"#?(?P<b>\d+)\b"), _range_from),
    _Pattern("odd", re.compile(r"\bevery other (?:shot|image|frame|picture|one)\b|\b(?:all )?(?:the )?odd(?:-numbered)? "
                               r"(?:shots|images|frames|pictures|ones)\b|\balternate (?:shots|images|frames)\b"),
             _position("odd")),
    _Pattern("even", re.compile(r"\b(?:all )?(?:the )?even(?:-numbered)? (?:shots|images|frames|pictures|ones)\b"),
             _position("even")),
    _Pattern("every", re.compile(rf"\b(?:every|each|all(?: of)?(?: the)?) {_N}\b|\beverything\b|\ball of them\b|"
                                 r"\bthe whole (?:film|story|sequence|storyboard|thing)\b|\bevery one\b"),
             _simple("every")),
    _Pattern("others", re.compile(rf"\b(?:all |each of |every one of )?(?:the )?(?:other {_NS}|others|other ones|rest)"
                                  rf"(?: of (?:the )?{_NS})?\b"), _simple("others")),
    _Pattern("last-n", re.compile(rf"\bthe (?:last|final) (\d+)(?: {_NS})?\b{_NOT_A_SHOT}"), _position("last", 1)),
    _Pattern("first-n", re.compile(rf"\bthe (?:1th|first|opening) (\d+)(?: {_NS})?\b{_NOT_A_SHOT}"),
             _position("first", 1)),
    # "the 3rd to last shot", "the 3rd shot from the end", "the last but two": counted from the end (N = 2 is the
    # penultimate shot).  "but" and "one" are fillers elsewhere, so without this "the last but one shot" was read
    # as "the last shot", and done.
    _Pattern("from-end", re.compile(
        rf"\bthe (\d+)th[- ](?:(?:to|from)[- ](?:the[- ])?)?(?:last|end)(?: {_N1})?\b|"
        rf"\bthe (\d+)th {_N1} from the (?:end|last)\b|"
        rf"\bthe (?:last|final)(?: {_N1})? but (1|one|2|two|3|three)\b(?: {_N1}\b)?"), _from_end),
    _Pattern("penultimate", re.compile(
        rf"\bthe {_N1} before the (?:last|final|end)(?: {_N1})?\b|\bthe (?:2th|second)[- ](?:to[- ]|from[- ](?:the[- ])?)?"
        rf"last(?: {_N1})?\b|\bthe penultimate(?: {_N1})?\b|\bthe next[- ]to[- ]last(?: {_N1})?\b"),
        _position("penultimate")),
    _Pattern("middle", re.compile(rf"\bthe middle {_N1}\b|\bthe {_N1} in the middle\b|\bthe middle\b"),
             _position("middle")),
    _Pattern("last", re.compile(rf"\bthe (?:very )?(?:last|final|closing|ending|end) {_N1}\b|"
                                rf"\bthe (?:last|final)\b{_NOT_A_SHOT}"),
             _position("last")),
    _Pattern("first", re.compile(rf"\bthe (?:very )?(?:opening|1th|first) {_N1}\b"), _position("first")),
    # "the 3rd to 6th shots", "the first to the third shot" (asked about: read as no shot)
    _Pattern("ordinal-range", re.compile(rf"\bthe (?P<a>\d+)th (?:to|through|thru|till|until|-) (?:the )?(?P<b>\d+)th "
                                         rf"{_N1}s?\b"), _range_from),
    _Pattern("ordinals", re.compile(rf"\bthe (\d+)th(?:(?:,| and| or| &)+ (?:the )?\d+th)* {_N1}s?\b"), _ordinals),
    # "shots 2 to shot 5", "shot 3 to shot 6": one range (shots 2 and 5 were changed, the "to" a filler).  After
    # an edit's verb "shot 3 to shot 6" may instead give shot 6 something of shot 3: the shots reader asks.
    _Pattern("range-noun", re.compile(rf"\b({_N}) {_NUM}\s*(?:-|–|to|through|thru)\s*(?:the )?{_N1} {_NUM}\b"
                                      rf"{_LIST_TAIL}"), _range),
    _Pattern("range", re.compile(rf"\b({_N}) {_NUM}\s*(?:-|–|to|through|thru)\s*{_NUM}\b{_LIST_TAIL}"), _range),
    _Pattern("list", re.compile(rf"\b({_N}) {_NUM}{_LIST_TAIL}"), _list),
    _Pattern("scene", re.compile(rf"\b(scenes?) {_NUM}{_LIST_TAIL}"), _list),
    _Pattern("next", re.compile(rf"\bthe next {_N1}\b|\bthe {_N1} after (?:it|that|this)\b"), _position("next")),
    _Pattern("before", re.compile(rf"\bthe previous {_N1}\b|\bthe {_N1} before (?:it|that|this)\b"),
             _position("previous")),
    _Pattern("previous", re.compile(rf"\bthe same {_N1}s?\b|\bthat {_N1}\b|\bthose {_NS}\b"), _simple("previous")),
    _Pattern("selection", re.compile(rf"\bthe selected(?: {_N1}s?| nodes?)?\b|\bthe selection\b|\bthis {_N1}\b|"
                                     rf"\bthese(?: {_NS})?\b|\bthis\b|\bhere\b"), _simple("selection")),
    _Pattern("pronoun", re.compile(r"\bit\b(?! (?:snows?|rains?|storms?|pours?)\b)|\bthem\b|\bits\b|"
                                   r"^(?:no,? |hmm,? |ok,? |okay,? )?that(?='s\b| is\b| looks?\b| feels?\b| seems?\b)"),
             _simple("pronoun")),
    _Pattern("weather-it", re.compile(r"\bit\b"), _simple("pronoun")),
)
"""Shot references, most specific first (a span taken by one is not read again by a later one)."""

SLIDE_PATTERNS: tuple[_Pattern, ...] = (
    _Pattern("slides", re.compile(r"\bslides? #?\d+(?:(?:\s*(?:,|and|&|or|-|to)\s*(?:slide )?#?\d+\b)*)"), _slides),
    _Pattern("slide-ordinal", re.compile(r"\bthe (\d+)th slide\b"),
             lambda m: Reference(said=m.group(0), form="number", domain="slide", numbers=[int(m.group(1))])),
    _Pattern("slide-last", re.compile(r"\bthe (?:last|final) slide\b"),
             lambda m: Reference(said=m.group(0), form="position", domain="slide", position="last", numbers=[1])),
    _Pattern("slide-first", re.compile(r"\bthe (?:1th|first|title|opening) slide\b"),
             lambda m: Reference(said=m.group(0), form="position", domain="slide", position="first", numbers=[1])),
)

_DESCRIPTION = _Pattern("description", re.compile(
    rf"\bthe {_N1} (?:where|in which|when|with|of|showing|that shows|in that|where we see)\b"), _simple("description"))
_DESCRIPTION_END = re.compile(r"\s*(?:[,;.!?]|\bthen\b|\bbut\b|\band make\b|$)")


def find_references(words: Words, start: int = 0, end: int | None = None) -> list[Found]:
    """Every reference phrase of the span, in text order; each one's words are taken.

    Descriptions are read first ("the shot where Mara discovers what changes everything": its "everything"
    is part of the description), up to the end of their clause, leaving out the words that say what to
    change ("... darker"), which the clause's reader reads.
    """
    found: list[Found] = []
    stop = len(words.text) if end is None else end
    for match in words.take(_DESCRIPTION.regex, start, end):
        item = Found(_DESCRIPTION.build(match), match.start(), match.end())
        read_description(words, item, stop)
        found.append(item)
    for pattern in (*SLIDE_PATTERNS, *SHOT_PATTERNS):
        for match in words.take(pattern.regex, start, end):
            reference = pattern.build(match)
            found.append(Found(reference, match.start(), match.end()))
    found.sort(key=lambda f: f.start)
    return found


def read_description(words: Words, found: Found, end: int) -> None:
    """Take the words after "the shot where" up to the end of its clause as a description, except the words
    that say what to change (read on a scratch copy, left for the clause's reader)."""
    from nodes.models.grammar import read_edit

    tail = words.text[found.end:end]
    cut = _DESCRIPTION_END.search(tail)
    limit = found.end + (cut.start() if cut else len(tail))
    scratch = Words(words.text)
    scratch.mark(0, found.end)
    scratch.mark(limit, len(words.text))
    read_edit(scratch, found.end, limit)
    content = []
    for word, s, e in words.tokens(found.end, limit):
        if words.used(s, e) or scratch.used(s, e):
            continue
        words.mark(s, e)
        if word not in FILLERS and len(word) > 1:
            content.append(word)
    found.reference.description = content
    found.reference.said = words.text[found.start:limit].strip()


# -- resolution --------------------------------------------------------------------------------------------


@dataclass
class Resolution:
    """Resolved references: targets, and what could not be resolved (missing, ambiguous)."""

    targets: list[Target] = field(default_factory=list)
    ambiguous: list[dict[str, Any]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    """Pronouns with nothing to point at ("make it darker" with no selection)."""


def shot_target(shot: ShotFact, said: str) -> Target:
    """A shot as a target: its current image, version and what derives from it."""
    return Target(id=shot.id, kind="shot", title=shot.title, referred_as=said, image_id=shot.image,
                  version=shot.version, derived=list(shot.derived), current=dict(shot.inputs))


def node_target(node: NodeFact, said: str) -> Target:
    """Any node as a target."""
    return Target(id=node.id, kind=node.kind, title=node.title, referred_as=said)


def shot_candidates(shots: list[ShotFact]) -> list[dict[str, Any]]:
    """Candidates as a question lists them."""
    return [{"id": s.id, "image_id": s.image, "title": s.title, "version": s.version,
             "plan": s.plan_title or s.plan, "beat": s.beat[:80]} for s in shots]


def ambiguous_message(candidates: list[dict[str, Any]]) -> str:
    """The question several matches raise: which deck (slides named with several decks on the canvas), or which
    shot."""
    if candidates and all(c.get("kind") == "deck" for c in candidates):
        return which_deck_question(candidates)
    if candidates and all(c.get("kind") == "storyboard" for c in candidates):
        said = candidates[0].get("referred_as") or "the shots"
        listed = "; ".join(f"'{c['title']}' (id {c['id']})" for c in candidates)
        others = {w for c in candidates[1:] for w in film_title_words(str(c["title"]))}
        own = film_title_words(str(candidates[0]["title"])) - others  # a word that names the first film only
        example = max(sorted(own), key=len) if own else "first"
        return (f"The project has {len(candidates)} films: {listed}. Which one is '{said}' in? Name it ('{said} of "
                f"the {example} film'), select one of its shots, or answer with the film's id. I changed nothing.")
    lines = "; ".join(f"{c['title']} of {c.get('plan') or 'no plan'} (id {c['id']}"
                      + (f", image v{c['version']})" if c.get("version") is not None else ")") for c in candidates)
    return f"More than one shot matches: {lines}. Which one do you mean? Answer with its id."


_SAME_AS = {"nothing": "anything", "yet": "before"}
"""Words a description may use for a beat's word: "where nothing has happened yet" is the beat "before anything
happens"."""


def _stem(word: str) -> str:
    word = _SAME_AS.get(word, word)
    for suffix in ("ing", "es", "s", "ed"):
        if len(word) > 4 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def match_description(description: list[str], shots: list[ShotFact]) -> list[ShotFact]:
    """The shots whose beat and title contain the most of the description's words (all of them tie)."""
    wanted = {_stem(w) for w in description}
    if not wanted:
        return []
    scored = []
    for shot in shots:
        have = {_stem(w) for w in re.findall(r"[a-z]+", f"{shot.beat} {shot.title}".lower())}
        scored.append((len(wanted & have) / len(wanted), shot))
    best = max(score for score, _ in scored) if scored else 0
    if best < 0.6:
        return []
    return [shot for score, shot in scored if score == best]


def films(facts: CanvasFacts) -> list[str | None]:
    """The storyboards whose shots have images, oldest first."""
    return list(dict.fromkeys(s.plan for s in facts.shots if s.image))


def films_of(facts: CanvasFacts, ids: list[str]) -> list[str | None]:
    """The films the nodes ``ids`` belong to: a shot, its image (any version), its clip, or a cut made from its
    clip (a selection names images, clips and cuts)."""
    made = {i: s.plan for s in facts.shots for i in (s.id, s.image, *s.image_versions, s.clip, s.cut, *s.derived) if i}
    return list(dict.fromkeys(made[i] for i in ids if i in made))


_FILM_NOUN = r"(?:film|movie|story|storyboard|video)"
FILM_NAMED_BEFORE, FILM_NAMED_AFTER = named_phrases(_FILM_NOUN)
"""A film named by words before the noun ("shot 3 of the ferry film", "in the keeper story") or after it ("the last
shot of the film about the ferry")."""
FILM_SAID = re.compile(rf"\b(?:in|of|from|for|on) {ARTICLE} {_FILM_NOUN}\b(?! (?:about|on|with|called|named|titled)\b)")
"""The film, named by no word of its own ("shot 3 of the film"): the project's only one, or asked about."""
_FILM_PLACES = {"first": 0, "1th": 0, "oldest": 0, "second": 1, "2th": 1, "newest": -1, "latest": -1, "new": -1}
_FILM_GENERIC = frozenset({"a", "an", "the", "of", "on", "about", "and", "in", "for", "to", "with", "my", "our",
                           "storyboard", "short", "film", "movie", "story", "drama", "video", "shot", "shots"})
"""Words every film's title may have ("Storyboard: A 3-shot short film: ..."): they name none of them."""


def film_title_words(title: str) -> set[str]:
    """A storyboard title's words that can name its film (lower case; no small words, no words every title has)."""
    return {w for w in re.findall(r"[a-z0-9][a-z0-9'-]*", title.lower())
            if w not in _FILM_GENERIC and not re.fullmatch(r"\d+-shot", w)}


def film_named(facts: CanvasFacts, text: str, used: Any = None) -> tuple[str, tuple[int, int]] | str | None:
    """The film a phrase of ``text`` names by words of its title or its place ("of the ferry film", "in the first
    film"; with one film, "of the film" too), with the phrase's span; the words when they name no one film; None
    when no phrase names a film (``used(start, end)``: spans already read, skipped)."""
    held = [p for p in films(facts) if p is not None]
    if not held:
        return None
    if len(held) == 1:  # "shot 3 of the film", "in the story": the one film there is
        for match in FILM_SAID.finditer(text):
            if used is None or not used(match.start(), match.end()):
                return held[0], (match.start(), match.end())
    titles = {}
    for shot in facts.shots:
        if shot.plan in held:
            titles.setdefault(shot.plan, shot.plan_title or "")
    unmatched = None
    for pattern in (FILM_NAMED_AFTER, FILM_NAMED_BEFORE):
        for match in pattern.finditer(text):
            name_end = match.end("name")
            if used is not None:  # after the noun the name may run on into words read already ("... foggy")
                taken = next((i for i in range(match.start(), match.end()) if used(i, i + 1)), None)
                if taken is not None and (pattern is FILM_NAMED_BEFORE or taken <= match.start("name")):
                    continue
                name_end = taken if taken is not None else name_end
            said = text[match.start("name"):name_end].split()
            if not said:
                continue
            if len(said) == 1 and said[0] in _FILM_PLACES and _FILM_PLACES[said[0]] < len(held):
                return held[_FILM_PLACES[said[0]]], (match.start(), match.end())
            for length in (range(len(said), 0, -1) if pattern is FILM_NAMED_AFTER else (len(said),)):
                wanted = {w.removesuffix("'s") for w in said[:length]} - _FILM_GENERIC
                if not wanted:
                    continue
                matching = [p for p in held if wanted <= film_title_words(titles[p])]
                if len(matching) == 1:
                    end = match.end() if pattern is FILM_NAMED_BEFORE else match.start("name") + len(
                        " ".join(said[:length]))
                    return matching[0], (match.start(), end)
                if matching:
                    break
            unmatched = unmatched or " ".join(said)
    return unmatched


def film_cuts(facts: CanvasFacts) -> dict[str | None, str]:
    """Each film's current cut (the one its shots' clips are in), by storyboard id."""
    return {s.plan: s.cut for s in facts.shots if s.cut}


def film_candidates(facts: CanvasFacts, said: str, held: list[str | None]) -> list[dict]:
    """The films ``held`` as the candidates of a "which film?" question (an answer with one's id reads the request
    again on that film)."""
    firsts: dict[str | None, ShotFact] = {}
    for shot in facts.shots:
        if shot.plan in held:
            firsts.setdefault(shot.plan, shot)
    return [{"id": plan, "kind": "storyboard", "title": shot.plan_title or plan, "referred_as": said}
            for plan, shot in firsts.items()]


def read_film(words: Words, facts: CanvasFacts, start: int = 0, end: int | None = None) -> str | None:
    """The film the request's words name ("shot 2 of the ferry film", "the cut of the first film"), its phrase
    taken so that no reader takes "film" for the cut or a title word for something else; None when no phrase within
    the span names one film (words that name none are left unread, and asked about)."""
    named = film_named(facts, words.text, words.used)
    stop = len(words.text) if end is None else end
    if not isinstance(named, tuple) or not (start <= named[1][0] and named[1][1] <= stop):
        return None
    words.mark(*named[1])
    return named[0]


def pinned_film(facts: CanvasFacts, answer: str | None = None, text: str | None = None) -> str | None:
    """The one film a request is about: the project's only one, the one the answer names (a storyboard's id, or one
    of its shots' or images'), the one the request's words name (``text``: :func:`film_named`), or the selection's;
    None with several films and nothing the person gave picking one (then "the last shot" is asked about, never
    taken from the newest film)."""
    held = films(facts)
    if len(held) <= 1:
        return held[0] if held else None
    if text is not None and isinstance(named := film_named(facts, text), tuple):
        return named[0]
    if answer:
        named = films_of(facts, [answer]) or [p for p in held if p == answer]
        if len(named) == 1:
            return named[0]
    selected = films_of(facts, [n.shot or n.id for n in facts.selection])
    return selected[0] if len(selected) == 1 else None


_ONWARD = {"from": lambda n, at: n >= at, "after": lambda n, at: n > at, "before": lambda n, at: n < at,
           "through": lambda n, at: n <= at}
"""Which shots a span counted from shot ``at`` holds (``Reference.position`` of the onward pattern)."""


class Resolver:
    """Resolves one request's references on the facts, remembering the targets named so far (for "it")."""

    def __init__(self, facts: CanvasFacts, previous: list[str] | None = None, answer: str | None = None, *,
                 pronoun_follows_previous: bool = False, deck: NodeFact | None = None,
                 film: str | None = None) -> None:
        self.facts = facts
        self.previous = list(previous or [])
        self.answer = answer
        self.deck = deck
        """The deck the request named ("slide 2 of the coffee deck"), which slide numbers count in."""
        self.pronoun_follows_previous = pronoun_follows_previous
        """A shot edit's "it" with nothing named or selected is what the turn before changed (an undo's "it" is
        that turn itself, which the versions reader reads)."""
        self.named_film = film
        self.by_id = {s.id: s for s in facts.shots}
        self.films = films(facts)
        """The storyboards whose shots have images, oldest first (a project may hold several films)."""
        self.film = film or pinned_film(facts, answer)
        """The one film the request is about: the one its words named (``film``), the only one, the answer's, or
        the selection's (None: several, and nothing the person gave picks one)."""
        self.numbered: dict[int, list[ShotFact]] = {}
        for shot in facts.shots:
            # The picked film is where its shot numbers count: "shot 5 of the ferry film", of a 4-shot ferry film,
            # is no shot, never the other film's shot 5; nor is "shot 6" with a ferry shot selected ("make shots 3
            # to 6 night" changed ferry shots 3 and 4 and the beekeeper film's 5 and 6).
            if shot.number is not None and shot.image and (self.film is None or shot.plan == self.film):
                self.numbered.setdefault(shot.number, []).append(shot)
        self.ordered = self._story_order(self.film)

    def _story_order(self, film: str | None) -> list[ShotFact]:
        """The shots of ``film`` with images, in story order (None: every film's, when there is one film)."""
        shots = [s for s in self.facts.shots if s.image and (film is None or s.plan == film)]
        if film is None and len(self.films) > 1:
            return []  # several films and none picked: an order of "the last shot" would be a guess
        return sorted(shots, key=lambda s: (s.number if s.number is not None else 10**6))

    def _which_film(self, reference: Reference) -> Resolution:
        """Several films and nothing picks one: every film is a candidate (an answer with one's id reads the
        request again on that film)."""
        return Resolution(ambiguous=film_candidates(self.facts, reference.said, self.films))

    def resolve(self, reference: Reference, context: list[Target]) -> Resolution:
        """The targets of one reference; ``context`` is what earlier clauses of the request named."""
        if reference.domain == "slide":
            return self._slides(reference)
        form = reference.form
        if form == "selection":
            return self._selection(reference)
        if form == "pronoun":
            if context and reference.said == "it" and len({t.id for t in context}) > 1:
                # "make shot 2 night and shot 5 dusk, and make it rainy" made both rainy: "it" is one of them
                shots = [self.by_id[t.id] for t in context if t.id in self.by_id]
                return Resolution(ambiguous=shot_candidates(shots) if len(shots) == len(context) else
                                  [{"id": t.id, "kind": t.kind, "title": t.title} for t in context])
            if context:
                return Resolution(targets=[t.model_copy(update={"referred_as": reference.said}) for t in context])
            if self.pronoun_follows_previous and not self.facts.selection and self.previous and (
                    len(self.previous) == 1 or reference.said in ("them", "those")):
                # Nothing selected or named before it: "it" is what the turn before changed ("make shot 3 night",
                # then "that's too dark, make it lighter"), one shot; "them", all it changed.
                return self._ids(reference, self.previous)
            return self._selection(reference)
        if form == "previous":
            return self._ids(reference, self.previous)
        if form == "description":
            return self._description(reference)
        if not self.numbered and not self.ordered:
            return Resolution(missing=[reference.said])
        if form == "every":
            if not self.ordered:
                return self._which_film(reference)
            return Resolution(targets=[shot_target(s, reference.said) for s in self.ordered])
        if form == "others":
            # other than what the request named before, or else what the turn before changed; with neither,
            # "make the other shots night" changed every shot
            spared = {t.id for t in context} or set(self.previous)
            if not spared:
                return Resolution(unresolved=[reference.said])
            shots = self._anchored(list(spared))
            if shots is None:
                return self._which_film(reference)
            return Resolution(targets=[shot_target(s, reference.said) for s in shots if s.id not in spared])
        if form == "position":
            return self._position(reference, context)
        return self._numbers(reference)

    def _numbers(self, reference: Reference) -> Resolution:
        result = Resolution()
        missing = [n for n in reference.numbers if n not in self.numbered]
        if missing:
            numbers = sorted(self.numbered)
            of = self._in_the_film()
            result.missing = [f"shot {n}" for n in missing[:-1]] + [f"shot {missing[-1]}{of}"]
            if numbers:
                result.unresolved.append(f"{'its' if of else 'the'} shots are numbered {numbers[0]} to {numbers[-1]}")
            return result
        for number in reference.numbers:
            candidates = self.numbered[number]
            picked = candidates[0] if len(candidates) == 1 else self._pick(candidates, result.targets)
            if picked is None:
                result.ambiguous.extend(shot_candidates(candidates))
            else:
                result.targets.append(shot_target(picked, reference.said))
        return result

    def _in_the_film(self) -> str:
        """Where a missing shot number was counted, when one of several films was picked: it is that film that has
        no such shot (the other may well have one), so the question names it, how it was picked, and its length."""
        if self.film is None or len(self.films) <= 1:
            return ""
        shots = [s for s in self.facts.shots if s.plan == self.film and s.image]
        title = (shots[0].plan_title or self.film) if shots else self.film
        selected = films_of(self.facts, [n.shot or n.id for n in self.facts.selection])
        how = "that film" if self.named_film is not None or selected != [self.film] else "the selection's film"
        return f" in {how}, '{title}' ({len(shots)} shots)"

    def _pick(self, candidates: list[ShotFact], chosen: list[Target]) -> ShotFact | None:
        if self.answer:
            for shot in candidates:
                if self.answer in (shot.id, shot.image, shot.plan):
                    return shot
        if self.film is not None:  # the selection's film ("shot 1 in neon" with shot 1's image selected)
            in_film = [s for s in candidates if s.plan == self.film]
            if len(in_film) == 1:
                return in_film[0]
        plans = {self.by_id[t.id].plan for t in chosen if t.id in self.by_id}
        same = [s for s in candidates if s.plan in plans]
        return same[0] if len(same) == 1 else None

    def _anchored(self, ids: list[str]) -> list[ShotFact] | None:
        """The shots in story order of the one film ``ids`` belong to, when no film is picked otherwise (None:
        they span several films, or name none)."""
        if self.ordered or len(self.films) <= 1:
            return self.ordered
        films = films_of(self.facts, ids)
        return self._story_order(films[0]) if len(films) == 1 else None

    def _position(self, reference: Reference, context: list[Target]) -> Resolution:
        shots, count = self.ordered, reference.numbers[0] if reference.numbers else 1
        name = reference.position
        anchor = [t.id for t in context] or [n.shot or n.id for n in self.facts.selection] or self.previous
        if name in ("next", "previous") and not shots:
            shots = self._anchored(anchor) or []
        if not shots and len(self.films) > 1:
            return self._which_film(reference)
        if not shots:
            return Resolution(missing=[reference.said])
        if name == "first":
            chosen = shots[:count]
        elif name == "last":
            chosen = shots[-count:]
        elif name == "penultimate":  # the Nth from the end: numbers [N], 2 unless said ("the 3rd to last")
            back = reference.numbers[0] if reference.numbers and reference.numbers[0] > 1 else 2
            if back > len(shots):
                return Resolution(missing=[reference.said])
            chosen = [shots[-back]]
        elif name in _ONWARD:  # "every shot from shot 3", "everything after shot 5", "all shots before shot 4"
            number = reference.numbers[0]
            if number not in {s.number for s in shots}:
                return Resolution(missing=[f"shot {number}{self._in_the_film()}"])
            chosen = [s for s in shots if s.number is not None and _ONWARD[name](s.number, number)]
            if not chosen:
                return Resolution(missing=[reference.said])
            return Resolution(targets=[shot_target(s, reference.said) for s in chosen])
        elif name in ("odd", "even"):  # "every other shot", "the odd shots": 1, 3, 5...; "the even shots": 2, 4...
            chosen = shots[0 if name == "odd" else 1::2]
        elif name == "middle":
            if len(shots) % 2 == 0:
                middle = shots[len(shots) // 2 - 1: len(shots) // 2 + 1]
                return Resolution(ambiguous=shot_candidates(middle))
            chosen = [shots[len(shots) // 2]]
        else:  # next / previous: relative to what the request, the selection or the last turn pointed at
            at = [i for i, s in enumerate(shots) if s.id in anchor]
            if not at:
                return Resolution(unresolved=[reference.said])
            index = max(at) + 1 if name == "next" else min(at) - 1
            if not 0 <= index < len(shots):
                return Resolution(missing=[reference.said])
            chosen = [shots[index]]
        if count > len(shots) or not chosen:
            return Resolution(missing=[reference.said])
        return Resolution(targets=[shot_target(s, reference.said) for s in chosen])

    def _selection(self, reference: Reference) -> Resolution:
        if not self.facts.selection:
            return Resolution(unresolved=[reference.said])
        targets = []
        for node in self.facts.selection:
            shot = self.by_id.get(node.shot or node.id)
            targets.append(shot_target(shot, reference.said) if shot is not None else node_target(node, reference.said))
        return Resolution(targets=targets)

    def _ids(self, reference: Reference, ids: list[str]) -> Resolution:
        if not ids:
            return Resolution(unresolved=[reference.said])
        targets = []
        for node_id in ids:
            shot = self.by_id.get(node_id) or next((s for s in self.facts.shots if node_id in
                                                     (s.image, *s.image_versions)), None)
            if shot is not None:
                targets.append(shot_target(shot, reference.said))
        return Resolution(targets=targets) if targets else Resolution(unresolved=[reference.said])

    def _description(self, reference: Reference) -> Resolution:
        if not reference.description:
            return Resolution(unresolved=[reference.said])
        matched = match_description(reference.description, self.ordered or self.facts.shots)
        if not matched:
            return Resolution(missing=[reference.said])
        if len(matched) > 1:
            picked = self._pick(matched, []) if self.answer else None
            if picked is None:
                return Resolution(ambiguous=shot_candidates(matched))
            matched = [picked]
        return Resolution(targets=[shot_target(matched[0], reference.said)])

    def _slides(self, reference: Reference) -> Resolution:
        choice = DeckChoice(deck=self.deck) if self.deck is not None else which_deck(self.facts, answer=self.answer)
        if choice.candidates:  # several decks, and neither the request, the selection nor an answer says which
            return Resolution(ambiguous=deck_candidates(choice.candidates))
        deck = choice.deck
        if deck is None:
            return Resolution(missing=[reference.said])
        slides = sorted((s for s in self.facts.slides if s.group == deck.id), key=lambda s: s.index or 0)
        if reference.form == "position":
            chosen = slides[:1] if reference.position == "first" else slides[-1:]
            return Resolution(targets=[node_target(s, reference.said) for s in chosen])
        by_number = {s.index: s for s in slides}
        missing = [f"slide {n}" for n in reference.numbers if n not in by_number]
        if missing:
            return Resolution(missing=missing)
        return Resolution(targets=[node_target(by_number[n], reference.said) for n in reference.numbers])


def resolve_targets(references: list[Reference], facts: CanvasFacts, *, previous: list[str] | None = None,
                    answer: str | None = None, pronoun_follows_previous: bool = False,
                    deck: NodeFact | None = None, film: str | None = None) -> Resolution:
    """The reusable resolution (#21, #24): references → targets with current versions and derived nodes.

    ``facts`` comes from :func:`nodes.understanding.facts.read_facts` (two batched reads, whatever the number
    of references).  Pronouns resolve to the targets named before them in the list.
    """
    resolver = Resolver(facts, previous, answer, pronoun_follows_previous=pronoun_follows_previous, deck=deck,
                        film=film)
    total = Resolution()
    for reference in references:
        result = resolver.resolve(reference, total.targets)
        reference.target_ids = [t.id for t in result.targets]
        reference.candidates, reference.missing = result.ambiguous, result.missing
        total.targets += [t for t in result.targets if t.id not in {x.id for x in total.targets}]
        total.ambiguous += result.ambiguous
        total.missing += result.missing
        total.unresolved += result.unresolved
    return total
