"""The cut: reorder shots, take one out and put it back, insert a new shot described in words, duplicate one,
change a clip's length.

Each understood request is one clause whose operation is the cut tool that carries it out and whose ``args``
are that tool's arguments (``docs/versions.md``, "The cut tools").  A shot named by number or description is
the storyboard's shot (its id: wherever it now plays in the cut); a shot named by its place ("the last shot",
"the first two shots") is that place in the cut (a position, negative from the end), so "remove the last shot
from the cut" twice takes out the last two.  Whether the shots are in the cut is checked on the canvas when the
turn starts (``nodes.understanding.on_canvas``).  A project without a story has no cut: "there is no story".
"""

from __future__ import annotations

import re
from typing import Any

from nodes.understanding.intent import Clarification, Clause, Reference, Target
from nodes.understanding.readers.base import ReadContext, Reading, not_found, typed
from nodes.understanding.references import (
    ambiguous_message,
    film_candidates,
    film_cuts,
    film_named,
    films,
    films_of,
    find_references,
    pinned_film,
    read_film,
    resolve_targets,
)
from nodes.understanding.text import (
    EITHER_OR,
    PLACE_WORDS,
    POLITE_WORDS,
    THEN_A_CHANGE,
    Words,
    either_or_question,
    places_moved,
)

CUT = re.compile(r"\b(?:in|into|from|out of|of|to|within|inside) (?:the )?(?:final |current |whole )?(?:cut|edit|film|"
                 r"movie|sequence|timeline)\b")
SWAP = re.compile(r"\b(?:swap|switch|exchange|flip|trade|reverse)(?: (?:the )?(?:order|places|positions) of)?\b")
SWAPPED_LOOK = re.compile(r"\b(?:lighting|light|framing|weather|outfits?|colou?rs?|looks?|moods?|styles?|"
                          r"time of day|angles?|skies|sky|seasons?)\b")
"""What a swap names when it means two shots' looks, not their places in the cut."""
SWAP_MEANT = re.compile(r"\bswap\b|\b(?:order|places|positions|around|round)\b|"
                        r"\b(?:switch|exchange|trade|flip) shots? #?\d+ (?:and|with) (?:shot )?#?\d+\b"
                        r"(?! (?:to|into|at|in)\b)")
"""What makes "switch" a swap of places, not a change of look ("switch shot 4 to night"): said of the order, or of
two shots and nothing else ("switch shot 4 and shot 5")."""
""""switch shot 3 to night" is an edit: switch, exchange, flip and trade swap shots only with these words."""
MOVE = re.compile(r"\b(?:move|put|place|shift|play|bump)\b")
_MOVE_BY = re.compile(r"\b(?:move|shift|bump)\b")
"""The verbs a move by places is said with ("bump shot 3 up one"); not "put shot 4 down", "play shot 3 later"."""
TO_START = re.compile(r"\b(?:to|at) the (?:very )?(?:start|beginning|front|top|opening)\b|\b(?:first|1th)\s*$|"
                      r"\bto the 1th position\b|\bto position 1\b")
TO_END = re.compile(r"\b(?:to|at) the (?:very )?(?:end|back|close|bottom)\b|\blast\s*$|\bto the last position\b")
TO_POSITION = re.compile(r"\bto (?:the )?(?:position|slot|place) (\d+)\b|\bto the (\d+)th (?:position|slot|place)\b")
_END_OF_A_MOVE = (r"(?=\s*(?:(?:in|of) the (?:final |current |whole )?(?:cut|edit|film|movie|sequence|timeline))?"
                  rf"\s*(?:,?\s*{POLITE_WORDS})?\s*[.!]*\s*$)")
"""What may follow a move's place when it ends the request ("move shot 3 up one in the cut, please"): a place said
mid-request ("move shot 3 up one and make it night") is left to the other checks."""
BY_PLACES = re.compile(
    rf"\b(?:(?P<way>up|down)(?: by)?(?: (?:(?P<count>\d+|one)(?: {PLACE_WORDS})?|a (?:place|spot|slot|position)))?|"
    rf"(?P<count2>\d+|one|a) {PLACE_WORDS} (?P<way2>up|down|earlier|later)|"
    rf"(?P<way3>earlier|later) by (?P<count3>\d+|one)(?: {PLACE_WORDS})?)" + _END_OF_A_MOVE)
"""A move by places from where the shot plays: "up one", "down 2 places", "one place later", "2 places earlier",
"earlier by 2".  "up" and "down" alone are one place, as "move slide 4 up" is in a deck (and a list's "move up"
is); every number said is read ("move shot 3 up 2" is two places, not one and a word left over)."""
EARLIER_OR_LATER = re.compile(r"\b(?:earlier|later|sooner)\b" + _END_OF_A_MOVE)
""""move shot 3 later" says no distance: one place, or to the end?  Asked (as of a slide: "move slide 3 later")."""
TO_NTH = re.compile(rf"(?:\b(?P<to>to|in|into) (?:the )?)?\b(?P<n>\d+)th(?: {PLACE_WORDS})?" + _END_OF_A_MOVE)
""""put shot 4 second", "move shot 4 to 2nd", "move shot 4 to second place": a place said as an ordinal that ends
the request ("second" is also read as a length: "put shot 4 second" asked which clip's length)."""
TO_NUMBER = re.compile(r"(?<=\d )to #?(?P<n>\d+)" + _END_OF_A_MOVE)
""""move shot 4 to 2": place 2, as "move slide 2 to 4" is in a deck (it read "shot 4 to 2" as shots 2 to 4)."""
_ONE_SHOT_BEFORE = re.compile(r"(?:\bshot #?\d+|\bthe (?:last|first|final|1th|\d+th) shot|\bit|\bthis|\bthat)\s*$")
"""What a bare place follows: the one shot it moves ("put shot 4 second", "move it 2nd"); after other words ("for a
second", "shots 2 to 4") it is no place."""
AFTER = re.compile(r"\b(?:right |just |directly )?after\b")
BEFORE = re.compile(r"\b(?:right |just |directly )?(?:before|ahead of)\b")
BETWEEN = re.compile(r"\bbetween\b")
REMOVE = re.compile(r"\b(?:remove|drop|take|pull|delete|lose|skip|get rid of)\b|"
                    # "leave shot 3 out of the cut" takes it out; "leave shot 3 in the cut" keeps it (it was taken out)
                    r"\bleave\b(?=[^,;.]*\bout\b)|"
                    r"(?<!the )(?<!final )(?<!current )\bcut\b")
RETURN = re.compile(r"\b(?:put|bring|add|restore|return|re-?add|re-?insert|reinstate)\b")
BACK_OUT = re.compile(r"\b(?:back|out)\b")
_REMOVE_A_SHOT = re.compile(
    r"^\s*(?:(?:please|also|ok|okay|now|then|(?:can|could|would) you|i (?:want|would like|'d like)(?: you)? to) )*"
    r"(?:remove|drop|cut|skip|lose|delete|get rid of) (?:shots? #?\d|the (?:last|first|final|opening|\d+th)\b)")
"""A removal from the cut said without the cut ("delete shot 4", "can you delete the 4th shot?").  Not "delete it"
of a selected image: its image rejected, or its shot out of the cut? (asked)"""
_SAID_AGAIN = re.compile(r"(?:[,;]\s*(?:(?:and|then|and then)\s+)?|\s+(?:and|then|and then)\s+)"
                         r"(?:remove|drop|delete|lose|skip|cut|get rid of)(?= (?:the )?shots? #?\d)")
"""A removal's verb said again after a clause break, right before the next shot: "remove shot 2, then remove shot 3",
"delete shot 2 and delete shot 3" (the second verb was left unread, and asked about).  Only a verb that needs no word
after it: "take shot 2 out and take shot 3 back" is two things."""


_SWITCHED_BACK = re.compile(r"\b(?:switch|swap|flip|trade|exchange)\b.{0,40}?\bback\b(?! to\b)")
_TO_A_VERSION = re.compile(r"\bto (?:the |their |its )?(?:original|previous|earlier|older|first|last)\b|\bto v\d")
"""Where "switch back" goes when it is said: to a version, not a place ("... to the original")."""
_TWO_SHOTS = re.compile(r"\bshots? #?\d+,? (?:and|&) (?:shot )?#?\d+\b")


def switched_back(ctx: ReadContext) -> Reading | None:
    """"switch back shot 4 and shot 5" / "switch shots 4 and 5 back": their places swapped back, or each one's
    last change undone?  Read as one or the other (both undone, or the two swapped when they never were), it
    exited 0.  Asked, unless the turn before swapped places in the cut (then both readings take that back)."""
    text = ctx.words.text
    two = _TWO_SHOTS.search(text)
    if _SWITCHED_BACK.search(text) is None or two is None or _TO_A_VERSION.search(text) or any(
            c.get("operation") == "reorder_cut" for c in ctx.previous.clauses):
        return None
    said = typed(ctx, two.start(), two.end()) or two.group(0)
    ctx.words.take_all()
    return Reading(clarification=Clarification(
        reason="ambiguous", understood=["switch two shots back"],
        message=f"Switch {said} back how: swap their places in the cut back, or undo each one's last change? I "
                f"changed nothing. Say 'swap {said} in the cut' or 'undo the last change to {said}'."))


_ONE_BY_PLACE = re.compile(r"\bthe (?:last|first|final|opening|\d+(?:st|nd|rd|th)|second|third|next to last) one\b")
"""A place in an unnamed row ("the last one"): a shot of the cut, or a slide of a deck on the same canvas."""
_A_SHOTS_PART = re.compile(r"\bshots? #?\d+'s (?:image|picture|frame|still|look|lighting|clip|video|weather|"
                           r"framing|outfit)s?\b")
"""A part of a shot said in a swap or a move ("swap shot 2's image with shot 3's" swapped the shots in the cut)."""
_A_PART_OR_ANOTHER = re.compile(
    r"\binstead(?: of)?\b|\blike\b|\brather than\b|\bas (?:with|for)\b|"
    r"'s (?!clip\b|(?:final |current |whole )?(?:cut|edit|film|movie|sequence)\b)[a-z]+|"
    r"\b(?:shots? #?\d+|shot|one) (?:image|picture|frame|still|lighting|look|mood|style|version|colou?rs?|weather)s?\b")
"""What makes a removal something else: another shot it is compared with ("delete shot 5 instead of shot 4",
"like shot 5": both were taken out), or a part of the shot ("delete shot 4's lighting", "shot 4 image": the whole
shot was)."""
INSERT = re.compile(r"^\s*(?:please )?(?:add|insert|put in|include)\s+(?:a|an|one|another)\s+(?:new |extra |additional )?"
                    r"shot\b(?:\s+(?:of|where|showing|that shows|in which|with|when|about))?")
DUPLICATE = re.compile(r"\b(?:duplicate|clone|make a copy of|copy|repeat)\b")
_THE_CHANGE_REPEATED = re.compile(r"\b(?:repeat (?:the same|that|it|this)|copy (?:the same|that|this))(?: (?:thing|change|"
                                  r"edit|look))?(?: again)?\s+(?:to|on|onto|for|with)\s+(?:the |every |all )?(?:\w+ )?"
                                  r"(?:shots?|images?)\b")
""""repeat that on shot 5", "copy that to shot 5": the last change on another shot (the shot reader's "the same"),
not a copy of shot 5 (it was duplicated)."""
SECONDS = re.compile(r"\b(?:(\d+(?:\.\d+)?) ?-? ?(?:s|sec|secs|seconds?|2th)|(a|an|half a|1 and a half|one and a half) "
                     r"(?:second|sec|2th))\b(?: (longer|shorter|more|less|long|in length|of length)\b)?")
"""A length in seconds ("second" is read as the ordinal 2th by the number speller)."""
DURATION_VERB = re.compile(r"\b(?:make|set|change|shorten|lengthen|extend|trim|cut|stretch)\b|\b(?:should|to) (?:be|last)\b|"
                           r"\blast(?:s)?\b|\b(?:longer|shorter)\b|\bduration\b|\blength\b|\blong\b|\bby\b|\bto\b|"
                           r"\bshould\b|\bbe\b")
_TAKEN_OFF = re.compile(r"\s*(?:off(?: of)?|from|out of)\b")
_TAKING_VERB = re.compile(r"\b(?:trim|cut|shave|take|remove|lose|drop|chop|shorten)\b")
_PUT_ON = re.compile(r"\s*(?:on ?to|to)\b")
_ADDING_VERB = re.compile(r"\b(?:add|put)\b")
"""An amount taken off a clip or added to it ("trim 2 seconds from shot 4", "add 2 seconds to shot 4"): a change by
that much, not the new length (the clip was set to 2 s)."""
_A_RANGE = re.compile(r"(?:\b\d+(?:\.\d+)?\s*(?:-|–|to|or)|\bbetween\s+\d+(?:\.\d+)?\s+and)\s*$")
"""A length said as a range ("make shot 4 3-4 seconds" set 4 s): which one is asked."""
_SHOTS_BEFORE = re.compile(r"\b(?:shots?|clips?)\s+(?:#?\d+\s*(?:,|and|&)\s*)*$")
"""Shot numbers right before a length ("cut shots 2 and 3 to 2 seconds", "make shot 4 to 3 seconds"): no range."""
CLIP = re.compile(r"\b(?:video )?clips?\b")
SHOT_WORDS = re.compile(r"\b(?:shot|shots|it|them|one|ones|order|places|positions|the|around|round|over|out|back|"
                        r"with|and|in|into|from|of|to|again|please|also|as well)\b")
_NUMBERS = {"a": 1.0, "an": 1.0, "half a": 0.5, "one and a half": 1.5, "1 and a half": 1.5}
CLIP_NUMBER = re.compile(r"\b(?:video )?clips? #?(\d+)\b")


_PAIR_BY_NUMBER = re.compile(r"\b(?:(?P<noun>shots?|clips?) )?#?(?P<a>\d+),? (?P<joint>with|and|&) #?(?P<b>\d+)\b"
                             r"(?! ?(?:th|seconds?|secs?|s)\b)")
"""Two shots swapped by their numbers, the second without its noun ("swap shot 4 with 5": 5 was left unread) or
both (:data:`BARE_SWAP`)."""
BARE_SWAP = re.compile(r"^\s*(?:(?:please|now|ok|okay|can you|could you|would you)\s*,?\s*)*(?:swap|switch|exchange|"
                       r"trade) (?:the )?#?\d+,? (?:with|and|&) #?\d+(?: around| round)?" + _END_OF_A_MOVE)
""""switch 3 and 4", "swap 4 with 5": two numbers and nothing else, read as shots only on a canvas whose only
numbered things are a film's shots (with a deck or a page: slides, or pictures?)."""


def _pair_by_number(ctx: ReadContext) -> list[Reference]:
    """The two shots of :data:`_PAIR_BY_NUMBER`, their words taken, when no shot reference reads them: a second number
    after "with" ("swap shot 4 with 5"), or two bare numbers (:data:`BARE_SWAP`); else none."""
    pair = _PAIR_BY_NUMBER.search(ctx.words.text)
    if pair is None or (pair["noun"] is not None and pair["joint"] != "with") or (
            pair["noun"] is None and not BARE_SWAP.search(ctx.words.text)):
        return []
    ctx.words.mark(pair.start(), pair.end())
    return [Reference(said=f"shot {pair[n]}", form="number", numbers=[int(pair[n])]) for n in ("a", "b")]


def _place_said(text: str) -> re.Match[str] | None:
    """The place a move ends with that no other move words say, right after the one shot it moves: places from
    where the shot plays (:data:`BY_PLACES`, and :data:`EARLIER_OR_LATER`, asked), an ordinal or a number
    (:data:`TO_NTH`, :data:`TO_NUMBER`)."""
    by_places = _MOVE_BY.search(text) and (BY_PLACES.search(text) or EARLIER_OR_LATER.search(text))
    said = by_places or TO_NTH.search(text) or TO_NUMBER.search(text)
    return said if said is not None and _ONE_SHOT_BEFORE.search(text, 0, said.start()) else None


def _places_moved(said: re.Match[str]) -> int:
    """The signed number of places of a :data:`BY_PLACES` match: up and earlier are negative."""
    return places_moved(said.group("way") or said.group("way2") or said.group("way3"),
                        said.group("count") or said.group("count2") or said.group("count3"))


def _clause(ctx: ReadContext, operation: str, args: dict[str, Any], understood: str,
            targets: list[Target], references: list[Reference]) -> Reading:
    return Reading(clauses=[Clause(text=ctx.request, domain="cut", operation=operation, args=args, targets=targets,
                                   references=references, understood=[understood])])


_NOT_OF_THE_SHOT = re.compile(
    r"\?|\b(?:just kidding|jk|j/k|not sure|never ?mind|nvm|instead(?: of)?|rather than|unless|if (?:possible|you can|"
    r"that'?s ok(?:ay)?|it fits|that works)|please|pls|plz|thanks|thank you|thx|ty|can you|could you|would you|maybe|"
    r"perhaps|or something|lol|haha)\b|\b(?:like|same as|as in|similar to)\s+(?:in\s+)?(?:shot|the)\b|"
    r"\bshots? #?\d+\b")
"""Words in a new shot's description that are the request's, not the shot's: a hedge, a sign-off, a condition, a
question, or another shot (whose look the new one cannot copy from words)."""
_ANOTHER_PLACE = re.compile(r"\b(?:after|before|between)\s+(?:the\s+)?(?:shots?\s+)?(?:#?\d+|last|first|1th)\b|"
                            r"\bat the (?:end|start|beginning)\b")
"""A second place in a new shot's description: a second shot asked for ("... and one of the sky after shot 5")."""
_SAID_NOT = re.compile(r"\b(?:not|don'?t|do not|never)\b")
"""A new shot's description saying what not to show ("..., don't show tova"): it is drawn from its words, so a "not"
in them draws what it names (and "not" alone was left of "..., not after shot 4")."""
_NOT_HERE = re.compile(r"\bnot\s*$")
"""A place said as where the new shot does not go ("add a shot of the hive, not after shot 4" put it there)."""
_MORE_PLACES = re.compile(r"\s*(?:,|,?\s*(?:and|&|or))\s*(?:(?:the\s+)?shots?\s+)?#?\d+\b"
                          r"(?!\s*(?:of|with|where|showing|that|in which)\b)")
"""More shots after a place ("after shots 4 and 6": one shot was put after shot 4, described as "the hive and 6")."""
_NOT_THERE = re.compile(r"\s*,?\s*(?:(?:and|but)\s+)?not\s+(?:(?P<prep>after|before|ahead of)\s+)?"
                        r"(?:(?:shots?\s+)?#?(?P<n>\d+)|(?P<it>it|that|this)(?: one)?)\b")
"""A place confirmed by the one it is not ("after shot 4, not 5", "after shot 4 not before it"): no part of what the
new shot shows (it was written into its description)."""


class CutReader:
    """Operations on the narrative cut, on a project that has a story."""

    name = "cut"

    def read(self, ctx: ReadContext) -> Reading | None:
        text = ctx.words.text
        operation = self._operation(text)
        if operation is None:
            return None
        if operation == "swap" and (asked := switched_back(ctx)) is not None:
            return asked
        if operation == "swap" and BARE_SWAP.search(text) and (ctx.facts.slides or ctx.facts.pages or
                                                              not ctx.facts.has_story):
            return None  # "swap 2 and 3" beside a deck or a page: slides, pictures or shots? (asked)
        if not ctx.facts.has_story:
            return not_found(ctx, "a story", f"There is no story with shots {ctx.facts.where} yet, so there "
                             "is no cut to change; make a storyboard first.")
        if (either := EITHER_OR.search(text)) is not None:  # "remove shot 2 from the cut or shot 3" took out both
            ctx.words.take_all()
            return Reading(clarification=Clarification(
                reason="ambiguous", understood=["a change of the cut"],
                message=either_or_question(either.group(0))))
        part = _A_PART_OR_ANOTHER.search(text) if operation == "remove" else \
            _A_SHOTS_PART.search(text) if operation in ("swap", "move") else None
        if part is not None:
            # "delete shot 5 instead of shot 4" took both out, "delete shot 4's lighting" the whole shot
            ctx.words.take_all()
            doing = {"remove": "take whole shots out of the cut ('remove shot 4')",
                     "swap": "swap whole shots in the cut ('swap shots 2 and 3')",
                     "move": "move whole shots in the cut ('move shot 5 to the end')"}[operation]
            return Reading(clarification=Clarification(
                reason="unparsed", understood=[f"a change of the cut: {operation}"],
                message=f"'{part.group(0).strip()}': I {doing}, and cannot tell which, or what else, you mean, so I "
                        "changed nothing. Name the shots, or say what to change ('reject shot 4's image', 'make "
                        "shot 4 daylight')."))
        named = read_film(ctx.words, ctx.facts)  # "move shot 3 of the ferry film to the end"
        return _in_one_cut(ctx, getattr(self, f"_{operation}")(ctx), named)

    @staticmethod
    def _operation(text: str) -> str | None:
        if INSERT.search(text):
            return "insert"
        if DUPLICATE.search(text) and not _THE_CHANGE_REPEATED.search(text) and re.search(
                r"\bshots?\b|\bclips?\b|\bit\b|\bthis\b|\bthe (?:last|first)\b", text):
            return "duplicate"
        if MOVE.search(text) and _place_said(text) is not None:
            return "move"
        if SECONDS.search(text) and (CLIP.search(text) or re.search(r"\bshots?\b|\bimage\b|\bit\b", text)) and \
                re.search(r"\b(?:long|longer|shorter|last|lasts|duration|length|seconds?|secs?|s|2th)\b", text):
            return "duration"
        if (SWAP.search(text) and (SWAP_MEANT.search(text) or CUT.search(text)) and
                re.search(r"\bshots?\b|\bclips?\b|\bimages?\b", text)) or BARE_SWAP.search(text):
            return "swap"
        if MOVE.search(text) and (TO_START.search(text) or TO_END.search(text) or TO_POSITION.search(text)
                                  or re.search(r"\b(?:after|before|ahead of)\b", text)) and \
                re.search(r"\bshots?\b|\bclips?\b|\bthe (?:last|first)\b", text) and not re.search(r"\bback\b", text):
            return "move"
        if re.search(r"\bback\b", text) and RETURN.search(text) and not re.search(
                r"\bback to (?:the )?(?:original|version|before|how|the way|v\d)|\bback to \w+ (?:version|state)\b",
                text):
            return "return"
        if REMOVE.search(text) and (CUT.search(text) or _REMOVE_A_SHOT.search(text)):
            return "remove"
        return None

    # -- reading the shots ---------------------------------------------------------------------------------
    def _shots(self, ctx: ReadContext, start: int = 0, end: int | None = None, numbered: list[Reference] | None = None
               ) -> tuple[list[Any], list[Target], list[Reference], Reading | None]:
        """The shots a span names, as the cut tools take them: shot ids, or positions in the cut for "the last
        shot" / "the first two" (negative from the end); ``numbered``: shots the caller read by their numbers."""
        clips = [Reference(said=m.group(0), form="number", numbers=[int(m.group(1))])
                 for m in ctx.words.take(CLIP_NUMBER, start, end)] + (numbered or [])
        found = find_references(ctx.words, start, end)
        refs: list[Any] = []
        targets: list[Target] = []
        references = clips + [f.reference for f in found]
        named = film_named(ctx.facts, ctx.words.text)  # "shot 3 of the ferry film", taken by read() already
        film = named[0] if isinstance(named, tuple) else None
        for reference in references:
            if reference.form == "position" and reference.position in ("first", "last", "penultimate"):
                count = reference.numbers[0] if reference.numbers else 1
                positions = (list(range(1, count + 1)) if reference.position == "first" else
                             list(range(-count, 0)) if reference.position == "last" else [-max(count, 2)])
                refs += positions
                targets += [Target(id=f"position {p}", kind="position", title=_place(p), referred_as=reference.said)
                            for p in positions]
                continue
            # "it" with nothing named or selected is the shot the turn before acted on: "take shot 3 out of the
            # cut", then "put it back" (which that turn's own reply suggests) asked which shot
            resolved = resolve_targets([reference], ctx.facts, previous=ctx.previous.targets, answer=ctx.answer,
                                       pronoun_follows_previous=True, film=film)
            if resolved.missing or resolved.ambiguous or resolved.unresolved:
                return [], [], references, _ask(ctx, resolved)
            for target in resolved.targets:
                if target.kind != "shot" or target.id in refs:  # "remove shot 2, then remove shot 2": once
                    continue
                refs.append(target.id)
                targets.append(target)
        return refs, targets, references, None

    # -- the operations ------------------------------------------------------------------------------------
    def _swap(self, ctx: ReadContext) -> Reading:
        words = ctx.words
        swapped = SWAPPED_LOOK.search(words.text)
        if swapped is not None:  # "swap the lighting of shots 2 and 3" swapped the shots in the cut
            return Reading(clarification=Clarification(
                reason="unsupported", understood=[f"swap the {swapped.group(0)} of two shots"],
                message=f"I cannot swap the {swapped.group(0)} of two shots in one step: I can swap the shots' places "
                        "in the cut ('swap shots 2 and 3'), or set each one ('make shot 2 night and shot 3 dawn')."))
        words.take(SWAP)
        words.take(CUT)
        refs, targets, references, asked = self._shots(ctx, numbered=_pair_by_number(ctx))
        if asked is not None:
            return asked
        words.take(SHOT_WORDS)
        if len(refs) != 2:
            return _incomplete(ctx, "swap two shots in the cut", "Which two shots should I swap? Name two: 'swap "
                               "shots 3 and 4'.")
        return _clause(ctx, "reorder_cut", {"swap": refs}, f"swap {targets[0].title} and {targets[1].title} in the "
                       "cut", targets, references)

    def _move(self, ctx: ReadContext) -> Reading:
        words = ctx.words
        words.take(MOVE, first=True)  # the verb: "place" after it is the place's ("move shot 4 to place 2")
        words.take(CUT)
        place: dict[str, Any] = {}
        said = ""
        if (m := words.take(TO_START, first=True)):
            place, said = {"to": 1}, "the start"
        elif (m := words.take(TO_END, first=True)):
            place, said = {"to": -1}, "the end"
        elif (m := words.take(TO_POSITION, first=True)):
            n = int(m[0].group(1) or m[0].group(2))
            place, said = {"to": n}, f"position {n}"
        elif (m := _place_said(words.text)) is not None and not words.used(m.start(), m.end()):
            if m.re is EARLIER_OR_LATER or (m.re is BY_PLACES and _places_moved(m) == 0):  # "up 0": no move
                return _incomplete(ctx, "move a shot in the cut", f"'{m.group(0)}': how many places? I changed "
                                   "nothing. Say 'move shot 3 one place earlier', 'move shot 3 to position 2' or "
                                   "'move shot 3 after shot 5'.")
            words.mark(m.start(), m.end())
            if m.re is BY_PLACES:
                by = _places_moved(m)
                place = {"by": by}
                said = f"{abs(by)} place{'s' if abs(by) != 1 else ''} {'earlier' if by < 0 else 'later'} in"
            else:
                place, said = {"to": int(m.group("n"))}, f"position {m.group('n')}"
        neighbour = words.peek(AFTER) or words.peek(BEFORE)
        if not place and neighbour is not None:
            words.mark(neighbour.start(), neighbour.end())
            moving = self._shots(ctx, 0, neighbour.start())
            other = self._shots(ctx, neighbour.end())
            for _, _, _, asked in (moving, other):
                if asked is not None:
                    return asked
            words.take(SHOT_WORDS)
            if len(moving[0]) != 1 or len(other[0]) != 1:
                return _incomplete(ctx, "move a shot in the cut", "Move which shot, after or before which? 'move "
                                   "shot 2 after shot 5'.")
            key = "after" if AFTER.fullmatch(neighbour.group(0)) else "before"
            return _clause(ctx, "reorder_cut", {"move": moving[0][0], key: other[0][0]},
                           f"move {moving[1][0].title} {key} {other[1][0].title} in the cut",
                           moving[1] + other[1], moving[2] + other[2])
        refs, targets, references, asked = self._shots(ctx)
        if asked is not None:
            return asked
        words.take(SHOT_WORDS)
        if len(refs) != 1 or not place:
            return _incomplete(ctx, "move a shot in the cut", "Move which shot, and where? 'move shot 6 to the "
                               "start', 'move shot 2 after shot 5'.")
        where = f"{said} the cut" if "by" in place else f"to {said} of the cut"
        return _clause(ctx, "reorder_cut", {"move": refs[0], **place}, f"move {targets[0].title} {where}", targets,
                       references)

    def _in_or_out(self, ctx: ReadContext, verb: re.Pattern[str]
                   ) -> tuple[list[Any], list[Target], list[Reference], Reading | None]:
        """The shots of "remove shot 4 from the cut" / "put shot 6 back in the cut": the verb (and a removal's
        verb said again before the next shot, :data:`_SAID_AGAIN`), the cut and "back/out" taken, then the shots read as
        :meth:`_shots` reads them."""
        if ctx.words.take(verb, first=True) and verb is REMOVE:
            ctx.words.take(_SAID_AGAIN)
        ctx.words.take(CUT)
        ctx.words.take(BACK_OUT)
        found = self._shots(ctx)
        if found[3] is None:
            ctx.words.take(SHOT_WORDS)
        return found

    def _remove(self, ctx: ReadContext) -> Reading:
        if (ctx.facts.slides or ctx.facts.pages) and (said := _ONE_BY_PLACE.search(ctx.words.text)) is not None \
                and not CUT.search(ctx.words.text):
            # "delete the last one" on a canvas with a film and a deck took the film's last shot out of its cut
            words = typed(ctx, said.start(), said.end()) or said.group(0)
            other = "slide" if ctx.facts.slides else "section of the page"
            return Reading(clarification=Clarification(
                reason="no_target", understood=[f"delete {words}"],
                message=f"Which is {words}: a shot (taken out of the cut) or a {other}? I changed nothing. Say "
                        f"'delete the last shot' or 'delete the last {other.split()[0]}'."))
        refs, targets, references, asked = self._in_or_out(ctx, REMOVE)
        if asked is not None:
            return asked
        if not refs:
            return _incomplete(ctx, "take shots out of the cut", "Take which shot out of the cut? 'remove shot 4 "
                               "from the cut'.")
        return _clause(ctx, "remove_from_cut", {"shots": refs},
                       f"take {', '.join(t.title for t in targets)} out of the cut (they stay on the canvas)",
                       targets, references)

    def _return(self, ctx: ReadContext) -> Reading:
        refs, targets, references, asked = self._in_or_out(ctx, RETURN)
        if asked is not None:
            return asked
        ids = [r for r in refs if isinstance(r, str)]
        if not ids:
            return _incomplete(ctx, "put a shot back into the cut", "Put which shot back? 'put shot 6 back in the "
                               "cut'.")
        edited = set(ctx.previous.targets) | {t.get("id") for c in ctx.previous.clauses
                                              if c.get("operation") != "remove_from_cut"
                                              for t in c.get("targets") or [] if isinstance(t, dict)}
        # "make shot 3 night", then "put shot 3 back" / "bring shot 3 back": the shot the last turn changed (and
        # did not take out of the cut), named or not
        just_changed = any(t.id in edited for t in targets if t.kind == "shot")
        if (any(r.form == "pronoun" for r in references) or just_changed) and not CUT.search(ctx.words.text) and \
                not any(c.get("operation") == "remove_from_cut" for c in ctx.previous.clauses):
            # "make shot 3 night", then "put it back": the night taken back, or shot 3 (never out of the cut) put
            # back into it?  It was read as the cut's, and answered with exit 0
            said = ", ".join(t.title for t in targets if t.kind == "shot")
            return Reading(clarification=Clarification(
                reason="ambiguous", understood=[f"put {said} back"],
                message=f"Put {said} back how? The last turn did not take it out of the cut, so I changed nothing. "
                        f"Say 'undo that' to take back the last change, or 'put {said} back in the cut'."))
        return Reading(clauses=[Clause(text=ctx.request, domain="cut", operation="return_to_cut", args={"shot": i},
                                       targets=[t], references=references,
                                       understood=[f"put {t.title} back into the cut"])
                                for i, t in zip(ids, [t for t in targets if t.kind == "shot"])])

    def _duplicate(self, ctx: ReadContext) -> Reading:
        words = ctx.words
        words.take(DUPLICATE)
        words.take(CUT)
        refs, targets, references, asked = self._shots(ctx)
        if asked is not None:
            return asked
        words.take(CLIP)
        words.take(SHOT_WORDS)
        if len(refs) != 1:
            return _incomplete(ctx, "duplicate a shot", "Duplicate which shot? One at a time: 'duplicate shot 4'.")
        return _clause(ctx, "duplicate_shot", {"shot": refs[0]},
                       f"duplicate {targets[0].title} (a copy right after it)", targets, references)

    def _duration(self, ctx: ReadContext) -> Reading:
        words = ctx.words
        match = words.take(SECONDS, first=True)[0]
        amount = float(match.group(1)) if match.group(1) else _NUMBERS[match.group(2)]
        if (span := _A_RANGE.search(words.text[:match.start()])) is not None and \
                not _SHOTS_BEFORE.search(words.text[:span.start()]):
            said = typed(ctx, span.start(), match.end()) or words.text[span.start():match.end()]
            return _incomplete(ctx, "change a clip's length", f"'{said}' is a range: how long exactly? I changed "
                               "nothing. Say one length ('make shot 4's clip 3 seconds long').")
        by = re.search(r"\bby\s*$", words.text[:match.start()])
        taken, added = _by_an_amount(words, match)
        relative = match.group(3) in ("longer", "more", "shorter", "less") or by is not None or taken or added
        shorter = match.group(3) in ("shorter", "less") or taken or (not added and bool(
            re.search(r"\b(?:shorten|trim|shorter|cut)\b", words.text)))
        sign = -1 if relative and shorter else 1
        words.take(CUT)
        refs, targets, references, asked = self._shots(ctx)
        if asked is not None:
            return asked
        words.take(CLIP)
        words.take(DURATION_VERB)
        words.take(SHOT_WORDS)
        words.take(re.compile(r"'s\b"))
        if len(refs) != 1:
            return _incomplete(ctx, "change a clip's length", "Which shot's clip? One at a time: 'make shot 2's clip "
                               "3 seconds long'.")
        args = {"shot": refs[0], **({"by_s": sign * amount} if relative else {"duration_s": amount})}
        said = f"{'+' if sign > 0 else '-'}{amount:g} s" if relative else f"{amount:g} s"
        return _clause(ctx, "set_clip_duration", args, f"{targets[0].title}'s clip: {said}", targets, references)

    def _insert(self, ctx: ReadContext) -> Reading:
        words, text = ctx.words, ctx.words.text
        lead = INSERT.search(text)
        assert lead is not None
        words.mark(lead.start(), lead.end())
        words.take(CUT)
        place = _insert_place(text, lead.end())
        if place is None:
            return _incomplete(ctx, "insert a new shot", "Where should the new shot go? Say 'between shots 2 and 3', "
                               "'after shot 4' or 'before shot 1'.")
        kind, start, end = place
        if _NOT_HERE.search(text, 0, start) is not None:
            return _incomplete(ctx, "insert a new shot", f"'not {text[start:end].strip()}': where should the new "
                               "shot go then? I changed nothing. Say where ('after shot 5', 'between shots 4 and 5', "
                               "'at the end').")
        if kind in ("after", "before") and (more := _MORE_PLACES.match(text, end)) is not None:
            return _incomplete(ctx, "insert a new shot", f"'{text[start:more.end()].strip()}': I add one new shot "
                               "per request, in one place, so I changed nothing. Say one place ('after shot 4'), and "
                               "ask again for the next.")
        refs, targets, references, asked = self._shots(ctx, start, end)
        if asked is not None:
            return asked
        if (end := _past_the_place_it_is_not(text, kind, start, end)) is None:
            return _incomplete(ctx, "insert a new shot", f"'{text[start:].strip()}': I cannot tell where the new "
                               "shot goes, so I changed nothing. Say one place ('after shot 4').")
        words.mark(start, end)
        content = text
        if isinstance(film := film_named(ctx.facts, text), tuple):  # "after shot 2 of the ferry film": not content
            content = text[:film[1][0]] + " " * (film[1][1] - film[1][0]) + text[film[1][1]:]
        description = " ".join((content[lead.end():start] + " " + content[end:]).split()).strip(" ,.;:-")
        description = re.sub(r"^(?:of|where|showing|with|in which|when|about)\s+", "", description)
        if not description:
            return _incomplete(ctx, "insert a new shot", "What happens in the new shot? 'add a shot of Mara reading "
                               "the letter between shots 2 and 3'.")
        if THEN_A_CHANGE.search(description) or _ANOTHER_PLACE.search(description):
            # The description is kept whole, so what followed it was written into the new shot's prompt and never
            # done: "..., then remove shot 5 from the cut", "... and one of the sky after shot 5".
            return _incomplete(ctx, "insert a new shot", "That is more than one new shot, or a new shot and another "
                               "change: I add one shot per request, described on its own ('add a shot of the sea "
                               "after shot 3'), so I changed nothing. Say the rest after it.")
        if (aside := _NOT_OF_THE_SHOT.search(description)) is not None:
            # "... of bees, just kidding", "... of bees? not sure", "... instead of shot 6", "... like shot 2", "...,
            # unless that's too sad", "..., thanks": each was written into the new shot's prompt, and the shot added
            return _incomplete(ctx, "insert a new shot", f"'{aside.group(0).strip(' ,')}' reads as part of the "
                               "request, not of what the new shot shows, so I changed nothing. Describe the shot on "
                               "its own ('add a shot of bees after shot 5'), and say anything else apart.")
        if (said_not := _SAID_NOT.search(description)) is not None:
            return _incomplete(ctx, "insert a new shot", f"'{description[said_not.start():].strip(' ,')}': a new shot "
                               f"is drawn from its description, and '{said_not.group(0)}' in it draws what it names, "
                               "so I changed nothing. Describe only what the shot shows ('add a shot of the hive after "
                               "shot 4').")
        words.take_all()  # the description is content kept whole
        if kind == "between" and len(refs) == 2:
            args: dict[str, Any] = {"after": refs[0], "before": refs[1]}
        elif kind in ("after", "before") and len(refs) == 1:
            args = {kind: refs[0]}
        elif kind == "end":
            args = {"after": -1}
        elif kind == "start":
            args = {"before": 1}
        else:
            return _incomplete(ctx, "insert a new shot", "Between which shots? Name two neighbours ('between shots "
                               "2 and 3') or one ('after shot 4').")
        args["description"] = _as_typed(ctx.request, text, description)
        where = " and ".join(f"{k} {t.title}" for k, t in zip(("after", "before"), targets)) if kind == "between" \
            else f"{kind} {targets[0].title}" if targets else f"at the {kind}"
        return _clause(ctx, "insert_shot", args, f"insert a new shot ({args['description'][:60]}) {where}", targets,
                       references)


def _by_an_amount(words: Words, amount: re.Match[str]) -> tuple[bool, bool]:
    """Whether a length (``amount``) is taken off the clip ("trim 2 seconds from shot 4", "take 2 seconds off shot
    4") or added to it ("add 2 seconds to shot 4"), each word of that taken; (False, False) for a new length."""
    if amount.group(3) is not None:
        return False, False
    before = words.text[:amount.start()]
    for after, verbs, taken in ((_TAKEN_OFF, _TAKING_VERB, True), (_PUT_ON, _ADDING_VERB, False)):
        link = after.match(words.text, amount.end())
        verb = next(iter(verbs.finditer(before)), None)
        if link is not None and verb is not None:
            words.mark(link.start(), link.end())
            words.mark(verb.start(), verb.end())
            return taken, not taken
    return False, False


def _past_the_place_it_is_not(text: str, kind: str, start: int, end: int) -> int | None:
    """The end of a new shot's place, past the place it is not when that only confirms it (:data:`_NOT_THERE`):
    another shot ("after shot 4, not 5"), or the other side of the same one ("after shot 4, not before it").  None
    when it says the place and then unsays it ("after shot 4, not 4", "after shot 4, not after it") or leaves it
    unclear ("after shot 4, not before shot 6")."""
    said = _NOT_THERE.match(text, end)
    if said is None:
        return end
    placed = re.findall(r"\d+", text[start:end])
    if kind not in ("after", "before") or len(placed) != 1:
        return None
    same_shot = said.group("it") is not None or said.group("n") == placed[0]
    other_side = said.group("prep") is not None and ("after" if said.group("prep") == "after" else "before") != kind
    if (said.group("prep") is None and not same_shot) or (other_side and same_shot):
        return said.end()
    return None


def _insert_place(text: str, start: int) -> tuple[str, int, int] | None:
    """Where an inserted shot goes: ('between' | 'after' | 'before' | 'start' | 'end', span of the phrase)."""
    shots = r"(?:the )?(?:shots? #?\d+|(?:last|first|opening|final) shot|\d+th shot)"
    patterns = (("between", rf"\bbetween {shots} and {shots}|\bbetween shots? #?\d+ (?:and|&) #?\d+"),
                ("after", rf"\b(?:right |just |directly )?after {shots}"),
                ("before", rf"\b(?:right |just |directly )?(?:before|ahead of) {shots}"),
                ("start", r"\bat the (?:very )?(?:start|beginning)(?: of the (?:cut|film|story))?"),
                ("end", r"\bat the (?:very )?end(?: of the (?:cut|film|story))?"))
    for kind, pattern in patterns:
        match = re.search(pattern, text[start:])
        if match:
            return kind, start + match.start(), start + match.end()
    return None


def _as_typed(request: str, normalised: str, description: str) -> str:
    """The description as the person typed it: names keep their capitals, and a word the typo corrector changed
    ("Mara" is one edit from "mark") is given back, since a description is content, not a command.  The
    normalised text has the request's words one for one (corrections and spelled numbers replace words), so the
    description's words are found by their places."""
    typed, read = request.split(), normalised.split()
    wanted = description.split()
    if len(typed) != len(read) or not wanted:
        return description
    for at in range(len(read) - len(wanted) + 1):
        window = [w.strip(",.;:!?") for w in read[at:at + len(wanted)]]
        if window == [w.strip(",.;:!?") for w in wanted]:
            return " ".join(typed[at:at + len(wanted)]).strip(" ,.;:!?")
    return description


def _place(position: int) -> str:
    if position == -1:
        return "the last shot of the cut"
    if position < 0:
        return f"shot {-position} from the end of the cut"
    return f"shot {position} of the cut"


def _in_one_cut(ctx: ReadContext, reading: Reading, named: str | None) -> Reading:
    """The reading with the cut it changes named (``cut_id``) when several films have cuts: the film the words
    named, else the one film of the shots it names, else the answer's or the selection's; asked otherwise ("move
    the last shot to the start of the cut" with two films: the last shot of which cut?)."""
    cuts = film_cuts(ctx.facts)
    held = films(ctx.facts)
    placed = any(t.kind == "position" for c in reading.clauses for t in c.targets)
    if not reading.clauses or (len(cuts) < 2 and not (placed and len(held) > 1)):
        return reading
    named_shots = films_of(ctx.facts, [t.id for c in reading.clauses for t in c.targets])
    pinned = pinned_film(ctx.facts, ctx.answer)
    picked = [named] if named else named_shots if named_shots else [pinned] if pinned else []
    if placed and len(picked) == 1 and picked[0] in held and picked[0] not in cuts:
        # "remove the last shot of the ferry film", and that film has no cut: a place in it names no cut to change
        # (the place was read in another film's, the film dropped)
        ctx.words.take_all()
        return Reading(clarification=Clarification(
            reason="ambiguous", understood=[u for c in reading.clauses for u in c.understood],
            message=f"'{film_candidates(ctx.facts, 'the film', picked)[0]['title']}' has no cut yet, so a place in "
                    "it ('the last shot') names no shot of a cut; I changed nothing. Name the shot by its number "
                    "('shot 4 of the ferry film')."))
    if len(picked) != 1 or picked[0] not in cuts:
        # "remove the last shot" with two films: the last shot of which? (a place in the cut, with several films
        # and one or no cut, was read in no film)
        candidates = film_candidates(ctx.facts, "the cut", list(cuts) if len(cuts) > 1 else held)
        return Reading(clarification=Clarification(
            reason="ambiguous", candidates=candidates, understood=[u for c in reading.clauses for u in c.understood],
            message=ambiguous_message(candidates)))
    for clause in reading.clauses:
        clause.args["cut_id"] = cuts[picked[0]]
    return reading


def _ask(ctx: ReadContext, resolved: Any) -> Reading:
    ctx.words.take_all()
    if resolved.missing:
        return Reading(clarification=Clarification(
            reason="not_found", missing=resolved.missing, understood=["a change of the cut"],
            message=f"There is no {', '.join(resolved.missing)} {ctx.facts.where}."))
    if resolved.ambiguous:
        return Reading(clarification=Clarification(
            reason="ambiguous", candidates=resolved.ambiguous, understood=["a change of the cut"],
            message=ambiguous_message(resolved.ambiguous)))
    return Reading(clarification=Clarification(
        reason="no_target", understood=["a change of the cut"],
        message=f"I could not tell which shot '{resolved.unresolved[0]}' means; name it ('shot 3') or select it."))


def _incomplete(ctx: ReadContext, what: str, message: str) -> Reading:
    unread = ctx.words.unused()
    ctx.words.take_all()
    return Reading(clarification=Clarification(reason="unparsed", understood=[what], not_understood=unread,
                                               message=message))
