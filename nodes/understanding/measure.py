"""A turn's report, measured: the change set of its commits compared with its intent.

After the turn's last commit, the outputs it changed (live new versions, by lineage: a new version of shot
3's image is shot 3's image changed) are compared with what the intent asked (targets × modifications):

* an edit must give every target that did not already have the change a new current image, and change
  nothing outside the targets' images and what derives from them (their clips, the cut);
* a question changes nothing;
* a note adds a text node, and text nodes only;
* a page or deck operation makes a new version of the same page or deck and changes nothing else
  (:func:`measure_content`).

A mismatch makes the turn ``failed`` whatever the model replied (the offline planner's and a real model's
replies alike), and the reply says what differs.  Other operations, and a request the interpreter could not
read (which a real model may still carry out), report their change set unchecked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from content.page_style import SPACING
from nodes.models.grammar import EditRequest
from nodes.understanding.facts import json_object
from nodes.understanding.intent import Clause, Intent
from nodes.understanding.kinds import CONTENT_OPERATIONS, OPERATION_TOOLS, clauses_by_family
from nodes.understanding.measure_builds import BUILD_OPERATIONS, measure_build
from nodes.understanding.measured import Measured
from store.cypher import FixedCypher
from store.models import CanvasNode, CommitRecord
from tools.changes import Change
from tools.staleness import REGENERABLE_TOOLS

DELIVERABLE_KINDS = ("image", "video", "audio", "web", "slide", "deck", "code", "file")
CHANGED = FixedCypher(  # by id through the id index: ``WHERE n.id IN $ids`` before these matches scanned
    # Each list is collected before the next match: matched together, a cut's rows were its earlier versions
    # times what it was made from times what references it (0.7-2.5 s after 80 edits, 50-70 ms collected apart).
    "UNWIND $ids AS changed MATCH (n:CanvasNode {id: changed}) "
    "OPTIONAL MATCH (n)-[:VERSION_OF*1..]->(a:CanvasNode) "
    "WITH n, collect(DISTINCT a.id) AS ancestors "
    "OPTIONAL MATCH (r:CanvasNode)-[:REFERENCES]->(n) "
    "WITH n, ancestors, collect(DISTINCT r.id) AS referenced_by "
    "OPTIONAL MATCH (n)-[:GENERATED_FROM]->(f:CanvasNode) "
    "RETURN n.id AS id, n.kind AS kind, n.title AS title, n.status AS status, n.group_id AS grp, "
    "CASE WHEN n.kind IN ['code', 'deck'] THEN n.inputs_json ELSE null END AS inputs, "
    "ancestors, referenced_by, collect(DISTINCT f.id) AS made_from")

STALE_LEFT = FixedCypher(
    "MATCH (n:CanvasNode) WHERE n.status = 'stale' AND (n.deleted IS NULL OR n.deleted = false) "
    "OPTIONAL MATCH (v:CanvasNode)-[:VERSION_OF*1..]->(n) "
    "WHERE v.status <> 'rejected' AND (v.deleted IS NULL OR v.deleted = false) "
    "RETURN n.id AS id, n.kind AS kind, n.title AS title, n.metadata_json AS metadata, count(v) AS newer")
"""Stale nodes, with how many live newer versions each has (a stale node a newer version replaced is history)."""


class CommitsReader(Protocol):
    """The store reads a measurement makes."""

    def commits(self, *, since_version: int = 0, limit: int | None = None) -> list[Any]: ...

    def fixed_read(self, cypher: FixedCypher, **params: Any) -> list[dict[str, Any]]: ...


WRITTEN_ENOUGH = frozenset({"note", "question"})
"""Operations measured by the kind, title and status of what the turn wrote, no lineage: its commits say them."""


def turn_commits(store: CommitsReader, *, since: int, thread_id: str, turn_id: str,
                 own: Sequence[CommitRecord] | None = None) -> list[CommitRecord]:
    """The turn's own commits (other turns' commits in between are not its doing); ``own``: every commit of the
    turn is among these (this process's, nodes/record.py), so the commit log is not read."""
    commits = own if own is not None else store.commits(since_version=since)
    return [c for c in commits if c.thread_id == thread_id and str(c.action_id or "").startswith(turn_id)]


def written_rows(commits: Sequence[CommitRecord]) -> list[dict[str, Any]] | None:
    """The nodes the commits wrote, as the last of them left each (id, kind, title, status: what a note or a
    question is measured by), a node one removed left out, as :data:`CHANGED` would find them; None when a commit
    does not say what it wrote (one whose answer was lost and came back as a replay)."""
    latest: dict[str, CanvasNode | None] = {}
    for commit in commits:
        written = commit.written
        if written is None or set(commit.node_ids) - {n.id for n in written.nodes} - set(written.hard_deleted):
            return None
        for node in written.nodes:
            latest[node.id] = node
        for gone in written.hard_deleted:
            latest[gone] = None
    return [{"id": n.id, "kind": n.kind, "title": n.title, "status": n.status.value, "grp": n.group_id}
            for n in latest.values() if n is not None]


def measure(store: CommitsReader, intent: Intent, *, since: int, thread_id: str, turn_id: str,
            satisfied: Sequence[dict[str, Any]] = (), own: Sequence[CommitRecord] | None = None) -> Measured:
    """The turn's change set compared with its intent (two reads: its commits, the nodes with their lineage).

    ``satisfied``: the tool calls (``{"tool", "args"}``) this turn's tools answered "already so"
    (:class:`tools.changes.NothingToChange`, read from its steps): a page or deck operation one of them carries
    out is not expected to make a version.  ``own``: the commits this process made since ``since`` when every
    commit of the turn is among them (nodes/record.py): the commit log is not read, nor, for a note or a question
    (:data:`WRITTEN_ENOUGH`), the nodes."""
    operations = {c.operation for c in intent.clauses}
    commits = turn_commits(store, since=since, thread_id=thread_id, turn_id=turn_id, own=own)
    ids = list(dict.fromkeys(i for commit in commits for i in commit.node_ids))
    written = written_rows(commits) if own is not None and operations and operations <= WRITTEN_ENOUGH else None
    rows = written if written is not None else store.fixed_read(CHANGED, ids=ids) if ids else []
    live = [r for r in rows if r["kind"] in DELIVERABLE_KINDS and r["status"] not in ("rejected", "failed")]
    result = Measured(changed=sorted({str(r["title"] or r["id"]) for r in live}))
    if intent.clarification is not None:
        return result  # not understood here: a real model's plan is reported, not checked
    groups = clauses_by_family(intent.clauses)
    if len(groups) > 1:  # a slide and a shot in one request: each part measured; unexpected only if for every part
        parts = [measure(store, intent.model_copy(update={"clauses": g}), since=since, thread_id=thread_id,
                         turn_id=turn_id, satisfied=satisfied, own=own) for g in groups]
        result.checked = all(p.checked for p in parts)
        result.expected = sorted({t for p in parts for t in p.expected})
        result.missing = sorted({t for p in parts for t in p.missing})
        result.unexpected = sorted(set.intersection(*(set(p.unexpected) for p in parts)))
        return result
    from nodes.understanding.measure_versions import VERSION_AND_CUT, measure_versions

    if operations and operations <= VERSION_AND_CUT:  # an undo, a revert, the cut: what they name and what derives
        return measure_versions(store, intent, ids, result)
    if operations == {"question"}:
        result.checked = True
        result.unexpected = sorted({str(r["title"] or r["id"]) for r in rows if r["kind"] != "evaluation"})
        return result
    if operations == {"note"}:
        result.checked = True
        result.unexpected = sorted({str(r["title"] or r["id"]) for r in rows if r["kind"] not in ("text",)})
        result.expected = ["a note"]
        if not any(r["kind"] == "text" for r in rows):  # "Done" with nothing written is not a note taken
            result.missing = ["a note"]
        return result
    if operations == {"stale_repair"}:
        return measure_stale_repair(store, rows, result, since=since, thread_id=thread_id)
    if operations and operations <= BUILD_OPERATIONS:
        return measure_build(intent, rows, result)
    if operations and operations <= CONTENT_OPERATIONS:
        return measure_content(intent, rows, live, result, satisfied)
    if operations != {"edit"}:
        return result
    result.checked = True
    allowed: set[str] = set()
    for clause in intent.clauses:
        edit = EditRequest.model_validate(clause.modifications)
        for target in clause.targets:
            lineage = {i for i in (target.image_id, *target.derived) if i}
            allowed |= lineage
            if edit.already_in(target.current):
                continue
            result.expected.append(f"{target.title} image")
            if not any(target.image_id in r["ancestors"] for r in live if r["kind"] == "image"):
                result.missing.append(f"{target.title} image")
    for row in live:
        if row["id"] not in allowed and not allowed.intersection(row["ancestors"]):
            result.unexpected.append(str(row["title"] or row["id"]))
    result.unexpected = sorted(set(result.unexpected))
    return result


def measure_stale_repair(store: CommitsReader, rows: list[dict[str, Any]], result: Measured, *, since: int,
                         thread_id: str) -> Measured:
    """"Regenerate what is stale": every stale output a generation tool can remake must be rebuilt.

    After the turn, a generated node that is still stale and still its output's head was not rebuilt (a rebuild
    supersedes it), whatever the reply said: each is missing, by title.  Nodes another thread marked stale while
    this turn ran are not this turn's to rebuild.  A stale node no generation tool made (a note, a shot) cannot
    be regenerated and is not counted.
    """
    result.checked = True
    others = {i for c in store.commits(since_version=since) if c.thread_id != thread_id for i in c.node_ids}
    left = [r for r in store.fixed_read(STALE_LEFT) if not r["newer"] and r["id"] not in others
            and json_object(r.get("metadata")).get("provenance", {}).get("tool") in REGENERABLE_TOOLS]
    rebuilt = [r for r in rows if r["kind"] in DELIVERABLE_KINDS and r["status"] not in ("rejected", "failed")]
    result.expected = sorted({str(r["title"] or r["id"]) for r in [*rebuilt, *left]})
    result.missing = sorted({f"{r['title'] or r['id']} (still stale)" for r in left})
    return result


def measure_content(intent: Intent, rows: list[dict[str, Any]], live: list[dict[str, Any]],
                    result: Measured, satisfied: Sequence[dict[str, Any]] = ()) -> Measured:
    """A page or deck operation: a new version of the same page or deck, and nothing else.

    Allowed beside the new version: what is made from it (the page's HTML file and preview; the deck's slides
    and their contents), a new version of anything the target rewrites (a slide, a slide's picture), a picture
    the new page shows (``page_replace_image``) with its workspace copy, and a slide the new deck holds.  For an
    operation on one slide (retitle, bullets, illustration), a slide other than it drawn anew is unexpected.
    """
    result.checked = True
    already = [c for c in intent.clauses if any(_carries_out(call, c) for call in satisfied)]
    asked = [c for c in intent.clauses if c not in already]
    roots = {t.id: t for c in asked for t in c.targets if t.kind in ("code", "deck")}
    allowed = set(roots) | {i for t in roots.values() for i in (*t.writes, *t.derived)}
    versions = [r for r in live if r["kind"] in ("code", "deck") and set(r["ancestors"]) & set(roots)]
    new_ids = {r["id"] for r in versions}
    for root in roots.values():
        what = f"the {'page' if root.kind == 'code' else 'deck'} ({root.title or root.id})"
        result.expected.append(what)
        if not any(root.id in r["ancestors"] for r in versions):
            result.missing.append(what)
    # Each operation must be one of the turn's new versions: the change its version records is the one asked for.
    made = [Change.read(json_object(r.get("inputs")).get("change")) for r in rows
            if r["kind"] in ("code", "deck") and set(r["ancestors"]) & set(roots)]
    for item in asked:
        if roots and not any(change is not None and did(item, change) for change in made):
            result.missing.append(f"{item.describe()} (no new version records it)")
    ok = set(allowed) | new_ids
    for row in rows:  # made from a new version (its file and preview), or grouped in the new deck
        if set(row["made_from"]) & new_ids or row.get("grp") in new_ids or set(row["ancestors"]) & allowed:
            ok.add(row["id"])
    for row in rows:  # a picture a new version shows, and the copies made of it
        if set(row["referenced_by"]) & new_ids or row["kind"] == "image" and set(row["referenced_by"]) & ok:
            ok.add(row["id"])
    for row in rows:
        if row["kind"] == "file" and set(row["made_from"]) & ok:
            ok.add(row["id"])
    one_slide = {t.id for c in intent.clauses if c.operation in _ONE_SLIDE for t in c.targets if t.kind == "slide"}
    other_ops = {c.operation for c in intent.clauses} - _ONE_SLIDE
    for row in live:
        if row["id"] not in ok:
            result.unexpected.append(str(row["title"] or row["id"]))
        elif (one_slide and not other_ops and row["kind"] == "slide" and row["id"] not in allowed
              and not set(row["ancestors"]) & one_slide):  # a slide drawn anew this turn, not the one asked for
            result.unexpected.append(f"{row['title'] or row['id']} (redrawn, not the slide asked for)")
    result.unexpected = sorted(set(result.unexpected))
    return result


_ONE_SLIDE = frozenset({"deck_edit_slide", "deck_add_bullet", "deck_remove_bullet", "deck_regenerate_illustration"})
"""Operations on one slide: only that slide is drawn anew."""


def did(item: Clause, change: Change) -> bool:
    """Whether a version's change record is the operation a clause asked for, on what it named."""
    args, op = item.args, item.operation
    fields = [e.field for e in change.edits]
    detail = {k: v for e in change.edits for k, v in e.detail.items()}
    after = {k: v for e in change.edits if isinstance(e.after, dict) for k, v in e.after.items()}
    expected = {
        "page_set_text": lambda: change.op == "set_text" and f"text:{args.get('element')}" in fields
        and any(e.after == args.get("text") for e in change.edits),
        "page_set_style": lambda: change.op == "set_style" and _styled(str(args.get("token")), fields),
        "page_add_section": lambda: change.op == "add_section" and detail.get("section") == args.get("name"),
        "page_remove_section": lambda: change.op == "remove_section" and detail.get("section") == args.get("section"),
        "page_move_section": lambda: change.op == "move_section" and detail.get("section") == args.get("section"),
        "page_replace_image": lambda: change.op == "replace_image" and f"image:{args.get('image')}" in fields,
        "page_undo": lambda: change.op == "undo", "page_revert": lambda: change.op == "revert",
        "revise_page": lambda: change.op in ("set_layout", "add_section", "remove_section", "move_section", "revise"),
        "deck_add_slide": lambda: change.op == "add_slide" and detail.get("index") == args.get("after"),
        "deck_duplicate_slide": lambda: change.op == "duplicate_slide"
        and detail.get("copy_of_number") == args.get("slide")
        and detail.get("index") == (args["after"] if args.get("after") is not None else args.get("slide")),
        "deck_delete_slide": lambda: change.op == "delete_slide" and detail.get("index") == _index(args),
        "deck_move_slide": lambda: change.op == "move_slide" and detail.get("index") == _index(args)
        and detail.get("to_index") == int(args.get("to") or 0) - 1,
        "deck_edit_slide": lambda: change.op == "edit_slide" and detail.get("number") == args.get("slide")
        and all(after.get(k) == args[k] for k in ("title", "notes", "bullets") if k in args),
        "deck_add_bullet": lambda: change.op == "edit_slide" and detail.get("number") == args.get("slide")
        and args.get("bullet") in (after.get("bullets") or []),
        "deck_remove_bullet": lambda: change.op == "edit_slide" and detail.get("number") == args.get("slide"),
        "deck_set_theme": lambda: change.op == "set_theme",
        "deck_regenerate_illustration": lambda: change.op == "regenerate_illustration"
        and detail.get("number") == args.get("slide"),
        "deck_undo": lambda: change.op == "undo", "deck_revert": lambda: change.op == "revert",
    }
    check = expected.get(op)
    return bool(check()) if check is not None else True


def _styled(token: str, fields: list[str]) -> bool:
    if token == "palette":
        return "palette" in fields
    if token == "spacing":
        return any(f.removeprefix("token:") in SPACING["normal"] for f in fields)
    if token == "fonts":
        return bool({"token:heading-font", "token:body-font"} & set(fields))
    return f"token:{token}" in fields


def _carries_out(call: dict[str, Any], clause: Clause) -> bool:
    """Whether a tool call is the one a page or deck clause asks for: its tool, with the clause's arguments (a
    skill's, ``revise_page``'s, takes the change in words: its tool alone)."""
    tool, args = call.get("tool"), call.get("args") or {}
    if tool != OPERATION_TOOLS[clause.operation][0]:
        return False
    return str(tool).startswith("skill__") or all(args.get(k) == v for k, v in clause.args.items())


def _index(args: dict[str, Any]) -> int:
    return int(args.get("slide") or 0) - 1

