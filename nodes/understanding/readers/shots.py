"""Shot edits: clauses, each with its own targets and modifications, negation with scope, the previous turn.

The request is cut into segments at "and", "but", "then", commas and semicolons that are not inside a
reference ("shots 2 and 4" stays one).  Each segment's references and modifications are read; a segment
that names shots without saying what to change lends them to the next one ("change shot 2 and shot 4 to
night"), a segment with changes and no shots adds them to the clause before ("make shot 1 snowy and at
dusk") or, with a pronoun, to what it names ("make shot 4 darker, it feels too bright").  Negations take
their references out of the request's targets: "don't touch it", "shot 2 looks great", "except the last
shot", "but not shot 3", "leave shot 1 alone".
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from nodes.models.grammar import COLOURS, GARMENTS, STALE, EditRequest, read_constraints, read_edit, too_much_of_a_look
from nodes.understanding.intent import Clarification, Clause, Reference, Target
from nodes.understanding.readers.base import ReadContext, Reading
from nodes.understanding.references import (CHANGE_NOUNS, Found, Resolver, ambiguous_message, film_named,
                                             find_references)
from nodes.understanding.text import (EITHER_OR, INSTEAD_OF, POLITE_WORDS, Words, count_exception,
                                      either_or_question)

_SEPARATOR = re.compile(r"\s*(?:;|\.(?:\s|$)|,?\s*\band then\b|,?\s*\bthen\b|,?\s*\bbut\b|,?\s*\band\b|,?\s*\balso\b|"
                        r",?\s*\bwhile\b|,?\s*&|,?\s*\+|,|:)\s*")
_AND_SIGN = {"&": "and", "+": "and"}
""""make shot 4 night & shot 5 rainy": "&" and "+" join clauses as "and" does (both shots were made night and rainy)."""
_NEGATION_BEFORE = re.compile(r"(?:\bexcept(?: for)?|\bbut not|\bnot|\bapart from|\bother than|\bexcluding|\bsave for|"
                              r"\bskip(?:ping)?|\bwithout (?:changing|touching)|\bleaving( out)?|\bbesides)\s*$")
_KEPT_ITEM = (r"(?:(?:the )?(?:shots?|images?) #?\d+(?:\s*(?:-|–|to|through)\s*#?\d+)?|(?:shot )?#?\d+|"
              r"the (?:\d+th|1th|first|last|final) (?:shot|one|image)|"
              r"(?:all )?the (?:rest|others|other shots|other ones)|"
              r"it|this(?: one| shot)?|that(?: one| shot)?|the selected (?:one|shot|image))")
"""What a clause that only keeps shots names ("keep shot 3", "keep shots 3 to 5", "keep it", "keep the rest")."""
_NEGATION_IN = re.compile(
    r"\b(?:don'?t|do not|never|please don'?t) (?:touch|change|edit|alter|modify|regenerate|redo)\b|\bleave\b.*\b(?:alone|"
    r"as (?:it is|is|they are)|be|untouched|unchanged)\b|\bleave\b|\bkeep\b.*\b(?:as (?:it is|is|they are)|the same|"
    r"unchanged|untouched|as-is)\b|\blooks? (?:great|good|perfect|fine|right|nice|amazing)\b|\b(?:is|are) "
    r"(?:already )?(?:perfect|great|good|fine|right|done|nice)\b|\bstays? (?:the same|as (?:it is|is))\b|"
    r"\bno changes? (?:to|on)\b|\bhands off\b|"
    # "make shot 3 night, the others stay": the rest named as what stays (read as more shots to make night)
    r"\b(?:the (?:rest|others|other shots|other ones)|everything else|all the others) (?:should |can |will |must |shall )?"
    r"(?:stay|remain)s?\b(?: (?:unchanged|untouched|the same|put|as (?:it is|is|they are|they were)))?|\b(?:is|are) (?:ok|okay)\b|"
    # "and the rest as they are" (no verb): read as more shots to change, every shot was made night
    r"\bas (?:they are|it is|is|they were|it was)\b|"
    # "keep shot 3, make the rest night": a clause of its own that keeps the shots it names ("keep shot 3 and the
    # rest, make shot 4 night" made the rest night)
    rf"\bkeep (?={_KEPT_ITEM}(?:\s*(?:,|and|&)\s*{_KEPT_ITEM})*\s*$)")
_DO_SAME = re.compile(r"\b(?:do|apply|make) (?:the same|that|it)(?: (?:thing|change|edit))?(?: again)?"
                      r"(?: (?:to|on|for|with))?\b|"
                      # "repeat that on shot 5", "copy that to shot 5": the last change, not a copy of shot 5
                      r"\b(?:repeat (?:the same|that|it|this)|copy (?:the same|that|this))(?: (?:thing|change|edit|look))?"
                      r"(?: again)?(?: (?:to|on|onto|for|with))?\b|\bsame (?:thing|change|edit)(?: (?:to|on|for))?\b|\bagain\b|"
                      r"\blikewise\b|\bas well\b|\b(?:too|also)\b(?=(?:\s*[,.!]*\s*" + POLITE_WORDS + r")*\s*[.!]*$)|"
                      r"(?:\bthe |^\s*)same (?:for|with|to|on)\b")
"""The last change said again: "do the same to shot 5", "shot 4 too" (at the end, or before a polite word or a stop:
"shot 4 too please" asked "not what to change")."""
_A_COUNT = re.compile(r"\band (?:\d+|a couple|a few|some|several) (?:others?|other shots?|more)(?: shots?)?\b|"
                      r"\b\d+ but one\b")
"""Shots said by a count ("shot 3 and two others" changed every shot; "shot 5 and 2 more" shot 2)."""
_AMONG = re.compile(r"\b(?:both|either)\b(?!\s+(?:of\s+)?(?:shots?\s+)?#?\d)|\b(?:one|all|two|each) of them\b|"
                    r"\bthe (?:1th|2th|first|second|other|former|latter) one\b|\bthe (?:former|latter)\b")
"""Shots said by their place among the shots named before ("make shot 2 night and shot 5 dusk, then make both
rainy" made shot 5 alone rainy)."""
_EVERY_OTHER = re.compile(r"\bevery other (?:shot|one)\b")
"""Every second shot, or every shot but those named? Beside another set ("leave shot 3 alone and make every other
shot night"), it was every second shot."""
_NEGATION_BEFORE_ANY = re.compile(r"\b(?:not|except|apart from|other than|leave|keep|but)\b|\b(?:is|are) (?:perfect|fine|"
                                  r"good|great|ok|okay)\b")
_DEGREE_APART = re.compile(
    r"(?:,\s*(?:but\s+)?|\s+but\s+|\s+by\s+)(?:only\s+)?(?:just\s+)?(?:by\s+)?(?:slightly|a little|a bit|a lot|a tad|a touch|much more|way more|"
    r"even more|more so|lots|a great deal)\s*[.!]*\s*$|(?:\band|,)\s+shot \d+ (?:slightly|a little|a bit|a lot|a tad|"
    r"even more|more so|much more)\b(?!\s+\w+er\b)(?!\s+(?:more|less)\b)")
"""A degree said apart from its comparative ("darker, but only slightly", "and shot 4 slightly")."""
_LOOK_OF_WEATHER = re.compile(
    r"\b(?:light|lighter|heavy|heavier|thin|thinner|thick|thicker|gentle|gentler|soft|softer|denser|dense)"
    r"\s+(?:rain|snow|fog|mist|drizzle)\b|\b(?:rain|snow|fog|mist)\b[^,.;]*?\b(?:lighter|heavier|thinner|thicker|"
    r"gentler|softer|denser|lighter)\b")
"""How much rain, snow or fog ("light rain", "make the fog lighter"): no look of the tables (lighter was read as
brighter)."""
_AS_FAR_AS_IT_GOES = re.compile(
    r"\b(?:as (?:dark|dim|bright|light)(?:er)?|(?:dark|dim|bright|light)(?:en|er)?[^,.;]*?\bas (?:much|far)) as "
    r"(?:you (?:can|could)|possible|it (?:can|could|will) (?:get|go|be)|it gets|can be|we can|i can)\b")
""""make shot 1 as dark as you can": the most a comparative goes, which no step says (it went one step; "as dark as
possible" asked about "possible")."""
_OUTPUT = (r"(?:its |their |the |that |this |shot \d+'s )?(?:final |finished |current |whole )?"
           r"(?:clips?|videos?|cut|film|movie|audio|sound|music|soundtrack|narration|voice(?:-? ?over)?)")
_OUTPUT_KEPT = re.compile(
    rf"\b(?:keep|leave|preserve|don'?t (?:touch|change|redo|remake|regenerate)|do not (?:touch|change|redo|remake|"
    rf"regenerate)|not) {_OUTPUT}\b|\b(?:only|just) (?:the |its |their )?images?\b|\bimages? only\b|"
    rf"\bwithout (?:touching |changing |redoing |remaking |regenerating )?{_OUTPUT}\b|"
    r"\b(?:only|just)\b.*'s images?\b|\b(?:only|just) (?:in|on|to|for) (?:the |its |their )?images?\b")
"""An output made from the shot's image said to stay as it is ("make shot 3 night and keep the clip as is", "the
image only"): the edit remakes the clip and the cut from the new image, so the words were not kept (exit 0)."""
_EXCEPT_UNNAMED = re.compile(r"\b(?:except(?: for)?|but(?: not)?|apart from|other than|save for|besides|excluding)\s+"
                             r"(?:(?:that|the previous|the next)(?: one| shot| image)?|the same (?:one|shot|image))"
                             r"(?!\s*(?:'s|character|look|lighting|framing|weather|outfit|colou?rs?)\b)")
"""An exception said by a word that names no shot here ("make all shots night except that one": every shot was
made night, the words read as fillers)."""
_ODD_OR_EVEN = re.compile(r"\b(?:odd|even)(?:-numbered| numbered)? (?:shots|ones)\b")
_ALSO_AFTER = re.compile(r"\s*\balso\b\s*(?:,|;|$)")
_NOT_A_LOOK = re.compile(r"\b(?:not|never)\b")
"""In a segment whose only look was negated ("shot 6 not warmer"): that shot is left out."""
_STRAY = re.compile(r"\b(?:all|everything|shot|shots|ones?|the|character(?:'s)?|protagonist|please|light|lighting|"
                    r"looks?|version|time|day|angle|scene|frame|image|picture|colou?r|mood)\b")


_AND = re.compile(r"\band\b|\bplus\b|\bas well as\b|,")
_PLACE_BEFORE = re.compile(r"\b(?:in|on|for|of|at|to)\s*$")


_BESIDE_A_CHANGE_ALONE = frozenset(
    "even still bit little tad touch slightly much more way lot please pls plz now again too and then just make "
    "go thanks".split())
"""The words that may stand beside a change said of nothing ("even darker", "a bit warmer please")."""


def _a_change_alone(words: Words, beside: frozenset[str] = frozenset()) -> bool:
    """Whether the request is a change and nothing else: no words that may name shots ("make the dusk shots warmer"
    names shots by a look none has, and is not said of the selection); ``beside``: more words that may stand by it."""
    return all(words.used(s, e) or word in _BESIDE_A_CHANGE_ALONE or word in beside for word, s, e in words.tokens())


_CORRECTING = frozenset({"instead", "actually"})
_TAKEN_BACK_FIRST = re.compile(r"^\s*(no|nope|nah)\s*[,.!;:]+")
"""A leading "no," ("no, dusk"): with a stop after it, so that "no dusk" (none?) is not one."""


def _words_of_a_correction(ctx: ReadContext, edit: EditRequest) -> frozenset[str]:
    """The words that may stand beside a change alone that puts a look in place of the one the turn before set,
    with nothing selected ("dawn instead", "no, dusk", "actually dusk" after "make shot 3 night": shot 3 at dawn;
    each asked which shot).  None for a step ("no, darker": than the night, or than before it?), another aspect
    ("rainy instead": is the night kept?) or a shot selected (which one is corrected?): those still ask."""
    last = _previous_edit(ctx)
    if last is None or ctx.facts.selection or not edit.changes or edit.relative or edit.degrees or edit.redo or \
            not set(edit.changes) <= set(last.changes):
        return frozenset()
    taken_back = _TAKEN_BACK_FIRST.match(ctx.words.text)
    return _CORRECTING | ({taken_back[1]} if taken_back else set())


def _conjoined_pronouns(text: str, references: list[Found], named: list[Found]) -> list[Found]:
    """The pronouns of a group that name shots of their own beside the named ones: "make it and shot 5 night",
    "make it night and the next one too" (the selected shot was left out: the "it" of "make it snow in shot 1",
    which names nothing, was taken for every "it" beside a named shot).  A pronoun is one when the first named
    shot after it follows an "and" (or a comma), not a place word ("in shot 5")."""
    kept = []
    for pronoun in (f for f in references if f.reference.form == "pronoun"):
        after = [f for f in named if f.start >= pronoun.end]
        before = [f for f in named if f.end <= pronoun.start]
        if before and _LISTED_AFTER.fullmatch(text, before[-1].end, pronoun.start):
            kept.append(pronoun)  # "make shot 6 and it rainy": "it" was dropped, so its shot stayed dry
            continue
        if not after:
            continue
        between = text[pronoun.end:after[0].start]
        if (_AND.search(between) or re.search(r"\bthen\b", between)) and (
                not _PLACE_BEFORE.search(between) or _DO_SAME.search(between)):
            # "make it darker and do the same to shot 7": the "to" of "do the same to" is no place of "it" (the
            # selected shot was left dark)
            kept.append(pronoun)
    return kept


_LISTED_AFTER = re.compile(r"\s*(?:,\s*and|,|and|&|plus)\s*")
"""What stands between a named shot and a pronoun listed after it ("shot 6 and it")."""


_A_CHANGE = re.compile(rf"\b(?:the|my|your|that) (?:very )?(?:last|previous|latest|recent|first)(?: \d+)? "
                       rf"{CHANGE_NOUNS}\b|\bwhat (?:you|i) (?:undid|did|changed)\b")
"""An earlier change named by its place in the history ("redo the last change"), which no shot reference is."""


_RANGE_SAID = re.compile(r"\d\s*(?:-|–|to|through|thru)\s*(?:shot |scene )?\d")
_LISTED_AFTER_RANGE = re.compile(r"\d\s*(?:-|–|to|through|thru)\s*(?:shot |scene )?\d+\s*(?:,|and|&|or)")
"""A range with shots listed after it ("shots 1-3 and 5"): a shot named on its own is in it, so it is not carved."""
_COMPARED_WITH = re.compile(r"\b(?:than|(?<!\bwell )as|(?<!\bi )(?<!\bwe )(?<!n't )(?<!\bnot )(?<!\bd )(?<!\bdo )(?<!\bwould )like|"
                            r"to match|matching|the same as|as in|like in|"
                            # "make shot 4 a different lighting from shot 1" redid the lighting of both
                            r"(?:different|differently|differs?)(?: [a-z]+){0,3}? (?:from|to))\s+$")
"""Words before a reference that make it what a shot is compared with, not a shot to change."""
_A_LOOK_TAKEN = re.compile(
    r"\b(?:the|its|their|that|this|some|all the) (?:same |whole |overall |general )?(?:look|style|mood|feel|feeling|"
    r"vibe|atmosphere|aesthetic|tone|palette|grade|grading)\s+(?:of|from)\s+$|"
    r"\b(?:the|its|their|that|this|some|all the) (?:\w+ )?(?:colou?rs?|lighting|light|weather|rain|snow|fog|mist|sky|"
    r"framing|outfit|clothes|coat|jacket)\s+from\s+$")
"""A look said as another shot's ("the look of shot 1", "the rain from shot 5"), which no edit copies."""
_PLACE_OF_THE_LOOK = re.compile(r"\s*(?:for|to|in|on|into|onto)\s+$")
_A_CLAUSE_BETWEEN = re.compile(r"\band\b|\bthen\b|\bbut\b|[,;.]")


def _a_look_from_another_shot(text: str, found: list[Found]) -> tuple[Found, str] | None:
    """The shot named only as where a look comes from, with the words of the look: "give shot 3 the look of shot 1
    at night", "put the rain from shot 5 in shot 3" (shot 1 and shot 5 were changed with the shot meant).  It is
    the source when the shot that takes the look is named before it in the same clause, or after it with a place
    word ("... in shot 3"); "make the mood of shot 3 warmer" names the shot it changes."""
    for index, f in enumerate(found):
        look = _A_LOOK_TAKEN.search(text, 0, f.start)
        if look is None:
            continue
        taker_before = index > 0 and not _A_CLAUSE_BETWEEN.search(text, found[index - 1].end, look.start())
        taker_after = index + 1 < len(found) and _PLACE_OF_THE_LOOK.search(text, f.end, found[index + 1].start) \
            is not None and not _A_CLAUSE_BETWEEN.search(text, f.end, found[index + 1].start)
        if taker_before or taker_after:
            return f, look.group(0).strip()
    return None


_BARE_INSTEAD = re.compile(r"\binstead\b(?!\s+of\b)")


def _instead_of_the_turn_before(ctx: ReadContext, reading: Reading) -> Reading | None:
    """"make shot 5 night instead" after "make shot 3 night": the change belongs on other shots than the turn
    before gave it to, which editing shot 5 alone does not do (shot 3 stays night).  Asked about; on the same
    shots ("make it dusk instead") the new change simply replaces the old one."""
    if not _BARE_INSTEAD.search(ctx.words.text) or not ctx.previous.targets or reading.clarification is not None:
        return None
    moved = [t.title for c in reading.clauses for t in c.targets if t.id not in ctx.previous.targets]
    if not moved:
        return None
    return Reading(clarification=Clarification(
        reason="ambiguous", understood=[u for c in reading.clauses for u in c.understood],
        message=(f"Instead of the last turn's change ('{ctx.previous.request[:60]}')? I can undo that turn ('undo "
                 f"that') and then change {', '.join(moved)}; or change {', '.join(moved)} and keep it (say it "
                 "without 'instead'). Which one?")))


_I_MEANT = re.compile(r"^\s*(?:(?:no|nope|sorry|oops|wait|actually)[,.!]*\s+)*(?:i )?(?:meant|mean)\s+(?P<ref>[^,]+?)"
                      r"(?:,? not (?:on )?[^,]+?)?\s*[.!]*\s*$|"
                      r"^\s*(?:(?:no|nope|sorry|oops)[,.!]*\s+)+(?P<ref2>shots? [\d ,and&]+?),? not (?:shots? )?[\d ,and&]+"
                      r"\s*[.!]*\s*$")
""""no, I meant shot 6" after "make shot 3 night": the last change belongs on another shot.  Read alone it named a
shot and no change ("not what to change; 'no', 'meant'"); it is the turn before's "instead", and asked as one."""


_AS_IT_WAS = re.compile(r"\b(?:back to |(?:just )?like )?(?:how|the way|what) (?:it|they|this|that|she|he) (?:was|were|"
                        r"used to be|looked|used to look)\b|\blike (?:it|they) (?:was|were|used to be|looked)\b|\b(?:as|like) (?:it|they) "
                        r"(?:was|were) (?:before|originally|at first|earlier)\b")
"""Going back to an earlier look, said as a look ("make it like it was but warmer"): no edit of the image sets it."""
_ONE_OF_THOSE = re.compile(r"\bthe (?:1th|first|2th|second|3th|third|last|final|other|latter|former) one\b")
""""make shots 4 and 6 night, and the second one rainy": the second of those named, or shot 2 of the film?  It was
read as the film's (shot 2 was made rainy)."""
_PLACE_LEFT_OUT = re.compile(r"\b(?:except(?: for)?|but not|not|apart from|other than|excluding|save for) (?:for )?the "
                             r"(?:very )?(?:1th|first|2th|second|last|final|middle|penultimate)(?: one| shot)?\b")
""""make shots 2-4 wide but not the first one": the first of the range, or of the film (shot 1, which the range
does not hold, so nothing was left out and all three were changed)?"""
_WITHOUT = re.compile(r"\b(?:shots?|ones|images?)\s+(?:without|with no|that (?:don't|do not|doesn't) have|that "
                      r"(?:aren't|are not|isn't|is not))\b")
""""make every shot without snow dusk": read as every shot, with the snow taken out of four of them."""
_SHOT_TO_SHOT = re.compile(r"\b(?:from )?(?:the )?shot #?\d+ (?:to|through|thru|till|until) (?:the )?shot #?\d+\b")
""""make shot 3 to shot 6 night" changed shots 3 and 6 (the "to" a filler), and "change shot 3 to shot 6 lighting"
redid the lighting of both: shots 3 to 6, or something of shot 3 given to shot 6?"""
_A_SHADE = re.compile(r"\b(?:(?P<compared>darker|lighter|brighter|deeper|paler|softer|richer|duller)|(?P<base>dark|"
                      r"light|bright|deep|pale|warm|cool|cold|icy|soft|rich|dull|muted|vivid|pastel|dusty|hot|baby|sky|"
                      r"royal|electric|neon|golden|burnt|faded))[- ]+(?:shade of\s+)?"
                      rf"(?:{'|'.join(COLOURS)})\b")
""""a darker red" coat: a shade of a colour, which darkened the whole shot and gave the coat plain red; with a
garment named, so is "a dark red coat" ("bright" brightened the shot, "warm" and "cool" set its lighting, "light"
was dropped)."""
_A_GARMENT = re.compile(rf"\b(?:{GARMENTS})\b")


_MORE_THAN_THE_OTHERS = re.compile(
    r"\beven (?:more |less |further )?\w+er\b|\beven more\b|\b(?:which|that|who) (?:should|must|shall|needs? to|has "
    r"to|is to) be\b|,?\s*but (?:shot|image) #?\d+ [\w ]+? instead\b")
"""A change of one shot said against the change of the others ("shot 4 even darker", "except shot 4 which should be
warmer", "but shot 4 warmer instead")."""


_SINGLE_SHOTS_LISTED = re.compile(r"^(?:shot|image|picture) #?\d+(?:\s*,\s*|,? (?:and|&) )(?:(?:shot|image|picture) )?"
                                  r"#?\d+")
"""Shots listed each with a singular noun or none ("shot 3, 4", "shot 3 and shot 4"), not "shots 3 and 4"."""
_JOINT = re.compile(r"\s*(?:,|&|and|, and)\s*")
"""All there is between two shots of a list ("shot 3 and the last shot")."""
_TO_WHAT = re.compile(r"\s+(?:to|into)\b")
"""The lighting said as what the verb changes it to ("change the lighting of shot 2 and shot 4 to night"): one
request."""


def _named_after_the_same(text: str, refs: list[Found], same: list[re.Match[str]]) -> bool:
    """Whether the first shot of a clause is said right after "the same for" ("same for shot 4 darker")."""
    return bool(refs) and any(m.end() <= refs[0].start and not text[m.end():refs[0].start].strip() for m in same)


_FIRST_OF_A_LIST = re.compile(r"^(?P<first>(?:shot|image|picture) #?\d+)\s*(?:,\s*(?:and\s+)?|(?:and|&)\s+)"
                              r"(?=(?:shot|image|picture) #?\d+)")
"""The first shot of a list that names each with its noun ("shot 4 and shot 5", "shot 4, and shot 5")."""


def _the_same_split_off(ctx: ReadContext, found: list[Found]) -> list[Found]:
    """``found`` with the first shot of a list said right after "the same for" parted from the others when a change
    follows the list: "same for shot 4 and shot 5 dawn" is the last change for shot 4 and dawn for shot 5 (the list
    was one reference, so both were made dawn and "the same" dropped).  "same for shots 4 and 5, but wide" is left
    whole: the list is what "the same" is for."""
    text = ctx.words.text
    parted = []
    for f in found:
        first = _FIRST_OF_A_LIST.match(f.reference.said)
        if first is None or f.reference.form != "number" or len(f.reference.numbers) < 2 or \
                not _named_after_the_same(text, [f], list(_DO_SAME.finditer(text))):
            parted.append(f)
            continue
        after = _SEPARATOR.search(text, f.end)
        if read_edit(ctx.words.copy(), f.end, after.start() if after else len(text)).empty:
            parted.append(f)
            continue
        rest = f.reference.said[first.end():]
        parted.append(Found(f.reference.model_copy(update={"said": first.group("first"),
                                                           "numbers": f.reference.numbers[:1]}),
                            f.start, f.start + len(first.group("first"))))
        parted.append(Found(f.reference.model_copy(update={"said": rest, "numbers": f.reference.numbers[1:]}),
                            f.start + first.end(), f.end))
    return parted


def _listed_after_a_redo(ctx: ReadContext, found: list[Found]) -> tuple[str, str, str] | None:
    """The verb, the first shot and the others of "redo shot 3, 4 dusk" (which made shots 3 and 4 dusk) or "redo shot
    3 and the last shot dusk" (which took shot 3 again and made shot 8 dusk): "redo shot 3" is a whole request
    (another take), so the change after the list may be for the others alone, or for all.  With a verb that says
    nothing alone ("make shot 3, 4 dusk") the list is all there is, and so with "shots" ("redo shots 3, 4 dusk") or
    with no change after it ("redo shot 3, 4": another take of each), or with the lighting changed "to" one ("change
    the lighting of shot 2 and shot 4 to night")."""
    if not ctx.facts.has_story:
        return None  # no shots: the reader says so
    text = ctx.words.text
    listed = [(f, f, f"shot {f.reference.numbers[0]}", " and ".join(f"shot {n}" for n in f.reference.numbers[1:]))
              for f in found if f.reference.form == "number" and len(f.reference.numbers) > 1
              and _SINGLE_SHOTS_LISTED.match(f.reference.said)]
    listed += [(f, g, f.reference.said, g.reference.said) for f, g in itertools.pairwise(found)
               if _JOINT.fullmatch(text, f.end, g.start)]
    for first, last, said, others in listed:
        verb = max((m.end() for m in _SEPARATOR.finditer(text, 0, first.start)), default=0)
        redo = read_edit(ctx.words.copy(), verb, first.start).redo
        # "to" one lighting after a list said as one ("change the lighting of shot 2 and shot 4 to night"); after two
        # shots said apart ("... of shot 2 and the last shot to night") the shot 2 was lit anew and shot 8 made night
        if (redo == "take" or (redo == "lighting" and not (_TO_WHAT.match(text, last.end) and first is last))) and \
                not read_edit(ctx.words.copy(), last.end, len(text)).empty:
            return re.sub(rf"^{POLITE_WORDS}\s+", "", text[verb:first.start].strip()), said, others
    return None


def _a_shade(text: str) -> str | None:
    """The words of a shade of a colour ("darker red"; "dark red" beside a garment), if any."""
    for shade in _A_SHADE.finditer(text):
        if shade.group("compared") or _A_GARMENT.search(text):
            return shade.group(0)
    return None


def _said_loosely(ctx: ReadContext, found: list[Found]) -> Reading | None:
    """A question instead of an edit for wordings that named other shots (or another change) than meant."""
    text = ctx.words.text
    message = None
    if (either := EITHER_OR.search(text)) is not None:
        message = either_or_question(either.group(0))
    elif (one := _ONE_OF_THOSE.search(text)) is not None and any(
            f.reference.form in ("number", "range") and len(f.reference.numbers) > 1 for f in found):
        message = f"'{one.group(0)}': of the shots named, or of the film? Name it by its number ('shot 6')."
    elif _RANGE_SAID.search(text) and (left := _PLACE_LEFT_OUT.search(text)) is not None:  # a range's place
        message = f"'{left.group(0)}': of the shots named, or of the film? Name it by its number ('except shot 4')."
    elif (without := _WITHOUT.search(text)) is not None:
        message = f"'{without.group(0)} ...': I pick shots by what they show ('the snowy shots'), not by what they " \
                  "do not. Name the shots ('shots 2, 4 and 6')."
    elif (span := _SHOT_TO_SHOT.search(text)) is not None and not any(
            f.start < span.start() and span.end() <= f.end for f in found):  # not within "every shot from ..."
        low, high = sorted(int(n) for n in re.findall(r"\d+", span.group(0)))
        message = f"'{span.group(0)}': shots {low} to {high}, or something of one given to the other? Say " \
                  f"'shots {low} to {high}', or what to give, as in 'give shot {high} the same lighting as shot {low}'."
    elif (shade := _a_shade(text)) is not None:
        message = f"'{shade}': I set an outfit colour from a list ({', '.join(COLOURS)}), not a shade of one, so I " \
                  "changed nothing. Name one of those colours ('a crimson coat', 'a navy coat')."
    elif (counted := count_exception(text)) is not None and found:
        message = f"'{counted.group(0)}' says how many to leave out, not which. Name them: 'all shots except " \
                  "shot 3', 'every shot but the last one'."
    elif (more := _MORE_THAN_THE_OTHERS.search(text)) is not None and len(found) > 1:
        # "make shot 3 darker and shot 4 even darker" darkened both alike; "every shot darker, but shot 4 warmer
        # instead" darkened shot 4 too; "all shots darker except shot 4 which should be warmer" warmed the others
        message = f"'{more.group(0).strip()}': one shot changed otherwise than the others in one request; I change " \
                  "each shot by the same step, so I changed nothing. Say each change on its own ('make shots 1-3 " \
                  "darker', then 'make shot 4 warmer')."
    elif (redone := _listed_after_a_redo(ctx, found)) is not None:
        verb, first, others = redone
        message = f"'{verb} {first}' alone, and the change after it for {others}; or that change for all of them? I " \
                  f"changed nothing. Say '{verb} {first} and make {others} ...', or 'make {first} and {others} ...'."
    elif (instead := INSTEAD_OF.search(text)) is not None and len(found) > 1:
        message = f"'{instead.group(0).strip()}': shall {instead.group('other').strip()} go back to how it was " \
                  "before? Say 'undo the last change to it' for that, and name only the shots to change ('make " \
                  "shot 3 night')."
    if message is None:
        return None
    ctx.words.take_all()
    spoken = re.sub(r"\b([123])th\b", lambda m: ("first", "second", "third")[int(m.group(1)) - 1], message)
    return Reading(clarification=Clarification(reason="ambiguous", understood=[f.reference.said for f in found],
                                               message=spoken))


def _meant_another(ctx: ReadContext) -> Reading | None:
    said = _I_MEANT.match(ctx.words.text)
    if said is None or not ctx.previous.request:
        return None
    ctx.words.take_all()
    other = (said.group("ref") or said.group("ref2")).strip()
    return Reading(clarification=Clarification(
        reason="ambiguous", understood=[f"the last turn's change ('{ctx.previous.request[:60]}') on {other}"],
        message=(f"Instead of the last turn's change ('{ctx.previous.request[:60]}')? I can undo that turn ('undo "
                 f"that') and then make the change on {other} (say it whole: '{ctx.previous.request[:60]}' with "
                 f"{other}); or make it on {other} as well and keep both ('the same for {other}'). Which one?")))


_ADDED_WEATHER = re.compile(r"^\s*add (?:some )?")
_AS_IT_IS = re.compile(r"\s+(?:is|are|was|were)\b")
"""After "as it" / "as they": "stay as it is" keeps a shot, it compares it with nothing."""
_BARE_EXCEPTION = re.compile(
    r"\b(?:except(?: for)?|but not|apart from|other than|excluding|save for|besides|not)\s+"
    r"(#?\d+(?:\s*(?:-|–|to|through|thru)\s*#?\d+)?(?:\s*(?:,|and|&|or|, and)\s*#?\d+"
    r"(?:\s*(?:-|–|to|through|thru)\s*#?\d+)?)*)\b(?!\s*(?:%|percent|seconds?|s\b|px|pixels?|x\b|times\b))")
_BARE_RANGE = re.compile(r"(\d+)\s*(?:-|–|to|through|thru)\s*#?(\d+)")


def _bare_exceptions(words: Words, found: list[Found]) -> list[Found]:
    """Numbers an exception names without saying "shot" ("every shot except 3", "all shots darker but not 2 or
    5"), read as shot numbers when the request names a set of shots to carve them from (a shot edit's only
    numbers otherwise are amounts, which its grammar reads)."""
    if not any(_carves(f.reference) and f.reference.domain != "slide" for f in found):
        return []
    bare = []
    for match in _BARE_EXCEPTION.finditer(words.text):
        start, end = match.span(1)
        if words.used(start, end):
            continue
        words.mark(start, end)
        said = match.group(1)
        # "except 2-4" is 2, 3 and 4 (its 3 and 4 were made dusk with the rest)
        spans = [range(min(int(a), int(b)), max(int(a), int(b)) + 1) for a, b in _BARE_RANGE.findall(said)]
        numbers = [n for part in spans for n in part] + [int(n) for n in re.findall(r"\d+", _BARE_RANGE.sub("", said))]
        bare.append(Found(Reference(said=said, form="number", numbers=list(dict.fromkeys(numbers))), start, end))
    return bare


def _carves(reference: Reference) -> bool:
    """Whether an exclusion takes shots out of this reference instead of contradicting it: "every shot", "the
    others", a range ("shots 1 to 5 except shot 3"), a span from a shot ("every shot from shot 3 but shot 5"), the
    odd or even shots and the first or last few name a set to carve from; a shot named on its own or in a list
    ("shots 2 and 3 but not shot 3") is asked about as a contradiction."""
    if reference.form in ("every", "others") or reference.position in ("from", "after", "before", "through",
                                                                         "odd", "even"):
        return True
    if reference.position in ("first", "last") and (reference.numbers or [1])[0] > 1:  # "the first three shots"
        return True
    return (reference.form == "number" and bool(_RANGE_SAID.search(reference.said))
            and not _LISTED_AFTER_RANGE.search(reference.said))


@dataclass
class _Segment:
    start: int
    end: int
    separator: str
    references: list[Found] = field(default_factory=list)
    negated: bool = False


@dataclass
class _Group:
    references: list[Found] = field(default_factory=list)
    edit: EditRequest = field(default_factory=EditRequest)
    text: list[str] = field(default_factory=list)
    again: bool = False
    """Whether its shots were named with "the same" (or "too") before any change of this request: the turn
    before's change is theirs, with the group's own on top of it ("same for shot 4 but darker")."""


def _segments(ctx: ReadContext, found: list[Found]) -> list[_Segment]:
    text = ctx.words.text
    cuts: list[tuple[int, int, str]] = []
    for match in _SEPARATOR.finditer(text):
        if any(f.start < match.end() and match.start() < f.end for f in found):
            continue
        word = match.group(0).strip(" ,")
        cuts.append((match.start(), match.end(), _AND_SIGN.get(word, word)))
    segments, at, separator = [], 0, ""
    for start, end, word in cuts:
        if start > at:
            segments.append(_Segment(at, start, separator))
        at, separator = end, word
    if at < len(text):
        segments.append(_Segment(at, len(text), separator))
    for segment in segments:
        segment.references = [f for f in found if segment.start <= f.start < segment.end]
    return segments


_ONLY = re.compile(r"\bonly\b")


def _changes_between_shots(ctx: ReadContext, segments: list[_Segment]) -> Reading | None:
    """A change said between two shots of one clause, with no "and" to part them: "make shot 3 rainy shot 4 night",
    "make shot 4 night / shot 5 rainy", "make shot 3 night with shot 4 rainy" gave every change to both shots.
    Which change goes to which shot is asked."""
    words = ctx.words
    for segment in segments:
        refs = segment.references
        if len(refs) < 2 or _NEGATION_IN.search(words.text, segment.start, segment.end):
            continue
        trial = words.copy()
        read_edit(trial, segment.start, segment.end)
        changes = {i for i in range(segment.start, segment.end) if trial.used(i, i + 1) and not words.used(i, i + 1)}
        for index, (one, other) in enumerate(itertools.pairwise(refs)):
            after = refs[index + 2].start if index + 2 < len(refs) else segment.end
            if _NEGATION_BEFORE_ANY.search(words.text, one.end, other.start) or _AND.search(words.text, one.end,
                                                                                            other.start):
                continue  # "every shot night except shot 3", "shot 3 night as well as shot 5"
            if changes & set(range(one.end, other.start)) and changes & set(range(other.end, after)):
                said = [one.reference.said, other.reference.said]
                return _ask(ctx, "ambiguous", said,
                            f"Which change goes to {said[0]} and which to {said[1]}? I changed nothing. Say each "
                            f"with 'and' ('make shot 4 night and shot 5 rainy'), or both shots first for the same "
                            "change ('make shots 4 and 5 night').")
    return None


class ShotReader:
    """Edits of shots' images (and "regenerate what is stale"), clause by clause."""

    name = "shots"

    def read(self, ctx: ReadContext) -> Reading | None:
        words, text = ctx.words, ctx.words.text
        if STALE.search(text):
            words.take_all()
            return Reading(clauses=[Clause(text=ctx.request, domain=self.name, operation="stale_repair",
                                           understood=["repair: regenerate what is stale"])])
        meant = _meant_another(ctx)
        if meant is not None:
            return meant
        kept = read_constraints(words, 0, len(text))  # "keep the rest" is a constraint, not a reference
        found = find_references(words)
        found = sorted(found + _bare_exceptions(words, found), key=lambda f: f.start)
        unclear = _said_unclearly(ctx, found)
        if unclear is not None:
            return unclear
        anchor = next((f for f in found if _COMPARED_WITH.search(text, 0, f.start)
                       and not _AS_IT_IS.match(text, f.end)), None)
        if anchor is not None:  # "make shot 1 darker than shot 2" made both darker
            words.take_all()
            return Reading(clarification=Clarification(
                reason="unsupported", understood=[f"compared with {anchor.reference.said}"],
                message=f"I cannot match a shot to another ('... than {anchor.reference.said}', '... like "
                        f"{anchor.reference.said}'): I change a shot's own look, step by step ('make shot 1 darker'), "
                        "or to a named look ('make shot 1 night')."))
        source = _a_look_from_another_shot(text, found)
        if source is not None:
            words.take_all()
            said = f"{source[1]} {source[0].reference.said}"
            return Reading(clarification=Clarification(
                reason="unsupported", understood=[f"a look from {source[0].reference.said}"],
                message=f"'{said}': I cannot take a look from one shot for another, so I changed nothing. I can give "
                        f"a shot another's lighting, weather, framing or outfit colour ('give shot 3 the same "
                        f"lighting as {source[0].reference.said}'), or a named look ('make shot 3 night')."))
        loose = _said_loosely(ctx, found)
        if loose is not None:
            return loose
        same = words.take(_DO_SAME)
        segments = _segments(ctx, _the_same_split_off(ctx, found))
        crossed = _changes_between_shots(ctx, segments)
        if crossed is not None:
            return crossed
        groups, exclusions = self._groups(ctx, segments, same)
        if any({"weather", "lighting"} & set(group.edit.changes) for group in groups):
            words.take(_ADDED_WEATHER)  # "add fog to shot 4": the weather or light it names is what it sets
        for group in groups:
            group.edit.keep = list(dict.fromkeys(group.edit.keep + kept))
            group.edit.understood += [f"keep: {k}" for k in kept if f"keep: {k}" not in group.edit.understood]
        if not groups and not exclusions:
            return None
        words.take(_ONLY)  # "make only shot 4 warmer", "shots 4 and 6 only": an edit changes only what it names
        reading = self._resolve(ctx, groups, exclusions, same)
        return _instead_of_the_turn_before(ctx, reading) or reading

    def _groups(self, ctx: ReadContext, segments: list[_Segment], same: list[re.Match[str]]
                ) -> tuple[list[_Group], list[Found]]:
        words = ctx.words
        groups: list[_Group] = []
        exclusions: list[Found] = []
        pending: list[Found] = []
        pending_again = False
        """Whether the pending shots were named with "as well" / "too" ("shot 7 as well, but wide"): their edit is
        the group's before them, and what follows is a change on top of it (it was the whole edit: rain dropped)."""
        lead: EditRequest | None = None
        kept_list = False
        """Whether the segment before kept the shots it named: a list goes on ("keep shot 3 and the rest")."""
        for index, segment in enumerate(segments):
            refs = list(segment.references)
            negated = list(_NEGATION_IN.finditer(words.text, segment.start, segment.end))
            for match in negated:  # it may hold the reference it negates ("leave shot 4 alone")
                words.mark(match.start(), match.end())
            before = [f for f in refs if _NEGATION_BEFORE.search(words.text[segment.start:f.start])]
            for f in before:
                start = segment.start + _NEGATION_BEFORE.search(words.text[segment.start:f.start]).start()
                words.mark(start, f.start)
            if negated:
                exclusions += refs
                read_constraints(words, segment.start, segment.end)
                words.take(_STRAY, segment.start, segment.end)
                kept_list = True
                continue
            exclusions += before
            refs = [f for f in refs if f not in before]
            edit = read_edit(words, segment.start, segment.end)
            if segment.separator == "but" and refs and edit.empty and groups and not edit.keep and any(
                    f.reference.form in ("every", "others") for f in groups[-1].references):
                exclusions += refs  # "every shot at dusk but the first one"
                continue
            if edit.empty and not edit.keep and refs and groups and _NOT_A_LOOK.search(words.text, segment.start,
                                                                                   segment.end):
                # "make shot 5 warmer and shot 6 not warmer": the look it is not to have was read as no change, and
                # shot 6 was made warmer with shot 5; it is left as it is
                exclusions += refs
                continue
            if edit.empty and not edit.keep and refs and kept_list and segment.separator in ("and", ""):
                exclusions += refs  # "keep shot 3 and the rest, make shot 4 night": the rest are kept too
                continue
            kept_list = False
            if edit.empty and not edit.keep:
                if refs:
                    pending += refs
                    # "shot 2 too", "shot 2 as well", and "shot 2 also," (whose "also" is read as a separator)
                    again = _DO_SAME.search(words.text, segment.start, segment.end)
                    following = segments[index + 1] if index + 1 < len(segments) else None
                    if again is not None and again.group(0).endswith(" it") and following is not None \
                            and following.separator in ("and", "") and following.references:
                        again = None  # "make it and shot 6 rainy": "it" is one of the shots made rainy
                    pending_again = bool(again or _ALSO_AFTER.match(words.text, segment.end))
                continue
            if edit.empty:  # constraints alone: they hold for the whole request
                lead = edit if lead is None else (lead.merged(edit) or lead)
                if refs:
                    pending += refs
                continue
            if not refs and not pending and groups and not any(f.reference.form == "pronoun" for f in refs):
                again = segment.separator in ("then", "and then") or bool(
                    _ONE_MORE_STEP.search(words.text, segment.start, segment.end))
                merged = _a_step_again(groups[-1].edit, edit, again) or groups[-1].edit.merged(edit)
                if merged is None:  # "warmer and also cooler": a conflict, reported on resolution
                    groups.append(_Group(references=list(groups[-1].references), edit=edit))
                else:
                    groups[-1].edit = merged
                continue
            if pending_again and pending and groups and segment.separator == "but":
                carried = groups[-1].edit.merged(edit)
                if carried is None:  # "shot 7 as well, but dry": both edits, a conflict asked about on resolution
                    groups.append(_Group(references=pending + refs, edit=groups[-1].edit))
                else:
                    edit = carried
            if pending_again and pending and groups and refs and segment.separator != "but":
                # "make shot 1 night, shot 2 too, and shot 3 dusk": shot 2 has shot 1's change, not shot 3's
                groups[-1].references += pending
                pending = []
            if pending_again and pending and refs and not groups:
                # "the same for shot 4, and make shot 5 dawn": shot 4 has the turn before's change, not shot 5's
                # (both were made dawn)
                groups.append(_Group(references=pending, edit=EditRequest(), again=True))
                pending = []
            again = not groups and ((pending_again and bool(pending)) or _named_after_the_same(words.text, refs, same))
            group = _Group(references=pending + refs, edit=edit, again=again)
            pending, pending_again = [], False
            groups.append(group)
        if pending:
            if groups:
                groups[-1].references += pending
            elif same:
                groups.append(_Group(references=pending, edit=EditRequest()))
            else:
                groups.append(_Group(references=pending, edit=EditRequest()))
        if lead is not None:
            for group in groups:
                group.edit = group.edit.merged(EditRequest(keep=lead.keep, understood=lead.understood)) or group.edit
            if not groups:
                groups.append(_Group(references=[], edit=lead))
        return groups, exclusions

    def _resolve(self, ctx: ReadContext, groups: list[_Group], exclusions: list[Found],
                 same: list[re.Match[str]]) -> Reading:
        film = film_named(ctx.facts, ctx.words.text, ctx.words.used)  # "shot 3 of the ferry film"
        if isinstance(film, tuple):
            ctx.words.mark(*film[1])
        resolver = Resolver(ctx.facts, ctx.previous.targets, ctx.answer, pronoun_follows_previous=True,
                            film=film[0] if isinstance(film, tuple) else None)
        mentioned: list[Target] = []
        missing: list[str] = []
        ambiguous: list[dict] = []
        unresolved: list[str] = []
        excluded: list[Target] = []
        for f in exclusions:
            result = resolver.resolve(f.reference, mentioned)
            f.reference.target_ids = [t.id for t in result.targets]
            excluded += [t for t in result.targets if t.id not in {e.id for e in excluded}]
            mentioned += result.targets
            missing += result.missing
            ambiguous += result.ambiguous
            if f.reference.form in ("pronoun", "selection") and not (result.targets or result.missing
                                                                     or result.ambiguous):
                # "make all shots night except it", nothing selected: the exception named nothing, and all were
                # changed ("the rest as they are" names nothing when read before the shots it is the rest of)
                unresolved += result.unresolved or [f.reference.said]
        clauses: list[Clause] = []
        understood: list[str] = []
        previous_edit = _previous_edit(ctx) if same or any(group.again for group in groups) else None
        for group in groups:
            edit = group.edit
            if edit.empty and same and previous_edit is not None:
                edit = previous_edit.merged(EditRequest(keep=edit.keep)) or previous_edit
            elif group.again and previous_edit is None:
                # "same for shot 5 but dusk" with no change before: dusk alone was made, "the same" dropped
                return _ask(ctx, "no_target", [u for u in understood if u], "I understood 'the same', but the turn "
                            "before made no shot edit I could repeat. Say what to change.")
            elif group.again:
                # "the same for shots 6 and 7, but wide", "same for shot 4 darker": the last change and this one (it
                # was this one alone, and the last turn's warmth was dropped); said of what the last change set ("but
                # at dusk"), this one
                edit = previous_edit.merged(edit) or EditRequest(
                    changes={**previous_edit.changes, **edit.changes}, relative={**previous_edit.relative,
                                                                                 **edit.relative},
                    degrees={**previous_edit.degrees, **edit.degrees}, redo=edit.redo or previous_edit.redo,
                    keep=edit.keep, understood=previous_edit.understood + edit.understood)
            targets: list[Target] = []
            context = list(mentioned)
            named = [f for f in group.references if f.reference.form != "pronoun"]
            if any(f.reference.form == "every" for f in named) and len(named) > 1:
                # "every shot" and another shot in one phrase ("every shot until shot 4"): the union is every shot,
                # which the other words said was not meant ("every shot from shot 3" changed all eight, exit 0).
                said = " and ".join(f"'{f.reference.said}'" for f in named)
                return _ask(ctx, "unparsed", [u for u in understood if u], f"I read {said} together and cannot tell "
                            "which shots you mean, so I changed nothing; name them ('shots 1 to 4', 'every shot from "
                            "shot 3', 'every shot except shot 2').")
            if any(f.reference.position in ("odd", "even") for f in named) and len(named) > 1:
                # "every other shot from shot 3" made shots 1, 3, 5 and 7 (the union of the two), exit 0
                said = " and ".join(f"'{f.reference.said}'" for f in named)
                return _ask(ctx, "unparsed", [u for u in understood if u], f"I read {said} together and cannot tell "
                            "which shots you mean, so I changed nothing; name them ('shots 3, 5 and 7', 'every other "
                            "shot', 'the even shots').")
            if named:  # "make it snow in shot 1": the shot named is the target, "it" names nothing more
                group.references = sorted(named + _conjoined_pronouns(ctx.words.text, group.references, named),
                                          key=lambda f: f.start)
            for f in group.references:
                result = resolver.resolve(f.reference, context)
                f.reference.target_ids = [t.id for t in result.targets]
                f.reference.candidates, f.reference.missing = result.ambiguous, result.missing
                missing += result.missing
                ambiguous += result.ambiguous
                unresolved += result.unresolved
                for target in result.targets:
                    if _carves(f.reference) and target.id in {t.id for t in excluded}:
                        continue
                    if target.id not in {t.id for t in targets}:
                        targets.append(target)
                # "shot 3 and the one before it": a place is counted from what this clause named before it too
                context += [t for t in result.targets if t.id not in {c.id for c in context}]
            correcting = _words_of_a_correction(ctx, edit)
            if not group.references and same and ctx.previous.targets:
                targets = resolver.resolve(Reference(said="the same", form="previous"), []).targets
            elif not group.references and len(groups) == 1 and not exclusions and (
                    ctx.facts.selection or ctx.previous.targets) and not edit.redo and _a_change_alone(ctx.words,
                                                                                                       correcting):
                if correcting:
                    ctx.words.take(_TAKEN_BACK_FIRST)  # "no, dusk": the "no" takes the night back
                # a change alone ("darker", "even darker"), said of nothing: what "make it darker" means, the
                # selection or else the shots the turn before changed (it asked which shot, "nothing is selected",
                # with one selected); "redo" alone may be the editor's redo of an undo, and still asks
                implied = Reference(said="it", form="pronoun")
                result = resolver.resolve(implied, [])
                implied.target_ids = [t.id for t in result.targets]
                group.references = [Found(implied, 0, 0)] if result.targets else []
                targets = list(result.targets)
                missing += result.missing
                ambiguous += result.ambiguous
            mentioned += targets
            understood += [f"target: {', '.join(t.title for t in targets) or 'none'}"] + edit.understood
            clauses.append(Clause(text=" ".join(group.text) or ctx.request, domain=self.name, operation="edit",
                                  targets=targets, references=[f.reference for f in group.references],
                                  modifications=edit.model_dump(exclude={"understood"}), exclusions=excluded,
                                  understood=[f"target: {', '.join(t.title for t in targets) or 'none'}",
                                              *edit.understood]))
        if not clauses:
            return _ask(ctx, "unparsed", [f"not: {t.title}" for t in excluded],
                        "You told me what not to touch, but not what to change.")
        explicit = [t for c in clauses for t in c.targets if t.id in {e.id for e in excluded}]
        if explicit:
            return _ask(ctx, "conflict", understood, f"You asked me to change {explicit[0].title} and not to touch it. "
                        "Which one do you mean?")
        if missing:
            where = ctx.facts.where
            return Reading(clarification=Clarification(
                reason="not_found", missing=missing, understood=understood,
                message=(f"There are no shots with images {where} yet; make a storyboard first."
                         if not ctx.facts.has_story else
                         f"There is no {', '.join(missing)} {where}"
                         + (f"; {unresolved[0]}." if unresolved else "."))))
        if ambiguous:
            return Reading(clauses=clauses, clarification=Clarification(
                reason="ambiguous", candidates=ambiguous, understood=understood, message=ambiguous_message(ambiguous)))
        if unresolved or any(not c.targets for c in clauses):
            said = unresolved[0] if unresolved else "it"
            changes = [u for u in understood if not u.startswith("target:")]
            if _A_CHANGE.search(ctx.words.text):  # "redo the last change": a change, not a shot, was named
                return _ask(ctx, "unsupported", changes,
                            "That names an earlier change, not a shot, and I cannot repeat or redo a change by its "
                            "place in the history. Say the change itself ('make shot 3 night'), or 'undo that' to "
                            "take back the last turn.")
            why = ("nothing is selected and no earlier part of the request names one" if not ctx.facts.selection
                   else "the request names none")
            return _ask(ctx, "no_target", changes,
                        f"I understood {', '.join(changes) or 'an edit'}, but not which shot '{said}' means: {why}. "
                        "Name it: 'shot 3', 'the last shot', 'the shot where ...', or select it on the canvas.")
        for clause in clauses:
            if EditRequest.model_validate(clause.modifications).empty:
                if same and previous_edit is None:
                    return _ask(ctx, "no_target", understood, "I understood 'the same', but the turn before made no "
                                "shot edit I could repeat. Say what to change.")
                return _ask(ctx, "unparsed", understood,
                            f"I understood {', '.join(understood)}, but not what to change.")
            keep = clause.modifications.get("keep") or []
            if "composition" in keep and "framing" in clause.modifications.get("changes", {}):
                framing = clause.modifications["changes"]["framing"]
                return _ask(ctx, "conflict", understood, f"You asked for the same composition and for {framing} "
                            "framing, which changes it. Which one should I do?")
        per_target: dict[str, EditRequest] = {}
        for clause in clauses:
            edit = EditRequest.model_validate(clause.modifications)
            for target in clause.targets:
                have = per_target.get(target.id)
                merged = edit if have is None else (
                    _a_step_again(have, edit, bool(_ONE_MORE_STEP.search(ctx.words.text))) or have.merged(edit))
                if merged is None:
                    return _ask(ctx, "conflict", understood, f"Two parts of the request change {target.title} in "
                                "different ways. Which one should I do?")
                per_target[target.id] = merged
        if len(clauses) > 1 and any(len({t.id for t in c.targets} & {t.id for d in clauses if d is not c for t in
                                                                    d.targets}) for c in clauses):
            clauses = _merged_clauses(clauses, per_target)
        return _replacing_the_last_turn(ctx, clauses, per_target) or Reading(clauses=clauses)


_ONE_MORE_STEP = re.compile(r"\b(?:again|once more|one more time)\b")


def _a_step_again(have: EditRequest, edit: EditRequest, again: bool) -> EditRequest | None:
    """Both edits, with a comparative said again counted as two steps: "make shot 3 darker, and then darker
    again", "shot 3 darker. shot 3 darker again" (merged as one change, it went one step).  None when nothing is
    said again, or a step is not a whole one ("much darker, then darker again": three steps, which no degree says;
    merging asks about it)."""
    repeated = [a for a, d in edit.relative.items() if have.relative.get(a) == d]
    if not again or not repeated or any(have.degree(a) != 1.0 or edit.degree(a) != 1.0 for a in repeated):
        return None
    merged = have.merged(edit)
    if merged is not None:
        merged.degrees.update({a: 2.0 for a in repeated})  # two steps: what "much darker" goes
    return merged


_ADDED = re.compile(r"\b(?:also|additionally|on top)\b|\bas well\b(?! as\b)|"
                    r"\btoo\b(?=\s*(?:[,.;!]|$|please\b|and\b|but\b))")
"""Words that add a change to what a shot has ("also make it foggy", "make it dusk as well", "add fog too").  "add"
alone is not one of them: "add some fog" after "make shot 3 night" is taken as the fog the shot is to have now."""


def _replacing_the_last_turn(ctx: ReadContext, clauses: list[Clause],
                             per_target: dict[str, EditRequest]) -> Reading | None:
    """Asked about: a change said to be added to the last turn's ("also make it foggy" after "make shot 3 night")
    that replaces it instead, a shot having one lighting (framing, weather, outfit) at a time: foggy replaced the
    night (exit 0), and "also make it dusk" asks for night and dusk at once."""
    text = ctx.words.text
    said = [r.said for c in clauses for r in c.references if r.said]
    # "make shot 4 dusk and shot 3 too": the word adds a shot to this request's change, not a change to the last turn
    added = next((m for m in _ADDED.finditer(text) if not any(_next_to(text, m, s) for s in said)), None)
    previous = _previous_edit(ctx) if added is not None else None
    if previous is None:
        return None
    for target in (t for c in clauses for t in c.targets if t.id in ctx.previous.targets):
        edit = per_target[target.id]
        for key, value in edit.changes.items():
            old = previous.changes.get(key)
            if old is None or old == value:
                continue
            new, old = _said_value(key, value), _said_value(key, old)
            also = " or add weather, which keeps the lighting ('make it rainy too')" if key == "lighting" else ""
            return _ask(ctx, "conflict", [f"{key}: {new}", f"the last turn's {key}: {old}"],
                        f"'{added.group(0)}': {new} as well as the last turn's {old}? A shot has one {key} at a "
                        f"time, so {new} would replace {old} on {target.title}; I changed nothing. Say 'make "
                        f"{target.title} {new}' to replace it,{also} or leave it {old}.")
    return None


def _next_to(text: str, match: re.Match[str], said: str) -> bool:
    """Whether the words matched stand right before or after a reference said ("shot 3 too", "also shot 3")."""
    return bool(re.search(rf"(?<![\w-]){re.escape(said)}[\s,]*$", text[:match.start()])
                or re.match(rf"[\s,]*{re.escape(said)}\b", text[match.end():]))


def _said_value(key: str, value: str) -> str:
    """A change's value as said: an outfit's colour by its name, not its code."""
    if key == "outfit":
        return next((f"a {name} outfit" for name, code in COLOURS.items() if code == value), value)
    return value


def _merged_clauses(clauses: list[Clause], per_target: dict[str, EditRequest]) -> list[Clause]:
    """Clauses regrouped so each target appears once, with every modification asked of it."""
    targets: dict[str, Target] = {}
    for clause in clauses:
        for target in clause.targets:
            targets.setdefault(target.id, target)
    merged: list[Clause] = []
    for target_id, edit in per_target.items():
        target = targets[target_id]
        merged.append(Clause(text=clauses[0].text, domain="shots", operation="edit", targets=[target],
                             references=[r for c in clauses for r in c.references if target_id in r.target_ids],
                             modifications=edit.model_dump(exclude={"understood"}),
                             exclusions=clauses[0].exclusions,
                             understood=[f"target: {target.title}", *edit.understood]))
    return merged


def _previous_edit(ctx: ReadContext) -> EditRequest | None:
    for clause in ctx.previous.clauses:
        if clause.get("operation") == "edit" and clause.get("modifications"):
            edit = EditRequest.model_validate(clause["modifications"])
            if not edit.empty:
                return edit.model_copy(update={"understood": [f"the same as the last turn: {edit.describe()}"]})
    return None


def _said_unclearly(ctx: ReadContext, found: list[Found]) -> Reading | None:
    """Asked about before any shot is resolved: words that say which shots, or how far, in a way no reading of them
    can act on (each was done otherwise, with exit 0)."""
    text = ctx.words.text
    said = [f.reference.said for f in found]

    def asked(reason: str, understood: list[str], message: str) -> Reading:
        ctx.words.take_all()
        return Reading(clarification=Clarification(reason=reason, understood=understood,  # type: ignore[arg-type]
                                                   message=message))

    if _ODD_OR_EVEN.search(text) and not any(f.reference.position in ("odd", "even") for f in found):
        # "the even shots after shot 4" changed every shot after shot 4: "even" is a filler word elsewhere
        return asked("unparsed", said, "I cannot tell which of those shots are the odd or the even ones you mean, so I "
                                       "changed nothing; name them ('shots 6 and 8', 'the even shots').")
    unclear = _A_COUNT.search(text) or (_AMONG.search(text) if len(found) > 1 else None) or (
        _EVERY_OTHER.search(text) if len(found) > 1 or _NEGATION_BEFORE_ANY.search(text) or _DO_SAME.search(text)
        else None)
    if unclear is not None:
        # "make shot 3 and two others night" (a count read as shot 2), "every other shot" after an exception (every
        # second shot, not all the rest), "both"/"one of them" after two clauses (the last shot alone)
        return asked("ambiguous", said, f"I cannot tell which shots '{unclear.group(0)}' means here, so I changed "
                                        "nothing. Name them ('shots 2 and 5', 'every shot except shot 3').")
    if (loose := _DEGREE_APART.search(text) or _LOOK_OF_WEATHER.search(text)) is not None:
        # "make shot 3 darker, but only slightly" went the default step; "make shot 3 a lot darker and shot 4
        # slightly" both a lot; "light rain", "make the fog lighter" brightened the shot
        return asked("unsupported", said, f"I cannot tell how far '{loose.group(0).strip(' ,')}' goes, or what it "
                                          "changes, so I changed nothing. Say it with its change, one shot at a time: "
                                          "'make shot 4 slightly darker', 'make shot 3 rainy'.")
    if (most := _AS_FAR_AS_IT_GOES.search(text)) is not None:
        return asked("unsupported", said, f"'{most.group(0)}': I change brightness a step at a time ('darker', 'much "
                                          "darker'), not to the most it can go, so I changed nothing. Say how far "
                                          "('make shot 1 much darker'), or a named look ('make shot 1 night').")
    if (unnamed := _EXCEPT_UNNAMED.search(text)) is not None:
        return asked("no_target", said, f"'{unnamed.group(0)}': I cannot tell which shot that is, so I changed "
                                        "nothing. Name it ('every shot except shot 3'), or select it and say 'except "
                                        "this one'.")
    if (kept := _OUTPUT_KEPT.search(text)) is not None:
        return asked("unsupported", said, f"'{kept.group(0)}': a shot's clip and the cut are made from its image, so "
                                          "changing the image remakes them; I cannot change it and keep them as they "
                                          "are, so I changed nothing. Ask for the change alone to remake them with it.")
    if (was := _AS_IT_WAS.search(text)) is not None:
        # "make it like it was but warmer", "back to how it was, but warmer": the going back was dropped, and only
        # the warmer was made, on top of the change it was to undo
        return asked("ambiguous", said, f"'{was.group(0)}': back to an earlier version first? I do one of those at "
                                        "a time, so I changed nothing. Say 'undo that' (or 'revert shot 3'), then the "
                                        "change ('make it warmer').")
    too_much = too_much_of_a_look(text)
    if too_much is not None:  # "shot 4 is too foggy" made shot 4 foggy
        return asked("unsupported", [f"'{too_much}': less of a look"],
                     f"'{too_much}': I cannot take some of a look away; I set a named look ('make shot 4 clear', "
                     "'make it dusk', 'a wide shot') or change one step by step ('darker', 'warmer').")
    return None


def _ask(ctx: ReadContext, reason: str, understood: list[str], message: str) -> Reading:
    unread = ctx.words.unused()
    ctx.words.take_all()
    if unread and reason in ("unparsed", "no_target"):
        message = message.rstrip(".") + f"; I did not understand: {', '.join(repr(w) for w in unread)}."
        reason = "unparsed"
    return Reading(clarification=Clarification(reason=reason, understood=understood, message=message,  # type: ignore[arg-type]
                                               not_understood=unread))
