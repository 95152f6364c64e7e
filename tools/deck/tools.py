"""The deck tools: read a slide deck, and change it one operation at a time, each a new version of the same deck.

Every write tool takes ``deck_id`` (the deck's node, or one of its slides; left
out, the canvas's only deck) and slide numbers counted from 1 (-1: the last),
and returns one batch (:func:`tools.deck.canvas.commit_deck`): the deck's new
version with its ``inputs.change`` record and its .pptx, new versions of only the
slides that changed (their previews drawn again), and every other slide kept as
it is, same node and same preview.  None of them can make a second deck.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic import BaseModel, Field

from content.deck_plan import plan_extra_slide
from store.base import CanvasReader
from store.models import CanvasNode, Direction, EdgeType, NodeStatus, new_id
from store.mutations import CreateNode, Link, SetStatus
from tools.base import Effect, ToolContext, ToolResult, ToolSpec
from tools.native.tools import native_tool
from tools.changes import Change, Edit, RevertFields, UndoFields, require_canvas, version_before, version_history
from tools.deck.canvas import commit_deck, find_deck, read_deck, restored_picture
from tools.deck.document import (
    THEMES,
    Deck,
    DeckEditRefused,
    DeckUnchanged,
    NoIllustration,
    Slide,
    add_slide,
    delete_slide,
    duplicate_slide,
    edit_slide,
    move_slide,
    new_illustration,
    set_theme,
    slides_mentioning,
    theme_named,
    undo_slides,
    with_words,
)
from tools.native.slide_spec import SlideSpec, SlideTheme
from tools.versions import current_versions


class DeckArgs(BaseModel):
    """Which deck: its node id (or one of its slides'); left out, the canvas's only deck."""

    deck_id: str | None = Field(default=None, description="The deck's node id (or a slide's); omit when the canvas "
                                "has one deck.")


class DeckReadArgs(DeckArgs):
    """Arguments of deck_read."""

    mentioning: str | None = Field(default=None, max_length=200, description="Also say which slides mention "
                                   "these words.")


class DeckSlideArgs(DeckArgs):
    """A slide of the deck."""

    slide: int = Field(description="The slide's number, counted from 1; -1 for the last slide.")


class DeckAddSlideArgs(DeckArgs):
    """Arguments of deck_add_slide."""

    after: int = Field(description="Put the new slide after this slide number (0: first; -1: last).")
    about: str = Field(min_length=1, max_length=300, description="What the slide is about, e.g. 'training costs'.")
    title: str | None = Field(default=None, max_length=200, description="Its title (default: from `about`).")
    bullets: list[str] | None = Field(default=None, max_length=12, description="Its bullets (default: written "
                                      "from `about`).")
    notes: str | None = Field(default=None, max_length=2000, description="Speaker notes.")


class DeckDuplicateSlideArgs(DeckSlideArgs):
    """Arguments of deck_duplicate_slide."""

    after: int | None = Field(default=None, description="Put the copy after this slide number (0: first; -1: last); "
                              "default: right after the slide it copies.")


class DeckMoveSlideArgs(DeckSlideArgs):
    """Arguments of deck_move_slide."""

    to: int = Field(description="The number the slide should have after the move (-1: last).")


class DeckEditSlideArgs(DeckSlideArgs):
    """Arguments of deck_edit_slide: any of title, bullets, notes."""

    title: str | None = Field(default=None, min_length=1, max_length=200)
    bullets: list[str] | None = Field(default=None, max_length=12, description="Every bullet, in order (this "
                                      "replaces the slide's bullets).")
    notes: str | None = Field(default=None, max_length=2000)


class DeckThemeArgs(DeckArgs):
    """Arguments of deck_set_theme."""

    theme: str = Field(min_length=1, max_length=60, description=f"A preset ({', '.join(THEMES)}) or a colour "
                       "('teal', '#1a7f8c', 'dark green').")


class DeckIllustrationArgs(DeckSlideArgs):
    """Arguments of deck_regenerate_illustration."""

    prompt: str | None = Field(default=None, max_length=2000, description="What the new picture should show "
                               "(default: the same subject, another take).")


class DeckUndoArgs(UndoFields, DeckArgs):
    """Arguments of deck_undo."""


class DeckRevertArgs(RevertFields, DeckArgs):
    """Arguments of deck_revert: exactly one of to, before_change."""


# ---------------------------------------------------------------- the tools


def deck_read(ctx: ToolContext, args: DeckReadArgs) -> ToolResult:
    """The deck's slides (title, bullets, notes, pictures, preview), theme and versions."""
    canvas = require_canvas(ctx)
    head = find_deck(canvas, args.deck_id)
    deck = read_deck(canvas, head)
    observation: dict[str, Any] = {
        "deck_id": head.id, "title": head.title, "theme": (deck.spec.theme or THEMES["light"]).name,
        "slides": [{"slide": n, "node_id": s.node.id if s.node else None, "title": s.spec.title,
                    "bullets": s.spec.bullets, "notes": s.spec.notes, "pictures": [p.id for p in s.pictures],
                    "preview": s.node.outputs[0].uri if s.node and s.node.outputs else None}
                   for n, s in enumerate(deck.slides, start=1)],
        "versions": [{"version": v.number, "deck_id": v.node.id, "change": v.change.summary if v.change else
                      "the original"} for v in version_history(canvas, head)]}
    if args.mentioning:
        observation["mentioning"] = slides_mentioning(deck, args.mentioning)
    return ToolResult(observation=observation)


def deck_add_slide(ctx: ToolContext, args: DeckAddSlideArgs) -> ToolResult:
    """A slide about something, after slide N."""
    deck = _deck(ctx, args)
    planned = plan_extra_slide(args.about)
    title = args.title or planned.title
    bullets = args.bullets if args.bullets is not None else planned.bullets
    notes = args.notes if args.notes is not None else planned.notes
    after = len(deck.slides) if args.after == -1 else args.after
    content = {"slide": after + 1, "role": "content", "title": title, "bullets": bullets, "notes": notes,
               "diagram": None, "about": args.about}
    slides, change = add_slide(deck, args.after, SlideSpec(title=title, bullets=bullets, notes=notes), content)
    return commit_deck(ctx, deck, slides, change, tool="deck_add_slide")


def deck_duplicate_slide(ctx: ToolContext, args: DeckDuplicateSlideArgs) -> ToolResult:
    """A copy of one slide, by default right after it."""
    deck = _deck(ctx, args)
    slides, change = duplicate_slide(deck, args.slide, args.after)
    return commit_deck(ctx, deck, slides, change, tool="deck_duplicate_slide")


def deck_delete_slide(ctx: ToolContext, args: DeckSlideArgs) -> ToolResult:
    """Delete one slide (it stays on the canvas, set aside)."""
    deck = _deck(ctx, args)
    slides, change = delete_slide(deck, args.slide)
    return commit_deck(ctx, deck, slides, change, tool="deck_delete_slide")


def deck_move_slide(ctx: ToolContext, args: DeckMoveSlideArgs) -> ToolResult:
    """Move one slide to another place."""
    deck = _deck(ctx, args)
    slides, change = move_slide(deck, args.slide, args.to)
    return commit_deck(ctx, deck, slides, change, tool="deck_move_slide")


def deck_edit_slide(ctx: ToolContext, args: DeckEditSlideArgs) -> ToolResult:
    """Retitle a slide, or change its bullets or notes."""
    if args.title is None and args.bullets is None and args.notes is None:
        raise DeckEditRefused("give at least one of title, bullets, notes")
    deck = _deck(ctx, args)
    slides, change = edit_slide(deck, args.slide, title=args.title, bullets=args.bullets, notes=args.notes)
    return commit_deck(ctx, deck, slides, change, tool="deck_edit_slide")


def deck_set_theme(ctx: ToolContext, args: DeckThemeArgs) -> ToolResult:
    """Draw every slide in another theme (the slides' words and pictures stay)."""
    deck = _deck(ctx, args)
    theme = theme_named(args.theme)
    change = set_theme(deck, theme)
    return commit_deck(ctx, deck, list(deck.slides), change, tool="deck_set_theme", theme=theme)


def deck_regenerate_illustration(ctx: ToolContext, args: DeckIllustrationArgs) -> ToolResult:
    """A new take of one slide's picture (a new version of the image); only that slide is drawn again."""
    from tools.generate.tools import GenerateImageArgs, run_generate_image

    canvas = require_canvas(ctx)
    deck = _deck(ctx, args)
    index, slide = deck.slide(args.slide)
    if not slide.pictures:
        shown = [n for n, s in enumerate(deck.slides, start=1) if s.pictures]
        raise NoIllustration(f"slide {index + 1} has no illustration to regenerate; "
                             + (f"slides with one: {', '.join(map(str, shown))}" if shown else "no slide has one"))
    old = slide.pictures[0]
    older = canvas.lineage(old.id, [EdgeType.VERSION_OF], Direction.OUT)
    seeds = [int(n.inputs.get("seed") or 0) for n in [old, *(e.node for e in older)]]
    references = [r["node_id"] for r in old.inputs.get("references") or [] if isinstance(r, dict)]
    request = GenerateImageArgs(prompt=args.prompt or str(old.inputs.get("prompt") or slide.spec.title),
                                title=old.title, width=int(old.inputs.get("width") or 640),
                                height=int(old.inputs.get("height") or 400),
                                seed=max(seeds) + 1 if args.prompt is None else seeds[0],
                                lighting=old.inputs.get("lighting") or "neutral",
                                palette=old.inputs.get("palette") or [],
                                references=references, version_of=old.id)
    generated = run_generate_image(ctx, request)
    made = [m.model_copy(update={"metadata": {**m.metadata, "outputs_folder": "slides"}})
            if isinstance(m, CreateNode) else m for m in generated.mutations]
    picture = next(m for m in made if isinstance(m, CreateNode))
    made += [Link(type=EdgeType.GENERATED_FROM, source=picture.id, target=n.node.id, properties=n.edge.properties)
             for n in canvas.neighbours(old.id, [EdgeType.GENERATED_FROM])]
    made.append(_superseded_picture(old, picture.id))
    node = CanvasNode(id=picture.id, kind="image", title=picture.title, inputs=picture.inputs,
                      outputs=picture.outputs)
    slides, change = new_illustration(deck, args.slide, node, picture.outputs[0].uri, made, old)
    result = commit_deck(ctx, deck, slides, change, tool="deck_regenerate_illustration")
    return result.model_copy(update={"observation": {**result.observation, "illustration_id": picture.id},
                                     "provider_calls": generated.provider_calls, "cache_hits": generated.cache_hits})


def deck_undo(ctx: ToolContext, args: DeckUndoArgs) -> ToolResult:
    """Take back one change (the last not yet taken back, or the one the words name); later changes stay."""
    canvas = require_canvas(ctx)
    head = find_deck(canvas, args.deck_id)
    versions = version_history(canvas, head)
    return undo_deck_change(ctx, read_deck(canvas, head), versions, args.target(versions, "deck"), tool="deck_undo")


def undo_deck_change(ctx: ToolContext, deck: Deck, versions: list[Any], target: Any, *, tool: str) -> ToolResult:
    """Take back the change that made ``target`` (one of ``versions``, the deck's history) as a new version of
    ``deck`` (its current version); later changes stay.  ``deck_undo`` and ``undo_turn`` on a deck turn."""
    canvas = require_canvas(ctx)
    node, change = target.node, target.change
    assert change is not None
    if change.op == "revert":  # a whole deck brought back: taking it back is the deck as it was before it
        before = version_before(versions, target)
        return restore_deck(ctx, deck, before.node, Change(op="undo", summary=f"undo: {change.summary}",
                                                           undoes=node.id), tool=tool)
    undone = undo_slides(deck, change, _set_aside(canvas, change))
    slides, made = undone.slides, []
    pictures = {n.id: n for n in canvas.get_nodes([i for pair in undone.pictures for i in pair])} if undone.pictures \
        else {}
    for shown_id, wanted_id in undone.pictures:
        shown, wanted = pictures[shown_id], pictures[wanted_id]
        restored, mutations = _picture_back(ctx, canvas, shown, wanted)
        made += mutations
        slides = [_swap_picture(s, shown, restored) if shown.id in s.spec.source_node_ids else s for s in slides]
    summary = Change(op="undo", summary=f"undo: {change.summary}", edits=undone.edits, undoes=node.id)
    return commit_deck(ctx, deck, slides, summary, tool=tool, theme=undone.theme, made=made)


def deck_revert(ctx: ToolContext, args: DeckRevertArgs) -> ToolResult:
    """Make an earlier version of the deck current again (as a new version: history only grows)."""
    canvas = require_canvas(ctx)
    head = find_deck(canvas, args.deck_id)
    deck = read_deck(canvas, head)
    target = args.target(version_history(canvas, head), "deck")
    said = target.change.summary if target.change else "the original"
    return restore_deck(ctx, deck, target.node, Change(op="revert", summary=f"revert to version {target.number} "
                                                                              f"({said})"), tool="deck_revert")


def restore_deck(ctx: ToolContext, deck: Deck, version: CanvasNode, change: Change, *, tool: str) -> ToolResult:
    """The deck as ``version`` had it, as a new version: slides it shares with the deck now are kept."""
    then = read_deck(require_canvas(ctx), version)
    now = {s.key: s for s in deck.slides}
    if len(then.slides) != len(then.spec.slides):
        # A deck built before decks listed their slides, whose slides later versions regrouped: its spec alone.
        by_spec = {s.spec.model_dump_json(): s for s in deck.slides}
        then = replace(then, slides=[by_spec.get(spec.model_dump_json()) or Slide(key=new_id(), spec=spec)
                                     for spec in then.spec.slides])
    slides = []
    for old in then.slides:
        current = now.get(old.key)
        if current is None:
            slides.append(Slide(key=old.key, spec=old.spec, content=old.content, pictures=old.pictures,
                                continues=old.node.id if old.node else None))
        elif current.spec == old.spec:
            slides.append(current)
        else:
            slides.append(replace(with_words(current, old.words()), spec=old.spec))
    theme, before = then.spec.theme or SlideTheme(), deck.spec.theme or SlideTheme()
    edits = [Edit(field="slides", before=[s.key for s in deck.slides], after=[s.key for s in slides])]
    if theme != before:
        edits.append(Edit(field="theme", before=before.model_dump(), after=theme.model_dump()))
    edits += [Edit(field=f"slide:{s.key}", before=now[s.key].words(), after=s.words()) for s in slides
              if s.key in now and now[s.key].words() != s.words()]
    if [s.spec for s in slides] == [s.spec for s in deck.slides] and theme == before:
        raise DeckUnchanged("the deck is already as that version was; nothing to change")
    slides, made = _current_pictures(ctx, slides)
    return commit_deck(ctx, deck, slides, change.model_copy(update={"edits": edits}), tool=tool, theme=theme,
                       made=made)


def _current_pictures(ctx: ToolContext, slides: list[Slide]) -> tuple[list[Slide], list[Any]]:
    """Slides brought back from an earlier version show the pictures they showed then; a picture a later change
    replaced (another take) comes back as the newest version of its output, holding its artifact again, so
    each slide is made from its picture's current version (and a later regenerate starts from it)."""
    canvas = require_canvas(ctx)
    ids = list(dict.fromkeys(i for s in slides for i in s.spec.source_node_ids))
    shown = [n for n in canvas.get_nodes(ids, include_deleted=True) if n.kind == "image"] if ids else []
    heads = current_versions(canvas, shown) if shown else {}
    made: list[Any] = []
    for picture in shown:
        head = heads[picture.id]
        if head.id == picture.id:
            continue
        restored, mutations = _picture_back(ctx, canvas, head, picture)
        made += mutations
        slides = [_source_swapped(s, picture.id, restored.id) for s in slides]
    return slides, made


def _picture_back(ctx: ToolContext, canvas: CanvasReader, shown: CanvasNode,
                  wanted: CanvasNode) -> tuple[CreateNode, list[Any]]:
    """A new version of the picture ``shown`` holding ``wanted``'s artifact, made from what ``shown`` was made
    from, and ``shown`` superseded by it."""
    restored = restored_picture(ctx, shown, wanted)
    return restored, [restored, Link(type=EdgeType.VERSION_OF, source=restored.id, target=shown.id),
                      *(Link(type=EdgeType.GENERATED_FROM, source=restored.id, target=n.node.id,
                             properties=n.edge.properties)
                        for n in canvas.neighbours(shown.id, [EdgeType.GENERATED_FROM])),
                      _superseded_picture(shown, restored.id)]


def _source_swapped(slide: Slide, old: str, new: str) -> Slide:
    if old not in slide.spec.source_node_ids:
        return slide
    sources = [new if s == old else s for s in slide.spec.source_node_ids]
    return replace(slide, spec=slide.spec.model_copy(update={"source_node_ids": sources}))


# ---------------------------------------------------------------- helpers


def _deck(ctx: ToolContext, args: DeckArgs) -> Deck:
    canvas = require_canvas(ctx)
    return read_deck(canvas, find_deck(canvas, args.deck_id))


def _set_aside(canvas: CanvasReader, change: Change) -> dict[str, Slide]:
    """The slides a change deleted, read back from the canvas (to bring them back)."""
    gone = {e.detail["key"]: e.detail for e in change.edits
            if e.field == "slides" and e.detail.get("action") == "remove" and e.detail.get("node")}
    if not gone:
        return {}
    nodes = {n.id: n for n in canvas.get_nodes([d["node"] for d in gone.values()], include_deleted=True)}
    sources = canvas.neighbours_of(list(nodes), [EdgeType.GENERATED_FROM], Direction.OUT)
    # What the slide was made from may have newer versions since (its content edited before it was deleted).
    found: dict[str, Slide] = {}
    for key, detail in gone.items():
        node = nodes[detail["node"]]
        made_from = [s.node for s in sources.get(node.id, [])]
        heads = current_versions(canvas, [n for n in made_from if n.kind == "text"]) if made_from else {}
        found[key] = Slide(key=key, spec=SlideSpec.model_validate(detail["spec"]),
                           content=next(iter(heads.values()), None),
                           pictures=tuple(n for n in made_from if n.kind == "image"), continues=node.id)
    return found


def _swap_picture(slide: Slide, shown: CanvasNode, restored: CreateNode) -> Slide:
    uri = f"artifact://sha256/{shown.outputs[0].sha256}"
    images = [restored.outputs[0].uri if (i if isinstance(i, str) else i.uri) == uri else i for i in slide.spec.images]
    sources = [restored.id if s == shown.id else s for s in slide.spec.source_node_ids]
    return replace(slide, spec=slide.spec.model_copy(update={"images": images, "source_node_ids": sources}))


def _superseded_picture(old: CanvasNode, by: str) -> SetStatus:
    return SetStatus(node_id=old.id, status=NodeStatus.REJECTED, reason=f"superseded by {by}",
                     expected_version=old.version)




_WRITE = {Effect.MUTATES_CANVAS}
DECK_READ = native_tool(
    "deck_read", "Read a slide deck: every slide's title, bullets, notes, pictures and preview, its theme, its "
    "versions with what each changed, and which slides mention given words.", DeckReadArgs, {Effect.READ_ONLY},
    deck_read)
DECK_ADD_SLIDE = native_tool(
    "deck_add_slide", "Add a slide about something after slide N of a deck (a new version of the same deck; the "
    "other slides stay as they are).", DeckAddSlideArgs, _WRITE, deck_add_slide)
DECK_DUPLICATE_SLIDE = native_tool(
    "deck_duplicate_slide", "Copy one slide of a deck (its title, bullets, notes and pictures) as a new slide, by "
    "default right after it.", DeckDuplicateSlideArgs, _WRITE, deck_duplicate_slide)
DECK_DELETE_SLIDE = native_tool(
    "deck_delete_slide", "Delete one slide of a deck (a new version of the same deck).", DeckSlideArgs, _WRITE,
    deck_delete_slide)
DECK_MOVE_SLIDE = native_tool(
    "deck_move_slide", "Move one slide of a deck to another place.", DeckMoveSlideArgs, _WRITE, deck_move_slide)
DECK_EDIT_SLIDE = native_tool(
    "deck_edit_slide", "Retitle a slide of a deck, or replace its bullets or notes.", DeckEditSlideArgs, _WRITE,
    deck_edit_slide)
DECK_SET_THEME = native_tool(
    "deck_set_theme", "Change a deck's colour theme (a preset or a colour); every slide is drawn again, words and "
    "pictures unchanged.", DeckThemeArgs, _WRITE, deck_set_theme)
DECK_REGENERATE_ILLUSTRATION = native_tool(
    "deck_regenerate_illustration", "Regenerate one slide's illustration (another take, or a new prompt); only that "
    "slide is drawn again.", DeckIllustrationArgs, _WRITE | {Effect.GENERATES_MEDIA}, deck_regenerate_illustration)
DECK_UNDO = native_tool(
    "deck_undo", "Undo one change to a deck: the last, or the one the words name; later changes stay.", DeckUndoArgs,
    _WRITE, deck_undo)
DECK_REVERT = native_tool(
    "deck_revert", "Bring back an earlier version of a deck (the original, version N, or the one before a named "
    "change) as its newest version.", DeckRevertArgs, _WRITE, deck_revert)

DECK_TOOLS: tuple[ToolSpec, ...] = (DECK_READ, DECK_ADD_SLIDE, DECK_DUPLICATE_SLIDE, DECK_DELETE_SLIDE, DECK_MOVE_SLIDE,
                                    DECK_EDIT_SLIDE, DECK_SET_THEME, DECK_REGENERATE_ILLUSTRATION, DECK_UNDO,
                                    DECK_REVERT)
"""Every deck tool, for the manifest."""


def deck_scope(canvas: CanvasReader, deck_id: str | None, *, history: bool = False) -> list[str]:
    """Every existing node a deck tool may write, for a grant's scope (``Scope(node_ids=...)``): the deck's
    current version, its slides, their content nodes and pictures.

    ``history``: also the slides every earlier version of the deck listed, which an undo or a revert writes
    when it brings one back (its new node is a ``VERSION_OF`` it: the old slide is superseded again), with their
    content and pictures and the current version of each: a slide brought back shows its picture again by
    superseding the picture's later take, which may be on no slide of the deck now (its slide was deleted)."""
    deck = read_deck(canvas, find_deck(canvas, deck_id))
    ids = [deck.node.id]
    for slide in deck.slides:
        ids += [n.id for n in (slide.node, slide.content, *slide.pictures) if n is not None]
    if history:
        from tools.history import output_of

        root = output_of(canvas, deck.node.id)
        versions = canvas.lineages([root], [EdgeType.VERSION_OF], Direction.IN, with_start=True).get(root) or []
        earlier = [i for i in dict.fromkeys(str(i) for e in versions for i in e.node.inputs.get("slide_ids") or [])
                   if i not in ids]
        made_from = canvas.neighbours_of(earlier, [EdgeType.GENERATED_FROM], Direction.OUT) if earlier else {}
        shown = [e.node for entries in made_from.values() for e in entries if e.node.kind in ("image", "text")]
        ids += earlier + [n.id for n in shown]
        ids += [n.id for n in (current_versions(canvas, shown) if shown else {}).values()]
    return list(dict.fromkeys(ids))


__all__ = ["DECK_TOOLS", "DeckArgs", "deck_scope"]
