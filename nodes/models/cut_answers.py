"""Answers about the cut: which shots it holds, in what order, and whether it holds a given shot.

Read from one lookup's rows (:data:`nodes.models.targets.CUT_CYPHER`): every live cut (a video made by
``assemble_cut``, whose ``inputs.clip_node_ids`` are its clips in playing order), the older cut each one is a new
version of, and the shot each of its clips was made for.  The current cuts are those no live cut is a newer version
of: one per film.  Before this, "is shot 3 in the cut?" and "which shots are in the cut?" were asked about ("I answer
how shots look, not whether the cut holds them"); read as a look question, the first had been answered with shot 3's
lighting.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nodes.understanding.facts import json_object

Rows = list[dict[str, Any]]


@dataclass
class CutShots:
    """One current cut: its id and title, and the shots of its clips in playing order (None: a clip of no shot)."""

    id: str
    title: str
    shots: list[tuple[str, str] | None] = field(default_factory=list)

    def place_of(self, shot_id: str) -> int | None:
        """The 1-based place of the shot's first clip in the cut, or None when the cut does not hold it."""
        return next((i + 1 for i, shot in enumerate(self.shots) if shot is not None and shot[0] == shot_id), None)

    def named(self) -> str:
        return f"the cut '{self.title}'" if self.title else "the cut"

    def order(self) -> str:
        return ", ".join(shot[1] if shot is not None else "a clip of no shot" for shot in self.shots) or "no clips"


def current_cuts(rows: Rows) -> list[CutShots]:
    """The cuts no live cut is a newer version of, oldest first, each with its shots in playing order."""
    older = {str(r["older"]) for r in rows if r.get("older")}
    by_id: dict[str, dict[str, Any]] = {}
    shot_of_clip: dict[str, dict[str, tuple[str, str]]] = {}
    for row in rows:
        cut = str(row["cut"])
        by_id.setdefault(cut, row)
        if row.get("clip") and row.get("shot"):
            shot_of_clip.setdefault(cut, {})[str(row["clip"])] = (str(row["shot"]), str(row.get("shot_title") or ""))
    cuts = []
    for cut, row in by_id.items():
        if cut in older:
            continue
        clips = [str(c) for c in json_object(row.get("inputs")).get("clip_node_ids") or []]
        known = shot_of_clip.get(cut, {})
        cuts.append(CutShots(id=cut, title=str(row.get("title") or ""), shots=[known.get(c) for c in clips]))
    return cuts


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def holds(cuts: list[CutShots], shots: list[tuple[str, str]]) -> str:
    """Whether the cuts hold each shot (id, title): where in which cut, or that none does and what the cut holds."""
    parts = []
    for shot_id, title in shots:
        found = [(cut, place) for cut in cuts if (place := cut.place_of(shot_id)) is not None]
        if found:
            where = "; ".join(f"{_ordinal(place)} of {len(cut.shots)} in {cut.named()}" for cut, place in found)
            parts.append(f"Yes: {title} is in the cut ({where}).")
        elif len(cuts) == 1:
            parts.append(f"No: {title} is not in {cuts[0].named()}; it is still on the canvas. The cut holds "
                         f"{len(cuts[0].shots)}: {cuts[0].order()}.")
        else:
            parts.append(f"No: {title} is in none of the {len(cuts)} cuts; it is still on the canvas.")
    return " ".join(parts)


def contents(cuts: list[CutShots], *, count: bool) -> str:
    """What each current cut holds: how many shots, or the shots in playing order."""
    if count:
        return " ".join(f"{len(cut.shots)} found: {cut.named()} holds {len(cut.shots)} clip"
                        f"{'s' if len(cut.shots) != 1 else ''}." for cut in cuts)
    return " ".join(f"{cut.named().capitalize()} holds {len(cut.shots)} clip{'s' if len(cut.shots) != 1 else ''}, "
                    f"in this order: {cut.order()}." for cut in cuts)
