"""A page's look as named design tokens: each one a CSS custom property on ``:root``, so a change is one token.

The page's CSS (:func:`content.web_render.render_html`) reads every size, colour
and font through ``var(--token)``; the values come from the design a brief was
read into (:func:`content.web_render.base_tokens`) with a page's own overrides on top.  So "make the
headline bigger" is ``--headline-size: 56px`` becoming ``70px`` in the page's
``<style>``, and nothing else in the CSS moves.

Two tokens are presets that stand for several: ``spacing`` (compact, normal,
generous: section padding, content width, line height, grid gap, nav height)
and ``palette`` (a colour or a colour word: the page's five colours, derived the
way a brief's hue is).  :func:`parse_value` turns what a person or a model says
("72px", "+8px", "bigger", "green", "#0a8f3c", "serif", "Georgia", "darker")
into a checked CSS value, or raises :class:`BadTokenValue` saying what is allowed.
"""

from __future__ import annotations

import colorsys
import re
from dataclasses import dataclass
from typing import Literal

from PIL import ImageColor

from content.brief import HUE_WORDS
from tools.base import ToolError

TokenKind = Literal["length", "colour", "font", "weight", "number"]


class UnknownToken(ToolError):
    """A style token the page does not have; the message lists the ones it has."""


class BadTokenValue(ToolError):
    """A value a token cannot take (not a size, not a colour, out of range); the message says what it can."""


@dataclass(frozen=True)
class Token:
    """One design token: its CSS property name, what kind of value it takes, its range, and what it styles."""

    name: str
    kind: TokenKind
    styles: str
    low: float = 0.0
    high: float = 0.0


TOKENS: dict[str, Token] = {t.name: t for t in (
    Token("headline-size", "length", "the hero headline (h1) font size", 16, 200),
    Token("heading-size", "length", "section headings (h2) font size", 12, 120),
    Token("text-size", "length", "body text font size", 10, 40),
    Token("heading-font", "font", "the font of the headline, headings and brand"),
    Token("body-font", "font", "the font of body text"),
    Token("heading-weight", "weight", "the weight of the headline and headings", 100, 900),
    Token("line-height", "number", "body line height", 1.0, 2.6),
    Token("background", "colour", "the page background"),
    Token("text-colour", "colour", "body text colour"),
    Token("surface", "colour", "the background of figures and form fields"),
    Token("accent", "colour", "links, section headings and the hero backdrop"),
    Token("accent-2", "colour", "the second accent (headings on a dark theme)"),
    Token("muted", "colour", "captions, rules and the footer"),
    Token("button-colour", "colour", "the call-to-action and form buttons' background"),
    Token("button-text-colour", "colour", "the buttons' text colour"),
    Token("button-radius", "length", "the buttons' corner radius", 0, 60),
    Token("radius", "length", "the corner radius of images and fields", 0, 60),
    Token("section-padding", "length", "space above and below each section", 0, 300),
    Token("content-width", "length", "the width of the page's content column", 480, 1800),
    Token("grid-gap", "length", "the gap between gallery pictures", 0, 120),
    Token("nav-height", "length", "the height of the top navigation bar", 32, 160),
    Token("hero-height", "length", "the height of the hero picture (the frame behind or below the headline)", 160,
          1400),
)}
"""Every token a page's CSS reads, by name (the CSS property is ``--`` + the name)."""

PRESETS = {"spacing": "compact, normal or generous (or 'more' / 'less'): sets section-padding, content-width, "
                      "line-height, grid-gap and nav-height together",
           "palette": "a colour ('teal', 'green', '#1a7f8c'): the page's background, text and accent colours "
                      "derived from its hue; or 'darker' / 'lighter': every one of them darker or lighter",
           "fonts": "a family word or a font name: heading-font and body-font together ('use a serif font')"}
"""Tokens that stand for several (see :func:`spacing_tokens` and the palette in :mod:`content.web_render`)."""

SPACING: dict[str, dict[str, str]] = {
    "compact": {"section-padding": "32px", "content-width": "1200px", "line-height": "1.4", "grid-gap": "12px",
                "nav-height": "56px"},
    "normal": {"section-padding": "56px", "content-width": "1100px", "line-height": "1.55", "grid-gap": "20px",
               "nav-height": "64px"},
    "generous": {"section-padding": "112px", "content-width": "980px", "line-height": "1.75", "grid-gap": "40px",
                 "nav-height": "88px"},
}
"""What each spacing preset sets."""
SPACING_ORDER = ("compact", "normal", "generous")

_SANS = '"Helvetica Neue", Arial, "Liberation Sans", "DejaVu Sans", sans-serif'
FONT_FAMILIES: dict[str, str] = {
    "serif": 'Georgia, "DejaVu Serif", serif',
    "sans": _SANS,
    "sans-serif": _SANS,
    "mono": '"DejaVu Sans Mono", "Liberation Mono", monospace',
    "monospace": '"DejaVu Sans Mono", "Liberation Mono", monospace',
    "rounded": '"Trebuchet MS", "Comic Neue", "DejaVu Sans", sans-serif',
    "display": 'Impact, "Arial Black", "DejaVu Sans Condensed", "DejaVu Sans", sans-serif',
    "book": 'Palatino, "Palatino Linotype", "URW Palladio L", serif',
}
"""Font stacks a family word asks for (fonts a machine has without the network)."""
_SERIF_NAMES = frozenset({"georgia", "times", "times new roman", "palatino", "garamond", "baskerville", "dejavu serif",
                          "liberation serif", "book antiqua", "cambria", "merriweather", "playfair display"})
_MONO_NAMES = frozenset({"courier", "courier new", "consolas", "menlo", "monaco", "dejavu sans mono",
                         "liberation mono", "fira code", "jetbrains mono"})

_LARGER = ("larger", "bigger", "big", "up", "increase", "more", "taller", "higher")
_SMALLER = ("smaller", "small", "down", "decrease", "less", "shorter", "lower")
_STEP = 1.25


def spacing_tokens(value: str, current: dict[str, str]) -> tuple[str, dict[str, str]]:
    """The preset a spacing word names (or steps to, from the current tokens) and the tokens it sets."""
    word = value.strip().lower()
    aliases = {"tight": "compact", "tighter": "-", "dense": "compact", "default": "normal", "medium": "normal",
               "airy": "generous", "spacious": "generous", "loose": "generous", "looser": "+", "roomy": "generous",
               "more": "+", "less": "-", "larger": "+", "smaller": "-", "wider": "+", "narrower": "-"}
    word = aliases.get(word, word)
    if word in ("+", "-"):
        now = next((name for name, values in SPACING.items()
                    if values["section-padding"] == current.get("section-padding")), "normal")
        index = SPACING_ORDER.index(now) + (1 if word == "+" else -1)
        if not 0 <= index < len(SPACING_ORDER):
            raise BadTokenValue(f"spacing is already {now}; the presets are {', '.join(SPACING_ORDER)}")
        word = SPACING_ORDER[index]
    if word not in SPACING:
        raise BadTokenValue(f"spacing can be {', '.join(SPACING_ORDER)}, 'more' or 'less', not {value!r}")
    return word, dict(SPACING[word])


def parse_value(name: str, value: str | float, current: str) -> str:
    """``value`` as the CSS value token ``name`` takes, read relative to ``current`` where it is relative."""
    token = TOKENS.get(name)
    if token is None:
        raise UnknownToken(f"the page has no style token {name!r}; tokens: {', '.join([*TOKENS, *PRESETS])}")
    text = str(value).strip()
    if not text:
        raise BadTokenValue(f"{name} needs a value")
    if token.kind == "length":
        return f"{_in_range(token, _length(text, _number(current)))}px"
    if token.kind == "number":
        return _trim(_in_range(token, _scaled(text, _number(current), step=0.15, additive=True)))
    if token.kind == "weight":
        return str(int(_in_range(token, _weight(text, _number(current)))))
    if token.kind == "colour":
        return colour(text, current)
    return font_stack(text)


def colour(text: str, current: str | None = None) -> str:
    """A colour as ``#rrggbb``: hex, a CSS colour name, or 'darker' / 'lighter' than ``current``."""
    word = text.strip().lower().replace("grey", "gray").replace("colour", "").strip()
    if word in ("darker", "lighter", "brighter") and current:
        hue, lightness, saturation = colorsys.rgb_to_hls(*(c / 255 for c in ImageColor.getrgb(current)))
        lightness = max(0.0, lightness - 0.15) if word == "darker" else min(1.0, lightness + 0.15)
        return _hex(colorsys.hls_to_rgb(hue, lightness, saturation))
    word = re.sub(r"\s+", "", word)
    try:
        rgb = ImageColor.getrgb(word)
    except ValueError:
        raise BadTokenValue(f"{text!r} is not a colour; give #rrggbb, a CSS colour name such as 'green' or "
                            "'navy', or 'darker' / 'lighter'") from None
    return _hex(tuple(c / 255 for c in rgb[:3]))


def hue_of(text: str) -> tuple[float, float | None]:
    """The hue (0..1) a palette value asks for, and its saturation when the value is an exact colour."""
    word = text.strip().lower()
    if word in HUE_WORDS:
        return HUE_WORDS[word], None
    rgb = ImageColor.getrgb(colour(text))
    hue, _, saturation = colorsys.rgb_to_hls(*(c / 255 for c in rgb))
    return hue, saturation if saturation > 0.05 else 0.0


_STACK_NAME = r'(?:"[A-Za-z0-9 \-]{1,40}"|[A-Za-z][A-Za-z0-9 \-]{0,39})'
_STACK = re.compile(rf"{_STACK_NAME}(?:\s*,\s*{_STACK_NAME}){{1,7}}")
"""A CSS font stack of quoted or plain names ('"Trebuchet MS", "DejaVu Sans", sans-serif', as the page's own tokens
hold them: "use the same font as the headline for the body"); no character that could end the declaration."""


def font_stack(text: str) -> str:
    """A CSS font stack: a family word (serif, sans, mono, rounded, display, book), a font's name, or a stack of
    names."""
    word = text.strip().lower().removesuffix(" font").removesuffix(" fonts")
    if word in FONT_FAMILIES:
        return FONT_FAMILIES[word]
    if text.strip() in FONT_FAMILIES.values() or _STACK.fullmatch(text.strip()):
        return text.strip()
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9 \-]{0,39}", text.strip()):
        raise BadTokenValue(f"{text!r} is not a font; give serif, sans, mono, rounded, display, book, or a font "
                            "name of letters, digits and spaces")
    generic = "serif" if word in _SERIF_NAMES else "monospace" if word in _MONO_NAMES else "sans-serif"
    return f'"{text.strip()}", {FONT_FAMILIES[generic]}'


def token_for_words(words: str) -> str | None:
    """The token (or preset) a phrase names: 'the headline size' -> headline-size, 'button colour' ->
    button-colour, 'fonts' -> heading-font; None when it names none (what a planner can call)."""
    text = " ".join(re.findall(r"[a-z0-9]+", words.lower().replace("color", "colour")))
    table = (
        (r"\b(headline|title|hero heading|h1)\b.*\b(size|bigger|smaller|larger)\b|\bheadline size\b", "headline-size"),
        (r"\bhero\b.*\b(height|image|picture|photo|banner|taller|shorter)\b|\bhero (size|height)\b", "hero-height"),
        (r"\bbutton\b.*\btext\b.*\bcolour\b", "button-text-colour"),
        (r"\bbutton\b.*\b(colour|background)\b|\bcolour of the button", "button-colour"),
        (r"\bbutton\b.*\b(radius|corners?|round)", "button-radius"),
        (r"\b(section )?headings?\b.*\bsize\b", "heading-size"),
        (r"\b(body|text)\b.*\bsize\b|\bfont size\b", "text-size"),
        (r"\bbody\b.*\b(font|typeface)\b", "body-font"),
        (r"\b(fonts?|typefaces?|typography)\b", "heading-font"),
        (r"\bweight\b|\bbolder\b", "heading-weight"),
        (r"\bline height\b|\bleading\b", "line-height"),
        (r"\bpalette\b|\bcolour scheme\b|\bcolours\b", "palette"),
        (r"\bbackground\b", "background"),
        (r"\btext colour\b", "text-colour"),
        (r"\baccent\b", "accent"),
        (r"\b(spacing|whitespace|white space|padding|space)\b", "spacing"),
        (r"\b(corners?|radius|rounded)\b", "radius"),
        (r"\bgap\b", "grid-gap"),
    )
    return next((name for pattern, name in table if re.search(pattern, text)), None)


def _number(value: str) -> float:
    found = re.match(r"-?\d+(?:\.\d+)?", str(value).strip())
    return float(found.group(0)) if found else 0.0


def _length(text: str, current: float) -> float:
    word = text.lower()
    found = re.fullmatch(r"([+-])?\s*(\d+(?:\.\d+)?)\s*(px|%|x|em|rem)?", word)
    if found:
        sign, amount, unit = found.group(1), float(found.group(2)), found.group(3) or "px"
        if unit == "%":
            return current * amount / 100 if not sign else current * (1 + (amount if sign == "+" else -amount) / 100)
        if unit == "x":
            return current * amount
        if unit in ("em", "rem"):
            amount *= 16
        return current + amount if sign == "+" else current - amount if sign == "-" else amount
    return _scaled(word, current, step=_STEP, additive=False)


def _scaled(word: str, current: float, *, step: float, additive: bool) -> float:
    word = word.lower().strip()
    found = re.fullmatch(r"([+-])?\s*(\d+(?:\.\d+)?)", word)
    if found:
        amount = float(found.group(2))
        return current + amount if found.group(1) == "+" else current - amount if found.group(1) == "-" else amount
    much = 2 if re.search(r"\b(much|a lot|way)\b", word) else 1
    if any(re.search(rf"\b{w}\b", word) for w in _LARGER) or word in ("looser", "taller", "wider"):
        return current + step * much if additive else current * step ** much
    if any(re.search(rf"\b{w}\b", word) for w in _SMALLER) or word in ("tighter", "shorter", "narrower"):
        return current - step * much if additive else current / step ** much
    raise BadTokenValue(f"{word!r} is not a size; give a number of px ('72px'), a change ('+8px', '125%'), "
                        "or 'bigger' / 'smaller'")


def _weight(text: str, current: float) -> float:
    names = {"thin": 100, "light": 300, "normal": 400, "regular": 400, "medium": 500, "semibold": 600, "bold": 700,
             "heavy": 900, "black": 900}
    word = text.lower().strip()
    if word in names:
        return names[word]
    if word in ("bolder", "heavier"):
        return min(900, current + 200)
    if word in ("lighter", "thinner"):
        return max(100, current - 200)
    if re.fullmatch(r"\d{3}", word) and int(word) % 100 == 0:
        return int(word)
    raise BadTokenValue(f"{text!r} is not a font weight; give 100-900 in hundreds, bold, normal, bolder or lighter")


def _in_range(token: Token, value: float) -> float:
    if not token.low <= value <= token.high:
        shown = _trim(value)
        raise BadTokenValue(f"{token.name} can be {_trim(token.low)} to {_trim(token.high)}"
                            f"{'px' if token.kind == 'length' else ''}, not {shown}")
    return round(value) if token.kind in ("length", "weight") else round(value, 2)


def _trim(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _hex(rgb: tuple[float, ...]) -> str:
    return "#" + "".join(f"{round(max(0.0, min(1.0, c)) * 255):02x}" for c in rgb[:3])


__all__ = ["FONT_FAMILIES", "PRESETS", "SPACING", "TOKENS", "BadTokenValue", "Token", "UnknownToken",
           "colour", "font_stack", "hue_of", "parse_value", "spacing_tokens", "token_for_words"]
