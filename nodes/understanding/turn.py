"""Understanding at the start of a turn: the facts read, the turn before found, the request interpreted.

Called once per turn where the grant is derived (``Runtime.start_state``, the LangGraph server's ``begin``
through it), and again only when a person answers the turn's question (the propose node re-reads with the
answer).  The intent goes into the turn state as small JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from nodes.understanding.facts import CanvasFacts, FactsReader, read_facts
from nodes.understanding.intent import Intent, Target
from nodes.understanding.on_canvas import DECK_RESTORES, OPERATIONS, check_on_canvas
from nodes.understanding.pipeline import interpret
from nodes.understanding.readers import PreviousTurn


class TurnLog(Protocol):
    """The trajectory store's one read the interpreter needs."""

    def last_turn(self, thread_id: str | None = None) -> dict[str, Any] | None: ...


class TitleReader(FactsReader, Protocol):
    """Facts plus the title lookup quoted titles need."""

    def titled(self, groups: Sequence[Sequence[str]], *, limit: int = 3) -> tuple[int, list[list[str]]]: ...


def previous_turn(log: TurnLog | None, thread_id: str | None) -> PreviousTurn:
    """The turn "that" and "the same" refer to: the thread's last finished turn, else the project's."""
    if log is None:
        return PreviousTurn()
    body = (log.last_turn(thread_id) if thread_id else None) or log.last_turn(None)
    if not body:
        return PreviousTurn()
    intent = body.get("intent") or {}
    clauses = intent.get("clauses") or []
    targets = [t["id"] for c in clauses for t in c.get("targets") or [] if t.get("id")]
    return PreviousTurn(turn_id=body.get("turn_id"), request=str(body.get("request") or ""),
                        targets=list(dict.fromkeys(targets)), clauses=clauses,
                        touched=list(body.get("touched_ids") or []))


def understand(store: TitleReader, request: str, selected: Sequence[str] = (), *, log: TurnLog | None = None,
               thread_id: str | None = None, answer: str | None = None, skills: Sequence[Any] = ()) -> Intent:
    """The turn's intent: one fact read, one title lookup when the request quotes a title, no query per
    reference."""
    return understand_on(read_facts(store, selected), store, request, log=log, thread_id=thread_id, answer=answer,
                         skills=skills)


def understand_on(facts: CanvasFacts, store: TitleReader, request: str, *, log: TurnLog | None = None,
                  thread_id: str | None = None, answer: str | None = None, skills: Sequence[Any] = ()) -> Intent:
    """:func:`understand` on facts already read (``Runtime.start_state`` keeps them for the turn's first view)."""
    intent = interpret(request, facts, previous=previous_turn(log, thread_id), answer=answer, skills=skills)
    quoted = [r for c in intent.clauses for r in c.references if r.form == "title" and not r.target_ids]
    if quoted:
        _, found = store.titled([[r.said, r.said.lower(), r.said.capitalize()] for r in quoted])
        for reference, ids in zip(quoted, found):
            reference.target_ids = ids[:1]
        for clause in intent.clauses:
            for reference in clause.references:
                for node_id in reference.target_ids:
                    if reference.form in ("title", "id") and node_id not in {t.id for t in clause.targets}:
                        clause.targets.append(Target(id=node_id, kind="node", referred_as=reference.said))
    if any(c.operation in OPERATIONS or c.operation in DECK_RESTORES or c.operation == "status" for c in intent.clauses):
        check_on_canvas(intent, store)  # type: ignore[arg-type]  # the version asked for exists; the scope
    return intent
