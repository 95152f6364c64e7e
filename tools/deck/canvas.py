"""A deck on the canvas: find its current version, read its slides, and make a new version in one batch.

A deck is a lineage of ``deck`` nodes (``VERSION_OF``), each holding its spec,
the ids of its slides in order (``inputs.slide_ids``), what changed in it
(``inputs.change``) and its .pptx.  A new version regroups the slides it keeps
as they are (same node, same preview: only their place may change), makes a
new version of each slide it changes (``VERSION_OF`` the old one, which is set
aside as ``superseded by …``), sets aside the slides it drops, and supersedes
the old deck node.  Only the changed slides' previews are drawn; the .pptx is
rebuilt whole (it is one file).  There is no way through here to make a second
deck: every batch makes a version of the deck it read.
"""

from __future__ import annotations

from typing import Any

from store.base import CanvasReader
from store.errors import NodeNotFound
from store.models import CanvasNode, Direction, EdgeType, NodeStatus, Provenance, new_id
from store.mutations import CreateNode, GroupNodes, Link, SetStatus, UpdateNode
from tools.base import ToolContext, ToolError, ToolResult
from tools.changes import Change, current_heads
from tools.deck.document import Deck, Slide
from tools.native.slide_spec import DeckSpec, SlideSpec, SlideTheme
from tools.native.slides import build_deck
from tools.versions import current_version

OUTPUTS_FOLDER = "slides"
"""Where ``outputs/`` files a deck's nodes (metadata ``outputs_folder``)."""


class NotADeck(ToolError):
    """The node named is not a deck (or a slide of one)."""


class NoDeck(ToolError):
    """No deck was named and the canvas has none, or several (the message lists them)."""


def is_deck(node: CanvasNode) -> bool:
    """Whether a node is a deck made by build_slides (or a deck tool)."""
    return node.kind == "deck" and isinstance(node.inputs.get("spec"), dict)


def find_deck(canvas: CanvasReader, deck_id: str | None) -> CanvasNode:
    """The current version of the deck ``deck_id`` names (a deck or one of its slides), or of the canvas's only
    deck when ``deck_id`` is None."""
    if deck_id is None:
        decks = current_decks(canvas)
        if len(decks) == 1:
            return decks[0]
        if not decks:
            raise NoDeck("there is no slide deck on the canvas; make one first (skill__slides)")
        raise NoDeck(f"the canvas has {len(decks)} decks; pass deck_id, one of "
                     + ", ".join(f"{d.id} ({d.title})" for d in decks))
    try:
        node = canvas.get_node(deck_id)
    except NodeNotFound:
        raise NotADeck(f"no canvas node {deck_id}; pass a deck's node id") from None
    if node.kind == "slide":
        owner = node.metadata.get("deck_id") or node.group_id
        node = canvas.get_node(str(owner)) if owner else node
    if not is_deck(node):
        raise NotADeck(f"node {node.id} ({node.kind} {node.title!r}) is not a slide deck; pass a deck's id")
    return current_version(canvas, node)


def current_decks(canvas: CanvasReader) -> list[CanvasNode]:
    """Every deck's current version."""
    return current_heads(canvas, [n for n in canvas.find_nodes(kind="deck") if is_deck(n)])


def read_deck(canvas: CanvasReader, node: CanvasNode) -> Deck:
    """A deck version with its slides, their content nodes and pictures (three reads)."""
    spec = DeckSpec.model_validate(node.inputs["spec"])
    ids = node.inputs.get("slide_ids")
    if isinstance(ids, list) and ids:
        nodes = canvas.get_nodes([str(i) for i in ids], include_deleted=True)
    else:  # a deck built before decks listed their slides: its group, in slide order
        nodes = sorted(canvas.find_nodes(kind="slide", group_id=node.id), key=lambda n: n.inputs.get("index", 0))
    sources = canvas.neighbours_of([n.id for n in nodes], [EdgeType.GENERATED_FROM], Direction.OUT) if nodes else {}
    slides = []
    for slide in nodes:
        made_from = [s.node for s in sources.get(slide.id, [])]
        slides.append(Slide(key=str(slide.inputs.get("key") or slide.id), spec=SlideSpec.model_validate(
            slide.inputs["spec"]), node=slide, content=next((n for n in made_from if n.kind == "text"), None),
            pictures=tuple(n for n in made_from if n.kind == "image")))
    return Deck(node=node, spec=spec, slides=slides)


def commit_deck(ctx: ToolContext, deck: Deck, slides: list[Slide], change: Change, *, tool: str,
                theme: SlideTheme | None = None, made: list[Any] | None = None) -> ToolResult:
    """One batch that makes ``slides`` (in ``theme``) the deck's new version.

    A slide is kept as it is (its node and preview) when its spec is unchanged, the theme is unchanged and it
    has no new content; every other slide gets a new slide node with a freshly drawn preview.
    """
    theme = theme if theme is not None else deck.spec.theme
    same_theme = (theme or SlideTheme()) == (deck.spec.theme or SlideTheme())
    meta = {"provenance": Provenance(actor=ctx.actor, turn_id=ctx.turn_id, thread_id=ctx.thread_id,
                                     tool=tool).model_dump(exclude_none=True), "outputs_folder": OUTPUTS_FOLDER}
    deck_id = new_id()
    creates: list[Any] = list(made or [])
    links: list[Any] = []
    statuses: list[Any] = []
    outline = _outline_of(ctx.canvas, deck)
    specs: list[SlideSpec] = []
    kept: list[Any] = []
    for slide in slides:
        creates += list(slide.made)
        spec = slide.spec
        if slide.new_content is not None:
            content_id = new_id()
            creates.append(CreateNode(id=content_id, kind="text", title=slide.content.title if slide.content else
                                      "slide content", status=NodeStatus.COMPLETED, inputs=slide.new_content,
                                      metadata=meta))
            if slide.content is not None:
                links.append(Link(type=EdgeType.VERSION_OF, source=content_id, target=slide.content.id))
                statuses.append(_superseded(slide.content, content_id))
            links += [Link(type=EdgeType.GENERATED_FROM, source=content_id, target=o) for o in outline]
            old = slide.content.id if slide.content else None
            sources = [content_id if s == old else s for s in spec.source_node_ids]
            spec = spec.model_copy(update={"source_node_ids": sources if old in spec.source_node_ids
                                           else [content_id, *sources]})
        specs.append(spec)
        unchanged = (slide.node is not None and slide.node.status != NodeStatus.REJECTED and same_theme
                     and slide.new_content is None and _same(slide.node.inputs.get("spec"), spec))
        kept.append(slide.node.outputs[0] if unchanged and slide.node and slide.node.outputs else None)
    built = build_deck(DeckSpec(title=deck.spec.title, slides=specs, file_name=deck.spec.file_name, theme=theme),
                       ctx.artifacts, keep_previews=kept)
    slide_ids: list[str] = []
    updates: list[Any] = []
    for number, (slide, spec, keep, preview) in enumerate(zip(slides, specs, kept, built.previews, strict=True), 1):
        if keep is not None and slide.node is not None:
            slide_ids.append(slide.node.id)
            if slide.node.inputs.get("index") != number:
                updates.append(UpdateNode(node_id=slide.node.id, inputs_patch={"index": number}))
            continue
        slide_id = slide.key if slide.node is None and slide.continues is None else new_id()
        slide_ids.append(slide_id)
        creates.append(CreateNode(id=slide_id, kind="slide", title=spec.title, status=NodeStatus.COMPLETED,
                                  inputs={"index": number, "spec": spec.model_dump(mode="json"), "key": slide.key},
                                  outputs=[preview], metadata={**meta, "deck_id": deck_id}))
        links += [Link(type=EdgeType.GENERATED_FROM, source=slide_id, target=s) for s in spec.source_node_ids]
        previous = slide.node.id if slide.node is not None else slide.continues
        if previous is not None:
            links.append(Link(type=EdgeType.VERSION_OF, source=slide_id, target=previous))
        if slide.node is not None and slide.node.status != NodeStatus.REJECTED:
            statuses.append(_superseded(slide.node, slide_id))
    keys = {s.key for s in slides}
    for gone in deck.slides:
        if gone.key not in keys and gone.node is not None and gone.node.status != NodeStatus.REJECTED:
            statuses.append(SetStatus(node_id=gone.node.id, status=NodeStatus.REJECTED,
                                      expected_version=gone.node.version,
                                      reason=f"removed from the deck in version {deck_id}"))
    spec = DeckSpec(title=deck.spec.title, slides=specs, file_name=deck.spec.file_name, theme=theme)
    new_deck = CreateNode(id=deck_id, kind="deck", title=deck.node.title, status=NodeStatus.COMPLETED,
                          inputs={"spec": spec.model_dump(mode="json"), "slide_ids": slide_ids,
                                  "change": change.dump()},
                          outputs=[built.pptx], metadata={**meta, "slide_count": len(slides)})
    mutations = [new_deck, *creates, *links, Link(type=EdgeType.VERSION_OF, source=deck_id, target=deck.node.id),
                 GroupNodes(group_id=deck_id, node_ids=slide_ids), *updates, _superseded(deck.node, deck_id),
                 *statuses]
    return ToolResult(observation={
        "deck_id": deck_id, "previous_deck_id": deck.node.id, "pptx": built.pptx.uri, "change": change.dump(),
        "slides": [{"slide": n, "node_id": i, "title": s.title, "preview": p.uri, "redrawn": r}
                   for n, (i, s, p, r) in enumerate(zip(slide_ids, specs, built.previews, built.rendered, strict=True),
                                                    1)],
        "previews_drawn": sum(built.rendered)}, mutations=mutations)


def restored_picture(ctx: ToolContext, shown: CanvasNode, wanted: CanvasNode) -> CreateNode:
    """A new version of the picture ``shown`` that holds ``wanted``'s artifact again (0 provider calls)."""
    return CreateNode(kind="image", title=wanted.title, status=NodeStatus.COMPLETED,
                      inputs={**wanted.inputs, "restored_from": wanted.id}, outputs=list(wanted.outputs),
                      metadata={"provenance": Provenance(actor=ctx.actor, turn_id=ctx.turn_id, thread_id=ctx.thread_id,
                                                         tool="deck_undo").model_dump(exclude_none=True),
                                "outputs_folder": OUTPUTS_FOLDER})


def _superseded(node: CanvasNode, by: str) -> SetStatus:
    # Only if it is still current at commit: a turn that replaced it first makes this batch StaleVersion.
    return SetStatus(node_id=node.id, status=NodeStatus.REJECTED, reason=f"superseded by {by}",
                     expected_version=node.version)


def _same(stored: Any, spec: SlideSpec) -> bool:
    return isinstance(stored, dict) and SlideSpec.model_validate(stored) == spec


def _outline_of(canvas: CanvasReader | None, deck: Deck) -> list[str]:
    """The outline (plan) the deck's content nodes were made from, for a new slide's content to join."""
    contents = [s.content.id for s in deck.slides if s.content is not None]
    if not contents or canvas is None:
        return []
    found = canvas.neighbours_of(contents[:1], [EdgeType.GENERATED_FROM], Direction.OUT)
    return [n.node.id for n in found.get(contents[0], []) if n.node.kind == "plan"]


__all__ = ["OUTPUTS_FOLDER", "NoDeck", "NotADeck", "commit_deck", "current_decks", "find_deck", "is_deck",
           "read_deck", "restored_picture"]
