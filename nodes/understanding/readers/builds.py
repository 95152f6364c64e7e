"""Builds: a story from a premise, a web page from a brief, a deck on a topic.

A build is asked for in so many words ("a 6-shot short drama about ...", "a website for a bakery", "a
5-slide deck about ..."): a request that names the project's existing deck or page ("the deck", "slide 2")
is an edit of it (the slides and page readers), never a new build.  The premise, brief or topic is content
kept whole.
"""

from __future__ import annotations

import re

from content.sizes import SHOTS_MAX, SHOTS_MIN, SLIDES_MAX, SLIDES_MIN
from nodes.models.grammar import FRAMING_WORDS, LIGHTING_WORDS
from nodes.understanding.intent import Clarification, Clause
from nodes.understanding.readers.base import ReadContext, Reading, typed, with_a_change
from nodes.understanding.text import THEN_A_CHANGE

_NARRATIVE = re.compile(r"\b(short drama|short film|narrative|storyboard (?:for|about|of)|\d+-shot|story about|"
                        r"film about|movie about|a storyboard|a drama|a film|a movie|a short story|a story)\b")
_WEB = re.compile(r"\b(website|web site|web page|webpage|landing page|portfolio site|photography site|site for|"
                  r"site about|homepage|home page)\b")
_NEW_WEB = re.compile(r"\b(?:a|an|new|another|one more)\b(?:\s+[\w-]+){0,4}?\s+" + _WEB.pattern + r"|"
                      r"^\s*(?:please\s+)?(?:(?:build|make|create|design|write|set up)\s+(?:me\s+)?)?" + _WEB.pattern)
"""A page asked for as a new one ("a website for a bakery", "build me a landing page", "website for my studio"):
a request that names "the website" is about the page there is ("make the website headline match" built a second
page titled with the request, and the slide edit before it was dropped)."""
_DECK = re.compile(r"\b\d+-slide\b|\b(?:a|an|new|another|one more)\b(?:\s+[\w-]+){0,4}\s+(?:slides|slide deck|deck|"
                   r"presentation|lecture|keynote)\b")
_SECOND_BUILD = re.compile(r"(?:\b(?:and|plus|then|or|as well as|along with)|&|,)\s+(?:also\s+)?"
                           r"(?:a|an|the|its|one|some)?\s*(?:\d+[- ](?:shot|slide)s?\s+)?"
                           r"(?:website|web ?page|landing page|site|homepage|deck|slide deck|slides|presentation|"
                           r"film|short film|storyboard|movie|video|story)\b")
"""A second build in the same request ("a landing page and a deck for my cafe", "a 3-shot film about a cat and a 3
slide deck about cats"): it built only one of them, the other swallowed into its premise or topic."""
_A_PLAIN_PAGE = re.compile(r"(?:^\s*|\b(?:make|build|create|design|write|set up|want|need|and|plus|then|also)\s+|,\s*)"
                           r"(?:me\s+)?(?:a|an|another|one more)\s+(?:new\s+|one-page\s+|single\s+|simple\s+)?"
                           r"page\b(?!-)")
"""A page asked for beside a deck ("make a page for the deck", "a deck about bees and a page about honey"): a web
page or another deck?  Read as the deck's build, it made a deck titled 'page for the deck'.  (A page in the deck's
subject, "a deck about turning a page", is the subject's.)"""
_NO_SUBJECT = re.compile(r"\b(?:new|\d+-slides?|slides?|slide deck|deck|presentation|lecture|keynote|for (?:me|us)|"
                         r"please|a|an|the|one|quick|nice|short)\b|[\s,.!?]+")
"""What a deck's request holds besides its subject: "make a deck" was built on the topic 'deck'."""
_A_PART = re.compile(r"\b(?:shots?|slides?|scenes?|sections?) #?\d+\b|\bthe (?:very )?(?:1th|first|last|final|\d+th) "
                     r"(?:shot|slide|scene|section)\b|\bthe (?:headline|hero|menu|gallery|title slide)\b")
"""A part of the thing being built, named by a change after the build ("..., then delete slide 2")."""
_THEMED = re.compile(r"\b(?:dark|light|black|white)\s+(?:theme|mode|background)\b|\btheme\b")
"""A deck build's theme: the build makes the default one (a theme is an edit after it: deck_set_theme)."""
_STORY_FRAMING = re.compile(r"\ball (?:in )?(?:close-ups?|close ups?|wide shots?|wides|medium shots?)\b|"
                            r"\b(?:only|just) (?:close-ups?|close ups?|wide shots?)\b|"
                            r"\bclose[- ]?ups?\b|\b(?:wide|wide-angle|medium|mid|tight)[- ]shots?\b|\bwide[- ]angle\b|"
                            r"\bwides\b|\b(?:shot|filmed|framed|all|everything|every shot|each shot)\s+"
                            r"(?:(?:in|from)\s+)?(?:wide|close|tight|medium|up close)(?:[- ]?(?:shots?|ups?))?\b")
"""A framing for every shot of a new story: the build sets the lighting, not the framing (an edit after it does).
"..., close-ups only", "... in close-up", "..., everything in wide shots", "..., shot wide" were built with the
framing of each beat, the framing said dropped."""
_NTH = r"(?:1th|first|last|final|opening|closing|\d+th|second|third|fourth|fifth|sixth)"
_STORY_PER_SHOT = re.compile(rf"\bshots? #?\d+\b(?!-)|\bthe (?:very )?{_NTH} (?:shot|one|scene)\b|"
                             rf"(?:^|[,;:]|\b(?:and|but|with|while|then))\s*(?:very\s+)?{_NTH} (?:shot|scene)s?\b|"
                             rf"\b{_NTH} (?:\d+|few|couple of) (?:shots|scenes)\b|\b(?:except|apart from)\b")
"""A story build whose brief names one of its shots, or an exception ("shot 3 at night", "all at dusk except the
last shot", "at night, last shot at dawn", "the last 2 shots at dawn"): the build lights every shot alike.  (A
shot of the premise, "a boxer's last shot at the title", is not one of the story's.)"""
_LOOK_DENIED = re.compile(r"\b(?:not|no|never|without|nothing|avoid(?:ing)?|don'?t use|do not use|neither|nor)\s+"
                          r"(?:(?:at|in|on|during|a|an|the|any|too|so|use|using)\s+)*"
                          r"(?:night|dusk|dawn|day|noon|sunset|sunrise|evening|morning|neon|golden|fog|foggy|rain|"
                          r"rainy|snow|snowy|dark|bright|warm|cold|noir|low-key|high-key)\b")
"""A look the story must not have ("not at night", "no night shots"): read as the look, it lit every shot so."""
_NEVER_A_BRIEF = frozenset({"delete", "remove", "undo", "revert", "approve", "reject", "mark", "duplicate", "copy",
                            "swap", "rename", "retitle", "move", "restore", "regenerate", "redo", "drop", "take out",
                            "get rid of"})
"""Verbs that, after "and", change something rather than describe the thing to build ("a new deck about wasps and
delete this one" built a deck whose titles held "and delete this one")."""
_ASKING = re.compile(
    r"^\s*(?:(?:hey|hi|hello|ok|okay|so|please|now|yo|jarvis)\b[,!.]?\s+)*(?:(?:can|could|would|will) (?:i|you|u|we) "
    r"(?:please )?"
    r"(?:get|have|make|build|create|do|whip up|put together|draft|prepare)|whip up|put together|start|draft|prepare|"
    r"make|build|create|give|i want|i need|i'd like|i would like|let's make|let's do)\s+(?:me\s+|us\s+)?"
    r"(?:(?:a|an)\s+)?(?:new\s+)?", re.IGNORECASE)
"""How a person asks for a deck ("can I get a ...", "hey, make me a ...", "whip up a ..."): not its topic (the slides
of "can I get a deck on wasps" were titled "Can I get a deck on wasps")."""
_BRIEF_UNHELD = re.compile(
    r"\b(?:not|no|without|nothing|never|except|minus|avoid(?:ing)?|don'?t (?:use|want|make|include))\s+"
    r"(?:(?:too|so|very|any|a|an|the|that|more|much|overly|really)\s+)*(?:[a-z-]+\s+){0,2}"
    r"(?:dark|light|bright|bold|loud|busy|corporate|playful|formal|serious|minimal|fancy|cheesy|cute|childish|"
    r"modern|retro|colou?r(?:s|ful)?|black|white|grey|gray|photos?|photographs?|pictures?|images?|illustrations?|"
    r"gallery|menu|sections?|fonts?|serif|sans|columns?|animations?|summary|title slide|cover|intro(?:duction)?|"
    r"diagrams?|charts?|graphs?|tables?|bullets?|slides?|emoji|stock|text|english)\b|"
    r"\bwith (?:a |an |\d+ |some |lots of |many |more |big |large |small |two |three |four |five |six )?"
    r"(?:[a-z-]+ ){0,2}(?:menu|sections?|fonts?|serif|sans-serif|columns?|slides? (?:on|about|for)|charts?|"
    r"diagrams?|tables?|videos?|maps?|forms?|faq|blog|shop|cart|pricing|testimonials|quotes?|timeline|agenda|"
    r"conclusion|summary|title slide)\b|"
    # a number of pictures (a page shows three or four; "with photos of fresh bread" says what they show)
    r"\bwith (?:\d+|two|three|four|five|six|seven|eight|nine|ten|a dozen|lots of|many|more|fewer|less|no) "
    r"(?:[a-z-]+ )?(?:pictures|photos|photographs|images)\b|"
    r"\bin (?:french|spanish|german|italian|portuguese|dutch|japanese|chinese|arabic|hebrew|russian|korean|hindi|"
    r"polish|swedish)\b|"
    r"\b\d+ (?:slides? )?(?:about|on) [a-z ]+ and \d+ (?:slides? )?(?:about|on)\b")
"""What a new deck or page cannot honour and dropped or inverted: a look or a part it must not have ("not dark",
"without pictures", "no summary slide"), a part it must have that the build does not make ("with a menu", "with 5
pictures", "with a slide on worms"; a page's gallery and pictures are made, "with photos of fresh bread"), another
language, two topics with their own counts."""
_DECK_TONE = re.compile(r",\s*(?:and\s+)?make it \w+|\bmake it (?:funny|fun|short|shorter|long|longer|formal|casual|"
                        r"simple|serious|playful)\b|"
                        r"\b(?:titled|called|named|title it|with the title)\b|\b(?:dark|light|black|white) "
                        r"(?:deck|presentation|slides)\b|\b\d+ (?:to|or|-) \d+ slides\b|\b\d+[- ]pages?\b|\bskip\b|"
                        r"\bkeep it \w+|\b(?:bullets?|points?) (?:per|on each|for each|a) slide\b|\bspeaker notes\b|"
                        r"\b(?:with|without|no|add) (?:any )?notes\b|"
                        # its colours or type, or a slide beside its topic ("a dark green deck", "big text")
                        r"\b(?:(?:dark |light |pale |bright |deep )?(?:red|blue|green|grey|gray|gold|yellow|orange|"
                        r"purple|pink|brown|teal|navy|pastel|colou?rful))\s+(?:\d+-slide\s+)?(?:deck|slides|slide deck|"
                        r"presentation)\b|\bin (?:(?:dark|light|pale|bright|deep) )?(?:red|blue|green|black|white|grey|"
                        r"gray|gold|yellow|orange|purple|pink|brown|teal|navy|pastel)(?: colou?rs| tones)?\b|"
                        r"\b(?:big|large|small) (?:text|font|titles)\b|\btitles in\b|\bfont\b|"
                        r"\bplus (?:a|an|one) (?:slide|section)\b")
_PAGE_WORDS = re.compile(r"\b(?:headline|tagline|heading)\b|\bbutton (?:says|saying|that says|reading|reads|text)\b|"
                         r"\b(?:\d+|one|two|three|four|five|six|seven|eight) sections?\b")
"""Words a new page is given that its template writes itself ("with the headline Fresh every day", "3 sections")."""
"""A deck's title, theme, length or tone said in its brief ("titled 'Dirt matters'", "a dark deck", "5 to 7 slides",
"keep it short", "make it funny", "with 3 bullets per slide", "without speaker notes"): written into its slide
titles, or ignored (a page's "make it warm" is a mood its design reads, and its name may be given)."""
_CHANGE_AFTER = {"page": "'make the page light', 'add a menu section', 'remove the gallery section'",
                 "deck": "'delete the summary slide', 'add a slide about worms'"}
_FROM_THIS_DECK = re.compile(r"\b(?:version|copy|summary|shorter|longer|like|based on|from|summari[sz]ing|of) "
                             r"(?:of )?(?:this|the|that|my|our) (?:one|deck|presentation|slides)\b|"
                             r"\blike this one\b")
"""A new deck made from the deck on the canvas ("a shorter version of the deck", "like this one but about wasps")."""
_NOT_NEW = re.compile(r"^\s*(?:(?:make|change|edit|update|fix|redo|delete|remove|move|retitle|rename)\s+the|"
                      r"add|insert|delete|remove|use|switch|set|apply|regenerate|replace)\b|"
                      # the last change again, on another output: "do the same for the website" built a new page
                      # whose brief was those words
                      r"^\s*(?:(?:and|now|also|then|ok|okay)[, ]+)*(?:do |the )?(?:the )?same(?: thing)?\b")


_NOT_A_BUILD = re.compile(
    r"^\s*(?:(?:please|ok|okay|so|and|but|hmm|well)[, ]+)*(?:don'?t|do not|never|no|not|i don'?t want|i do not want|"
    r"we don'?t (?:want|need)|stop|no need)\b|"
    r"^\s*(?:what|what's|whats|who|whose|why|when|where|which|is there|are there|is it|is the|do we|do i|did i|did we|"
    r"did you|have i|have we|have you|has|should i|should we|how many|how much|how long|was there)\b|"
    r"^\s*(?:maybe|perhaps)\b.*\?\s*$|^\s*(?:remember|note)\b|\bnot (?:a|an) (?:\d+-\w+ )?(?:film|movie|story|deck|"
    r"presentation|website|site|web ?page|page)\b|\b\d+-shot \w+ about (?:a |an |the )?\d+-slide\b|"
    # a wish or a thought, not a request now ("a film about bees might be fun", "i'd love a deck about honey
    # someday", "i was thinking of a short film about bees", "..., not now though"): each was built
    r"\b(?:might|would|could) be (?:fun|nice|cool|great|good|interesting|neat|lovely|amazing)\b|"
    r"\b(?:some ?day|one day|at some point|not now|not yet|not today|later on|eventually)\b|"
    r"^\s*(?:(?:so|and|hmm|well)[, ]+)*(?:i was thinking|i'?m thinking|thinking|i'?d love|i would love|i wish|"
    r"wouldn'?t it be)\b")
"""A request that names a build without asking for one: negated ("don't make a film about foxes"), a question ("is
there a website?", "what is the film about"), a reminder ("remember to make a deck"), one kind denied for another
("a film, not a deck, about foxes"): each was built, with exit 0."""
_COUNT_UNREAD = re.compile(
    r"\b(?:single|lone|one)[- ](?:shot|slide)s?\b|\b(?:a |one )?(?:dozen|couple(?: of)?|handful of|few|several)\s+"
    r"(?:more\s+)?(?:shots|slides)\b|\b(?:fewer|more|less) than \d+\b|\bat (?:least|most) \d+\b|\bup to \d+\b|"
    r"\b(?:in |with )(?:a |one |1 )(?:single |continuous )?(?:shot|slide|take)\b|\bmake it \d+ (?:shots|slides)\b|"
    r"\bhalf (?:at|in|by|of)\b|\b(?:first|second) half\b")
"""A size (or a split of the story) said in words the build does not read: it was made with the default size."""


_LOOKS = (r"(?:night|nighttime|midnight|dusk|dawn|day|daytime|daylight|noon|sunset|sunrise|evening|morning|neon|"
          r"golden hour|fog|foggy|rain|rainy|snow|snowy|dark|darkness|warm|cold|noir|twilight|moonlight)")
_UNSURE_BUILD = {
    "any": re.compile(
        # a self-correction: which of the two the person wants is not for the reader to pick ("... no wait, 8")
        r"\b(?:no wait|wait no|scratch that|i meant|i mean)\b|[,.;]\s*(?:wait|actually|sorry|oops|no|nope)\b|"
        r"^\s*(?:wait|actually|sorry|oops)\b.*\b\d+\b|"
        # a size said and denied ("not 5 slides, 6", "not 6 shots")
        r"\bnot (?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve)(?:[- ](?:shots?|slides?|sections?))?"
        r"\b"),
    "story": re.compile(
        # a look for part of the story, or one its subject feels ("ending at night", "from day to night", "who hates
        # the night"): the build lights every shot alike
        rf"\b(?:ending|ends|end|starting|starts|start|beginning|begins|begin|until|till|turning|turns|fading|"
        rf"fades|going|goes|into)\s+(?:(?:at|in|by|with|to|into)\s+)?(?:the\s+|a\s+)?{_LOOKS}\b|"
        rf"\bfrom\s+(?:the\s+)?{_LOOKS}\s+(?:to|till|until|into)\b|"
        rf"\b(?:hates?|loves?|fears?|afraid of|scared of|misses|dreams? of|waits? for|longs? for)\s+(?:the\s+|a\s+)?"
        rf"{_LOOKS}\b"),
}
"""What a build cannot carry, said in any new thing's request or a story's: it was made without it (exit 0).  A deck's
and a page's own are :data:`_DECK_TONE` and :data:`_PAGE_WORDS`."""


class BuildReader:
    """Narrative, web and slides builds, recognised by how a person asks for a new one."""

    name = "builds"

    def read(self, ctx: ReadContext) -> Reading | None:
        text = ctx.words.text
        if _NOT_NEW.search(text):
            return None
        clause: Clause | None = None
        families = [name for name, pattern in (("deck", _DECK), ("page", _WEB), ("story", _NARRATIVE))
                    if pattern.search(text)]
        if families and (unmeant := _NOT_A_BUILD.search(text)) is not None:
            # "don't make a film about foxes", "is there a website?", "remember to make a deck": each was built
            return _not_built(ctx, None, [f"a new {f}" for f in families],
                              f"'{typed(ctx, *unmeant.span()) or unmeant.group(0)}': that reads as a question, a "
                              "negation or a reminder, not as a request for something new, so I made nothing. To "
                              "make one, ask for it ('a 6-shot film about ...', 'a 5-slide deck about ...').")
        if families and (unread := _COUNT_UNREAD.search(text)) is not None:
            # "a single-shot film", "a deck with a dozen slides", "fewer than 6 shots": built with the default size
            return _not_built(ctx, None, [f"a new {f}" for f in families],
                              f"'{typed(ctx, *unread.span()) or unread.group(0)}': I cannot tell how many that is, so "
                              "I made nothing. Say the number: 'a 4-shot film about ...', 'a 7-slide deck about ...'.")
        new = [f for f in families if f != "page" or _NEW_WEB.search(text)]  # "the website": not a new one
        for family in ["any", *(f for f in new if f in _UNSURE_BUILD)] if new else []:
            if (unsure := _UNSURE_BUILD[family].search(text)) is not None:
                said = typed(ctx, *unsure.span()) or unsure.group(0)
                return _not_built(ctx, None, [f"a new {f}" for f in new],
                                  f"'{said}': a new {new[0]} cannot be made with that as asked (a changed mind, a "
                                  "size taken back, or a look for part of a story), so I made nothing. Ask for it "
                                  "plainly, then change what you want.")
        if "deck" in families and (page := _A_PLAIN_PAGE.search(text)) is not None:
            return _not_built(ctx, None, ["a new deck", "a new page"],
                              f"'{typed(ctx, *page.span()) or page.group(0)}': a web page, or a deck? I made nothing. "
                              "Ask for one build at a time: 'a website for ...' or 'a 5-slide deck about ...'.")
        if "story" in families and "deck" not in families and (page := _A_PLAIN_PAGE.search(text)) is not None:
            # "a film about a cat and a page" was built as a film about 'a cat and a page'
            return _not_built(ctx, None, ["a new story", "a new page"],
                              f"'{typed(ctx, *page.span()) or page.group(0)}': a web page to make beside the film, or "
                              "part of its story? I made nothing. Ask for one build at a time: 'a 6-shot film about "
                              "...', then 'a website for ...'.")
        if len(families) > 1 and _SECOND_BUILD.search(text):
            return _not_built(ctx, None, [f"a new {f}" for f in families],
                              f"That asks for two builds ({' and '.join(families)}); I make one per request, so I "
                              "made nothing. Ask for the first, then the second.")
        if families and (then := THEN_A_CHANGE.search(text)) and _A_PART.search(text, then.end()):
            # "a 6-shot film about a baker and make shot 3 night" made every shot night (the premise's lighting);
            # "a 4-slide deck about bees and delete slide 2" kept the deletion in its topic and deleted nothing
            return with_a_change(ctx, " and ".join(f"a new {f}" for f in families), then,
                                 "That is a new build and a change of one of its parts in one request: I make the "
                                 "build first, so I made nothing. Ask for the build, then say the change.")
        if families and (then := THEN_A_CHANGE.search(text)) and (
                re.search(r"\bthen\b", then.group(0)) or then.group("verb") in _NEVER_A_BRIEF):
            # "a 5-shot film about bees then make them all warmer", "..., then approve all the shots": built, and
            # the change after it dropped into the premise
            return with_a_change(ctx, " and ".join(f"a new {f}" for f in families), then,
                                 "That is a new build and then a change in one request: I make the build first, so "
                                 "I made nothing. Ask for the build, then say the change.")
        deck, web = _DECK.search(text), _WEB.search(text)
        story = _NARRATIVE.search(text)
        if story and (deck or web) and story.start() < min(_noun_at(m) for m in (deck, web) if m is not None):
            # "a film about a website designer" built a page, and "make a film about the deck" a deck (the deck's
            # match begins at the article before "film"): the thing named first is made
            deck = web = None
        named = [m for m in (deck, web, story) if m is not None]
        if named and (medium := _ANOTHER_MEDIUM.search(text, 0, min(_noun_at(m) for m in named))) is not None:
            # "make a video about a website" built a page about 'make a video about a website'
            said = typed(ctx, *medium.span()) or medium.group(0)
            return _not_built(ctx, None, [f"a new {f}" for f in families],
                              f"'{said}': I make films (a storyboard, its shots and clips), slide decks and web pages; "
                              f"which of those is the {said}? I made nothing. Ask for one of them ('a 6-shot film "
                              "about ...', 'a 5-slide deck about ...', 'a website for ...').")
        if deck and web and _NEW_WEB.search(text):
            # "make a web page about the deck" built a deck: the thing named first is the one made
            if web.start() < deck.end() - len(deck.group(0).split()[-1]):
                deck = None
            else:
                web = None
        if _NARRATIVE.search(text) and not (deck or web) and \
                (framing := next((m for m in _STORY_FRAMING.finditer(text) if not _names_a_thing(text, m)), None)):
            return _not_built(ctx, "build_narrative", ["a new story"],
                              f"A new story's shots get their framing from its beats, not '{framing.group(0)}', so I "
                              f"made nothing: ask for the story, then 'make every shot {_framing_of(framing.group(0))}'.")
        unheld = _BRIEF_UNHELD.search(text) if deck or web else None
        if unheld is None and deck and not web:
            unheld = _DECK_TONE.search(text)
        if unheld is None and web and not deck and _NEW_WEB.search(text):
            unheld = _PAGE_WORDS.search(text)
        if unheld is not None:
            # "a website for a bar, not dark" got a dark theme; "a deck about composting without pictures" an
            # illustrated one; "a website ... with a menu and a gallery" no menu: the build reads its brief for a
            # subject and a mood, and drops (or inverts) what it cannot do
            what, said = "page" if web and not deck else "deck", typed(ctx, *unheld.span()) or unheld.group(0)
            return _not_built(ctx, f"build_{what}", [f"a new {what}: '{said}'"],
                              f"A new {what} is made from a subject and a mood; I cannot build it with '{said}', so I "
                              f"made nothing. Ask for the {what} from its subject, then change it "
                              f"({_CHANGE_AFTER[what]}).")
        if deck and (other := _FROM_THIS_DECK.search(text)) is not None:
            # "a shorter version of the deck", "a 5-slide deck summarising this deck": a new deck on the topic "a
            # shorter version of the deck", with nothing of this one in it
            return _not_built(ctx, "build_deck", [f"a new deck from '{other.group(0)}'"],
                              "A new deck is made from a topic, not from a deck on the canvas, so I made nothing. "
                              "Change this deck instead ('delete slide 4'), or give the new deck its topic.")
        if deck and _THEMED.search(text):
            return _not_built(ctx, "build_deck", ["a new deck with a theme"],
                              "A new deck is made with its default theme, so I made nothing: ask for the deck, then "
                              "\"change the deck's theme to dark\".")
        if deck:
            count = re.search(r"\b(\d+)[- ]slides?\b", text)
            if count and not SLIDES_MIN <= int(count.group(1)) <= SLIDES_MAX:
                return _size_refused(ctx, "build_deck", f"a deck of {count.group(1)} slides",
                                     f"a deck holds {SLIDES_MIN} to {SLIDES_MAX} slides, title and summary included")
            topic = _ASKING.sub("", _asked(ctx.request))
            if not _NO_SUBJECT.sub("", topic):
                return _not_built(ctx, "build_deck", ["a new deck"], "A new deck about what? I made nothing. Give it "
                                  "a subject: 'a 5-slide deck about urban beekeeping'.")
            clause = Clause(text=ctx.request, domain=self.name, operation="build_deck",
                            args={"topic": topic, "n_slides": int(count.group(1)) if count else 5},
                            understood=[f"a new deck: {topic[:60]}"])
        elif web and _NEW_WEB.search(text):
            brief = _asked(ctx.request)
            clause = Clause(text=ctx.request, domain=self.name, operation="build_page", args={"brief": brief},
                            understood=[f"a new web page: {brief[:60]}"])
        elif _NARRATIVE.search(text):
            count = re.search(r"\b(\d+)[- ]shots?\b", text)
            if count and not SHOTS_MIN <= int(count.group(1)) <= SHOTS_MAX:
                return _size_refused(ctx, "build_narrative", f"a story of {count.group(1)} shots",
                                     f"a storyboard holds {SHOTS_MIN} to {SHOTS_MAX} shots")
            looks = _looks_said(text)
            if len(looks) > 1:  # "a night market at dusk", "a golden retriever at sunset": the look is the one lit
                looks = [look for look in looks if not _names_a_thing(text, look[0], looks)] or looks
            lighting = looks[0][1] if looks else None  # the first look said
            if (said := _LOOK_OF_THE_STORY.search(text)) is not None and lighting is not None:
                # "a film about the dawn of humanity" lit every shot at dawn: a look word with "of" after it names
                # a moment of the story ("the night of the storm"), which may or may not be how it is lit
                words = typed(ctx, said.start(), said.end()) or said.group(0)
                return _not_built(ctx, "build_narrative", [f"a new story: '{words} ...'"],
                                  f"Is {lighting} the look of every shot of the new story, or only part of what it "
                                  f"is about ('{words} ...')? I made nothing: ask again with the look said on its "
                                  f"own ('..., lit {lighting}'), or with no look.")
            if len(looks) > 1:
                # "a 6 shot film about a fisherman at dawn and dusk" lit every shot at dawn, "... at night and
                # foggy" at night: the build gives every shot one look
                said = [typed(ctx, *match.span()) or match.group(0) for match, _ in looks]
                return _not_built(ctx, "build_narrative", [f"a new story: '{' and '.join(said)}'"],
                                  f"'{said[0]}' and '{said[1]}': a new story gets one lighting for every shot, so "
                                  "which? I made nothing. Ask for the story with one look, then change the shots "
                                  f"you mean ('make shot {count.group(1) if count else 6} {looks[1][1]}').")
            if (said := _STORY_PER_SHOT.search(text)) is not None or (
                    lighting and (said := _LOOK_DENIED.search(text)) is not None):
                # "a 5-shot film about a lighthouse, shot 3 at night" lit every shot at night, and "..., not at
                # night" too: the build sets one lighting for every shot, from a look word anywhere in the premise
                words = typed(ctx, said.start(), said.end()) or said.group(0)
                return _not_built(ctx, "build_narrative", [f"a new story: '{words}'"],
                                  f"A new story gets one lighting for every shot; I cannot build it with "
                                  f"'{words}', so I made nothing. Ask for the story, then change the shots "
                                  "you mean ('make shot 3 night', 'make every shot dusk except the last one').")
            clause = Clause(text=ctx.request, domain=self.name, operation="build_narrative",
                            args={"premise": ctx.request, "n_shots": int(count.group(1)) if count
                                  else 6, **({"lighting": lighting} if lighting else {})},
                            understood=[f"a new story: {ctx.request[:60]}"])
        if clause is None:
            return None
        ctx.words.take_all()
        return Reading(clauses=[clause])


_FILLER_AROUND = re.compile(r"^\s*(?:(?:and|now|also|then|next|ok|okay|so|please|great|hey|hi|hello|yo|jarvis)\b[,!.]?"
                            r"\s+)+|"
                            r"[,\s]+(?:too|as well|also|please|thanks|thank you)\s*[.!]*\s*$", re.IGNORECASE)
"""Words around a build's request that are not its brief: "now make a 5 slide deck ..." titled the deck "Now make a
deck ...", and "and a one-page website for the film too" branded the page "Film Too"."""


def _noun_at(match: re.Match[str]) -> int:
    """Where the thing a build pattern found is named: its last word ("a film about the deck" matches the deck
    pattern from its article, "a", which comes before "film")."""
    return match.end() - len(match.group(0).split()[-1])


_ANOTHER_MEDIUM = re.compile(r"\b(?:video|videos|animation|podcast|poster|song|album|comic|book|brochure|flyer|"
                             r"newsletter|app|game|ebook|e-book|infographic)\b")
"""Something else to make, named before the deck, page or film in the request ("a video about a website")."""


def _asked(request: str) -> str:
    """The request without the conversational words around it, as the build's brief or topic."""
    return _FILLER_AROUND.sub("", request.strip()).strip() or request.strip()


def _size_refused(ctx: ReadContext, operation: str, asked: str, bounds: str) -> Reading:
    """A build of a size no skill makes: asked about before anything is made (never built at another size)."""
    return _not_built(ctx, operation, [asked], f"You asked for {asked}, but {bounds}: I made nothing. How many "
                                               "should it have?")


def _not_built(ctx: ReadContext, operation: str | None, understood: list[str], message: str) -> Reading:
    """A build asked about instead of made, because it would have dropped part of the request."""
    ctx.words.take_all()
    return Reading(clarification=Clarification(reason="unsupported", operation=operation, understood=understood,
                                               message=message))


def _looks_said(text: str) -> list[tuple[re.Match[str], str]]:
    """Each look a new story's request says (its first word of each look, in the order said), leaving out a word
    that is a name ("a man named Dawn") or the first half of another word ("a warm-blooded fox", "a cold-hearted
    king")."""
    found: list[tuple[re.Match[str], str]] = []
    for pattern, value in LIGHTING_WORDS:
        for match in re.finditer(rf"\b(?:{pattern})\b", text):
            if _NOT_A_LOOK_BEFORE.search(text, 0, match.start()) or re.match(r"-[a-z]", text[match.end():]):
                continue
            found.append((match, value))
            break
    return sorted(found, key=lambda look: look[0].start())


_A_THING_AFTER = re.compile(r"[ -](?!(?:and|or|but|only|with|for|please|lighting|light|lit|look|looks|mood|feel|"
                            r"shots?|scenes?|frames?|everywhere|throughout|too|as|at|in|on|to|of|all|each|every|the|"
                            r"a|an|then|while|when|where|who|that|which|mostly|always)\b)[a-z][a-z'-]*")
"""A word after a look that makes it part of a thing's name ("a night market", "a golden retriever", "a close-up
magician"), not how the story is lit or framed."""


def _names_a_thing(text: str, said: re.Match[str], looks: list[tuple[re.Match[str], str]] = ()) -> bool:
    """Whether a look or framing word of a story's brief is part of a thing's name ("a night market at dusk"): with
    two looks said, the other is the story's look; a framing so said is none ("a close-up magician" was asked
    about).  Not when the words after it lead to another look ("a cold winter night": cold, and night)."""
    if any(other.start() > said.end() and re.fullmatch(r"(?:[ -][a-z'-]+){1,2}[ -]", text[said.end():other.start()])
           and not re.search(r"\b(?:at|in|on|and|or|by|during)\b", text[said.end():other.start()])
           for other, _ in looks):
        return False
    return _A_THING_AFTER.match(text, said.end()) is not None


def _framing_of(said: str) -> str:
    """The framing words for every shot name, as an edit says it ("everything in wide shots" → 'wide')."""
    value = next((value for pattern, value in FRAMING_WORDS if re.search(rf"\b(?:{pattern})\b", said)), "close-up")
    return "a close-up" if value == "close-up" else value


_NOT_A_LOOK_BEFORE = re.compile(r"\b(?:named|called|nicknamed|titled|entitled|known as)\s+$")
"""Before a look word, words that make it a name: "a fox called Dusk", "a film titled Night Shift"."""
_LOOK_OF_THE_STORY = re.compile(
    r"\b(?:the|a|an|one|that|this|his|her|their|its|our|my)\s+(?:(?:very|first|last|long|same|final)\s+)?"
    r"(?:dawn|daybreak|sunrise|morning|noon|midday|day|sunset|sundown|dusk|twilight|evening|night|midnight)\s+"
    r"(?:of|before|after|when)\b")
"""A time of day with "of" (or "before", "after", "when") after it names a moment of the story ("the dawn of
humanity", "the night of the storm", "the morning after the flood"): whether every shot is lit so is asked."""
