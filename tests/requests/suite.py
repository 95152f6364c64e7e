"""The request suite (#20 §4): requests as people type them, on fresh premises, one line each.

Each row: (category, request, expected, context).  ``expected`` is
* ``{shot number: {what: value}}`` for shot edits (``what``: lighting, framing, weather, outfit, luma,
  warmth, blue, redo) — the exact targets and, per target, the exact modifications;
* ``ASK("reason")`` — the request must be asked about (a clarification with that reason), nothing done;
* ``OP("operation", {arg: value})`` — another operation, with these arguments.
``context``: "story" (an 8-shot story, the default), "deck", "page", "both" (deck and page), "empty",
"sel=N" (shot N's image selected), "prev" (the turn before made shot 3 night), "two" (two storyboards).

A *wrong success* is a request read as an action (no clarification) whose targets or modifications differ
from the expected ones, or an action where a clarification was expected.  It must be 0.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from nodes.understanding import CanvasFacts, NodeFact, ShotFact
from nodes.understanding.readers import PreviousTurn
from skills.storyboard import plan_story

PREMISE = "an 8-shot short film about Tova, a beekeeper on a city rooftop"
N = 8


class ASK(NamedTuple):
    reason: str


class OP(NamedTuple):
    operation: str
    args: dict[str, Any] = {}


def L(value: str) -> dict[str, str]:
    return {"lighting": value}


ALL = range(1, N + 1)

CASES: list[tuple[str, str, Any, str]] = [
    # -- numbers, number words, ordinals, lists, ranges -------------------------------------------------
    ("number", "make shot 4 night", {4: L("night")}, "story"),
    ("number", "shot six at golden hour please", {6: L("golden-hour")}, "story"),
    ("number", "can you make shot #2 foggy", {2: L("foggy")}, "story"),
    ("number", "the fifth shot should feel like sunset", {5: L("sunset")}, "story"),
    ("number", "shots 2 and 7 at dawn", {2: L("dawn"), 7: L("dawn")}, "story"),
    ("number", "shots 3-5 overcast", {3: L("overcast"), 4: L("overcast"), 5: L("overcast")}, "story"),
    ("number", "shots three to five in neon", {3: L("neon"), 4: L("neon"), 5: L("neon")}, "story"),
    ("number", "shot 1, shot 4 and shot 8 moonlit", {1: L("moonlit"), 4: L("moonlit"), 8: L("moonlit")}, "story"),
    ("number", "the 2nd and 3rd shots should be noir", {2: L("low-key"), 3: L("low-key")}, "story"),
    ("number", "image 5 with snow", {5: {"weather": "snow"}}, "story"),
    ("number", "frame 3 a close-up", {3: {"framing": "close-up"}}, "story"),
    ("number", "shot eight: put her in a yellow jacket", {8: {"outfit": "#f2c12e"}}, "story"),
    ("number", "shot 12 at night", ASK("not_found"), "story"),
    ("number", "shots 7 through 10 cold", ASK("not_found"), "story"),
    # -- positions ---------------------------------------------------------------------------------------
    ("position", "make the opening shot warmer", {1: {"warmth": "higher"}}, "story"),
    ("position", "the first shot at dawn", {1: L("dawn")}, "story"),
    ("position", "the last shot at dusk", {8: L("dusk")}, "story"),
    ("position", "make the final shot rainy", {8: {"weather": "rain"}}, "story"),
    ("position", "the last two shots should be foggy", {7: L("foggy"), 8: L("foggy")}, "story"),
    ("position", "the last 3 shots cooler", {6: {"warmth": "lower"}, 7: {"warmth": "lower"}, 8: {"warmth": "lower"}},
     "story"),
    ("position", "the first three shots at dawn", {1: L("dawn"), 2: L("dawn"), 3: L("dawn")}, "story"),
    ("position", "make the first two shots brighter", {1: {"luma": "higher"}, 2: {"luma": "higher"}}, "story"),
    ("position", "the one before the last should be neon", {7: L("neon")}, "story"),
    ("position", "make the second to last shot a wide shot", {7: {"framing": "wide"}}, "story"),
    ("position", "the penultimate shot in the rain", {7: {"weather": "rain"}}, "story"),
    ("position", "the middle shot at night", ASK("ambiguous"), "story"),
    ("position", "make the next one darker", {4: {"luma": "lower"}}, "prev"),
    ("position", "make the next shot overcast", {5: L("overcast")}, "sel=4"),
    ("position", "the previous shot should be warmer", {2: {"warmth": "higher"}}, "prev"),
    ("position", "the next one at dusk", ASK("no_target"), "story"),
    ("position", "the last shot should be candle-lit", {8: L("candle-lit")}, "story"),
    ("position", "every shot at noon", {n: L("noon") for n in ALL}, "story"),
    ("position", "all the shots in the snow", {n: {"weather": "snow"} for n in ALL}, "story"),
    ("position", "make everything moonlit", {n: L("moonlit") for n in ALL}, "story"),
    # -- descriptions ------------------------------------------------------------------------------------
    ("description", "make the shot where Tova pushes on darker", {5: {"luma": "lower"}}, "story"),
    ("description", "the shot where Tova discovers what changes everything at night", {4: L("night")}, "story"),
    ("description", "the shot where she is at rest should be candle-lit", {8: L("candle-lit")}, "story"),
    ("description", "the shot where Tova faces the decisive moment in the rain", ASK("ambiguous"), "story"),
    ("description", "the shot where Tova goes about an ordinary day warmer", ASK("ambiguous"), "story"),
    ("description", "the shot with the dragon at dusk", ASK("not_found"), "story"),
    ("description", "make the shot where nothing has happened yet foggy", {1: L("foggy")}, "story"),
    # -- selection ---------------------------------------------------------------------------------------
    ("selection", "make it darker", {4: {"luma": "lower"}}, "sel=4"),
    ("selection", "redo the lighting here", {4: {"redo": "lighting"}}, "sel=4"),
    ("selection", "make this one a close-up", {4: {"framing": "close-up"}}, "sel=4"),
    ("selection", "this should be at sunset", {4: L("sunset")}, "sel=4"),
    ("selection", "make the selected shot snowy", {4: {"weather": "snow"}}, "sel=4"),
    ("selection", "make it darker", ASK("no_target"), "story"),
    ("selection", "redo the lighting here", ASK("no_target"), "story"),
    ("selection", "these should be colder", ASK("no_target"), "story"),
    # -- the previous turn -------------------------------------------------------------------------------
    ("previous", "do the same to shot 5", {5: L("night")}, "prev"),
    ("previous", "do the same thing to shots 6 and 7", {6: L("night"), 7: L("night")}, "prev"),
    ("previous", "make the same shot brighter", {3: {"luma": "higher"}}, "prev"),
    ("previous", "that shot should be foggy instead", {3: L("foggy")}, "prev"),
    ("previous", "do the same to shot 5", ASK("no_target"), "story"),
    # -- clauses -----------------------------------------------------------------------------------------
    ("clauses", "make shot 2 warmer and shot 5 a close-up", {2: {"warmth": "higher"}, 5: {"framing": "close-up"}},
     "story"),
    ("clauses", "shot 1 at dawn, shot 8 at dusk", {1: L("dawn"), 8: L("dusk")}, "story"),
    ("clauses", "make shot 3 foggy then make shot 6 neon", {3: L("foggy"), 6: L("neon")}, "story"),
    ("clauses", "make shot 2 night and shot 4 dawn", {2: L("night"), 4: L("dawn")}, "story"),
    ("clauses", "give shot 1 snow; shot 2 rain", {1: {"weather": "snow"}, 2: {"weather": "rain"}}, "story"),
    ("clauses", "change the lighting of shot 2 and shot 4 to night", {2: L("night"), 4: L("night")}, "story"),
    ("clauses", "make shot 1 snowy and at dusk", {1: {"weather": "snow", "lighting": "dusk"}}, "story"),
    ("clauses", "make shot 4 darker, it feels too bright", {4: {"luma": "lower"}}, "story"),
    ("clauses", "the first shot at dawn and the last one at sunset", {1: L("dawn"), 8: L("sunset")}, "story"),
    ("clauses", "make shot 3 night and then make it snow", {3: {"lighting": "night", "weather": "snow"}}, "story"),
    ("clauses", "make shot 3 night and shot 3 dawn", ASK("conflict"), "story"),
    ("clauses", "shot 2 wider but same composition", ASK("conflict"), "story"),
    ("clauses", "make shot 5 warmer and also cooler", ASK("conflict"), "story"),
    # -- negation with scope -------------------------------------------------------------------------------
    ("negation", "shot 2 looks great, don't touch it, but make all the others dusk",
     {n: L("dusk") for n in ALL if n != 2}, "story"),
    ("negation", "everything at dusk except the last shot", {n: L("dusk") for n in ALL if n != 8}, "story"),
    ("negation", "make every shot overcast except shots 1 and 2", {n: L("overcast") for n in ALL if n > 2}, "story"),
    ("negation", "leave shot 4 alone and make the rest foggy", {n: L("foggy") for n in ALL if n != 4}, "story"),
    ("negation", "all shots at night but not shot 5", {n: L("night") for n in ALL if n != 5}, "story"),
    ("negation", "every shot at noon apart from the opening shot", {n: L("noon") for n in ALL if n != 1}, "story"),
    ("negation", "the last shot is perfect; make the other shots cooler",
     {n: {"warmth": "lower"} for n in ALL if n != 8}, "story"),
    ("negation", "make shot 3 night, keep the rest", {3: L("night")}, "story"),
    ("negation", "don't touch shot 6", ASK("unparsed"), "story"),
    ("negation", "make shot 2 foggy but not shot 2", ASK("conflict"), "story"),
    ("negation", "shot 1 is too bright", {1: {"luma": "lower"}}, "story"),
    ("negation", "shot 7 feels too cold", {7: {"warmth": "higher"}}, "story"),
    ("negation", "no more rain in shot 3", {3: {"weather": "clear"}}, "story"),
    # -- typos ---------------------------------------------------------------------------------------------
    ("typo", "mkae shto 6 nigth", {6: L("night")}, "story"),
    ("typo", "make shot 2 foggyy", {2: L("foggy")}, "story"),
    ("typo", "shot 3 at sunest", {3: L("sunset")}, "story"),
    ("typo", "the lsat shot at dawn", {8: L("dawn")}, "story"),
    ("typo", "make shot 4 darkr", {4: {"luma": "lower"}}, "story"),
    ("typo", "shot 5 as a closeup", {5: {"framing": "close-up"}}, "story"),
    ("typo", "make shot 1 a fight scene", ASK("unparsed"), "story"),
    ("typo", "make shot 2 glowy", ASK("unparsed"), "story"),
    # -- questions -------------------------------------------------------------------------------------------
    ("question", "which shots are at night?", OP("question", {"ask": "shots_with", "filter": {"lighting": "night"}}),
     "story"),
    ("question", "which shots are in the rain", OP("question", {"ask": "shots_with", "filter": {"weather": "rain"}}),
     "story"),
    ("question", "which shots are close-ups?", OP("question", {"ask": "shots_with", "filter": {"framing": "close-up"}}),
     "story"),
    ("question", "how many versions of shot 3 are there?", OP("question", {"ask": "versions"}), "story"),
    ("question", "how many versions does the last shot have", OP("question", {"ask": "versions"}), "story"),
    ("question", "what changed in the last turn?", OP("question", {"ask": "last_turn"}), "prev"),
    ("question", "what did you change?", OP("question", {"ask": "last_turn"}), "prev"),
    ("question", "which slides mention pollen?", OP("question", {"ask": "slides_mentioning", "terms": ["pollen"]}),
     "deck"),
    ("question", "what does the headline say?", OP("question", {"ask": "headline"}), "page"),
    ("question", "what lighting is shot 4?", OP("question", {"ask": "attribute", "attribute": "lighting"}), "story"),
    ("question", "how many images are there", OP("question", {"ask": "count", "kind": "image"}), "story"),
    ("question", "how many clips do we have?", OP("question", {"ask": "count", "kind": "video"}), "story"),
    ("question", "list the slides", OP("question", {"ask": "list", "kind": "slide"}), "deck"),
    ("question", "list the videos", OP("question", {"ask": "list", "kind": "video"}), "story"),
    ("question", "how many versions of shot 30 are there?", ASK("not_found"), "story"),
    ("question", "which shots feel lonely?", ASK("unparsed"), "story"),
    # -- routing by what the project holds -----------------------------------------------------------------
    ("routing", "a 5-slide deck about urban beekeeping", OP("build_deck", {"n_slides": 5}), "deck"),
    ("routing", "a new deck about pollinators", OP("build_deck"), "deck"),
    ("routing", "make a 4-slide presentation on honey", OP("build_deck", {"n_slides": 4}), "empty"),
    ("routing", "a website for a rooftop apiary: calm, golden, airy", OP("build_page"), "page"),
    ("routing", "a 5-shot short drama about a tram driver in the fog", OP("build_narrative", {"n_shots": 5}), "story"),
    ("routing", "make the hero full-bleed", OP("revise_page"), "page"),
    ("routing", "use 2 columns", OP("revise_page"), "page"),
    ("routing", "switch to a dark theme", OP("revise_page"), "page"),
    ("routing", "delete the last slide", ASK("unsupported"), "deck"),
    ("routing", "add a slide about training costs after slide 2", ASK("unsupported"), "deck"),
    ("routing", "change the title of slide 2 to 'Why now'", ASK("unsupported"), "deck"),
    ("routing", "move slide 3 to the end", ASK("unsupported"), "deck"),
    ("routing", "change the theme to dark", ASK("unsupported"), "deck"),
    ("routing", "regenerate the illustration on slide 2", ASK("unsupported"), "deck"),
    ("routing", "delete the last slide", ASK("not_found"), "story"),
    ("routing", "make the headline bigger", ASK("unsupported"), "page"),
    ("routing", "change the button colour to green", ASK("unsupported"), "page"),
    ("routing", "make the headline bigger", ASK("not_found"), "story"),
    ("routing", "make the hero full-bleed", ASK("not_found"), "deck"),
    ("routing", "make shot 3 night", ASK("not_found"), "page"),
    ("routing", "make it darker", ASK("no_target"), "page"),
    ("routing", "make it darker", ASK("no_target"), "deck"),
    ("unsupported", "swap shots 3 and 4 in the cut", ASK("not_found"), "deck"),
    ("unsupported", "undo the full-bleed change", ASK("unparsed"), "page"),
    # -- asked about: nothing the canvas or the grammar can place ---------------------------------------------
    ("ask", "make shot 3 more mysterious", ASK("unparsed"), "story"),
    ("ask", "flibber the wobble", ASK("unparsed"), "story"),
    ("ask", "make shot 2 sadder and warmer", ASK("unparsed"), "story"),
    ("ask", "make shot 4 night and add a dog", ASK("unparsed"), "story"),
    ("ask", "make shot 4 night with a dragon in the sky", ASK("unparsed"), "story"),
    ("ask", "shot 3", ASK("unparsed"), "story"),
    ("ask", "make it better", ASK("unparsed"), "story"),
    ("ask", "make shot 3 night", ASK("ambiguous"), "two"),
    ("ask", "make shot 3 night", ASK("not_found"), "empty"),
    ("ask", "make the bees louder in shot 2", ASK("unparsed"), "story"),
    # -- notes, status, explorations, repair, builds --------------------------------------------------------------
    ("other", "note: Tova's veil stays white in every shot", OP("note"), "story"),
    ("other", "add a note: check the honey colour with the client", OP("note"), "story"),
    ("other", "mark shot 2 as rejected", OP("status", {"status": "rejected"}), "story"),
    ("other", "explore shot 6 with 3 lighting moods", OP("explore", {"n": 3}), "story"),
    ("other", "try 4 variations of this", OP("explore", {"n": 4}), "sel=4"),
    ("other", "regenerate what is stale", OP("stale_repair"), "story"),
    ("other", "redo shot 4", {4: {"redo": "take"}}, "story"),
    ("other", "redo the lighting on shot 7", {7: {"redo": "lighting"}}, "story"),
    ("other", "shot 2, a tighter shot", {2: {"framing": "close-up"}}, "story"),
    ("other", "pull back to a wide shot on shot 6", {6: {"framing": "wide"}}, "story"),
    ("other", "make shot 5 less blue", {5: {"blue": "lower"}}, "story"),
    ("other", "turn shot 3 into a nighttime scene", {3: L("night")}, "story"),
    ("other", "keep the character but make shot 1 sunset", {1: L("sunset")}, "story"),
]


def story_facts(plan: str = "P", premise: str = PREMISE, n: int = N, prefix: str = "") -> list[ShotFact]:
    """The shots of a fresh premise, as the storyboard skill plans them, each with a current image."""
    story = plan_story(premise, n)
    return [ShotFact(id=f"{prefix}S{b.index}", title=f"shot {b.index}", number=b.index, beat=b.beat, plan=plan,
                     plan_title=story.title, image=f"{prefix}I{b.index}", version=1,
                     derived=[f"{prefix}C{b.index}", f"{prefix}CUT"], inputs={"lighting": "neutral"})
            for b in story.beats]


def facts_for(context: str) -> tuple[CanvasFacts, PreviousTurn]:
    """The facts and the previous turn of a row's context."""
    deck = [NodeFact(id="D1", kind="deck", title="Urban beekeeping")]
    slides = [NodeFact(id=f"SL{i}", kind="slide", title=f"Slide {i}", group="D1", index=i) for i in range(1, 6)]
    page = [NodeFact(id="PAGE", kind="code", title="Apiary page")]
    previous = PreviousTurn()
    if context == "empty":
        return CanvasFacts(), previous
    if context == "deck":
        return CanvasFacts(decks=deck, slides=slides), previous
    if context == "page":
        return CanvasFacts(pages=page), previous
    shots = story_facts()
    facts = CanvasFacts(shots=shots)
    if context == "two":
        facts.shots += story_facts("Q", "a 4-shot short film about a ferry in winter", 4, prefix="B")
    if context.startswith("sel="):
        n = int(context.split("=")[1])
        facts.selection = [NodeFact(id=f"I{n}", kind="image", title=f"shot {n} image", shot=f"S{n}")]
    if context == "prev":
        previous = PreviousTurn(turn_id="T0", request="make shot 3 night", targets=["S3"],
                                clauses=[{"operation": "edit", "modifications": {"changes": {"lighting": "night"}},
                                          "targets": [{"id": "S3", "kind": "shot"}]}])
    return facts, previous


def flatten(modifications: dict[str, Any]) -> dict[str, Any]:
    """A clause's modifications as the table writes them."""
    flat = dict(modifications.get("changes") or {})
    flat.update(modifications.get("relative") or {})
    if modifications.get("redo"):
        flat["redo"] = modifications["redo"]
    return flat


def judge(expected: Any, intent: Any) -> str:
    """'pass', 'asked' (an honest clarification where an action was expected), 'wrong' (a wrong success or a
    wrong clarification reason)."""
    if isinstance(expected, ASK):
        if intent.clarification is None:
            return "wrong_success"
        return "pass" if intent.clarification.reason == expected.reason else "wrong_reason"
    if intent.clarification is not None:
        return "asked"
    if isinstance(expected, OP):
        if intent.operation != expected.operation:
            return "wrong_success"
        args = intent.clauses[0].args
        return "pass" if all(args.get(k) == v for k, v in expected.args.items()) else "wrong_success"
    got: dict[int, dict[str, Any]] = {}
    for clause in intent.clauses:
        if clause.operation != "edit":
            return "wrong_success"
        for target in clause.targets:
            number = int(target.title.split()[-1])
            got.setdefault(number, {}).update(flatten(clause.modifications))
    return "pass" if got == expected else "wrong_success"
