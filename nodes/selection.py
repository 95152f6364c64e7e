"""What a person selected: canvas node ids, or a part of one node (a section of a page) as ``NODE_ID#PART``.

A section of a web page is not a canvas node; it lives in the page's document.  Selecting one in the Page
lens sends ``"<page node id>#<section id>"`` among the selected ids (several sections: one entry each, in the
order selected), so the selection keeps its one channel
(``selected_ids``, which every graph node that interprets the request reads) and the request interpreter
learns the section (``NodeFact.sections``).  Everything that looks nodes up takes the node ids alone
(:func:`selected_nodes`).
"""

from __future__ import annotations

from collections.abc import Iterable

PART_SEPARATOR = "#"


def selected_nodes(selected: Iterable[str]) -> list[str]:
    """The node ids of a selection, in order, each once (``ID#section`` counts as its node ``ID``)."""
    return list(dict.fromkeys(entry.split(PART_SEPARATOR, 1)[0] for entry in selected if entry))


def selected_parts(selected: Iterable[str]) -> dict[str, list[str]]:
    """The parts selected in each node (``{page id: [section, ...]}``), in order."""
    parts: dict[str, list[str]] = {}
    for entry in selected:
        node_id, _, part = entry.partition(PART_SEPARATOR)
        if part and part not in parts.setdefault(node_id, []):
            parts[node_id].append(part)
    return {node_id: names for node_id, names in parts.items() if names}
