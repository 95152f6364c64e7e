"""Version and cut requests checked on the canvas when the turn starts, before anything runs.

The readers (``readers/versions.py``, ``readers/cut.py``) turn words into tool calls on the facts; some answers
need the canvas itself: whether shot 3's image has a version 2, whether the turn before can be undone, whether
shot 6 is in the cut.  :func:`check_on_canvas` asks the same functions the tools use (``tools.history``,
``tools.version_tools``, ``tools.turn_undo``, ``tools.cut``), so a request that names no existing version is
answered honestly (a ``not_found`` clarification naming what there is) and never runs; one already satisfied
("revert to the original" of an output that never changed) is marked ``already`` and changes nothing.

For every clause it records, in ``Clause.modifications``, what the turn may write and must change:

* ``scope``: the smallest grant scope (``tools.write_scope.write_scope``), which the grant policy grants;
* ``expects``: the outputs (their original versions) that must get a new version, which the turn report
  measures (``nodes/understanding/measure_versions.py``); ``new_shot`` when a shot is inserted;
* ``already``: the reason nothing needs to change.
"""

from __future__ import annotations

import re
from typing import Any

from nodes.understanding.intent import Clarification, Clause, Intent
from nodes.understanding.kinds import CUT_OPERATIONS, READ_ONLY_OPERATIONS, VERSION_OPERATIONS, word_kinds
from store.base import CanvasReader
from store.errors import NodeNotFound
from tools.base import ToolError

OPERATIONS = VERSION_OPERATIONS | CUT_OPERATIONS
"""Operations whose name is the tool that carries them out and whose ``args`` are its arguments (their tools:
``nodes.understanding.kinds.OPERATION_TOOLS``)."""


class Already(Exception):
    """The request is satisfied as the canvas stands: nothing to change."""


def check_on_canvas(intent: Intent, canvas: CanvasReader) -> Intent:
    """Check each version and cut clause on the canvas and record its scope and expectations (in place)."""
    if intent.clarification is not None:
        return intent
    for clause in intent.clauses:
        if clause.operation in DECK_RESTORES:
            _deck_history(clause, canvas)
        if clause.operation == "status" and clause.args.get("status") == "rejected":
            _rejection(clause, canvas)
        if clause.operation not in OPERATIONS:
            continue
        try:
            _check(clause, canvas)
        except Already as satisfied:
            clause.modifications["already"] = str(satisfied)
        except (ToolError, NodeNotFound, ValueError) as refused:
            intent.clarification = _refused(clause, refused)
            intent.kinds = word_kinds(intent.normalised)
            return intent
        if clause.operation not in READ_ONLY_OPERATIONS and "already" not in clause.modifications:
            from tools.write_scope import write_scope

            scope = write_scope(canvas, clause.operation, clause.args)
            clause.modifications["scope"] = {"node_ids": scope.node_ids, "descendants_of": scope.descendants_of}
    return intent


DECK_RESTORES = frozenset({"deck_undo", "deck_revert"})


def _deck_history(clause: Clause, canvas: CanvasReader) -> None:
    """A deck's undo or revert may bring back a slide an earlier version listed (superseding its old node again):
    the deck target's ``writes`` (its grant scope, ``nodes.policy.content_scope``) get the deck's history's slides."""
    from tools.deck.tools import deck_scope

    for target in clause.targets:
        if target.kind != "deck":
            continue
        try:
            target.writes = list(dict.fromkeys([*target.writes, *deck_scope(canvas, target.id, history=True)]))
        except (ToolError, NodeNotFound):  # the tool says why when it runs; nothing more to grant
            continue


def _rejection(clause: Clause, canvas: CanvasReader) -> None:
    """Rejecting the current version of an output brings back its previous version, and its clip's and its cut's
    (``tools.canvas.rejection_mutations``): none of them derives from the rejected node, so each target's
    ``writes`` (its local edit's grant scope, ``nodes.policy.focus_of``) get what that rejection writes."""
    from tools.canvas import rejection_mutations

    for target in clause.targets:
        try:
            written = [m.node_id for m in rejection_mutations(canvas, target.id, "")]
        except NodeNotFound:  # the tool says why when it runs; nothing more to grant
            continue
        target.writes = list(dict.fromkeys([*target.writes, *written]))


class ShotInTheCut(ToolError):
    """A shot to put back that never left the cut, said without the cut: what else "back" may mean is asked."""


_SAID_OF_THE_CUT = re.compile(r"\b(?:cut|edit|film|movie|sequence|timeline)\b")


def _refused(clause: Clause, error: Exception) -> Clarification:
    """A request naming what the canvas does not hold: the tool's own words, and nothing done."""
    kind = type(error).__name__
    reason = "conflict" if kind in ("NamedChangeNotLast", "TurnOverwritten") else \
        "ambiguous" if kind == "ShotInTheCut" else "not_found"
    message = str(error).rstrip(".")
    return Clarification(reason=reason, understood=list(clause.understood), missing=[message],  # type: ignore[arg-type]
                         message=f"I understood {clause.describe()}, but {message}. I changed nothing.")


def _check(clause: Clause, canvas: CanvasReader) -> None:
    op, args = clause.operation, clause.args
    if op in ("undo_change", "revert_version"):
        _check_restore(clause, canvas)
    elif op == "undo_turn":
        from tools.turn_undo import check_undoable, find_turn

        changes = find_turn(canvas, turn_id=args.get("turn_id"))
        check_undoable(canvas, changes)
        clause.modifications["undoes"] = {"turn_id": changes.turn_id, "request": changes.request}
    elif op == "compare_versions":
        from tools.version_tools import CompareArgs, compare_picks

        compare_picks(canvas, CompareArgs.model_validate(args))
    elif op == "list_versions":
        from tools.history import require_output

        require_output(canvas, str(args["node_id"]))
    else:
        _check_cut(clause, canvas)


def _check_restore(clause: Clause, canvas: CanvasReader) -> None:
    from tools.changes import version_history
    from tools.deck.tools import DeckRevertArgs, DeckUndoArgs
    from tools.deck.canvas import find_deck
    from tools.history import output_of, require_output
    from tools.page.canvas import find_page
    from tools.page.tools import PageRevertArgs, PageUndoArgs
    from tools.version_tools import (
        AlreadyCurrent,
        RevertArgs,
        UndoChangeArgs,
        check_restore,
        document_call,
        document_of,
        restore_target,
    )

    schema = UndoChangeArgs if clause.operation == "undo_change" else RevertArgs
    args = schema.model_validate(clause.args)
    node = require_output(canvas, args.node_id)
    document = document_of(canvas, node)
    if document is not None:
        tool, call = document_call(canvas, document, args)
        kind, node_id = document
        head = find_page(canvas, node_id) if kind == "page" else find_deck(canvas, node_id)
        fields = {"page_undo": PageUndoArgs, "page_revert": PageRevertArgs, "deck_undo": DeckUndoArgs,
                  "deck_revert": DeckRevertArgs}[tool].model_validate(call)
        fields.target(version_history(canvas, head), kind)  # NothingToUndo, NoSuchVersion: as the tool would say
        clause.modifications["expects"] = [output_of(canvas, head.id)]
        return
    history, target, found_by = restore_target(canvas, args)
    if clause.modifications.get("named_change"):
        _named_change_is_last(history, target, str(clause.args.get("before_change")))
    try:
        check_restore(history, target, found_by)
    except AlreadyCurrent as same:
        raise Already(str(same)) from same
    clause.modifications["expects"] = [history.root_id]


class NamedChangeNotLast(ToolError):
    """"Undo the neon change" when later changes followed it: undoing it alone would drop them."""


def _named_change_is_last(history: Any, before: Any, said: str) -> None:
    """"Undo the neon change to shot 5" undoes that change only when it is the last one: an image cannot take
    back one change and keep the later ones (a page or a deck can: their tools undo one change)."""
    current = history.current
    if current is not None and current.replaced == before.number:
        return
    later = [v for v in history.chain() if v.number > before.number]
    raise NamedChangeNotLast(
        f"the change {said!r} made version {before.number + 1 if later else '?'} of {history.output}, and "
        f"{max(len(later) - 1, 0)} later change(s) followed it; taking it back alone would drop those. Say "
        f"'revert {history.output} to before {said}' to go back to version {before.number} (the later changes too), "
        f"or 'undo the last change'")


def _check_cut(clause: Clause, canvas: CanvasReader) -> None:
    from tools.cut import (
        clip_of_shot,
        current_cut,
        cut_entries,
        find_cut,
        is_position,
        locate,
        moved_by,
        neighbours_of_new_shot,
        shot_of,
        shot_ref,
    )
    from tools.history import output_of, require_output

    op, args = clause.operation, clause.args
    if op in ("insert_shot", "duplicate_shot"):
        cut = current_cut(canvas, args.get("cut_id"))
        entries = cut_entries(canvas, cut) if cut else []
        if op == "insert_shot":
            neighbours_of_new_shot(canvas, entries, args.get("after"), args.get("before"))
        else:
            clip_of_shot(canvas, shot_ref(canvas, entries, args["shot"]))
        clause.modifications["expects"] = [output_of(canvas, cut.id)] if cut else []
        clause.modifications["new_shot"] = True
        return
    cut = find_cut(canvas, args.get("cut_id"))
    entries = cut_entries(canvas, cut)
    if op == "reorder_cut":
        named = [*(args.get("swap") or []), *(args.get("order") or []),
                 *(args[k] for k in ("move", "after", "before") if args.get(k) is not None)]
        places = [locate(canvas, entries, ref).position for ref in named]
        if args.get("swap") and places[0] == places[1]:
            raise Already("both name the same shot of the cut; nothing to swap")
        if args.get("move") is not None and args.get("to") is not None:
            to = int(args["to"])
            index = to - 1 if to > 0 else len(entries) + to
            if 0 <= index < len(entries) and places[0] == index + 1:
                raise Already(f"{entries[index].label} is at that place in the cut already")
        if args.get("move") is not None and args.get("by") is not None:  # "move shot 3 up one" from the first place
            moved_by(entries, entries[places[0] - 1], int(args["by"]))
    elif op == "remove_from_cut":
        for ref in args.get("shots") or []:
            locate(canvas, entries, ref)
    elif op == "return_to_cut":
        shot = shot_of(canvas, require_output(canvas, str(args["shot"])))
        clip_of_shot(canvas, shot)
        present = next((e for e in entries if e.shot is not None and e.shot.id == shot.id), None)
        if present is not None and not _SAID_OF_THE_CUT.search(clause.text.lower()):
            # "bring back shot 3" / "put shot 3 back" with shot 3 in the cut: its earlier look, perhaps (reported
            # as "in the cut already", exit 0, with nothing done)
            raise ShotInTheCut(f"{shot.title} is in the cut already, at position {present.position}; to bring "
                               f"back its earlier look, say 'undo the last change to {shot.title}'")
        if present is not None:
            raise Already(f"{shot.title} is in the cut already, at position {present.position}")
    elif op == "set_clip_duration":
        ref = args["shot"]
        clip = locate(canvas, entries, ref).clip if is_position(ref) else \
            clip_of_shot(canvas, shot_of(canvas, require_output(canvas, str(ref))))[1]
        now = float(clip.inputs.get("duration_s") or 0)
        length = now + float(args["by_s"]) if args.get("by_s") is not None else float(args["duration_s"])
        if not 0 < length <= 60:
            raise ToolError(f"{clip.title} lasts {now:g} s; that would make it {length:g} s (a clip lasts more than "
                            "0 and at most 60 s)")
        if abs(length - now) < 1e-9:
            raise Already(f"{clip.title} lasts {length:g} s already")
        clause.modifications["expects"] = [output_of(canvas, clip.id)]
        return
    clause.modifications["expects"] = [output_of(canvas, cut.id)]
