"""What the page and slides readers share: words as they were typed, clauses, and undo / revert.

* **Words as typed.**  The interpreter reads a normalised copy of the request (lower case, typos corrected,
  numbers as digits), but a new headline or a slide title must keep the person's own words and case:
  :func:`typed` maps a span of the normalised text back to the request (normalising never splits or joins
  words, so the n-th word of one is the n-th word of the other), and :func:`quotes` pairs each quoted
  phrase of the normalised text with its typed words.
* **Clauses.**  :func:`read_clauses` reads "make the headline bigger and the button green" as two operations
  when every part reads on its own, and as one when it does not ("add a section about opening hours and
  prices"): an operation's content may hold the word "and".
* **Undo and revert** of a page or a deck (:func:`read_version`), and which of the two a bare "undo that"
  means (:func:`version_subject`: what was selected, what the turn before changed, what the project holds).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from nodes.understanding.intent import Clarification, Clause, Target
from nodes.understanding.readers.base import ReadContext, Reading, typed
from nodes.understanding.readers.versions import JUST_UNDO, TURN, UNDO_FURTHER
from nodes.understanding.text import EMOJI, EMOTICON, POLITE_WORDS, Words, undo_not_asked_for, undo_question

_QUOTE = re.compile(r"""(?:^|(?<=[\s:(,]))(['"])(.+?)\1(?=$|[\s.,;:!?)])""")
_SEPARATOR = re.compile(r"\s*(?:;|\.(?:\s|$)|,?\s*\band then\b|,?\s*\bthen\b|,?\s*\band also\b|,?\s*\band\b|"
                        r",?\s*\balso\b|,?\s*\bplus\b|,)\s*")

PAGE_OPERATIONS = ("page_set_text", "page_set_style", "page_add_section", "page_remove_section",
                   "page_move_section", "page_replace_image", "page_undo", "page_revert", "revise_page")
"""The operations of the page reader (``nodes.understanding.kinds.OPERATION_TOOLS`` gives each its tools)."""
DECK_OPERATIONS = ("deck_add_slide", "deck_duplicate_slide", "deck_delete_slide", "deck_move_slide", "deck_edit_slide",
                   "deck_add_bullet", "deck_remove_bullet", "deck_set_theme", "deck_regenerate_illustration", "deck_undo", "deck_revert")
"""The operations of the slides reader."""


class Ask(Exception):
    """A reader found what the request is about but must ask instead of acting (a section the page lacks, ...)."""

    def __init__(self, clarification: Clarification) -> None:
        super().__init__(clarification.message)
        self.clarification = clarification
        self.operation: str | None = None
        """The operation being read when it asked (an ambiguous slide or picture: the answer resumes it)."""

    def reading(self, ctx: ReadContext, domain: str, target: Target) -> Reading:
        """The clarification as a reading; an ambiguous one keeps its operation and target, so the turn's grant
        is the operation's and the person's answer (the candidate's id) resumes it."""
        ctx.words.take_all()
        if self.clarification.reason == "ambiguous" and self.operation:
            return Reading(clauses=[Clause(text=ctx.request, domain=domain, operation=self.operation,
                                           targets=[target], understood=self.clarification.understood)],
                           clarification=self.clarification)
        return Reading(clarification=self.clarification)


def parse_in_turn(parsers: tuple[Callable[..., list[Clause] | None], ...], operations: dict[str, str],
                  *args: object) -> list[Clause] | None:
    """The first parser that reads the span; an :class:`Ask` it raises names the operation it was reading."""
    for parse in parsers:
        try:
            found = parse(*args)
        except Ask as asked:
            asked.operation = asked.operation or operations.get(parse.__name__)
            raise
        if found:
            return found
    return None


# ---------------------------------------------------------------- words as typed


@dataclass(frozen=True)
class Quoted:
    """A quoted phrase: where it is in the normalised text (quotes included) and the words as typed."""

    start: int
    end: int
    said: str


def quotes(ctx: ReadContext, start: int = 0, end: int | None = None) -> list[Quoted]:
    """The quoted phrases of a span ("change the headline to 'Bread, slowly'")."""
    text = ctx.words.text
    stop = len(text) if end is None else end
    return [Quoted(m.start(), m.end(), typed(ctx, m.start(2), m.end(2), trim=False) or m.group(2))
            for m in _QUOTE.finditer(text) if m.start() >= start and m.end() <= stop]


def content_after(ctx: ReadContext, words: Words, at: int, end: int, *, exact: bool = False) -> str:
    """The words from ``at`` to ``end`` as typed, taken whole (a new headline, a slide's topic): the first quoted
    phrase there when there is one, else everything.  ``exact``: they are written word for word (a title, a
    heading's text, a bullet), so a "?" or "!" typed after them unquoted is asked about (a topic or a prompt is
    not written so)."""
    for quoted in quotes(ctx, at, end):
        words.mark(quoted.start, quoted.end)
        if not ctx.words.text[at:quoted.start].strip() or not words.unused(at, quoted.start):
            words.mark(at, quoted.start)
            return quoted.said
    said = typed(ctx, at, end)
    untrimmed = typed(ctx, at, end, trim=False).rstrip(" \t")
    if exact and said:
        said = _marks_of_the_words(said, untrimmed)
    closing = untrimmed.rstrip(" \t.,;:'\"“”‘’")[-1:] if exact and said else ""
    if closing == "?" and POLITE_ASK.match(ctx.request):
        closing = ""  # "could you rename slide 3 to Costs?": the request's own question mark
    if closing in ("?", "!"):
        # "rename slide 4 to Questions?" was titled 'Questions': a closing mark typed after the new words may be
        # theirs, or the request's own (a question, a cry); which is not for the reader to guess
        raise Ask(Clarification(
            reason="unparsed", understood=[f"new words: {said[:60]}"],
            message=f"Should the new words be '{said[:80]}' or '{said[:80]}{closing}'? I changed nothing. Put the "
                    f"exact new words in quotes ('\"{said[:40]}{closing}\"')."))
    if said.count('"') % 2 or said.count("“") != said.count("”"):
        # 'Honey "harvest"': the closing quote was trimmed off with the request's punctuation ('Honey "harvest')
        raise Ask(Clarification(
            reason="unparsed", understood=[f"new words: {said[:60]}"],
            message=f"The new words hold a quote mark ('{said[:80]}'), and I cannot tell which words it closes, so I "
                    "changed nothing. Put the exact new words in single quotes ('change the headline to \'Honey "
                    "\"harvest\"\'')."))
    loose = _LOOSE_WORDS.search(said)
    if loose is not None:
        raise Ask(Clarification(
            reason="unparsed", understood=[f"new words: {said[:60]}"],
            message=f"I would have written '{said[:80]}' word for word, and '{loose.group(0).strip(' ,')}' reads as "
                    "part of the request, not of the new words, so I changed nothing. Put the exact new words in "
                    "quotes ('change the headline to \"Quiet light\"'), and say any other change on its own."))
    words.mark(at, end)
    return said


_ABBREVIATION = re.compile(r"(?:\b(?:etc|inc|co|ltd|corp|jr|sr|dr|mr|mrs|ms|st|vs|no|approx|dept|est)|"
                           r"(?<![a-z])(?:[a-z]\.)+[a-z])\.$", re.IGNORECASE)
_LEADING_APOSTROPHE = re.compile(r"^'(?=(?:tis|twas|til|em|cause|round|n|\d\d)s?\b)", re.IGNORECASE)


def _marks_of_the_words(said: str, untrimmed: str) -> str:
    """``said`` (the typed words, trimmed of the request's punctuation) with the marks that belong to the words
    given back: an ellipsis ("Wait for it..."), an abbreviation's point ("Bees, Inc.", "11p.m."), the full stop of
    the last of several sentences ("We keep bees. We pour honey."), and a leading apostrophe ("'Tis the season",
    "'90s beekeeping").  Each had been trimmed off as the request's own punctuation."""
    end = untrimmed.rstrip(" \t\"'”’")
    if re.search(r"(?:\.\s?\.\s?\.|…)$", end):
        said = said.rstrip(" .…") + end[len(end.rstrip(" .…")):]
    elif end.endswith(".") and (_ABBREVIATION.search(end) or re.search(r"[.!?]\s+\S", said)):
        said += "."
    if _LEADING_APOSTROPHE.match(untrimmed.lstrip()) and not said.startswith("'"):
        said = "'" + said
    return said


POLITE_ASK = re.compile(r"^\s*(?:(?:hey|hi|ok|okay|so)[, ]+)?(?:could|can|would|will) you (?:please |pls |just )?",
                        re.IGNORECASE)
"""A request asked as a question ("could you rename slide 3 to Costs?"): its closing "?" is the request's."""
UNREAD_PLACE = re.compile(r"\b(?:after|before|between|under|below|above|beneath|next to|beside|following|ahead of|"
                          r"in front of|in the middle|halfway|in position|at position|as the \w+|"
                          r"at the (?:very )?(?:end|start|beginning|front|top|bottom)|"
                          r"(?:near|towards?|close to) the (?:very )?(?:end|start|beginning|front|top|bottom|back))\b|"
                          r"\s(?:right|just|directly|immediately|straight|close|near|nearer)\s*[.!]*\s*$|"
                          r"(?:,\s*|\s)(?:1th|2th|3th|\d+th|first|second|third|fourth|fifth|last)\s*[.!]*\s*$")
NAMED_IN_THE_TOPIC = re.compile(r"\b(?:called|titled|named|headed|entitled)\b|"
                                # "a slide about swarms and call it Swarm season": the topic was the whole phrase
                                r"\b(?:call|title|name|head|label)(?:s|ing)? (?:it|this|that|the (?:new )?(?:slide|"
                                r"section|one))\b|"
                                r"\bwith (?:the|a) (?:heading|title|headline|name)\b|"
                                r"\b(?:heading|title|headline|name)\s*:")
"""A new slide's or section's own title said inside its topic ("a section about bees called The Hive", "a slide
about pests, title: Pests"): the heading was the whole phrase."""
A_TOPIC_IN_THE_TITLE = re.compile(r"\s\b(?:about|covering|explaining|describing)\s")
"""A new slide's or section's topic said after its title ("a slide titled Swarm season about swarms"): the title was
the whole phrase."""
A_PICTURE_BY_ANOTHER = re.compile(
    r"\b(?:replace|swap|switch|exchange|trade|change)\b.*\b(?:with|for|and|by|to) (?:the )?(?:"
    r"(?:gallery )?(?:image|photo|picture|pic) #?\d+|(?:first|second|third|fourth|last|\d+th) (?:gallery )?"
    r"(?:image|photo|picture|pic)|(?:shot|slide) #?\d+(?:'s (?:image|picture|illustration))?|"
    r"(?:hero|header|banner) (?:image|photo|picture))\s*[.!]*\s*$")
"""A picture replaced by another one on the canvas ("replace picture 2 with picture 1", "swap picture 1 with picture
3", "the picture on slide 2 with shot 2"): each drew a new picture from the words '1', '3', 'shot 2'."""
"""Where a new slide or section goes, said in a way no place pattern of its reader read: it stayed in the topic or
the heading ("add a slide about pests, second"), and the new part went last."""


_LOOSE_WORDS = re.compile(
    # a second instruction or a comment after the new words ("to Quiet Light and make it bigger", "Book now, not
    # Start a conversation", "How it works but keep the diagram", "The big idea, it's catchier")
    r"\band (?:then |also )?(?:make|change|set|keep|leave|move|delete|remove|add|put|use|turn|give|match|it|its|the|"
    r"bold|italici[sz]e|underline|cent(?:er|re)|capitali[sz]e|highlight|shorten|lengthen|"
    r"this|that|slide|their|with|swap|switch|rename|retitle|approve|reject|undo|duplicate|copy|shots?)\b|"
    r"\b(?:and|,) (?:slide )?#?\d+ (?:to|as)\b|^\s*(?:and|or|,|please)\b|\band also\b|;|,\s*then\b|"
    r",\s*(?:and\s+)?(?:shots?|slides?|images?) \d|\band one (?:called|titled|named|about|on)\b|"
    r"\band (?:one|another)(?: slide| section)?\s*$|"
    # a second clause after a joiner ("to Act then slide 5 to Wrap", "Act after that delete slide 5", "Sky Honey also
    # the button to Book", "Act + delete slide 5", "Act. slide 5 to Wrap", "a jar of honey, the second with a hive")
    r"(?:\b(?:then|after that|afterwards|plus|also|as well as)|\s[&+])\s*(?:(?:delete|remove|add|rename|retitle|make|"
    r"change|set|move|swap|use|put|replace|give|turn)\b|(?:slides?|shots?|sections?|pictures?|images?) #?\d|"
    r"(?:the|its) (?:headline|tagline|button|title|heading|hero|menu|footer|theme|font|accent|background|deck|page|"
    r"first|second|third|other|last|next|\d+th)\b[^.!?]*?\b(?:to|with|as)\b)|"
    r"[.!?]\s+(?:(?:slides?|shots?) #?\d|(?:rename|retitle|delete|remove|add|make|change|set|move|swap)\b)|"
    r",\s*the (?:first|second|third|fourth|other|last|next|\d+th) (?:one |picture |image |photo |slide |section )?"
    r"(?:with|to|as)\b|"
    # a sign-off, an emoticon or an emoji ("Costs plz", "Sky Honey, thanks so much", "Why bees :)", "no rush")
    r"(?:,\s*|\s)(?:plz|pls|please|ty|thx|thnx|thanx|tks|thnks|tysm|thanku|thank u|thank ya|many thanks|"
    r"thanks(?: so much| a lot| again| a bunch| u)?|thank you(?: so much)?|"
    rf"cheers|rn|no rush|mate|lol|asap|xx?)\b[\s!.]*$|{EMOTICON}\s*$|{EMOJI}|"
    # options, not the words ("Sky Honey or similar", "e.g. Book a table", "something like Buzz")
    r"\bor (?:similar|something(?: like (?:that|it))?)\b|\be\.?g\.?\s|\bfor example\b|\bsomething like\b|"
    # where the words go, or what they are, said instead of them ("into Costs", "& 4 to Costs", "a shorter title")
    r"^\s*(?:into|&|\+)\s|^\s*(?:a|an|some) (?:shorter|longer|better|new|different|catchier|snappier|nicer|"
    r"punchier|simpler) (?:title|name|one|headline|heading|text|tagline|wording)\b|"
    # which deck, said after the words ("to Street food in the night markets deck", "in the presentation")
    r"\b(?:in|on|of|for|from) (?:the |this |that |my |our )?(?:[a-z0-9'-]+ ){0,4}(?:deck|presentation|slideshow|"
    r"slide ?deck)\s*[.!]*\s*$|\b(?:in|on) (?:the|these|those|my|our) slides\s*[.!]*\s*$|"
    # the same again elsewhere, or where the words go said before them by a pronoun ("to it: wear gloves, and do
    # the same for slide 4" wrote 'to it: wear gloves, and do the same' on slide 4)
    r"\bdo (?:the same|that|this|it) (?:again )?(?:to|for|with|on|in)\b|\bdo (?:the same|that again)\s*[.!]*\s*$|\bthe same (?:for|to|with|on) (?:slide|shot|"
    r"section|the|it)\b|^\s*(?:to|on|onto|in|into|for) (?:it|this|that|them|this one|this slide)\s*:|"
    # a self-correction ("Honey harvest, wait no, Honey time", "Events. Actually call it Workshops")
    r"[,.;]\s*(?:wait|no wait|wait no|actually|sorry|oops|no|nope|scratch that)\b|\b(?:i meant|wait no|no wait|"
    r"scratch that)\b|"
    # a number taken back before the words ("rename slide 2 nope 3 to Costs" was titled 'nope 3 to Costs')
    r"^\s*(?:nope|sorry|oops)[,.!]*\s+(?:(?:slide|section|shot) )?#?\d+\b|"
    # an instruction about the words after a comma ("Honey harvest, all caps", "Sweet as honey, bigger")
    r",\s*(?:(?:in |with )?(?:all caps|caps|capitals|upper ?case|lower ?case|title case|bold|italics?|bigger|"
    r"smaller|larger|shorter|longer|centered|centred|underlined|no emoji|emoji|a subtitle|a smaller font|"
    r"(?:a )?(?:smaller|bigger|larger) font|font size \d+|\d+ lines?|one line|two lines))\s*[.!]*\s*$|"
    r",\s*(?:in )?(?:dark |light |pale |bright |deep )?(?:navy|red|blue|green|black|white|grey|gray|gold|yellow|"
    r"orange|purple|pink|brown|teal)\s*[.!]*\s*$|\bwith (?:more|less|extra|a bit more|a bit less) \w+|"
    r"\bemoji\b|\btranslated\b|\bin an? (?:serif|sans[- ]?serif|monospace|script|bold|bigger|smaller) font\b|"
    r"\bfont size\b|\b(?:warmer|cooler|brighter|darker) colou?rs\b|"
    # a hedge or an offer ("Buzz, or maybe Hum", "whatever you think", "to just Book", "instead" alone)
    r"\bor maybe\b|\bwhatever\b|\bprobably\b|\btentatively\b|\bif (?:that|it) (?:fits|works)\b|"
    r"\bif (?:that'?s|that is|it'?s|it is) (?:ok(?:ay)?|fine|alright|all right)\b|"
    r"(?:,\s*|\s)(?:haha|hehe|idk|tbh|fyi|btw|imo|imho|jk|ngl|iirc)\b[\s!.]*$|"
    r"^\s*(?:instead|back)\s*[.!]*\s*$|(?-i:^\s*(?:just|simply|exactly)\s)|"
    # where the slide is, said before the words ("of deck 2 to Travel", "from Urban beekeeping to Buzz")
    r"^\s*(?:of|in|on|from) .*\bto\b|"
    # a word to the person, not of the new words ("to Hives please", "to Hives, thanks", "to Hives instead")
    r"(?:,\s*|\s)(?:please|pls|thanks|thank you|thx|instead|again|too|as well|also|"
    # ... but a call to action's own "now" ("Book now", "Reserve now"), and "Then and now", are words to write
    r"now(?<!book now)(?<!shop now)(?<!order now)(?<!join now)(?<!buy now)(?<!apply now)(?<!reserve now)"
    r"(?<!donate now)(?<!register now)(?<!subscribe now)(?<!visit now)(?<!call now)(?<!start now)(?<!sign up now)"
    r"(?<!enrol now)(?<!enroll now)(?<!rsvp now)(?<!and now))\s*[.!]*\s*$|"
    r"^\s*(?:again|properly|differently|better|something else|whatever)\s*[.!]*\s*$|"
    # how the words look or read, not the words ("in bold", "in French", "(with a capital H)", "for kids")
    r"\bin (?:(?:dark|light|pale|bright|deep) )?(?:bold|italics?|capitals|caps|all caps|lower ?case|upper ?case|"
    r"small caps|french|spanish|german|italian|"
    r"dutch|portuguese|plain english|english|navy|red|blue|green|black|white|grey|gray|gold|yellow|orange|purple|"
    r"pink|brown|teal)\b|\bfor (?:kids|children|beginners|experts|a (?:kid|child))\s*$|\([^)]*\)\s*$|"
    r"^\s*with (?:a|an|the|its|no|some)\b|"
    # words another part holds, or the old ones ("to match slide 4", "its original title", "what it was")
    r"^\s*(?:to )?match\b|^\s*what (?:it|slide|the|its|they)\b|(?-i:^\s*back to\b)|^\s*a question\s*$|"
    r"^\s*(?:the|its) (?:old|original|previous|former|first|current|same) (?:one|title|text|name|headline|wording|"
    r"words|tagline)\b|^\s*(?:the |its )?(?:old|original|previous) (?:one|title|text|name)\s*$|"
    r"^\s*(?:the )?(?:page |slide \d+'s |its )?(?:headline|tagline|title|brand name|name of the \w+)\s*$|"
    r"^\s*(?:after|using|from) (?:its|the)\b|\bslide \d+'s\b|^\s*(?:well|too|also)\s*[.!]*\s*$|"
    # a picture said by another ("another one", "a better one", "the same photo as picture 1", "jars instead of bees")
    r"^\s*(?:another|a better|better|a new|new|a different|different|the same|same|a nicer|nicer)"
    r"(?: one| photo| picture| image| shot)?\s*[.!]*\s*$|^\s*(?:the )?same \w+ (?:as|like)\b|\binstead of\b|"
    r"\brather than\b|,\s*(?:then\s+)?(?:make|change|set|use|turn|give|add|remove|delete|move)\b|"
    r"\bthen (?:\w+ )?(?:make|change|set|keep|leave|move|delete|remove|add|put|use|turn|give|it)\b|"
    r"\bwith (?:\d+|two|three|four|five|six|seven|eight|nine|ten) \w+|"
    r"\bbut\b|,\s*(?:not|it's|its|it is|can you|could you|please|so|because|as)\b|\bnot (?:the |a )?[A-Z\"']|"
    # a description of the words wanted, not the words ("something snappier", "sound less formal", "a bit boring")
    r"^\s*(?:something|anything)\b|^\s*(?:sound|read|feel) (?:more |less )?\w+$|^\s*(?:a bit|a little|slightly|"
    r"much|way) \w+|^\s*(?:shorter|longer|snappier|punchier|catchier|simpler|clearer|friendlier|better|nicer|"
    r"less \w+|more \w+)\s*$|"
    # what a new slide cannot hold ("about training costs with a bar chart of GPU prices")
    r"\bwith (?:a |an )?(?:\w+ )?(?:chart|graph|diagram|table|picture|photo|image|video|map)\b|"
    # words another part holds ("the same as slide 4", "the title of slide 3"): the phrase was written instead
    r"^\s*(?:the )?same (?:as|like)\b|^\s*(?:the )?same(?: text| words| title)?\s*$|^\s*(?:as|like) (?:slide|the)\b|"
    r"^\s*(?:the )?(?:title|text|words|headline|tagline|heading|caption|subtitle) (?:of|from|on) (?:slide|the)\b|"
    r"^\s*of (?:slide|the)\b|"
    # a hedge, a hurry or a word to the person ("Hives maybe", "Hives if possible", "Hives ASAP", "Hives lol")
    r"\b(?:maybe|perhaps|or something|if possible|if you can|for me|asap|right away|quickly|i guess|i think|lol|"
    r"like i said)\s*[.!?]*\s*$|(?:,\s*|\s)ok(?:ay)?\s*[.!?]*\s*$|\band (?:one|another)(?: slide)? (?:about|on|for)\b|"
    # another part or clause said after the words ("Hives except slide 5", "Hives, the rest stays", "Hives without
    # changing the bullets", "Hives on slide 5", "Hives as the title", "the word Hives", "-> Hives")
    r"\b(?:except|without|apart from)\b|\bthe rest\b|\b(?:on|in|to|for) (?:slide \d+|the (?:deck|page|menu|slide|site)|"
    r"slides)\b|\bas the (?:title|heading|headline|text|name)\b|^\s*the (?:word|words|title|text|phrase|name) \S+\s*$|"
    r"^\s*(?:->|=>|=|:)|,\s*slide \d+\b|"
    # a description beside what is named, before the words ("slide 3 (the case one) to Why bees": the bracket and
    # "to" were written into the title, and "(the summary)" may name another slide)
    r"^\s*\(|^\s*(?:its|their|his|her) (?:subject|topic|content|theme)\b|"
    r"^\s*by (?:its|the|their)\b|"
    # a comparison, a reason or a place on the canvas said after the words ("Hives like slide 3", "Hives because it
    # is shorter", "Honey on the roof in the hero", "Events to this page", "Hives, don't change the bullets")
    r"(?:,\s*|\s)(?:just )?like (?:slide|the|we|before|i|you|this|that|it|its)\b|\bsame (?:as|style|layout|font|look|"
    r"colou?rs?|size)\b|\b(?:matching|to match|so (?:it|that|they)|because|since it|when you|to keep it|i mean|"
    r"keep (?:it|everything|the)|don'?t|do not|just the (?:title|words|text))\b|"
    r"\b(?:in|on|at|for|under|below|above|beneath|to) (?:the |this |that |its |our |my )?(?:hero|heading|headline|"
    r"tagline|title|section|slide|page|site|website|homepage|menu|top|bottom|intro|footer|header|same \w+|big "
    r"letters|\w+ section|\w+ sentences?|\w+ words)\b|,\s*(?:centered|centred|bold|underlined)\b|"
    r"^\s*the (?:heading|title|name|text) \S|\bin its place\b|\bwith (?:photos|pictures|images|a photo)\b|"
    # a hedge before the words ("called like Hives"; a title that begins with the word is typed "Like ...")
    r"(?-i:^\s*like\s)|"
    # nothing but a small word ("rename slide 4 to", "to the")
    r"^\s*(?:to|the|a|an|of|and|or)?\s*[.!?]*\s*$",
    re.IGNORECASE)
"""Unquoted new words that hold more than the new words: read whole, each was written in word for word (exit 0)."""


# ---------------------------------------------------------------- clauses

Parse = Callable[[ReadContext, Words, int, int], list[Clause] | None]
"""One span of the request read as operations (their words taken), or None when it is none of the reader's."""


def read_clauses(ctx: ReadContext, parse: Parse) -> tuple[list[Clause], Words] | None:
    """The request's operations: every clause read on its own when each reads whole, else the request as one.

    Returns the clauses with the words they took (the caller adopts them), or None when nothing was read.
    :class:`Ask` from a clause is raised when the other clauses read whole (one of several asks names what is
    missing); the request read as one raises its own.
    """
    text = ctx.words.text
    split = _segments(ctx)
    if len(split) > 1:
        words = ctx.words.copy()
        clauses: list[Clause] = []
        asked: Ask | None = None
        whole = True
        for start, end in split:
            try:
                got = parse(ctx, words, start, end)
            except Ask as error:
                asked = asked or error
                words.mark(start, end)
                continue
            if not got or words.unused(start, end):
                whole = False
                break
            clauses += got
        if whole and asked is not None:
            raise asked
        if whole and clauses:
            return clauses, words
    words = ctx.words.copy()
    got = parse(ctx, words, 0, len(text))
    return (got, words) if got else None


def _segments(ctx: ReadContext) -> list[tuple[int, int]]:
    text = ctx.words.text
    protected = [(q.start, q.end) for q in quotes(ctx)]
    cuts = [m for m in _SEPARATOR.finditer(text) if not any(s < m.end() and m.start() < e for s, e in protected)]
    segments, at = [], 0
    for cut in cuts:
        if cut.start() > at:
            segments.append((at, cut.start()))
        at = cut.end()
    if at < len(text):
        segments.append((at, len(text)))
    return segments


def clause(ctx: ReadContext, domain: str, operation: str, args: dict, understood: str, *, start: int = 0,
           end: int | None = None, **fields) -> Clause:
    """A clause of a page or deck operation."""
    text = ctx.words.text[start:end].strip() if end is not None or start else ctx.request
    return Clause(text=text or ctx.request, domain=domain, operation=operation, args=args,
                  understood=[understood], **fields)


# ---------------------------------------------------------------- undo and revert

_UNDO = re.compile(r"\b(?:undo|un-do|take back|reverse|roll back|rollback)\b")
_REVERT = re.compile(r"\b(?:revert|restore|go back|roll back|reset|return|change back|put back|bring back|switch back)\b")
_UNDO_DEFAULT = re.compile(r"^(?:(?:that|it|this|what you (?:just )?did|the (?:last|previous|latest) (?:change|edit|one)|"
                           r"my (?:last )?(?:change|edit)|the change|your (?:last )?(?:change|edit))"
                           r"(?: (?:to|on|of) (?:the |this |my )?(?:[a-z0-9'-]+ ){0,4}(?:page|site|website|web page|deck|"
                           r"slides|presentation))?|"
                           r"(?:the |this )?(?:page|site|website|web page|deck|slides|presentation)(?:'s)?(?: last)?"
                           r"(?: change| edit)?|"
                           # "undo again", "undo one more": the last change not yet undone, a step further back
                           r"again|once more|one more(?: time| step| change)?|another(?: one| step| change)?|further"
                           r"(?: back)?|)$")
_UNDO_COUNT = re.compile(r"^the (?:last|previous) (\d+)(?: (?:changes?|edits?|ones?|steps?))?"
                         r"(?: (?:to|on|of) (?:the |this |my )?(?:[a-z0-9'-]+ ){0,4}(?:page|site|website|"
                         r"deck|slides|presentation))?$")
_UNDO_TIMES = re.compile(r"^(?:twice|(\d+) times|once|x ?(\d+)|(\d+) ?x)$")
""""undo twice", "undo 3 times": that many undos, each of the last change not yet undone ("twice" was taken for
the name of a change)."""
_COUNTED_AND_MORE = re.compile(r"^the (?:last|previous) (?P<n>\d+)\b|\b(?:twice|(?P<times>\d+) times)\b")
"""A count beside other words ("the last 2 changes to slide 3", "that twice", "the last 2 slides"): read as the name
of one change, one change was undone."""
_REVERT_TO = re.compile(r"\bto (?:the |its |how it was (?:at |in )?(?:the |its )?|the way it was (?:at |in )?(?:the )?)?"
                        r"(original(?: version| one| page| deck| design)?|first version|very first version|start|"
                        r"beginning|previous version|last version|version before|(?:version|v) ?(\d+))\b")
_REVERT_BEFORE = re.compile(r"\b(?:to )?(?:how it was |the way it was |the version |what it was |where it was )?"
                            r"before (.+)$")
_OBJECT = re.compile(r"\b(?:the |this |my )?(?:page|site|website|web page|deck|slides|presentation|slide deck)(?:'s)?\b")


_POLITE_END = re.compile(rf"[,\s]*\b{POLITE_WORDS}\s*[.!]*\s*$")
_MORE_THAN_ONE_CHANGE = re.compile(r"\b(?:and|but|if|unless|then|too|except|plus|also|as well|or|when|once)\b|&|[,;]")
"""What a change's name never holds: a second change, an exception or a condition."""
_ANOTHER_THING = {
    "page": re.compile(r"\b(?:deck|slides?|presentation|shots?|film|cut|clips?)\b"),
    "deck": re.compile(r"\b(?:page|site|website|web page|headline|tagline|button|fonts?|sections?|hero|menu|gallery|"
                       r"shots?|film|cut|clips?)\b"),
}
"""Another thing named in an undo of the page's or the deck's change: the undo takes back its own thing's change."""
_KEEP_THE_REST = re.compile(r"\s*,?\s*(?:but|and)?\s*(?:keep|leave)\b(?!.*\b(?:undo|revert)\b).*$")


def read_version(ctx: ReadContext, words: Words, start: int, end: int, *, what: str, undo_op: str,
                 revert_op: str, domain: str, count_from_previous: int = 1) -> list[Clause] | None:
    """"undo that", "undo the full-bleed change", "undo the last 2 changes", "revert the page to the original",
    "go back to version 2 of the deck", "restore the page to how it was before the dark theme" as operations.

    ``count_from_previous``: how many changes "undo that" takes back (the versions the turn before made).
    """
    text = ctx.words.text
    undo = _UNDO.search(text, start, end)
    revert = None if undo else _REVERT.search(text, start, end)
    if undo is None and revert is None:
        return None
    if undo is not None:
        rest_start = undo.end()
        rest = _POLITE_END.sub("", text[rest_start:end]).strip()  # "undo the last change, please"
        if POLITE_ASK.match(text[:undo.start()]):  # "could you undo the last change?"
            rest = rest.rstrip("?").strip()
        if (why := undo_not_asked_for(text[:undo.start()], rest)) is not None:
            raise Ask(Clarification(reason="unparsed", understood=[f"an undo of the {what}"], message=undo_question(why)))
        if undo.group(0) == "reverse" and (not _UNDO_DEFAULT.match(rest) or _OBJECT.fullmatch(rest)):
            # "reverse the order of the slides" undid a change called "the order", and "reverse the slides" the last
            # change; "reverse that" undoes
            return None
        words.mark(undo.start(), undo.end())
        if (_UNDO_DEFAULT.match(rest) or _UNDO_COUNT.match(rest)) and (other := _ANOTHER_THING[what].search(rest)):
            # "undo the last change to the honey page", read by the deck's reader, undid the deck's last change
            raise _names_more(other.group(0), what)
        if what == "page":
            _the_page_named(ctx, rest)
        if _UNDO_DEFAULT.match(rest):
            words.mark(rest_start, end)
            return [clause(ctx, domain, undo_op, {}, f"undo the last change to the {what}", start=start, end=end)
                    for _ in range(max(1, count_from_previous))]
        counted = _UNDO_COUNT.match(rest) or _UNDO_TIMES.match(rest)
        if counted:
            words.mark(rest_start, end)
            return [clause(ctx, domain, undo_op, {}, f"undo the last change to the {what}", start=start, end=end)
                    for _ in range(max(1, int(next((g for g in counted.groups() if g), None) or (
                        1 if rest == "once" else 2))))]
        if re.fullmatch(r"(?:undo|redo|undo undo)", rest):  # "undo undo" undid a change named 'undo'
            raise _names_more(rest, what)
        several = _COUNTED_AND_MORE.search(rest)
        if several is not None and int(several.group("n") or several.group("times") or 2) > 1:
            raise Ask(Clarification(reason="unsupported", understood=[f"undo changes to the {what}"], message=(
                f"'{rest}': I undo the {what}'s last changes in order ('undo the last 2 changes'), or one change "
                f"named by what it did ('undo the retitle'), not several changes of one part of it, so I changed "
                "nothing. Say which, or ask for one change at a time.")))
        # "undo the background change but keep the new heading font": an undo of one named change keeps the later
        # ones anyway, so what is kept is no part of the change's name (the whole rest named no change: exit 1)
        rest = _KEEP_THE_REST.sub("", rest)
        if re.match(r"(?:everything|all)\b", rest):
            raise Ask(Clarification(reason="ambiguous", understood=[f"undo changes to the {what}"],
                                    message=f"Undo everything: the last turn ('undo that'), or the {what} back to "
                                            f"its original ('revert the {what} to the original')? Say which."))
        if re.match(r"(?:,|and\b|then\b|&)", rest):
            # "undo and make the accent orange": the rest was taken for the name of the change to undo
            raise Ask(Clarification(reason="unsupported", understood=[f"undo the last change to the {what}"],
                                    message="That is an undo and then another change: I do one at a time, so I "
                                            "changed nothing. Say 'undo' first, then the change."))
        if (more := _MORE_THAN_ONE_CHANGE.search(rest) or _ANOTHER_THING[what].search(rest)) is not None:
            # "undo the page and the deck" undid a deck change named 'and'; "undo the deck if shot 3 is night" one
            # named 'if shot 3 is night' (a condition never checked); "undo the slide change and make shot 3 night"
            # dropped the edit
            raise _names_more(more.group(0), what)
        named = _OBJECT.sub(" ", rest)
        named = re.sub(r"\b(?:to|on|of|in|from)\s*$", "", " ".join(named.split())).strip()
        if not named:
            return None
        words.mark(rest_start, end)
        return [clause(ctx, domain, undo_op, {"change": named}, f"undo the {what}'s change: {named}", start=start,
                       end=end)]
    assert revert is not None
    words.mark(revert.start(), revert.end())
    before = _REVERT_BEFORE.search(text, revert.end(), end)
    if before:
        named = _OBJECT.sub(" ", before.group(1)).strip()
        words.mark(revert.end(), end)
        return [clause(ctx, domain, revert_op, {"before_change": " ".join(named.split())},
                       f"revert the {what} to before: {named}", start=start, end=end)]
    found = _REVERT_TO.search(text, revert.end(), end)
    if found is None:
        return None
    if (more := _MORE_THAN_ONE_CHANGE.search(_POLITE_END.sub("", text[found.end():end])) or _ANOTHER_THING[
            what].search(text, start, end)) is not None:
        # "revert the page to the original and the deck too" reverted the deck alone
        raise Ask(Clarification(reason="unparsed", understood=[f"revert the {what}"], message=(
            f"'{more.group(0).strip()}': that revert names another thing, or more; I revert one thing at a time, so "
            f"I changed nothing. Say 'revert the {what} to the original', then the next.")))
    said = found.group(1)
    to = found.group(2) or ("previous" if re.match(r"previous|last|version before", said) else "original")
    words.mark(found.start(), found.end())
    words.take(_OBJECT, start, end)
    words.take(re.compile(r"\b(?:of|for|in)\b"), start, end)
    return [clause(ctx, domain, revert_op, {"to": to}, f"revert the {what} to {'version ' + to if to.isdigit() else to}",
                   start=start, end=end)]


_PAGE_NAMED = re.compile(r"\b(?:to|on|of) (?:the |this |my |our )?(?P<name>(?!(?:the|this|my|our)\b)"
                         r"(?:[a-z0-9'-]+ ){1,4})(?:page|site|website|web page)$")


_ANY_PAGE = frozenset({"web", "landing", "home", "html", "main", "one", "single", "new"})
"""Words before "page" that name no page in particular ("the landing page", "the web page")."""


def _the_page_named(ctx: ReadContext, rest: str) -> None:
    """Asks when an undo's words name a page by words no page's title has ("undo the last change to the pricing
    page", with the honey bar's page the only one): the page's own undo would take back another page's change."""
    named = _PAGE_NAMED.search(rest)
    if named is None:
        return
    said = named.group("name").strip()
    titles = [p.title or "" for p in ctx.facts.pages]
    if set(said.split()) <= _ANY_PAGE or any(set(said.split()) <= set(re.findall(r"[a-z0-9'-]+", title.lower())) for title in titles):
        return
    raise Ask(Clarification(reason="not_found", missing=[said], understood=["undo a change to the page"], message=(
        f"No page is called '{said}'; the project's pages are: " + "; ".join(f"'{t}'" for t in titles) +
        ". Name the page by a word of its title, or say 'undo the last change to the page'. I changed nothing.")))


def _names_more(said: str, what: str) -> Ask:
    """The ask for an undo whose words name more than one change, another thing or a condition (reason "unparsed":
    a request whose parts are of two families is read part by part, in pipeline.py)."""
    return Ask(Clarification(reason="unparsed", understood=[f"undo a change to the {what}"], message=(
        f"'{said.strip()}': that undo names more than one change, another thing or a condition; I undo one change "
        f"of one thing at a time and check no conditions, so I changed nothing. Say 'undo the last change to the "
        f"{what}', then the next.")))


def asks_version(text: str) -> bool:
    """Whether the words undo or revert something."""
    return bool(_UNDO.search(text) or _REVERT.search(text))


_OTHER_SUBJECT = re.compile(r"\b(?:shots?|images?|clips?|cut|scenes?|frames?|storyboard)\b")


def version_subject(ctx: ReadContext) -> str | None:
    """What a bare "undo that" or "go back to the original" is about: 'page', 'deck' or None (a shot, or not
    known): the selection first, then what the turn before changed, then the one thing the project holds.
    Words that name something else ("undo the last change to shot 2") are never the page's or the deck's, and
    neither is a whole turn ("undo the whole last turn": ``undo_turn``, whatever the turn changed)."""
    if _OTHER_SUBJECT.search(ctx.words.text) or TURN.search(ctx.words.text):
        return None
    for node in ctx.facts.selection:
        if node.page or node.kind == "code":
            return "page"
        if node.kind in ("slide", "deck"):
            return "deck"
        return None
    # A question changed nothing: "that" is still the change before it (the project's, below).
    operations = [str(c.get("operation")) for c in ctx.previous.clauses if c.get("operation") != "question"]
    if operations and all(op in PAGE_OPERATIONS for op in operations):
        return "page"
    if operations and all(op in DECK_OPERATIONS for op in operations):
        return "deck"
    if operations:
        return None
    holds = [kind for kind, has in (("page", ctx.facts.has_page), ("deck", ctx.facts.has_deck),
                                    ("story", ctx.facts.has_story)) if has]
    return holds[0] if len(holds) == 1 and holds[0] != "story" else None


BARE_UNDO = re.compile(r"\s*(?:(?:ok|okay|now|then|and|so|oops|hmm|yes|yeah|yep|sure|pls|please|just|can you|could "
                       r"you|would you|actually|wait|let'?s|i want to|i'd like to|i would like to)[, ]+)*"
                       r"(?:undo|take back)"
                       r"(?: (?:that|it|this|what you (?:just )?did|both(?: of them| changes)?|them(?: both)?|"
                       r"those(?: two)?|(?:the |your |these |those )(?:two |last two )?changes))?"
                       r"(?:,? (?:please|pls|plz|thanks|thank you|thx))?\s*[.!?]*\s*")
"""An undo that names nothing: "undo", "undo that", "take that back" (the page's and the deck's readers)."""
THE_UNDO = re.compile(r"\s*(?:please )?undo (?:the|that|your|my) (?:last )?undo\s*[.!]*\s*")
""""undo the undo": the turn before, an undo, taken back (not a change named 'the undo')."""


def previous_changes(ctx: ReadContext, operations: tuple[str, ...]) -> tuple[int, bool]:
    """How many versions the turn before made with these operations, and whether it was itself an undo or
    revert (then "undo that" brings back what it took away)."""
    made = [c for c in ctx.previous.clauses if c.get("operation") in operations]
    undone = any(str(c.get("operation")).endswith(("_undo", "_revert")) for c in made)
    return len(made), undone


def read_undo(ctx: ReadContext, words: Words, start: int, end: int, *, what: str, undo_op: str, revert_op: str,
              domain: str, operations: tuple[str, ...]) -> list[Clause] | None:
    """An undo or revert of the page or the deck (:func:`read_version`), read against the turn before.

    "undo" or "undo that" takes back every version the turn before made ("undo" alone took back one of a turn's
    two page changes while "undo that" took both); "undo the last change", one.  After an undo, "undo" again goes
    a step further back (a second Ctrl-Z), and "undo that" or "undo the undo" brings back what it took away."""
    count, was_undo = previous_changes(ctx, operations)
    said = ctx.words.text[start:end]
    if was_undo and (JUST_UNDO.fullmatch(said) or UNDO_FURTHER.fullmatch(said)):
        words.mark(start, end)
        return [clause(ctx, domain, undo_op, {}, "undo the change before the one just undone", start=start,
                       end=end)]
    bare = BARE_UNDO.fullmatch(said) or (was_undo and THE_UNDO.fullmatch(said))
    if bare and was_undo:
        words.mark(start, end)
        return [clause(ctx, domain, revert_op, {"to": "previous"}, "bring back what the last undo took away",
                       start=start, end=end)]
    if bare:  # "undo please" was an undo of a change named 'please'
        words.mark(start, end)
        return [clause(ctx, domain, undo_op, {}, f"undo the last change to the {what}", start=start, end=end)
                for _ in range(max(1, count))]
    return read_version(ctx, words, start, end, what=what, undo_op=undo_op, revert_op=revert_op, domain=domain)
