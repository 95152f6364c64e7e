"""The page tools: read a web page, and change it one operation at a time, each a new version of the page.

Every write tool takes ``page_id`` (the page's code node, or its preview; left
out, the canvas's only page), edits the page document, and returns one batch:
the new code version with its ``inputs.change`` record, the rewritten
``index.html``, and a new preview rendered by Chromium (or reused, when an undo
or a revert brings back HTML an earlier version had).  Nothing else on the
canvas changes: the gallery pictures, the style references and the layout drafts
stay as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from content.page_document import (
    HERO,
    PageDocument,
    PageEditRefused,
    PageUnchanged,
    add_section,
    apply_edits,
    diff,
    move_section,
    remove_section,
    replace_image,
    set_layout,
    set_style,
    set_text,
    undo_edits,
)
from content.page_style import PRESETS, TOKENS
from content.web_render import PageImage, image_palette
from store.base import CanvasReader
from store.models import CanvasNode, Direction, EdgeType
from store.mutations import CreateNode
from tools.base import Effect, ToolContext, ToolError, ToolResult, ToolSpec
from tools.native.tools import native_tool
from tools.changes import Change, RevertFields, UndoFields, require_canvas, version_before, version_history
from tools.page.canvas import commit_page, earlier_preview, find_page, made_from_page

_TOKEN_LIST = ", ".join([*TOKENS, *PRESETS])


class PageArgs(BaseModel):
    """Which page: its code node id (or its preview's); left out, the canvas's only page."""

    page_id: str | None = Field(default=None, description="The page's code node id (a page tool or design_to_web "
                                "returned it) or its preview image id; omit when the canvas has one page.")


class PageSetTextArgs(PageArgs):
    """Arguments of page_set_text."""

    element: str = Field(description="What to reword: headline, tagline, button, SECTION.heading, SECTION.text "
                         "(e.g. about.text), or gallery.caption-N. page_read lists them.")
    text: str = Field(min_length=1, max_length=4000, description="The new words (blank lines separate paragraphs).")


class PageSetStyleArgs(PageArgs):
    """Arguments of page_set_style."""

    token: str = Field(description=f"The design token: {_TOKEN_LIST}.")
    value: str = Field(min_length=1, max_length=200, description="Sizes: '72px', '+8px', '125%', 'bigger', "
                       "'smaller'. Colours: '#0a8f3c', 'green', 'darker'. Fonts: serif, sans, mono, rounded, "
                       "display, book, or a font name. spacing: compact, normal, generous, more, less. palette: a "
                       "colour or colour word.")


class PageSetLayoutArgs(PageArgs):
    """Arguments of page_set_layout."""

    hero: Literal["contained", "full-bleed"] | None = None
    columns: int | None = Field(default=None, ge=1, le=6, description="Columns of the gallery grid.")
    theme: Literal["light", "dark"] | None = None
    sections: list[str] | None = Field(default=None, description="Every section once, in the new order.")


class PageAddSectionArgs(PageArgs):
    """Arguments of page_add_section."""

    name: str = Field(min_length=1, max_length=40, description="The section's name, e.g. 'pricing'.")
    after: str | None = Field(default=None, description="Put it after this section.")
    before: str | None = Field(default=None, description="Put it before this section (default: before contact).")
    heading: str | None = Field(default=None, max_length=200)
    text: str | None = Field(default=None, max_length=4000)


class PageSectionArgs(PageArgs):
    """Arguments of page_remove_section."""

    section: str = Field(description="The section's name, e.g. 'about'.")


class PageMoveSectionArgs(PageSectionArgs):
    """Arguments of page_move_section: exactly one of after, before, to."""

    after: str | None = None
    before: str | None = None
    to: Literal["first", "last"] | None = None


class PageReplaceImageArgs(PageArgs):
    """Arguments of page_replace_image: the picture, and either an image node or a prompt to generate one."""

    image: Annotated[int, Field(ge=1)] | Literal["hero"] = Field(
        description="Which picture: 1-based in gallery order, or 'hero' for the hero's backdrop (until one of "
                    "them is replaced the hero shows picture 1; each replacement changes only the place it names).")
    image_id: str | None = Field(default=None, description="An image node on the canvas to show instead.")
    prompt: str | None = Field(default=None, max_length=2000, description="Or: what a new picture should show "
                               "(generated in the page's palette and lighting).")
    alt: str | None = Field(default=None, max_length=300, description="Its caption and alt text (default: kept).")


class PageUndoArgs(UndoFields, PageArgs):
    """Arguments of page_undo."""


class PageRevertArgs(RevertFields, PageArgs):
    """Arguments of page_revert: exactly one of to, before_change."""


# ---------------------------------------------------------------- the tools


def page_read(ctx: ToolContext, args: PageArgs) -> ToolResult:
    """What the page says and how it looks: sections, every element's words, tokens, pictures, versions."""
    canvas = require_canvas(ctx)
    head = find_page(canvas, args.page_id)
    doc = PageDocument.from_inputs(head.inputs)
    versions = version_history(canvas, head)
    return ToolResult(observation={
        "page_id": head.id, "title": doc.design.title, "html_path": head.inputs.get("html_path"),
        "sections": doc.layout.sections, "layout": doc.layout.model_dump(exclude={"sections"}),
        "texts": doc.text_elements(), "tokens": doc.style(),
        "images": [{"image": n, "node_id": i.node_id, "alt": i.alt, "path": i.path}
                   for n, i in enumerate(doc.images, start=1)],
        "hero_image": ({"image": HERO, "node_id": hero.node_id, "alt": hero.alt, "path": hero.path,
                        "own": doc.hero_image is not None} if (hero := doc.hero_backdrop) else None),
        "versions": [{"version": v.number, "page_id": v.node.id,
                      "change": v.change.summary if v.change else "the original"} for v in versions],
    })


def page_set_text(ctx: ToolContext, args: PageSetTextArgs) -> ToolResult:
    """Reword one element."""
    return _edit(ctx, args, "page_set_text", lambda doc: set_text(doc, args.element, args.text))


def page_set_style(ctx: ToolContext, args: PageSetStyleArgs) -> ToolResult:
    """Set one design token (or the spacing / palette preset)."""
    return _edit(ctx, args, "page_set_style", lambda doc: set_style(doc, args.token, args.value))


def page_set_layout(ctx: ToolContext, args: PageSetLayoutArgs) -> ToolResult:
    """Hero treatment, gallery columns, theme, or the sections' order."""
    return _edit(ctx, args, "page_set_layout", lambda doc: set_layout(
        doc, hero=args.hero, columns=args.columns, theme=args.theme, sections=args.sections))


def page_add_section(ctx: ToolContext, args: PageAddSectionArgs) -> ToolResult:
    """Add a section."""
    return _edit(ctx, args, "page_add_section", lambda doc: add_section(
        doc, args.name, after=args.after, before=args.before, heading=args.heading, text=args.text))


def page_remove_section(ctx: ToolContext, args: PageSectionArgs) -> ToolResult:
    """Remove a section."""
    return _edit(ctx, args, "page_remove_section", lambda doc: remove_section(doc, args.section))


def page_move_section(ctx: ToolContext, args: PageMoveSectionArgs) -> ToolResult:
    """Move a section."""
    return _edit(ctx, args, "page_move_section", lambda doc: move_section(
        doc, args.section, after=args.after, before=args.before, to=args.to))


def page_replace_image(ctx: ToolContext, args: PageReplaceImageArgs) -> ToolResult:
    """Show another picture in one place: an image node already on the canvas, or one generated from a prompt."""
    if (args.image_id is None) == (args.prompt is None):
        raise PageEditRefused("give exactly one of image_id (an image on the canvas) or prompt (a new picture)")
    canvas = require_canvas(ctx)
    head = find_page(canvas, args.page_id)
    doc = PageDocument.from_inputs(head.inputs)
    if args.image == HERO:
        old = doc.hero_backdrop
        if old is None:
            raise PageEditRefused("the page has no pictures; the hero has no backdrop to replace")
    elif not 1 <= args.image <= len(doc.images):
        raise PageEditRefused(f"the page has no picture {args.image}; it has {len(doc.images)} "
                              f"(1 to {len(doc.images)}, or 'hero' for the hero's)")
    else:
        old = doc.images[args.image - 1]
    made: list[Any] = []
    provider_calls = cache_hits = 0
    if args.prompt is not None:
        generated = _generate(ctx, canvas, doc, old, args.prompt)
        made, provider_calls, cache_hits = generated.mutations, generated.provider_calls, generated.cache_hits
        node_id, sha = generated.observation["node_id"], generated.observation["sha256"]
    else:
        picture = canvas.get_node(str(args.image_id))
        handle = next((h for h in picture.outputs if h.mime.startswith("image/")), None)
        if picture.kind != "image" or handle is None:
            raise PageEditRefused(f"node {picture.id} ({picture.kind}) holds no picture; pass an image node")
        node_id, sha = picture.id, handle.sha256
    # A new file name per picture: earlier versions' HTML keeps showing the picture they had.
    stem = old.path.rsplit("/", 1)[-1].split(".")[0].split("--")[0]
    image = PageImage(node_id=node_id, path=f"images/{stem}--{sha[:10]}.png", sha256=sha,
                      alt=args.alt or (old.alt if args.prompt is None else args.prompt[:120]))
    new, change = replace_image(doc, args.image, image)
    result = commit_page(ctx, head, new, change, tool="page_replace_image", made=made)
    return result.model_copy(update={"observation": {**result.observation, "image_id": node_id},
                                     "provider_calls": provider_calls, "cache_hits": cache_hits})


def page_undo(ctx: ToolContext, args: PageUndoArgs) -> ToolResult:
    """Take back one change (the last not yet taken back, or the one the words name); later changes stay."""
    canvas = require_canvas(ctx)
    head = find_page(canvas, args.page_id)
    versions = version_history(canvas, head)
    target = args.target(versions, "page")
    assert target.change is not None
    taken_back = target.change
    if not taken_back.edits:  # recorded in words only (web_revise before change records): what differs from before
        before = version_before(versions, target)
        taken_back = taken_back.model_copy(update={"edits": diff(PageDocument.from_inputs(before.node.inputs),
                                                                 PageDocument.from_inputs(target.node.inputs))})
    doc = PageDocument.from_inputs(head.inputs)
    edits = undo_edits(doc, taken_back)
    new = apply_edits(doc, edits)
    change = Change(op="undo", summary=f"undo: {taken_back.summary}", edits=edits, undoes=target.node.id)
    return commit_page(ctx, head, new, change, tool="page_undo",
                       reuse=earlier_preview(canvas, versions[1:], new.html()))


def page_revert(ctx: ToolContext, args: PageRevertArgs) -> ToolResult:
    """Make an earlier version current again (as a new version: history only grows)."""
    canvas = require_canvas(ctx)
    head = find_page(canvas, args.page_id)
    versions = version_history(canvas, head)
    target = args.target(versions, "page")
    doc, old = PageDocument.from_inputs(head.inputs), PageDocument.from_inputs(target.node.inputs)
    edits = diff(doc, old)
    if not edits:
        raise PageUnchanged(f"the page is already as version {target.number} was; nothing to change")
    said = target.change.summary if target.change else "the original"
    change = Change(op="revert", summary=f"revert to version {target.number} ({said})", edits=edits)
    return commit_page(ctx, head, old, change, tool="page_revert",
                       reuse=earlier_preview(canvas, versions[1:], old.html()))


# ---------------------------------------------------------------- helpers


def _edit(ctx: ToolContext, args: PageArgs, tool: str,
          edit: Callable[[PageDocument], tuple[PageDocument, Change]]) -> ToolResult:
    canvas = require_canvas(ctx)
    head = find_page(canvas, args.page_id)
    new, change = edit(PageDocument.from_inputs(head.inputs))
    return commit_page(ctx, head, new, change, tool=tool)


def _generate(ctx: ToolContext, canvas: CanvasReader, doc: PageDocument, old: PageImage, prompt: str) -> ToolResult:
    """A new picture in the page's look: the old picture's size, seed and style references, the page's palette."""
    from tools.generate.tools import GenerateImageArgs, run_generate_image

    before = canvas.get_node(old.node_id)
    references = [r["node_id"] for r in before.inputs.get("references") or [] if isinstance(r, dict)]
    look = doc.design.look
    style = ("Black-and-white photograph. " if look.imagery == "greyscale" else "") + ", ".join(look.words)
    args = GenerateImageArgs(prompt=f"{prompt}. {style}".strip(), title=f"page picture: {prompt}"[:60],
                             width=int(before.inputs.get("width") or 800),
                             height=int(before.inputs.get("height") or 600),
                             seed=int(before.inputs.get("seed") or 0), lighting=look.lighting,
                             palette=image_palette(doc.design, doc.layout.theme), references=references)
    result = run_generate_image(ctx, args)
    mutations = [m.model_copy(update={"metadata": {**m.metadata, "outputs_folder": "web"}})
                 if isinstance(m, CreateNode) else m for m in result.mutations]
    return result.model_copy(update={"mutations": mutations})




_WRITE = {Effect.MUTATES_CANVAS, Effect.LONG_RUNNING}  # a Chromium render per version
PAGE_READ = native_tool(
    "page_read", "Read a web page: its sections, the words of every element (headline, tagline, button, "
    "SECTION.heading/text), its style tokens, pictures and versions with what each changed.",
    PageArgs, {Effect.READ_ONLY}, page_read)
PAGE_SET_TEXT = native_tool(
    "page_set_text", "Reword one element of a web page (the headline, a section's text, ...): a new version of the "
    "page and its preview.", PageSetTextArgs, _WRITE, page_set_text)
PAGE_SET_STYLE = native_tool(
    "page_set_style", "Change one design token of a web page (headline size, button colour, fonts, spacing, "
    "palette, ...): one CSS custom property; a new version and preview.", PageSetStyleArgs, _WRITE, page_set_style)
PAGE_SET_LAYOUT = native_tool(
    "page_set_layout", "Change a web page's layout: hero contained or full-bleed, gallery columns, light or dark "
    "theme, or the order of its sections.", PageSetLayoutArgs, _WRITE, page_set_layout)
PAGE_ADD_SECTION = native_tool(
    "page_add_section", "Add a section to a web page (before contact unless placed).", PageAddSectionArgs, _WRITE,
    page_add_section)
PAGE_REMOVE_SECTION = native_tool(
    "page_remove_section", "Remove a section from a web page.", PageSectionArgs, _WRITE, page_remove_section)
PAGE_MOVE_SECTION = native_tool(
    "page_move_section", "Move a section of a web page first, last, or after/before another.", PageMoveSectionArgs,
    _WRITE, page_move_section)
PAGE_REPLACE_IMAGE = native_tool(
    "page_replace_image", "Replace one picture of a web page with an image node, or with a new picture generated "
    "from a prompt in the page's look.", PageReplaceImageArgs, _WRITE | {Effect.GENERATES_MEDIA}, page_replace_image)
PAGE_UNDO = native_tool(
    "page_undo", "Undo one change to a web page: the last, or the one the words name ('the full-bleed change'); "
    "later changes stay.", PageUndoArgs, _WRITE, page_undo)
PAGE_REVERT = native_tool(
    "page_revert", "Bring back an earlier version of a web page (the original, version N, or the one before a named "
    "change) as its newest version.", PageRevertArgs, _WRITE, page_revert)

PAGE_TOOLS: tuple[ToolSpec, ...] = (PAGE_READ, PAGE_SET_TEXT, PAGE_SET_STYLE, PAGE_SET_LAYOUT, PAGE_ADD_SECTION,
                                    PAGE_REMOVE_SECTION, PAGE_MOVE_SECTION, PAGE_REPLACE_IMAGE, PAGE_UNDO, PAGE_REVERT)
"""Every page tool, for the manifest."""


def page_scope(canvas: CanvasReader, page_id: str | None) -> list[str]:
    """The nodes a page tool writes, for a grant's scope: the page's current code node, and (derived from it,
    so ``Scope(node_ids=..., descendants_of=...)`` of this list covers them) its HTML file and preview."""
    head = find_page(canvas, page_id)
    file_node, preview = made_from_page(canvas, head.id)
    return [head.id, *(n.id for n in (file_node, preview) if n is not None)]


def page_of(canvas: CanvasReader, node: CanvasNode) -> CanvasNode | None:
    """The current page a node belongs to (its code node, preview, file or one of its pictures), or None."""
    if node.kind == "image":
        for link in canvas.neighbours(node.id, [EdgeType.REFERENCES], Direction.IN):
            if link.node.kind == "code":
                node = link.node
                break
    try:
        return find_page(canvas, node.id)
    except ToolError:
        return None


__all__ = ["PAGE_TOOLS", "PageArgs", "page_of", "page_scope"]
