"""Phrasings people type, said the way the request readers read them, before any reader sees the request.

Each rewrite is of a phrasing whose words the readers already know but whose shape they took apart wrongly or
not at all: a set's "but" ("all shots but shot 3", which edited the whole set), two positions sharing one noun
("the first and last shots"), a correction's leading "no," before an undo, and whole requests that mean "undo
that".  They work on the normalised text (lower case, numbers as digits, typos corrected).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from nodes.understanding.text import CORRECTION_WORDS, EMOJI, EMOTICON, POLITE_WORDS, SAID_AGAIN

_BUT_AFTER_A_SET = re.compile(
    r"\b(?P<set>(?:every|each)(?: single)? (?:shot|slide|scene|image|picture|clip|one)|all(?: of)?(?: the)? "
    r"(?:shots|slides|scenes|images|pictures|clips)|all|everything)\s+but\s+(?!not\b|also\b|then\b|please\b)")
"""A set followed by "but" ("all shots but shot 3", "every shot but the last one", "all but shot 3"): "but" says
which of the set are left out, as "except" does.  Read as a clause break instead, the set was edited whole."""


_FIRST_AND_LAST = re.compile(r"\bthe (?P<first>1th|first|opening) (?:one )?and (?:the )?(?P<last>last|final) (?:one )?"
                             r"(?P<unit>shot|slide|scene)s?\b")
""""the first and last shots": two positions sharing one noun, said as each with its own ("the first shot and the
last shot"), which the references read; the shared noun left the first position without one."""


_INTERJECTION = re.compile(
    r"^\s*(?:(?:no|nope|nah|oops|ugh|hmm+|ok|okay|well|wait|sorry|never ?mind|nvm|forget it|scratch that)|"
    r"(?:that'?s|that is|this is) (?:wrong|not (?:right|it|"
    r"what i (?:wanted|asked for|meant))))\s*[,!.;]+\s*(?=\S)")
"""A leading "no," / "oops," / "that's wrong," / "never mind," before an undo: how a person takes a turn back, not
part of what to undo ("never mind, undo" asked about 'never', 'mind').  Before anything else it stays, and is
asked about: "no, make shot 5 night instead" corrects the turn before (shot 5 rather than shot 3), which making shot 5
night alone would not do."""
_AN_UNDO = re.compile(r"(?:undo|revert|reverse|take (?:that|this|it) back|take back|go back)\b")
_UNDO_SAID_OTHERWISE = re.compile(r"^\s*(?:revert|reverse|take back) (?:that|this)\s*[.!]*\s*$|"
                                  r"^\s*take (?:that|this) back\s*[.!]*\s*$|^\s*go back\s*[.!]*\s*$|"
                                  r"^\s*(?:revert|reverse|roll ?back|take back|scrap|cancel|discard) (?:the|my|your|that) "
                                  r"(?:last|latest|most recent|previous) (?:change|edit)\s*[.!]*\s*$")
"""Whole requests that mean "undo that" (the turn before).  "revert the last change" reverted the last *shot* (shot 8,
its "last"), and "roll back the last edit" the cut."""


_OTHER_THAN = re.compile(r"\b(?:other than|apart from|aside from|excluding|with the exception of|save for)\b")
"""Ways of saying "except": "make all shots warmer other than shot 1".  "than" alone compares ("warmer than shot
1", which is asked about); "other than" never does, and was refused as a comparison."""

_ASKED_INDIRECTLY = re.compile(
    r"^\s*(?:(?:(?:can|could|would|will) you (?:please |kindly )?|please )?(?:tell|show) me|(?:do|does) (?:you|anyone) know"
    r"|i(?:'d| would) like to know|i want to know|i(?:'m| am)? wonder(?:ing)?|i was wondering)\s*,?\s+"
    r"(?=(?:which|what|how|where|when|who|whether|if)\b)")
"""A question asked through "can you tell me ...", "do you know ...", "I'd like to know ...": the question is what
follows.  Left in, "tell me" read as a command with no target ("which shot 'it' means")."""


_SO_IT_IS = re.compile(r"\s*,?\s*(?:so(?: that)?|such that) it(?:'s| is| comes| sits| goes| ends up| becomes| will be)"
                       r"(?: right| directly| just| immediately)?\s+(?=(?:after|before|the \d+th (?:slide|shot|one)|first|"
                       r"1th|last|at the)\b)|\s+to be\s+(?=the \d+th (?:slide|shot|one)\b)")
"""Where something goes, said as what it is afterwards: "move the summary so it's the 2nd slide", "... so it
comes right after the title slide", "move slide 5 to be the 2nd slide" (each asked about: 'comes', 'be')."""
_THE_NTH = re.compile(r"\b(?P<verb>move|put|place|shift|bring)\b(?P<what>.+?) the (?P<n>\d+)th (?:slide|shot|one)\b")


def _placed_plainly(text: str) -> str:
    said = _SO_IT_IS.sub(" ", text)
    if said == text:
        return text
    said = re.sub(r"\s+(?:first|1th)\s*([.!]*)\s*$", r" to the start\1", said)
    said = re.sub(r"\s+last\s*([.!]*)\s*$", r" to the end\1", said)
    return _THE_NTH.sub(lambda m: f"{m['verb']}{m['what']} to position {m['n']}", said)


def _except_said_otherwise(text: str) -> str:
    return _OTHER_THAN.sub("except", text)


def _question_said_directly(text: str) -> str:
    return _ASKED_INDIRECTLY.sub("", text, count=1)


def _plainly(text: str) -> str:
    """The request without a leading interjection before an undo, and "revert that" / "go back" as "undo that"."""
    said = _INTERJECTION.match(text)
    if said is not None and _AN_UNDO.match(text, said.end()):
        text = text[said.end():]
    return "undo that" if _UNDO_SAID_OTHERWISE.match(text) else text


_IF_YOU_CAN = r"(?:if you (?:can|could|don'?t mind)|if possible|if it'?s not too much trouble)"
_LEAD_IN = re.compile(
    r"^\s*(?:(?:great|perfect|nice|awesome|excellent|lovely|good|love it|looks (?:good|great))"
    r"(?:\s*[,.!;:]+\s*|\s+(?=now\b))|cool(?:\s*[.!]+\s*|\s+(?=now\b))|(?:hmm+|umm*|uhh*|erm)\b\s*[,.!;:]*\s*|"
    r"(?:would|do) you mind\s+(?=[a-z]+ing\b)|"
    rf"{_IF_YOU_CAN}(?:\s*[,;:]+\s*|\s+(?=(?:please |pls )?(?:make|give|turn|change|set|put|add|remove|redo)\b)))+"
    r"(?=[a-z0-9])")
"""What a request may begin with that asks nothing: praise of the last turn ("great, now do shot 4 at dawn",
"perfect, now shot 4"), a hesitation ("hmm make it dawn"), politeness ("would you mind making shot 5 foggy", "if you
can, make shot 3 night").  Each was an unread word, and asked about.  Praise needs a stop or "now" after it ("great
shot 4 dawn" is left as typed), and "cool", a look too, a full stop ("cool, darker" may be two changes); "would you
mind" only before what it asks ("mind if shot 3 were night" is no request)."""
_IF_YOU_CAN_AFTER = re.compile(rf"\s*,?\s+{_IF_YOU_CAN}\s*([.!]*)\s*$")
""""make shot 3 night if you can": the same politeness, at the end."""


def _lead_in_dropped(text: str) -> str:
    return _IF_YOU_CAN_AFTER.sub(r"\1", _LEAD_IN.sub("", text, count=1), count=1)


def _shared_noun(text: str) -> str:
    return _FIRST_AND_LAST.sub(lambda m: f"the {m['first']} {m['unit']} and the {m['last']} {m['unit']}", text)


_LEFT_BY_NUMBER = re.compile(r"\b(?P<verb>leave|keep) (?P<numbers>#?\d+(?:\s*(?:-|–|to|through|thru|and|,|&)\s*#?\d+)*)"
                             r"(?= (?:alone|as (?:it is|is|they are)|untouched|unchanged|the same|out of it)\b)")
"""Shots left out by number alone: "make everything rainy, leave 3 alone", "leave 2 to 4 alone".  The numbers were
no reference, so every shot changed (exit 0); said "leave shots 3 alone" they are the exception."""


def _left_by_number(text: str) -> str:
    if re.search(r"\bslides?\b", text):
        return text  # a deck's request: its own reader says what it cannot read
    return _LEFT_BY_NUMBER.sub(lambda m: f"{m['verb']} shots {m['numbers']}", text)


def _but_as_except(text: str) -> str:
    """"all shots but shot 3" as "all shots except shot 3"; a bare "all but" as "everything except"."""
    return _BUT_AFTER_A_SET.sub(lambda m: ("everything" if m["set"] == "all" else m["set"]) + " except ", text)


_SAME_AS_A_SHOT = re.compile(
    r"\b(?:the )?same (?P<what>lighting|light|time of day|weather|framing|outfit|clothes|coat|colou?r) as "
    r"(?:(?:shot|image) (?P<number>\d+)|the (?P<edge>first|1th|last|final) (?:shot|one|image))\b(?!'s)")
"""A look copied from another shot: "make shot 3 the same lighting as shot 1".  It was refused as a comparison
("I cannot match a shot to another"); the value is the other shot's, read from the facts."""
_COPIED = {"lighting": "lighting", "light": "lighting", "time of day": "lighting", "weather": "weather",
           "framing": "framing", "outfit": "outfit", "clothes": "outfit", "coat": "outfit", "colour": "outfit",
           "color": "outfit"}
_SAID_AS = {("weather", "clear"): "clear skies"}
"""Values whose own name the grammar does not read, said the way it does."""


def said_like_another_shot(text: str, shots: Sequence[Any]) -> str:
    """``text`` with "the same lighting as shot 1" replaced by shot 1's lighting ("night"), and so for weather,
    framing and outfit colour; a shot that is not there, or an outfit it does not set, is left as said (the
    readers then say what they cannot do)."""
    from nodes.models.grammar import COLOURS, IMAGE_DEFAULTS

    numbered = {s.number: s for s in shots if s.number is not None}

    def value(match: re.Match[str]) -> str:
        edge = match["edge"]
        number = int(match["number"]) if match["number"] else (
            min(numbered, default=0) if edge in ("first", "1th") else max(numbered, default=0))
        shot = numbered.get(number)
        if shot is None:
            return match.group(0)
        attribute = _COPIED[match["what"]]
        found = shot.inputs.get(attribute, IMAGE_DEFAULTS.get(attribute))
        if attribute == "outfit":
            colour = next((name for name, code in COLOURS.items() if code == found), None)
            return f"a {colour} outfit" if colour else match.group(0)
        return _SAID_AS.get((attribute, str(found)), str(found)) if found else match.group(0)

    return _SAME_AS_A_SHOT.sub(value, text)


_SHOTS_BY_LOOK = re.compile(r"\b(?:the|all(?: of)? the|all|every) (?P<look>[a-z-]+(?: [a-z-]+)?) (?:shots|ones)\b|"
                            r"\bevery (?P<one>[a-z-]+(?: [a-z-]+)?) shot\b")
"""Shots picked by how they look: "make the night shots a little warmer" (it read "night" as the change and
asked which shots)."""


_SHOTS_WITH = re.compile(r"\bthe (?:shots|ones) (?:with|that have|where there(?:'s| is)) (?:some )?(?P<what>snow|rain|fog|mist)"
                         r"(?: in (?:them|it))?\b")
""""the shots with snow in them": the snowy shots (its "them" was read as the last shot edited)."""
_WEATHER_SAID = {"snow": "snowy", "rain": "rainy", "fog": "foggy", "mist": "misty"}


def shots_by_look(text: str, shots: Sequence[Any]) -> str:
    """``text`` with "the night shots" / "every rainy shot" as the shots whose current image has that lighting,
    weather or framing ("shots 2 and 5"); a look no shot has, or words that are no look, are left as said."""
    from nodes.models.grammar import FRAMING_WORDS, IMAGE_DEFAULTS, LIGHTING_WORDS, WEATHER_WORDS

    def named(match: re.Match[str]) -> str:
        look = match["look"] or match["one"]
        for attribute, table in (("lighting", LIGHTING_WORDS), ("weather", WEATHER_WORDS), ("framing", FRAMING_WORDS)):
            value = next((v for p, v in table if re.fullmatch(rf"(?:{p})", look)), None)
            if value is None:
                continue
            numbers = sorted(s.number for s in shots if s.number is not None
                             and s.inputs.get(attribute, IMAGE_DEFAULTS.get(attribute)) == value)
            if not numbers:
                return match.group(0)
            if len(numbers) == 1:
                return f"shot {numbers[0]}"
            return "shots " + ", ".join(map(str, numbers[:-1])) + f" and {numbers[-1]}"
        return match.group(0)

    text = _SHOTS_WITH.sub(lambda m: f"the {_WEATHER_SAID[m['what']]} shots", text)
    return _SHOTS_BY_LOOK.sub(named, text)


def look_no_shot_has(text: str) -> tuple[str, str] | None:
    """The look of "the dusk shots" left in ``text`` after :func:`shots_by_look`, and the words: a look no shot
    has now (so the phrase names none), or None."""
    from nodes.models.grammar import FRAMING_WORDS, LIGHTING_WORDS, WEATHER_WORDS

    for match in _SHOTS_BY_LOOK.finditer(text):
        look = match["look"] or match["one"]
        if any(re.fullmatch(rf"(?:{p})", look) for table in (LIGHTING_WORDS, WEATHER_WORDS, FRAMING_WORDS)
               for p, _ in table):
            return look, match.group(0)
    return None


_COPY_THEN_PLACE = re.compile(
    r"\b(?P<copy>(?:duplicate|clone|copy|make (?:a |another )?copy of)\b[^,;]*?)\s*,?\s+(?:and |then |and then )+"
    r"(?:put|move|place|stick) (?:it|the copy|the duplicate|that)(?= (?:after|before|behind|following|ahead of|in "
    r"front of|at the|to the|as)\b)")
""""duplicate slide 2 and put it at the end": where the copy goes, said as a second step; read as two clauses,
"put it" was a move of a slide no one named (asked which)."""


def _copy_placed(text: str) -> str:
    return _COPY_THEN_PLACE.sub(lambda m: m["copy"], text)


_TOO_MUCH = re.compile(
    r"^\s*(?P<what>.+?) (?:(?:is|are|looks?|seems?|feels?) (?:(?P<degree>way|much|far|a bit|a little|slightly|just|a tad) )?too|"
    r"(?:shouldn't|should not|mustn't|must not) be (?:so|that|this|too)) (?P<how>big|large|huge|small|tiny|bold|heavy|"
    r"thin)\s*[.!]*\s*$")
""""the headline is too big", "the headline shouldn't be so big": the change is the opposite way.  Read as said,
"too big" made the headline bigger (twice), and "shouldn't be so big" gave it the words "so big"."""
_OPPOSITE = {"big": "smaller", "large": "smaller", "huge": "smaller", "small": "bigger", "tiny": "bigger",
             "bold": "thinner", "heavy": "thinner", "thin": "bolder"}


def _too_much_said_as_the_change(text: str) -> str:
    said = _TOO_MUCH.match(text)
    if said is None:
        return text
    degree = {"way": "much ", "much": "much ", "far": "much "}.get(said["degree"] or "", "a bit " if said["degree"] else "")
    return f"make {said['what']} {degree}{_OPPOSITE[said['how']]}"


_WARMED_UP = re.compile(r"^\s*(?P<verb>warm up|cool down)\s+(?P<what>[^,;.]+?)\s*[.!]*\s*$|"
                        r"^\s*(?P<verb2>warm|cool)\s+(?P<what2>[^,;.]+?)\s+(?P<particle>up|down)\s*[.!]*\s*$")
""""warm up shot 6", "cool the last shot down": a comparative said as a verb ("up" was left unread, and asked)."""


def _warmed_up(text: str) -> str:
    said = _WARMED_UP.match(text)
    if said is None:
        return text
    verb = said["verb"] or f"{said['verb2']} {said['particle']}"
    if verb not in ("warm up", "cool down"):
        return text
    return f"make {said['what'] or said['what2']} {'warmer' if verb == 'warm up' else 'cooler'}"


_ONE_VERB_TWO_KINDS = re.compile(
    r"\b(?P<verb>delete|remove|drop)\s+(?P<first>(?:the )?(?P<a>slide|shot)s? ?#?\d+)\s*(?:,\s*)?(?:and|&|plus)\s+"
    r"(?P<second>(?:the )?(?P<b>slide|shot)s? ?#?\d+)\b", re.IGNORECASE)
"""One verb for a slide and a shot ("delete slide 4 and shot 4")."""


_MAKE_SAID_ONCE = re.compile(
    r"^(?P<lead>\s*(?:(?:please|pls|ok|okay|now|(?:can|could|would|will) you)\s*,?\s+)*)(?P<verb>make)\s+"
    r"(?P<first>\S.*?)\s*,?\s+(?:and|&|plus)\s+"
    r"(?P<second>(?:the|this|my|our) (?:slide deck|deck|slides|presentation|slideshow|page|web ?page|website|site|"
    r"landing page)\s+\S.*)$", re.IGNORECASE)
""""make shot 3 night and the deck dark": a second kind of output said after "and" with its own change, the verb
said once."""


def each_with_its_verb(text: str) -> str:
    """A slide and a shot under one verb, each given the verb: the request's parts are of two families, each read by
    its own family's reader (``pipeline._across_families``), which needs a verb ("delete shot 4" then takes the shot
    out of the cut, as it does alone).  So too "make shot 3 night and the deck dark": "make the deck dark" (each part
    must still read on its own, else the request is asked about as before).  Works on the request as typed (case
    kept)."""
    made = _MAKE_SAID_ONCE.match(text)
    if made is not None and not re.search(r"\b(?:and|&|plus)\b", made["second"], re.IGNORECASE):
        return f"{made['lead']}{made['verb']} {made['first']} and {made['verb']} {made['second']}"
    said = _ONE_VERB_TWO_KINDS.search(text)
    if said is None or said["a"].lower() == said["b"].lower():
        return text
    return (f"{text[:said.start()]}{said['verb']} {said['first']} and {said['verb']} {said['second']}"
            f"{text[said.end():]}")


_SHORTHAND = ((re.compile(r"\babit\b"), "slightly"), (re.compile(r"\bnite(time)?\b"), "night\\1"),
              (re.compile(r"\b(can|could|would|will|do|did|thank) u\b"), "\\1 you"))


def typed_shorthand(text: str) -> str:
    """Words typed short, said in full before typos are corrected ("abit", "nite", "can u": each was left unread
    and asked about).  Word for word, one for one: the request's own words are found again by their places
    (``readers.base.typed``), so a title keeps what was typed."""
    for pattern, said in _SHORTHAND:
        text = pattern.sub(said, text)
    return text


_RUN_TOGETHER = re.compile(r"\b(?P<noun>shots?|slides?|images?|pictures?|clips?|scenes?|frames?)(?P<number>#?\d+)"
                           r"(?![a-z0-9@_/]|\.[a-z0-9]|-[a-z])", re.IGNORECASE)
"""A number typed against its noun ("make shot3 night", "delete slide4", "shots3 and 4"): the readers read "shot 3".
Only after these nouns, so "mp3", "h264" and "4k" are no shot; "screenshot3" is no shot 3 (no word starts there),
nor are "shot3a", "slide4.png" and "shot3@studio.com"."""
_WRITES_WORDS = re.compile(
    r"[:\"“”→]|->|=>|(?<![a-z0-9])'|\b(?:about|rename[sd]?|renaming|retitle[sd]?|retitling|call|calls|called|titles?|"
    r"titled|name|names|named|bullets?|headlines?|taglines?|headings?|subheadings?|subtitles?|buttons?|say|says|saying|"
    r"said|read|reads|text|caption|captions|copy|words?|add|adds|insert|append|include|includes|new|notes?|mention\w*|"
    r"cover|covers|covering|contain\w*|describ\w*|topic|write|writes|written|replace|replaces|showing|shows|fonts?|"
    r"typeface|prompt|labels?|labelled|labeled|quote|story|premise|brief|pictures?|pics?|photos?|illustrat\w*|"
    r"drawings?|draw|draws|redraw\w*|artwork|graphics?)\b", re.IGNORECASE)
"""Words that begin new words a request writes (a title, a bullet, a topic, a picture's prompt, a quote): a number
run together with its noun inside them is the person's own ("rename slide 2 to Slide3 recap", "swap the picture on
slide 2 with a Shot3 still")."""


def writes_words(text: str) -> bool:
    """Whether ``text`` begins new words a request writes (:data:`_WRITES_WORDS`: a title, a topic, a prompt), whose
    numbers and names are the person's own."""
    return _WRITES_WORDS.search(text) is not None


def numbers_apart(text: str, *, always: bool = False) -> str:
    """``text`` with "shot3" / "slide4" / "shots3" said as "shot 3" / "slide 4" / "shots 3", when the request writes
    no new words (:data:`_WRITES_WORDS`; ``always``: regardless).  It adds words, so the request's own words are
    found again by their places only with the same split made in them (``readers.base.typed``); and a reading that
    writes one of the split words all the same is not taken (:func:`split_words_written`)."""
    if not always and writes_words(text):
        return text
    return _RUN_TOGETHER.sub(lambda m: f"{m['noun']} {m['number']}", text)


def split_words_written(text: str, written: Sequence[str]) -> bool:
    """Whether new words a reading writes (``written``: its clauses' words) hold a number :func:`numbers_apart` split
    from its noun in ``text`` (the request as typed): "change the hero to Shot3 Studio" drew '3 Studio'.  The words
    were the person's own, and the request is read as typed."""
    for said in _RUN_TOGETHER.finditer(text):
        number = re.escape(said["number"].lstrip("#"))
        noun = re.escape(said["noun"].lower())
        if any(re.search(rf"(?<![\w]){number}(?!\w)", w) or (" " in w.strip() and re.search(rf"\b{noun}\b", w.lower()))
               for w in written):
            return True
    return False


_COUNTED_LOOKS = r"(?:close[- ]?ups|closeups|(?:wide|long|medium|mid|tight|establishing)[- ]?shots|wide[- ]?angles)\b"
"""Looks said as things one counts ("2 close-ups", "3 wide shots"): after a number, how many, not which shot ("make
shot 3 night, 2 close-ups" made shot 2 a close-up)."""
_NOUN_LEFT_OUT = re.compile(
    r"\b(?P<first>shot #?\d+|the (?:\d+th|1th|first|last) shot) (?P<change>[a-z][a-z' -]*?) (?P<joint>and|but|,|, and) "
    r"(?P<second>#?\d+|the (?:\d+th|1th|first|last))(?= (?!(?:and|or|of|shots?|ones?|more|others?|times?|seconds?|"
    r"secs?|in|at|on|by|am|pm|o'?clock|morning|evening|afternoon|midnight|noon|tonight|today|tomorrow)\b)"
    rf"(?!{_COUNTED_LOOKS})[a-z])")
"""A second shot said without its noun, the change after it ("make shot 3 night and 4 dusk", "make the third shot
darker and the fifth lighter"): read as shot 3 again, it was asked about as two changes of one shot."""
_CUT_PLACES = (
    (re.compile(r"\b(?:make|have) (?P<shot>shot #?\d+) the (?:very )?(?P<end>last|final|first|1th|opening) (?:shot|one|clip)"
                r"(?: (?:of|in) the (?:cut|film|edit))?\b"), None),
    (re.compile(r"\b(?:open|start|begin)(?: the (?:cut|film|edit|movie))? (?:with|on) (?P<shot>shot #?\d+)\b"), "first"),
    (re.compile(r"\b(?:end|close|finish)(?: the (?:cut|film|edit|movie))? (?:with|on) (?P<shot>shot #?\d+)\b"), "last"),
    (re.compile(r"\b(?P<verb>swap|switch) (?P<shot>#?\d+ and #?\d+) (?=in the (?:cut|film|edit)\b)"), "swap"),
)
"""A shot's place in the cut said as what it is ("make shot 3 the last shot", "open with shot 8", "end on shot 3"),
and two shots swapped by their numbers alone ("swap 6 and 7 in the cut"): each was asked about."""


@lru_cache(maxsize=1)
def _looks() -> dict[str, list[str]]:
    """The look words the shot reader reads, by the aspect of the image each one sets (a comparative by what it
    measures: "darker" and "brighter" are one aspect, "warmer" another)."""
    from nodes.models.grammar import FRAMING_WORDS, LIGHTING_WORDS, RELATIVE_WORDS, WEATHER_WORDS

    aspects: dict[str, list[str]] = {}
    for aspect, table in (("lighting", LIGHTING_WORDS), ("weather", WEATHER_WORDS), ("framing", FRAMING_WORDS)):
        aspects[aspect] = [p for p, _ in table]
    for pattern, measured, _ in RELATIVE_WORDS:
        aspects.setdefault(f"relative {measured}", []).append(pattern)
    return aspects


@lru_cache(maxsize=1)
def _degree() -> str:
    from nodes.models.grammar import DEGREE_WORDS

    return "|".join(f"(?:{p})" for p, _ in DEGREE_WORDS)


@lru_cache(maxsize=None)
def _aspect(name: str) -> str:
    """The look words of one aspect ("weather", "lighting") as one alternation."""
    return "|".join(f"(?:{p})" for p in _looks()[name])


def _weather() -> str:
    return _aspect("weather")


_CLOCK_WORDS = r"(?:at|on|by|am|pm|o'?clock|morning|evening|afternoon|midnight|noon|tonight|today|tomorrow)\b"
"""Words after a number that make it a time of day ("..., 6 in the morning", "..., 2 at midnight", "..., 6 evening"),
not a shot: only the weather may follow "in (the)" there ("..., 4 in the rain")."""


@lru_cache(maxsize=1)
def _any_look() -> str:
    return "|".join(f"(?:{p})" for patterns in _looks().values() for p in patterns)


@lru_cache(maxsize=1)
def _at_a_time_of_day() -> str:
    """"at" before a time of day the shot reader reads as lighting ("..., 4 at dusk", "..., 4 at night"): the number
    before it is a shot.  Not before a clock time ("..., 4 at 6pm", "..., 4 at noon", "..., 4 at midnight": when,
    not which shot), and not before a look of another aspect."""
    return rf"at (?!{_CLOCK_WORDS})(?=(?:{_aspect('lighting')})\b)"


_SHOT_LIST = r"shots? #?\d+(?:(?:\s*,\s*|,? (?:and|&) |\s*[-–]\s*| (?:to|through|thru) )#?\d+)*"

_SHOTS_ALONE = rf"(?:the )?{_SHOT_LIST}|the (?:next|previous|last|final|first|1th) (?:one|shot)"
_ONE_MORE_SHOT = re.compile(rf"^\s*(?:and\s+)?(?:now|also)\s+(?P<do>do\s+)?(?P<shots>{_SHOTS_ALONE})\s*([.!]*)\s*$")
""""now shot 4", "also shot 4", "now do the next one" after a turn that changed shot 3, and nothing else: the last
change on these shots too, as "shot 4 too" is read (it asked "not what to change").  With no turn before to repeat
it still asks, as "shot 4 too" does."""


_ONE_MORE_SHOT_BUT = re.compile(rf"^\s*(?:and\s+)?(?:(?:now|also)\s+(?:do\s+)?)?(?P<shots>{_SHOTS_ALONE})\s*,?\s+but\s+"
                                r"(?P<rest>.+)$")
""""now shot 4 but darker", "also shot 4 but darker", "shot 4 but darker" after a turn that made shot 3 night: the last
change on shot 4 with the difference said, as "the same for shot 4 but darker" is read (each made shot 4 darker
alone, the night dropped)."""


def _one_more_shot(text: str) -> str:
    if (but := _ONE_MORE_SHOT_BUT.match(text)) is not None:
        return f"the same for {but['shots']} but {but['rest']}"
    said = _ONE_MORE_SHOT.match(text)
    return text if said is None else f"{said['do'] or ''}{said['shots']} too{said[3]}"



@lru_cache(maxsize=1)
def _noun_left_out_in_a_list() -> re.Pattern[str]:
    """A second shot said without its noun after a comma ("make shot 3 night, 4 dusk", "make shots 3 and 4 night,
    5 dusk", "set shot 3 to night, 4 to dusk"), a comma with no space ("night,4 dusk") or a full stop ("night. 4
    dusk"): only where the number is followed by a look the shot reader reads ("dusk", "a bit warmer", "at dusk"),
    or by "too" that ends the request ("make shot 3 night, 4 too": the same change), so that "..., 4 seconds long",
    "..., 4 times", "..., 4 of them dusk", "..., 2 close-ups", "..., 6 to midnight", "..., 4 at 6pm" and "..., 4
    too?" are no shot 4."""
    return re.compile(
        rf"\b(?P<first>{_SHOT_LIST}|the (?:\d+th|1th|first|last) shot) (?P<change>[a-z][a-z' -]*?)"
        rf"(?P<joint>[,;] ?|\. |,? and |,? but )(?P<second>#?\d+(?:(?:,? and |, )#?\d+)*|the (?:\d+th|1th|first|last))"
        r"(?= (?:too|also|as well)\s*[.!]*\s*$|"
        rf" (?:{_at_a_time_of_day()}|(?!{_CLOCK_WORDS})(?!{_COUNTED_LOOKS})(?:to (?!{_CLOCK_WORDS}))?"
        rf"(?:in (?:the )?(?=(?:{_weather()})))?(?:(?:{_degree()}) (?:more )?)?)(?:{_any_look()})"
        r"(?:\s*[,;.!]|\s*$| and\b| but\b| please\b))")


_WORDS_OR_ANOTHER_KIND = re.compile(
    r"[:\"“”]|\b(?:about|rename|retitle|call|called|titled?|named|bullets?|headlines?|tagline|heading|button|say|says|"
    r"saying|reads?|text|caption|slides?|decks?|pages?|sections?|hero|theme|fonts?|notes?)\b")
"""Words that begin new words ("rename slide 2 to Night, actually dusk", 'add a slide titled "shot 3 night, 4 dusk"'),
or name an output that is no shot: the rewrites of a shot edit's words below are not made in them (the new words are
written as typed, found again by their places)."""


def _noun_given_back(text: str) -> str:
    for _ in range(8):  # a list: "make shot 3 night, 4 dusk and 5 foggy"
        said = (None if _WORDS_OR_ANOTHER_KIND.search(text) else _noun_left_out_in_a_list().search(text)) or \
            _NOUN_LEFT_OUT.search(text)
        if said is None:
            return text
        second = said["second"]
        second = f"the {second.split()[-1]} shot" if second.startswith("the ") else \
            f"shots {second}" if re.search(r"\d\D+\d", second) else f"shot {second}"
        text = f"{text[:said.start('second')]}{second}{text[said.end('second'):]}"
    return text


_LEFT_OUT_ALONE = re.compile(
    rf"^\s*(?:please )?leave (?:out (?P<out>{_SHOT_LIST}|the (?:\d+th|1th|first|last|final) shot)|"
    rf"(?P<shots>{_SHOT_LIST}|the (?:\d+th|1th|first|last|final) shot) out)(?: please)?\s*[.!]*\s*$")
""""leave shot 3 out" / "leave out shot 3", and nothing else: on a film, out of its cut ("leave shot 3 out of the
cut" is read so).  It was asked as what not to touch.  Anything after it ("out of it", "for now", "of the changes")
is not this; after a turn that changed shots, "out" may be out of that change (``pipeline`` asks)."""


def _left_out_of_the_cut(text: str) -> str:
    said = _LEFT_OUT_ALONE.match(text)
    if said is None:
        return text
    return f"leave {said['out'] or said['shots']} out of the cut"


_CORRECTION_MARK = (rf"(?:(?:no,? wait|wait,? no|no|nope|sorry|oops)(?:\s*[,.!:;]+\s*|\s+(?={CORRECTION_WORDS})))+"
                    rf"(?:{CORRECTION_WORDS}\s*[,:]?\s*)?|(?:no,? wait|nope)\s+|{CORRECTION_WORDS}\s*[,:]?\s*")
"""Words that take back what was just said ("no wait", "no,", "nope", "actually", "I mean", "sorry,"): "no" and
"sorry" only with a stop after them ("night, no rain" is no correction); "nope" negates nothing, so it needs none
("delete slide 2 nope 3")."""
_CORRECTED = re.compile(rf"(?<=[a-z])(?:\s*(?:\.{{2,}}|…|[,;:!.]|-+|—)\s*|\s+)(?P<mark>{_CORRECTION_MARK})"
                        r"(?:make (?:it|that|them) )?(?P<value>[a-z][a-z -]*?)(?:,? please)?\s*[.!]*\s*$")
_CORRECTION_WORDS = re.compile(rf"(?<=[a-z0-9])(?:\s*(?P<stop>\.{{2,}}|…|[,;:!.]|-+|—)\s*|\s+)(?P<mark>{_CORRECTION_MARK})"
                               r"(?=\S)")


def correction_words(text: str) -> re.Match[str] | None:
    """A correction in the middle of a request, with something after it: after a stop ("night, actually ...",
    "night... no wait, ..."), or right after a look ("night actually a close-up"); not an "actually" that says how
    ("can you actually make shot 3 night")."""
    for said in _CORRECTION_WORDS.finditer(text):
        if said["stop"] or re.search(rf"\b(?:{_any_look()})$", text[:said.start()]):
            return said
    return None


_NEGATED = re.compile(r"(?:not|no|never|without|less|non)\b")
"""A value that begins by negating ("not so dark", "no snow"): no correction this module resolves."""


def _corrected_value(text: str) -> str:
    """"make shot 2 night, no wait, dusk": the later value replaces the earlier, when both set the same aspect of
    the image (the lighting, the weather, the framing, or one comparative's measure) and the earlier is what was said
    just before the correction.  Two aspects ("night, actually a close-up") are left as said (``pipeline`` asks)."""
    said = _CORRECTED.search(text)
    if said is None or _WORDS_OR_ANOTHER_KIND.search(text) or not re.search(r"\b(?:shots?|images?|it|them)\b", text):
        return text
    before, value = text[:said.start()], said["value"]
    if _NEGATED.match(value):
        return text  # "..., no wait, not so dark", "..., actually no snow": a correction of a kind not read here
    degree = _degree()
    for patterns in _looks().values():
        look = "|".join(f"(?:{p})" for p in patterns)
        if not re.fullmatch(rf"(?:(?:{degree}) (?:more )?)?(?:a |an )?(?:{look})(?: shot)?", value):
            continue
        earlier = re.search(rf"\b(?:(?:a|an) )?(?:(?:{degree}) (?:more )?)?(?:{look})(?: shot)?$", before)
        if earlier is not None and (re.search(r"\b(?:not|no|never|without|nor|n't)\s*$", before[:earlier.start()])
                                    or _NEGATED.match(earlier.group(0))):
            return text  # "night, not dusk, no wait, dusk": the value said before is a negated one (asked)
        if earlier is not None:
            return f"{before[:earlier.start()]}{value}"
    return text


_TAKEN_BACK = re.compile(rf"\b(?:no|nope|wait|sorry|oops|{SAID_AGAIN})\b")
"""The words of a correction that take back what was said; "actually" alone may add to it ("remove shot 3 actually
shot 4" is asked: instead, or as well?)."""
_NUMBER_CORRECTED = re.compile(
    rf"\b(?P<noun>shot|slide|image|picture|clip|scene|section) #?\d+(?:\s*(?:\.{{2,}}|…|[,;:!.]|-+|—)\s*|\s+)"
    rf"(?P<mark>{_CORRECTION_MARK})(?:(?:the )?(?P=noun) )?#?(?P<number>\d+)\b(?: instead\b)?"
    r"(?!\s*(?:[,&+%]|-|–)|\s+(?:and|or|plus|more|of|times?|seconds?|secs?)\b|\s+(?:to|through|thru) (?:\w+ )?#?\d|"
    r"\.\d)")
"""A shot or slide's number, a correction right after it, and another number: "slide 2, no wait, 3" (not followed by
more numbers, a range or an amount: "..., 3 and 4", "..., 3 to 5", "..., 3 seconds").  An "instead" right after
the number is the correction's and goes with it ("delete slide 2, no wait, 3 instead" is "delete slide 3", not a
request to do otherwise than the last turn did)."""
_AS_WELL = re.compile(r"(?:(?![,;]|\b(?:and|then|but)\b).)*?\b(?:too|also|as well|aswell|both)\b")
"""Words after a corrected number, in its own part of the request, that add it to the one before ("delete slide 2, no
wait, 3 too", "make shot 2, no wait, 3 night as well"): as well, then, not instead ("..., 3 night and 4 too" adds 4)."""
_A_LIST_BEFORE = re.compile(r"(?:[,&+]|\b(?:and|or|plus|except|but|not)|(?:\d|\b(?:shots?|slides?|images?|pictures?|"
                            r"clips?|scenes?|sections?|1th|first|last|final|opening|\d+th))\s+(?:to|through|thru))"
                            r"\s*(?:the )?$")
"""A list, a range or an exception the corrected shot or slide ends ("slide 4 and slide 2, no wait, 3", "shot 1 to
shot 2, no wait, 3"): which is taken back?  A "to" after no shot or number is no range ("undo the last change to shot
2, no wait, 3")."""


@lru_cache(maxsize=1)
def _comma_then_a_last_look() -> re.Pattern[str]:
    """A shot's corrected number, then a comma and a look that ends the request ("make shot 2, i mean 3, night")."""
    look = rf"(?:(?:{_degree()}) (?:more )?)?(?:a |an )?(?:{_any_look()})(?: shot)?"
    return re.compile(rf"\b(?:shot|image|picture|clip|scene) #?\d+\W+(?:{_CORRECTION_MARK})(?:(?:the )?shot )?#?\d+"
                      rf"(?P<comma>\s*,)\s*{look}\s*[.!]*\s*$")


def _number_corrected(text: str) -> str:
    """"delete slide 2, no wait, 3" as "delete slide 3", "make shot 2, no wait, 3 night" as "make shot 3 night": a
    number taken back right after it is said is replaced by the one after the correction (it was asked, instead or
    as well).  A comma between that number and a look that ends the request ("make shot 2, i mean 3, night") is
    only a pause: the same request without it.  Not in a list ("slide 4 and slide 2, no wait, 3"), nor with more
    numbers after it ("..., no wait, 3 and 4"), nor with "too" after it (:data:`_AS_WELL`), nor in a request that
    writes words ("rename slide 2, no wait, 3 to Costs")."""
    paused = _comma_then_a_last_look().search(text)
    if paused is not None:
        unpaused = f"{text[:paused.start('comma')]}{text[paused.end('comma'):]}"
        corrected = _number_taken_back(unpaused)
        return corrected if corrected != unpaused else text
    return _number_taken_back(text)


def _number_taken_back(text: str) -> str:
    """:func:`_number_corrected` of a request with no pause before its last look."""
    said = _NUMBER_CORRECTED.search(text)
    if said is None:
        return _number_taken_back_after_its_change(text)
    if not _TAKEN_BACK.search(said["mark"]) or writes_words(text) or \
            _A_LIST_BEFORE.search(text, 0, said.start()) or _AS_WELL.match(text, said.end()):
        return text
    return f"{text[:said.start()]}{said['noun']} {said['number']}{text[said.end():]}"


@lru_cache(maxsize=1)
def _change_then_a_number_corrected() -> re.Pattern[str]:
    """A shot's number, the look asked of it, and a correction naming another number that ends the request ("make
    shot 2 night, no wait, 3", "make shot 2 a bit darker, sorry, shot 3")."""
    look = rf"(?:(?:to|at|in(?: the)?) )?(?:(?:{_degree()}) (?:more )?)?(?:a |an )?(?:{_any_look()})(?: shot)?"
    return re.compile(rf"\b(?P<noun>shot|image|picture|scene) #?\d+ (?P<change>{look})"
                      rf"(?:\s*(?:\.{{2,}}|…|[,;:!.]|-+|—)\s*|\s+)(?P<mark>{_CORRECTION_MARK})"
                      r"(?:(?:the )?(?P=noun) )?#?(?P<number>\d+)\s*[.!]*\s*$")


def _number_taken_back_after_its_change(text: str) -> str:
    """"make shot 2 night, no wait, 3" as "make shot 3 night": the one shot named, its look, and a correction that
    names another shot and ends the request (it was asked, instead or as well).  Only with no other number before
    it (which one is taken back?), not after "actually" alone, nor after "make that" alone ("make shot 3 night, make
    that shot 4": another "make", of what?), not after a time of the clock ("noon, no wait, 3": 3 pm?), and not in a
    request that writes words."""
    said = _change_then_a_number_corrected().search(text)
    if said is None or not _TAKEN_BACK.search(said["mark"].replace("make that", "")) or writes_words(text) or \
            re.search(r"\d", text[:said.start()]) or re.search(rf"\b{_CLOCK_WORDS}", said["change"]) or \
            _A_LIST_BEFORE.search(text, 0, said.start()):
        return text
    return f"{text[:said.start()]}{said['noun']} {said['number']} {said['change']}"


def _cut_places_said_plainly(text: str) -> str:
    for pattern, where in _CUT_PLACES:
        said = pattern.search(text)
        if said is None:
            continue
        if where == "swap":
            return f"{text[:said.start()]}{said['verb']} shots {said['shot']} {text[said.end():]}"
        end = where or ("last" if said["end"] in ("last", "final") else "first")
        place = "to the end" if end == "last" else "to the start"
        return f"{text[:said.start()]}move {said['shot']} {place}{text[said.end():]}"
    return text


_SIGN_OFF = re.compile(rf"(?:\s*[,.!]*\s*(?:\b(?:{POLITE_WORDS}|lol)|{EMOTICON}|{EMOJI}))+\s*[.!]*\s*$")
"""Polite words, a face or an emoji that end a request ("..., no wait, dusk, thanks", "leave shot 3 out pls", "...,
no wait, dusk 🙂"): the phrasings below are said of what comes before them, which ends there, and the words are given
back after (the readers take them as the fillers they are, and read no emoji)."""


def rephrased(text: str) -> str:
    """``text`` with each of this module's phrasings said the readers' way (of the words before a sign-off)."""
    signed = _SIGN_OFF.search(text)
    if signed is not None and signed.start() > 0:
        return _rephrased(text[:signed.start()]) + text[signed.start():]
    return _rephrased(text)


_PHRASINGS = (_lead_in_dropped, _left_by_number, _question_said_directly, _except_said_otherwise, _but_as_except,
              _shared_noun, _plainly, _one_more_shot, _placed_plainly, _copy_placed, _too_much_said_as_the_change,
              _warmed_up, _number_corrected, _corrected_value, _noun_given_back, _cut_places_said_plainly,
              _left_out_of_the_cut)
"""The rewrites :func:`rephrased` makes, in this order (each reads what the ones before it left)."""


def _rephrased(text: str) -> str:
    for phrasing in _PHRASINGS:
        text = phrasing(text)
    return text
