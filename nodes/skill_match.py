"""Which skill a request asks for, and its arguments read from the request's own words.

:func:`match_skill` is a pure function of the request and the skills' descriptions
(name, description, input schema, trigger phrases): no canvas, no model.  A request
*asks for* a skill when it uses one of the skill's trigger phrases or names it ("make a
**poster** titled Night Harbour in neon" names ``poster``).  The arguments are read
from the input schema:

* an enum field takes a value the request names (``neon`` for ``style``), with the
  preposition before it (``in neon``);
* a string field takes the words after one of its cues, up to the next cue (of any field),
  value or punctuation: the field's name (``title Night Harbour``), its verb forms (``titled``,
  ``called``, ``named`` for a title; ``about`` for a topic; ...), or a quoted string
  right after the cue (``titled "Love in Paris"``);
* a number field takes a number next to its name (``3 columns``, ``columns 3``);
* a boolean field is true when its name is said, false after ``no``/``without``.

The match says which words it used and which content words it could not place: an
interpreter that acts on a match with ``unused`` words would drop part of the request,
so it must ask instead (:attr:`SkillMatch.complete`).  Filler words (articles, "please",
"make", ...) and connectives ("and", "then") are neither used nor unused.

Trigger phrases travel to the model in the skill tool's description
(:func:`describe_skill`), so the offline planner reads them from the tools it is
bound with, exactly what a real model is shown (:func:`skill_descriptions`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel, Field

SKILL_TOOL_PREFIX = "skill__"
"""A skill is offered to the model as the tool ``skill__<name>``."""

_TRIGGERS_LEAD = " Ask for it with: "

WORKFLOW_SKILLS = frozenset({"storyboard", "reference_images", "video_clips", "critique", "explore", "design_to_web",
                             "web_revise", "slides"})
"""Built-in skills whose requests other readers plan (a story, a page, a deck, an exploration, edits): a request
naming "slides" is a deck to plan, not a bare ``skill__slides`` call."""


class SkillDescription(Protocol):
    """What :func:`match_skill` reads of a skill (``nodes.manifest.SkillInfo`` is one)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    triggers: list[str]


@dataclass(frozen=True)
class DescribedSkill:
    """A skill as a bound tool describes it (see :func:`skill_descriptions`)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    triggers: list[str]


class SkillMatch(BaseModel):
    """A skill a request asks for, with the arguments its words give."""

    skill: str
    tool: str = Field(description="The tool that runs the skill: skill__<name>")
    phrase: str = Field(description="The words that asked for the skill (a trigger phrase or its name)")
    arguments: dict[str, Any] = Field(default_factory=dict)
    used: list[str] = Field(default_factory=list, description="The request's words this match used, in order")
    unused: list[str] = Field(default_factory=list, description="Content words no part of the match explains")
    missing: list[str] = Field(default_factory=list, description="Required inputs the request does not give")

    @property
    def complete(self) -> bool:
        """Whether every content word is used and every required input given: safe to act on."""
        return not self.unused and not self.missing


# -- the description a model sees -------------------------------------------------------------------------------
def describe_skill(description: str, triggers: Sequence[str]) -> str:
    """The skill tool's description: the skill's own, then its trigger phrases (the model reads when to call it)."""
    if not triggers:
        return description
    return f"{description.rstrip()}{_TRIGGERS_LEAD}{'; '.join(repr_phrase(t) for t in triggers)}."


def repr_phrase(phrase: str) -> str:
    """A trigger phrase as the description quotes it."""
    return f"'{' '.join(phrase.split())}'"


def split_description(text: str) -> tuple[str, list[str]]:
    """(description, triggers) from a description :func:`describe_skill` wrote."""
    head, lead, tail = text.partition(_TRIGGERS_LEAD)
    if not lead:
        return text, []
    return head, [t.strip().strip("'") for t in tail.rstrip(".").split("; ") if t.strip().strip("'")]


def skill_descriptions(tools: Iterable[Mapping[str, Any]]) -> list[DescribedSkill]:
    """The skills among OpenAI-format tool schemas (what ``bind_tools`` gets), with their trigger phrases."""
    found = []
    for tool in tools:
        function = tool.get("function", tool)
        name = str(function.get("name") or "")
        if not name.startswith(SKILL_TOOL_PREFIX):
            continue
        description, triggers = split_description(str(function.get("description") or ""))
        found.append(DescribedSkill(name=name[len(SKILL_TOOL_PREFIX):], description=description,
                                    input_schema=dict(function.get("parameters") or {}), triggers=triggers))
    return found


# -- words --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Token:
    text: str
    quoted: bool = False
    separator: bool = False

    @property
    def key(self) -> str:
        return _normal(self.text)


_TOKENS = re.compile(
    r'"(?P<dq>[^"]+)"|“(?P<cq>[^”]+)”|(?<![\w])\'(?P<sq>[^\']+)\'(?![\w])'
    r"|(?P<word>[0-9]+(?:\.[0-9]+)?(?:-[A-Za-z]+)?|[A-Za-z][\w'’-]*)|(?P<sep>[,;:.!?()])")

FILLERS = frozenset("""a an the some any one new please kindly me us i we you it can could would will want like to
just now also make create draw build generate design render produce run use do add give get with quick little
let let's lets for""".split())
"""Words that carry no content of their own; a match neither uses them nor leaves them unused."""

_STOPS = frozenset({"and", "but", "then", "with", "plus"})
_NEGATIONS = frozenset({"no", "without", "not", "non"})
_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}

CUES: dict[str, tuple[str, ...]] = {
    "title": ("titled", "entitled", "called", "named", "title"),
    "name": ("named", "called", "name"),
    "headline": ("headline", "headlined", "titled"),
    "text": ("saying", "that says", "which says", "reading", "text"),
    "caption": ("captioned", "caption", "saying"),
    "message": ("saying", "message"),
    "subject": ("about", "of", "subject"),
    "topic": ("about", "on", "topic"),
    "theme": ("about", "theme", "themed"),
    "premise": ("about", "premise"),
    "prompt": ("of", "showing", "prompt"),
    "description": ("showing", "description"),
    "style": ("in", "in the style of", "style", "styled"),
    "mood": ("mood", "feeling"),
    "color": ("in", "coloured", "colored", "color", "colour"),
    "colour": ("in", "coloured", "colored", "color", "colour"),
    "lighting": ("lit", "lighting"),
    "author": ("by", "author"),
    "tagline": ("tagline", "with the tagline"),
    "node_id": ("for", "of", "on"),
}
"""Words that introduce a field's value, by field name (the field's own name always does too)."""

_LINKS = frozenset({"in", "with", "at", "as", "using", "of", "on", "for"})


def _normal(word: str) -> str:
    word = word.lower().replace("’", "'")
    return word[:-2] if word.endswith("'s") else word


def _tokens(request: str) -> list[_Token]:
    found: list[_Token] = []
    for m in _TOKENS.finditer(request):
        quoted = m.group("dq") or m.group("cq") or m.group("sq")
        if quoted is not None:
            found.append(_Token(quoted.strip(), quoted=True))
        elif m.group("sep"):
            found.append(_Token(m.group("sep"), separator=True))
        else:
            found.append(_Token(m.group("word")))
    return found


def _words(phrase: str) -> list[str]:
    return [_normal(t.text) for t in _tokens(phrase) if not t.separator]


def _same(word: str, token: str) -> bool:
    """A phrase word against a request word: equal, or the request's plural of it."""
    return token == word or token in (word + "s", word + "es") or (word.endswith("y") and token == word[:-1] + "ies")


# -- which skill ---------------------------------------------------------------------------------------------------
def _phrases(skill: SkillDescription) -> list[tuple[str, list[str]]]:
    named = " ".join(skill.name.replace("_", " ").replace("-", " ").split())
    phrases = [(t, _words(t)) for t in skill.triggers or []] + [(named, _words(named))]
    return [(text, [w for w in words if w not in FILLERS] or words) for text, words in phrases if words]


def _find_phrase(words: list[str], tokens: list[_Token]) -> list[int] | None:
    """Token indices of ``words`` in the request, in order and contiguous but for filler words between them."""
    for start, token in enumerate(tokens):
        if token.quoted or token.separator or not _same(words[0], token.key):
            continue
        at, positions = start, [start]
        for word in words[1:]:
            at += 1
            while at < len(tokens) and not tokens[at].quoted and tokens[at].key in FILLERS and tokens[at].key != word:
                at += 1
            if at >= len(tokens) or tokens[at].quoted or not _same(word, tokens[at].key):
                break
            positions.append(at)
        else:
            return list(range(positions[0], positions[-1] + 1))
    return None


def match_skill(request: str, skills: Sequence[SkillDescription]) -> SkillMatch | None:
    """The skill ``request`` asks for (by a trigger phrase or its name) and the arguments its words give, or None.

    Of several skills asked for, the one with the longest phrase wins (then the earliest in the request,
    then the first given).  The match is returned even when words are left over or required inputs are
    missing: the caller asks the person then (see :attr:`SkillMatch.complete`).
    """
    tokens = _tokens(request)
    best: tuple[int, int, int, SkillDescription, str, list[int]] | None = None
    for order, skill in enumerate(skills):
        for text, words in _phrases(skill):
            positions = _find_phrase(words, tokens)
            if positions is None:
                continue
            rank = (-len(words), positions[0], order)
            if best is None or rank < best[:3]:
                best = (*rank, skill, text, positions)
    if best is None:
        return None
    *_, skill, phrase, positions = best
    used = set(positions)
    arguments, missing = _arguments(skill.input_schema or {}, tokens, used)
    return SkillMatch(
        skill=skill.name, tool=SKILL_TOOL_PREFIX + skill.name, phrase=phrase, arguments=arguments,
        used=[tokens[i].text for i in sorted(used)],
        unused=[t.text for i, t in enumerate(tokens)
                if i not in used and not t.separator and (t.quoted or t.key not in FILLERS | _STOPS)],
        missing=missing)


# -- its arguments -------------------------------------------------------------------------------------------------
@dataclass
class _Field:
    name: str
    kind: str
    enum: list[str]
    required: bool
    cues: list[list[str]]


def _resolve(node: Mapping[str, Any], defs: Mapping[str, Any]) -> dict[str, Any]:
    node = dict(node)
    ref = node.pop("$ref", None)
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        node = {**dict(defs.get(ref.rsplit("/", 1)[-1]) or {}), **node}
    for combinator in ("anyOf", "oneOf", "allOf"):
        options = [o for o in node.get(combinator) or [] if o != {"type": "null"}]
        if options:
            node = {**_resolve(options[0], defs), **{k: v for k, v in node.items() if k != combinator}}
    return node


def _fields(schema: Mapping[str, Any]) -> list[_Field]:
    defs = schema.get("$defs") or {}
    required = set(schema.get("required") or [])
    fields = []
    for name, raw in (schema.get("properties") or {}).items():
        prop = _resolve(raw, defs)
        kind = str(prop.get("type") or ("string" if prop.get("enum") else "object"))
        enum = [str(v) for v in prop.get("enum") or [] if isinstance(v, str)]
        if kind == "array":
            item = _resolve(prop.get("items") or {}, defs)
            enum = [str(v) for v in item.get("enum") or [] if isinstance(v, str)]
            kind = "enum_list" if enum else "array"
        named = " ".join(name.replace("_", " ").split())
        cues = [_words(c) for c in dict.fromkeys([*CUES.get(name, ()), named])]
        fields.append(_Field(name=name, kind="enum" if enum and kind != "enum_list" else kind, enum=enum,
                             required=name in required and "default" not in prop, cues=[c for c in cues if c]))
    return fields


def _at(words: list[str], tokens: list[_Token], start: int, used: set[int]) -> bool:
    if start + len(words) > len(tokens):
        return False
    return all(start + k not in used and not tokens[start + k].quoted and not tokens[start + k].separator
               and _same(w, tokens[start + k].key) for k, w in enumerate(words))


def _number(token: _Token) -> int | float | None:
    key = token.key.split("-")[0]
    if key in _NUMBER_WORDS:
        return _NUMBER_WORDS[key]
    try:
        return float(key) if "." in key else int(key)
    except ValueError:
        return None


def _arguments(schema: Mapping[str, Any], tokens: list[_Token], used: set[int]) -> tuple[dict[str, Any], list[str]]:
    fields = _fields(schema)
    values: dict[str, Any] = {}

    def take(indices: Iterable[int]) -> None:
        used.update(indices)

    def link_before(index: int, field: _Field) -> None:
        """Use the preposition or cue just before a value ("in neon", "style neon")."""
        for cue in sorted(field.cues, key=len, reverse=True):
            start = index - len(cue)
            if start >= 0 and _at(cue, tokens, start, used):
                take(range(start, index))
                return
        if index > 0 and index - 1 not in used and tokens[index - 1].key in _LINKS:
            take([index - 1])

    # 1. enums: a value the request names, wherever it stands.
    for field in fields:
        if field.kind not in ("enum", "enum_list"):
            continue
        for value in field.enum:
            spellings = [w for w in (_words(value.replace("_", "-")), _words(value.replace("_", " ").replace("-", " ")))
                         if w]
            found = next(((start, words) for words in spellings for start in range(len(tokens))
                          if _at(words, tokens, start, used)), None)
            if found is None:
                continue
            start, words = found
            take(range(start, start + len(words)))
            link_before(start, field)
            if field.kind == "enum":
                values[field.name] = value
                break
            values.setdefault(field.name, []).append(value)

    # 2. numbers: next to the field's name ("3 columns", "columns: 3", "a 5-slide ...").
    for field in fields:
        if field.kind not in ("integer", "number") or field.name in values:
            continue
        for cue in field.cues:
            for start in range(len(tokens)):
                if not _at(cue, tokens, start, used):
                    continue
                after = start + len(cue)
                after += 1 if after < len(tokens) and tokens[after].text in (":", "=") else 0
                before = start - 1
                for index in (before, after):
                    if 0 <= index < len(tokens) and index not in used and (n := _number(tokens[index])) is not None:
                        values[field.name] = int(n) if field.kind == "integer" else n
                        take([*range(start, after), index])
                        break
                if field.name in values:
                    break
            if field.name in values:
                break

    # 3. booleans: the field's name said ("with a border"), negated by no/without.
    for field in fields:
        if field.kind != "boolean" or field.name in values:
            continue
        for cue in field.cues:
            start = next((s for s in range(len(tokens)) if _at(cue, tokens, s, used)), None)
            if start is None:
                continue
            negated = start > 0 and tokens[start - 1].key in _NEGATIONS and start - 1 not in used
            values[field.name] = not negated
            take(range(start - 1 if negated else start, start + len(cue)))
            break

    # 4. strings: the words after a cue, up to the next cue, value, stop word or punctuation.
    strings = [f for f in fields if f.kind == "string" and f.name not in values]
    starts = [(s, f, cue) for f in strings for cue in f.cues for s in range(len(tokens)) if _at(cue, tokens, s, used)]
    # A value ends where any other field's cue begins: "titled Dawn in sepia" leaves "in sepia" (a style it does
    # not know) unplaced, so the request is a question; a title with such a word in it is quoted.
    cue_starts = {s for f in fields for cue in f.cues for s in range(len(tokens)) if _at(cue, tokens, s, used)}
    for start, field, cue in sorted(starts, key=lambda x: (x[0], -len(x[2]))):
        if field.name in values or start in used:
            continue
        at = start + len(cue)
        at += 1 if at < len(tokens) and tokens[at].text in (":", "=") else 0
        if at < len(tokens) and tokens[at].quoted and at not in used:
            values[field.name] = tokens[at].text
            take(range(start, at + 1))
            continue
        end = at
        while (end < len(tokens) and end not in used and not tokens[end].separator and not tokens[end].quoted
               and tokens[end].key not in _STOPS and (end == at or end not in cue_starts)):
            end += 1
        while end > at and tokens[end - 1].key in FILLERS | _LINKS:
            end -= 1  # "titled Night Harbour for the" keeps "Night Harbour"
        if end > at:
            values[field.name] = " ".join(t.text for t in tokens[at:end])
            take(range(start, end))

    missing = [f.name for f in fields if f.required and f.name not in values]
    return values, missing


__all__ = ["CUES", "FILLERS", "DescribedSkill", "SkillDescription", "SkillMatch", "describe_skill",
           "match_skill", "skill_descriptions", "split_description"]
