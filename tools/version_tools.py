"""The version tools a model calls: list, undo, revert, undo a turn, compare (docs/versions.md).

* ``list_versions``: an output's versions, numbered, with what each changed and the request that made it;
* ``undo_change``: the output back to the version its current one replaced (``steps`` changes back);
* ``revert_version``: the output back to its original, version N, a version node, the version before a named
  change, or the version current at a time;
* ``undo_turn``: everything the last turn (of a thread, or of the project) changed, back as it was;
* ``compare_versions``: what differs between two versions' inputs, and a side-by-side picture.

Restores go through :class:`tools.restore.VersionBatch`: a new version holding the earlier content (0 provider
calls), what was generated from the output rebuilt through the signature cache.  A request that names no
existing version is a typed error the model sees (:class:`~tools.history.NoSuchVersion`,
:class:`~tools.history.NotAVersionOf`, :class:`~tools.turn_undo.NoTurnToUndo`, ...); nothing is written.

A web page and a slide deck are documents: ``undo_change`` and ``revert_version`` on one (its code node, its
preview or HTML file; the deck or one of its slides) are carried out by the page's and the deck's own tools
(``page_undo`` / ``page_revert``, ``deck_undo`` / ``deck_revert``: :func:`document_of`), which take back one
change and keep the later ones, rewrite the HTML and the preview, and rebuild the .pptx, so the generic words
and the specific tools do the same thing to a page or a deck.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from store.base import CanvasReader
from store.models import Direction, EdgeType, NodeStatus
from store.mutations import Link, SetStatus
from tools.base import Effect, ToolContext, ToolError, ToolFamily, ToolResult, ToolSpec
from tools.compare import side_by_side
from tools.history import (
    NoSuchVersion,
    OutputHistory,
    OutputVersion,
    VersionSelector,
    changes_between,
    output_history,
    previous_version,
    require_output,
    select_version,
)
from tools.restore import VersionBatch
from tools.turn_undo import find_turn, undo_turn

DocumentKind = Literal["page", "deck"]


class AlreadyCurrent(ToolError):
    """The version asked for is the current one already; nothing to restore."""


def _reader(ctx: ToolContext) -> CanvasReader:
    if ctx.canvas is None:
        raise ToolError("the version tools need the canvas")
    return ctx.canvas


def _history(ctx: ToolContext, node_id: str) -> OutputHistory:
    canvas = _reader(ctx)
    require_output(canvas, node_id)
    return output_history(canvas, node_id)


# -- list_versions --------------------------------------------------------------------------------------

class ListVersionsArgs(BaseModel):
    """Arguments of ``list_versions``."""

    node_id: str = Field(description="Any version of the output (an image, clip, cut, page, slide, deck, note)")


def _list_versions(ctx: ToolContext, args: ListVersionsArgs) -> ToolResult:
    history = _history(ctx, args.node_id)
    return ToolResult(observation={**history.summary(), "history": [v.number for v in history.chain()]})


# -- restoring ------------------------------------------------------------------------------------------

def restore_version(ctx: ToolContext, history: OutputHistory, target: OutputVersion, found_by: str) -> ToolResult:
    """Make ``target`` the output's current version again (a new version with its content), and rebuild what
    was generated from the output on it."""
    canvas = _reader(ctx)
    check_restore(history, target, found_by)
    current = history.current
    state = history.state(target.number)
    batch = VersionBatch(ctx, canvas, reason=f"restore of version {target.number} of {history.output}")
    restored = {"number": target.number}
    copies = {}
    if current is None:
        # Every version was set aside: the newest one takes the restored content, and is current again.
        newest = canvas.get_node(history.versions[-1].node_id)
        if newest.id == state.id and (state.title, state.inputs, state.outputs) == (
                newest.title, newest.inputs, newest.outputs):
            batch.mutations.append(SetStatus(node_id=newest.id, status=NodeStatus.COMPLETED,
                                             reason=f"made current again ({batch.reason})"))
            node_id = newest.id
        else:
            node_id = batch.copy_version(state, None, restored=restored)
            batch.mutations.append(Link(type=EdgeType.VERSION_OF, source=node_id, target=newest.id))
    else:
        head = canvas.get_node(current.node_id)
        if head.id == state.id:
            batch.update_in_place(state, head, restored=restored)
            node_id = head.id
        else:
            node_id = batch.copy_version(state, head, restored=restored)
            copies[head.id] = state
    batch.rebuild_derived(copies)
    return batch.result({"output": history.output, "restored_version": target.number, "found_by": found_by,
                         "node_id": node_id, "new_version": len(history.versions) + 1,
                         "replaced_version": current.number if current else None})


def check_restore(history: OutputHistory, target: OutputVersion, found_by: str) -> None:
    """:class:`AlreadyCurrent` when the version asked for is, or holds what, the current one holds."""
    current = history.current
    if current is not None and current.number == target.number:
        raise AlreadyCurrent(f"{found_by} of {history.output} is its current version already; nothing to restore")
    if current is not None and _held(history.state(target.number)) == _held(history.state(current.number)):
        raise AlreadyCurrent(f"{found_by} of {history.output} holds what its current version {current.number} "
                             f"holds already; nothing to restore")


class UndoChangeArgs(BaseModel):
    """Arguments of ``undo_change``."""

    node_id: str = Field(description="Any version of the output whose last change to undo")
    steps: int = Field(default=1, ge=1, le=50, description="How many changes back (1: the last change only)")


def _held(state: Any) -> tuple[Any, ...]:
    """What a version holds, for telling whether a restore would change anything."""
    inputs = {k: v for k, v in state.inputs.items() if k != "intent"}
    return state.title, json.dumps(inputs, sort_keys=True, default=str), tuple(h.sha256 for h in state.outputs)


def _undo_change(ctx: ToolContext, args: UndoChangeArgs) -> ToolResult:
    canvas = _reader(ctx)
    document = document_of(canvas, require_output(canvas, args.node_id))
    if document is not None:
        return _document_restore(ctx, document, args)
    return restore_version(ctx, *restore_target(canvas, args))


class RevertArgs(VersionSelector):
    """Arguments of ``revert_version``: the output, and exactly one way to say which version."""

    node_id: str = Field(description="Any version of the output to revert")


def _revert(ctx: ToolContext, args: RevertArgs) -> ToolResult:
    canvas = _reader(ctx)
    document = document_of(canvas, require_output(canvas, args.node_id))
    if document is not None:
        return _document_restore(ctx, document, args)
    return restore_version(ctx, *restore_target(canvas, args))


# -- pages and decks: their own undo and revert ------------------------------------------------------------

def document_of(canvas: CanvasReader, node: Any) -> tuple[DocumentKind, str] | None:
    """('page', code node id) for a web page's code node, preview or HTML file; ('deck', deck id) for a slide
    deck or one of its slides; None for any other output."""
    from tools.deck.canvas import is_deck
    from tools.page.canvas import is_page

    if is_page(node):
        return "page", node.id
    if is_deck(node):
        return "deck", node.id
    if node.kind == "slide":
        owner = node.metadata.get("deck_id") or node.group_id
        return ("deck", str(owner)) if owner else None
    if node.kind == "file" or (node.kind == "image" and node.provenance.tool == "render_page"):
        made_from = [n.node for n in canvas.neighbours(node.id, [EdgeType.GENERATED_FROM]) if is_page(n.node)]
        return ("page", made_from[0].id) if made_from else None
    return None


def document_call(canvas: CanvasReader, document: tuple[DocumentKind, str],
                  args: UndoChangeArgs | RevertArgs) -> tuple[str, dict[str, Any]]:
    """The page or deck tool, and its arguments, that carry out an ``undo_change`` or ``revert_version`` call
    on a page or a deck.

    One change back is that tool's undo (the last change not yet taken back; later ones stay); N changes back,
    a version number, a version's id or a time are a revert to that version of the history; "before a change"
    is the tool's own search of its change records.
    """
    from tools.changes import version_history
    from tools.deck.canvas import find_deck
    from tools.page.canvas import find_page

    kind, node_id = document
    head = find_page(canvas, node_id) if kind == "page" else find_deck(canvas, node_id)
    where = {f"{kind}_id": head.id}
    if isinstance(args, UndoChangeArgs):
        if args.steps == 1:
            return f"{kind}_undo", where
        versions = version_history(canvas, head)
        if args.steps >= len(versions):
            raise NoSuchVersion(f"the {kind} has only {len(versions) - 1} earlier version(s) in its history; "
                                f"cannot go back {args.steps}")
        return f"{kind}_revert", {**where, "to": versions[args.steps].node.id}
    if args.before_change is not None:
        return f"{kind}_revert", {**where, "before_change": args.before_change}
    if args.original:
        return f"{kind}_revert", {**where, "to": "original"}
    if args.version is not None:
        return f"{kind}_revert", {**where, "to": str(args.version)}
    if args.version_id is not None:
        return f"{kind}_revert", {**where, "to": args.version_id}
    history = output_history(canvas, head.id)
    found, _ = select_version(history, VersionSelector(at=args.at))
    return f"{kind}_revert", {**where, "to": found.node_id}


def _document_restore(ctx: ToolContext, document: tuple[DocumentKind, str],
                      args: UndoChangeArgs | RevertArgs) -> ToolResult:
    from tools.deck.tools import DECK_REVERT, DECK_UNDO
    from tools.page.tools import PAGE_REVERT, PAGE_UNDO

    tool, call = document_call(_reader(ctx), document, args)
    spec = {t.name: t for t in (PAGE_UNDO, PAGE_REVERT, DECK_UNDO, DECK_REVERT)}[tool]
    result = spec.run(ctx, call)
    return result.model_copy(update={"observation": {**result.observation, "carried_out_by": {"tool": tool,
                                                                                               "args": call}}})


def restore_target(canvas: CanvasReader, args: UndoChangeArgs | RevertArgs) -> tuple[OutputHistory, OutputVersion, str]:
    """The output, the version an ``undo_change`` or ``revert_version`` call brings back, and how it was found."""
    node = require_output(canvas, args.node_id)
    history = output_history(canvas, args.node_id)
    try:
        if isinstance(args, UndoChangeArgs):
            target = previous_version(history, args.steps)
            said = "the last change" if args.steps == 1 else f"the last {args.steps} changes"
            return history, target, f"version {target.number} (before {said})"
        target, found_by = select_version(history, VersionSelector.model_validate(args.model_dump(exclude={"node_id"})))
        return history, target, found_by
    except NoSuchVersion as missing:
        made = _made_from(canvas, node)
        if not made:
            raise
        raise NoSuchVersion(f"{missing}; what was made from {node.title or node.id} has its own versions: "
                            f"{made}") from missing


def _made_from(canvas: CanvasReader, node: Any) -> str:
    """The outputs generated from a node (a shot's image and clip), named for a model that picked the shot."""
    made = [n.node for n in canvas.neighbours(node.id, [EdgeType.GENERATED_FROM], Direction.IN)
            if n.node.outputs and n.node.status != NodeStatus.REJECTED]
    return ", ".join(f"{n.title or n.kind} ({n.id})" for n in made[:6])


class UndoTurnArgs(BaseModel):
    """Arguments of ``undo_turn``."""

    thread_id: str | None = Field(default=None, description="Undo the last turn of this thread (default: the "
                                                             "last turn of the whole project that changed it)")
    turn_id: str | None = Field(default=None, description="Undo this recorded turn instead of the last one")


def _undo_turn(ctx: ToolContext, args: UndoTurnArgs) -> ToolResult:
    canvas = _reader(ctx)
    changes = find_turn(canvas, thread_id=args.thread_id, turn_id=args.turn_id, exclude=ctx.turn_id)
    return undo_turn(ctx, canvas, changes)


# -- compare --------------------------------------------------------------------------------------------

class CompareArgs(BaseModel):
    """Arguments of ``compare_versions``."""

    node_id: str = Field(description="Any version of the output")
    a: int | str = Field(default="previous", description="A version number, a version's node id, or 'original', "
                                                         "'previous' (the one the current version replaced), 'current'")
    b: int | str = Field(default="current", description="The other version, named the same ways")


def _pick(history: OutputHistory, ref: int | str) -> OutputVersion:
    if isinstance(ref, int) or (isinstance(ref, str) and ref.isdigit()):
        return history.version(int(ref))
    word = ref.strip().lower()
    if word == "original":
        return history.versions[0]
    if word == "current":
        if history.current is None:
            raise NoSuchVersion(f"{history.output} has no current version (every version was set aside)")
        return history.current
    if word == "previous":
        return previous_version(history, 1)
    return history.of_node(ref.strip())


def compare_picks(canvas: CanvasReader, args: CompareArgs) -> tuple[OutputHistory, OutputVersion, OutputVersion]:
    """The output's history and the two versions a ``compare_versions`` call names (:class:`NoSuchVersion`)."""
    require_output(canvas, args.node_id)
    history = output_history(canvas, args.node_id)
    return history, _pick(history, args.a), _pick(history, args.b)


def _compare(ctx: ToolContext, args: CompareArgs) -> ToolResult:
    history, first, second = compare_picks(_reader(ctx), args)
    a_state, b_state = history.state(first.number), history.state(second.number)
    observation: dict[str, Any] = {
        "output": history.output,
        "a": _brief(first), "b": _brief(second),
        "differences": changes_between(a_state, b_state),
        "same_artifact": first.sha256 is not None and first.sha256 == second.sha256,
    }
    if a_state.outputs and b_state.outputs:
        picture = side_by_side(ctx.artifacts, (a_state.outputs[0], f"version {first.number}"),
                               (b_state.outputs[0], f"version {second.number}"))
        if picture is not None:
            observation["side_by_side"] = picture.model_dump(mode="json", exclude_none=True)
    return ToolResult(observation=observation)


def _brief(version: OutputVersion) -> dict[str, Any]:
    return version.model_dump(mode="json", include={"number", "node_id", "title", "at", "sha256", "request",
                                                    "current", "status"}, exclude_none=True)


# -- the specs ------------------------------------------------------------------------------------------

_RESTORES = frozenset({Effect.MUTATES_CANVAS, Effect.GENERATES_MEDIA, Effect.COST_BEARING})
"""A restore writes the canvas and rebuilds media through the cache: usually no provider call, but a combination
never generated before (a clip whose length changed since the image was replaced) is paid for."""

LIST_VERSIONS = ToolSpec(
    "list_versions", ToolFamily.RECOVERY,
    "List every version of an output (image, clip, cut, page, slide, deck, note): numbers, which is current, what "
    "each changed and the request that made it.", ListVersionsArgs, frozenset({Effect.READ_ONLY}), _list_versions)
UNDO_CHANGE = ToolSpec(
    "undo_change", ToolFamily.RECOVERY,
    "Undo the last change to an output (steps=N: the last N): the version it replaced becomes current again, as a "
    "new version; what was made from it (clip, cut) is rebuilt from the cache.", UndoChangeArgs, _RESTORES,
    _undo_change)
REVERT_VERSION = ToolSpec(
    "revert_version", ToolFamily.RECOVERY,
    "Revert an output to one earlier version: original=true, version=N, version_id, before_change='<words of the "
    "change>' or at='<time: ISO, yesterday, this morning, 2 hours ago>'. Reuses the stored artifact; rebuilds what "
    "derives from it.", RevertArgs, _RESTORES, _revert)
UNDO_TURN = ToolSpec(
    "undo_turn", ToolFamily.RECOVERY,
    "Undo the whole last turn (of thread_id, or of the project): every output it changed goes back to how it was "
    "before it, what it made is set aside; undoing an undo redoes.", UndoTurnArgs, _RESTORES, _undo_turn)
COMPARE_VERSIONS = ToolSpec(
    "compare_versions", ToolFamily.RECOVERY,
    "Compare two versions of an output: what differs in their inputs, and a side-by-side picture (artifact) for "
    "images and clips. Changes nothing.", CompareArgs, frozenset({Effect.READ_ONLY}), _compare)

VERSION_TOOLS: tuple[ToolSpec, ...] = (LIST_VERSIONS, UNDO_CHANGE, REVERT_VERSION, UNDO_TURN, COMPARE_VERSIONS)
"""The version tools, for the manifest."""
