"""A canonical fingerprint of a canvas: what two runs of the same turn must agree on, ids and clocks aside.

Two projects that ran the same request (one straight through, one killed and
resumed) have different node ids, edge ids and timestamps, but with the offline
providers they must have the same outputs: per output the same kinds, titles,
statuses and versions, the same edges between them, and the same artifact bytes.
Nodes are named by what they are (kind, title, version, artifact hashes), never by id.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

_ULID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")


def _label(node: Any) -> tuple:
    """A node as what it is: kind, title, status, version, its inputs and the tool that made it, and the
    content hashes of its artifacts."""
    made_by = node.provenance
    return (node.kind, node.title, node.status.value, node.version, node.deleted, _without_ids(node.inputs),
            (made_by.tool, made_by.provider, made_by.model), tuple(sorted(h.sha256 for h in node.outputs)))


def _without_ids(value: Any) -> str:
    """A structure as JSON with ids and timestamps blanked (a version number it carries is kept)."""
    text = json.dumps(value, sort_keys=True, default=str)
    return _TIMESTAMP.sub("<time>", _ULID.sub("<id>", text))


def canvas_fingerprint(store: Any) -> dict[str, Any]:
    """Nodes (deleted ones too) and edges, keyed by content rather than id; equal for equal canvases."""
    nodes = store.find_nodes(include_deleted=True)
    labels = {n.id: _label(n) for n in nodes}
    edges = Counter((e.type.value, labels.get(e.source, ("?", e.source)), labels.get(e.target, ("?", e.target)),
                     _without_ids(e.properties)) for e in store.edges())
    return {"nodes": Counter(labels.values()), "edges": edges}


def fingerprint_difference(left: dict[str, Any], right: dict[str, Any]) -> str:
    """What one fingerprint has that the other lacks, readable in an assertion message."""
    lines = []
    for part in ("nodes", "edges"):
        only_left = left[part] - right[part]
        only_right = right[part] - left[part]
        for item, count in only_left.items():
            lines.append(f"{part} only in first  (x{count}): {item}")
        for item, count in only_right.items():
            lines.append(f"{part} only in second (x{count}): {item}")
    return "\n".join(lines) or "same"
