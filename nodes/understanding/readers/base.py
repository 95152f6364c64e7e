"""What a domain reader is: words in, clauses (or a clarification) out, with the words it used taken.

A domain (shots, questions, notes, page, slides, versions, cut, ...) plugs its reader into
:data:`nodes.understanding.readers.READERS`; the interpreter offers each request to the readers in order
and the first that returns a :class:`Reading` decides it.  ``docs/requests.md`` ("Adding a domain")
shows how a new tool's words become an operation.
"""

from __future__ import annotations

import re

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from nodes.understanding.facts import CanvasFacts
from nodes.understanding.intent import Clarification, Clause
from nodes.understanding.rephrasings import numbers_apart
from nodes.understanding.text import Words


@dataclass
class PreviousTurn:
    """The turn before this one (what "that", "the same", "do the same to shot 5" refer to)."""

    turn_id: str | None = None
    request: str = ""
    targets: list[str] = field(default_factory=list)
    clauses: list[dict[str, Any]] = field(default_factory=list)
    touched: list[str] = field(default_factory=list)


@dataclass
class ReadContext:
    """What a reader reads: the words (original and normalised), the project's facts, the turn before."""

    request: str
    words: Words
    facts: CanvasFacts
    previous: PreviousTurn
    answer: str | None = None
    """A person's answer to this turn's question (an id), when the turn is resumed with one."""
    skills: Sequence[Any] = ()
    """The project's skills as the manifest lists them (``nodes.manifest.SkillInfo``): what a request may name."""


@dataclass
class Reading:
    """What a reader understood: clauses to carry out, or a clarification (and never both acted on)."""

    clauses: list[Clause] = field(default_factory=list)
    clarification: Clarification | None = None


class DomainReader(Protocol):
    """One domain's words → operations."""

    name: str

    def read(self, ctx: ReadContext) -> Reading | None:
        """The reading of the request, or None when it is not this domain's."""


def unsupported(ctx: ReadContext, operation: str, what: str, *, domain: str) -> Reading:
    """A recognised operation no tool carries out yet: an honest clarification, never another edit."""
    ctx.words.take_all()
    return Reading(clarification=Clarification(
        reason="unsupported", operation=operation, understood=[f"{domain}: {what}"],
        message=(f"I understood this as {what}, but {operation.replace('_', ' ')} is not available yet: "
                 "I changed nothing. I can edit shots' images (lighting, framing, weather, outfit), answer "
                 "questions about the canvas, add notes, and build a story, a web page or a deck.")))


def not_found(ctx: ReadContext, what: str, message: str, *, understood: list[str] | None = None) -> Reading:
    """The request names something the project does not hold."""
    ctx.words.take_all()
    return Reading(clarification=Clarification(reason="not_found", message=message, missing=[what],
                                               understood=understood or []))


def with_a_change(ctx: ReadContext, first: str, change: re.Match[str], message: str) -> Reading:
    """A request whose reader keeps its words whole (a question, an exploration's instruction, a note, a build's
    brief) followed by a change (``text.THEN_A_CHANGE``): the change would be read by nobody and the first part
    done, exit 0, so neither is done and the person is asked to say them one at a time."""
    ctx.words.take_all()
    return Reading(clarification=Clarification(
        reason="unsupported", understood=[first, f"a change ('{change.group('verb')} ...')"], message=message))


TRIM = " \t.,;:!?'\"“”‘’"
"""Quotes and punctuation around a phrase, trimmed off the words as typed."""


def typed(ctx: ReadContext, start: int, end: int, *, trim: bool = True) -> str:
    """The request's own words (case and spelling as typed) for a span of the normalised text, trimmed of the
    quotes and punctuation around it (``trim``; a quoted phrase keeps its own)."""
    text = ctx.words.text
    spans = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    original = ctx.request.split()
    inside = [i for i, (s, e) in enumerate(spans) if s < end and e > start]
    if not inside:
        return ""
    if len(original) != len(spans):  # "delete slide4": read as "slide 4" (``rephrasings.numbers_apart``)
        original = words_apart(ctx.request, [text[s:e] for s, e in spans])
    if len(original) != len(spans):  # never expected: fall back to the normalised words
        return text[start:end].strip(TRIM if trim else "")
    first, last = inside[0], inside[-1]
    words = list(original[first:last + 1])
    # A span that starts or ends inside a word (after an opening quote, before a comma) cuts the typed word alike.
    head_cut = max(0, start - spans[first][0])
    tail_cut = max(0, spans[last][1] - end)
    # Both cuts are measured on the words as typed: one quoted word ("'Hello'") is cut at both ends.
    whole = [len(w) == spans[first + i][1] - spans[first + i][0] for i, w in enumerate(words)]
    if tail_cut and whole[-1]:
        words[-1] = words[-1][: len(words[-1]) - tail_cut]
    if head_cut and whole[0]:
        words[0] = words[0][head_cut:]
    return " ".join(words).strip(TRIM if trim else "")


def words_apart(request: str, read: list[str]) -> list[str]:
    """The request's words as typed, with a number typed against its noun split as the normalised text (``read``,
    its words) has it ("Delete Slide4" → "Delete", "Slide4" → "Slide", "4"), when the split words are the normalised
    text's words at their places; else as typed (and the caller falls back to the normalised words)."""
    split: list[str] = []
    for word in request.split():
        pieces = numbers_apart(word, always=True).split()
        if len(pieces) > 1 and [w.lower() for w in pieces] != [w.lower() for w in read[len(split):len(split) + 2]]:
            return request.split()
        split.extend(pieces)
    return split if len(split) == len(read) else request.split()
