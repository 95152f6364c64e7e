"""Phrasings people type, said the way the request readers read them, before any reader sees the request.

Each rewrite is of a phrasing whose words the readers already know but whose shape they took apart wrongly or
not at all: a set's "but" ("all shots but shot 3", which edited the whole set), two positions sharing one noun
("the first and last shots"), a correction's leading "no," before an undo, and whole requests that mean "undo
that".  They work on the normalised text (lower case, numbers as digits, typos corrected).
"""

from __future__ import annotations

import re

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
    r"^\s*(?:(?:no|nope|nah|oops|ugh|hmm+|ok|okay|well|wait|sorry)|(?:that'?s|that is|this is) (?:wrong|not (?:right|it|"
    r"what i (?:wanted|asked for|meant))))\s*[,!.;]+\s*(?=\S)")
"""A leading "no," / "oops," / "that's wrong," before an undo: how a person takes a turn back, not part of what to
undo.  Before anything else it stays, and is asked about: "no, make shot 5 night instead" corrects the turn before
(shot 5 rather than shot 3), which making shot 5 night alone would not do."""
_AN_UNDO = re.compile(r"(?:undo|revert|reverse|take (?:that|this|it) back|take back|go back)\b")
_UNDO_SAID_OTHERWISE = re.compile(r"^\s*(?:revert|reverse|take back) (?:that|this)\s*[.!]*\s*$|"
                                  r"^\s*take (?:that|this) back\s*[.!]*\s*$|^\s*go back\s*[.!]*\s*$")
"""Whole requests that mean "undo that" (the turn before)."""


_OTHER_THAN = re.compile(r"\b(?:other than|apart from|aside from|excluding|with the exception of|save for)\b")
"""Ways of saying "except": "make all shots warmer other than shot 1".  "than" alone compares ("warmer than shot
1", which is asked about); "other than" never does, and was refused as a comparison."""

_ASKED_INDIRECTLY = re.compile(
    r"^\s*(?:(?:(?:can|could|would|will) you (?:please |kindly )?|please )?(?:tell|show) me|(?:do|does) (?:you|anyone) know"
    r"|i(?:'d| would) like to know|i want to know|i(?:'m| am)? wonder(?:ing)?|i was wondering)\s*,?\s+"
    r"(?=(?:which|what|how|where|when|who|whether|if)\b)")
"""A question asked through "can you tell me ...", "do you know ...", "I'd like to know ...": the question is what
follows.  Left in, "tell me" read as a command with no target ("which shot 'it' means")."""


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


def _shared_noun(text: str) -> str:
    return _FIRST_AND_LAST.sub(lambda m: f"the {m['first']} {m['unit']} and the {m['last']} {m['unit']}", text)


def _but_as_except(text: str) -> str:
    """"all shots but shot 3" as "all shots except shot 3"; a bare "all but" as "everything except"."""
    return _BUT_AFTER_A_SET.sub(lambda m: ("everything" if m["set"] == "all" else m["set"]) + " except ", text)


def rephrased(text: str) -> str:
    """``text`` with each of this module's phrasings said the readers' way."""
    return _plainly(_shared_noun(_but_as_except(_except_said_otherwise(_question_said_directly(text)))))
