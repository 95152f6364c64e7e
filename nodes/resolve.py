"""resolve: the request's references resolved on the canvas as it is now, and the focused view the model sees.

The request is interpreted once per turn (``nodes.understanding.turn.understand``, where the grant is derived);
this graph node runs before every model call of the turn and puts in state (``view``) what the model needs to
act without a lookup: the resolved targets with their current versions and what derives from them, the
request's ambiguities, the selection, the other nodes the request names with what they were made from, counts
by kind and status, the nodes written last, and summaries of the thread's last turns.  Compact tables, at most
``nodes.view.VIEW_BUDGET`` bytes whatever the canvas size (``bench/view.py`` measures it).

Its reads are batched: one overview statement (the canvas version, focus lineages, counts, recent nodes and the
titles of what earlier turns changed, whose summaries come from the trajectory file's last few rows, never their
steps: the observe node leaves its own version read to it when the request names no title), and the fact
statement when a target is a shot, unless the facts the turn's start read are still at the canvas version
(``TurnContext.facts``); on a canvas never written to (the start read version 0, and a version read says it still
is) the first view sends no overview at all.  A question asking to list a kind has its nodes listed by the overview
(at most ``nodes.view.LISTED_MAX``).  A turn started without an intent (a bare invocation of the graph) is interpreted
here.  A later step of the turn sends its first view again when the canvas changed only by the turn's own
commits (right after a step's commit, its answer says so; else one statement reads the version: :func:`_kept_view`
says why).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

from langgraph.runtime import Runtime

from nodes.context import TurnContext, turn_context
from nodes.grant import Grant
from nodes.menu import step_menu
from nodes.selection import selected_nodes
from nodes.state import TurnState, made_this_turn
from nodes.understanding.facts import CanvasFacts, FactsReader, read_facts
from nodes.understanding.intent import Intent
from nodes.view import (COUNTS_HEADER, LISTED_MAX, MAX_TURN_LINES, ViewReader, counts_line, fit, listed_lines,
                        read_on_the_canvas, table, values)
from store.neo4j import CanvasOverview
from store.trajectories import TrajectoryStore

RECENT = 3
LINEAGE_DEPTH = 2


class ResolveReader(ViewReader, FactsReader, Protocol):
    """The canvas reads the resolve step makes (each one statement)."""


def target_rows(intent: Intent, facts: CanvasFacts | None, nodes: dict[str, Any]) -> list[list[Any]]:
    """One row per target of every clause, with what the canvas says of it now: its status, and for a shot its
    current image with that image's version and render values and the live clip and cut made from it (a page or
    deck: the nodes an operation on it rewrites)."""
    shots = {s.id: s for s in facts.shots} if facts is not None else {}
    rows = []
    for number, clause in enumerate(intent.clauses, 1):
        for target in clause.targets:
            shot = shots.get(target.id)
            node = nodes.get(target.id)
            status = node.status.value if node is not None else ("live" if shot is not None else "-")
            if shot is not None:
                rows.append([number, target.referred_as, target.id, "shot", target.title, status, shot.image or "-",
                             shot.version or "-", values(shot.inputs) or "-", " ".join(shot.derived) or "-"])
            else:
                rows.append([number, target.referred_as, target.id, target.kind, target.title, status, "-",
                             node.version if node is not None else "-", "-", " ".join(target.writes[:6]) or "-"])
    return rows


def request_lines(intent: Intent) -> list[str]:
    """How the request was read, clause by clause, and what is ambiguous or missing (the model asks, not picks).

    An intent read on the canvas (resolved targets, a question to ask) goes to the model whole as the JSON line
    under the view (``nodes.propose``): its operations, what each phrase was read as, the question with its
    candidates and the words not understood are said there, so here only what that line leaves out (the
    references' misses).  Said in both, they were a tenth of a page edit's model call."""
    in_json_line = read_on_the_canvas(intent)
    lines = []
    for number, clause in enumerate(intent.clauses, 1):
        if not in_json_line:
            lines.append(f"{number}. {clause.operation}: {clause.describe()}")
        for reference in clause.references:
            if reference.missing:
                lines.append(f"   {number}. missing: {', '.join(reference.missing)}")
    asked = intent.clarification
    if asked is not None and not in_json_line:
        lines.append(f"ambiguous ({asked.reason}): {asked.message[:240]}")
        lines += table(["candidate", "title", "image"], [[c.get("id"), c.get("title"), c.get("image_id") or "-"]
                                                         for c in asked.candidates], limit=6)
    if intent.unused and not in_json_line:
        lines.append(f"not understood: {', '.join(intent.unused)}")
    return ["## request, read as", *lines] if lines else []


def earlier_turns(trajectories: TrajectoryStore | None, thread_id: str | None, turn_id: str | None
                  ) -> list[dict[str, Any]]:
    """The thread's last turns (besides this one) that the view sums up, from the trajectory file."""
    if trajectories is None or not thread_id:
        return []
    return trajectories.recent_turns(thread_id, MAX_TURN_LINES, besides=turn_id)


NAMED_PER_TURN = 3
"""How many of what an earlier turn changed its line names by title; the rest are counted.  A build's turn touches
everything its skill made (a page's sections and pictures, a deck's slides): named in full, an earlier build made
every later call of the thread longer than the chat baseline's (its whole transcript, on the short sessions)."""


def named_ids(turns: Sequence[dict[str, Any]]) -> list[str]:
    """The ids :func:`earlier_lines` names by title: what each of ``turns`` touched, up to :data:`NAMED_PER_TURN`;
    of a turn that touched more (a build), the first."""
    named: list[str] = []
    for turn in turns:
        ids = list(dict.fromkeys(turn.get("touched_ids") or []))
        named += ids[:NAMED_PER_TURN if len(ids) <= NAMED_PER_TURN else 1]
    return list(dict.fromkeys(named))


def earlier_lines(turns: Sequence[dict[str, Any]], titles: dict[str, str | None]) -> list[str]:
    """The thread's last turns, one line each: request → outcome, what changed (titles), never their calls
    (``titles``: of :func:`named_ids`, read with the view's overview)."""
    if not turns:
        return []
    touched = {t.get("turn_id"): list(dict.fromkeys(t.get("touched_ids") or [])) for t in turns}
    titles = {i: title or i for i, title in titles.items()}
    lines = ["## earlier turns (request -> outcome; changed)"]
    for turn in turns:
        ids = touched[turn.get("turn_id")]
        shown = NAMED_PER_TURN if len(ids) <= NAMED_PER_TURN else 1  # a build: what it made first, and a count
        named = list(dict.fromkeys(titles.get(i, i) for i in ids[:shown]))
        changed = ", ".join(named) + (f" +{len(ids) - shown}" if len(ids) > shown else "")
        lines.append(f"- {str(turn.get('request') or '')[:80]!r} -> {turn.get('outcome')}"
                     + (f"; changed: {changed}" if changed else ""))
    return lines


def filled_columns(header: list[str], rows: list[list[Any]]) -> tuple[list[str], list[list[Any]]]:
    """The table without its columns that say nothing in any row ("-": a page has no image, values or derived
    nodes of its own)."""
    kept = [i for i in range(len(header)) if any(row[i] not in ("-", None, "") for row in rows)]
    return [header[i] for i in kept], [[row[i] for i in kept] for row in rows]


def grant_line(grant: Grant | None) -> str:
    """The grant in one line: its scope and budget ("" for the whole canvas with no budget: nothing to say)."""
    if grant is None:
        return ""
    scope = "whole canvas" if grant.scope.all_nodes else (
        f"{len(grant.scope.node_ids)} nodes" + (" and what derives from them" if grant.scope.descendants_of else ""))
    spend = {k: v for k, v in grant.budget.model_dump().items() if v is not None and k in ("cost_usd", "tokens")}
    budget = "".join(f"; {k} budget {v}" for k, v in spend.items())
    if grant.scope.all_nodes and not budget:
        return ""
    return f"grant: scope {scope}{budget}"


class FocusedView(NamedTuple):
    """The focused view's text, and the canvas version it was read at."""

    text: str
    version: int


def focused_view(canvas: ResolveReader, intent: Intent, *, focus_ids: Sequence[str], selected: Sequence[str],
                 version: int | None, trajectories: TrajectoryStore | None = None, thread_id: str | None = None,
                 turn_id: str | None = None, grant: Grant | None = None, kinds: Sequence[str] = (),
                 edge_types: Sequence[str] = (), made_this_turn: Sequence[str] = (),
                 began_empty: bool = False, facts: CanvasFacts | None = None) -> FocusedView:
    """The focused view: compact tables of what the request is about, at most ``VIEW_BUDGET`` bytes
    (``version``: the canvas version just read; None: the overview statement reads it).

    ``made_this_turn``: nodes this turn's own steps (and its skills' steps) wrote.  Their ids come back in the
    steps' tool results, which every later call of the turn sends, so the view does not list them, or read their
    lineage, a second time (a 24-shot storyboard's nodes would otherwise fill every later call's tables);
    targets keep their rows, and the counts count everything.  ``began_empty``: the turn began on an empty canvas,
    so every node on it is one of its own steps' (their results say what they made): no counts.  ``facts``: the
    facts the turn's start read; reused for the target rows while the canvas is still at the version they were
    read at, read again otherwise.
    """
    made = set(made_this_turn)
    focus_ids = [i for i in focus_ids if i not in made]  # neither listed nor their lineage read
    turns = earlier_turns(trajectories, thread_id, turn_id)
    listed_kind = asked_to_list(intent)
    if version is None and not made and facts is not None and facts.canvas_version == 0 \
            and canvas.canvas_version() == 0:
        # The turn's first view, on a canvas nothing was ever committed to (its start read it so, and no one has
        # written since): nothing to count, list or trace, so the overview statement is not sent (on a project's
        # first turn it is also the engine's first, and parsing it cold costs tens of milliseconds).
        seen = CanvasOverview(lineages={}, counts=[], recent=[], version=0, titles={} if turns else None,
                              listed=[] if listed_kind else None)
    else:
        seen = canvas.overview(list(focus_ids), max_depth=LINEAGE_DEPTH,
                               since_version=None if version is None else max(0, version - 4 * RECENT),
                               recent=RECENT, within=4 * RECENT, named=named_ids(turns),
                               listed_kind=listed_kind, listed_limit=LISTED_MAX + 1)
    version = (seen.version or 0) if version is None else version
    nodes = {entries[0].node.id: entries[0].node for entries in seen.lineages.values() if entries}
    shot_targets = any(t.kind == "shot" for c in intent.clauses for t in c.targets)
    if not shot_targets:
        facts = None
    elif facts is None or facts.canvas_version is None or facts.canvas_version != version:
        facts = read_facts(canvas)
    total = sum(count for _, _, count in seen.counts)
    sections: list[list[str]] = [[f"canvas version {version}: {total} live nodes",
                                  *([line] if (line := grant_line(grant)) else [])]]
    if read := request_lines(intent):
        sections.append(read)
    rows = target_rows(intent, facts, nodes)
    if rows:
        sections.append(["## targets (resolved now: no lookup needed)", *table(*filled_columns(
            ["clause", "said", "id", "kind", "title", "status", "image (what changes)", "v", "values",
             "derived (rebuilt with it)"], rows), limit=20)])
    # The targets, their images and what derives from them are shown in their rows (a turn's new versions too).
    target_ids = {r[2] for r in rows} | {r[6] for r in rows} | {i for r in rows for i in str(r[9]).split()}
    chosen = [n for n in (nodes.get(i) for i in selected) if n is not None and n.id not in target_ids]
    if chosen:  # a selected target is in its row already ("the selected page")
        sections.append(["## selection", *table(["id", "kind", "title", "status"], [
            [n.id, n.kind, n.title, n.status.value] for n in chosen])])
    # Superseded and rejected versions are history: a model finds them with list_versions when it asks.
    others = [i for i in focus_ids if i not in target_ids and i not in selected and i in nodes
              and nodes[i].status.value != "rejected"]
    if others:
        sections.append(["## other nodes the request names", *table(
            ["id", "kind", "title", "v", "status"],
            [[i, nodes[i].kind, nodes[i].title, nodes[i].version, nodes[i].status.value] for i in others])])
    made_from: dict[str, list[Any]] = {}  # each upstream node once, nearest first: what the focus was made from
    derived = {i for r in rows for i in str(r[9]).split()}
    # What resolved targets were made from is not what their edit changes (read_lineage shows it when asked).
    for root, entries in ([] if rows else seen.lineages.items()):
        if root in derived:  # a clip or cut rebuilt with a target is made from the other shots' clips too
            continue
        for e in entries[1:]:
            if e.node.id not in target_ids and e.node.kind not in ("group", "plan", "shot") \
                    and e.node.status.value != "rejected":
                made_from.setdefault(e.node.id, [root, e.node.id, e.node.kind, e.node.title, e.node.status.value])
    if made_from:
        sections.append(["## made from (references, sources)", *table(["of", "id", "kind", "title", "status"],
                                                                        list(made_from.values()), limit=4,
                                                                        more="read_lineage")])
    if listed_kind and seen.listed is not None and (listed := listed_lines(listed_kind, seen.listed)):
        sections.append(listed)
    if seen.counts and not began_empty:  # on a turn that began empty, every node counted is in its own results
        sections.append([COUNTS_HEADER, counts_line(seen.counts)])
    recent = [n for n in seen.recent if n.status.value != "rejected" and n.id not in made]
    if recent and not rows:  # with resolved targets, what was written last is beside the point
        sections.append(["## written last", *table(["id", "kind", "title", "status"], [
            [n.id, n.kind, n.title, n.status.value] for n in recent])])
    earlier = earlier_lines(turns, seen.titles or {})
    if earlier:
        sections.append(earlier)
    if (kinds or edge_types) and not rows:  # for writing a query or a node; an edit of resolved targets needs none
        sections.append([f"node kinds: {', '.join(kinds)}", f"edge types: {', '.join(edge_types)}"])
    return FocusedView(fit(sections), version)


def asked_to_list(intent: Intent) -> str | None:
    """The kind a request asks to have listed ("list the slides"), when that is all it asks: the view then lists
    them itself (one model call: the answer), as it counts them for "how many"."""
    clauses = intent.clauses
    if len(clauses) != 1 or clauses[0].operation != "question" or clauses[0].args.get("ask") != "list":
        return None
    kind = clauses[0].args.get("kind")
    return str(kind) if kind else None


def view_for(deps: TurnContext, state: TurnState, intent: Intent) -> FocusedView:
    """The focused view of ``state``'s step, read now (with the canvas version, when observe left it to this
    read: ``seen_version`` None)."""
    grant = deps.bridge.grants.get(state["grant_id"]) if state.get("grant_id") else None
    # The kinds and edge types are for writing a query: not shown when no query tool is offered this step
    # (nodes.menu: no canvas reads on a turn that began on an empty canvas, nor for a resolved edit).
    queries = int(state.get("canvas_before") or 0) > 0 and (grant is None or "query_canvas" in step_menu(
        deps.bridge.manifest, grant, intent, state).offered)
    return focused_view(deps.bridge.store, intent, focus_ids=state.get("focus_ids") or [],
                        selected=selected_nodes(state.get("selected_ids") or []), version=state.get("seen_version"),
                        trajectories=deps.trajectories, thread_id=state.get("thread_id"),
                        turn_id=state.get("turn_id"), grant=grant,
                        kinds=[k.name for k in deps.bridge.manifest.kinds] if queries else (),
                        edge_types=deps.bridge.manifest.edge_types if queries else (),
                        made_this_turn=made_this_turn(state),
                        began_empty=state.get("canvas_before") is not None and int(state["canvas_before"]) == 0,
                        facts=deps.facts)


def resolve(state: TurnState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    """The resolve graph node (between observe and propose)."""
    if state.get("queued_calls"):  # the rest of one model message: no model call follows, so no view
        return {}
    deps = turn_context(runtime)
    update: dict[str, Any] = {}
    intent = state.get("intent")
    if not intent:
        from nodes.understanding.turn import understand

        intent = understand(deps.bridge.store, state["request"], state.get("selected_ids") or [],
                            log=deps.trajectories, thread_id=state.get("thread_id"),
                            skills=deps.bridge.manifest.skills).summary()
        update["intent"] = intent
    kept = _kept_view(deps, state, intent)
    if kept is not None:
        update["view"] = kept
        return update
    seen = view_for(deps, state, Intent.model_validate(intent))
    update["view"] = seen.text
    deps.extra[_KEPT] = (_view_key(state, intent), seen.text)
    if state.get("seen_version") is None:  # observe left the version to this read (nodes.observe)
        update.update(canvas_version=seen.version, seen_version=seen.version)
        if state.get("canvas_before") is None:  # the turn's first step
            update["canvas_before"] = seen.version
    return update


_KEPT = "resolve.turn_view"
"""Where the turn's first view is kept for its later steps (the runtime's ``TurnContext.extra``, this process
only: a resumed turn in another process reads its view again)."""


def _view_key(state: TurnState, intent: dict[str, Any]) -> tuple[str, str]:
    """Whose view it is: the turn, read as this intent (a person's answer re-reads it, and the view with it)."""
    return str(state.get("turn_id")), json.dumps(intent, sort_keys=True, default=str)


def _kept_view(deps: TurnContext, state: TurnState, intent: dict[str, Any]) -> str | None:
    """The turn's first view again, for a later step, when the canvas changed only by the turn's own commits.

    A later step's model call sends the earlier steps' tool results, which say what those steps made and changed,
    so a view read again would repeat them in other words, at the cost of its reads (the overview, the shots'
    facts, the earlier turns' summaries: about as much as the rest of the harness spends on a local edit's
    reply step).  Any other writer's commit since the turn's last commit (another turn, a person on the web
    canvas) and the view is read again.  A skill's steps commit through the bridge inside one step of the turn
    (``Usage.committed_version`` says where they left the canvas): those are the turn's own commits too, and its
    tool result says what they made.  When the step just before made the turn's last commit, its answer gave the
    canvas version a moment ago (the loop came here straight from it: :func:`_just_committed`) and nothing is
    read; else one statement reads the canvas version.  No permission rests on what the view says: the validate
    and commit checks read the canvas itself."""
    if not state.get("steps"):
        return None
    kept = deps.extra.get(_KEPT)
    if kept is None or kept[0] != _view_key(state, intent):
        return None
    # The turn's last commit: its steps' (the commit graph node's) or its skills' inner steps' (Bridge.submit).
    versions = [int(v) for v in (state.get("canvas_version"), (state.get("usage") or {}).get("committed_version"))
                if v is not None]
    if not versions:
        return None
    ours = max(versions)
    if not (_just_committed(deps, state, ours) or deps.bridge.store.canvas_version() == ours):
        return None
    return kept[1]


def _just_committed(deps: TurnContext, state: TurnState, ours: int) -> bool:
    """Whether the step just before made the turn's last commit (``ours``), in this process (its newest commit; a
    replay's or a process's before a restart is not): a step that committed nothing may have run for a while (a
    long tool, a person's answer), and the version is read."""
    step_commit = (state["steps"][-1] or {}).get("commit") or {}
    if step_commit.get("canvas_version") != ours or step_commit.get("replayed"):
        return False
    logged = deps.bridge.store.own_commits(ours - 1)
    return logged is not None and [r.canvas_version for r in logged[0]] == [ours]
