"""The model's view of the canvas: bounded in size however large the canvas grows.

In full: the nodes the request is about (named ids, selected nodes, titles the
request mentions such as "shot 7", nodes made this turn) and their lineage, up
to :data:`MAX_FULL_NODES`.  Summarised: everything else, as counts by kind and
status, plus the few most recent nodes.
"""

from __future__ import annotations

import re
from typing import Any

from nodes.models.grammar import normalise, parse_targets
from store.base import CanvasReader
from tools.canvas import node_summary

MAX_FULL_NODES = 40
MAX_RECENT = 8
MAX_LINEAGE_DEPTH = 4

_TITLE_REF = re.compile(r"\b(shot|slide|scene|clip|section|page|image)\s+#?(\d+)\b", re.IGNORECASE)
_QUOTED = re.compile(r"[\"“]([^\"”]{2,60})[\"”]")
_NODE_ID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")


def mentioned_titles(request: str) -> list[str]:
    """Titles a request points at: "shot 7", "slide 3", or a quoted name."""
    titles = [f"{kind.lower()} {number}" for kind, number in _TITLE_REF.findall(request)]
    targets = parse_targets(normalise(request))  # "shot five", "the third shot", "shots 2 and 4", "shots 2-4"
    if targets is not None:
        titles += [f"shot {n}" for n in targets.numbers[:24]]
    return list(dict.fromkeys(titles + [q.strip() for q in _QUOTED.findall(request)]))


def find_focus(canvas: CanvasReader, request: str, selected: list[str], created: list[str]) -> list[str]:
    """Ids of the nodes a request is about, found by querying the canvas (not by rereading a conversation)."""
    focus: list[str] = [*selected, *_NODE_ID.findall(request)]
    for title in mentioned_titles(request):
        # Exact spellings rather than toLower(): the title index answers, so this stays fast on big canvases.
        variants = sorted({title, title.lower(), title.capitalize(), title.title()})
        rows = canvas.query(
            "MATCH (n:CanvasNode) WHERE n.title IN $titles AND (n.deleted IS NULL OR n.deleted = false) "
            "AND n.status <> 'rejected' RETURN n.id AS id ORDER BY n.version DESC, n.created_at DESC LIMIT 3",
            {"titles": variants},
        ).rows
        focus.extend(r["id"] for r in rows)
    focus.extend(created[-10:])
    return list(dict.fromkeys(focus))


def build_view(canvas: CanvasReader, focus_ids: list[str]) -> dict[str, Any]:
    """A JSON-able view of the canvas whose size has a fixed bound."""
    full: dict[str, dict[str, Any]] = {}
    for node_id in focus_ids:
        if len(full) >= MAX_FULL_NODES:
            break
        try:
            node = canvas.get_node(node_id)
        except KeyError:
            continue
        full[node.id] = {**node_summary(node), "focus": True}
        for entry in canvas.lineage(node.id, max_depth=MAX_LINEAGE_DEPTH):
            if len(full) >= MAX_FULL_NODES:
                break
            full.setdefault(entry.node.id, {**node_summary(entry.node), "depth": entry.depth})
    counts = canvas.query(
        "MATCH (n:CanvasNode) WHERE n.deleted IS NULL OR n.deleted = false "
        "RETURN n.kind AS kind, n.status AS status, count(n) AS c ORDER BY kind, status",
        row_limit=200,
    ).rows
    recent = _recent(canvas)
    for node in full.values():
        node["inputs"] = _clip(node["inputs"])
    return {
        "canvas_version": canvas.canvas_version(),
        "focus": list(full.values()),
        "summary": [{"kind": r["kind"], "status": r["status"], "count": r["c"]} for r in counts],
        "recent": recent,
    }


def _recent(canvas: CanvasReader) -> list[dict[str, Any]]:
    """The nodes the last commits touched, newest first: read from the (indexed) commit log, not a scan."""
    version = canvas.canvas_version()
    ids: dict[str, None] = {}
    for commit in reversed(canvas.commits(since_version=max(0, version - 2 * MAX_RECENT))):
        for node_id in commit.node_ids:
            ids.setdefault(node_id)
        if len(ids) >= 4 * MAX_RECENT:
            break
    rows = []
    for node_id in ids:
        if len(rows) >= MAX_RECENT:
            break
        try:
            node = canvas.get_node(node_id)
        except KeyError:
            continue
        rows.append({"id": node.id, "kind": node.kind, "title": node.title, "status": node.status.value})
    return rows


def _clip(value: Any, limit: int = 400) -> Any:
    """Keep long inputs (scripts, HTML) from blowing the bound: long strings are cut."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + "…"
    if isinstance(value, dict):
        return {k: _clip(v, limit) for k, v in list(value.items())[:20]}
    if isinstance(value, list):
        return [_clip(v, limit) for v in value[:20]]
    return value
