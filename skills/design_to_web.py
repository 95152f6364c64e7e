"""Web skills: ``design_to_web`` (brief to a rendered multi-section page) and ``web_revise`` (one layout change).

``design_to_web`` runs as a LangGraph subgraph of five graph nodes, each acting
only through the bridge (``ctx.call``):

1. ``style``: read the brief (:mod:`content.brief`: subject, focus, design
   tokens from its adjectives, copy from templates), derive a palette and a type
   pairing, and make two style ``reference`` nodes (role "style"), referencing
   any given reference nodes;
2. ``images``: generate 3-4 gallery images that REFERENCE those style nodes, in
   the page's colours (greys when the brief asks for black-and-white) and lighting;
3. ``layouts``: make ``n_layouts`` layout drafts (``plan`` nodes "layout A", ...)
   and select the one whose grid fits the images (the others are rejected);
4. ``page``: write the images and the HTML into a site folder of the workspace
   and record the page as a ``code`` node (GENERATED_FROM the chosen layout,
   REFERENCES the images) whose inputs hold everything needed to rebuild it;
5. ``preview``: screenshot the page at 1280x800 (an ``image`` node GENERATED_FROM
   the code node).

``web_revise`` reads a code node made by ``design_to_web``, turns a change in
words ("make the hero full-bleed", "remove the about section") into page
operations (:mod:`tools.page`: ``page_set_layout``, ``page_add_section``,
``page_remove_section``), each a new version of the page (VERSION_OF) with its
own change record and a new preview; the gallery images are reused as they are.
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, StateGraph
from pydantic import BaseModel, Field, field_validator

from content.web_render import (
    Design,
    HeroMode,
    LayoutSpec,
    PageImage,
    Theme,
    derive_design,
    digest,
    image_palette,
    render_html,
    slug,
)
from skills.base import (
    Skill,
    SkillContext,
    SkillState,
    SkillStepRejected,
    skill_context,
)
from store.errors import NodeNotFound
from tools.changes import NothingToChange

VIEWPORT = {"width": 1280, "height": 800}
"""The viewport every page preview is rendered at."""

_COLUMN_CHOICES = (3, 2, 4, 1)
_LETTERS = "ABCD"


class LayoutChangeRejected(SkillStepRejected):
    """A requested page change could not be read as a layout change, or would change nothing."""


class LayoutUnchanged(LayoutChangeRejected, NothingToChange):
    """The page already has the layout asked for: nothing to change."""


class NotAWebPage(SkillStepRejected):
    """The node given to ``web_revise`` is not a page made by ``design_to_web``."""


# ---------------------------------------------------------------- schemas


class DesignToWebInput(BaseModel):
    """What to design: a brief, the page's sections, how many layout drafts, the hero mode, references."""

    brief: str = Field(min_length=1, max_length=2000, description="What the site is for and how it should feel.")
    sections: list[str] = Field(default_factory=lambda: ["hero", "gallery", "about", "contact"], min_length=1,
                                max_length=12, description="Section names in page order (hero, gallery, about, "
                                "contact have their own layouts; any other name becomes a text section).")
    n_layouts: int = Field(default=2, ge=1, le=4, description="How many layout drafts to compare.")
    hero: HeroMode = "contained"
    reference_ids: list[str] = Field(default_factory=list, description="Canvas nodes to take the style from.")

    @field_validator("sections")
    @classmethod
    def _distinct_names(cls, sections: list[str]) -> list[str]:
        names = [slug(s, 30) for s in sections]
        if len(set(names)) != len(names):
            raise ValueError(f"section names must be distinct, got {sections}")
        return names


class DesignToWebOutput(BaseModel):
    """The canvas nodes the design made, and the page's workspace path."""

    style_ids: list[str]
    image_ids: list[str]
    layout_ids: list[str]
    selected_layout_id: str
    code_id: str
    preview_id: str
    html_path: str = Field(description="The page, relative to the workspace.")


class WebReviseInput(BaseModel):
    """Which page to change, and the change in words."""

    code_id: str = Field(description="A code node made by design_to_web (or by an earlier web_revise).")
    change: str = Field(min_length=1, max_length=500,
                        description="e.g. 'make the hero full-bleed', 'use 2 columns', 'dark theme', "
                        "'remove the about section', 'add a pricing section', 'move gallery first'")


class WebReviseOutput(BaseModel):
    """The new version of the page and its preview."""

    code_id: str
    previous_code_id: str
    preview_id: str
    html_path: str
    changes: list[str] = Field(description="What the change did to the layout spec, in words.")


# ---------------------------------------------------------------- pure parts


def layout_drafts(inp: DesignToWebInput, theme: Theme) -> list[LayoutSpec]:
    """``n_layouts`` distinct drafts: the grid columns rotate, and every other draft reorders the middle sections."""
    start = digest(inp.brief)[5] % 3
    requested = list(inp.sections)
    middle_rotated = requested[:1] + requested[2:-1] + requested[1:2] + requested[-1:] if len(requested) >= 4 else requested
    return [
        LayoutSpec(sections=requested if i % 2 == 0 else middle_rotated,
                   columns=_COLUMN_CHOICES[(start + i) % len(_COLUMN_CHOICES)], hero=inp.hero, theme=theme)
        for i in range(inp.n_layouts)
    ]


def choose_layout(drafts: list[LayoutSpec], requested: list[str], n_images: int) -> tuple[int, str]:
    """The draft to build (index) and why: a grid the images fill evenly first, then the requested order."""

    def score(spec: LayoutSpec) -> int:
        even = spec.columns > 1 and n_images % spec.columns == 0
        return 2 * even + (spec.sections == requested)

    best = max(range(len(drafts)), key=lambda i: (score(drafts[i]), -i))
    spec = drafts[best]
    reasons = [f"{spec.columns} columns" + (f" fill {n_images} images evenly" if score(spec) >= 2 else "")]
    reasons.append("keeps the requested section order" if spec.sections == requested else "reorders the sections")
    return best, "; ".join(reasons)


_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_NUMBER = r"(\d+|one|two|three|four|five|six)"
_UNDERSTOOD = ("'make the hero full-bleed' or 'contained hero', 'use 3 columns', 'dark theme' or 'light theme', "
               "'remove the about section', 'add a pricing section', 'move the gallery first'")


def parse_change(change: str, spec: LayoutSpec) -> tuple[LayoutSpec, list[str]]:
    """Apply a change in words to a layout spec; :class:`LayoutChangeRejected` if it cannot or changes nothing."""
    text = change.lower()
    update: dict[str, Any] = {}
    if re.search(r"full[\s-]*(bleed|width)|edge[\s-]*to[\s-]*edge", text):
        update["hero"] = "full-bleed"
    elif re.search(r"\b(contained|boxed|inset)\b", text):
        update["hero"] = "contained"
    found = re.search(rf"\b{_NUMBER}[\s-]*col(?:umn)?s?\b", text) or re.search(
        rf"\bcol(?:umn)?s?\s*(?:to|of|=|:)?\s*{_NUMBER}\b", text)
    if found:
        columns = int(_NUMBERS.get(found.group(1), found.group(1)))
        if not 1 <= columns <= 6:
            raise LayoutChangeRejected(f"the gallery can have 1 to 6 columns, not {columns}")
        update["columns"] = columns
    themes = [(m.start(), "dark") for m in re.finditer(r"\bdark(?:er)?\b", text)]
    themes += [(m.start(), "light") for m in re.finditer(r"\b(?:light(?:er)?|bright)\b", text)]
    if themes:
        update["theme"] = max(themes)[1]  # "from light to dark": the last one named wins
    sections = _section_changes(text, list(spec.sections))
    if sections != spec.sections:
        update["sections"] = sections
    if not update:
        raise LayoutChangeRejected(f"cannot read {change!r} as a page layout change; try {_UNDERSTOOD}")
    revised = LayoutSpec.model_validate({**spec.model_dump(), **update})
    changes = [f"{k}: {getattr(spec, k)} -> {getattr(revised, k)}" for k in update if getattr(spec, k) != getattr(revised, k)]
    if not changes:
        raise LayoutUnchanged(f"the page already has {', '.join(f'{k} {v}' for k, v in update.items())}; "
                                   "nothing to change")
    return revised, changes


def _section_changes(text: str, sections: list[str]) -> list[str]:
    for match in re.finditer(r"\b(?:remove|drop|hide|delete|without)\s+(?:the\s+)?([a-z0-9-]+)(\s+section)?", text):
        name, said_section = match.group(1), bool(match.group(2))
        if name in sections:
            if len(sections) == 1:
                raise LayoutChangeRejected(f"{name} is the page's only section; a page needs one")
            sections.remove(name)
        elif said_section:
            raise LayoutChangeRejected(f"the page has no {name} section; its sections are {', '.join(sections)}")
    for match in re.finditer(r"\badd\s+(?:an?\s+|the\s+)?([a-z0-9-]+)\s+section", text):
        name = match.group(1)
        if name in sections:
            raise LayoutUnchanged(f"the page already has a {name} section; nothing to change")
        sections.insert(len(sections) - 1 if sections[-1] == "contact" else len(sections), name)
    place = r"(first|to the top|at the top|last|to the bottom|at the bottom|to the end|at the end)"
    for match in re.finditer(rf"\b(?:move|put)\s+(?:the\s+)?([a-z0-9-]+)(?:\s+section)?\s+{place}", text):
        name, where = match.group(1), match.group(2)
        if name not in sections:
            raise LayoutChangeRejected(f"the page has no {name} section; its sections are {', '.join(sections)}")
        sections.remove(name)
        sections.insert(0 if where in ("first", "to the top", "at the top") else len(sections), name)
    return sections


# ---------------------------------------------------------------- design_to_web graph nodes


def _step(state: SkillState, config: RunnableConfig) -> tuple[SkillContext, DesignToWebInput, dict[str, Any]]:
    return skill_context(config), DesignToWebInput.model_validate(state["input"]), dict(state.get("scratch") or {})


def _style(state: SkillState, config: RunnableConfig) -> dict[str, Any]:
    ctx, inp, scratch = _step(state, config)
    try:
        references = ctx.canvas.get_nodes(inp.reference_ids) if inp.reference_ids else []
    except NodeNotFound as missing:
        raise SkillStepRejected(f"design_to_web: reference {missing} is not on the canvas") from missing
    hints = [c for node in references for c in _colours(node.inputs)]
    design = derive_design(inp.brief, hints)
    palette = ctx.call("create_node", kind="reference", title=f"style: {design.title} palette", status="completed",
                       inputs={"role": "style", "colours": design.palette.colours(),
                               "palette": design.palette.model_dump(), "brief": inp.brief})["created"]
    fonts = ctx.call("create_node", kind="reference", title=f"style: {design.title} type pairing",
                     status="completed", inputs={"role": "style", "fonts": design.fonts.model_dump(),
                                                 "brief": inp.brief})["created"]
    for style_id in (palette, fonts):
        for ref in inp.reference_ids:
            ctx.call("link_nodes", type="REFERENCES", source=style_id, target=ref, properties={"role": "style"})
    scratch.update(design=design.model_dump(), style_ids=[palette, fonts])
    return {"scratch": scratch}


def _images(state: SkillState, config: RunnableConfig) -> dict[str, Any]:
    ctx, inp, scratch = _step(state, config)
    design = Design.model_validate(scratch["design"])
    count = 3 + digest(inp.brief)[4] % 2
    look = design.look
    style = ("Black-and-white photograph. " if look.imagery == "greyscale" else "") + ", ".join(look.words)
    images = []
    for number, caption in enumerate(design.words.captions[:count], start=1):
        made = ctx.call("generate_image", prompt=f"{caption}. {style}".strip(), title=f"gallery {number}: {caption}",
                        width=800, height=600, seed=number, palette=image_palette(design, look.theme),
                        lighting=look.lighting, references=[*scratch["style_ids"], *inp.reference_ids])
        images.append(PageImage(node_id=made["node_id"], path=f"images/gallery-{number}.png", sha256=made["sha256"],
                                alt=caption).model_dump())
    scratch["images"] = images
    return {"scratch": scratch}


def _layouts(state: SkillState, config: RunnableConfig) -> dict[str, Any]:
    ctx, inp, scratch = _step(state, config)
    drafts = layout_drafts(inp, Design.model_validate(scratch["design"]).look.theme)
    chosen, reason = choose_layout(drafts, list(inp.sections), len(scratch["images"]))
    layout_ids = []
    for letter, spec in zip(_LETTERS, drafts, strict=False):
        layout_id = ctx.call("create_node", kind="plan", title=f"layout {letter}", status="completed",
                             inputs={"layout_spec": spec.model_dump(), "brief": inp.brief})["created"]
        for style_id in scratch["style_ids"]:
            ctx.call("link_nodes", type="REFERENCES", source=layout_id, target=style_id)
        layout_ids.append(layout_id)
    for index, layout_id in enumerate(layout_ids):
        if index == chosen:
            ctx.call("set_status", node_id=layout_id, status="selected", reason=reason)
        else:
            ctx.call("set_status", node_id=layout_id, status="rejected", reason=f"layout {_LETTERS[chosen]} won: {reason}")
    scratch.update(layout_ids=layout_ids, selected=chosen, spec=drafts[chosen].model_dump())
    return {"scratch": scratch}


def _page(state: SkillState, config: RunnableConfig) -> dict[str, Any]:
    ctx, inp, scratch = _step(state, config)
    site_dir = f"site/{slug(inp.brief)}-{hashlib.sha256(inp.model_dump_json().encode()).hexdigest()[:8]}"
    images = [PageImage.model_validate(i) for i in scratch["images"]]
    _ensure_images(ctx, site_dir, images)
    layout_id = scratch["layout_ids"][scratch["selected"]]
    page = _write_page(ctx, site_dir, "index.html", Design.model_validate(scratch["design"]),
                       LayoutSpec.model_validate(scratch["spec"]), images)
    code_id = ctx.call("create_node", kind="code", title=f"{scratch['design']['title']} page", status="completed",
                       inputs={**page.inputs, "layout_id": layout_id})["created"]
    _link_page(ctx, code_id, layout_id, images, page.file_node_id)
    scratch.update(code_id=code_id, html_path=page.html_path)
    return {"scratch": scratch}


def _preview(state: SkillState, config: RunnableConfig) -> dict[str, Any]:
    ctx, _, scratch = _step(state, config)
    preview_id = _render_preview(ctx, scratch["code_id"], scratch["html_path"])
    output = DesignToWebOutput(style_ids=scratch["style_ids"], image_ids=[i["node_id"] for i in scratch["images"]],
                               layout_ids=scratch["layout_ids"],
                               selected_layout_id=scratch["layout_ids"][scratch["selected"]],
                               code_id=scratch["code_id"], preview_id=preview_id, html_path=scratch["html_path"])
    return {"output": output.model_dump()}


# ---------------------------------------------------------------- web_revise graph node


def _revise_page(state: SkillState, config: RunnableConfig) -> dict[str, Any]:
    ctx = skill_context(config)
    inp = WebReviseInput.model_validate(state["input"])
    try:
        old = ctx.canvas.get_node(inp.code_id)
    except NodeNotFound as missing:
        raise NotAWebPage(f"web_revise: no canvas node {inp.code_id}") from missing
    if old.kind != "code" or any(k not in old.inputs for k in ("layout_spec", "design", "images", "site_dir")):
        raise NotAWebPage(f"web_revise: node {old.id} ({old.kind} {old.title!r}) is not a page made by design_to_web; "
                          f"pass the code_id design_to_web returned")
    spec = LayoutSpec.model_validate(old.inputs["layout_spec"])
    revised, changes = parse_change(inp.change, spec)
    # Each part of the change is one page operation, so each is its own version with its own change record
    # (and "undo the full-bleed change" takes back only that part).
    made: list[dict[str, Any]] = []
    page = old.id
    for name in [s for s in spec.sections if s not in revised.sections]:
        made.append(ctx.call("page_remove_section", page_id=page, section=name))
        page = made[-1]["page_id"]
    for index, name in enumerate(revised.sections):
        if name not in spec.sections:
            place = {"after": revised.sections[index - 1]} if index else {"before": revised.sections[1]}
            made.append(ctx.call("page_add_section", page_id=page, name=name, **place))
            page = made[-1]["page_id"]
    layout = {k: getattr(revised, k) for k in ("hero", "columns", "theme") if getattr(revised, k) != getattr(spec, k)}
    now = ctx.canvas.get_node(page).inputs["layout_spec"]["sections"] if made else spec.sections
    if revised.sections != now:
        layout["sections"] = revised.sections
    if layout:
        made.append(ctx.call("page_set_layout", page_id=page, **layout))
    last = made[-1]
    output = WebReviseOutput(code_id=last["page_id"], previous_code_id=old.id, preview_id=last["preview_id"],
                             html_path=last["html_path"], changes=changes)
    return {"output": output.model_dump()}


# ---------------------------------------------------------------- steps both skills take


class _WrittenPage(BaseModel):
    html_path: str
    file_node_id: str
    inputs: dict[str, Any]


def _write_page(ctx: SkillContext, site_dir: str, name: str, design: Design, spec: LayoutSpec,
                images: list[PageImage]) -> _WrittenPage:
    """Render and write the HTML; return the inputs a code node needs to rebuild the page without generating."""
    html = render_html(design, spec, images)
    html_path = f"{site_dir}/{name}"
    written = ctx.call("write_file", path=html_path, content=html, mime="text/html")
    inputs = {"language": "html", "html_path": html_path, "site_dir": site_dir, "layout_spec": spec.model_dump(),
              "design": design.model_dump(), "images": [i.model_dump() for i in images], "source": html,
              "html_uri": written["uri"]}
    return _WrittenPage(html_path=html_path, file_node_id=written["node_id"], inputs=inputs)


def _link_page(ctx: SkillContext, code_id: str, layout_id: str | None, images: list[PageImage], file_id: str) -> None:
    if layout_id:
        ctx.call("link_nodes", type="GENERATED_FROM", source=code_id, target=layout_id)
    for image in images:
        ctx.call("link_nodes", type="REFERENCES", source=code_id, target=image.node_id, properties={"role": "gallery"})
    ctx.call("link_nodes", type="GENERATED_FROM", source=file_id, target=code_id)


def _render_preview(ctx: SkillContext, code_id: str, html_path: str) -> str:
    # render_page takes one source; the workspace file keeps the images' relative paths working,
    # so the link to the code node is made here.
    shot = ctx.call("render_page", path=html_path, **VIEWPORT)
    ctx.call("link_nodes", type="GENERATED_FROM", source=shot["node_id"], target=code_id)
    return shot["node_id"]


def _ensure_images(ctx: SkillContext, site_dir: str, images: list[PageImage]) -> None:
    """Copy each gallery image into the site folder unless the same bytes are already there."""
    workspace = Path(ctx.services["workspace"])
    for number, image in enumerate(images, start=1):
        target = workspace / site_dir / image.path
        if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == image.sha256:
            continue
        # A copy is made or not depending on the workspace, so it gets its own action ids:
        # the skill's main sequence stays the same and a resumed run still replays it.
        copier = ctx.branch(f"copy-image-{number}")
        data = ctx.artifacts.read_bytes(f"artifact://sha256/{image.sha256}")
        copied = copier.call("write_file", path=f"{site_dir}/{image.path}", content=base64.b64encode(data).decode(),
                             encoding="base64", mime="image/png")
        copier.call("link_nodes", type="GENERATED_FROM", source=copied["node_id"], target=image.node_id,
                    properties={"as": "copy"})


def _colours(inputs: dict[str, Any]) -> list[str]:
    raw = inputs.get("colours") or inputs.get("colors") or inputs.get("palette") or []
    values = raw.values() if isinstance(raw, dict) else raw if isinstance(raw, list) else [raw]
    return [c for c in values if isinstance(c, str) and re.fullmatch(r"#[0-9a-fA-F]{6}", c)]


# ---------------------------------------------------------------- the skills

def _graph(*steps: tuple[str, Any]) -> Any:
    graph = StateGraph(SkillState)
    graph.add_sequence(list(steps))
    graph.add_edge(START, steps[0][0])
    return graph.compile()


DESIGN_TO_WEB = Skill(
    name="design_to_web",
    description="Design a multi-section web page from a brief: style references, images, layout drafts, the "
    "HTML/CSS as a code node, and a screenshot preview.",
    input_model=DesignToWebInput,
    output_model=DesignToWebOutput,
    needs=["create_node", "link_nodes", "set_status", "generate_image", "write_file", "render_page"],
    graph=_graph(("style", _style), ("images", _images), ("layouts", _layouts), ("page", _page),
                 ("preview", _preview)),
)
"""Skill: brief to a rendered web page."""

WEB_REVISE = Skill(
    name="web_revise",
    description="Change a design_to_web page in words (hero full-bleed, N columns, dark theme, add/move/remove a "
    "section): a new version of the page and its preview per part of the change.",
    input_model=WebReviseInput,
    output_model=WebReviseOutput,
    needs=["page_set_layout", "page_add_section", "page_remove_section"],
    graph=_graph(("revise", _revise_page)),
)
"""Skill: one layout change to a designed page."""

__all__ = ["DESIGN_TO_WEB", "WEB_REVISE", "LayoutChangeRejected", "NotAWebPage", "choose_layout", "layout_drafts",
           "parse_change"]
