"""The offline planner's request grammar: an edit request parsed into targets, changes and constraints.

Table-driven: every word the planner understands is in one of the tables
below (targets, lighting and mood, framing, weather, outfit colours,
comparatives, constraints), and each maps to a render parameter the offline
renderer draws measurably (``tools.generate.offline_image``).  What the tables
do not cover is never guessed: :func:`parse_edit` returns a
:class:`Clarification` saying what it understood and what it can do.
``docs/requests.md`` documents the grammar with examples.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field

# -- numbers ---------------------------------------------------------------------------------------

_CARDINALS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
              "sixteen seventeen eighteen nineteen twenty").split()
_ORDINALS = ("zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
             "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth").split()
_NUMBER = {word: i for i, word in enumerate(_CARDINALS)}
_ORDINAL = {word: i for i, word in enumerate(_ORDINALS)}

# -- vocabulary tables: phrase pattern -> value -----------------------------------------------------

LIGHTING_WORDS: tuple[tuple[str, str], ...] = (
    (r"golden[- ]hour|magic hour|golden light|golden", "golden-hour"),
    (r"candle[- ]?lit|candle ?light|by candlelight|firelight|fire[- ]lit", "candle-lit"),
    (r"high[- ]key", "high-key"),
    (r"low[- ]key|noir|film noir", "low-key"),
    (r"dawn|sunrise|daybreak|1th light|early morning|morning", "dawn"),
    (r"noon|midday|mid-day|broad daylight|daylight|daytime|sunny|full sun", "noon"),
    (r"sunset|sundown", "sunset"),
    (r"dusk|twilight|blue hour|evening", "dusk"),
    (r"moon[- ]?lit|moonlight|under the moon", "moonlit"),
    (r"night[- ]?time|midnight|night", "night"),
    (r"overcast|cloudy|grey sky|gray sky|clouded", "overcast"),
    (r"foggy|fog|misty|mist|hazy|haze", "foggy"),
    (r"neon|cyberpunk", "neon"),
    (r"warm(?! ?er\b)", "warm"),
    (r"cold(?!er\b)|cool(?!er\b)|icy|wintry", "cold"),
    (r"neutral|natural light|plain light", "neutral"),
)
"""Lighting, mood and time-of-day words → a lighting preset (``tools.generate.base.Lighting``)."""

FRAMING_WORDS: tuple[tuple[str, str], ...] = (
    (r"close[- ]?ups?|closer|tighter|tight shot|zoom(?:ed)? in|push in|macro", "close-up"),
    (r"wide[- ]angle|wider(?: angle| shot)?|wide shot|wide|long shot|establishing shot|zoom(?:ed)? out|"
     r"pull(?:ed)? back|further away", "wide"),
    (r"medium shot|mid[- ]shot|medium|waist[- ]up", "medium"),
)
"""Framing words → how much of the frame the characters fill."""

WEATHER_WORDS: tuple[tuple[str, str], ...] = (
    (r"no (?:more )?(?:rain|snow)|without (?:the )?(?:rain|snow)|clear (?:sky|skies|weather)|stop the (?:rain|snow)",
     "clear"),
    (r"rain(?:y|ing)?|storm(?:y)?|downpour|drizzle", "rain"),
    (r"snow(?:y|ing)?|blizzard|snowfall", "snow"),
)
"""Weather words → the weather drawn over the scene."""

COLOURS: dict[str, str] = {
    "red": "#d62828", "crimson": "#a4161a", "blue": "#1f4e9c", "navy": "#14213d", "green": "#2a9d3f",
    "yellow": "#f2c12e", "orange": "#f07f13", "purple": "#7b2cbf", "violet": "#7b2cbf", "pink": "#ef5da8",
    "black": "#1a1a1a", "white": "#f4f4f4", "grey": "#808080", "gray": "#808080", "brown": "#7a4a24",
    "teal": "#14908a",
}
"""Outfit colour words → the ``#rrggbb`` the renderer draws."""

GARMENTS = r"coat|jacket|outfit|clothes|clothing|dress|shirt|cloak|suit|costume|hoodie|sweater|scarf|robe|uniform"

RELATIVE_WORDS: tuple[tuple[str, str, str], ...] = (
    (r"too (?:bright|light|washed out|overexposed)|darker|dimmer|less bright|not so bright|more dark"
     r"|(?<!too )(?<!less )(?<!so )(?:dark(?:en)?|dim)", "luma", "lower"),
    (r"too (?:dark|dim|underexposed)|brighter|lighter|less dark|not so dark|more light|brighten"
     r"|(?<!too )(?<!less )(?<!so )bright", "luma", "higher"),
    (r"too blue|less blue|not so blue|less of the blue", "blue", "lower"),
    (r"too (?:cold|cool)|less cold|less cool|warmer|more warmth", "warmth", "higher"),
    (r"too (?:warm|orange|yellow|red)|less warm|not so warm|cooler|colder|bluer|more blue", "warmth", "lower"),
)
"""Comparatives and negations → (measured attribute, direction) judged against the previous version."""

RELATIVE_NAMES = {("luma", "lower"): "darker", ("luma", "higher"): "brighter", ("warmth", "lower"): "cooler",
                  ("warmth", "higher"): "warmer", ("blue", "lower"): "less blue"}

CONSTRAINT_WORDS: tuple[tuple[str, str], ...] = (
    (r"keep(?:ing)? the (?:same )?character|same character|(?:the )?character (?:stays |remains )?the same|"
     r"don'?t change the character|character unchanged", "character"),
    (r"keep(?:ing)? (?:the )?(?:rest|everything else|others)|leave (?:the )?(?:rest|others|everything else)"
     r"(?: alone| as (?:it is|they are))?|nothing else|only (?:that|this|those) shots?", "rest"),
    (r"same composition|keep(?:ing)? the composition|composition the same|same layout", "composition"),
)
"""Constraints the repair keeps by construction (only the targets regenerate; references are not touched)."""

_REDO = r"\b(?:redo|re-do|regenerate|re-render|rerender|another take|try again|new take|reshoot|re-shoot)\b"
_LIGHTING_NOUN = r"\b(?:lighting|light|lit|mood|grade|relight)\b"
_STALE = re.compile(r"\b(?:regenerate|rebuild|repair|fix|redo|update|refresh|re-?make)\b.*\bstale\b|"
                    r"\bstale\b.*\b(?:regenerate|rebuild|repair|fix)\b")

CAN_DO = (
    "targets: 'shot 3', 'shot three', 'the third shot', 'shots 2 and 4', 'shots 2-4', 'the last shot', "
    "'every shot', 'image 3'; changes: lighting or time of day (" + ", ".join(sorted({v for _, v in LIGHTING_WORDS}))
    + "), framing (wide, medium, close-up), weather (rain, snow, clear), outfit colour ('make the coat red'), "
    "comparatives ('warmer', 'darker', 'too bright', 'less blue'), 'redo the lighting' or 'redo shot 3' "
    "(another take); constraints: 'keep the character', 'keep the rest', 'same composition'; "
    "'regenerate what is stale'"
)
"""What the grammar can do, for clarifications."""


class Targets(BaseModel):
    """Which shots an edit is for."""

    noun: Literal["shot", "image"] = "shot"
    numbers: list[int] = Field(default_factory=list)
    last: bool = False
    every: bool = False

    def describe(self) -> str:
        """How a person would say it."""
        if self.every:
            return f"every {self.noun}"
        parts = [f"{self.noun} {n}" for n in self.numbers] + ([f"the last {self.noun}"] if self.last else [])
        return " and ".join(parts)


class EditRequest(BaseModel):
    """A parsed edit: targets, absolute changes (render parameters), comparatives and constraints."""

    targets: Targets
    changes: dict[str, Any] = Field(default_factory=dict, description="lighting, framing, weather, outfit")
    relative: dict[str, Literal["lower", "higher"]] = Field(
        default_factory=dict, description="luma / warmth / blue, measured against the previous version")
    redo: Literal["lighting", "take"] | None = None
    keep: list[str] = Field(default_factory=list)
    understood: list[str] = Field(default_factory=list)

    def describe(self) -> str:
        """What the edit does, in words."""
        parts = [f"{k} {v}" for k, v in self.changes.items()]
        parts += [RELATIVE_NAMES[(a, d)] for a, d in self.relative.items()]
        if self.redo == "lighting":
            parts.append("a different lighting")
        elif self.redo == "take":
            parts.append("another take")
        return ", ".join(parts)


class StaleRepair(BaseModel):
    """"regenerate what is stale": repair the stale nodes other turns left behind."""

    kind: Literal["stale"] = "stale"


class Clarification(BaseModel):
    """The grammar could not make an edit of the request: what it understood and what it can do."""

    reason: Literal["unparsed", "no_target", "conflict"]
    understood: list[str] = Field(default_factory=list)
    message: str

    def payload(self) -> dict[str, Any]:
        """The clarification as the turn outcome carries it."""
        return {"type": "clarification", "reason": self.reason, "understood": self.understood,
                "question": self.message, "can_do": CAN_DO}


def normalise(text: str) -> str:
    """Lower case, spelled numbers as digits ('shot five' → 'shot 5', 'the third shot' → 'the 3th shot')."""
    lowered = " ".join(text.lower().replace("’", "'").split())

    def number(match: re.Match[str]) -> str:
        word = match.group(0)
        if word in _ORDINAL:
            return f"{_ORDINAL[word]}th"
        return str(_NUMBER[word])

    words = "|".join(sorted([*_CARDINALS[1:], *_ORDINALS[1:]], key=len, reverse=True))
    lowered = re.sub(rf"\b(?:{words})\b", number, lowered)
    return re.sub(r"\b(\d+)(?:st|nd|rd|th)\b", r"\1th", lowered)


_NOUN = r"(shots?|images?|frames?|pictures?)"
_NUM = r"#?(\d+)"
_TARGET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("every", re.compile(rf"\b(?:every|each|all(?: of)?(?: the)?) {_NOUN}\b")),
    ("last", re.compile(rf"\b(?:the )?(?:last|final) {_NOUN}\b")),
    ("ordinal", re.compile(rf"\bthe (\d+)th {_NOUN}\b")),
    ("range", re.compile(rf"\b{_NOUN} {_NUM}\s*(?:-|–|to|through|thru)\s*{_NUM}\b")),
    ("list", re.compile(rf"\b{_NOUN} {_NUM}((?:\s*(?:,|and|&|, and)\s*#?\d+\b)*)")),
)


def parse_targets(text: str) -> Targets | None:
    """The shots a (normalised) request names, or None when it names none."""
    numbers: list[int] = []
    last = every = False
    nouns: list[str] = []
    taken: list[tuple[int, int]] = []
    for form, pattern in _TARGET_PATTERNS:
        for match in pattern.finditer(text):
            if any(start <= match.start() < end for start, end in taken):
                continue
            taken.append(match.span())
            noun = match.group(1) if form != "ordinal" else match.group(2)
            nouns.append(noun)
            if form == "every":
                every = True
            elif form == "last":
                last = True
            elif form == "ordinal":
                numbers.append(int(match.group(1)))
            elif form == "range":
                low, high = sorted((int(match.group(2)), int(match.group(3))))
                numbers.extend(range(low, min(high, low + 99) + 1))
            else:
                numbers.append(int(match.group(2)))
                numbers.extend(int(n) for n in re.findall(r"\d+", match.group(3) or ""))
    if not (numbers or last or every):
        return None
    noun: Literal["shot", "image"] = "image" if nouns and all(n.startswith(("image", "picture")) for n in nouns) \
        else "shot"
    return Targets(noun=noun, numbers=list(dict.fromkeys(numbers)), last=last, every=every)


def without_targets(text: str) -> str:
    """The (normalised) text without its target phrases: "the last shot" is not "last light", "shot 4" no count."""
    rest = normalise(text)
    for _, pattern in _TARGET_PATTERNS:
        rest = pattern.sub(" ", rest)
    return rest


def _find(table: tuple[tuple[str, str], ...], text: str) -> tuple[str, str] | None:
    """The first table entry found in the text, as (value, matched words): earliest in the text wins."""
    best: tuple[int, str, str] | None = None
    for pattern, value in table:
        match = re.search(rf"\b(?:{pattern})\b", text)
        if match and (best is None or match.start() < best[0]):
            best = (match.start(), value, match.group(0))
    return (best[1], best[2]) if best else None


def _outfit(text: str) -> tuple[str, str] | None:
    garment = re.search(rf"\b(?:{GARMENTS})\b", text)
    if garment is None:
        return None
    colours = [(abs(m.start() - garment.start()), m.group(0)) for m in
               re.finditer(rf"\b(?:{'|'.join(COLOURS)})\b", text)]
    if not colours:
        return None
    word = min(colours)[1]
    return COLOURS[word], f"{word} {garment.group(0)}"


def parse_edit(request: str) -> EditRequest | StaleRepair | Clarification | None:
    """Parse an edit request; None when the request is not an edit of shots at all (other playbooks decide)."""
    text = normalise(request)
    if _STALE.search(text):
        return StaleRepair()
    targets = parse_targets(text)
    if targets is None:
        return None
    rest = without_targets(text)
    edit = EditRequest(targets=targets)
    understood = edit.understood
    understood.append(f"target: {targets.describe()}")
    for label, table in (("framing", FRAMING_WORDS), ("weather", WEATHER_WORDS)):
        found = _find(table, rest)
        if found:
            edit.changes[label] = found[0]
            understood.append(f"{label}: {found[0]} ('{found[1]}')")
            rest = rest.replace(found[1], " ", 1)
    outfit = _outfit(rest)
    if outfit:
        edit.changes["outfit"] = outfit[0]
        understood.append(f"outfit: {outfit[0]} ('{outfit[1]}')")
        rest = rest.replace(outfit[1].split()[0], " ", 1)
    for pattern, attribute, direction in RELATIVE_WORDS:
        match = re.search(rf"\b(?:{pattern})\b", rest)
        if match and attribute not in edit.relative:
            edit.relative[attribute] = direction  # type: ignore[assignment]
            understood.append(f"{attribute} {direction} than before ('{match.group(0)}')")
            rest = rest.replace(match.group(0), " ", 1)
    lighting = _find(LIGHTING_WORDS, rest)
    if lighting:
        edit.changes["lighting"] = lighting[0]
        understood.append(f"lighting: {lighting[0]} ('{lighting[1]}')")
    for pattern, constraint in CONSTRAINT_WORDS:
        if re.search(rf"\b(?:{pattern})\b", text):
            edit.keep.append(constraint)
            understood.append(f"keep: {constraint}")
    if not edit.changes and not edit.relative:
        if re.search(_LIGHTING_NOUN, rest) and re.search(rf"{_REDO}|\b(?:change|relight|fix|new|different)\b", rest):
            edit.redo = "lighting"
            understood.append("redo: a different lighting")
        elif re.search(_REDO, rest):
            edit.redo = "take"
            understood.append("redo: another take")
    if "composition" in edit.keep and "framing" in edit.changes:
        return Clarification(reason="conflict", understood=understood, message=(
            f"You asked for the same composition and for {edit.changes['framing']} framing, which changes it. "
            "Which one should I do?"))
    if not edit.changes and not edit.relative and edit.redo is None:
        return Clarification(reason="unparsed", understood=understood, message=(
            f"I understood {', '.join(understood)}, but not what to change. I can change: {CAN_DO}."))
    return edit


def find_lighting(text: str) -> str | None:
    """The lighting preset a text names, if any."""
    found = _find(LIGHTING_WORDS, normalise(text))
    return found[0] if found else None


def mentions_an_edit(request: str) -> list[str]:
    """Edit words in a request that names no target (for a 'which shot?' clarification)."""
    text = normalise(request)
    found = [f"{label}: {hit[0]}" for label, table in (("lighting", LIGHTING_WORDS), ("framing", FRAMING_WORDS),
                                                         ("weather", WEATHER_WORDS))
             if (hit := _find(table, text))]
    found += [f"{a} {d}" for p, a, d in RELATIVE_WORDS if re.search(rf"\b(?:{p})\b", text)]
    return found
