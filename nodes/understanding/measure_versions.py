"""A version or cut turn's report, measured: what its commits changed against what the clauses asked.

* an undo or a revert must give the output it names a new current version (or restore it in place), and
  change nothing but that output and what derives from it (its clip and the cut, rebuilt), plus the inputs the
  restored version was made from (a clip brought back with its image);
* an undo of a turn must change something, and only what that turn wrote and what derives from it;
* a cut operation must give the cut a new version (a retimed clip: the clip), and a new shot when one is
  inserted or duplicated, with its image and clip; nothing else;
* comparing and listing versions change nothing.

What a clause may write is the scope recorded when the turn started (``on_canvas.check_on_canvas``:
``tools.write_scope``), and what derives from it is read from the commits' nodes upward: a changed node is
inside when it, a version it replaced, or what it was generated from (transitively) is inside.

No walk here has a hop limit: an output's lineage grows by one version per change, and a long session's cut
has hundreds.  Only ``VERSION_OF`` is walked without bound (a lineage is a chain, one path per ancestor); what
a node was generated from is read one hop away, and followed further only through the turn's own nodes (a
rebuilt cut → the rebuilt clip → the restored image), so the read stays linear in the history's length where a
mixed ``VERSION_OF|GENERATED_FROM`` walk would count paths through every version of every input.
"""

from __future__ import annotations

from typing import Any

from nodes.understanding.intent import Intent
from nodes.understanding.kinds import READ_ONLY_OPERATIONS
from nodes.understanding.on_canvas import OPERATIONS as VERSION_AND_CUT
from store.cypher import FixedCypher

UPSTREAM = FixedCypher(
    "MATCH (n:CanvasNode) WHERE n.id IN $ids "
    "OPTIONAL MATCH (n)-[:GENERATED_FROM]->(s:CanvasNode) "
    "WITH n, s, [(s)-[:VERSION_OF*1..]->(x:CanvasNode) | x.id] AS older "
    "WITH n, collect(CASE WHEN s IS NULL THEN null ELSE [s.id] + older END) AS sources "
    "RETURN n.id AS id, n.kind AS kind, n.title AS title, n.status AS status, n.group_id AS grp, "
    "[(n)-[:VERSION_OF*1..]->(a:CanvasNode) | a.id] AS ancestors, sources")
"""Each node the turn wrote, every version it replaced (``ancestors``), and each node it was generated from with
that node's own earlier versions (``sources``: one list per source, the source first)."""
__all__ = ["VERSION_AND_CUT", "measure_versions"]
MEASURED_KINDS = ("image", "video", "audio", "web", "slide", "deck", "code", "file", "shot", "text")


def measure_versions(store: Any, intent: Intent, ids: list[str], result: Any) -> Any:
    """Fill ``result`` (a :class:`nodes.understanding.measure.Measured`) for a turn of version and cut clauses."""
    rows = store.fixed_read(UPSTREAM, ids=ids) if ids else []
    result.checked = True
    if all(c.operation in READ_ONLY_OPERATIONS for c in intent.clauses):
        result.unexpected = sorted({_name(r) for r in rows if r["kind"] != "evaluation"})
        return result
    live = [r for r in rows if r["kind"] in MEASURED_KINDS and r["status"] not in ("rejected", "failed")]
    allowed: set[str] = set()
    inserts = False
    for clause in intent.clauses:
        scope = clause.modifications.get("scope") or {}
        allowed |= set(scope.get("node_ids") or []) | set(scope.get("descendants_of") or [])
        inserts = inserts or bool(clause.modifications.get("new_shot"))
        if "already" in clause.modifications or clause.operation in READ_ONLY_OPERATIONS:
            continue
        titles = {t.id: t.title for t in clause.targets}
        for root in clause.modifications.get("expects") or []:
            name = titles.get(str(clause.args.get("node_id"))) or _root_name(clause.operation)
            result.expected.append(name)
            if not any(r["id"] == root or root in r["ancestors"] for r in rows):
                result.missing.append(name)
        if clause.modifications.get("new_shot"):
            result.expected.append("a new shot")
            if not any(r["kind"] == "shot" for r in live):
                result.missing.append("a new shot")
        if clause.operation == "undo_turn":
            undone = (clause.modifications.get("undoes") or {}).get("request") or "the last turn"
            result.expected.append(f"what '{undone}' changed")
            if not rows:
                result.missing.append(f"what '{undone}' changed")
    new_shots = {r["id"] for r in live if r["kind"] == "shot"} if inserts else set()
    inside = derived_from(rows, allowed | new_shots)
    result.unexpected = sorted({_name(r) for r in live if r["id"] not in inside})
    return result


def derived_from(rows: list[dict[str, Any]], roots: set[str]) -> set[str]:
    """The ids of ``rows`` (the turn's nodes, as :data:`UPSTREAM` reads them) that are a root, a version of one,
    in a root's group, or generated from such a node, directly or through other nodes of the turn."""
    inside = set(roots)
    found: set[str] = set()
    pending = list(rows)
    while pending:
        left = []
        for row in pending:
            lineage = {row["id"], *row["ancestors"]}
            sources = [set(s) for s in row.get("sources") or [] if s]
            if lineage & inside or row.get("grp") in inside or any(s & inside for s in sources):
                found.add(row["id"])
                inside.add(row["id"])
            else:
                left.append(row)
        if len(left) == len(pending):
            break
        pending = left
    return found


def _name(row: dict[str, Any]) -> str:
    return str(row.get("title") or row["id"])


def _root_name(operation: str) -> str:
    return "the clip" if operation == "set_clip_duration" else "the cut" if operation.endswith("_cut") or \
        operation in ("insert_shot", "duplicate_shot") else "the output"
