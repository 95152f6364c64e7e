"""A web page as a document: design, layout, images, and the page's own text and token overrides.

A page's code node holds everything needed to rebuild it (``inputs``: ``design``,
``layout_spec``, ``images``, ``texts``, ``style_tokens``).  Each edit here is pure:
it takes a document and returns the edited document with a
:class:`~tools.changes.Change` that says, field by field, what changed, so the
same record can be searched ("the full-bleed change") and applied backwards
(:func:`undo_edits`).  The page tools (:mod:`tools.page`) put the results on the
canvas.

Field names of the edits: ``text:ELEMENT`` (:func:`content.web_render.page_texts`),
``token:NAME`` (:mod:`content.page_style`), ``layout:hero|columns|theme``,
``sections``, ``image:N`` (1-based), ``palette``.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field

from content.page_style import (
    PRESETS,
    TOKENS,
    UnknownToken,
    colour,
    font_stack,
    hue_of,
    parse_value,
    spacing_tokens,
)
from content.web_render import (
    Design,
    LayoutSpec,
    PageImage,
    Palette,
    base_tokens,
    make_palette,
    page_texts,
    render_html,
    slug,
)
from tools.base import ToolError
from tools.changes import Change, Edit, NothingToChange

SectionPlace = Literal["first", "last"]
PALETTE_STEPS = {"darker": "darker", "deeper": "darker", "dark": "darker", "lighter": "lighter", "paler": "lighter",
                 "brighter": "lighter", "light": "lighter"}
"""Palette values that move every colour of the page's palette instead of naming a hue."""


class PageEditRefused(ToolError):
    """A page edit that cannot be made as asked (nothing would change, a page needs a section, ...)."""


class PageUnchanged(PageEditRefused, NothingToChange):
    """The page already is as the edit asks: nothing to change."""


class UnknownElement(PageEditRefused):
    """A text element the page does not have; the message lists the ones it has."""


class UnknownSection(PageEditRefused):
    """A section the page does not have; the message lists its sections."""


class UnknownImage(PageEditRefused):
    """A picture number the page does not have."""


class ChangeOverridden(PageEditRefused):
    """A change cannot be undone on its own: a later change set the same field again."""


class PageDocument(BaseModel):
    """Everything a page is made of; the same document always renders the same HTML bytes."""

    design: Design
    layout: LayoutSpec
    images: list[PageImage]
    texts: dict[str, str] = Field(default_factory=dict, description="Element -> words, where they differ from "
                                  "the design's copy.")
    tokens: dict[str, str] = Field(default_factory=dict, description="Token -> CSS value, where it differs from "
                                   "the design's.")
    hero_image: PageImage | None = Field(default=None, description="The hero's own backdrop, once one of the two "
                                         "places that showed picture 1 was given another picture; until then the "
                                         "hero shows gallery picture 1.")

    @classmethod
    def from_inputs(cls, inputs: dict[str, Any]) -> PageDocument:
        """The document a page's code node holds."""
        hero = inputs.get("hero_image")
        return cls(design=Design.model_validate(inputs["design"]), layout=LayoutSpec.model_validate(
            inputs["layout_spec"]), images=[PageImage.model_validate(i) for i in inputs["images"]],
            texts=dict(inputs.get("texts") or {}), tokens=dict(inputs.get("style_tokens") or {}),
            hero_image=PageImage.model_validate(hero) if hero else None)

    def inputs(self) -> dict[str, Any]:
        """The code node inputs that rebuild this document (``hero_image`` only once the hero has its own)."""
        return {"design": self.design.model_dump(mode="json"), "layout_spec": self.layout.model_dump(mode="json"),
                "images": [i.model_dump(mode="json") for i in self.images], "texts": dict(self.texts),
                "style_tokens": dict(self.tokens),
                **({"hero_image": self.hero_image.model_dump(mode="json")} if self.hero_image else {})}

    def html(self) -> str:
        """The page's HTML."""
        return render_html(self.design, self.layout, self.images, texts=self.texts, tokens=self.tokens,
                           hero_image=self.hero_image)

    @property
    def hero_backdrop(self) -> PageImage | None:
        """The picture the hero shows: its own, or gallery picture 1."""
        return self.hero_image or (self.images[0] if self.images else None)

    def pictures(self) -> list[PageImage]:
        """Every picture the page shows, the gallery's in order and then the hero's own (once it has one)."""
        return [*self.images, *([self.hero_image] if self.hero_image else [])]

    def text_elements(self) -> dict[str, str]:
        """The words of every text element the page shows, by element name."""
        return page_texts(self.design, self.layout, self.images, self.texts)

    def style(self) -> dict[str, str]:
        """Every token's value on the page."""
        return {**base_tokens(self.design, self.layout), **self.tokens}


# ---------------------------------------------------------------- naming things on a page


_ELEMENT_ALIASES = {
    "headline": "headline", "title": "headline", "h1": "headline", "heading": "headline", "hero heading": "headline",
    "hero headline": "headline", "hero title": "headline", "main heading": "headline",
    "tagline": "tagline", "subtitle": "tagline", "subheading": "tagline", "strapline": "tagline",
    "hero text": "tagline", "hero tagline": "tagline", "hero subtitle": "tagline",
    "button": "button", "cta": "button", "call to action": "button", "hero button": "button",
    "button text": "button",
}


def resolve_element(doc: PageDocument, name: str) -> str:
    """The element a name means ('the headline', 'about', 'about heading', 'caption 2'); :class:`UnknownElement`."""
    elements = doc.text_elements()
    text = " ".join(re.findall(r"[a-z0-9]+", name.lower().replace("_", " ")))
    text = re.sub(r"^the |\b(section|text of the|words of the)\b ?", "", text).strip()
    candidates = [name.strip(), text, _ELEMENT_ALIASES.get(text, "")]
    caption = re.fullmatch(r"(?:gallery )?(?:caption|image caption|picture caption) (\d+)", text)
    if caption:
        candidates.append(f"gallery.caption-{caption.group(1)}")
    parts = text.rsplit(" ", 1)
    if len(parts) == 2 and parts[1] in ("heading", "title", "text", "paragraph", "copy", "body"):
        part = "heading" if parts[1] in ("heading", "title") else "text"
        candidates.append(f"{slug(parts[0], 30)}.{part}")
    candidates.append(f"{slug(text, 30)}.text")
    for candidate in candidates:
        if candidate in elements:
            return candidate
    raise UnknownElement(f"the page has no text element {name!r}; its elements are {', '.join(elements)}")


def resolve_section(doc: PageDocument, name: str) -> str:
    """The section a name means ('about', 'the About section', 'Pricing'); :class:`UnknownSection`."""
    wanted = slug(re.sub(r"\b(the|section)\b", " ", name.lower()), 30)
    if wanted in doc.layout.sections:
        return wanted
    raise UnknownSection(f"the page has no {name!r} section; its sections are {', '.join(doc.layout.sections)}")


def element_for_words(doc: PageDocument, words: str) -> str | None:
    """The element a phrase names, or None (what a planner can call: 'the headline' -> headline)."""
    try:
        return resolve_element(doc, words)
    except UnknownElement:
        return None


# ---------------------------------------------------------------- edits


def set_text(doc: PageDocument, element: str, text: str) -> tuple[PageDocument, Change]:
    """New words for one element."""
    name = resolve_element(doc, element)
    before = doc.text_elements()[name]
    if text == before:
        raise PageUnchanged(f"{name} already says {text!r}; nothing to change")
    edit = Edit(field=f"text:{name}", before=before, after=text)
    return apply_edits(doc, [edit]), Change(op="set_text", summary=f"{name} text: {_short(before)} -> {_short(text)}",
                                            edits=[edit])


def set_style(doc: PageDocument, token: str, value: str) -> tuple[PageDocument, Change]:
    """One design token (or the spacing / palette preset) set from what a person or a model said."""
    name = token.strip().lower().replace("_", "-").replace(" ", "-").replace("color", "colour")
    current = doc.style()
    if name == "spacing":
        preset, values = spacing_tokens(value, current)
        edits = [Edit(field=f"token:{k}", before=current[k], after=v) for k, v in values.items() if current[k] != v]
        summary = f"spacing -> {preset}"
    elif name in ("fonts", "font", "typeface", "typefaces"):
        after = font_stack(value)
        edits = [Edit(field=f"token:{k}", before=current[k], after=after) for k in ("heading-font", "body-font")]
        summary = f"fonts: {value}"
    elif name in ("palette", "colours", "colour-scheme") and value.strip().lower() in PALETTE_STEPS:
        # Every colour of the palette a step darker or lighter: the page keeps its hues, in a deeper or paler key.
        step = PALETTE_STEPS[value.strip().lower()]
        palette = {k: colour(step, v) for k, v in doc.design.palette.model_dump().items()}
        edits = [Edit(field="palette", before=doc.design.palette.model_dump(), after=palette)]
        summary = f"palette -> {step}"
    elif name in ("palette", "colours", "colour-scheme"):
        hue, saturation = hue_of(value)
        if saturation is None and not doc.design.look.saturation and doc.design.look.saturation is not None:
            saturation = 0.6  # a greyscale design asked for a colour: give the colour some strength
        palette = make_palette(doc.design.brief, doc.design.look, hue, saturation).model_dump()
        edits = [Edit(field="palette", before=doc.design.palette.model_dump(), after=palette)]
        summary = f"palette -> {value}"
    elif name in TOKENS:
        after = parse_value(name, value, current[name])
        edits = [Edit(field=f"token:{name}", before=current[name], after=after)]
        shown = f"{value} ({after})" if str(value).strip().lower() != after.lower() else after
        summary = f"{name}: {current[name]} -> {shown}"
    else:
        raise UnknownToken(f"the page has no style token {token!r}; tokens: {', '.join([*TOKENS, *PRESETS])}")
    edits = [e for e in edits if e.before != e.after]
    if not edits:
        now = current.get(name) if name in TOKENS else value
        further = "" if str(value).strip().lower() == str(now).strip().lower() else f", and {value!r} goes no further"
        raise PageUnchanged(f"{name} is already {now}{further}; nothing to change")
    return apply_edits(doc, edits), Change(op="set_style", summary=summary, edits=edits)


def set_layout(doc: PageDocument, *, hero: str | None = None, columns: int | None = None, theme: str | None = None,
               sections: list[str] | None = None) -> tuple[PageDocument, Change]:
    """The hero treatment, gallery columns, theme, or the sections' order (every section, reordered)."""
    edits: list[Edit] = []
    for field, value in (("hero", hero), ("columns", columns), ("theme", theme)):
        if value is not None and getattr(doc.layout, field) != value:
            edits.append(Edit(field=f"layout:{field}", before=getattr(doc.layout, field), after=value))
    if sections is not None:
        names = [resolve_section(doc, s) for s in sections]
        if sorted(names) != sorted(doc.layout.sections):
            raise PageEditRefused(f"to reorder, give every section once: {', '.join(doc.layout.sections)} "
                                  f"(got {', '.join(sections)}); add or remove sections with their own tools")
        if names != doc.layout.sections:
            edits.append(Edit(field="sections", before=list(doc.layout.sections), after=names))
    if not edits:
        raise PageUnchanged("the page already has that layout; nothing to change")
    summary = "; ".join(f"{e.field.removeprefix('layout:')}: {_short(e.before)} -> {_short(e.after)}" for e in edits)
    return apply_edits(doc, edits), Change(op="set_layout", summary=summary, edits=edits)


def add_section(doc: PageDocument, name: str, *, after: str | None = None, before: str | None = None,
                heading: str | None = None, text: str | None = None) -> tuple[PageDocument, Change]:
    """A new section (before contact unless placed), with its own heading and text when given."""
    section = slug(re.sub(r"\b(the|section)\b", " ", name.lower()), 30)
    if section == "page" or not section:
        raise PageEditRefused(f"{name!r} is not a section name; give one such as 'pricing' or 'testimonials'")
    sections = list(doc.layout.sections)
    if section in sections:
        raise PageEditRefused(f"the page already has a {section} section")
    if after is not None:
        index = sections.index(resolve_section(doc, after)) + 1
    elif before is not None:
        index = sections.index(resolve_section(doc, before))
    else:
        index = len(sections) - 1 if sections[-1] == "contact" else len(sections)
    placed = [*sections[:index], section, *sections[index:]]
    edits = [Edit(field="sections", before=sections, after=placed,
                  detail={"action": "add", "section": section, "index": index})]
    added = apply_edits(doc, edits)
    for part, words in (("heading", heading), ("text", text)):
        element = f"{section}.{part}" if section not in ("hero",) else None
        if words and element and element in added.text_elements() and added.text_elements()[element] != words:
            edit = Edit(field=f"text:{element}", before=added.text_elements()[element], after=words)
            added = apply_edits(added, [edit])
            edits.append(edit)
    return added, Change(op="add_section", summary=f"added the {section} section at place {index + 1}", edits=edits)


def remove_section(doc: PageDocument, name: str) -> tuple[PageDocument, Change]:
    """The page without one section (its words stay in the document, so undoing brings them back)."""
    section = resolve_section(doc, name)
    sections = list(doc.layout.sections)
    if len(sections) == 1:
        raise PageEditRefused(f"{section} is the page's only section; a page needs one")
    index = sections.index(section)
    edits = [Edit(field="sections", before=sections, after=[s for s in sections if s != section],
                  detail={"action": "remove", "section": section, "index": index})]
    return apply_edits(doc, edits), Change(op="remove_section", summary=f"removed the {section} section", edits=edits)


def move_section(doc: PageDocument, name: str, *, after: str | None = None, before: str | None = None,
                 to: SectionPlace | None = None) -> tuple[PageDocument, Change]:
    """One section moved first, last, or next to another."""
    section = resolve_section(doc, name)
    if sum(x is not None for x in (after, before, to)) != 1:
        raise PageEditRefused("say where to move it: exactly one of after, before or to ('first' / 'last')")
    rest = [s for s in doc.layout.sections if s != section]
    if to is not None:
        index = 0 if to == "first" else len(rest)
    else:
        anchor = resolve_section(doc, after or before or "")
        if anchor == section:
            raise PageEditRefused(f"cannot move {section} next to itself")
        index = rest.index(anchor) + (1 if after is not None else 0)
    placed = [*rest[:index], section, *rest[index:]]
    if placed == doc.layout.sections:
        raise PageUnchanged(f"the {section} section is already there; nothing to change")
    old = doc.layout.sections.index(section)
    edits = [Edit(field="sections", before=list(doc.layout.sections), after=placed,
                  detail={"action": "move", "section": section, "index": old, "to_index": index})]
    return apply_edits(doc, edits), Change(op="move_section", summary=f"moved the {section} section to place "
                                                                       f"{index + 1}", edits=edits)


HERO = "hero"
"""The picture name of the hero's backdrop (``replace_image(doc, HERO, ...)``); gallery pictures are numbered."""


def replace_image(doc: PageDocument, number: int | str, image: PageImage) -> tuple[PageDocument, Change]:
    """Gallery picture ``number`` (1-based), or the hero's backdrop (:data:`HERO`), replaced by another image.

    Until one of them is replaced the hero shows gallery picture 1.  Each replacement changes only the place it
    names: the hero gets a picture of its own, and a new gallery picture 1 leaves the hero showing the old one.
    """
    if number == HERO:
        before = doc.hero_backdrop
        if before is None:
            raise UnknownImage("the page has no pictures; the hero has no backdrop to replace")
        if before.sha256 == image.sha256:
            raise PageUnchanged("the hero already shows that image; nothing to change")
        edits = [Edit(field="image:hero", before=field_value(doc, "image:hero"), after=image.model_dump())]
        return apply_edits(doc, edits), Change(op="replace_image", summary=f"replaced the hero picture "
                                                                            f"({_short(before.alt)}) with "
                                                                            f"{image.node_id}", edits=edits)
    if not isinstance(number, int) or not 1 <= number <= len(doc.images):
        raise UnknownImage(f"the page has no picture {number}; it has {len(doc.images)} (1 to {len(doc.images)}, "
                           f"or '{HERO}' for the hero's)")
    before = doc.images[number - 1]
    if before.sha256 == image.sha256:
        raise PageUnchanged(f"picture {number} already shows that image; nothing to change")
    edits = [Edit(field=f"image:{number}", before=before.model_dump(), after=image.model_dump())]
    kept = ""
    if number == 1 and doc.hero_image is None and HERO in doc.layout.sections:
        edits.insert(0, Edit(field="image:hero", before=None, after=before.model_dump()))  # the hero keeps it
        kept = "; the hero keeps its picture"
    return apply_edits(doc, edits), Change(op="replace_image", summary=f"replaced picture {number} "
                                                                        f"({_short(before.alt)}) with "
                                                                        f"{image.node_id}{kept}", edits=edits)


# ---------------------------------------------------------------- applying and undoing


def field_value(doc: PageDocument, field: str) -> Any:
    """The current value of an edit's field on ``doc``."""
    kind, _, name = field.partition(":")
    if kind == "text":
        return doc.text_elements().get(name, doc.texts.get(name))
    if kind == "token":
        return doc.style()[name]
    if kind == "layout":
        return getattr(doc.layout, name)
    if kind == "sections":
        return list(doc.layout.sections)
    if kind == "image" and name == HERO:
        return doc.hero_image.model_dump() if doc.hero_image else None
    if kind == "image":
        index = int(name) - 1
        return doc.images[index].model_dump() if 0 <= index < len(doc.images) else None
    if kind == "palette":
        return doc.design.palette.model_dump()
    raise PageEditRefused(f"unknown page field {field!r}")


def apply_edits(doc: PageDocument, edits: list[Edit]) -> PageDocument:
    """``doc`` with each edit's ``after`` value set, in order (overrides equal to the design's are dropped)."""
    for edit in edits:
        doc = _apply(doc, edit)
    return doc


def _apply(doc: PageDocument, edit: Edit) -> PageDocument:
    texts, tokens = dict(doc.texts), dict(doc.tokens)
    layout, images, design, hero = doc.layout.model_copy(), list(doc.images), doc.design, doc.hero_image
    kind, _, name = edit.field.partition(":")
    if kind == "text":
        texts[name] = edit.after
    elif kind == "token":
        tokens[name] = edit.after
    elif kind == "layout":
        layout = LayoutSpec.model_validate({**layout.model_dump(), name: edit.after})
    elif kind == "sections":
        layout = layout.model_copy(update={"sections": list(edit.after)})
    elif kind == "image" and name == HERO:
        hero = PageImage.model_validate(edit.after) if edit.after else None
    elif kind == "image":
        images[int(name) - 1] = PageImage.model_validate(edit.after)
    elif kind == "palette":
        design = design.model_copy(update={"palette": Palette.model_validate(edit.after)})
    draft = PageDocument(design=design, layout=layout, images=images, texts={}, tokens={}, hero_image=hero)
    defaults, base = draft.text_elements(), draft.style()
    # Canonical: an override equal to the design's value is no override, so undoing gives back the same bytes.
    texts = {k: v for k, v in texts.items() if defaults.get(k) != v}
    tokens = {k: v for k, v in tokens.items() if base.get(k) != v}
    return draft.model_copy(update={"texts": texts, "tokens": tokens})


def undo_edits(doc: PageDocument, change: Change) -> list[Edit]:
    """The edits that take ``change`` back on ``doc`` (a later version), or :class:`ChangeOverridden`.

    A field a later change set again is not silently overwritten: undoing then needs a revert.  Sections come
    back where they were (a removed one at its old place, an added one removed, a moved one moved back),
    whatever else happened to the list since.
    """
    edits: list[Edit] = []
    working = doc
    for edit in reversed(change.edits):  # backwards, so a section's words go before the section does
        now = field_value(working, edit.field)
        action = edit.detail.get("action")
        if edit.field == "sections" and action:
            section, sections = edit.detail["section"], list(now)
            if action == "add":
                if section not in sections:
                    continue
                target = [s for s in sections if s != section]
            elif action == "remove":
                if section in sections:
                    continue
                index = min(int(edit.detail["index"]), len(sections))
                target = [*sections[:index], section, *sections[index:]]
            else:
                rest = [s for s in sections if s != section]
                index = min(int(edit.detail["index"]), len(rest))
                target = [*rest[:index], section, *rest[index:]]
            back = Edit(field="sections", before=sections, after=target,
                        detail={**edit.detail, "action": {"add": "remove", "remove": "add"}.get(action, action)})
        else:
            if now == edit.before:
                continue
            if now != edit.after:
                raise ChangeOverridden(f"{edit.field} was changed again after that change (now {_short(now)}); "
                                       "revert to the version before it instead")
            back = Edit(field=edit.field, before=now, after=edit.before, detail=edit.detail)
        working = apply_edits(working, [back])
        edits.append(back)
    if not edits:
        raise PageEditRefused(f"the page no longer shows that change ({change.summary}); nothing to undo")
    return edits


def diff(old: PageDocument, new: PageDocument) -> list[Edit]:
    """The edits that turn ``old`` into ``new`` (what a revert changed)."""
    edits = []
    fields = {f"text:{k}" for k in {*old.text_elements(), *new.text_elements()}} | {
        f"token:{k}" for k in TOKENS} | {"layout:hero", "layout:columns", "layout:theme", "sections", "palette"} | {
        f"image:{n}" for n in range(1, max(len(old.images), len(new.images)) + 1)} | {f"image:{HERO}"}
    for field in sorted(fields):
        before, after = field_value(old, field), field_value(new, field)
        if before != after:
            edits.append(Edit(field=field, before=before, after=after))
    return edits


def _short(value: Any, limit: int = 40) -> str:
    text = value.get("alt") or value.get("node_id") if isinstance(value, dict) and "alt" in value else str(value)
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = ["HERO", "ChangeOverridden", "PageDocument", "PageEditRefused", "UnknownElement", "UnknownImage", "UnknownSection",
           "add_section", "apply_edits", "diff", "element_for_words", "field_value", "move_section",
           "remove_section", "replace_image", "resolve_element", "resolve_section", "set_layout", "set_style",
           "set_text", "undo_edits"]
