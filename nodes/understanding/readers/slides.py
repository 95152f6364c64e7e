"""Slides: edits of the project's deck (add, delete, move or retitle a slide, its bullets, the theme, one
slide's illustration).  Routed by what the project holds: on a project with a deck a request about slides
edits that deck; a new deck is a build (``builds.py``).  The slide tools are being built alongside; until
they are in the manifest the operation is named in an honest clarification, never a rebuild."""

from __future__ import annotations

import re

from nodes.understanding.readers.base import ReadContext, Reading, not_found, unsupported

_SLIDE_WORDS = re.compile(r"\bslides?\b|\bthe (?:deck|presentation|lecture)\b|\bbullets?\b|\bspeaker notes\b")
_THEME = re.compile(r"\btheme\b")
_FORMS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"\badd\b.*\bslide\b|\bnew slide\b|\binsert\b.*\bslide\b"), "add_slide", "add a slide"),
    (re.compile(r"\b(?:delete|remove|drop|get rid of)\b.*\bslide\b"), "delete_slide", "delete a slide"),
    (re.compile(r"\bmove\b.*\bslide\b|\bswap\b.*\bslides?\b|\breorder\b"), "move_slide", "move a slide"),
    (re.compile(r"\b(?:retitle|rename)\b|\btitle\b|\bheading\b|\bcall\b.*\bslide\b"), "retitle_slide",
     "retitle a slide"),
    (re.compile(r"\bbullets?\b|\bpoints?\b"), "edit_bullets", "edit a slide's bullets"),
    (re.compile(r"\btheme\b|\bcolou?rs?\b|\bdark\b|\blight\b|\bfont\b"), "slide_theme", "change the deck's theme"),
    (re.compile(r"\billustration\b|\bimage\b|\bpicture\b|\bdiagram\b"), "slide_illustration",
     "regenerate a slide's illustration"),
)


class SlideReader:
    """Requests about slides: the project's deck is edited (when a tool exists), never rebuilt."""

    name = "slides"

    def read(self, ctx: ReadContext) -> Reading | None:
        text = ctx.words.text
        about_slides = bool(_SLIDE_WORDS.search(text)) or (bool(_THEME.search(text)) and ctx.facts.has_deck
                                                            and not ctx.facts.has_page)
        if not about_slides:
            return None
        if not ctx.facts.has_deck:
            return not_found(ctx, "a deck", f"There is no slide deck {ctx.facts.where} yet; ask for one "
                             "('a 5-slide deck about ...').")
        for pattern, operation, what in _FORMS:
            if pattern.search(text):
                return unsupported(ctx, operation, what, domain=self.name)
        return unsupported(ctx, "slide_edit", "an edit of the deck", domain=self.name)
