"""Which output a version request means: a shot's image (or its clip, when the words say clip), the cut, the web
page, the deck, or a selected node.

A shot has no versions of its own: what a person changed is its image, and what was made from that image (its
clip, the cut) has versions of its own.  So "undo the last change to shot 2" is about shot 2's current image,
"revert shot 3's clip" about its clip, "go back to version 2 of the cut" about the cut.  Resolved on the facts
(``CanvasFacts``: no read per reference); the version tools accept any version of an output, so the current one
is named.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from nodes.understanding.decks import deck_candidates, which_deck
from nodes.understanding.facts import CanvasFacts, NodeFact, ShotFact
from nodes.understanding.intent import Reference, Target
from nodes.understanding.readers.base import ReadContext
from nodes.understanding.references import (
    film_candidates,
    film_cuts,
    find_references,
    pinned_film,
    read_film,
    resolve_targets,
)
from nodes.understanding.text import Words

CLIP_WORDS = re.compile(r"\b(?:video )?clips?\b|\bvideos?\b")
CLIP_NUMBER = re.compile(r"\b(?:video )?clips? #?(\d+)\b")
CUT_WORDS = re.compile(r"\b(?:the )?(?:final |current |whole |full )?(?:cut|edit|film|movie|sequence)\b")
PAGE_WORDS = re.compile(r"\b(?:the )?(?:web ?page|website|web site|site|page|landing page|homepage)\b")
DECK_WORDS = re.compile(r"\b(?:the )?(?:slide deck|deck|slides|presentation|lecture)\b")
OWNER = re.compile(r"\b(?:'s|of|for|on|in|from)\b|'s\b")


@dataclass
class Outputs:
    """What a request's words name, resolved: the outputs, and what could not be placed."""

    targets: list[Target] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    ambiguous: list[dict] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)

    @property
    def found(self) -> bool:
        """Whether anything was named (resolved or not)."""
        return bool(self.targets or self.missing or self.ambiguous or self.unresolved)


def shot_output(shot: ShotFact, said: str, *, clip: bool) -> Target | None:
    """A shot's current image (or its clip) as the target of a version operation."""
    if clip:
        if shot.clip is None:
            return None
        return Target(id=shot.clip, kind="video", title=f"{shot.title} clip", referred_as=said,
                      derived=[shot.cut] if shot.cut else [])
    if shot.image is None:
        return None
    return Target(id=shot.image, kind="image", title=f"{shot.title} image", referred_as=said, image_id=shot.image,
                  version=shot.version, derived=list(shot.derived), current=dict(shot.inputs))


def the_cut(facts: CanvasFacts, said: str, film: str | None) -> Target | list[dict] | None:
    """The cut of ``film`` (the one its shots' clips are in); with no film picked, the project's one cut, or, when
    several films have cuts, the films to ask between (never the newest: "undo the last change to the cut" on a
    project with two films undid the newer film's cut)."""
    cuts = film_cuts(facts)
    if film is not None:
        cut = cuts.get(film)
    elif len(cuts) > 1:
        return film_candidates(facts, said, list(cuts))
    else:
        cut = next(iter(cuts.values()), None)
    return Target(id=cut, kind="video", title="final cut", referred_as=said) if cut else None


def node_output(node: NodeFact, facts: CanvasFacts, said: str, *, clip: bool) -> Target:
    """A selected node as the output it belongs to: a selected shot (or its image, with "clip": its clip) is the
    shot's image or clip; any other node is its own output (the tools accept any version of one)."""
    shot = next((s for s in facts.shots if s.id in (node.id, node.shot)), None)
    if shot is not None and (node.kind == "shot" or node.id == shot.image or clip and node.kind == "image"):
        picked = shot_output(shot, said, clip=clip)
        if picked is not None:
            return picked
    return Target(id=node.id, kind=node.kind, title=node.title or node.id, referred_as=said)


def read_outputs(ctx: ReadContext, start: int = 0, end: int | None = None) -> Outputs:
    """The outputs the span names, with their words taken: the cut, the page, the deck, "clip N", shots (their
    images, or clips when the words say clip) by any reference the shot reader knows, and the selection."""
    words, facts = ctx.words, ctx.facts
    stop = len(words.text) if end is None else end
    found = Outputs()
    named_film = read_film(words, facts, start, stop)  # "shot 2 of the ferry film": not the cut
    film = named_film or pinned_film(facts, ctx.answer)
    for match in words.take(CUT_WORDS, start, stop):
        _add_cut(found, facts, match.group(0), film)
    for match in words.take(PAGE_WORDS, start, stop):
        page = facts.pages[0] if facts.pages else None
        _add(found, Target(id=page.id, kind="code", title=page.title or "the page", referred_as=match.group(0))
             if page else None, match.group(0), "a web page")
    choice = which_deck(facts, answer=ctx.answer, words=words) if words.peek(DECK_WORDS, start, stop) else None
    for match in words.take(DECK_WORDS, start, stop):
        if choice is not None and choice.candidates:  # several decks, and nothing says which: asked
            found.ambiguous += [c for c in deck_candidates(choice.candidates)
                                if c["id"] not in {a["id"] for a in found.ambiguous}]
            continue
        deck = choice.deck if choice is not None else None
        _add(found, Target(id=deck.id, kind="deck", title=deck.title or "the deck", referred_as=match.group(0))
             if deck else None, match.group(0), "a slide deck")
    clip = bool(CLIP_WORDS.search(words.text, start, stop))
    numbered = [Reference(said=m.group(0), form="number", numbers=[int(m.group(1))])
                for m in words.take(CLIP_NUMBER, start, stop)]
    words.take(CLIP_WORDS, start, stop)
    phrases = [f.reference for f in find_references(words, start, stop)]
    references = numbered + phrases
    if not references:
        if named_film is not None and not found.found:  # "undo the last change to the ferry film": its cut
            _add_cut(found, facts, "the film", named_film)
        return found
    found.references = references
    shots = {s.id: s for s in facts.shots}
    for reference in references:
        if reference.form == "selection" or reference.form == "pronoun" and not found.targets and facts.selection:
            if not facts.selection:
                found.unresolved.append(reference.said)
            for node in facts.selection:
                _add(found, node_output(node, facts, reference.said, clip=clip), reference.said, node.title)
            reference.target_ids = [t.id for t in found.targets]
            continue
        if reference.form == "pronoun" and found.targets:
            continue  # "revert shot 3 to how it was": "it" is the output just named
        resolved = resolve_targets([reference], facts, previous=ctx.previous.targets, answer=ctx.answer,
                                   film=named_film)
        found.missing += resolved.missing
        found.ambiguous += resolved.ambiguous
        found.unresolved += resolved.unresolved
        for target in resolved.targets:
            shot = shots.get(target.id)
            if shot is not None:
                _add(found, shot_output(shot, target.referred_as, clip=clip), target.referred_as,
                     f"{shot.title} {'clip' if clip else 'image'}")
    return found


def _add_cut(found: Outputs, facts: CanvasFacts, said: str, film: str | None) -> None:
    cut = the_cut(facts, said, film)
    if isinstance(cut, list):
        found.ambiguous += [c for c in cut if c["id"] not in {a["id"] for a in found.ambiguous}]
    else:
        _add(found, cut, said, "a cut")


def _add(found: Outputs, target: Target | None, said: str, what: str) -> None:
    if target is None:
        found.missing.append(what if what.startswith("a ") else f"{what} ({said})")
    elif target.id not in {t.id for t in found.targets}:
        found.targets.append(target)


def take_owner_words(words: Words, start: int = 0, end: int | None = None) -> None:
    """The small words that join an output to its owner ("shot 3's clip", "the clip of shot 3")."""
    words.take(OWNER, start, end)
