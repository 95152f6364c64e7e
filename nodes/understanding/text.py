"""The request's words: normalised once, typos corrected against a vocabulary, and every word accounted for.

:class:`Words` is the normalised text plus a record of which characters a reader used.  Readers find their
phrases with :meth:`Words.take` (a regular expression over a span; a match that overlaps words already taken
is skipped), and whatever content word is left untaken at the end is what the interpreter did not understand:
the request then becomes a clarification naming it (``docs/requests.md``, "Full accounting").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from rapidfuzz import process
from rapidfuzz.distance import OSA

_CARDINALS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
              "sixteen seventeen eighteen nineteen twenty").split()
_ORDINALS = ("zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
             "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth").split()
NUMBER_WORDS = {word: i for i, word in enumerate(_CARDINALS)}
ORDINAL_WORDS = {word: i for i, word in enumerate(_ORDINALS)}
_NUMBER_PATTERN = re.compile(r"\b(?:" + "|".join(sorted([*_CARDINALS[2:], *_ORDINALS[1:]], key=len, reverse=True))
                             + r")\b")
_ONE = re.compile(r"\b((?:shots?|images?|frames?|pictures?|scenes?|slides?|versions?|and|or|to|through|#|,)\s*)one\b")
"""'one' is a number only after a noun or in a list ("shot one", "shots one and two"); "the one before" is not."""

FILLERS = frozenset("""
a an the this that these those it its it's them they their there here what which who how
i i'd i'm me my we we'd us our you your he him his she her hers please pls plz kindly can could would will should shall must might may let lets let's
is are was were be been being am do does did done have has had get gets got go going
make makes made making turn turned give gives put set sets change changes changed switch use want wants need needs
like just also too so very really quite bit little slightly somewhat much more lot lots bit even
of to in on at for with by from into onto as than then and or but while now instead again already both
look looks looking feel feels feeling seem seems seemed appear appears
light lighting lit mood tone vibe feel version one ones thing things picture image frame frames shot shots
scene look atmosphere style treatment way kind sort
okay ok thanks thank hey hi yes yeah sure right actually maybe perhaps overall back still
thx ty lol haha jarvis
""".split())
"""Words that carry no content of their own: leaving one of them unread is not a reason to ask."""

POLITE_WORDS = r"(?:please|pls|plz|thanks|thank you|thx|ty)"
"""The polite words a request may end with ("..., pls", "... thanks"), as a pattern to put in a regular expression."""
SAID_AGAIN = r"(?:i meant|i mean|or rather|make that)"
"""Words that say again what was meant ("I mean", "or rather", "make that"), as a pattern: they take back what was
just said."""
CORRECTION_WORDS = rf"(?:actually|{SAID_AGAIN})"
"""The words a correction begins with ("actually", "I mean", "or rather", "make that"), as a pattern: "actually"
alone may add to what was said as well as take it back."""
PLACE_WORDS = r"(?:places?|spots?|slots?|positions?)"
"""What a move by places counts in ("move shot 3 up 2 places", "one slot later"), as a pattern."""


def places_moved(way: str, count: str | None) -> int:
    """The signed number of places a move by places says: "up" and "earlier" are negative; no count, "one" or "a"
    is one place ("move slide 4 up", "a place later"); shared by the cut's, the deck's and the page's moves."""
    places = 1 if count in (None, "one", "a") else int(count)
    return -places if way in ("up", "earlier") else places


EMOTICON = r"[:;]-?[)(dp]"
"""A face typed in signs (":)", ";-)", ":d" as lower-cased), as a pattern."""
_FACE = re.compile(rf"(?<![a-z0-9]){EMOTICON}(?![a-z0-9])")
"""A face standing apart from the words around it ("dusk :d", not "16:d"): its letter ("d", "p") is no word."""
EMOJI = r"[\U0001F300-\U0001FAFF\u2600-\u27BF][\uFE0F\u200D]*"
"""One emoji (with the variation selector or joiner that may follow it), as a pattern: no reader reads one, and a
request may end with one ("..., no wait, dusk 🙂")."""
LOOK_EMOJI = re.compile("[\u2600-\u2603\u2614\u26c4\u26c5\u26c8\u2744\U0001F301\U0001F303-\U0001F309\U0001F30C"
                        "\U0001F311-\U0001F31E\U0001F324-\U0001F32C]")
"""An emoji of the sky, the weather or the time of day ("☀️", "🌧️", "❄️", "🌙", "🌅"): it may say a look ("make shot 3
night 🌧️": a rainy night?), which no reader reads."""
THEN_A_CHANGE = re.compile(
    r"(?:[?.!;,]|\band\b|\bthen\b)\s*(?:(?:and|then|please|now|also|so|ok|okay|if not|if so|if yes|if no)[,]?\s+)*"
    r"(?P<verb>make|change|set|remove|delete|undo|add|move|put|use|turn|give|redo|revert|rename|retitle|swap|"
    r"replace|drop|regenerate|approve|reject|mark|duplicate|copy|insert|shorten|lengthen|darken|brighten|restore|"
    r"go back|take out|get rid of)\b")
"""A change asked after another request whose reader takes its words whole: a question ("what's the headline and
make it bigger", "is shot 3 at night? if not make it night"), an exploration's instruction ("explore shot 3 ..., then
delete the rest").  ``verb``: its verb."""

NUMBER_VOCABULARY = frozenset([*_CARDINALS, *_ORDINALS])

NEVER_CORRECTED = frozenset("""
fight right sight tight might height bight wight knight nice rice dice mice vice sat hot hat shop short shoe
snot slot spot shut show shows slow know now stow row how bold hold told fold gold old cold cool pool tool fool
coal worm form warn park bark dart desk duck disk down lawn yawn damn moon noon neon dog log fig frog fox wife
ride side hide wire wise mist must most cost cast list last lost fast past vast best rest test text next
rain ruin main pain gain grain brain train drain stain snow slow clear clean dear near rear fear gear bear year
dark mark lark hark bright fright wright flight plight slight night light wide wider wild mild kind mind find
bind wind word work world would wood good food mood hood door more mare care core bore wore sore store shore
sure pure cure then than that this thus them they tune turn torn born corn horn worn fire hire tire wire five
live give hive dive line fine mine nine pine wine shine blue glue clue true grey gray prey pray play clay stay
redo undo into onto unto sunset sunrise small tall latter intro call quiet bread wilder wildest milder kinder
bolder older finer wiser read reads head lead dead bead
cosy cozy cope swan swans surprise surprised mourning warp remote movie star stars stark smart pale pane panes slice
invert dock neat least shout frost raid rail rails rein reins subset dank coil cord cords otter otters revere drip
mono team mint nope
""".split())
"""Ordinary English words one edit away from a vocabulary word ("fight" is not a typo of "night"): never
corrected, so an unknown word is asked about instead of read as something else."""


_UNITS = r"(?:shots?|images?|pictures?|clips?|frames?|scenes?|slides?|sections?)"
_COUNTED_EXCEPTION = re.compile(r"\b(?:except(?: for)?|but(?: not)?)\s+$")
_COUNTS = "|".join(_CARDINALS[2:])
COUNT_EXCEPTION = re.compile(
    rf"\b(?:except(?: for)?|but(?: not)?)\s+(?:(?:one|a couple|a few|some|several|{_COUNTS})(?: of (?:them|the \w+))?"
    rf"(?: {_UNITS})?|\d+(?: of (?:them|the \w+)| (?:shots|images|pictures|clips|frames|scenes|slides|sections|ones)))\b")
"""An exception that says how many, not which: "all but two shots", "every shot night but one", "delete all
slides but two".  Read as written, "all but 2 shots" spared shot 2 (slide 2), and "but one" (two fillers) was
dropped: every shot was changed, with exit 0.  A reader asks which."""
_QUOTED = re.compile(r"(?<![a-z])'[^']+'(?![a-z])|\"[^\"]+\"|‘[^’]+’|“[^”]+”")
"""A quoted span ("... to 'Hello'"), apostrophes inside words ("don't") not counted."""
EITHER_OR = re.compile(r"(?<!\bnot )(?<!\bexcept )\b(?:shots?|slides?|images?|clips?) #?\d+(?:\s*,\s*#?\d+)*,? or "
                       r"(?:shots? |slides? |images? |clips? )?#?\d+\b|"
                       r"(?<!\bnot )(?<!\bexcept )\b(?:shot|slide|image|clip) #?\d+(?: (?!and\b|but\b|not\b)[a-z-]+){1,3},? or "
                       r"(?:shot|slide|image|clip) #?\d+\b")
""""make shot 6 or shot 7 night", "delete slide 2 or slide 3", "make shot 2 night or shot 3": one of them, not both
(both were changed).  After "not" or "except" an "or" lists what is left out ("all shots but not 2 or 5"), which
is read."""
_ASKED_BEFORE_AN_UNDO = re.compile(
    r"^\s*(?:(?:so|and|hmm+|ok|okay|wait|but)[, ]+)*(?:what|how|why|when|where|which|whether|does|do|did|is|are|was|"
    r"will|would(?! you)|should|shall|if)\b")
_TAKEN_BACK_AFTER = re.compile(r"\?.*\S")


def undo_not_asked_for(before: str, after: str) -> str | None:
    """Why an undo's words ask for no undo, or None: a question about it ("what would undo that do?", "would undo
    that break anything?"; ``before`` is the text before "undo"), or one withdrawn after a question mark ("undo
    that?? nah nvm", "undo that? no, keep it"; ``after``, the text after it).  Each undid the last change."""
    if _ASKED_BEFORE_AN_UNDO.match(before):
        return "a question about an undo"
    if _TAKEN_BACK_AFTER.search(after):
        return "an undo asked about, then more words"
    return None


def undo_question(why: str) -> str:
    """The message for :func:`undo_not_asked_for`'s cases."""
    return (f"That reads as {why}, not as a request for one, so I changed nothing. Say 'undo' (or 'undo that') "
            "to take back the last change.")


def either_or_question(said: str) -> str:
    """What a request with an open "or" (:data:`EITHER_OR`, matched as ``said``) is asked."""
    return f"'{said}': which one? 'or' leaves it open, so I changed nothing. Name one, or say 'and' for both."


BUT_COUNTS = {"1": 1, "one": 1, "2": 2, "two": 2, "3": 3, "three": 3}
"""The count in "the last but one" / "the last but two" (the place from the end is one more)."""
_LAST_BUT = re.compile(r"\b(?:last|final)(?: \w+)? $")


def count_exception(text: str) -> re.Match[str] | None:
    """The first :data:`COUNT_EXCEPTION` in ``text`` that is not a place from the end ("the last slide but one")."""
    for found in COUNT_EXCEPTION.finditer(text):
        if not _LAST_BUT.search(text, 0, found.start()):
            return found
    return None


INSTEAD_OF = re.compile(r"\binstead of\s+(?P<other>(?:shots?|slides?|images?|clips?|the \w+(?: \w+)?) ?#?\w*)")
""""make shot 3 night instead of shot 4", "delete slide 3 instead of slide 4": the other is not to change (and may
be what an earlier turn changed, to put back); read as a list, both were changed.  A reader asks."""


def spell_numbers(text: str) -> str:
    """Spelled numbers as digits and ordinals as ``Nth`` ("shot five" → "shot 5", "third" → "3th")."""

    def number(match: re.Match[str]) -> str:
        word = match.group(0)
        if word in NUMBER_WORDS and _COUNTED_EXCEPTION.search(match.string, 0, match.start()):
            return word  # "all slides but two" counts; "but 2" would name slide 2 (COUNT_EXCEPTION asks which)
        return f"{ORDINAL_WORDS[word]}th" if word in ORDINAL_WORDS else str(NUMBER_WORDS[word])

    # quoted words are the person's own (a bullet "'Three parts'"): read as "'3 parts'", the words taken back
    # as typed lost their first letter to a stray quote
    parts = re.split(r"((?<![a-z])'[^']+'(?![a-z])|\"[^\"]+\")", text)
    for i in range(0, len(parts), 2):
        said = _ONE.sub(lambda m: m.group(1) + "1", parts[i])
        said = _NUMBER_PATTERN.sub(number, said)
        parts[i] = re.sub(r"\b(\d+)(?:st|nd|rd|th)\b", r"\1th", said)
    return "".join(parts)


_CONTRACTED = re.compile(r"\b(do|does|did|is|are|was|were|should|would|could|has|have|had|must)nt\b|\b(can)t\b|\bwont\b")
""""shouldnt", "dont", "isnt": a negation typed without its apostrophe.  Corrected as a typo, "shouldnt" became
"should", and "shot 6 shouldnt be so cold" made shot 6 cold."""


def lower_words(text: str) -> str:
    """Lower case, straight quotes, single spaces."""
    said = " ".join(text.lower().replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
                    .replace("„", '"').replace("«", '"').replace("»", '"').split())  # "„Bienen“" kept its „
    return _CONTRACTED.sub(lambda m: "won't" if m.group(0) == "wont" else f"{m.group(1) or m.group(2)}n't", said)


_TOKEN = re.compile(r"[a-z][a-z'-]*[a-z]|[a-z]")
_QUOTED = re.compile(r"(?<![a-z])'[^']+'(?![a-z])|\"[^\"]+\"")
_PLACES = frozenset("after before at between to into in from then but instead".split())
"""Words that end a topic: where the thing goes, or the next clause."""
_TOPIC = re.compile(r"\b(?:about|on the topic of|called|titled|named)\s+")


def _is_place(word: str) -> bool:
    """A word of place, or a typo of one ("aftr"): it ends a topic and is read (and corrected) as usual."""
    return word in _PLACES or (len(word) >= 4 and process.extractOne(word, _PLACES, scorer=OSA.distance,
                                                                      score_cutoff=1) is not None)


def kept_as_typed(text: str) -> list[tuple[int, int]]:
    """Spans whose words are the person's own, never corrected: quoted words ("'Why now'") and the topic after
    "about", "called" or "titled" up to a word of place or the next clause ("about swarm season at the end":
    'swarm' is a topic, not a typo of 'warm'; "at the end" is read as usual)."""
    spans = [m.span() for m in _QUOTED.finditer(text)]
    for found in _TOPIC.finditer(text):
        end = found.end()
        for word in _TOKEN.finditer(text, found.end()):
            if _is_place(word.group(0)) or re.search(r"[,;.!?]", text[end:word.start()]):
                break
            end = word.end()
        spans.append((found.end(), end))
    return spans


def correct_typos(text: str, vocabulary: frozenset[str]) -> tuple[str, list[tuple[str, str]]]:
    """The text with each unknown word replaced by the one vocabulary word a small edit away, and the corrections.

    A word is corrected only when it is not a word we know, is at least four letters, and exactly one
    vocabulary word is closest to it within the allowed edits (one for words of up to six letters, two
    beyond; a swap of two letters is one edit, so "mkae" → "make").  A word two vocabulary words are equally
    close to is left alone, and so asked about.  Quoted words and a topic (:func:`kept_as_typed`) are the
    person's own and never corrected.
    """
    corrections: list[tuple[str, str]] = []
    choices = sorted(vocabulary)
    kept = kept_as_typed(text)

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        if any(start <= match.start() < end for start, end in kept):
            return word
        if word in vocabulary or word in NEVER_CORRECTED or len(word) < 4 or "'" in word or "-" in word:
            return word
        if any(word[: -len(suffix)] in vocabulary and word[-len(suffix) - 1] != suffix[0]
               for suffix in _SUFFIXES if word.endswith(suffix) and len(word) - len(suffix) >= 3):
            return word  # "selected", "rainy": a known word with an ending, not a typo
        if any(word.startswith(prefix) and word[len(prefix):] in vocabulary for prefix in _UNDOING_PREFIXES):
            return word  # "undelete", "unremove": the opposite of the known word, never it (it deleted slide 3)
        limit = 1 if len(word) <= 7 else 2
        found = process.extract(word, choices, scorer=OSA.distance, score_cutoff=limit, limit=6)
        if not found:
            return word
        best = found[0][1]
        closest = [choice for choice, score, _ in found if score == best and abs(len(choice) - len(word)) <= limit]
        if len(closest) > 1:  # a tie: a swap of letters ("nigth") beats a change, a longer word ("darkr") a cut
            ranked = sorted(closest, key=lambda c: (sorted(c) == sorted(word), len(c) >= len(word)), reverse=True)
            first, second = ranked[0], ranked[1]
            key = (sorted(first) == sorted(word), len(first) >= len(word))
            if key == (sorted(second) == sorted(word), len(second) >= len(word)):
                return word
            closest = [first]
        if not closest or len(closest[0]) < 3:
            return word
        if closest[0][0] != word[0] and sorted(closest[0]) != sorted(word):
            # A typo seldom falls on the first letter, and a word that differs there is often a word of its own:
            # "swarm" became "warm", "funny" "sunny", "brainy" "rainy" (each set that look)
            return word
        if closest[0] in FILLERS and sorted(closest[0]) != sorted(word):
            # A filler is a word no reader needs to take, so a word corrected into one is dropped unread: "which
            # slide has the bees?" read "bees" as "been" and listed every slide.  Only a swap of letters ("mkae")
            # is taken for a misspelt filler; any other unknown word is left as typed, and asked about if unread.
            return word
        corrections.append((word, closest[0]))
        return closest[0]

    return _TOKEN.sub(fix, text), corrections


_SUFFIXES = ("s", "es", "ed", "d", "ing", "er", "ers", "ly", "y", "ness", "ful")
_UNDOING_PREFIXES = ("un", "non", "dis", "de")
"""Prefixes that turn a word into its opposite: such a word is never corrected into the word without them."""


class Words:
    """A normalised request and which of its characters readers have used."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._used = bytearray(len(text))

    def copy(self) -> Words:
        """The same text with the same words taken (a reader can try two readings and keep one)."""
        other = Words(self.text)
        other._used[:] = self._used
        return other

    def used(self, start: int, end: int) -> bool:
        """Whether any character of the span is taken."""
        return any(self._used[start:end])

    def mark(self, start: int, end: int) -> None:
        """Take a span."""
        for i in range(max(0, start), min(end, len(self.text))):
            self._used[i] = 1

    def take(self, pattern: re.Pattern[str], start: int = 0, end: int | None = None, *,
             first: bool = False) -> list[re.Match[str]]:
        """The matches of ``pattern`` within the span that overlap nothing taken, each taken (only the first one
        with ``first``)."""
        found: list[re.Match[str]] = []
        for match in pattern.finditer(self.text, start, len(self.text) if end is None else end):
            if match.end() == match.start() or self.used(match.start(), match.end()):
                continue
            self.mark(match.start(), match.end())
            found.append(match)
            if first:
                break
        return found

    def peek(self, pattern: re.Pattern[str], start: int = 0, end: int | None = None) -> re.Match[str] | None:
        """The first match within the span that overlaps nothing taken, without taking it."""
        for match in pattern.finditer(self.text, start, len(self.text) if end is None else end):
            if match.end() > match.start() and not self.used(match.start(), match.end()):
                return match
        return None

    def tokens(self, start: int = 0, end: int | None = None) -> Iterator[tuple[str, int, int]]:
        """Every word of the span as (word, start, end)."""
        for match in re.finditer(r"[a-z0-9#][a-z0-9'#-]*", self.text[start:end]):
            yield match.group(0), start + match.start(), start + match.end()

    def unused(self, start: int = 0, end: int | None = None, *, ignore: Iterable[str] = ()) -> list[str]:
        """Content words of the span no reader took (fillers, a face's letter ("dusk :d") and ``ignore`` do not
        count, except inside quotes: a quoted word is what the person wants written, so "change the headline to
        'Hello' or 'Hi'" leaves 'Hi' unread instead of writing 'Hello', 'hi' being a filler elsewhere)."""
        skip = FILLERS | frozenset(ignore)
        quoted = [(m.start(), m.end()) for m in _QUOTED.finditer(self.text)]
        faces = [(m.start(), m.end()) for m in _FACE.finditer(self.text)
                 if not any(a <= m.start() and m.end() <= b for a, b in quoted)]
        left = []
        for word, s, e in self.tokens(start, end):
            if self.used(s, e) or any(a <= s and e <= b for a, b in faces):
                continue
            bare = word.strip("'-#")
            if not bare:
                continue
            if (bare in skip or bare.removesuffix("'s") in skip) and not any(a <= s and e <= b for a, b in quoted):
                continue
            left.append(word)
        return left

    def take_all(self, start: int = 0, end: int | None = None) -> None:
        """Take every word of the span (a note's text, a premise: content the reader keeps whole)."""
        self.mark(start, len(self.text) if end is None else end)
