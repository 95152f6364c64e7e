"""Questions, answered from the canvas and never changing it.

"which shots are at night?" (a filter on the shots' current images), "how many versions of shot 3 are
there?", "what is on the canvas?", "which notes mention pelicans?", "what changed in the last turn?", "which slides mention pedals?", "what does the headline say?",
"what lighting is shot 4?", "how many images are there", "list the slides".  The question's words are
accounted for like an edit's: a question with a word the reader does not understand is asked about.
"""

from __future__ import annotations

import re

from content.page_style import token_for_words
from nodes.models.grammar import read_edit
from nodes.understanding.decks import deck_candidates, which_deck, which_deck_question
from nodes.understanding.intent import Clarification, Clause, Target
from nodes.understanding.readers.base import ReadContext, Reading, with_a_change
from nodes.understanding.readers.content import typed
from nodes.understanding.references import Found, ambiguous_message, find_references, read_film, resolve_targets
from nodes.understanding.text import THEN_A_CHANGE, Words

_TAG_QUESTION = r",\s*(?:right|correct|yeah|yes|isn't it|aren't they|is it|are they|didn't you|did you)\s*\??\s*$"
"""A statement made a question by its tag ("shot 2 is at dusk, right?")."""
_HOW_IT_IS = r"how (?!many\b|much\b)[a-z-]+ (?:is|are|was|were|does|do|did)\b"
"""'how dark is shot 3', 'how big is the headline': a question on a degree (an edit, read as one: shot 3 darkened)."""
_QUESTION = re.compile(r"^\s*(?:" + _HOW_IT_IS + r"|how many|how much|which|what|what's|whats|where|who|list|show|tell me|is|are|does|do|"
                       r"did|was|were|isn't|aren't|wasn't|weren't|doesn't|didn't|hasn't|haven't|should|shouldn't|"
                       r"has (?:you|we|i|they|it|shot|the)|(?:have|had) (?:you|we|i|they)|can you tell|give me a list|describe)\b|\?\s*$|"
                       + _TAG_QUESTION)
KINDS: dict[str, str] = {"image": "image", "images": "image", "picture": "image", "pictures": "image",
                         "video": "video", "videos": "video", "clip": "video", "clips": "video", "shot": "shot",
                         "shots": "shot", "slide": "slide", "slides": "slide", "reference": "reference",
                         "references": "reference", "audio": "audio", "sounds": "audio", "page": "code",
                         "pages": "code", "web": "web", "note": "text", "notes": "text", "text": "text", "texts": "text",
                         "deck": "deck", "decks": "deck", "plan": "plan", "plans": "plan", "nodes": "", "things": ""}
_KIND = re.compile(r"\b(" + "|".join(sorted(KINDS, key=len, reverse=True)) + r")\b")
_LEAD = re.compile(r"^\s*(?:how many|how much|which|what(?:'s| is| are| does| did)?|whats|list(?: all)?|show(?: me)?|"
                   r"tell me|give me a list of|can you tell me|is|are|does|do|did)\b")
_TAIL = re.compile(r"\b(?:are there|is there|are|is|there|exist|in total|so far|on the canvas|of them|do we have|"
                   r"have we got|currently|right now|now|at the moment|have|has|does|in|at|set|with|the|a|an|all|nodes?|"
                   r"items?|things?|of)\b|\?")
_A_DECK = re.compile(r"\b(?:slide deck|deck|presentation|slideshow)\b")
"""A deck word in a question about slides: which deck is then read (``which_deck``), and asked about when unknown."""
_VERSIONS = re.compile(r"\bhow many versions?\b|\bversions? (?:of|does|do)\b|\bversion count\b")
_LAST_TURN = re.compile(r"\bwhat (?:has |did |was )?(?:changed?|change|you change|happen(?:ed)?)\b.*\b(?:last|previous) "
                        r"(?:turn|request|edit|step|time)\b|\bwhat did (?:you|the last turn|the previous turn) "
                        r"(?:just )?(?:change|do|make)\b|\bwhat (?:was|has been|got) changed\b|\bwhat changed\b|"
                        r"\b(?:which|what) (?:shots?|images?|clips?|slides?|sections?|nodes?|things?) (?:did|have) you "
                        r"(?:just )?(?:change|changed|edit|edited|touch|touched|make|made|redo|redid|fix|fixed)\b")
"""What the last turn changed ("what did you just do", "which shots did you change?": that was answered with every
shot, the question's last words read as fillers)."""
_OVERVIEW = re.compile(r"^\s*(?:what(?:'s| is| do we have| have we got)?|whats|show me) (?:on|in) (?:the |this |my |our )?"
                       r"(?:canvas|project|board)\s*\??\s*$|^\s*what(?:'s| is) there\s*\??\s*$|"
                       r"^\s*what do (?:we|i) have(?: so far)?\s*\??\s*$")
_MENTION = re.compile(r"\bwhich (slides?|notes?) (?:mention|mentions|talk about|talks about|are about|is about|cover|covers|"
                      r"say|says|include|includes|contain|contains)\s+(.+?)\s*\??$")
_HEADLINE = re.compile(r"\b(?:what(?:'s| is| does)?|whats)\b.*\b(?:headline|title of the page|page title|tagline)\b")
_LOOK = re.compile(r"\bwhat does\b|\blook(?:s)? like\b|\bhow does\b|\blooks?\b(?=\W*$)|\bdescribe\b")
"""How a named shot looks ("what does shot 3 look like?", "describe shot 2"): its lighting, framing, weather, outfit."""
_ATTRIBUTE = re.compile(r"\bwhat (?:lighting|light|framing|weather|outfit|time of day|colou?r)\b|"
                        r"\b(?:lighting|framing|weather|outfit) (?:of|on|in|is)\b|'s (?:lighting|framing|weather|outfit)\b")

_SLIDE_CONTENT = re.compile(
    r"^\s*(?:what(?:'s| is)(?: written| said)? (?:on|in)|whats (?:on|in)|what does|what do|show me|read(?: me| out)?|"
    r"describe|(?:what(?:'s| is| was)|whats|tell me) the (?:title|heading|name|topic) (?:of|on)|what(?:'s| is)|whats)"
    r"\s+(?:slide #?(?P<n>\d+)|the (?P<nth>\d+)th slide|the (?:very )?(?P<edge>last|final|first|1th|opening|"
    r"title|cover) slide)(?:\s+(?:of|in|from) (?:the |my |our |this )?(?:[a-z0-9'-]+ ){0,5}?(?:slide deck|deck|"
    r"presentation|slides)(?: (?:about|on|called|named|titled) (?:[a-z0-9'-]+ ?){1,5})?)?"
    r"(?:\s+(?:say|says|contain|contains|show|shows|have|has|look like|is about|about|called|titled|named))?"
    r"(?:\s+(?:now|again|currently|at the moment|right now))?(?:,? please)?\s*\??\s*$")
"""What one slide says ("what is on slide 3?", "what does the last slide say?"): its title, bullets and notes.
It was answered with the list of every slide's title ("what is on ..."), or as a shot's look ("describe ...")."""


_PAGE_SECTIONS = re.compile(
    r"^\s*(?:which|what) sections?\b|\bhow many sections\b|^\s*(?:list|show|name)(?: me)?(?: all)? (?:of )?(?:the |its )?"
    r"(?:page'?s? )?sections\b|\bsections? (?:does|do|are on|is on|are in|has|have) (?:the|this|my) (?:page|site|website)\b")
"""The page's sections ("which sections does the page have?"): it was asked about ("a list of the code")."""
_PAGE_STYLE = re.compile(r"^\s*(?:what|which)(?:'s| is| are)?\b.*\b(?:colou?r|font|typeface|size|weight)\b|"
                         r"^\s*how (?:big|large|bold|heavy|rounded|round) (?:is|are)\b")
_ASPECT = re.compile(r"\b(?:colou?r|font|typeface|size|big|large|weight|bold|heavy|rounded|round)\b")
_ASPECT_WORD = {"color": "colour", "typeface": "font", "big": "size", "large": "size", "bold": "weight",
                "heavy": "weight", "round": "corners", "rounded": "corners"}
_NOT_THE_PAGE = re.compile(r"\b(?:shots?|images?|pictures?|clips?|slides?|decks?|cut|film)\b")
_TOKEN_SETS = {"heading-font": ("heading-font", "body-font"), "palette": ("background", "text-colour", "accent"),
               "spacing": ("section-padding", "content-width", "line-height")}


def page_style_tokens(text: str) -> list[str]:
    """The page's style tokens a question asks the value of ("what colour are the buttons?" → button-colour;
    "what font does the page use?" → both fonts), or [] when it names none."""
    aspect = _ASPECT.search(text)
    if aspect is None:
        return []
    word = aspect.group(0)
    phrase = f"{text[:aspect.start()]} {text[aspect.end():]} {_ASPECT_WORD.get(word, word)}"
    token = token_for_words(re.sub(r"\bbuttons\b", "button", phrase))
    if token == "heading-font" and re.search(r"\bhead(?:ing|line)s?\b|\btitles?\b", text):
        return ["heading-font"]
    return list(_TOKEN_SETS.get(token, (token,))) if token else []


_JUDGED = re.compile(r"^\s*(?:is|are|was|were|isn't|aren't)\b.*\b(?:too|enough|look(?:s)?|seem(?:s)?|feel(?:s)?|"
                     r"better|worse|ok(?:ay)?|right|fine)\b|"
                     r"^\s*(?:does|doesn't|do|don't)\b.*\b(?:look|looks|seem|seems|feel|feels)\b")
"""A yes-or-no question on how something looks ("is shot 3 too dark?", "is the headline too big?"): there is no
answer to read on the canvas, and read as an edit it acted ("too dark": brighter), on the page the wrong way."""


_NOT_ONE_QUESTION = re.compile(
    r"^\s*how many [a-z]+ (?:and|or|&) [a-z]+\b|^\s*(?:which|what|list|show)\b.*\b(?:shots?|ones?|slides?)\b.*\bor\b|"
    r"^\s*show (?:me )?shot #?\d+ (?:at|in|with|as|during)\b|^\s*(?:is it possible|would it be possible|can you|could you|are you able) to\b|"
    r"^\s*(?:can|could) (?:it|shot \d+|the \w+) be\b")
"""A question answered in part: two counts, a choice of looks ("at night or rainy": both were required), a shot
shown as it could be, or whether something can be done."""
_SECOND_QUESTION = re.compile(r"(?:,|;|\?|\band\b)\s+(?:also\s+)?(?:what(?:'s| is| are| does| do)?|which|how many|"
                              r"how much|who|where|when|is|are|does|do)\b(?!.*\b(?:make|change|set|delete|remove)\b)"
                              r"(?=\s+\S)")
"""A second question after the first ("how many slides and what's on the last one"): one was answered."""
_A_STATUS = re.compile(r"\b(?:approved|accepted|rejected|selected|chosen|picked|done|finished|completed|complete|"
                       r"final|stale|failed|ok(?:ay)?|good|bad)\b")
"""A yes-or-no question on a status or a verdict ("is shot 6 approved?"), not on a look."""
_IS_IT = re.compile(r"^\s*(?:is|are|was|were|isn't|aren't|wasn't|weren't|did|didn't|does|doesn't|hasn't|haven't|"
                    r"has (?:it|shot|the)|(?:have|had) (?:you|we|i|they)|do (?:you|we|they|i))\b|" + _TAG_QUESTION)
"""A yes-or-no question on a shot's look: "is shot 3 at night?", "was shot 8 at night", "did you make shot 6
rainy?", "does shot 4 have snow in it?", "shot 2 is at dusk, right?".  Answered with how the shots named look;
read as edits, each made the shot so."""
_ADVICE = re.compile(r"^\s*(?:should|shouldn't|ought)\b|^\s*(?:do you think|would it be better)\b")
"""A question asking what something should be ("should shot 4 be a wide shot?"): advice, not an edit; read as one,
it made shot 4 wide."""


def _film_scope(film: str | None) -> dict[str, str]:
    """A question's scope when the request named one film ("which shots of the ferry film are at night?")."""
    return {"film": film} if film else {}


def _film_unsupported(words: Words, said: str) -> Reading:
    """A count or list of one film's nodes other than its shots: answered for every film it would be wrong."""
    words.take_all()
    return Reading(clarification=Clarification(
        reason="unsupported", understood=[f"question: the {said} of one film"],
        message=f"I can list or count one film's shots ('which shots are in the ferry film?'), not its {said}; ask "
                f"about the {said} of every film, or name the shot ('shot 2's clip')."))


_IN_THE_CUT = re.compile(r"\b(?:in|out of|from|part of) (?:the )?(?:final |current )?(?:cut|edit|film|movie|sequence|"
                         r"timeline)\b")
"""Where a shot is, asked ("is shot 3 in the cut"): not how it looks."""
_TAKEN_OUT_BEFORE = re.compile(r"\b(?:(?:leave|left|leaving|take|took|taken) out|drop(?:ped)?|cut|skip(?:ped)?|"
                               r"remove[ds]?|delete[ds]?|omit(?:ted)?|lose|lost|trim(?:med)?|shorten(?:ed)?|"
                               r"move[ds]?|swap(?:ped)?)\s+$")
_TAKEN_OUT_AFTER = re.compile(
    r"\s+(?:(?:been|got|gotten|get|gets|was|were|is|are|still)\s+)?(?:(?:left |taken |cut )?out\b"
    r"(?! of (?!it\b|them\b))|dropped\b|cut\b|skipped\b|removed\b|"
    r"deleted\b|omitted\b|missing\b|gone\b|moved?\b|trimmed\b|shortened\b|swapped\b|in\s*\??\s*$|"
    r"back(?: in)?\s*\??\s*$)")
"""Whether a shot was taken out (or put back, trimmed or moved) said without naming the cut ("did you leave shot 3
out?", "did you drop shot 3?", "is shot 3 missing?", "did you put shot 3 back?", "did you trim shot 3?"): it was
answered with how shot 3 looks.  Not "out of the rain", "out of focus" or "in the rain"."""
_IN_OR_OUT_WORDS = re.compile(
    r"\b(?:is|are|was|were|did|do|does|has|have|had|you|we|it|still|ever|actually|really|in|out|of|from|part|the|"
    r"final|current|cut|edit|film|movie|sequence|timeline|left|leave|leaving|take|took|taken|drop(?:ped)?|"
    r"skip(?:ped)?|remove[ds]?|delete[ds]?|omit(?:ted)?|lose|lost|missing|gone|keep|kept|put|back|been|got|get|gets|"
    r"there|anymore|any more|now|yet)\b|\?")
"""Every word a yes-or-no question on whether the cut holds a shot is made of ("did you leave shot 3 out?", "is shot
3 still in the cut?", "are shots 2 and 4 in the final cut?"): with any other word left, it is asked about instead."""
_THE_FINAL_CUT = re.compile(r"\bfinal (?:cut|edit)\b")
"""The cut by its usual name, whose "final" is no shot ("is shot 2 in the final cut?")."""
_NOT_IN_OR_OUT = re.compile(r"\b(?:trim(?:med)?|shorten(?:ed)?|move[ds]?|swap(?:ped)?)\b")
"""A trim, a move or a swap asked about ("did you trim shot 3?"): not whether the cut holds it."""
_CUT_CONTENTS = re.compile(
    r"\s*(?:(?:so|ok|okay|and|hey)[, ]+)?(?:(?P<how_many>how many) (?:shots|clips) (?:are )?(?:there )?(?:still )?|"
    r"(?:which|what) (?:shots|clips) (?:are|is) (?:there )?(?:still )?|what(?:'s| is) (?:still )?|whats (?:still )?|"
    r"(?:list|show me|show) (?:all )?(?:the )?(?:shots|clips) |(?:which|what) order (?:are|is) (?:the )?"
    r"(?:shots|clips) )(?:in|on) (?:the )?(?:final |current )?(?:cut|edit|timeline)(?: now| right now| so far)?"
    r"(?:,? please)?\s*\??\s*|\s*(?:what(?:'s| is)|whats) the (?:running )?order of (?:the )?(?:final |current )?"
    r"(?:cut|edit|timeline)\s*\??\s*")
"""What the cut holds ("which shots are in the cut?", "how many shots are in the cut?", "what's in the cut",
"what order are the shots in the cut"): each was asked about.  Only these words: "which night shots are in the cut?"
(a filter the answer does not apply) is asked about as before."""
_KEPT = re.compile(r"\b(?:keep|kept)\s+$")
"""A shot kept, and nothing said of how ("did you keep shot 3?"): kept in the cut ("did you keep shot 3 night?" asks
how it looks)."""


def _taken_out(text: str, found: list[Found]) -> bool:
    """Whether a yes-or-no question asks if a shot it names was taken out (of the cut, most likely)."""
    return any(_TAKEN_OUT_BEFORE.search(text, 0, f.start) or _TAKEN_OUT_AFTER.match(text, f.end) or
               (_KEPT.search(text, 0, f.start) and re.match(r"\s*\??\s*$", text[f.end:])) for f in found)


def _not_answered(words: Words, understood: str, why: str, change: str) -> Reading:
    """A question with no answer on the canvas, asked about rather than read as an edit (each of these acted)."""
    words.take_all()
    return Reading(clarification=Clarification(
        reason="unsupported", understood=[understood],
        message=f"{why}, so I changed nothing. I can tell you what something is ('what lighting is shot 3?', 'how "
                f"big is the headline?', 'what does slide 2 say?'), or change it: say the change ('{change}')."))


_HOLDING = re.compile(r"\b(?:has|have|having|with|without|contains?|containing|holds?|holding|shows?|showing|"
                      r"includes?|including)\s+(?:(?:a|an|the|any|some|no|its|their)\s+)?"
                      r"(?!(?:we|you|i|they|got|there|been|so|now|right|at|in|on|total|yet)\b)([a-z][a-z'-]*)")
"""What a listed node holds ("which slide has the picture?"): a filter the list does not apply."""
_HOLDERS = ("deck", "plan", "code", "web", "")
"""Kinds that hold the listed ones ("what slides are in the deck?"), or say nothing ("things"): not a filter."""


def _only_those_holding(words: Words, kind: str, held: str) -> Reading:
    """"Which slide has the picture?" listed every slide: "picture" is a filler word, so nothing was left unread,
    and the answer did not say which slide.  A list is of every node of a kind; a filter on what they hold is asked
    about (the filters there are: a look for shots, a word for slides and notes)."""
    words.take_all()
    other = ("'which slides mention honey?', or name the slide ('what is on slide 2?')" if kind == "slide" else
             "'which shots are at night?', or name the shot ('what lighting is shot 3?')" if kind in ("shot", "image")
             else f"'list the {kind}s'")
    return Reading(clarification=Clarification(
        reason="unsupported", understood=[f"question: a list of the {kind}s"],
        message=f"I can list every {kind}, but the question asks more of them ('{held}'), so I answered nothing. "
                f"Ask {other}."))


class QuestionReader:
    """Questions about the canvas: each an operation ``question`` with what is asked in ``args``."""

    name = "questions"

    def read(self, ctx: ReadContext) -> Reading | None:
        words, text = ctx.words, ctx.words.text
        if not _QUESTION.search(text) or re.match(r"^\s*(?:make|change|turn|set|give|put|redo)\b", text):
            return None
        if (then := THEN_A_CHANGE.search(text)) is not None:
            # "what's the headline and make it bigger", "what changed in the last turn? undo it": each question
            # reader takes its words whole, so the change after the question was dropped and the answer given,
            # exit 0.  A question and a change are two requests.
            return with_a_change(ctx, "a question", then, "That is a question and a change in one request: I "
                                 "answer a question or make a change, not both at once, so I did neither. Ask the "
                                 "question first, then say the change.")
        if (unclear := _NOT_ONE_QUESTION.search(text)) is not None:
            # "how many slides and shots are there" counted the slides; "which shots are at night or rainy" found
            # those with both; "show me shot 2 at night" listed the night shots; "is it possible to make shot 2
            # night?" described shot 2
            return _not_answered(words, f"a question I would answer in part ('{unclear.group(0).strip()}')",
                                 f"I would answer only part of that ('{unclear.group(0).strip()}')",
                                 "make shot 2 night")
        if (second := _SECOND_QUESTION.search(text)) is not None:
            # "how many slides and what's on the last one" answered the count alone
            return _not_answered(words, "two questions", f"That is two questions ('{second.group(0).strip(' ,')} "
                                 "...' is the second); I answer one at a time", "how many slides are there?")
        if _JUDGED.search(text):
            return _not_answered(words, "a yes-or-no question on how something looks",
                                 "I cannot judge how something looks", "make shot 3 brighter")
        if _ADVICE.search(text):
            return _not_answered(words, "a question on what something should be",
                                 "I cannot tell you what it should be", "make shot 3 a wide shot")
        if _OVERVIEW.search(text):
            words.take_all()
            return self._clause(ctx, {"ask": "count", "kind": ""}, "what the canvas holds")
        if (match := _SLIDE_CONTENT.match(text)) is not None:
            words.take_all()
            return self._slide_content(ctx, match)
        if (match := _MENTION.search(text)) is not None:
            words.take_all()
            said = typed(ctx, match.start(2), match.end(2)).lower()  # the words as typed, never "corrected"
            terms = [w for w in re.findall(r"[a-z0-9][a-z0-9'-]*", said) if w not in ("the", "a", "an")]
            what = "notes" if match.group(1).startswith("note") else "slides"
            if {"not", "but", "except", "without", "or"} & set(terms):
                # "which slides mention hives but not honey" looked for all four words and found none
                return _not_answered(words, f"{what} mentioning some words and not others", "I find the "
                                     f"{what} that mention all the words given, not a choice or an exclusion",
                                     "which slides mention hives?")
            return self._clause(ctx, {"ask": f"{what}_mentioning", "terms": terms},
                                f"{what} mentioning {' '.join(terms)}")
        if _PAGE_SECTIONS.search(text) and not _NOT_THE_PAGE.search(text):
            words.take_all()
            return self._clause(ctx, {"ask": "page_sections"}, "the page's sections")
        tokens = page_style_tokens(text) if (ctx.facts.has_page and _PAGE_STYLE.search(text)
                                             and not _NOT_THE_PAGE.search(text)) else []
        if tokens:
            words.take_all()
            return self._clause(ctx, {"ask": "page_style", "tokens": tokens}, f"the page's {', '.join(tokens)}")
        if _HEADLINE.search(text):
            words.take_all()
            return self._clause(ctx, {"ask": "headline"}, "what the page's headline says")
        if (asked := _CUT_CONTENTS.fullmatch(text)) is not None:
            words.take_all()
            about = "count" if asked["how_many"] else "order"
            return self._clause(ctx, {"ask": "cut", "about": about},
                                "how many clips the cut holds" if about == "count" else "the cut's shots, in order")
        if _LAST_TURN.search(text):
            words.take_all()
            return self._clause(ctx, {"ask": "last_turn", "turn_id": ctx.previous.turn_id}, "what the last turn changed")
        if re.match(r"^\s*" + _HOW_IT_IS, text):  # "how dark is shot 3" darkened shot 3
            return _not_answered(words, "a question on how far something goes", "I cannot measure how dark, warm or "
                                 "wide something looks", "make shot 3 brighter")
        if _IS_IT.search(text) and _IN_THE_CUT.search(text):
            words.take(_THE_FINAL_CUT)  # "are shots 2 and 4 in the final cut?" asked about the last shot too
        named = which_deck(ctx.facts, answer=ctx.answer, words=words.copy())  # "slide 2 of the coffee deck"
        film = read_film(words, ctx.facts)  # "the versions of shot 3 of the ferry film"
        found = find_references(words)
        resolved = resolve_targets([f.reference for f in found], ctx.facts, previous=ctx.previous.targets,
                                   answer=ctx.answer, deck=named.deck, film=film)
        if named.span is not None and any(t.kind == "slide" for t in resolved.targets):
            words.mark(*named.span)  # the words that named the deck are read
        if _VERSIONS.search(text):
            words.take(_VERSIONS)
            if not found:
                return None
            words.take(_LEAD)
            words.take(_TAIL)
            clause = self._clause(ctx, {"ask": "versions"}, f"versions of {', '.join(f.reference.said for f in found)}")
            clause.clauses[0].targets = resolved.targets
            clause.clauses[0].references = [f.reference for f in found]
            return self._checked(ctx, clause, resolved)
        yes_no = _IS_IT.search(text)
        if yes_no and found and any(t.kind != "shot" for t in resolved.targets):
            found = []  # "is slide 6 called Summary?" was answered "none of those shots": asked below instead
        if yes_no and found and (_IN_THE_CUT.search(text) or (_taken_out(text, found) and not resolved.missing)):
            # "is shot 3 in the cut", "did you leave shot 3 out?" were answered with how it looks
            return self._in_the_cut(ctx, words, found, resolved)
        if yes_no and found and _A_STATUS.search(text):  # "is shot 6 approved?" was answered with how it looks
            return _not_answered(words, "a question on a status", "I answer how shots look, not what was approved "
                                 "or rejected (`jarvishub status` and the web canvas show each one's status)",
                                 "approve shot 6")
        if _LOOK.search(text) and found and any(t.kind == "slide" for t in resolved.targets):
            # "describe slides 1 to 3" was answered as how shots look ("none of those shots")
            return _not_answered(words, "a description of slides", "I describe shots' looks, not slides", "what "
                                 "does slide 2 say?")
        if (_LOOK.search(text) or yes_no) and found:  # "what does shot 3 look like?" listed every shot
            words.take(_LOOK)
            words.take(_LEAD)
            words.take(_TAIL)
            if yes_no:  # "is shot 3 at night?" made shot 3 night: answered with how it looks, whatever it asks
                words.take_all()
            reading = self._clause(ctx, {"ask": "attribute", "attribute": "look"}, "how the shots named look")
            reading.clauses[0].targets = resolved.targets
            reading.clauses[0].references = [f.reference for f in found]
            return self._checked(ctx, reading, resolved)
        if _ATTRIBUTE.search(text) and found:
            attribute = re.search(r"\b(lighting|light|framing|weather|outfit|time of day|colou?r)\b", text)
            name = {"light": "lighting", "time of day": "lighting", "color": "outfit", "colour": "outfit"}.get(
                attribute.group(1), attribute.group(1)) if attribute else "lighting"
            words.take(_ATTRIBUTE)
            words.take(_LEAD)
            words.take(_TAIL)
            words.take(re.compile(r"\b(?:lighting|light|framing|weather|outfit|time of day|colou?r)\b"))
            reading = self._clause(ctx, {"ask": "attribute", "attribute": name}, f"the {name} of the shots named")
            reading.clauses[0].targets = resolved.targets
            reading.clauses[0].references = [f.reference for f in found]
            return self._checked(ctx, reading, resolved)
        # "which shots are at night?", and with the look before the noun: "list the night shots", "show me the
        # rainy ones" (those were asked about)
        shots_filter = re.match(r"^\s*(?:which|what|list(?: all)?(?: the)?|show(?: me)?(?: all)?(?: the)?) "
                                r"(?:(?P<look>[a-z-]+(?: [a-z-]+)?) )?(?P<noun>shots?|images?|ones?)\b", text)
        if shots_filter:
            words.mark(shots_filter.start(), shots_filter.start("look") if shots_filter["look"] else shots_filter.end())
            words.mark(shots_filter.start("noun"), shots_filter.end("noun"))
            edit = read_edit(words, shots_filter.start("look") if shots_filter["look"] else shots_filter.end(),
                             len(text))
            words.take(_TAIL)
            if edit.changes and (edit.relative or edit.redo or edit.keep):
                # "which shots are at night and make them warmer": the filter was answered and the edit after it
                # dropped, with exit 0.  A question and an edit of its answer are two requests.
                asked = ", ".join(f"{k} {v}" for k, v in edit.changes.items())
                return Reading(clarification=Clarification(
                    reason="unsupported", understood=[f"question: shots with {asked}", edit.describe()],
                    message=f"I can tell you which shots have {asked}, or change shots you name, but not both in one "
                            f"request, so I changed nothing. Ask which shots have {asked} first, then say what to "
                            "change in them."))
            if not edit.changes and (edit.relative or edit.redo or edit.keep):
                # "which shots are darker?" listed every shot: the comparative was read, then left out
                return Reading(clarification=Clarification(
                    reason="unsupported", understood=[f"question: shots that are {edit.describe()}"],
                    message=f"I can tell which shots have a named look (night, rain, a close-up), not which are "
                            f"{edit.describe()}; ask 'which shots are at night?' or 'what lighting is shot 3?'."))
            if edit.changes:
                return self._clause(ctx, {"ask": "shots_with", "filter": edit.changes, **_film_scope(film)},
                                    f"shots with {', '.join(f'{k} {v}' for k, v in edit.changes.items())}")
        kind_match = _KIND.search(text)
        if re.match(r"^\s*(?:how many|how much)\b", text):
            words.take(_LEAD)
            if kind_match:
                words.mark(kind_match.start(), kind_match.end())
            kind = KINDS.get(kind_match.group(1), "") if kind_match else ""
            if kind == "slide" and _A_DECK.search(text):
                return self._slides_of_a_deck(ctx, words)
            if film is not None:
                if kind != "shot":
                    return _film_unsupported(words, kind_match.group(1) if kind_match else "nodes")
                return self._shots_of_a_film(ctx, words, film)
            words.take(_TAIL)
            return self._clause(ctx, {"ask": "count", "kind": kind}, f"how many {kind or 'nodes'} there are")
        if re.match(r"^\s*(?:list|show|what|which)\b", text) and kind_match:
            words.take(_LEAD)
            words.mark(kind_match.start(), kind_match.end())
            words.take(_TAIL)
            kind = KINDS.get(kind_match.group(1), "")
            if found:  # "what is on slide 3 of the ... deck?" listed every slide, the 3 read and left out
                return None
            if film is not None:  # "which shots are in the ferry film?" listed every film's shots
                if kind != "shot":
                    return _film_unsupported(words, kind_match.group(1))
                words.take(re.compile(r"\b(?:have|has|does|do|hold|holds|contain|contains)\b"))
                return self._clause(ctx, {"ask": "list", "kind": kind, "film": film}, "a list of one film's shots")
            other_kind = next((m for m in _KIND.finditer(text, kind_match.end())
                               if KINDS.get(m.group(1)) not in (kind, *_HOLDERS)), None)
            if (held := _HOLDING.search(text, kind_match.end())) is not None or other_kind is not None:
                # "which slide has the picture?", "what slide is the picture on?"
                return _only_those_holding(words, kind or "node", held.group(1) if held else other_kind.group(1))
            return self._clause(ctx, {"ask": "list", "kind": kind}, f"a list of the {kind or 'nodes'}")
        if yes_no:
            # "did you make the headline bigger?": no shot named to answer with, and read as an edit it made the
            # headline bigger.
            return _not_answered(words, "a yes-or-no question", "That reads as a yes-or-no question, and I can "
                                 "answer it only about shots", "make the headline bigger")
        return None

    def _in_the_cut(self, ctx: ReadContext, words: Words, found: list[Found], resolved) -> Reading:
        """Whether the cut holds the shots named ("is shot 3 in the cut?", "did you leave shot 3 out?"), when every
        word is one such a question is made of; a trim or a move asked about, or another word, is asked about."""
        if _NOT_IN_OR_OUT.search(words.text):
            return _not_answered(words, "a question on the cut", "I answer whether the cut holds a shot, not how it "
                                 "was trimmed or moved", "move shot 3 to the start of the cut")
        scratch = words.copy()
        scratch.take(_IN_OR_OUT_WORDS)
        if (left := scratch.unused()) or any(t.kind != "shot" for t in resolved.targets):
            return _not_answered(words, "a question on the cut", "I answer whether the cut holds the shots named, "
                                 f"and that question says more ('{' '.join(left) or 'not a shot'}')",
                                 "put shot 3 back in the cut")
        words.take_all()
        reading = self._clause(ctx, {"ask": "cut", "about": "shots"},
                               f"whether the cut holds {', '.join(f.reference.said for f in found)}")
        reading.clauses[0].targets = resolved.targets
        reading.clauses[0].references = [f.reference for f in found]
        return self._checked(ctx, reading, resolved)

    def _slides_of_a_deck(self, ctx: ReadContext, words: Words) -> Reading:
        """"How many slides are in the night markets deck?": the slides of the deck the words, the selection or the
        answer name (every word of the request was read before, and the deck's were asked about)."""
        choice = which_deck(ctx.facts, answer=ctx.answer, words=words)
        words.take(_A_DECK)  # "in the deck", "does the ... deck have": the deck's own words are taken by which_deck
        words.take(_TAIL)
        if choice.deck is None:
            candidates = deck_candidates(choice.candidates)
            return Reading(clarification=Clarification(
                reason="ambiguous" if candidates else "not_found", understood=["question: how many slides a deck has"],
                candidates=candidates, missing=[] if candidates else ["a slide deck"],
                message=which_deck_question(candidates, choice.named) if candidates else
                f"There is no slide deck {ctx.facts.where}."))
        reading = self._clause(ctx, {"ask": "count", "kind": "slide", "deck": choice.deck.id},
                               f"how many slides '{choice.deck.title}' has")
        reading.clauses[0].targets = [Target(id=choice.deck.id, kind="deck", title=choice.deck.title,
                                             referred_as="the deck")]
        return reading

    def _shots_of_a_film(self, ctx: ReadContext, words: Words, film: str) -> Reading:
        """"How many shots are in the ferry film?": the shots of the film the words named (the count is of the
        shots the canvas holds now, read when the question is answered)."""
        words.take(_TAIL)
        shots = [s for s in ctx.facts.shots if s.plan == film]
        title = next((s.plan_title for s in shots if s.plan_title), film)
        reading = self._clause(ctx, {"ask": "count", "kind": "shot", "film": film}, f"how many shots '{title}' has")
        reading.clauses[0].targets = [Target(id=s.id, kind="shot", title=s.title, referred_as="the film")
                                      for s in shots]
        return reading

    def _slide_content(self, ctx: ReadContext, match: re.Match[str]) -> Reading:
        choice = which_deck(ctx.facts, answer=ctx.answer, words=Words(ctx.words.text))  # the request is all read
        deck = choice.deck
        if deck is None:
            candidates = deck_candidates(choice.candidates)
            return Reading(clarification=Clarification(
                reason="ambiguous" if candidates else "no_target", understood=["question: what a slide says"],
                candidates=candidates, message=which_deck_question(candidates, choice.named) if candidates else
                "There is no slide deck on the canvas."))
        slides = sorted((s for s in ctx.facts.slides if s.group == deck.id), key=lambda s: s.index or 0)
        edge = match.group("edge") or ""
        number = (len(slides) if edge in ("last", "final") else 1 if edge else
                  int(match.group("n") or match.group("nth")))
        if not 1 <= number <= len(slides):
            return Reading(clarification=Clarification(
                reason="not_found", missing=[f"slide {number}"], understood=["question: what a slide says"],
                message=f"The deck '{deck.title}' has no slide {number}; it has {len(slides)} slides (1 to "
                        f"{len(slides)})."))
        slide = slides[number - 1]
        reading = self._clause(ctx, {"ask": "slide", "slide": number}, f"what slide {number} says")
        reading.clauses[0].targets = [Target(id=slide.id, kind="slide", title=slide.title,
                                             referred_as=match.group(0).strip())]
        return reading

    def _clause(self, ctx: ReadContext, args: dict, understood: str) -> Reading:
        return Reading(clauses=[Clause(text=ctx.request, domain=self.name, operation="question", args=args,
                                       understood=[f"question: {understood}"])])

    def _checked(self, ctx: ReadContext, reading: Reading, resolved) -> Reading:
        if resolved.missing:
            return Reading(clarification=Clarification(
                reason="not_found", missing=resolved.missing, understood=reading.clauses[0].understood,
                message=f"There is no {', '.join(resolved.missing)} {ctx.facts.where}."))
        if resolved.ambiguous:
            return Reading(clarification=Clarification(
                reason="ambiguous", candidates=resolved.ambiguous, understood=reading.clauses[0].understood,
                message=ambiguous_message(resolved.ambiguous)))
        return reading
