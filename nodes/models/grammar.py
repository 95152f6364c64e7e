"""The shot-edit grammar: the words that change a shot's image, read over one clause of a request.

Table-driven: every word the shot reader understands is in one of the tables
below (lighting and mood, framing, weather, outfit colours, comparatives,
constraints), and each maps to a render parameter the offline renderer draws
measurably (``tools.generate.offline_image``).  :func:`read_edit` reads a
clause's span of a :class:`~nodes.understanding.text.Words` and takes the words
it used, so whatever it did not understand is left for the interpreter to ask
about (``nodes.understanding``).  ``docs/requests.md`` documents the grammar.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field

from nodes.understanding.text import Words

# -- vocabulary tables: phrase pattern -> value -----------------------------------------------------

LIGHTING_WORDS: tuple[tuple[str, str], ...] = (
    (r"golden[- ]hour|magic hour|golden light|golden", "golden-hour"),
    (r"candle[- ]?lit|candle ?light|by candlelight|firelight|fire[- ]lit", "candle-lit"),
    (r"high[- ]key", "high-key"),
    (r"low[- ]key|noir|film noir", "low-key"),
    (r"dawn|sunrise|daybreak|1th light|early morning|morning|early light", "dawn"),
    (r"noon|midday|mid-day|broad daylight|daylight|daytime|sunny|full sun|day(?! ?(?:after|before|later)\b)", "noon"),
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
    (r"no (?:more )?(?:rain|snow)|without (?:the )?(?:rain|snow)|clear (?:sky|skies|weather)|stop the (?:rain|snow)|"
     r"(?:remove|get rid of|take (?:away|out)|lose|drop|turn off|switch off) (?:all )?(?:the )?(?:rain|snow)|"
     r"take (?:all )?(?:the )?(?:rain|snow) (?:out|away|off)", "clear"),
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
    (r"too (?:dark|dim|underexposed)|brighter|lighter|less dark|not so dark|more light|more bright|brighten"
     r"|(?<!too )(?<!less )(?<!so )bright", "luma", "higher"),
    (r"too blue|less blue|not so blue|less of the blue", "blue", "lower"),
    (r"too (?:cold|cool)|less cold|less cool|warmer|more warmth|more warm", "warmth",
     "higher"),
    (r"too (?:warm|orange|yellow|red)|less warm|not so warm|cooler|colder|bluer|more blue|more (?:cold|cool)",
     "warmth", "lower"),
)
"""Comparatives and negations → (measured attribute, direction) judged against the previous version."""

DEGREE_WORDS: tuple[tuple[str, float], ...] = (
    (r"a (?:little|tiny|wee) bit|just a (?:bit|little|touch|tad|hair)|a (?:bit|little|touch|tad|hair|smidge|shade)"
     r"|slightly|somewhat|marginally|a little bit", 0.5),
    (r"much|a lot|lots|way|far|a good deal|a great deal|a whole lot|significantly|considerably|substantially|very"
     r"|really|dramatically|heavily", 2.0),
)
"""How far a comparative goes, in steps ("slightly darker": half a step; "much darker": two).  Unsaid, one step."""

RELATIVE_NAMES = {("luma", "lower"): "darker", ("luma", "higher"): "brighter", ("warmth", "lower"): "cooler",
                  ("warmth", "higher"): "warmer", ("blue", "lower"): "less blue"}

CONSTRAINT_WORDS: tuple[tuple[str, str], ...] = (
    (r"keep(?:ing)? the (?:same )?character|same character|(?:the )?character (?:stays |remains )?the same|"
     r"don'?t change the character|character unchanged", "character"),
    (r"keep(?:ing)? (?:the )?(?:rest|everything else|others)|leave (?:the )?(?:rest|others|everything else)"
     r"(?: alone| as (?:it is|they are))?|nothing else|only (?:that|this|those) shots?|"
     r"(?:do not|don'?t) (?:change|touch|edit|alter) (?:anything else|the (?:rest|others)|any of the others|"
     r"the other (?:shots|ones|images))|leave (?:\w+ ){0,3}(?:on|in|for|with) the (?:others|rest|other (?:shots|ones))|"
     r"(?:keep|leave) the other (?:shots|ones|images)(?: alone| as (?:they are|it is))?", "rest"),
    (r"same composition|keep(?:ing)? the composition|composition the same|same layout", "composition"),
)
"""Constraints the repair keeps by construction (only the targets regenerate; references are not touched)."""

_REDO = r"\b(?:redo|re-do|regenerate|re-render|rerender|another take|try again|new take|reshoot|re-shoot)\b"
_LIGHTING_NOUN = r"\b(?:lighting|light|lit|mood|grade|relight)\b"
CAN_DO = (
    "targets: 'shot 3', 'shot three', 'the third shot', 'shots 2 and 4', 'shots 2-4', 'the last shot', "
    "'every shot', 'image 3'; changes: lighting or time of day (" + ", ".join(sorted({v for _, v in LIGHTING_WORDS}))
    + "), framing (wide, medium, close-up), weather (rain, snow, clear), outfit colour ('make the coat red'), "
    "comparatives ('warmer', 'darker', 'too bright', 'less blue'), 'redo the lighting' or 'redo shot 3' "
    "(another take); constraints: 'keep the character', 'keep the rest', 'same composition'; "
    "'regenerate what is stale'"
)
"""What the grammar can do, for clarifications."""



IMAGE_DEFAULTS: dict[str, Any] = {"lighting": "neutral", "framing": "medium", "weather": "clear", "outfit": None}
"""What an image has when its inputs do not say (the renderer's defaults)."""


class EditRequest(BaseModel):
    """The modifications of one clause: absolute changes (render parameters), comparatives, redo, constraints."""

    changes: dict[str, Any] = Field(default_factory=dict, description="lighting, framing, weather, outfit")
    relative: dict[str, Literal["lower", "higher"]] = Field(
        default_factory=dict, description="luma / warmth / blue, measured against the previous version")
    degrees: dict[str, float] = Field(
        default_factory=dict, description="steps a comparative goes when not one: 0.5 'slightly', 2 'much'")
    redo: Literal["lighting", "take"] | None = None
    keep: list[str] = Field(default_factory=list)
    understood: list[str] = Field(default_factory=list)

    def degree(self, attribute: str) -> float:
        """How many steps the comparative on ``attribute`` goes."""
        return self.degrees.get(attribute, 1.0)

    @property
    def empty(self) -> bool:
        """Whether it changes nothing (constraints alone change nothing)."""
        return not self.changes and not self.relative and self.redo is None

    def already_in(self, current: dict[str, Any]) -> bool:
        """Whether an image with these inputs already has every absolute change asked for (and nothing
        relative is asked): such a target needs no new version."""
        if self.relative or self.redo or not self.changes:
            return False
        return all(current.get(k, IMAGE_DEFAULTS.get(k)) == v for k, v in self.changes.items())

    def describe(self) -> str:
        """What the edit does, in words."""
        parts = [f"{k} {v}" for k, v in self.changes.items()]
        parts += [_DEGREE_NAMES.get(self.degree(a), "") + RELATIVE_NAMES[(a, d)] for a, d in self.relative.items()]
        if self.redo == "lighting":
            parts.append("a different lighting")
        elif self.redo == "take":
            parts.append("another take")
        return ", ".join(parts)

    def merged(self, other: EditRequest) -> EditRequest | None:
        """Both edits together, or None when they set one thing two ways ("night" and "dawn")."""
        for key, value in other.changes.items():
            if key in self.changes and self.changes[key] != value:
                return None
        for key, value in other.relative.items():
            if key in self.relative and (self.relative[key] != value or self.degree(key) != other.degree(key)):
                return None
        if self.redo and other.redo and self.redo != other.redo:
            return None
        return EditRequest(changes={**self.changes, **other.changes}, relative={**self.relative, **other.relative},
                           degrees={**self.degrees, **other.degrees}, redo=self.redo or other.redo, keep=list(dict.fromkeys(self.keep + other.keep)),
                           understood=self.understood + other.understood)


def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"\b(?:{pattern})\b")


_LIGHTING = [(_compiled(p), v) for p, v in LIGHTING_WORDS]
_FROM_TO = re.compile(r"\s+(?:to|into)\s+")
_INSTEAD_OF = re.compile(r"\b(?:instead of|rather than|not)\s+$")


def named_lighting(text: str) -> list[str]:
    """The lighting presets a text names, in the order it names them, each once ("at dawn, dusk and night")."""
    hits = sorted((match.start(), value) for pattern, value in _LIGHTING for match in pattern.finditer(text.lower()))
    return list(dict.fromkeys(value for _, value in hits))
_FRAMING = [(_compiled(p), v) for p, v in FRAMING_WORDS]
_WEATHER = [(_compiled(p), v) for p, v in WEATHER_WORDS]
_RELATIVE = [(_compiled(p), a, d) for p, a, d in RELATIVE_WORDS]
_DEGREE_BEFORE = [(re.compile(rf"\b(?:{p})(?: more)?\s+$"), v) for p, v in DEGREE_WORDS]
_DEGREE_ANYWHERE = [(_compiled(p), v) for p, v in DEGREE_WORDS]
_DEGREE_NAMES = {0.5: "slightly ", 2.0: "much "}
_NOT_THIS = re.compile(r"(?:,\s*|\b)(?:but |and )?(?:not|rather than|instead of)\s+$")
_CONSTRAINTS = [(_compiled(p), c) for p, c in CONSTRAINT_WORDS]
_GARMENT = _compiled(GARMENTS)
_COLOUR = _compiled("|".join(COLOURS))
_REDO_WORDS = re.compile(_REDO)
_LIGHTING_NOUN_WORDS = re.compile(_LIGHTING_NOUN)
_RELIGHT = re.compile(r"\b(?:change|relight|fix|new|different|another|redo|re-do|regenerate|re-render)\b")
_CHARACTER = re.compile(r"\b(?:the )?(?:character|characters|protagonist|hero|heroine)(?:'s)?\b")
_COLOUR_VERB = re.compile(r"\b(?:in|wear(?:s|ing)?|wear|dressed in|into)\b")
STALE = re.compile(r"\b(?:regenerate|rebuild|repair|fix|redo|update|refresh|re-?make)\b.*\bstale\b|"
                   r"\bstale\b.*\b(?:regenerate|rebuild|repair|fix)\b")
"""'regenerate what is stale' and its variants."""


def _first(words: Words, table: list[tuple[re.Pattern[str], str]], start: int, end: int) -> tuple[str, str] | None:
    """The earliest table entry found in the span, taken: (value, matched words)."""
    best: tuple[int, str, re.Pattern[str]] | None = None
    for pattern, value in table:
        match = words.peek(pattern, start, end)
        if match and (best is None or match.start() < best[0]):
            best = (match.start(), value, pattern)
    if best is None:
        return None
    taken = words.take(best[2], start, end, first=True)[0]
    for pattern, value in table:  # "pull back to a wide shot": the same value said twice is one change
        if value == best[1]:
            words.take(pattern, start, end)
    return best[1], taken.group(0)


def read_constraints(words: Words, start: int, end: int) -> list[str]:
    """The constraints of the span ("keep the character", "keep the rest", "same composition"), taken."""
    kept = []
    for pattern, constraint in _CONSTRAINTS:
        if words.take(pattern, start, end):
            kept.append(constraint)
    return kept


def _read_degrees(words: Words, start: int, end: int, compared: dict[str, re.Match[str]], edit: EditRequest) -> None:
    """How far each comparative goes: a degree right before it ("much darker", "a bit more warm"), else, for a
    clause with one comparative, a degree elsewhere in it ("darken shot 3 a little").  The words are taken: read
    as fillers, "much darker" was one step, the same as "darker"."""
    for attribute, match in compared.items():
        for pattern, degree in _DEGREE_BEFORE:
            said = pattern.search(words.text, start, match.start())
            if said is not None and not words.used(said.start(), said.end()):
                words.mark(said.start(), said.end())
                edit.degrees[attribute] = degree
                break
    if len(compared) == 1 and not edit.degrees:
        attribute = next(iter(compared))
        found = [(m.start(), m, degree) for pattern, degree in _DEGREE_ANYWHERE
                 if (m := words.peek(pattern, start, end)) is not None]
        if found:
            _, said, degree = min(found, key=lambda f: f[0])
            words.mark(said.start(), said.end())
            edit.degrees[attribute] = degree


_TOO_MUCH_BEFORE = re.compile(r"\b(?:too(?: much| many)?|so much|so many)(?: of)?(?: an?| the)?\s+$")
"""Before a look: "shot 4 is too foggy", "too much rain in shot 2", "too much of a close-up"."""


_TOO_MUCH_AFTER = re.compile(
    r"\b(?:rain|snow|fog|mist|neon|light|lighting|colou?r|close-up|framing)\b[^,.;]{0,24}?\b(?:is|are|looks?|seems?|feels?)"
    r" (?:way |far |just |a bit |a little |kind of )?(?:too much|too strong|too heavy|a bit much|much|excessive|overdone|"
    r"overpowering)\b|\b(?:a lot of|lots of|so much|too much) (?:rain|snow|fog|mist|neon)\b")
"""A look said to be too much after it ("the rain in shot 3 is too much", "there is a lot of rain in shot 3")."""


def too_much_of_a_look(text: str) -> str | None:
    """The words that call a look too much ("too foggy", "too much rain"), if any.  Less of a look is no look of
    the tables, and taken as the look it was the opposite: "shot 4 is too foggy" made shot 4 foggy.  The
    comparatives ("too dark" → brighter) say their own opposite and are read as such."""
    if (after := _TOO_MUCH_AFTER.search(text)) is not None:  # "the rain in shot 3 is too much"
        return after.group(0)
    for table in (_FRAMING, _WEATHER, _LIGHTING):
        for pattern, _ in table:
            for match in pattern.finditer(text):
                said = _TOO_MUCH_BEFORE.search(text, max(0, match.start() - 20), match.start())
                if said is not None and said.end() == match.start() and not any(
                        relative.match(text, said.start()) for relative, _, _ in _RELATIVE):
                    return text[said.start():match.end()]
    return None


def read_edit(words: Words, start: int, end: int) -> EditRequest:
    """The modifications a span asks of a shot's image; the words used are taken."""
    edit = EditRequest()
    understood = edit.understood
    for label, table in (("framing", _FRAMING), ("weather", _WEATHER)):
        found = _first(words, table, start, end)
        if found:
            edit.changes[label] = found[0]
            understood.append(f"{label}: {found[0]} ('{found[1]}')")
    garment = words.peek(_GARMENT, start, end)
    if garment is not None:
        colours = [m for m in _COLOUR.finditer(words.text, start, end) if not words.used(m.start(), m.end())]
        if colours:
            colour = min(colours, key=lambda m: abs(m.start() - garment.start()))
            words.mark(garment.start(), garment.end())
            words.mark(colour.start(), colour.end())
            edit.changes["outfit"] = COLOURS[colour.group(0)]
            understood.append(f"outfit: {edit.changes['outfit']} ('{colour.group(0)} {garment.group(0)}')")
            words.take(_CHARACTER, start, end)
            words.take(_COLOUR_VERB, start, end)
    compared: dict[str, re.Match[str]] = {}
    for pattern, attribute, direction in _RELATIVE:  # "warmer, not cooler": what it is not to be is no change
        for match in pattern.finditer(words.text, start, end):
            said = _NOT_THIS.search(words.text, max(start, match.start() - 16), match.start())
            if said is not None and said.end() == match.start() and not words.used(match.start(), match.end()):
                # "night, but not too dark" limits how far, which no step says: its "not" is left unread, so the
                # request is asked about (taken whole, it was done as plain night)
                words.mark(match.start() if match.group(0).startswith("too ") else said.start(), match.end())
    for pattern, attribute, direction in _RELATIVE:
        if attribute in edit.relative:
            continue
        taken = words.take(pattern, start, end, first=True)
        if taken:
            edit.relative[attribute] = direction  # type: ignore[assignment]
            compared[attribute] = taken[0]
    _read_degrees(words, start, end, compared, edit)
    for attribute, match in compared.items():
        said = words.text[match.start():match.end()]
        if attribute in edit.degrees:
            said = f"{_DEGREE_NAMES[edit.degrees[attribute]]}{said}"
        understood.append(f"{attribute} {edit.relative[attribute]} than before ('{said}')")
    # "from night to day": the lighting it has now is not a change; the one after "to" is.
    for pattern, _ in _LIGHTING:
        for now in pattern.finditer(words.text, start, end):
            after = _FROM_TO.match(words.text, now.end(), end)
            before = words.text[max(start, now.start() - 5):now.start()]
            if after and before.endswith("from ") and not words.used(now.start(), now.end()):
                words.mark(now.start() - 5, after.end())
            # "night instead of dusk" / "night rather than dusk": the one after is what it has now, not a change
            instead = _INSTEAD_OF.search(words.text, max(start, now.start() - 16), now.start())
            if instead and instead.end() == now.start() and not words.used(now.start(), now.end()):
                words.mark(instead.start(), now.end())
    lighting = _first(words, _LIGHTING, start, end)
    if lighting:
        edit.changes["lighting"] = lighting[0]
        understood.append(f"lighting: {lighting[0]} ('{lighting[1]}')")
    for constraint in read_constraints(words, start, end):
        edit.keep.append(constraint)
        understood.append(f"keep: {constraint}")
    if not edit.changes and not edit.relative:
        noun = words.peek(_LIGHTING_NOUN_WORDS, start, end)
        verb = words.peek(_RELIGHT, start, end)
        if noun is not None and verb is not None:
            words.take(_LIGHTING_NOUN_WORDS, start, end, first=True)
            words.take(_RELIGHT, start, end, first=True)
            edit.redo = "lighting"
            understood.append("redo: a different lighting")
        elif words.take(_REDO_WORDS, start, end, first=True):
            edit.redo = "take"
            understood.append("redo: another take")
    else:  # "redo shot 2 with a wider angle": the verb says how, the change says what
        words.take(_REDO_WORDS, start, end)
        words.take(_RELIGHT, start, end)
    return edit
