"""Explorations: "explore shot 3 with 4 lighting moods", "try three variations of this" (parallel candidates,
one selected, what follows rebuilt)."""

from __future__ import annotations

import re

from nodes.models.grammar import named_lighting
from nodes.understanding.intent import Clarification, Clause
from nodes.understanding.readers.base import ReadContext, Reading, with_a_change
from nodes.understanding.references import ambiguous_message, find_references, read_film, resolve_targets
from nodes.understanding.text import THEN_A_CHANGE

_SHOT_OF_A_FILM = re.compile(r"\b(?:shots? #?\d+|the (?:last|first|\d+th) shot) (?:of|in|from) (?:the|my|our|this) "
                             r"(?P<name>(?:(?!(?:film|movie|story|of|a|an|the|like|with|in)\b)[a-z0-9'-]+ ){1,4})"
                             r"(?:film|movie|story|storyboard)\b")
"""A shot of a film named by words before the noun ("shot 2 of the whale film"): when no film has those words, the
exploration is asked about ("in the style of a noir film" names no shot's film, and is instruction)."""
_EXPLORE = re.compile(r"\bexplore\b|\btry (\d+)\b|\b(\d+) (?:variations|alternatives|options|versions) of\b")


class ExploreReader:
    """An exploration of one shot's image (or a selected node)."""

    name = "explore"

    def read(self, ctx: ReadContext) -> Reading | None:
        words, text = ctx.words, ctx.words.text
        if not _EXPLORE.search(text):
            return None
        film = read_film(words, ctx.facts)  # "explore shot 2 of the ferry film"
        unknown = _SHOT_OF_A_FILM.search(text) if film is None else None
        if unknown is not None:
            # The instruction is passed on whole, so words naming no film would be read by nobody: asked.
            words.take_all()
            name = unknown.group("name").strip()
            return Reading(clarification=Clarification(
                reason="not_found", missing=[f"a film '{name}'"], understood=["explore a shot"],
                message=f"No film on the canvas is called '{name}'; name one by a word of its title, or select "
                        "the shot to explore."))
        if (then := THEN_A_CHANGE.search(text)) is not None:
            # The instruction goes to the explorers whole: a change after it ("and make shot 4 night", "then
            # delete the rest") was read by nobody, and the exploration reported done.
            return with_a_change(ctx, "explore a shot", then, "That is an exploration and a change in one "
                                 "request: I explore one shot per request, so I did neither. Ask for the exploration "
                                 "first, then say the change.")
        found = find_references(words)
        resolved = resolve_targets([f.reference for f in found], ctx.facts, previous=ctx.previous.targets,
                                   answer=ctx.answer, film=film)
        count = re.search(r"\b(\d+)\b", re.sub(r"\b(?:shots?|images?|frames?) #?\d+\b", " ", text))
        named = named_lighting(text)  # "at dawn, dusk and night": one candidate each (it made four of the first)
        n = max(2, min(8, int(count.group(1)))) if count else len(named) if 2 <= len(named) <= 8 else 4
        words.take_all()  # the instruction ("with 4 lighting moods") is passed to the explorers whole
        if resolved.missing or resolved.ambiguous or not resolved.targets:
            reason = "not_found" if resolved.missing else "ambiguous" if resolved.ambiguous else "no_target"
            return Reading(clarification=Clarification(
                reason=reason, missing=resolved.missing, candidates=resolved.ambiguous,
                understood=[f"explore {n} candidates"],
                message=(f"There is no {', '.join(resolved.missing)} {ctx.facts.where} to explore." if resolved.missing
                         else ambiguous_message(resolved.ambiguous) if resolved.ambiguous
                         else "Which shot should I explore? Name it ('shot 3') or select it.")))
        if len({t.id for t in resolved.targets}) > 1:
            # "explore shots 3 and 4 with 3 lighting moods" explored shot 3 alone
            return Reading(clarification=Clarification(
                reason="unsupported", understood=[f"explore {n} candidates"],
                message=f"I explore one shot at a time, and that names {len(resolved.targets)} "
                        f"({', '.join(t.title or t.id for t in resolved.targets)}), so I explored none. Name one."))
        target = resolved.targets[0]
        return Reading(clauses=[Clause(text=ctx.request, domain=self.name, operation="explore",
                                       targets=[target], references=[f.reference for f in found],
                                       args={"n": n, "instruction": ctx.request, "node_id": target.image_id or target.id},
                                       understood=[f"explore {n} candidates of {target.title or target.id}"])])
