"""The version and cut playbook of the offline planner: each clause of the intent is one tool call.

The interpreter read the request into version and cut operations whose names are their tools and whose
``args`` are those tools' arguments (``nodes/understanding/readers/versions.py``, ``readers/cut.py``), and
checked them on the canvas when the turn started (``nodes/understanding/on_canvas.py``).  This playbook calls
them in order and says what each did, in words a person checks against the canvas: the version brought back
and how it was found, what was rebuilt (and whether from the cache), provider calls, the cut's new order.  A
clause already satisfied ("revert to the original" of an output that never changed) is reported, not called.
A tool's error ends the turn with its message (``failed``): nothing more is tried.
"""

from __future__ import annotations

from typing import Any

from nodes.models.playbooks import Call, Done, PlannerInput, PriorCall, stop_on_failure
from nodes.understanding.intent import Clause
from nodes.understanding.on_canvas import OPERATIONS


class VersionPlaybook:
    """Undo, revert, compare, list versions, undo a turn, and the cut operations: one call per clause."""

    def matches(self, p: PlannerInput) -> bool:
        intent = p.intent
        return (intent.clarification is None and bool(intent.clauses)
                and all(c.operation in OPERATIONS for c in intent.clauses))

    def next_step(self, p: PlannerInput) -> Call | Done:
        if (stop := stop_on_failure(p)) is not None:
            return stop
        done: list[tuple[Clause, PriorCall | None]] = []
        at = 0
        for clause in p.intent.clauses:
            if "already" in clause.modifications:
                done.append((clause, None))
                continue
            if at < len(p.calls) and p.calls[at].tool == clause.operation:
                done.append((clause, p.calls[at]))
                at += 1
                continue
            return Call(clause.operation, dict(clause.args))
        return Done(text=" ".join(describe(clause, call) for clause, call in done) + _read_as(p))


def _read_as(p: PlannerInput) -> str:
    return f" {p.intent.read_as()}" if p.intent.corrections else ""


def describe(clause: Clause, call: PriorCall | None) -> str:
    """What one clause did, from its tool's observation."""
    if call is None:
        return f"Nothing to change: {clause.modifications['already']}."
    seen = call.observation
    op = clause.operation
    if "carried_out_by" in seen:  # a page or a deck: its own undo or revert
        by = seen["carried_out_by"]
        change = (seen.get("change") or {}).get("summary") if isinstance(seen.get("change"), dict) else None
        made = seen.get("page_id") or seen.get("deck_id")
        return (f"{by['tool'].replace('_', ' ').capitalize()}: {change or clause.describe()} (a new version {made}; "
                "later changes kept).")
    if op in ("undo_change", "revert_version"):
        return (f"{seen.get('output')}: back to version {seen.get('restored_version')}, found as "
                f"{seen.get('found_by')}; it is version {seen.get('new_version')} now ({seen.get('node_id')}), "
                f"replacing version {seen.get('replaced_version')}.{_rebuilt(seen)}")
    if op == "undo_turn":
        undone = seen.get("undone") or {}
        parts = []
        if seen.get("restored"):
            parts.append("brought back " + ", ".join(str(r.get("output")) for r in seen["restored"]))
        if seen.get("set_aside"):
            parts.append(f"set aside {len(seen['set_aside'])} node(s) it made")
        if seen.get("in_place"):
            parts.append(f"restored {len(seen['in_place'])} node(s) in place")
        if seen.get("edges"):
            parts.append(f"{len(seen['edges'])} edge(s) put back")
        return (f"Undid the turn '{undone.get('request') or undone.get('turn_id')}': {'; '.join(parts) or 'done'}."
                f"{_rebuilt(seen)}")
    if op == "compare_versions":
        a, b = seen.get("a") or {}, seen.get("b") or {}
        differences = seen.get("differences") or {}
        listed = "; ".join(f"{field}: {_short(d.get('before'))} → {_short(d.get('after'))}"
                           for field, d in list(differences.items())[:8]) or "no difference in their inputs"
        picture = (seen.get("side_by_side") or {}).get("uri")
        return (f"{seen.get('output')}, version {a.get('number')} against version {b.get('number')}: {listed}"
                f"{'; the same picture' if seen.get('same_artifact') else ''}."
                + (f" Side by side: {picture}." if picture else ""))
    if op == "list_versions":
        versions = seen.get("versions") or []
        listed = ", ".join(f"{v.get('number')}{' (current)' if v.get('current') else ''}"
                           f"{': ' + repr(v.get('request')) if v.get('request') else ''}" for v in versions)
        return f"{seen.get('output')} has {len(versions)} version{'s' if len(versions) != 1 else ''}: {listed}."
    return _cut(op, seen)


def _cut(op: str, seen: dict[str, Any]) -> str:
    order = ", ".join(str(t) for t in seen.get("order") or [])
    plays = f" The cut now plays: {order}." if order else ""
    if op == "reorder_cut":
        return f"Reordered the cut.{plays}{_rebuilt(seen)}"
    if op == "remove_from_cut":
        return (f"Took {', '.join(seen.get('removed') or [])} out of the cut (still on the canvas; 'put it back' "
                f"returns it).{plays}{_rebuilt(seen)}")
    if op == "return_to_cut":
        return f"Put {seen.get('returned')} back into the cut at position {seen.get('position')}.{plays}{_rebuilt(seen)}"
    if op in ("insert_shot", "duplicate_shot"):
        shot = seen.get("shot") or {}
        how = f"a copy of {shot.get('duplicate_of')}" if op == "duplicate_shot" else "a new shot"
        place = f" at position {seen.get('position')} of the cut" if seen.get("position") else ""
        return (f"Added {shot.get('title')}, {how}, with its image and clip{place}.{plays}{_rebuilt(seen)}")
    clip = seen.get("clip") or {}
    return (f"{clip.get('title')}: {clip.get('was_s', '?')} s → {clip.get('duration_s')} s (a new version), and the cut "
            f"rebuilt.{_rebuilt(seen)}")


def _rebuilt(seen: dict[str, Any]) -> str:
    rebuilt = seen.get("rebuilt") or []
    calls = seen.get("provider_calls")
    parts = []
    if rebuilt:
        cached = sum(1 for r in rebuilt if r.get("cache_hit"))
        parts.append(f"Rebuilt {', '.join(str(r.get('title')) for r in rebuilt)} ({cached} of {len(rebuilt)} from the "
                     "cache)")
    if calls is not None:
        parts.append(f"{calls} provider call{'s' if calls != 1 else ''}")
    return (" " + "; ".join(parts) + ".") if parts else ""


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 40 else text[:12] + "…"
