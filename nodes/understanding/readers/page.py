"""The web page: each edit a person asks for becomes one page operation with its arguments.

"change the headline to 'Bread, slowly'" → ``page_set_text`` (element, text); "make the headline bigger",
"change the button colour to green", "use a serif font", "more spacing", "a darker palette" →
``page_set_style`` (token, value); "add a section about opening hours after the menu", "remove the
testimonials section", "move the gallery above the menu" → the section tools; "replace the hero image with a
photo of rye loaves" → ``page_replace_image``; "undo the full-bleed change", "undo that", "go back to the
original page" → ``page_undo`` / ``page_revert``; the hero treatment, gallery columns and theme →
``revise_page`` (the ``web_revise`` skill).  Names are resolved on the page itself (its sections, elements
and pictures: ``CanvasFacts.page_document``) with the page tools' own helpers (:func:`element_for_words`,
:func:`resolve_section`, :func:`token_for_words`), so a section the page lacks is asked about before anything
runs.  Routed by what the project holds: only a project with a page has one to edit; a page selected through
its preview, HTML file or a picture is the page the request means.  A section selected in it (the Page lens
sends ``PAGE_ID#section``, nodes.selection) is what "the heading", "the title", "it" and "this section" mean;
a style, which applies to the whole page, is asked about rather than made page-wide.
"""

from __future__ import annotations

import re

from PIL import ImageColor

from content.page_document import HERO, PageDocument, element_for_words, resolve_section
from content.page_style import FONT_FAMILIES, token_for_words
from content.web_render import page_tokens, slug
from nodes.understanding.decks import deck_candidates
from nodes.understanding.intent import Clarification, Clause, Target
from nodes.understanding.readers.base import ReadContext, Reading, not_found
from nodes.understanding.readers.content import (
    A_PICTURE_BY_ANOTHER,
    A_TOPIC_IN_THE_TITLE,
    BARE_UNDO,
    NAMED_IN_THE_TOPIC,
    PAGE_OPERATIONS,
    THE_UNDO,
    UNREAD_PLACE,
    Ask,
    asks_version,
    clause,
    content_after,
    parse_in_turn,
    previous_changes,
    quotes,
    read_clauses,
    read_undo,
    typed,
    version_subject,
)
from nodes.understanding.text import Words, places_moved

_PAGE_WORDS = re.compile(r"\b(?:hero|full[- ]?bleed|full[- ]width|edge[- ]to[- ]edge|columns?|theme|sections?|headlines?|"
                         r"buttons?|fonts?|typefaces?|typography|spacing|white ?space|padding|palette|tagline|subtitle|"
                         r"header|footer|nav(?:igation)?|gallery|call to action|cta|headings?|background|accents?|"
                         r"(?:the|this|my|our) (?:page|site|website|web page|homepage|landing page))\b")
_PAGE_ONLY_WORDS = re.compile(r"\b(?:title|text|copy|colou?rs|corners|font size|paragraphs?)\b")
"""Words that name a part of the page only on a project that has no deck (a deck has titles and text too)."""
_PICTURE_WORDS = re.compile(r"\b(?:pictures?|photos?|images?)\b")
"""Pictures are the page's on a project that holds a page and no story or deck."""
_SECTION_VERBS = re.compile(r"\b(?:add|remove|delete|drop|hide|move|put|place|shift|above|below|before|after|first|1th|"
                            r"last|top|bottom|swap|switch|exchange|trade|flip)\b")
_NAMES_PAGE = re.compile(r"\b(?:page|site|website|web page|homepage|hero|gallery|headline|buttons?)\b")
_THE_PAGE = r"(?:the |this |my |our )?(?:page|site|website|web page|homepage|landing page)"
_ENDS = r"(?: again)?(?: please| pls)?\s*[.!]*$"
"""Where a theme said as 'dark' or 'light' must end: nothing else is said of the page after it."""
_LAYOUT: tuple[re.Pattern[str], ...] = (
    re.compile(r"\bfull[\s-]*(?:bleed|width)\b|\bedge[\s-]*to[\s-]*edge\b|\b(?:contained|boxed|inset)\b"),
    # "one column" stays a word ('one' is a number only after a noun): the web_revise skill reads it as 1
    re.compile(r"\b(?:\d+|one)[\s-]*col(?:umn)?s?\b|\bcol(?:umn)?s?\s*(?:to|of|=|:)?\s*\d+\b"),
    re.compile(r"\b(?:dark(?:er)?|light(?:er)?|bright) (?:theme|mode)\b|\btheme (?:to )?(?:dark|light)\b"),
    # "make the page dark", "make the page light again", "switch the page from dark to light": the theme, when the
    # page is all the sentence names (it was asked about).  "make the page darker" is its palette (a step), and
    # "make the page dark blue" a colour: neither ends at "dark".
    re.compile(rf"\b(?:make|turn|set|switch|change) {_THE_PAGE} (?:(?:to|back to) )?(?:dark|light)(?={_ENDS})|"
               rf"\b(?:make|turn|set|switch|change) {_THE_PAGE} from (?:dark|light) to (?:dark|light)(?={_ENDS})"),
)
_LAYOUT_WORDS = re.compile(r"\b(?:hero|gallery|page|site|website|layout|grid|images?|photos?|theme|mode|columns?|"
                           r"instead|again|go|back)\b")

# ---------------------------------------------------------------- styles

_AMOUNT = r"(?:much|a lot|way|far|lots|a bit|slightly|a little|a touch|somewhat) "
_SIZE = re.compile(rf"\b(?:{_AMOUNT})?(?:bigger|larger|smaller|tinier|huger|big|small|large|huge|tiny)\b|"
                   r"\b\d+(?:\.\d+)? ?(?:px|pt|%)(?: (?:bigger|larger|smaller))?|\btwice as (?:big|large)\b|"
                   r"\bdouble(?: the size)?\b|\bhalf (?:the|its) size\b")
_RELATIVE_COLOUR = re.compile(r"\b(?:darker|lighter|brighter|deeper|paler)\b")
_COLOUR_NAMES = sorted((n for n in ImageColor.colormap if n.isalpha()), key=len, reverse=True)
_COLOURS_CSS_LACKS = {"cream": "#fffdd0", "charcoal": "#36454f", "burgundy": "#800020"}
"""Common colour names CSS does not have, as the hex the page tools take ("make the background cream" was asked
about).  Never with a shade: "light cream" has no agreed hex (and 'light' is a filler word, so it was dropped)."""
_COLOUR = re.compile(r"#[0-9a-f]{6}\b|#[0-9a-f]{3}\b|(?<![\w-])(?:(?:dark|light|pale|deep|bright) ?)?(?:grey|"
                     + "|".join(_COLOUR_NAMES) + r")(?![\w-])|(?<![\w-])"
                     + "".join(f"(?<!{shade} )" for shade in ("dark", "light", "pale", "deep", "bright"))
                     + "(?:" + "|".join(_COLOURS_CSS_LACKS) + r")(?![\w-])")
"""A colour: a hex code, or a name as a word of its own ("off-white", "near-black" and "blue-ish" were set to white,
black and blue)."""
_FONT = re.compile(r"\b(?:sans[- ]serif|sans|serif|mono(?:space)?|rounded|display|book|georgia|times(?: new roman)?|"
                   r"helvetica|arial|garamond|palatino|baskerville|courier(?: new)?|verdana|futura|"
                   r"trebuchet|impact)\b")
_SPACING = re.compile(r"\b(?:more|less|tighter|looser|roomier|airier|denser|compact|generous|normal|default|spacious|"
                      r"airy|cramped|more generous|less cramped)\b")
_WEIGHT = re.compile(r"\b(?:bolder|bold|heavier|heavy|thinner|thin|normal weight|regular|lighter weight|"
                     r"black (?:weight|font weight)|(?:weight|font weight) black)\b")
"""Weights.  "black" alone is a colour ("make the headings black" set the weight to 900): only "black weight"."""
_RADIUS = re.compile(r"\b(?:rounder|more rounded|less rounded|rounded|sharper|squarer|square)\b")
_HEIGHT = re.compile(rf"\b(?:{_AMOUNT})?(?:taller|shorter|higher|lower|bigger|larger|smaller)\b|"
                     r"\b\d+(?:\.\d+)? ?(?:px|%)(?: (?:tall|high|taller|shorter|bigger|smaller))?")
"""How tall the hero picture is ("make the hero image smaller" was asked about: no token named it)."""

_SUBJECTS: tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...] = (
    # (subject, its words, the kinds of value it takes in the order they are tried)
    ("button text", re.compile(r"\bbutton(?:s'?)? (?:text|label|lettering) colou?rs?\b"), ("colour",)),
    # a button's size is no token ("make the buttons bigger" rounded their corners more): its colour and corners
    ("button", re.compile(r"\b(?:the )?(?:buttons?|call to action|cta)(?:'s| colou?rs?| backgrounds?| corners?)*\b"),
     ("colour", "radius")),
    ("hero", re.compile(r"\b(?:the )?(?:hero|banner)(?: (?:image|picture|photo|section|area|frame))?(?:'s)?"
                        r"(?: height)?\b(?! (?:headline|title|heading|text|tagline|h1|button))"), ("height",)),
    ("headline", re.compile(r"\b(?:the )?(?:hero |main |page )?(?:headlines?|title|h1)(?:'s)?(?: size| font| weight"
                            r"| typeface)?\b"), ("size", "weight", "font")),
    ("headings", re.compile(r"\b(?:the )?(?:section |other )?(?:headings|subheadings|heading|h2s?)(?:'s)?(?: size| font"
                            r"| weight)?\b"), ("size", "weight", "font")),
    ("body", re.compile(r"\b(?:the )?(?:body(?: text| copy| font)?|paragraphs?|running text|text colou?r|text size|"
                        r"(?:the )?text|copy|font size|type size|lettering)\b"), ("size", "colour", "font")),
    ("line height", re.compile(r"\b(?:the )?(?:line[- ]height|leading|line spacing)\b"), ("spacing",)),
    ("gap", re.compile(r"\b(?:the )?(?:gallery |grid |picture )?gaps?(?: between (?:the )?(?:pictures|images|photos))?\b"),
     ("size", "spacing")),
    ("fonts", re.compile(r"\b(?:the )?(?:fonts?|typefaces?|typography)\b"), ("font", "size", "weight")),
    ("spacing", re.compile(r"\b(?:the )?(?:spacing|white ?space|padding|breathing room|space|room)\b"), ("spacing",)),
    ("palette", re.compile(r"\b(?:the )?(?:colou?r )?(?:palette|colou?r scheme|colou?rs)\b"), ("colour", "relative")),
    ("background", re.compile(r"\b(?:the )?(?:page )?background(?: colou?r)?\b"), ("colour", "relative")),
    ("accent", re.compile(r"\b(?:the )?accents?(?: colou?r)?\b"), ("colour", "relative")),
    ("corners", re.compile(r"\b(?:the )?(?:corners?|(?:corner )?radius)\b"), ("radius", "size")),
    ("page", re.compile(r"\b(?:the |this |my |our )?(?:page|site|website|web page|homepage|landing page|design|look)\b|"
                        r"\b(?:it|everything|this|here)\b"), ("relative", "colour", "spacing")),
)
_VALUES = {"size": _SIZE, "colour": _COLOUR, "relative": _RELATIVE_COLOUR, "font": _FONT, "spacing": _SPACING,
           "weight": _WEIGHT, "radius": _RADIUS, "height": _HEIGHT}
_NAMING = {  # (subject, kind of value) -> the words that name its token, for token_for_words
    ("headline", "size"): "headline size", ("headline", "weight"): "headline weight",
    ("headline", "font"): "headline font", ("headings", "size"): "headings size", ("headings", "weight"): "weight",
    ("headings", "font"): "heading font", ("button", "colour"): "button colour",
    ("button", "radius"): "button corners", ("button", "size"): "button corners",
    ("button text", "colour"): "button text colour", ("body", "size"): "body text size",
    ("body", "colour"): "text colour", ("body", "font"): "body font", ("fonts", "size"): "font size",
    ("fonts", "weight"): "weight", ("line height", "spacing"): "line height", ("gap", "size"): "gap",
    ("gap", "spacing"): "gap", ("spacing", "spacing"): "spacing", ("palette", "colour"): "palette",
    ("palette", "relative"): "palette", ("background", "colour"): "background",
    ("background", "relative"): "background", ("accent", "colour"): "accent", ("accent", "relative"): "accent",
    ("corners", "radius"): "corners", ("corners", "size"): "corners", ("page", "relative"): "palette",
    ("page", "colour"): "palette", ("page", "spacing"): "spacing", ("hero", "height"): "hero height",
}

# ---------------------------------------------------------------- copy, sections, pictures

_ELEMENT = (r"(?:the |their |these |those )?(?:(?:hero|main|page) )?(?:headline|titles?|headings?|h1|tagline|subtitle|subheading|strapline|"
            r"button(?: text| label)?|call to action|cta|caption \d+|\d+th caption|"
            r"[a-z0-9-]+(?: [a-z0-9-]+)? (?:heading|title|text|copy|paragraph|intro|blurb)|"
            r"(?:heading|title|text|copy|paragraph) (?:of|for|in|on) the [a-z0-9-]+(?: [a-z0-9-]+)?(?: section)?)")
_SET_TEXT = re.compile(rf"\b(?:change|set|update|edit|rewrite|reword|rename|make|replace|turn)? ?(?P<element>{_ELEMENT})"
                       # "... to: Honey on the Roof", "... - Honey on the Roof", "tagline -> Slow honey": the mark
                       # stands for "to"
                       r"(?: (?:text|copy|words|wording))?(?: to (?:say|read)| (?:to|into|as|with)| to ?:| ?:|"
                       r" (?:->|=>|→|[-–—])| so (?:that )?it "
                       r"(?:says|reads)| (?:should|must|could|can|will)? ?(?:say|says|read|reads)|"
                       r"(?P<be> should be| to be| is now| becomes?))"
                       r" (?P<rest>.+)$")
_NEW_SECTION_STYLED = re.compile(
    r"\badd (?:a |an |one more |another )?(?:new )?section\b[^,;]*?(?:,\s*|\s)(?P<look>(?:with|in|having) (?:a |an |its own )?"
    r"[\w -]{0,20}?\b(?:background|colou?r|font|border|style|look|theme)s?)\b")
"""A look said with a new section ("add a section about tastings, with a blue background"): no section has its own."""
_SAY = re.compile(rf"\b(?:make|have|let) (?P<element>{_ELEMENT}) (?:say|read) (?P<rest>.+)$")
_SECTION_NAME = r"(?:the )?(?P<{0}>[a-z0-9-]+(?: [a-z0-9-]+){{0,2}}?)(?: section)?"
_REMOVE_SECTION = re.compile(r"\b(?:remove|delete|drop|take out|get rid of|cut|lose)\b " + _SECTION_NAME.format("name")
                             + r"(?: (?:from|on) (?:the |this )?(?:page|site))?"
                             r"(?:,? (?:but|and) (?:keep|leave)(?: in)? " + _SECTION_NAME.format("kept")
                             + r"(?: (?:as it is|as is|where it is|in place|alone))?)?$")
"""A section removed, perhaps with another kept ("remove the about section but keep the contact section"): a
constraint the removal of another section meets; the same section kept and removed is asked about."""
_REMOVE_SECTIONS = re.compile(
    r"\b(?:remove|delete|drop|take out|get rid of|cut|lose)\b (?:both )?(?P<list>(?:the )?[a-z0-9-]+(?: section)?"
    r"(?:(?:,| and|, and) (?:the )?[a-z0-9-]+(?: section)?)+)(?P<said> sections)?(?: (?:from|on) (?:the |this )?"
    r"(?:page|site))?$")
"""Two or more sections removed in one list ("remove the menu and the gallery", "drop the faq, menu and gallery
sections"): each must be a section of the page (else it is no list of sections: "remove the tagline and the button")."""
_ADD_SECTION = re.compile(
    r"\b(?:add|insert|include|put in|create)\b (?:a |an |the |one more |one |another )?(?:new |extra |additional )?(?:"
    r"section (?:about|on|for|called|named|with|titled|listing|showing) (?P<topic>.+?)|(?P<name>[a-z0-9-]+(?: [a-z0-9-]+)?)"
    r" section)(?: (?:(?:right|just|directly|immediately|straight) )?(?P<where>after|below|under|beneath|following|"
    r"before|above|ahead of) " + _SECTION_NAME.format("anchor")
    + r"| (?:at|to) the (?P<end>top|bottom|end|start|beginning))?(?: (?:of|on) (?:the |this )?(?:page|site))?$")
_NO_SECTION_NAME = frozenset({
    # how many, which one
    "a", "an", "the", "this", "that", "it", "one", "more", "another", "other", "some", "any", "extra", "additional",
    "addition", "further", "new", "brand", "next", "last", "first", "final", "second", "single", "separate", "whole",
    # who it is for, or where
    "me", "us", "you", "them", "my", "our", "your", "page", "site", "website", "here", "there",
    # its size or look: a section has none of its own
    "big", "bigger", "small", "smaller", "large", "little", "huge", "tiny", "short", "long", "tall", "wide", "narrow",
    "full", "half", "empty", "blank", "plain", "simple", "basic", "clean", "minimal", "dark", "light", "bright",
    "red", "crimson", "blue", "navy", "green", "yellow", "orange", "purple", "violet", "pink", "black", "white",
    "grey", "gray", "brown", "teal",
    # what a person thinks of it
    "nice", "cool", "good", "great", "awesome", "fancy", "pretty", "beautiful", "lovely", "fun", "neat", "proper",
    "quick", "fresh", "modern", "stylish", "elegant", "cute", "interesting", "useful",
})
"""Words before "section" (or after "a section for") that name no section: "add a section" added one named 'a',
"add a new section" 'new', "add one more section" 'more', "add a section for me" 'me', "add a big section" 'big',
and "add a blank section" (read as "black") 'black', "add an additional section" (read as "addition")
'addition'."""
_MOVE_SECTION = re.compile(
    r"\b(?:move|put|place|shift|bring)\b " + _SECTION_NAME.format("name") + r" (?:(?P<where>after|below|under|beneath|"
    r"before|above|ahead of|in front of|behind) " + _SECTION_NAME.format("anchor") + r"|(?:to (?:the )?|at the |up |down )?"
    # "to the back" is a place; "put the menu back" is no move (it moved the menu last)
    r"(?P<end>top|bottom|end|start|beginning|first|1th|last|front|(?<=the )back)|"
    # "move the gallery up": one section up, as a slide moves ("up 2": two)
    r"(?P<way>up|down)(?: by)?(?: (?P<count>\d+|one)(?: (?:places?|spots?|sections?))?)?)"
    r"(?: (?:of|on) (?:the |this )?(?:page|site))?$")
_SWAP_SECTIONS = re.compile(
    r"\b(?:swap|switch|exchange|trade|flip)\b(?: (?:the )?(?:places|positions|order) of)? " + _SECTION_NAME.format("a")
    + r" (?:and|with|for) " + _SECTION_NAME.format("b") + r"(?: (?:around|round|over|places|positions))?"
    r"(?: (?:on|in) (?:the |this )?(?:page|site))?$")
"""Two sections trading places ("swap the about and gallery sections"): two moves (one when they are neighbours).
It was asked about: no phrase of the page reader said it."""
_PICTURE = (r"(?:the )?(?:(?P<hero>hero(?: (?:image|photo|picture|shot|backdrop))?|(?:main|header|banner|top|cover) "
            r"(?:image|photo|picture|shot|backdrop))|"
            r"(?:(?P<nth>\d+)th|(?P<first>first)|(?P<last>last)) (?:gallery )?(?:image|photo|picture)|"
            r"(?:gallery )?(?:image|photo|picture) (?P<number>\d+)|"
            r"(?:gallery )?(?:image|photo|picture) (?:of|showing|with) (?P<alt>.+?))")
_STYLE_BUT_A_PART = re.compile(
    r"\b(?:fonts?|serif|sans|typeface|colou?rs?|accent|background|spacing|theme)\b.*\b(?:but|except|apart from|other "
    r"than|save)\b.*\b(?:button|headline|heading|tagline|menu|hero|gallery|sections?|footer|nav|navigation|title|"
    r"links?|text)\b")
"""A look for the page with one part left out: the page's look is one set of tokens."""
_RENAME_SECTION = re.compile(r"\b(?:rename|re-name|retitle|call|name)\b (?:the )?[a-z0-9-]+(?: [a-z0-9-]+)? section\b"
                             r"(?!'s| (?:heading|title|text|copy)\b)")
"""A section given a new name ("rename the menu section to Drinks", "call the about section Our story")."""
_SIZE_OF_NO_TOKEN = re.compile(
    r"\b(?:buttons?|call to action|cta|tagline|subtitle|strapline)(?:'s)?(?: (?:text|label|font|font size|text size|"
    rf"size))? (?:{_AMOUNT})?(?:bigger|larger|smaller|tinier|huger)\b|"
    r"\b(?:bigger|larger|smaller) (?:buttons?|tagline|call to action|cta)\b")
"""A size for a part of the page no style token sizes (the buttons, the tagline)."""
_REPLACE = re.compile(rf"\b(?:replace|swap(?: out)?|change|switch|update)\b {_PICTURE} (?:with|for|to|by) "
                      r"(?:a |an |some )?(?:new |different )?(?:(?:photo|picture|image|shot)s? )?(?:of |showing )?"
                      r"(?P<prompt>.+)$")
_USE_PICTURE = re.compile(rf"\b(?:use|put|show)\b (?:a |an )?(?:new |different )?(?:photo|picture|image) (?:of|showing) "
                          rf"(?P<prompt>.+?) (?:for|as|in) {_PICTURE}$")


_CANNOT = (
    # "replace picture 2 with picture 1" drew a new picture from the word '1'
    (A_PICTURE_BY_ANOTHER, _PICTURE_WORDS, 0, "put one picture in place of another",
     "I draw a picture anew from words; I cannot put one picture of the canvas in place of another, or swap two, so I "
     "changed nothing. Say what the new picture shows ('replace picture 2 with a jar of honey')."),
    # "make it use a serif font, but keep the button sans" changed every font, the button's too
    (_STYLE_BUT_A_PART, None, 0, "a change of the page's look",
     "a font or a colour is set for the whole page; I cannot leave one part of it out, so I changed nothing. Say the "
     "change for the whole page."),
    # "add a section about tastings, with a blue background" gave the whole page a blue background
    (_NEW_SECTION_STYLED, None, "look", "add a section",
     "a new section takes the page's look; I set a look for the whole page, not for one section, so I changed "
     "nothing. Add the section, then say the page's look if that is what you meant ('make the background blue')."),
    # "rename the menu section to Drinks": a section's name is its link in the navigation bar too, and no tool
    # renames one; its heading alone would leave the link saying 'Menu'
    (_RENAME_SECTION, None, 0, "rename a section",
     "no page tool renames a section (its name is also its link in the navigation bar), so I changed nothing. I can "
     "change the words of its heading, which leaves the link as it is: say 'change the menu heading to Drinks'."),
    # "make the button bigger", "make the tagline bigger": no token sizes them (the buttons' text inherits the body
    # text size, the tagline's is fixed); the body text size would have grown every paragraph as well
    (_SIZE_OF_NO_TOKEN, None, 0, "a size",
     "the buttons and the tagline have no size of their own I can set (the buttons' text follows the body text; the "
     "tagline's size is fixed), so I changed nothing. I can resize the headline, the section headings or the body "
     "text ('make the text bigger', which the buttons follow), or change the buttons' colour or corners."),
)
"""What a page request can say that no page tool does: (pattern, a pattern the request must also hold, the group
quoted, understood, why)."""


def _cannot_on_the_page(ctx: ReadContext, text: str) -> Reading | None:
    """The request asked of the page's tools what none of them does (:data:`_CANNOT`), as a clarification."""
    for pattern, needs, group, understood, why in _CANNOT:
        found = pattern.search(text)
        if found is None or (needs is not None and not needs.search(text)):
            continue
        ctx.words.take_all()
        said = typed(ctx, *found.span(group)) or found.group(group)
        return Reading(clarification=Clarification(reason="unsupported", understood=[understood],
                                                   message=f"'{said}': {why}"))
    return None


class PageReader:
    """Requests about the project's web page: each edit one page operation, never a rebuild."""

    name = "page"

    def read(self, ctx: ReadContext) -> Reading | None:
        text = ctx.words.text
        selected = _selected_page(ctx)
        named = bool(_PAGE_WORDS.search(text)) or (ctx.facts.has_page and not ctx.facts.has_deck and bool(
            _PAGE_ONLY_WORDS.search(text) or (not ctx.facts.has_story and _PICTURE_WORDS.search(text)))) or (
            ctx.facts.has_page and _names_section(ctx))
        version = asks_version(text) and (version_subject(ctx) == "page" or named)
        put_back = _PUT_IT_BACK.fullmatch(text) is not None and any(
            c.get("operation") == "page_remove_section" for c in ctx.previous.clauses)
        if put_back and ctx.facts.has_page:
            # "remove the gallery section", then "put it back": the turn before taken back (it was read as a shot
            # put back into a film's cut, and refused: "no story with shots")
            count, _ = previous_changes(ctx, PAGE_OPERATIONS)
            ctx.words.take_all()
            target = _page_target(ctx, None)
            undos = [clause(ctx, "page", "page_undo", {}, "put back what the last turn removed", start=0, end=len(text))
                     for _ in range(max(1, count))]
            for item in undos:
                item.targets = [target]
            return Reading(clauses=undos)
        if not (named or selected or version):
            return None
        if ctx.facts.has_page and (asked := _cannot_on_the_page(ctx, text)) is not None:
            return asked
        count, was_undo = previous_changes(ctx, PAGE_OPERATIONS)
        if was_undo and count > 1 and (THE_UNDO.fullmatch(text) or BARE_UNDO.fullmatch(text)):
            # "undo that" after an undo of several page changes: one page_revert to "previous" brought back one
            # of them; the whole undo turn is taken back (the versions reader's undo_turn)
            return None
        if not ctx.facts.has_page:
            if ctx.facts.has_deck and re.search(r"\btheme\b", text):
                return None  # the deck's theme: the slides reader's
            return not_found(ctx, "a web page", f"There is no web page {ctx.facts.where} yet; give me a brief "
                             "first ('a website for a bakery: warm, rustic').")
        if (ctx.facts.has_deck and re.search(r"\btheme\b", text) and not selected
                and not _NAMES_PAGE.search(text)):
            # Both a page and a deck have a theme and nothing says which: ask, with both as the candidates a
            # person picks from (the answer, the page's or the deck's id, reads the request again).
            if ctx.answer in {d.id for d in ctx.facts.decks}:
                return None  # the deck's theme: the slides reader's
            if ctx.answer in {p.id for p in ctx.facts.pages}:
                selected = ctx.answer
            else:
                from nodes.understanding.readers.slides import Deck

                # Each candidate's operation is a clause, so the turn's grant holds what either answer needs
                # (the page's revision and the deck's theme, scoped to them): the answer resumes under it.
                ctx.words.take_all()
                page = _page_target(ctx, None)
                return Reading(clauses=[
                    Clause(text=ctx.request, domain=self.name, operation="revise_page", targets=[page],
                           understood=["the page's theme"]),
                    *(Clause(text=ctx.request, domain="slides", operation="deck_set_theme",
                             targets=[Deck(ctx, deck).target()], understood=["the deck's theme"])
                      for deck in ctx.facts.decks)], clarification=Clarification(
                    reason="ambiguous", understood=["a change of theme"],
                    candidates=[{"id": ctx.facts.pages[0].id, "kind": "code", "title": ctx.facts.pages[0].title},
                                *deck_candidates(ctx.facts.decks)],
                    message="The project has a web page and a slide deck: which one's theme? Say 'the page's theme' "
                            "or 'the deck's theme', select one, or answer with its id."))
        target = _page_target(ctx, selected)
        doc = ctx.facts.page_document if target.id == ctx.facts.pages[0].id else None
        kept = _kept_tokens(ctx)
        try:
            read = read_clauses(ctx, lambda c, w, s, e: _parse(c, w, s, e, doc, target))
        except Ask as asked:
            return asked.reading(ctx, self.name, target)
        if read is None:
            ctx.words.take_all()
            return Reading(clarification=Clarification(
                reason="unparsed", understood=[f"the page: {target.title}"],
                not_understood=Words(text).unused(),
                message=("I understood this is about the web page, but not what to change, so I changed nothing. I "
                         "can: reword an element ('change the headline to ...'), restyle it ('make the headline "
                         "bigger', 'green buttons', 'a serif font', 'more spacing', 'a darker palette'), add, remove "
                         "or move a section, replace a picture, change the hero, columns or theme, and undo or "
                         "revert a change.")))
        clauses, words = read
        changed = {c.args.get("token") for c in clauses}
        if clashing := sorted(t for t in kept if t in changed):
            ctx.words.take_all()
            return Reading(clarification=Clarification(
                reason="conflict", understood=[u for c in clauses for u in c.understood],
                message=f"You asked me to change the {clashing[0]} and to keep it as it is. Which one do you mean?"))
        if kept and any(c.operation not in ("page_set_style", "page_set_text") for c in clauses):
            ctx.words.take_all()  # a section or layout change may move what was to be kept: asked, not guessed
            return Reading(clarification=Clarification(
                reason="unparsed", understood=[u for c in clauses for u in c.understood],
                message="I can keep what you named as it is only with a style or text change; ask for the other "
                        "change on its own."))
        ctx.words = words
        section = _selected_section(ctx)
        page_wide = [c for c in clauses if c.operation in _PAGE_WIDE]
        if section and page_wide:
            return Reading(clarification=Clarification(
                reason="conflict", understood=[f"the {section} section of the page", *page_wide[0].understood],
                message=f"You selected the {section} section, but {page_wide[0].understood[0]} changes the whole "
                        "page's style, not one section, so I changed nothing. Say it again with no section "
                        "selected to change the whole page, or ask for the section's words, or to move or "
                        "remove it."))
        for item in clauses:
            item.targets = [target]
        return Reading(clauses=clauses)


# ---------------------------------------------------------------- which page


def _names_section(ctx: ReadContext) -> bool:
    """Whether the request moves, adds, removes or swaps one of the page's own sections by name ("delete the menu"),
    a name no slide's title has."""
    doc = ctx.facts.page_document
    if doc is None or not _SECTION_VERBS.search(ctx.words.text):
        return False
    names = [s.replace("-", " ") for s in doc.layout.sections if s not in ("about", "contact")]
    # A slide titled with the name ("Menu") could be what is meant: then the page is not assumed.
    slides = " ".join(s.title.lower() for s in ctx.facts.slides)
    return any(re.search(rf"\b{re.escape(name)}\b", ctx.words.text) and not re.search(rf"\b{re.escape(name)}\b",
                                                                                        slides) for name in names)


_PAGE_WIDE = frozenset({"page_set_style", "revise_page"})
"""Page operations that change the whole page (its design tokens, hero, columns, theme), never one section."""
_THIS_SECTION = frozenset({"it", "this", "that", "this section", "that section", "the selected section",
                           "selected section", "the selection", "selection", "this one", "here"})
"""What the selected section is called in a request ("remove it", "move this section above the menu")."""
_THESE_SECTIONS = frozenset({"these", "those", "them", "both", "these sections", "those sections", "both sections",
                             "the selected sections", "selected sections", "all of them",
                             "these two", "the two sections"})
"""What several selected sections are called ("remove these", "delete both sections")."""
_SECTION_ELEMENT_WORDS = frozenset({"heading", "title", "section heading", "section title", "headings", "titles",
                                    "section headings", "section titles"})
"""What the selected sections' headings are called ("change the heading to ..."); elsewhere "heading" is the
page's headline."""


def _selected_sections(ctx: ReadContext) -> list[str]:
    """The sections selected in the selected page, in the order selected (none when no section was)."""
    for node in ctx.facts.selection:
        if node.page and node.sections:
            return list(node.sections)
    return []


def _selected_section(ctx: ReadContext) -> str | None:
    """The first section selected in the selected page, if one was (where one section is meant, and the
    words say which when there are several)."""
    sections = _selected_sections(ctx)
    return sections[0] if sections else None


def _selected_page(ctx: ReadContext) -> str | None:
    """The page a selected node belongs to (its code node, preview, HTML file or a gallery picture)."""
    for node in ctx.facts.selection:
        if node.page:
            return node.page
    return None


def _page_target(ctx: ReadContext, selected: str | None) -> Target:
    pages = ctx.facts.pages
    current = next((p for p in pages if p.id == selected), None) if selected else None
    if selected and current is None and len(pages) == 1:
        current = pages[0]  # an earlier version's preview: the page it shows is this one, now
    sections = _selected_sections(ctx)
    referred = (f"the {' and '.join(sections)} section{'s' if len(sections) > 1 else ''} of the selected page"
                if sections else "the selected page")
    if current is not None:
        return Target(id=current.id, kind="code", title=current.title, referred_as=referred)
    if selected:  # another page's earlier version: the tools follow it to its current version
        return Target(id=selected, kind="code", title="the selected page", referred_as="the selected page")
    return Target(id=pages[0].id, kind="code", title=pages[0].title, referred_as="the page")


# ---------------------------------------------------------------- one clause


_PAGE_KEPT = re.compile(
    r"(?:,\s*|\s+)(?:but |and )?(?:(?:don'?t|do not) (?:change|touch|alter) (?:the )?(?P<a>[a-z][a-z -]*?)|"
    r"(?:keep|leave) (?:the )?(?P<b>[a-z][a-z -]*?)(?: as (?:it is|they are)| the same| alone| unchanged| untouched)?)"
    r"(?=\s*(?:[,.;!]|$))")
"""What a style change leaves as it is: "make the buttons dark green but don't change the background"."""


def _kept_tokens(ctx: ReadContext) -> set[str]:
    """The style tokens the request says to keep, their words taken (a style change sets one token: the others
    stay by construction, which the caller checks against what the clauses change).  Words that name no token
    are left for the readers, which ask about them."""
    kept: set[str] = set()
    for match in _PAGE_KEPT.finditer(ctx.words.text):
        said = match["a"] or match["b"]
        token = token_for_words(said) or token_for_words(f"{said} colour")
        if token is not None and not ctx.words.used(match.start(), match.end()):
            ctx.words.mark(match.start(), match.end())
            kept.add(token)
    return kept


def _parse(ctx: ReadContext, words: Words, start: int, end: int, doc: PageDocument | None,
           target: Target) -> list[Clause] | None:
    return parse_in_turn((_version, _picture, _sections, _copy, _layout, _same_font, _too_dark, _style),
                         {"_picture": "page_replace_image"}, ctx, words, start, end, doc, target)


_TOO_DARK = re.compile(rf"\s*{_THE_PAGE} (?:is|looks|seems|feels) too (?P<how>dark|bright|light)\s*[.!]*\s*$")
"""A complaint of how dark the whole page is ("the page is too dark"); with a degree ("a bit too dark") it is asked
about, as "slightly lighter" is: the palette goes one whole step."""


def _too_dark(ctx: ReadContext, words: Words, start: int, end: int, doc: PageDocument | None,
              target: Target) -> list[Clause] | None:
    """"the page is too dark": its palette a step lighter (as "the headline is too big" makes it smaller), when the
    page's theme is not the side complained of.  On a dark-themed page it could mean the light theme as well, so it
    is asked about: a theme switch is no step."""
    said = _TOO_DARK.match(ctx.words.text, start, end)
    if said is None or doc is None:
        return None
    wanted = "lighter" if said["how"] == "dark" else "darker"
    if doc.layout.theme == ("dark" if wanted == "lighter" else "light"):
        theme = "light" if wanted == "lighter" else "dark"
        raise Ask(Clarification(reason="ambiguous", understood=[f"the page {wanted}"], message=(
            f"The page has a {doc.layout.theme} theme: should I switch it to a {theme} theme ('switch the page to a "
            f"{theme} theme'), or make its colours a step {wanted} ('make the page {wanted}')? I changed nothing.")))
    words.mark(said.start(), said.end())
    return [clause(ctx, "page", "page_set_style", {"token": "palette", "value": wanted},
                   f"palette: {wanted} ('{said.group(0).strip()}')", start=start, end=end)]


_FONT_ROLES = r"headlines?|headings?|titles?|h1|body(?: text| copy)?|text|copy|paragraphs?"
_SAME_FONT = (
    re.compile(rf"\b(?:(?:use|set|give|put|apply) )?(?:the )?same (?:font|typeface) (?:as|that) (?:the )?(?P<src>"
               rf"{_FONT_ROLES})(?:'s)?(?: font)?(?: (?:uses?|has))? (?:for|on|in|to) (?:the )?(?P<dst>{_FONT_ROLES})"
               r"(?: font)?(?: too| as well)?\b"),
    re.compile(rf"\b(?:make|let|have|set) (?:the )?(?P<dst>{_FONT_ROLES})(?: font)? (?:use|match|take|share) (?:the )?"
               rf"(?P<src>{_FONT_ROLES})(?:'s)?(?: font)?\b"),
    re.compile(rf"\b(?:make|set) (?:the )?(?P<dst>{_FONT_ROLES}) font (?:the )?same as (?:the |that of the )?"
               rf"(?P<src>{_FONT_ROLES})(?:'s)?(?: font)?\b"),
)
"""One font given the other's ("use the same font as the headline for the body", "make the body text use the
headline font"): the page's current value of one font token set on the other.  It was asked about."""


def _font_token(role: str) -> str:
    return "body-font" if re.match(r"body|text|copy|paragraph", role) else "heading-font"


def _same_font(ctx: ReadContext, words: Words, start: int, end: int, doc: PageDocument | None,
               target: Target) -> list[Clause] | None:
    match = next((m for p in _SAME_FONT if (m := p.search(ctx.words.text, start, end)) is not None), None)
    if match is None or doc is None:
        return None
    source, token = _font_token(match["src"]), _font_token(match["dst"])
    if source == token:
        raise Ask(Clarification(reason="unparsed", understood=[f"the {match['dst']} font"],
                                message=f"The {match['src']} and the {match['dst']} are set by one font, so there is "
                                        "nothing to copy; say which font to use ('a serif font for the body')."))
    value = page_tokens(doc.design, doc.layout, doc.tokens)[source]
    words.mark(match.start(), match.end())
    return [clause(ctx, "page", "page_set_style", {"token": token, "value": value},
                   f"{token}: the {match['src']}'s font ({value})", start=start, end=end)]


_PUT_IT_BACK = re.compile(r"\s*(?:please )?(?:put|bring|add) (?:it|that|them|those) back(?: again| in| please)?\s*[.!]*\s*")


def _version(ctx: ReadContext, words: Words, start: int, end: int, doc: PageDocument | None,
             target: Target) -> list[Clause] | None:
    return read_undo(ctx, words, start, end, what="page", undo_op="page_undo", revert_op="page_revert", domain="page",
                     operations=PAGE_OPERATIONS)


def _picture(ctx: ReadContext, words: Words, start: int, end: int, doc: PageDocument | None,
             target: Target) -> list[Clause] | None:
    text = ctx.words.text[:end]
    match = _REPLACE.search(text, start) or _USE_PICTURE.search(text, start)
    if match is None:
        return None
    number = _picture_number(match, doc, ctx.answer)
    if (layout := _A_LAYOUT.match(ctx.words.text, match.start("prompt"), match.end("prompt"))) is not None:
        # "change the hero to full width" drew a picture of 'full width'
        raise Ask(Clarification(reason="unparsed", understood=["a change of the hero"], message=(
            f"'{layout.group(0).strip()}' is how the hero is laid out, not a picture to draw; I changed nothing. Say "
            "'make the hero full-bleed' for its layout, or what the new picture shows ('replace the hero with a jar "
            "of honey').")))
    prompt = content_after(ctx, words, match.start("prompt"), match.end("prompt"))
    words.mark(match.start(), match.end())
    place = "the hero picture" if number == HERO else f"picture {number}"
    return [clause(ctx, "page", "page_replace_image", {"image": number, "prompt": prompt},
                   f"replace {place} of the page with a new one: {prompt}", start=start, end=end)]


_A_LAYOUT = re.compile(r"\s*(?:be |look )?(?:full[- ]?(?:width|bleed|screen|page)|edge[- ]to[- ]edge|wider|narrower|"
                       r"contained|centred|centered|bigger|smaller|taller|shorter|larger)\s*[.!]*\s*$")
"""A layout said where a picture's description goes ("change the hero to full width")."""


def _picture_number(match: re.Match[str], doc: PageDocument | None, answer: str | None = None) -> int | str:
    """The gallery picture's number, or :data:`HERO` for the hero's backdrop (its own place, not picture 1)."""
    count = len(doc.images) if doc is not None else None
    if match.group("hero"):
        return HERO
    if match.group("first"):
        number = 1
    elif match.group("last"):
        if count is None:
            raise Ask(Clarification(reason="unparsed", message="Which picture is the last one? Name it by number."))
        number = count
    elif match.group("nth") or match.group("number"):
        number = int(match.group("nth") or match.group("number"))
    else:
        alt = match.group("alt") or ""
        if doc is None:
            raise Ask(Clarification(reason="unparsed", message="Which picture do you mean? Name it by number."))
        wanted = {w for w in re.findall(r"[a-z]+", alt) if len(w) > 2}
        scored = [(len(wanted & set(re.findall(r"[a-z]+", i.alt.lower()))), n) for n, i in enumerate(doc.images, 1)]
        best = max((s for s, _ in scored), default=0)
        chosen = [n for s, n in scored if s == best and best > 0]
        answered = [n for n in chosen if doc.images[n - 1].node_id == answer]
        if len(chosen) != 1 and len(answered) == 1:
            chosen = answered  # the person picked one of the candidates
        if len(chosen) != 1:
            listed = "; ".join(f"{n}: {i.alt}" for n, i in enumerate(doc.images, 1))
            raise Ask(Clarification(reason="ambiguous" if chosen else "not_found", missing=[] if chosen else [alt],
                                    candidates=[{"id": doc.images[n - 1].node_id, "title": doc.images[n - 1].alt,
                                                 "picture": n} for n in chosen],
                                    message=f"Which picture do you mean by '{alt}'? The page's pictures: {listed}. "
                                            "Answer with its id."))
        number = chosen[0]
    if count is not None and not 1 <= number <= count:
        raise Ask(Clarification(reason="not_found", missing=[f"picture {number}"],
                                message=f"The page has no picture {number}; it has {count} (1 to {count})."))
    return number


def _section(doc: PageDocument | None, said: str, *, new: bool = False) -> str:
    """The section a name means on this page; :class:`Ask` naming the page's sections when it has none such."""
    if doc is None:
        return slug(re.sub(r"\b(?:the|section)\b", " ", said), 30)
    try:
        return resolve_section(doc, said)
    except Exception:
        name = slug(re.sub(r"\b(?:the|section)\b", " ", said), 30)
        if new:
            return name
        raise Ask(Clarification(reason="not_found", missing=[f"the {said} section"],
                                message=f"The page has no '{said}' section, so I changed nothing; its sections are "
                                        f"{', '.join(doc.layout.sections)}.")) from None


def _ask_unless_named(ctx: ReadContext, match: re.Match[str], doc: PageDocument | None) -> None:
    """:class:`Ask` which section to add when the words before "section" name none (any of them is a
    :data:`_NO_SECTION_NAME` word, or a number: "add a big faq section" would drop 'big'), or what it is for names
    nothing ("add a section for me")."""
    name, topic = match.group("name"), match.group("topic")
    words = re.findall(r"[a-z0-9-]+", name or topic or "")
    unnamed = [w for w in words if w in _NO_SECTION_NAME or re.fullmatch(r"\d+(?:th)?", w)]
    called = topic and re.search(r"\b(?:called|titled|named|headed)\s*$", ctx.words.text[:match.start("topic")])
    if called or (words and (len(unnamed) < len(words) if topic else not unnamed)):
        return  # a name, a subject ("add a section about new products") or a heading as said ("called More")
    said = typed(ctx, match.start(), match.end())
    why = (f"'{said}' does not name one" if len(unnamed) == len(words) else
           f"In '{said}', '{' '.join(unnamed)}' is not part of a section's name (a section takes the page's look)")
    sections = f"; the page has {', '.join(doc.layout.sections)}" if doc is not None else ""
    raise Ask(Clarification(reason="no_target", understood=["add a section"], message=(
        f"Which section should I add? {why}, so I added nothing. Name it, or say what it is about ('add a pricing "
        f"section', 'add a section about opening hours'){sections}.")))


def _these_sections(ctx: ReadContext, said: str, doing: str) -> list[str]:
    """The sections ``said`` names: the selected ones when it points at them ("it", "this section", "these",
    "both", "the selection"), else ``said`` itself.  "it" with several sections selected is asked about (which
    one?), and so is "these" with none selected: neither picks a section the person did not mean."""
    sections = _selected_sections(ctx)
    said = said.strip()
    if said in ("the selection", "selection"):
        return sections or [said]
    if said in _THIS_SECTION:
        if len(sections) > 1:
            raise Ask(Clarification(reason="ambiguous", understood=[f"{doing} a section"],
                                    message=f"You selected {len(sections)} sections ({', '.join(sections)}); which "
                                            f"one should I {doing}? Say 'these' for all of them, or select one."))
        return sections or [said]
    if said in _THESE_SECTIONS:
        if not sections:
            raise Ask(Clarification(reason="no_target", understood=[f"{doing} sections"],
                                    message=f"Which sections should I {doing}? Select them in the Page lens "
                                            "(Shift-click adds one), or name them."))
        return sections
    return [said]


def _sections(ctx: ReadContext, words: Words, start: int, end: int, doc: PageDocument | None,
              target: Target) -> list[Clause] | None:
    text = ctx.words.text[:end]
    if (match := _ADD_SECTION.search(text, start)) is not None:
        said = match.group("topic") or match.group("name")
        _ask_unless_named(ctx, match, doc)
        name = _section(doc, said, new=True)
        if doc is not None and name in doc.layout.sections:
            raise Ask(Clarification(reason="conflict", message=f"The page already has a {name} section; say what to "
                                    "change in it, or give the new section another name."))
        args: dict = {"name": name}
        if match.group("topic") and re.search(r"\b(?:called|titled|named|headed)\s*$", text[:match.start("topic")]) \
                and not quotes(ctx, match.start(), match.end()) and (about := A_TOPIC_IN_THE_TITLE.search(said)):
            # "add a section called Events about our tasting nights" was headed 'Events about our tasting nights'
            raise Ask(Clarification(reason="unparsed", understood=["add a section"], message=(
                f"'{said[about.start():].strip()}': part of the new section's heading, or what it is about? I added "
                "nothing. Say 'add a section about tastings called \"Tasting nights\"', or quote the heading.")))
        if match.group("topic"):
            rest = ctx.words.text[match.end():]  # "..., heading: What's on" is a clause of its own
            if (named := NAMED_IN_THE_TOPIC.search(match.group("topic")) or re.search(
                    r"\b(?:heading|title|header)\b", rest)) is not None and not re.search(
                    r"\b(?:called|titled|named|headed)\s*$", text[:match.start("topic")]):
                # "add a section about bees called The Hive" was headed 'Bees called The Hive'; "..., heading:
                # What's on" set the page's own headline
                raise Ask(Clarification(reason="unparsed", understood=["add a section"], message=(
                    f"'{named.group(0).strip(' :')}': the new section's heading, or the page's? I added nothing. Say "
                    "'add a section called \"What's on\"' (its heading), then any other change on its own.")))
            if (place := UNREAD_PLACE.search(match.group("topic"))) is not None:
                # "add a section about wax candles between gallery and testimonials" was headed with the place
                raise Ask(Clarification(reason="unparsed", understood=["add a section"], message=(
                    "Where should the new section go? I did not understand '"
                    f"{typed(ctx, match.start('topic') + place.start(), match.end('topic'))}', so I added nothing. "
                    "Say 'after the menu', 'before the contact section' or 'at the bottom'.")))
            # The heading is the person's words, checked as any new words are ("about events, then remove it" was
            # headed "Events, then remove it")
            called = bool(re.search(r"\b(?:called|titled|named|headed)\s*$", text[:match.start("topic")]))
            heading = content_after(ctx, words, match.start("topic"), match.end("topic"), exact=called)
            args["heading"] = heading[:1].upper() + heading[1:]
        if match.group("anchor"):
            anchor = _section(doc, match.group("anchor"))
            args["after" if match.group("where") in ("after", "below", "under", "beneath", "following") else
                 "before"] = anchor
        elif match.group("end") and doc is not None:
            top = match.group("end") in ("top", "start", "beginning")
            sections = doc.layout.sections
            if top:
                args["after" if sections[0] == "hero" else "before"] = sections[0]
            else:
                args["after"] = sections[-1]
        words.mark(match.start(), match.end())
        place = next((f"{k} {v}" for k, v in args.items() if k in ("after", "before")), "before contact")
        return [clause(ctx, "page", "page_add_section", args, f"add a {name} section ({place})", start=start, end=end)]
    if (match := _REMOVE_SECTIONS.search(text, start)) is not None and doc is not None:
        said = [re.sub(r"^the |\s+section$", "", part.strip()) for part in
                re.split(r",\s*(?:and\s+)?|\s+and\s+", match.group("list"))]
        known = [_known_section(doc, part) for part in said]
        if all(known) or (match.group("said") and any(known)):
            names = list(dict.fromkeys(_section(doc, part) for part in said))  # an unknown one is asked about
            words.mark(match.start(), match.end())
            return [clause(ctx, "page", "page_remove_section", {"section": name}, f"remove the {name} section",
                           start=start, end=end) for name in names]
    if (match := _REMOVE_SECTION.search(text, start)) is not None:
        named = _these_sections(ctx, match.group("name"), "remove")
        if doc is not None and len(named) == 1 and _known_section(doc, named[0]) is None and not re.search(
                r"\bsections?\b", match.group(0)):
            return None  # "remove the tagline": not a section
        names = list(dict.fromkeys(_section(doc, said) for said in named))
        kept = re.sub(r"\s+sections?$", "", match.group("kept") or "")
        if kept:
            if doc is None or _known_section(doc, kept) is None:
                return None  # "but keep the tagline": not a section this reading can vouch for
            kept_name = _section(doc, kept)
            if kept_name in names:
                raise Ask(Clarification(reason="conflict", understood=[f"remove the {kept_name} section",
                                                                        f"keep the {kept_name} section"],
                                        message=f"You asked me to remove the {kept_name} section and to keep it, so I "
                                                "changed nothing. Which one do you mean?"))
        words.mark(match.start(), match.end())
        return [clause(ctx, "page", "page_remove_section", {"section": name}, f"remove the {name} section"
                       + (f" (the {kept_name} section kept)" if kept else ""), start=start, end=end) for name in names]
    if (match := _SWAP_SECTIONS.search(text, start)) is not None and doc is not None:
        said = [re.sub(r"\s+sections?$", "", match.group(k)) for k in ("a", "b")]
        known = [_known_section(doc, s) for s in said]
        if all(known) and known[0] != known[1]:
            words.mark(match.start(), match.end())
            return _swapped(ctx, doc, [str(k) for k in known], start, end)
    if (match := _MOVE_SECTION.search(text, start)) is not None:
        named = _these_sections(ctx, match.group("name"), "move")
        if len(named) > 1:
            raise Ask(Clarification(reason="ambiguous", understood=[f"move the {' and '.join(named)} sections"],
                                    message="I move one section at a time, so I changed nothing: select one "
                                            "section, or name it ('move the gallery above the about section')."))
        name = _section(doc, named[0])
        args = {"section": name}
        if match.group("anchor"):
            anchor = _section(doc, match.group("anchor"))
            args["before" if match.group("where") in ("before", "above", "ahead of", "in front of") else "after"] = anchor
        elif match.group("way") and doc is not None:
            args.update(_moved_by_places(doc, name, match.group("way"), match.group("count")))
        else:
            args["to"] = "first" if match.group("end") in ("top", "start", "beginning", "first", "1th", "front") \
                else "last"
        words.mark(match.start(), match.end())
        where = next(f"{k} {v}" for k, v in args.items() if k != "section")
        return [clause(ctx, "page", "page_move_section", args, f"move the {name} section {where}", start=start,
                       end=end)]
    return None


def _moved_by_places(doc: PageDocument, name: str, way: str, count: str | None) -> dict[str, str]:
    """Where "move the gallery up" (one place), "down 2" puts a section: before the section that many places above
    it, or after the one that many below; past the top or the bottom is asked."""
    order = list(doc.layout.sections)
    by = places_moved(way, count)
    places, at = abs(by), order.index(name) + by
    if not 0 <= at < len(order) or places == 0:  # "move the hero up": it is at the top already
        raise Ask(Clarification(reason="not_found", understood=[f"move the {name} section {way}"], message=(
            f"The page's sections are {', '.join(order)}: {places} place{'s' if places != 1 else ''} {way} from the "
            f"{name} section is past the {'top' if way == 'up' else 'bottom'} of the page, so I changed nothing.")))
    return {"before": order[at]} if way == "up" else {"after": order[at]}


def _swapped(ctx: ReadContext, doc: PageDocument, pair: list[str], start: int, end: int) -> list[Clause]:
    """The moves that make two sections trade places: the later one before the earlier, then (unless they were
    neighbours) the earlier one after the section the later one followed."""
    order = list(doc.layout.sections)
    first, second = sorted(pair, key=order.index)
    if order.index(second) == order.index(first) + 1:
        moves = [{"section": first, "after": second}]
    else:
        moves = [{"section": second, "before": first}, {"section": first, "after": order[order.index(second) - 1]}]
    return [clause(ctx, "page", "page_move_section", args, f"move the {args['section']} section "
                   f"{next(f'{k} {v}' for k, v in args.items() if k != 'section')} (swapping {first} and {second})",
                   start=start, end=end) for args in moves]


def _known_section(doc: PageDocument, said: str) -> str | None:
    try:
        return resolve_section(doc, said)
    except Exception:
        return None


def _copy(ctx: ReadContext, words: Words, start: int, end: int, doc: PageDocument | None,
          target: Target) -> list[Clause] | None:
    text = ctx.words.text[:end]
    match = _SAY.search(text, start) or _SET_TEXT.search(text, start)
    if match is None:
        return None
    rest_start, rest_end = match.start("rest"), match.end("rest")
    quoted = [q for q in quotes(ctx, rest_start, rest_end)]
    verb = None if quoted else re.search(r"\b(to) (?:say|read) $", text[:rest_start])
    if verb is not None and typed(ctx, verb.end(1) + 1, rest_start - 1)[:1].isupper() and \
            typed(ctx, verb.start(1), verb.end(1)) == "to":
        # "change the contact heading to Say hi": the capital says "Say" begins the new words (they were 'hi')
        rest_start = verb.end(1) + 1
    if not quoted and "be" in match.re.groupindex and match.group("be"):
        # "the tagline should be shorter", "the headline shouldn't be so big": how it should be, not its words
        # (they became the tagline "shorter" and the headline "so big"); new words after "should be" are quoted
        return None
    if not quoted and (_is_style_value(match.group("rest")) or re.search(
            r"\b(?:size|colou?r|font|bigger|smaller|bold)\b", match.group("element"))):
        return None  # "change the headline to bold": a style, not words
    said_element = match.group("element")
    sections = _selected_sections(ctx)
    bare = re.sub(r"^(?:the|this|that|their|these|those) ", "", said_element.strip())
    said = [said_element]
    if sections and doc is not None and bare in _SECTION_ELEMENT_WORDS:
        # Each selected section's heading ("the heading", "their headings"): one change per section.
        said = ["headline" if section == "hero" else f"{section} heading" for section in sections]
    elements = [_element(doc, one) for one in said]
    if any(element is None for element in elements):
        return None
    new_words = content_after(ctx, words, rest_start, rest_end, exact=True)
    if not new_words:
        return None
    # what follows quoted words is left to be read ("... to say 'Book a sitting' and make it navy": the colour
    # was taken with the words and dropped)
    words.mark(match.start(), rest_start)
    return [clause(ctx, "page", "page_set_text", {"element": element, "text": new_words},
                   f"the {element} to say '{new_words[:60]}'", start=start, end=end)
            for element in dict.fromkeys(e for e in elements if e is not None)]


def _element(doc: PageDocument | None, said: str) -> str | None:
    phrase = re.sub(r"^(?:the )?(?:hero |main |page )", "", said.strip())
    phrase = re.sub(r"\b(\d+)th caption\b", r"caption \1", phrase)
    phrase = re.sub(r"^(?:heading|title|text|copy|paragraph) (?:of|for|in|on) the (.+?)(?: section)?$",
                    lambda m: f"{m.group(1)} {'heading' if said.split()[-1] in ('heading', 'title') else 'text'}",
                    phrase)
    phrase = re.sub(r"^(?:the )?([a-z0-9-]+(?: [a-z0-9-]+)?) (?:copy|paragraph|intro|blurb)$", r"\1 text", phrase)
    if doc is None:
        return {"title": "headline", "heading": "headline", "h1": "headline", "subtitle": "tagline",
                "cta": "button", "call to action": "button", "button text": "button"}.get(phrase, phrase)
    found = element_for_words(doc, phrase)
    if found is None and phrase.endswith(" text") and phrase.removesuffix(" text") in ("button", "hero"):
        found = element_for_words(doc, phrase.removesuffix(" text"))
    if found is None:
        elements = ", ".join(doc.text_elements())
        raise Ask(Clarification(reason="not_found", missing=[said.strip()],
                                message=f"The page has no text element '{said.strip()}', so I changed nothing; its "
                                        f"elements are {elements}."))
    return found


def _is_style_value(text: str) -> bool:
    rest = text.strip()
    return any(pattern.fullmatch(rest) for pattern in (_SIZE, _COLOUR, _FONT, _WEIGHT, _RELATIVE_COLOUR)) or bool(
        re.fullmatch(r"(?:a |an )?(?:" + "|".join(p.pattern for p in (_SIZE, _COLOUR, _FONT)) + r")(?: font| colou?r)?",
                     rest))


def _layout(ctx: ReadContext, words: Words, start: int, end: int, doc: PageDocument | None,
            target: Target) -> list[Clause] | None:
    text = ctx.words.text
    layout = [m for pattern in _LAYOUT for m in pattern.finditer(text, start, end)]
    if not layout:
        return None
    for match in layout:
        words.mark(match.start(), match.end())
    words.take(_LAYOUT_WORDS, start, end)
    change = text[start:end].strip()
    return [clause(ctx, "page", "revise_page", {"change": change}, "page layout: "
                   + ", ".join(m.group(0) for m in layout), start=start, end=end)]


def _style(ctx: ReadContext, words: Words, start: int, end: int, doc: PageDocument | None,
           target: Target) -> list[Clause] | None:
    text = ctx.words.text
    for subject, pattern, kinds in _SUBJECTS:
        named = words.peek(pattern, start, end)
        if named is None:
            continue
        if subject == "page" and not (ctx.facts.selection or re.search(r"\b(?:page|site|website|design|look)\b",
                                                                         named.group(0))):
            continue  # "make it darker" names the page only when the page is selected
        for kind in kinds:
            value = _value(ctx, words, kind, start, end, named)
            if value is None:
                continue
            token = "fonts" if (subject, kind) in (("fonts", "font"), ("page", "font")) else token_for_words(
                _NAMING.get((subject, kind), ""))
            if token is None:
                continue
            said = text[named.start():named.end()].removeprefix("the ").strip()
            if subject == "page" and kind == "colour" and value in _COLOURS_CSS_LACKS.values():
                _ask_which_colour_of_the_page(said, value)
            words.mark(named.start(), named.end())
            return [clause(ctx, "page", "page_set_style", {"token": token, "value": value},
                           f"{token}: {value} ('{said}')", start=start, end=end)]
    return None


def _ask_which_colour_of_the_page(said: str, value: str) -> None:
    """"make the page cream": a pale colour is the background's as often as the palette's (a cream palette has
    strong yellow accents), so which is asked."""
    name = next(n for n, v in _COLOURS_CSS_LACKS.items() if v == value)
    raise Ask(Clarification(reason="ambiguous", understood=[f"{name} ('{said}')"], message=(
        f"'{name}' for the whole {said.split()[-1]}: its background ('make the background {name}') or a palette "
        f"around that colour ('a {name} palette')? I changed nothing.")))


_DEGREE_BEFORE = re.compile(r"\b(a (?:little|bit|tad|touch)|slightly|somewhat|much|way|a lot|far|lots)\s+$")
"""A degree right before a value ("a little less", "slightly darker"), which whole-step values cannot honour."""


def _value(ctx: ReadContext, words: Words, kind: str, start: int, end: int, named: re.Match[str]) -> str | None:
    """The value of one kind the span gives (taken), as the page tools read it."""
    pattern = _VALUES[kind]
    found = None
    for match in pattern.finditer(ctx.words.text, start, end):
        if match.start() < named.end() and named.start() < match.end() or words.used(match.start(), match.end()):
            continue
        found = match
        break
    if found is None:
        if kind == "font":
            quoted = [q for q in quotes(ctx, start, end) if not words.used(q.start, q.end)]
            if quoted and re.search(r"\b(?:font|typeface)s?\b", ctx.words.text[start:end]):
                words.mark(quoted[0].start, quoted[0].end)
                return quoted[0].said
        return None
    said = found.group(0)
    degree = _DEGREE_BEFORE.search(ctx.words.text[:found.start()], max(start, found.start() - 12))
    if kind in ("spacing", "relative", "weight", "radius") and degree is not None and not words.used(*degree.span()):
        # "a little less spacing", "slightly darker": these go a whole step ('less' is the compact preset) and the
        # degree was dropped, with exit 0
        raise Ask(Clarification(reason="unsupported", understood=[f"{said} ('{named.group(0)}')"],
                                message=f"'{degree.group(1)}': '{said}' goes one whole step at a time, so I changed "
                                        f"nothing. Say it without '{degree.group(1)}' (once more for a further step), "
                                        "or name the value ('compact spacing', 'a #f4efe6 background')."))
    words.mark(found.start(), found.end())
    words.take(re.compile(r"\b(?:font|fonts|typeface|colou?r|size|sized|weight|(?:in )?px|to|an?)\b"), start, end)
    if kind == "size":
        return _size(said)
    if kind == "height":  # taller is bigger for the page tools' lengths
        said = re.sub(r" (?:tall|high)$", "", said)
        return _size(re.sub(r"\b(?:taller|higher)\b", "bigger", re.sub(r"\b(?:shorter|lower)\b", "smaller", said)))
    if kind == "colour":
        return said if said.startswith("#") else _COLOURS_CSS_LACKS.get(said) or said.replace("grey", "gray")
    if kind == "relative":
        return "darker" if said in ("darker", "deeper") else "lighter"
    if kind == "font":
        family = said.replace("sans serif", "sans").replace("sans-serif", "sans").replace("monospace", "mono")
        return family if family in FONT_FAMILIES else typed(ctx, found.start(), found.end())
    if kind == "spacing":
        return {"compact": "compact", "normal": "normal", "default": "normal", "generous": "generous"}.get(
            said, "less" if said in ("less", "tighter", "denser", "compact", "cramped") else "more")
    if kind == "weight":
        said = "black" if "black" in said else said
        return {"bold": "bold", "heavy": "bold", "black": "900", "regular": "normal", "normal weight": "normal",
                "thin": "thin"}.get(said, "lighter" if said in ("thinner", "lighter weight") else "bolder")
    return {"square": "0px", "sharper": "smaller", "squarer": "smaller", "less rounded": "smaller"}.get(said, "bigger")


def _size(said: str) -> str:
    much = re.match(r"(much|a lot|way|far|lots) ", said)
    little = re.match(r"(a bit|slightly|a little|a touch|somewhat) ", said)
    bigger = bool(re.search(r"bigger|larger|big|large|huge|twice|double", said))
    if number := re.match(r"(\d+(?:\.\d+)?) ?(px|pt|%)(?: (bigger|larger|smaller))?$", said):
        amount, unit, way = number.groups()
        if unit == "pt":  # a point is 4/3 of a CSS pixel ("8pt" had been set as 8px)
            amount, unit = f"{float(amount) * 4 / 3:.4g}", "px"
        # "10px bigger" is 10px more than now (it had set the headline to 10px, shrinking it)
        sign = ("+" if way != "smaller" else "-") if way else ""
        return f"{sign}{amount}{unit}"
    if re.match(r"twice|double", said):
        return "2x"
    if said.startswith("half"):
        return "0.5x"
    if much or said in ("huge", "huger"):
        return "much bigger" if bigger else "much smaller"
    if little:
        return "110%" if bigger else "90%"
    return "bigger" if bigger else "smaller"
