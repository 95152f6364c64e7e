"""The web page: layout changes ``web_revise`` makes (hero full-bleed or contained, gallery columns, dark or
light theme, sections added, removed or moved), and element edits (headline, button, fonts, spacing,
palette, copy, images) that are recognised and, until their tools are in the manifest, answered with an
honest clarification.  Routed by what the project holds: only a project with a page has one to revise."""

from __future__ import annotations

import re

from nodes.understanding.intent import Clause, Target
from nodes.understanding.readers.base import ReadContext, Reading, not_found, unsupported

_PAGE_WORDS = re.compile(r"\b(?:hero|full[- ]?bleed|full[- ]width|edge[- ]to[- ]edge|columns?|theme|sections?|headline|"
                         r"buttons?|fonts?|typeface|spacing|padding|palette|tagline|header|footer|nav(?:igation)?|"
                         r"gallery|(?:the|this) (?:page|site|website|web page))\b")
_LAYOUT: tuple[re.Pattern[str], ...] = (
    re.compile(r"\bfull[\s-]*(?:bleed|width)\b|\bedge[\s-]*to[\s-]*edge\b|\b(?:contained|boxed|inset)\b"),
    re.compile(r"\b(?:\d+)[\s-]*col(?:umn)?s?\b|\bcol(?:umn)?s?\s*(?:to|of|=|:)?\s*\d+\b"),
    re.compile(r"\b(?:dark(?:er)?|light(?:er)?|bright) (?:theme|mode)\b|\btheme (?:to )?(?:dark|light)\b"),
    re.compile(r"\b(?:remove|drop|hide|delete|without)\s+(?:the\s+)?[a-z0-9-]+(?:\s+section)?\b"),
    re.compile(r"\badd\s+(?:an?\s+|the\s+)?[a-z0-9-]+\s+section\b"),
    re.compile(r"\b(?:move|put)\s+(?:the\s+)?[a-z0-9-]+(?:\s+section)?\s+(?:first|to the top|at the top|last|"
               r"to the bottom|at the bottom|to the end|at the end)\b"),
)
_NOUNS = re.compile(r"\b(?:hero|gallery|page|site|website|layout|grid|images?|photos?|section)\b")
_ELEMENTS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"\bheadline\b|\btitle\b|\bheading\b|\btagline\b|\btext\b|\bcopy\b|\bsay\b"), "edit_copy",
     "an edit of the page's copy"),
    (re.compile(r"\bbuttons?\b|\bfonts?\b|\btypeface\b|\bspacing\b|\bpadding\b|\bpalette\b|\bcolou?rs?\b|\bbigger\b|"
                r"\bsmaller\b|\blarger\b"), "design_tokens", "a change of the page's design tokens"),
    (re.compile(r"\breplace\b.*\b(?:image|photo|picture)\b|\b(?:image|photo|picture)\b"), "replace_image",
     "replacing an image of the page"),
)


class PageReader:
    """Requests about the web page: layout changes go to ``web_revise``; element edits are named, not faked."""

    name = "page"

    def read(self, ctx: ReadContext) -> Reading | None:
        words, text = ctx.words, ctx.words.text
        if not _PAGE_WORDS.search(text):
            return None
        if not ctx.facts.has_page:
            if ctx.facts.has_deck and re.search(r"\btheme\b", text):
                return None  # the deck's theme: the slides reader's
            return not_found(ctx, "a web page", f"There is no web page {ctx.facts.where} yet; give me a brief "
                             "first ('a website for a bakery: warm, rustic').")
        layout = [m for pattern in _LAYOUT for m in pattern.finditer(text)]
        element = next(((op, what) for pattern, op, what in _ELEMENTS if pattern.search(text)), None)
        if layout and element is None or layout and element and element[0] == "replace_image":
            for pattern in _LAYOUT:
                words.take(pattern)
            words.take(_NOUNS)
            words.take(re.compile(r"\b(?:theme|mode|columns?|sections?|use|switch|go|back|instead|again)\b"))
            page = ctx.facts.pages[0]
            return Reading(clauses=[Clause(text=ctx.request, domain=self.name, operation="revise_page",
                                           targets=[Target(id=page.id, kind="code", title=page.title,
                                                           referred_as="the page")],
                                           args={"change": ctx.request},
                                           understood=[f"page layout: {m.group(0)}" for m in layout])])
        if element is not None:
            return unsupported(ctx, element[0], element[1], domain=self.name)
        return unsupported(ctx, "page_edit", "an edit of the web page", domain=self.name)
