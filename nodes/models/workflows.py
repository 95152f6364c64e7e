"""Workflow playbooks of the offline planner: narrative, web, slides, exploration (edits: ``edits.py``).

Each is a small state machine over the calls already made this turn, so a
resumed turn makes the same calls.  Targets ("shot 7", "the page") are found
through a :class:`~nodes.models.targets.TargetSource`: the canvas for the canvas
agent, the transcript for the chat-history baseline.
"""

from __future__ import annotations

from typing import Any

from nodes.models.playbooks import Call, Done, PlannerInput, stop_on_failure
from nodes.models.targets import CanvasTargets, TargetSource

def remembered(p: PlannerInput, key: str) -> Any:
    """A generation parameter from memory (the latest item that sets it)."""
    value = None
    for item in p.memory:
        params = item.get("params") if isinstance(item, dict) else None
        if params and key in params:
            value = params[key]
    return value


def _skill_output(p: PlannerInput, skill: str) -> dict[str, Any] | None:
    calls = [c for c in p.made(f"skill__{skill}") if not c.rejected and "error" not in c.observation]
    return calls[-1].observation if calls else None


class NarrativePlaybook:
    """Premise → storyboard → references → one image per shot → one clip per shot → the cut."""

    def matches(self, p: PlannerInput) -> bool:
        return p.operation_is("build_narrative")

    def next_step(self, p: PlannerInput) -> Call | Done:
        if (stop := stop_on_failure(p)) is not None:
            return stop
        args = p.clause("build_narrative").args  # type: ignore[union-attr]
        n_shots = int(args.get("n_shots") or 6)
        lighting = args.get("lighting") or remembered(p, "lighting") or "neutral"
        board = _skill_output(p, "storyboard")
        if board is None:
            return Call("skill__storyboard", {"premise": p.request, "n_shots": n_shots, "lighting": lighting})
        images = _skill_output(p, "reference_images")
        if images is None:
            return Call("skill__reference_images", {"shot_ids": board["shot_ids"], "lighting": lighting})
        clips = _skill_output(p, "video_clips")
        if clips is None:
            return Call("skill__video_clips", {"image_ids": images["image_ids"]})
        cut = [c for c in p.made("assemble_cut") if not c.rejected]
        if not cut:
            return Call("assemble_cut", {"clip_node_ids": clips["clip_ids"], "title": "final cut"})
        return Done(text=(
            f"Storyboarded {len(board['shot_ids'])} shots (plan {board['plan_id']}), generated "
            f"{len(images['image_ids'])} reference-guided shot images and {len(clips['clip_ids'])} clips, "
            f"and assembled the final cut {cut[-1].observation.get('node_id')}."))


class WebPlaybook:
    """A brief for a site → design_to_web (changes of a page: ``nodes.models.content.ContentPlaybook``)."""

    def __init__(self, source: TargetSource | None = None) -> None:
        self.source = source or CanvasTargets()

    def matches(self, p: PlannerInput) -> bool:
        return p.operation_is("build_page")

    def next_step(self, p: PlannerInput) -> Call | Done:
        if (stop := stop_on_failure(p)) is not None:
            return stop
        site = _skill_output(p, "design_to_web")
        if site is None:
            return Call("skill__design_to_web", {"brief": p.request})
        return Done(text=(f"Built the page: layout {site.get('selected_layout_id')}, code {site.get('code_id')}, "
                          f"preview {site.get('preview_id')}."))


class SlidesPlaybook:
    """A lecture topic → outline → slides → .pptx and previews."""

    def matches(self, p: PlannerInput) -> bool:
        return p.operation_is("build_deck")

    def next_step(self, p: PlannerInput) -> Call | Done:
        if (stop := stop_on_failure(p)) is not None:
            return stop
        deck = _skill_output(p, "slides")
        if deck is None:
            args = p.clause("build_deck").args  # type: ignore[union-attr]
            return Call("skill__slides", {"topic": args["topic"], "n_slides": int(args.get("n_slides") or 5)})
        return Done(text=(f"Built a deck of {len(deck.get('slide_ids') or [])} slides ({deck.get('deck_id')}), "
                          "each linked to its source content, with a PNG preview per slide."))


class ExplorePlaybook:
    """"explore shot 3 with 4 lighting moods": parallel subagents, compare, select one, then rebuild what follows.

    Selecting a candidate replaces the explored image: the explored one is marked superseded, the selected one
    takes its place under the shot, and the clip and the cut made from the explored image are marked stale and
    regenerated (``regenerate_stale`` takes inputs at their current version, so they follow the selection).
    """

    def __init__(self, source: TargetSource | None = None) -> None:
        self.source = source or CanvasTargets()

    def matches(self, p: PlannerInput) -> bool:
        return p.operation_is("explore")

    def next_step(self, p: PlannerInput) -> Call | Done:
        if (stop := stop_on_failure(p)) is not None:
            return stop
        explored = _skill_output(p, "explore")
        if explored is None:
            return self._explore(p)
        selected = explored.get("selected_id")
        if not selected:
            return Done(text=(f"Explored {len(explored.get('candidate_ids') or [])} candidates; none was selected "
                              f"({explored.get('criterion') or 'no candidate completed'})."))
        # Named as a person knows them: the variation picked, and the explored image by its title.
        picked = next((b.get("label") for b in explored.get("branches") or [] if b.get("candidate_id") == selected),
                      None)
        summary = (f"Explored {len(explored.get('candidate_ids') or [])} candidates; selected "
                   f"{f'the {picked!r} one' if picked else selected}, the rest stay on the canvas as rejected.")
        replaced = explored.get("explored_title") or explored["explored_id"]
        if explored.get("replaced_id"):  # the skill replaced the explored image and rebuilt what followed it
            rebuilt = ", ".join(str(r.get("title")) for r in explored.get("rebuilt") or [])
            return Done(text=f"{summary} It replaces {replaced}" + (f"; rebuilt {rebuilt}." if rebuilt else "."))
        return self._follow(p, explored["explored_id"], selected, summary, replaced)

    def _explore(self, p: PlannerInput) -> Call | Done:
        args = p.clause("explore").args  # type: ignore[union-attr]
        return Call("skill__explore", {"node_id": args["node_id"], "n": int(args.get("n") or 4),
                                       "instruction": args.get("instruction") or p.request})

    def _follow(self, p: PlannerInput, explored_id: str, selected: str, summary: str, replaced: str) -> Call | Done:
        rows = self.source.following(p, explored_id)
        if isinstance(rows, Call):
            return rows
        shots = sorted({r["shot"] for r in rows if r.get("shot")})
        derived = sorted({r["derived"] for r in rows if r.get("derived")})
        if not shots and not derived:
            return Done(text=summary)
        linked = {c.args.get("target") for c in p.made("link_nodes")}
        for shot in shots:
            if shot not in linked:
                return Call("link_nodes", {"type": "GENERATED_FROM", "source": selected, "target": shot,
                                           "properties": {"as": "shot"}})
        if not p.made("set_status"):
            return Call("set_status", {"node_id": explored_id, "status": "rejected",
                                       "reason": f"superseded by {selected} (selected in an exploration)"})
        if derived and not p.made("mark_stale"):
            return Call("mark_stale", {"node_ids": derived, "reason": f"{selected} was selected"})
        if derived and not p.made("regenerate_stale"):
            stale = p.made("mark_stale")[-1].observation.get("stale") or derived
            return Call("regenerate_stale", {"node_ids": stale})
        rebuilt = ", ".join(str(r.get("title")) for r in
                            (p.made("regenerate_stale")[-1].observation.get("regenerated") or [] if derived else []))
        return Done(text=f"{summary} It replaces {replaced}" + (f"; rebuilt {rebuilt}." if rebuilt else "."))

