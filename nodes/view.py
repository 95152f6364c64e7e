"""The model's view of the canvas: bounded in size however large the canvas grows.

In full: the nodes the request is about (the intent's resolved targets, named
ids, selected nodes, titles the request names such as "shot 7" or a quoted
title, nodes made this turn) and their lineage, up to :data:`MAX_FULL_NODES`.
What the request is about comes from the turn's intent (``nodes.understanding``):
the view never reads the request's text.  Summarised: everything else, as counts by kind and
status, plus the few most recent nodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from nodes.selection import selected_nodes
from nodes.understanding.intent import Intent
from store.base import CanvasReader
from tools.canvas import node_summary

if TYPE_CHECKING:
    from store.neo4j import CanvasOverview


class ViewReader(CanvasReader, Protocol):
    """The canvas reads the view makes; each is one statement, so a view costs a handful of round trips."""

    def titled(self, groups: Sequence[Sequence[str]], *, limit: int = 3) -> tuple[int, list[list[str]]]: ...

    def overview(self, focus_ids: Sequence[str], *, max_depth: int, since_version: int | None,
                 recent: int, within: int = 0, named: Sequence[str] = (), listed_kind: str | None = None,
                 listed_limit: int = 0) -> CanvasOverview: ...


MAX_FULL_NODES = 40
MAX_RECENT = 8
MAX_LINEAGE_DEPTH = 4

def as_intent(intent: Intent | dict[str, Any] | str) -> Intent:
    """The turn's intent from its state (JSON), or a request interpreted with no canvas facts."""
    if isinstance(intent, Intent):
        return intent
    if isinstance(intent, dict):
        return Intent.model_validate(intent)
    from nodes.understanding.pipeline import interpret

    return interpret(intent)


def read_on_the_canvas(intent: Intent | dict[str, Any]) -> bool:
    """Whether reading the request took the canvas: a target resolved on it, or a question to ask about it.

    Such an intent always reaches the model whole, as the JSON line under the view (``nodes.propose``), so the
    view's tables do not say it a second time (``nodes.resolve.request_lines``)."""
    if isinstance(intent, Intent):
        return intent.clarification is not None or any(c.targets for c in intent.clauses)
    return bool(intent.get("clarification")) or any(c.get("targets") for c in intent.get("clauses") or [])


def find_focus(canvas: ViewReader, intent: Intent | dict[str, Any] | str, selected: list[str], created: list[str],
               *, versioned: bool = True) -> tuple[int | None, list[str]]:
    """The canvas version and the ids of the nodes a request is about: its resolved targets, the selection,
    the ids it names and the nodes with the titles it names, in one statement (none when it names no title and
    ``versioned`` is False: then the version is None)."""
    intent = as_intent(intent)
    focus: list[str] = [*selected_nodes(selected), *intent.node_ids]
    resolved: set[str] = set()
    for clause in intent.clauses:
        for target in clause.targets:
            focus += [target.id] + ([target.image_id] if target.image_id else [])
            resolved.add((target.title or "").lower())
    # Exact spellings rather than toLower(): the title index answers, so this stays fast on big canvases.  A title
    # the interpreter resolved to a target is not looked up again: its node is in the focus already.
    groups = [sorted({title, title.lower(), title.capitalize(), title.title()}) for title in intent.titles
              if title.lower() not in resolved]
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


# -- the focused view (#21): what the model is shown, as compact tables --------------------------------------
VIEW_BUDGET = 4096
"""Bytes the focused view may take, whatever the canvas size (a local edit's stays under 2 KB)."""
MAX_TABLE_ROWS = 12
MAX_TURN_LINES = 3


def cell(value: Any, limit: int = 60) -> str:
    """One table cell: short, on one line, without the column separator."""
    text = " ".join(str("" if value is None else value).split()).replace("|", "/")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def table(header: Sequence[str], rows: Sequence[Sequence[Any]], *, limit: int = MAX_TABLE_ROWS,
          more: str = "query_canvas") -> list[str]:
    """Rows as ``a | b | c`` lines under their header; rows past ``limit`` are counted, not shown."""
    lines = [" | ".join(header)] + [" | ".join(cell(v, 200 if isinstance(v, str) and _ids(v) else 36) for v in row)
                                    for row in rows[:limit]]
    if len(rows) > limit:
        lines.append(f"… {len(rows) - limit} more ({more})")
    return lines


def _ids(text: str) -> bool:
    """Whether a cell is node ids (never cut: a model acts on them) or values (``key=value`` words)."""
    return bool(text) and all(len(word) == 26 and word.isalnum() or "=" in word for word in text.split())


def values(inputs: dict[str, Any]) -> str:
    """A node's render values as ``key=value`` words (what a change moves)."""
    return " ".join(f"{k}={v}" for k, v in inputs.items() if v not in (None, ""))


def counts_line(counts: Sequence[tuple[str, str, int]]) -> str:
    """Counts by kind and status on one line: ``image 12 (completed 6, rejected 6); text 3 completed``."""
    by_kind: dict[str, list[tuple[str, int]]] = {}
    for kind, status, count in counts:
        by_kind.setdefault(kind, []).append((status, count))
    parts = []
    for kind, statuses in sorted(by_kind.items(), key=lambda item: -sum(c for _, c in item[1])):
        total = sum(c for _, c in statuses)
        if len(statuses) == 1:
            parts.append(f"{kind} {total} {statuses[0][0]}")
        else:
            parts.append(f"{kind} {total} (" + ", ".join(f"{s} {c}" for s, c in sorted(statuses)) + ")")
    return "; ".join(parts)


COUNTS_HEADER = "## counts by kind (status n)"
"""The view section whose one line is :func:`counts_line` (a model answers "how many" from it)."""

LISTED_HEADER = "## listed: every live {kind}, oldest first (answers the question: no lookup needed)"
LISTED_END = "(end of the list: {count} {kind})"
LISTED_MAX = 20
"""The most nodes the view lists for "list the slides"; with more, the model asks ``query_canvas``."""


def listed_lines(kind: str, rows: Sequence[tuple[str, str | None, str]]) -> list[str]:
    """The view section that answers "list the <kind>": every live node of the kind, its whole title, and an end
    line, so that a section cut to fit the view's budget is seen to be cut (:func:`read_listed`).  Nothing when
    there are more than :data:`LISTED_MAX` or a title would not fit on its line."""
    if len(rows) > LISTED_MAX or any(len(f"[{title or ''}]".splitlines()) != 1 for _, title, _ in rows):
        return []
    return [LISTED_HEADER.format(kind=kind), "id | title | status",
            *(f"{node_id} | {title or ''} | {status}" for node_id, title, status in rows),
            LISTED_END.format(count=len(rows), kind=kind)]


def read_listed(view_text: str) -> tuple[str, list[dict[str, str]]] | None:
    """The kind and the rows (id, title, status) of a view's :func:`listed_lines` section; None when the view has
    none or it was cut (its end line is missing, or its rows are not all there)."""
    lines = view_text.splitlines()
    prefix, suffix = LISTED_HEADER.split("{kind}")
    start = next((i for i, line in enumerate(lines) if line.startswith(prefix) and line.endswith(suffix)), None)
    if start is None:
        return None
    kind = lines[start][len(prefix):-len(suffix)]
    rows: list[dict[str, str]] = []
    for line in lines[start + 2:]:
        if line == LISTED_END.format(count=len(rows), kind=kind):
            return kind, rows
        node_id, _, rest = line.partition(" | ")
        title, _, status = rest.rpartition(" | ")
        if not node_id or not status:
            return None
        rows.append({"id": node_id, "title": title, "status": status})
    return None


def read_counts(view_text: str) -> dict[str, dict[str, int]] | None:
    """The counts a view's :data:`COUNTS_HEADER` section shows, by kind and status (the inverse of
    :func:`counts_line`); None when the view has no counts (a turn that began empty, a section cut to fit)."""
    lines = view_text.splitlines()
    if COUNTS_HEADER not in lines:
        return None
    at = lines.index(COUNTS_HEADER) + 1
    if at >= len(lines) or lines[at].startswith("## ") or not lines[at].strip():
        return None
    counts: dict[str, dict[str, int]] = {}
    for part in lines[at].split("; "):
        kind, _, rest = part.partition(" ")
        total, _, statuses = rest.partition(" ")
        if not total.isdigit():
            return None
        if statuses.startswith("("):
            pairs = [p.rsplit(" ", 1) for p in statuses.strip("()").split(", ")]
            counts[kind] = {status: int(n) for status, n in pairs}
        else:
            counts[kind] = {statuses: int(total)}
    return counts


def fit(sections: list[list[str]], budget: int = VIEW_BUDGET) -> str:
    """The sections joined, each cut from its end while the whole is over ``budget`` bytes (the last first)."""
    def size() -> int:
        return len("\n".join(line for section in sections for line in section).encode("utf-8"))

    for section in reversed(sections):
        while size() > budget and len(section) > 1:
            section.pop()
    return "\n".join(line for section in sections if section for line in section)
