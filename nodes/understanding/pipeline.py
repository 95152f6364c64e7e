"""The interpreter: a request → one :class:`Intent`, with every word accounted for.

normalise (lower case, spelled numbers, typos corrected against the vocabulary and the canvas's titles) →
the domain readers in order (each splits its clauses and resolves its references on the canvas facts) →
full accounting: a content word no reader used makes the request a clarification that says what was and
was not understood.  Nothing here reads the canvas: the facts are given (``facts.read_facts``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from nodes.models.grammar import COLOURS, CONSTRAINT_WORDS, FRAMING_WORDS, LIGHTING_WORDS, RELATIVE_WORDS, WEATHER_WORDS
from nodes.understanding.facts import CanvasFacts
from nodes.understanding.intent import Clarification, Intent
from nodes.understanding.kinds import (
    CUT_OPERATIONS,
    OPERATION_KINDS,
    asks_removal,
    family_of,
    node_ids_named,
    titles_named,
    word_kinds,
)
from nodes.understanding.not_asked import not_asked_to_act
from nodes.understanding.readers import READERS, PreviousTurn, ReadContext
from nodes.understanding.rephrasings import (
    correction_words,
    each_with_its_verb,
    look_no_shot_has,
    numbers_apart,
    rephrased,
    said_like_another_shot,
    shots_by_look,
    split_words_written,
    typed_shorthand,
    writes_words,
)
from nodes.understanding.references import pinned_film
from nodes.understanding.text import (CORRECTION_WORDS, FILLERS, LOOK_EMOJI, NUMBER_VOCABULARY, Words,
                                      correct_typos, lower_words, spell_numbers)

COMMAND_WORDS = frozenset("""
make redo regenerate rebuild repair fix explore try note mark select reject undo revert restore compare
swap reorder remove delete insert add duplicate move list show many which what where how keep leave touch
except every each all other others rest last final first opening middle before after next previous same
shot shots image images clip clips cut slide slides deck page site hero headline button theme columns
section sections stale story drama film short storyboard website presentation lecture darker brighter
warmer cooler colder dimmer lighter bluer less blue wider closer tighter rain snow night dusk dawn noon
sunset sunrise golden moonlit neon foggy overcast cloudy candle candlelight noir warm cold cool neutral
character coat jacket outfit dress cloak scarf composition version versions turn changed change lighting
rainy raining rains stormy snowy snowing snowfall nighttime candlelit candlelit moonlight darken brighten zoom
zoomed pulled pull back push mention mentions talk about cover covers say says include contain wide-angle close-up closeup misty hazy sunny daylight midday twilight evening morning
take bring reset roll rollback restored reverted original earlier latest current newest older prior previous
yesterday today tonight afternoon ago minute minutes hour hours day days week weeks looked used whole entire
copy clone repeat shorten lengthen extend trim longer shorter seconds second secs duration length long
start beginning front end back position place order places positions swap switch between insert edit film
sequence timeline drop return put again
font fonts serif sans typeface spacing palette colour color title titles retitle rename bullet bullets
illustration picture photo section sections gallery menu testimonials contact bigger smaller larger
selection selected some contrast saturation sharpness even odd alternate numbered
tell know wonder wondering apart aside excluding exception save
deletion deletions removal addition insertion renaming retitling
size sizes sized weight bolder
including inclusive onwards onward beyond following starting
""".split()) | NUMBER_VOCABULARY


@lru_cache(maxsize=1)
def base_vocabulary() -> frozenset[str]:
    """The grammar's words, the readers' command words and the fillers: what a typo is corrected towards."""
    words: set[str] = set(COMMAND_WORDS) | set(FILLERS) | set(COLOURS)
    for table in (LIGHTING_WORDS, FRAMING_WORDS, WEATHER_WORDS, CONSTRAINT_WORDS):
        for pattern, _ in table:
            words.update(re.findall(r"[a-z]{3,}", pattern))
    for pattern, _, _ in RELATIVE_WORDS:
        words.update(re.findall(r"[a-z]{3,}", pattern))
    return frozenset(w for w in words if len(w) >= 3)


def normalise(request: str, facts: CanvasFacts, answer: str | None = None, *,
              apart: bool = True) -> tuple[str, list[tuple[str, str]]]:
    """Lower case, spelled numbers as digits, typos corrected, a few phrasings said the way the readers read them
    (``rephrasings``); returns the text and the corrections.

    "The night shots" and "the same lighting as shot 1" are read on the film the selection or the answer picks
    when the project holds several (the shot numbers they become are then read in that film).  ``apart``: "shot3"
    is read as "shot 3" (``rephrasings.numbers_apart``)."""
    text = typed_shorthand(lower_words(request))
    vocabulary = base_vocabulary() | frozenset(w for w in facts.story_words() if len(w) >= 3)
    corrected, corrections = correct_typos(text, vocabulary)
    said = rephrased(spell_numbers(numbers_apart(corrected) if apart else corrected))
    film = pinned_film(facts, answer, said)
    shots = [s for s in facts.shots if film is None or s.plan == film]
    return shots_by_look(said_like_another_shot(said, shots), shots), corrections


def interpret(request: str, facts: CanvasFacts | None = None, *, previous: PreviousTurn | None = None,
              answer: str | None = None, skills: Sequence[Any] = ()) -> Intent:
    """What ``request`` asks for on a project with these facts (none: an empty project)."""
    intent = _interpret(request, facts, previous=previous, answer=answer, skills=skills)
    if intent.clarification is not None and intent.clarification.reason == "unparsed":
        mixed = _across_families(request, facts, previous=previous, answer=answer, skills=skills)
        if mixed is not None:
            return mixed
    return intent


_FAMILY_SPLIT = re.compile(r"\s*(?:;|,?\s+and then\s+|,?\s+then\s+|,?\s+and also\s+|,?\s+and\s+|,\s+)\s*")


def _across_families(request: str, facts: CanvasFacts | None, **kwargs: Any) -> Intent | None:
    """A request whose clauses are about different kinds of output ("delete the last slide and undo the last change
    to shot 2"): each part read on its own, every word of each accounted for, and the clauses joined.  None unless
    the request splits into parts that each read cleanly and name at least two families; the slide and the shot
    numbers then cannot mean each other's things, so the undo's ambiguity rule within one family does not apply."""
    if re.search(r"(?:,\s*|\s)or\s", request, re.IGNORECASE):
        return None  # "use the dark theme, or make shot 3 night": a choice, not two changes (both were made)
    parts = [p for p in _FAMILY_SPLIT.split(each_with_its_verb(request)) if p.strip()]
    if not 2 <= len(parts) <= 4:
        return None
    read = [_interpret(part, facts, **kwargs) for part in parts]
    if any(r.clarification is not None or not r.clauses for r in read):
        return None
    if len({family_of(c.operation) for r in read for c in r.clauses}) < 2:
        return None
    if any(c.operation in ("question", "note", "status", "explore", "stale_repair") or c.operation.startswith("build")
           for r in read for c in r.clauses):
        return None
    intent = Intent(request=request, normalised=" and ".join(r.normalised for r in read),
                    corrections=[c for r in read for c in r.corrections], previous_turn=read[0].previous_turn,
                    clauses=[c for r in read for c in r.clauses])
    _describe(intent)
    return intent


def _interpret(request: str, facts: CanvasFacts | None = None, **kwargs: Any) -> Intent:
    """One reading of the request by the first reader that claims it; with a number typed against its noun ("delete
    slide4") read apart, unless the reading then writes a word of it ("change the hero to Shot3 Studio" drew '3
    Studio'): it is read as typed."""
    intent = _read(request, facts, **kwargs)
    if numbers_apart(lower_words(request), always=True) != lower_words(request) and \
            split_words_written(request, _words_written(intent)):
        return _read(request, facts, apart=False, **kwargs)
    return intent


def _words_written(intent: Intent) -> list[str]:
    """The strings of a reading's clauses' arguments and modifications (new words, prompts, names), but for the
    change an undo names ("the last change to slide 4")."""
    found: list[str] = []

    def walk(value: Any, key: str = "") -> None:
        if isinstance(value, str):
            if key != "change":
                found.append(value)
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(v, str(k))
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v, key)

    for clause in intent.clauses:
        walk(clause.args)
        walk(clause.modifications)
    return found


def _read(request: str, facts: CanvasFacts | None = None, *, previous: PreviousTurn | None = None,
          answer: str | None = None, skills: Sequence[Any] = (), apart: bool = True) -> Intent:
    """One reading of the request by the first reader that claims it."""
    facts = facts or CanvasFacts()
    previous = previous or PreviousTurn()
    note_like = bool(re.match(r"^\s*(?:add a |take a |make a |write a )?note\b", request, re.IGNORECASE))
    if note_like:
        text, corrections = spell_numbers(lower_words(request)), []
    else:
        text, corrections = normalise(request, facts, answer, apart=apart)
    intent = Intent(request=request, normalised=text, corrections=corrections, previous_turn=previous.turn_id)
    if not text.strip():
        intent.clarification = Clarification(reason="unparsed", message="The request is empty.")
        return intent
    if not note_like and (asked := _asked_before_reading(request, text)) is not None:
        intent.clarification = asked
        _describe(intent)
        return intent
    ctx = ReadContext(request=request, words=Words(text), facts=facts, previous=previous, answer=answer,
                      skills=skills)
    for reader in READERS:
        reading = reader.read(ctx)
        if reading is None:
            ctx.words = Words(text)  # a reader that declines leaves the words untaken for the next
            continue
        intent.clauses = reading.clauses
        intent.unused = ctx.words.unused()
        intent.clarification = reading.clarification
        if intent.clarification is None and intent.unused:
            intent.clarification = _partial(intent)
        break
    else:
        unread = Words(text).unused()
        intent.unused = unread
        intent.clarification = Clarification(
            reason="unparsed", not_understood=unread,
            message=("I did not understand that request, and I never guess another edit instead. I can: make a "
                     "story (\"a 6-shot short drama about ...\"), a web page from a brief, a slide deck on a topic, "
                     "notes, questions about the canvas, and edits of shots (lighting, framing, weather, outfit, "
                     "'darker', 'warmer'). Or set OPENAI_API_KEY to use a real model."))
    if intent.clarification is None and not note_like and any(
            c.operation not in _NO_CHANGE for c in intent.clauses):
        # a check, a comment, a report or a musing read as the change it names ("shot 3 is night?" made it night);
        # a question the question reader answered ("shot 2 is at dusk, right?") changes nothing and stays
        intent.clarification = not_asked_to_act(text, request)
    if intent.clarification is None and not note_like:
        intent.clarification = _instead_of_the_last_turn(intent, previous) or _both_said_of_one(intent) or \
            _the_change_said_not(intent) or _corrected_and_kept(intent) or _left_out_of_what(intent, previous) or \
            _a_look_drawn(intent)
    if intent.clarification is None:
        intent.clarification = _everything_on_a_mixed_canvas(intent, facts) or _the_copy_after_a_duplicate(intent)
    elif intent.clarification.reason in ("no_target", "unparsed") and (look := look_no_shot_has(text)) is not None:
        # "make the dusk shots warmer" with no shot at dusk: "dusk" was read as the change, and the question was
        # which shot "it" means
        intent.clarification.message = (f"No shot looks '{look[0]}' now, so '{look[1]}' names none; I changed "
                                        "nothing. Name the shots ('shots 2 and 5'), or ask which shots are "
                                        f"'{look[0]}' ('which shots are at night?').")
    _describe(intent)
    if intent.corrections and intent.clarification is not None:
        intent.clarification.message = f"{intent.clarification.message} {intent.read_as()}"
    return intent


_BARE_INSTEAD = re.compile(r"\binstead\b(?!\s+of\b)")


def _instead_of_the_last_turn(intent: Intent, previous: PreviousTurn) -> Clarification | None:
    """"delete slide 4 instead", after a turn that deleted slide 5: slide 4 was deleted and slide 5 stayed deleted.
    "Instead" takes the last turn's change back, which no clause of a deck or page reading does (the shot reader
    asks the same of shots)."""
    if not previous.clauses or _BARE_INSTEAD.search(intent.normalised) is None:
        return None
    ops = [c.operation for c in intent.clauses]
    if not any(op.startswith(("deck_", "page_")) for op in ops) or any(
            op.endswith(("_undo", "_revert")) for op in ops):
        return None
    return Clarification(
        reason="ambiguous", understood=[u for c in intent.clauses for u in c.understood],
        message=f"Instead of the last turn's change ('{previous.request[:60]}')? I can undo that ('undo that') and "
                "then make this one, or make this one and keep that (say it without 'instead'). I changed nothing.")


_BOTH = re.compile(r"\bboth\b(?!.{0,60}\b(?:and|&)\b)")
_CONTAINERS = ("deck", "page", "film", "position")
"""Target kinds that hold the parts a request names (a slide's deck, a shot's film), not parts themselves."""


def _both_said_of_one(intent: Intent) -> Clarification | None:
    """"use a serif font on both", with a page and a deck, set the page's font alone: "both" names two things and
    the reading changes one.  ("make shot 3 both night and rainy" says both of two changes.)"""
    writes = [c for c in intent.clauses if c.operation not in _NO_CHANGE]
    if len(writes) != 1 or (both := _BOTH.search(intent.normalised)) is None:
        return None  # two clauses ("delete both sections") are two things
    if len({t.id for t in writes[0].targets if t.kind not in _CONTAINERS}) > 1:
        return None
    named = next((t.title or t.id for c in writes for t in c.targets), "one thing")
    return Clarification(
        reason="ambiguous", understood=[u for c in writes for u in c.understood], not_understood=[both.group(0)],
        message=f"'both': I read this as a change to one thing ({named}), so I changed nothing. Name each one "
                "('the page and slide 4'), or say it of one.")


_NOT_THIS_WAY = re.compile(r"\bnot (?P<word>darker|dimmer|brighter|lighter|warmer|cooler|colder|bluer)\b")
_DIRECTION = {"darker": ("luma", "lower"), "dimmer": ("luma", "lower"), "brighter": ("luma", "higher"),
              "lighter": ("luma", "higher"), "warmer": ("warmth", "higher"), "cooler": ("warmth", "lower"),
              "colder": ("warmth", "lower"), "bluer": ("blue", "higher")}


def _the_change_said_not(intent: Intent) -> Clarification | None:
    """"make shot 5 less bright, not darker" made it darker: a change the request says not to make is the one the
    reading makes ("warmer, not cooler" says one change twice; "shot 6 not warmer" leaves shot 6 out)."""
    said = _NOT_THIS_WAY.search(intent.normalised)
    if said is None or re.search(r"\b(?:shots?|slides?|images?) #?\d+(?:\s*(?:,|and|&)\s*#?\d+)*\s*$",
                                 intent.normalised[:said.start()]):
        return None  # "... and shot 6 not warmer": shot 6 is left out
    what, way = _DIRECTION[said.group("word")]
    made = [c for c in intent.clauses if (c.modifications.get("relative") or {}).get(what) == way]
    if not made:
        return None
    return Clarification(
        reason="conflict", understood=[u for c in made for u in c.understood], not_understood=[said.group(0)],
        message=f"'{said.group(0)}': that is the change I read the request as making, so I changed nothing. Say the "
                "change once ('make shot 5 darker', or 'make shot 5 less saturated').")


def _corrected_and_kept(intent: Intent) -> Clarification | None:
    """A correction in the middle of a request that the rephrasings did not resolve ("make shot 2 night, actually
    make it a close-up", "make shot 2 night and shot 3 rainy, actually dusk"): instead of what came before, or as
    well?  Read with "actually" as a filler, both were made.  (A later value of the same aspect said just before it
    replaces the earlier one: ``rephrasings._corrected_value``.)"""
    writes = [c for c in intent.clauses if c.operation not in _NO_CHANGE]
    said = correction_words(intent.normalised)
    if not writes or said is None or _WORDS_WRITTEN.search(intent.normalised, 0, said.start()) or \
            re.search(r"[\"“”]", intent.normalised[:said.start()]):  # inside words written ('say "no, wait"')
        return None
    after = intent.normalised[said.start():].strip(" ,.!;:-")
    return Clarification(
        reason="ambiguous", understood=[u for c in writes for u in c.understood], not_understood=[after[:60]],
        message=f"'{after[:60]}': instead of what you said before it, or as well? I changed nothing. Say the request "
                "again with only what you mean ('make shot 2 a close-up', or 'make shot 2 night and a close-up').")


def _asked_before_reading(request: str, text: str) -> Clarification | None:
    """A wording that any reader would read as something else, asked about before the readers see it: each
    check names what it was read as before."""
    return _undone_by_a_prefix(text) or _onward(request) or _lettered(text) or _counted_in_a_list(text) or \
        _corrected_midway(text)


def _undone_by_a_prefix(text: str) -> Clarification | None:
    """"un-hide the testimonials" removed them, "un-full-bleed the hero" made it full-bleed: the readers read the
    word after the prefix."""
    if (undoing := _UNDOING.search(text)) is None:
        return None
    return Clarification(
        reason="unparsed", not_understood=[undoing.group(0)],
        message=f"I do not know '{undoing.group(0)}', and I never do the opposite instead, so I changed nothing. "
                "Say what it should become ('add a testimonials section', 'make the hero contained', 'undo the "
                "full-bleed change').")


def _onward(request: str) -> Clarification | None:
    """"make shots 6+ darker" made shot 6 darker, and "delete slides 4+" deleted slide 4 alone: the "+" was
    dropped."""
    if (onward := _ONWARD.search(request)) is None:
        return None
    return Clarification(
        reason="unparsed", not_understood=[onward.group(0)],
        message=f"'{onward.group(0)}': from there to the last? I changed nothing; say the range ('shots 6 to 8', "
                "'every slide from slide 4').")


def _lettered(text: str) -> Clarification | None:
    """"delete slide 3a" deleted slide 3, and "remove shot 3a" took shot 3 out: the letter was dropped."""
    if (lettered := _LETTERED.search(text)) is None or writes_words(text[:lettered.start()]):
        return None
    named = f"{lettered['noun']} {lettered['number']}"
    return Clarification(
        reason="not_found", not_understood=[lettered.group(0)],
        message=f"There is no {named}{lettered['letter']}: shots and slides are numbered 1, 2, 3 ..., so I "
                f"changed nothing. Say which one by its number ('{named}').")


def _counted_in_a_list(text: str) -> Clarification | None:
    """"delete slide 3, 2 of them" deleted slides 3 and 2, "redo shot 3, 2 more" took shot 2 again: a count read
    as one more number of the list."""
    if (counted := _COUNTED_IN_A_LIST.search(text)) is None or writes_words(text[:counted.start()]):
        return None
    said = counted.group("count")
    return Clarification(
        reason="ambiguous", not_understood=[said],
        message=f"'{said}': how many, or which ones? I changed nothing. Name each one by its number "
                f"('{counted['noun']}s 2, 3 and 5').")


def _corrected_midway(text: str) -> Clarification | None:
    """"make shot 3 night, actually shot 4" and "remove shot 3 actually shot 4" acted on both shots: the
    correction was read as one more shot."""
    corrected = _CORRECTED_MIDWAY.search(text)
    if corrected is None or not (corrected.group("unit") or _NUMBERED.search(text, 0, corrected.start())) or \
            _WORDS_WRITTEN.search(text, 0, corrected.start()):
        return None
    said = corrected.group("said").strip(" ,.!;:")
    return Clarification(
        reason="ambiguous", not_understood=[said],
        message=f"'{said}': instead of what you named before it, or as well? I changed nothing. Say the request "
                "again with only what you mean ('make shot 4 night').")

_DRAWN_AS = {
    **dict.fromkeys("🌙🌛🌜🌚🌃🌌", {"night", "moonlit"}),
    **dict.fromkeys("🌅🌇🌆🌄", {"dusk", "sunset", "dawn", "golden-hour"}),
    **dict.fromkeys("🌧☔", {"rain"}),
    **dict.fromkeys("❄🌨☃⛄", {"snow"}),
    **dict.fromkeys("🌫🌁", {"foggy"}),
    "☁": {"overcast"},
    "☀": {"noon", "clear"},
}
"""The looks an emoji draws: said beside the same look ("make shot 3 night 🌙") it adds nothing."""


def _a_look_drawn(intent: Intent) -> Clarification | None:
    """An emoji of the sky or the weather in a shot edit ("make shot 3 night 🌧️", "make shot 3 dusk 🌙"): it may be
    a look (a rainy night?) or an ornament, and no reader reads it, so the edit made the rest alone."""
    edits = [c for c in intent.clauses if c.operation == "edit"]
    drawn = LOOK_EMOJI.search(intent.request)
    if not edits or drawn is None:
        return None
    made = {v for c in edits for v in ((c.modifications or {}).get("changes") or {}).values()}
    if made & _DRAWN_AS.get(drawn.group(0), set()):
        return None  # "make shot 3 night 🌙": the emoji draws the look said
    return Clarification(
        reason="unparsed", understood=[u for c in edits for u in c.understood], not_understood=[drawn.group(0)],
        message=f"'{drawn.group(0)}': I read no emoji, and this one may be a look (the weather, the sky, the time of "
                "day); I changed nothing. Say it in words ('make shot 3 night and rainy'), or leave it out.")


_CUT_SAID = re.compile(r"\b(?:cut|edit|film|movie|sequence|timeline)\b", re.IGNORECASE)
_NOT_A_SHOT_CHANGE = frozenset({"question", "status", "note"})


def _left_out_of_what(intent: Intent, previous: PreviousTurn) -> Clarification | None:
    """"leave shot 3 out" with no cut said, after a turn that changed shots ("make every shot night"): out of the
    cut, or out of that change?  With no such turn before it, it is out of the cut (``rephrasings``)."""
    if not any(c.operation == "remove_from_cut" for c in intent.clauses) or _CUT_SAID.search(intent.request) or \
            not re.match(r"^\s*(?:please )?leave\b", intent.normalised):
        return None
    changed = [c.get("operation", "") for c in previous.clauses]
    if not any(op not in CUT_OPERATIONS and op not in _NOT_A_SHOT_CHANGE and family_of(op) == "story"
               and not op.startswith("build") for op in changed):
        return None
    named = " and ".join(t.title or t.id for c in intent.clauses for t in c.targets) or "the shot"
    return Clarification(
        reason="ambiguous", understood=[u for c in intent.clauses for u in c.understood],
        message=f"Leave {named} out of the cut, or out of the last change ('{previous.request[:60]}')? I changed "
                f"nothing. Say 'take {named} out of the cut', or 'undo the last change to {named}'.")


def _the_copy_after_a_duplicate(intent: Intent) -> Clarification | None:
    """A change after a duplicate, of the thing duplicated: "duplicate this slide and call it Hive basics 2" renamed the
    original, where "it" is most likely the new copy (which does not exist until the duplicate runs)."""
    def parts(clause: Any) -> set[str]:  # the slides and shots a clause names, not the deck or film they are in
        return {t.id for t in clause.targets if t.kind not in _CONTAINERS}

    copies = [c for c in intent.clauses if "duplicate" in c.operation]
    duplicated = set().union(*(parts(c) for c in copies)) if copies else set()
    later = [c for c in intent.clauses[1:] if "duplicate" not in c.operation and parts(c) & duplicated]
    if not duplicated or not later:
        return None
    return Clarification(reason="ambiguous", understood=[c.understood[0] for c in intent.clauses if c.understood][:2],
                         message="Which should the change after the copy go to: the original or the new copy? I "
                                 "changed nothing. Make the copy first, then change it by its number.")


_NO_CHANGE = frozenset({"question", "note", "status", "explore"})
"""Operations that write no change of the canvas's outputs."""
_UNDOING = re.compile(r"\bun-[a-z][a-z-]*")
"""A word made the opposite of another by a hyphened prefix ("un-hide"): never read as the word after it."""
_ONWARD = re.compile(r"\b(?:shots?|slides?|images?|clips?|sections?|frames?|scenes?)\s*#?\d+\s*\+(?!\s*\d)",
                     re.IGNORECASE)
"""A number with "+" after it ("shots 6+", "shots6+"): from it onward, which no reader reads."""
_CORRECTED_MIDWAY = re.compile(
    rf"(?<=[a-z0-9])(?P<said>[,.!;]?\s+(?:no[,.!]?\s+)?(?:{CORRECTION_WORDS}|rather|sorry|wait|oops|nope|correction)"
    r"[,.!:]?\s+(?:(?:just|only) )?(?P<unit>(?:the )?(?:shots?|images?|pictures?|slides?|clips?|scenes?|sections?) )?"
    r"#?\d+)\b")
"""A correction in the middle of a request, naming another shot or slide ("make shot 3 night, actually shot 4"):
the one named before it is replaced, not joined, which no reader reads.  A bare number ("..., actually 4") only
after a shot or slide said by its number (:data:`_NUMBERED`; "a 6-shot film. no wait, 8" is a story's length)."""
_COUNTED_IN_A_LIST = re.compile(
    r"\b(?P<noun>shot|slide|image|picture|clip|scene|section)s? #?\d+(?:\s*(?:,|and|&)\s*#?\d+)*\s*(?:,|,? and|"
    r",? &|,? plus)\s*(?P<count>\d+ (?:more|others?|of (?:them|those|these|its|the \w+)|or so)\b)")
"""A count said as the last item of a list of shots or slides ("delete slide 3, 2 of them", "remove shot 3, 4 more",
"make shots 3, 4 or so night"): read as one more number (slide 2, shot 4)."""
_LETTERED = re.compile(r"\b(?P<noun>shot|slide|image|picture|clip|scene|section)s? #?(?P<number>\d+)(?P<letter>[a-z])\b")
"""A shot or slide's number with a letter after it ("slide 3a", "shot 2b"): no shot or slide is numbered so, and
the readers read the number alone."""
_NUMBERED = re.compile(r"\b(?:shots?|images?|pictures?|slides?|clips?|scenes?|sections?) #?\d+\b")
_WORDS_WRITTEN = re.compile(r":|\b(?:rename|retitle|call|called|titled?|named|bullet|headline|tagline|heading|button|"
                            r"say|says|saying|reads?|text|caption)\b")
"""Words that begin new words ("add a bullet to slide 4: then wait 3 weeks", "rename slide 4 to Wait 10 days"): a
"wait" or an "actually" after them is the words' own (the content readers ask about a correction inside them)."""
_EVERYTHING = frozenset({"everything", "the whole thing", "all of them"})


def _everything_on_a_mixed_canvas(intent: Intent, facts: CanvasFacts) -> Clarification | None:
    """"Make everything darker", "revert everything to the original" on a canvas that holds a film and a deck or
    a page: the shot readers read "everything" as every shot, and the deck and the page were left as they were
    while the report said done.  Asked about, naming what the canvas holds."""
    said = {t.referred_as for c in intent.clauses for t in c.targets if t.kind in ("shot", "image")}
    if not (facts.decks or facts.pages):
        return None
    held = ["a film"] + (["a slide deck"] if facts.decks else []) + (["a web page"] if facts.pages else [])
    if said & _EVERYTHING:
        return Clarification(
            reason="no_target", understood=[u for c in intent.clauses for u in c.understood],
            message=(f"'Everything' on this canvas is {', '.join(held[:-1])} and {held[-1]}: I change one kind of "
                     "output at a time. Name it: 'every shot', 'the deck', 'the page'."))
    loose = sorted(s for s in said if _ANY_KIND.fullmatch(s))
    if not loose:
        return None
    # "make all the images warmer" changed the shots' images and not the slides' or the page's; "make the last
    # one brighter" picked the last shot: on a canvas of several kinds, the words name no one kind
    return Clarification(
        reason="no_target", understood=[u for c in intent.clauses for u in c.understood],
        message=(f"'{loose[0]}' on this canvas could be in {', '.join(held[:-1])} or {held[-1]}: I change one kind "
                 "of output at a time. Name it: 'the last shot', 'every shot', 'the last slide', 'the page'."))


_ANY_KIND = re.compile(r"(?:every|each|all(?: of)?(?: the)?|the) (?:images?|pictures?|photos?)|"
                       r"the (?:very )?(?:last|final|first|1th|opening|middle) one|the (?:last|first|1th)")
"""Words naming outputs of no one kind: the shot readers read them as shots."""


def _describe(intent: Intent) -> None:
    """The kinds of work, named titles and ids, and removal: what the grant and the view read."""
    understood = [kind for clause in intent.clauses for kind in OPERATION_KINDS.get(clause.operation, [])]
    intent.kinds = list(dict.fromkeys(understood)) if understood and intent.clarification is None \
        else word_kinds(intent.normalised)
    intent.titles = titles_named(intent.request, intent.normalised)
    intent.node_ids = node_ids_named(intent.request)
    intent.removal = asks_removal(intent.normalised)


def _partial(intent: Intent) -> Clarification:
    """Part of the request understood, part not: ask, naming both, and do nothing."""
    understood = [u for clause in intent.clauses for u in clause.understood]
    return Clarification(
        reason="unparsed", understood=understood, not_understood=list(intent.unused),
        message=(f"I understood {'; '.join(understood) or 'part of the request'}, but not "
                 f"{', '.join(repr(w) for w in intent.unused)}, so I changed nothing. Say it another way, or "
                 "leave that part out."))
