"""The model's view of the canvas: bounded in size however large the canvas grows.

In full: the nodes the request is about (named ids, selected nodes, titles the
request mentions such as "shot 7", nodes made this turn) and their lineage, up
to :data:`MAX_FULL_NODES`.  Summarised: everything else, as counts by kind and
status, plus the few most recent nodes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from nodes.models.grammar import normalise, parse_targets
from store.base import CanvasReader
from tools.canvas import node_summary

if TYPE_CHECKING:
    from store.neo4j import CanvasOverview


class ViewReader(CanvasReader, Protocol):
    """The canvas reads the view makes; each is one statement, so a view costs a handful of round trips."""

    def titled(self, groups: Sequence[Sequence[str]], *, limit: int = 3) -> tuple[int, list[list[str]]]: ...

    def overview(self, focus_ids: Sequence[str], *, max_depth: int, since_version: int,
                 recent: int) -> CanvasOverview: ...


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


def find_focus(canvas: ViewReader, request: str, selected: list[str], created: list[str], *,
               versioned: bool = True) -> tuple[int | None, list[str]]:
    """The canvas version and the ids of the nodes a request is about, found by querying the canvas (not by
    rereading a conversation), in one statement (none when the request names no title and ``versioned`` is
    False: then the version is None)."""
    focus: list[str] = [*selected, *_NODE_ID.findall(request)]
    # Exact spellings rather than toLower(): the title index answers, so this stays fast on big canvases.
    groups = [sorted({title, title.lower(), title.capitalize(), title.title()}) for title in mentioned_titles(request)]
    version, found = canvas.titled(groups) if groups or versioned else (None, [])
    for ids in found:
        focus.extend(ids)
    focus.extend(created[-10:])
    return version, list(dict.fromkeys(focus))


def build_view(canvas: ViewReader, focus_ids: list[str], *, version: int | None = None) -> dict[str, Any]:
    """A JSON-able view of the canvas whose size has a fixed bound (``version``: the canvas version just read).

    One read: the focus nodes with their lineages, the counts by kind and status, the recent nodes.
    """
    full: dict[str, dict[str, Any]] = {}
    wanted = list(dict.fromkeys(focus_ids[:MAX_FULL_NODES]))
    version = canvas.canvas_version() if version is None else version
    seen = canvas.overview(wanted, max_depth=MAX_LINEAGE_DEPTH, since_version=max(0, version - 2 * MAX_RECENT),
                           recent=MAX_RECENT)
    for node_id in wanted:
        entries = seen.lineages.get(node_id) or []  # starts with the focus node itself; empty when it is gone
        if not entries:
            continue
        if len(full) >= MAX_FULL_NODES:
            break
        full[node_id] = {**node_summary(entries[0].node), "focus": True}
        for entry in entries[1:]:
            if len(full) >= MAX_FULL_NODES:
                break
            full.setdefault(entry.node.id, {**node_summary(entry.node), "depth": entry.depth})
    for node in full.values():
        node["inputs"] = _clip(node["inputs"])
    return {
        "canvas_version": version,
        "focus": list(full.values()),
        "summary": [{"kind": kind, "status": status, "count": count} for kind, status, count in seen.counts[:200]],
        "recent": [{"id": n.id, "kind": n.kind, "title": n.title, "status": n.status.value} for n in seen.recent],
    }


def _clip(value: Any, limit: int = 400) -> Any:
    """Keep long inputs (scripts, HTML) from blowing the bound: long strings are cut."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + "…"
    if isinstance(value, dict):
        return {k: _clip(v, limit) for k, v in list(value.items())[:20]}
    if isinstance(value, list):
        return [_clip(v, limit) for v in value[:20]]
    return value
