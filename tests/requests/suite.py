"""The request suite (#20 §4): requests as people type them, on fresh premises, one line each.

Each row: (category, request, expected, context).  ``expected`` is
* ``{shot number: {what: value}}`` for shot edits (``what``: lighting, framing, weather, outfit, luma,
  warmth, blue, redo) — the exact targets and, per target, the exact modifications;
* ``ASK("reason")`` — the request must be asked about (a clarification with that reason), nothing done;
* ``OP("operation", {arg: value})`` — another operation, with these arguments (a page or deck operation: the
  arguments its tool is called with); ``OPS(OP(...), ...)`` — several, one per clause, in order.
``context``: "story" (an 8-shot story, the default), "deck" (5 slides on a fresh topic, a picture on slide 4),
"page" (a fresh brief's page: hero, menu, gallery, testimonials, about, contact; 3 pictures), "both" (deck and
page), "page:sel" (its preview selected), "page:prev" (the turn before made two page versions), "deck:sel=3"
(slide 3 selected), "deck:stale" (a slide of an earlier version of the deck selected), "deck:prev" (the turn before deleted a slide), "deck:undone" (it was an undo), "empty",
"sel=N" (shot N's image selected), "prev" (the turn before made shot 3 night), "two" (two storyboards),
"decks2" (two decks: an older one on night markets, 3 slides, and the beekeeping deck), "decks2:sel" (slide 2 of
the older deck selected), "two:sel" / "two:selB" (two storyboards; shot 2's image of the older, beekeeper film,
or of the newer, ferry film, selected), "two:looks" / "two:looksB" (shot 5 of the first film and shot 3 of the second
foggy; nothing selected, or shot 2 of the second selected).  ``IN_DECK("D0", OP(...))``: the operation, on that deck;
``IN_FILM("B", {...})``: the shot edits, on that film's shots.

A *wrong success* is a request read as an action (no clarification) whose targets or modifications differ
from the expected ones, or an action where a clarification was expected.  It must be 0.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from content.page_document import PageDocument
from content.web_render import LayoutSpec, PageImage, derive_design
from nodes.understanding import CanvasFacts, NodeFact, ShotFact
from nodes.understanding.readers import PreviousTurn
from skills.slides import plan_slides
from skills.storyboard import plan_story

PREMISE = "an 8-shot short film about Tova, a beekeeper on a city rooftop"
N = 8


class ASK(NamedTuple):
    reason: str


class OP(NamedTuple):
    operation: str
    args: dict[str, Any] = {}


class IN_DECK(NamedTuple):
    """An operation on one deck of several (its clause's first target), or several (``OPS``), each on that deck."""

    deck: str
    op: Any


class IN_FILM(NamedTuple):
    """A shot edit on one film of several: every target is a shot of that film (its ids' prefix: "" for the
    beekeeper film, "B" for the ferry film of the "two" contexts)."""

    prefix: str
    shots: dict[int, dict[str, Any]]


class OPS(tuple):
    """Several operations, in order (one per clause)."""

    def __new__(cls, *ops: OP) -> OPS:
        return super().__new__(cls, ops)


def STYLE(token: str, value: str) -> OP:
    return OP("page_set_style", {"token": token, "value": value})


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
    ("number", "make shots 1-3 and 5 darker", {n: {"luma": "lower"} for n in (1, 2, 3, 5)}, "story"),
    ("number", "make both shot 1 and shot 2 rainy", {1: {"weather": "rain"}, 2: {"weather": "rain"}}, "story"),
    ("number", "make shot 2 less blue and more warm", {2: {"blue": "lower", "warmth": "higher"}}, "story"),
    ("number", "change shot 7 from night to day", {7: L("noon")}, "story"),  # it asked about 'day'
    ("number", "change shot 2 from dusk to dawn", {2: L("dawn")}, "story"),
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
    # counted from the end: "but one" was a filler, and "the last but one shot" made shot 8 night (exit 0)
    ("position", "make the last but one shot night", {7: {"lighting": "night"}}, "story"),
    ("position", "make the last shot but two rainy", {6: {"weather": "rain"}}, "story"),
    ("position", "make the third to last shot night", {6: {"lighting": "night"}}, "story"),
    ("position", "the 3rd shot from the end at dawn", {6: {"lighting": "dawn"}}, "story"),
    ("position", "make the 9th to last shot night", ASK("not_found"), "story"),
    ("position", "the middle shot at night", ASK("ambiguous"), "story"),
    ("position", "make the next one darker", {4: {"luma": "lower"}}, "prev"),
    ("position", "make the next shot overcast", {5: L("overcast")}, "sel=4"),
    ("position", "the previous shot should be warmer", {2: {"warmth": "higher"}}, "prev"),
    # yes-or-no questions were edits ("is shot 3 too dark?" brightened it; "is shot 3 at night?" made it night)
    ("question", "is shot 3 too dark?", ASK("unsupported"), "story"),
    ("question", "is shot 3 at night?", OP("question", {"ask": "attribute", "attribute": "look"}), "story"),
    # other forms of yes-or-no question were edits too ("did you make shot 6 rainy?" made it rainy)
    *(("question", q, OP("question", {"ask": "attribute", "attribute": "look"}), "story") for q in (
        "did you make shot 6 rainy?", "have you made shot 3 a close-up?", "was shot 8 at night",
        "does shot 4 have snow in it?", "shot 2 is at dusk, right?", "has shot 3 changed?")),
    ("question", "should shot 4 be a wide shot?", ASK("unsupported"), "story"),
    ("question", "do you think shot 3 is too dark?", ASK("unsupported"), "story"),
    ("question", "did you make the headline bigger?", ASK("unsupported"), "page"),
    ("question", "is slide 2 called Costs?", ASK("unsupported"), "deck"),
    # unquoted new words that held more than the words: each was written in word for word, with exit 0
    ("typo", "change the headline to Quiet Light", OP("page_set_text", {"element": "headline", "text": "Quiet Light"}),
     "page"),
    *(("page", q, ASK("unparsed"), "page") for q in (
        "change the headline to Quiet Light and make it bigger", "the button should say Book now, not Start a "
        "conversation", "headline: Quiet Light, and make it a bit smaller", "change the tagline to Slow portraits "
        "but leave the button as is", "change the headline to something punchier", "change the button to something "
        "less pushy", "rewrite the about text to sound less formal")),
    # shots left out by bare numbers, lists with ranges, "as well, but" in one request (each changed other shots)
    ("negation", "make everything rainy, leave 3 alone", {n: {"weather": "rain"} for n in ALL if n != 3}, "story"),
    ("negation", "make everything rainy, leave 2 to 4 alone", {n: {"weather": "rain"} for n in (1, 5, 6, 7, 8)},
     "story"),
    ("number", "shots 1, 3 and 5-7 at dusk", {n: L("dusk") for n in (1, 3, 5, 6, 7)}, "story"),
    ("number", "shots 1-2 and 7-8 rainy", {n: {"weather": "rain"} for n in (1, 2, 7, 8)}, "story"),
    ("clauses", "make shot 3 rainy, and shot 7 as well, but wide",
     {3: {"weather": "rain"}, 7: {"weather": "rain", "framing": "wide"}}, "story"),
    # "the website" named in a request: it built a second page titled with the request, the rest dropped
    ("routing", "retitle slide 1 to 'Ines and the sea' and make the website headline match", ASK("unparsed"), "deck"),
    ("routing", "put the summary on the website too", ASK("unparsed"), "deck"),
    ("routing", "make a web page about the deck", OP("build_page", {}), "deck"),
    # words around a build were its title ("Now make a deck ...", a page branded "Film Too")
    ("routing", "and a one-page website for the film too", OP("build_page", {"brief": "a one-page website for the film"}),
     "story"),
    *(("slides", q, ASK("unparsed"), "deck") for q in (
        "retitle slide 4 to How it works but keep the diagram", "call slide 5 The big idea, it's catchier",
        "call slide 3 something snappier", "change the title of slide 2 to something shorter",
        "I'd call the summary slide a bit boring, can you liven it up?",
        "add a slide about training costs with a bar chart of GPU prices after slide 4")),
    ("question", "the headline is navy, right?", ASK("unsupported"), "page"),
    ("question", "does shot 3 look too dark?", ASK("unsupported"), "story"),
    ("previous", "do shot 5 too", {5: {"lighting": "night"}}, "prev"),  # an imperative "do", not a question
    # a negation typed without its apostrophe: "shouldnt" was corrected to "should", and shot 6 was made cold
    ("negation", "shot 6 shouldnt be so cold", ASK("unparsed"), "story"),
    # the first probe of the evening: shots named loosely, each done to other shots with exit 0
    ("negation", "make shot 6 or shot 7 night", ASK("ambiguous"), "story"),
    ("negation", "make all shots darker but not 2 or 5", {n: {"luma": "lower"} for n in ALL if n not in (2, 5)},
     "story"),
    ("position", "make shots 4 and 6 night, and make the second one rainy as well", ASK("ambiguous"), "story"),
    ("position", "make shots 7 and 8 close up and the first one snowy", ASK("ambiguous"), "story"),
    ("negation", "make shots 2-4 wide but not the first one", ASK("ambiguous"), "story"),
    ("negation", "make every shot without snow dusk", ASK("ambiguous"), "story"),
    ("other", "make the coat in shot 5 a darker red", ASK("ambiguous"), "story"),
    # the last change and another with it: "but wide" was done alone (the last turn's night was dropped)
    ("previous", "same for shots 6 and 7, but wide", {6: {"lighting": "night", "framing": "wide"},
                                                      7: {"lighting": "night", "framing": "wide"}}, "prev"),
    ("previous", "the same for shot 5 but at dusk", {5: {"lighting": "dusk"}}, "prev"),
    # a correction of the last turn's shot: asked as "instead" is (it asked "not what to change; 'no', 'meant'")
    ("previous", "no, I meant shot 6", ASK("ambiguous"), "prev"),
    ("previous", "sorry, shot 6 not shot 3", ASK("ambiguous"), "prev"),
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
    ("previous", "same for shots 5 and 6", {5: L("night"), 6: L("night")}, "prev"),
    # "instead" after a turn that changed other shots: moving the change is not what editing shot 5 alone does
    ("previous", "make shot 5 night instead", ASK("ambiguous"), "prev"),
    ("previous", "make it dusk instead", {3: L("dusk")}, "prev"),
    ("previous", "no, make shot 5 night instead", ASK("ambiguous"), "prev"),
    ("previous", "make the same shot brighter", {3: {"luma": "higher"}}, "prev"),
    ("previous", "that shot should be foggy instead", {3: L("foggy")}, "prev"),
    ("previous", "do the same to shot 5", ASK("no_target"), "story"),
    # "it" and a leading "that's" with nothing named or selected: what the turn before changed (it asked which shot)
    ("previous", "that's too dark, make it lighter", {3: {"luma": "higher"}}, "prev"),
    ("previous", "that looks too cold", {3: {"warmth": "higher"}}, "prev"),
    ("previous", "make it rainy too", {3: {"weather": "rain"}}, "prev"),
    ("previous", "that's too dark", ASK("no_target"), "story"),
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
    # how many, not which: "all but two shots" spared shot 2, and "night but one" changed every shot (exit 0)
    ("negation", "make all but two shots night", ASK("ambiguous"), "story"),
    ("negation", "make every shot night but one", ASK("ambiguous"), "story"),
    ("negation", "make all shots warmer except 2 of them", ASK("ambiguous"), "story"),
    ("negation", "make every shot except shot three warmer", {n: {"warmth": "higher"} for n in ALL if n != 3}, "story"),
    # "instead of shot 4": made both night (exit 0)
    ("negation", "make shot 3 night instead of shot 4", ASK("ambiguous"), "story"),
    # a limit no step says: done as plain night (exit 0)
    ("negation", "make shot 3 night but not too dark", ASK("unparsed"), "story"),
    ("negation", "make every shot overcast except shots 1 and 2", {n: L("overcast") for n in ALL if n > 2}, "story"),
    ("negation", "leave shot 4 alone and make the rest foggy", {n: L("foggy") for n in ALL if n != 4}, "story"),
    ("negation", "all shots at night but not shot 5", {n: L("night") for n in ALL if n != 5}, "story"),
    ("negation", "every shot at noon apart from the opening shot", {n: L("noon") for n in ALL if n != 1}, "story"),
    ("negation", "the last shot is perfect; make the other shots cooler",
     {n: {"warmth": "lower"} for n in ALL if n != 8}, "story"),
    ("negation", "make shot 3 night, keep the rest", {3: L("night")}, "story"),
    ("negation", "don't touch shot 6", ASK("unparsed"), "story"),
    ("negation", "make shot 2 foggy but not shot 2", ASK("conflict"), "story"),
    # A range is a set to carve from, as "every shot" is (it asked "change shot 2 and not touch it?").
    ("negation", "make shots 1 to 3 warmer except shot 2", {1: {"warmth": "higher"}, 3: {"warmth": "higher"}}, "story"),
    ("negation", "shots 4-7 at dusk but not shot 5", {n: L("dusk") for n in (4, 6, 7)}, "story"),
    ("negation", "make shots 2 and 3 foggy except shot 3", ASK("conflict"), "story"),
    ("negation", "make shots 1 to 3 and 5 warmer except shot 5", ASK("conflict"), "story"),
    # the first or last few and the odd or even shots are sets too (they were asked about as a contradiction)
    ("negation", "make the first three shots night except shot 2", {1: L("night"), 3: L("night")}, "story"),
    ("negation", "make the odd shots night except shot 3", {n: L("night") for n in (1, 5, 7)}, "story"),
    ("negation", "make the first shot night except shot 1", ASK("conflict"), "story"),
    ("negation", "make shot 2 night and don't change anything else", {2: L("night")}, "story"),
    # A bare number after "except" is a shot when the request names a set of shots to carve it from.
    ("negation", "make every shot except 3 darker", {n: {"luma": "lower"} for n in ALL if n != 3}, "story"),
    ("negation", "all shots warmer except 2 and 7", {n: {"warmth": "higher"} for n in ALL if n not in (2, 7)}, "story"),
    ("negation", "every shot at dusk, not 4", {n: L("dusk") for n in ALL if n != 4}, "story"),
    ("negation", "make every shot warmer but not 2 or 9", ASK("not_found"), "story"),
    # "but" right after a set says what is left out of it, as "except" does (it edited the whole set)
    ("negation", "make all shots but shot 3 night", {n: L("night") for n in ALL if n != 3}, "story"),
    ("negation", "make every shot but the last one night", {n: L("night") for n in ALL if n != N}, "story"),
    ("negation", "make all but the last two shots night", {n: L("night") for n in ALL if n < N - 1}, "story"),
    ("negation", "make every shot night but shot 2 should stay as it is", {n: L("night") for n in ALL if n != 2},
     "story"),
    ("negation", "make all shots warmer but keep shot 3 the same", {n: {"warmth": "higher"} for n in ALL if n != 3},
     "story"),
    ("negation", "make shot 3 darker except 3", ASK("unparsed"), "story"),
    # the other shots kept, said several ways (it read "not to touch" shot 3 itself); what it is not to be is no change
    ("negation", "make shot 3 a bit darker but don't touch the other shots", {3: {"luma": "lower"}}, "story"),
    ("negation", "take the rain out of shots 2 and 3 but leave it on the others",
     {2: {"weather": "clear"}, 3: {"weather": "clear"}}, "story"),
    ("negation", "shot 6 should be warmer, not cooler", {6: {"warmth": "higher"}}, "story"),
    ("previous", "make the other shots night", {n: L("night") for n in ALL if n != 3}, "prev"),
    ("other", "make only shot 4 warmer", {4: {"warmth": "higher"}}, "story"),
    # a place counted from a shot the same clause named (asked: "which shot 'the one before it' means")
    ("position", "make shot 3 and the one before it warmer", {n: {"warmth": "higher"} for n in (2, 3)}, "story"),
    ("position", "make shot 4 warmer, and the one after it too", {n: {"warmth": "higher"} for n in (4, 5)}, "story"),
    ("position", "make the last shot and the one before it warmer", {n: {"warmth": "higher"} for n in (7, 8)}, "story"),
    ("other", "warmer and a bit darker: shots 4 and 6 only",
     {n: {"warmth": "higher", "luma": "lower"} for n in (4, 6)}, "story"),
    # "other than" / "apart from" say "except" (the first was refused as a comparison with shot 1)
    ("negation", "make all shots warmer other than shot 1", {n: {"warmth": "higher"} for n in ALL if n != 1}, "story"),
    ("negation", "other than shot 2, make every shot night", {n: L("night") for n in ALL if n != 2}, "story"),
    ("negation", "make every shot night apart from the last one", {n: L("night") for n in ALL if n != 8}, "story"),
    # degree words: how far the comparative goes (tests/requests/test_grammar.py checks the steps)
    ("other", "make shot 2 much darker", {2: {"luma": "lower"}}, "story"),
    ("other", "darken shot 3 a little", {3: {"luma": "lower"}}, "story"),
    # a question asked through "can you tell me"; a question and an edit of its answer together are asked about
    # (the question was answered and "make them warmer" dropped, with exit 0)
    ("question", "can you tell me which shots are at night?",
     OP("question", {"ask": "shots_with", "filter": {"lighting": "night"}}), "story"),
    ("question", "could you please tell me how many shots there are", OP("question", {"ask": "count", "kind": "shot"}),
     "story"),
    ("question", "which shots are at night and make them warmer", ASK("unsupported"), "story"),
    # the look before the noun (asked about); a comparative is no look to filter by (it listed every shot)
    ("question", "list the night shots", OP("question", {"ask": "shots_with", "filter": {"lighting": "night"}}),
     "story"),
    ("question", "show me the rainy ones", OP("question", {"ask": "shots_with", "filter": {"weather": "rain"}}),
     "story"),
    ("question", "which shots are darker?", ASK("unsupported"), "story"),
    ("question", "tell me which shots are at night and make them warmer", ASK("unsupported"), "story"),
    ("negation", "shot 1 is too bright", {1: {"luma": "lower"}}, "story"),
    ("negation", "shot 7 feels too cold", {7: {"warmth": "higher"}}, "story"),
    ("negation", "no more rain in shot 3", {3: {"weather": "clear"}}, "story"),
    ("negation", "remove the rain from shot 2", {2: {"weather": "clear"}}, "story"),
    ("other", "add snow to shot 3", {3: {"weather": "snow"}}, "story"),
    ("position", "make the first and last shots warmer", {1: {"warmth": "higher"}, N: {"warmth": "higher"}}, "story"),
    ("position", "make every other shot night", {n: L("night") for n in ALL if n % 2 == 1}, "story"),
    ("position", "make the even shots night", {n: L("night") for n in ALL if n % 2 == 0}, "story"),
    ("other", "make shot 2 even darker", {2: {"luma": "lower"}}, "story"),
    ("negation", "make shot 3 night instead of dusk", {3: L("night")}, "story"),
    ("negation", "make shot 3 at dawn, not dusk", {3: L("dawn")}, "story"),
    ("negation", "make shot 4 not night", ASK("unparsed"), "story"),
    ("other", "turn off the rain in shot 2", {2: {"weather": "clear"}}, "story"),
    ("other", "make shot 2 night, and the same for shot 5", {2: L("night"), 5: L("night")}, "story"),
    ("other", "add some fog to shot 4", {4: L("foggy")}, "story"),
    ("other", "give shot 1 more contrast", ASK("unparsed"), "story"),
    ("negation", "get rid of the snow in the last shot and make it dusk", {8: {"weather": "clear", **L("dusk")}},
     "story"),
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
    # it was answered with every shot ("did you change" read as fillers), exit 0
    ("question", "which shots did you change?", OP("question", {"ask": "last_turn"}), "prev"),
    ("question", "which slides mention pollen?", OP("question", {"ask": "slides_mentioning", "terms": ["pollen"]}),
     "deck"),
    ("question", "what does the headline say?", OP("question", {"ask": "headline"}), "page"),
    ("question", "what lighting is shot 4?", OP("question", {"ask": "attribute", "attribute": "lighting"}), "story"),
    # it listed every shot
    ("question", "what does shot 3 look like?", OP("question", {"ask": "attribute", "attribute": "look"}), "story"),
    ("question", "describe shot 2", OP("question", {"ask": "attribute", "attribute": "look"}), "story"),
    ("question", "how many images are there", OP("question", {"ask": "count", "kind": "image"}), "story"),
    ("question", "how many clips do we have?", OP("question", {"ask": "count", "kind": "video"}), "story"),
    ("question", "list the slides", OP("question", {"ask": "list", "kind": "slide"}), "deck"),
    ("question", "list the videos", OP("question", {"ask": "list", "kind": "video"}), "story"),
    ("question", "how many versions of shot 30 are there?", ASK("not_found"), "story"),
    ("question", "which shots feel lonely?", ASK("unparsed"), "story"),
    # -- routing by what the project holds -----------------------------------------------------------------
    # "everything" on a canvas holding a film and a deck was every shot (the deck left as it was, the report done)
    ("routing", "make everything darker", ASK("no_target"), "mixed"),
    ("routing", "revert everything to the original", ASK("no_target"), "mixed"),
    ("routing", "make every shot darker", {n: {"luma": "lower"} for n in ALL}, "mixed"),
    # words of no one kind on a canvas of several (the last shot was changed; only the shots' images were warmed)
    ("routing", "make the last one brighter", ASK("no_target"), "mixed"),
    ("routing", "make all the images warmer", ASK("no_target"), "mixed"),
    ("routing", "make all the images warmer", {n: {"warmth": "higher"} for n in ALL}, "story"),
    ("routing", "a 5-slide deck about urban beekeeping", OP("build_deck", {"n_slides": 5}), "deck"),
    ("routing", "a new deck about pollinators", OP("build_deck"), "deck"),
    ("routing", "make a 4-slide presentation on honey", OP("build_deck", {"n_slides": 4}), "empty"),
    ("routing", "a website for a rooftop apiary: calm, golden, airy", OP("build_page"), "page"),
    ("routing", "a 5-shot short drama about a tram driver in the fog", OP("build_narrative", {"n_shots": 5}), "story"),
    # A size no skill makes is asked about, never built at another size (a 30-shot film made as 24 shots).
    ("routing", "make a 40-slide deck about coffee", ASK("unsupported"), "empty"),
    ("routing", "a 1-slide deck about honey", ASK("unsupported"), "deck"),
    ("routing", "a 30-shot short film about a night ferry", ASK("unsupported"), "story"),
    ("routing", "make a 0-shot story about a cat", ASK("unsupported"), "empty"),
    ("routing", "make the hero full-bleed", OP("revise_page"), "page"),
    ("routing", "use 2 columns", OP("revise_page"), "page"),
    ("routing", "switch to a dark theme", OP("revise_page"), "page"),
    ("routing", "delete the last slide", OP("deck_delete_slide", {"slide": 5}), "deck"),
    ("slides", "delete the third to last slide", OP("deck_delete_slide", {"slide": 3}), "deck"),
    ("slides", "delete the last slide but one", OP("deck_delete_slide", {"slide": 4}), "deck"),
    ("slides", "retitle the last but one slide to Parts", OP("deck_edit_slide", {"slide": 4, "title": "Parts"}),
     "deck"),
    # the deck as a set, less what is spared (each was asked about)
    # several bullets, or one bullet of several slides: each slide one edit (asked about, or read as slide deletes)
    ("slides", "remove the last two bullets from the fifth slide", OP("deck_remove_bullet", {"slide": 5, "bullet": [2, 3]}),
     "deck"),
    ("slides", "remove bullets 2 and 3 from slide 2", OP("deck_remove_bullet", {"slide": 2, "bullet": [2, 3]}), "deck"),
    ("slides", "remove the first bullet from slides 2 and 3",
     OPS(OP("deck_remove_bullet", {"slide": 2, "bullet": 1}), OP("deck_remove_bullet", {"slide": 3, "bullet": 1})),
     "deck"),
    ("slides", "remove the last 9 bullets from slide 2", ASK("not_found"), "deck"),
    ("slides", "retitle the summary to Wrap-up", OP("deck_edit_slide", {"slide": 5, "title": "Wrap-up"}), "deck"),
    ("slides", "rename the deck to Bees", ASK("unparsed"), "deck"),
    # a copy of a slide (asked about: no operation copied one)
    ("slides", "duplicate slide 2", OP("deck_duplicate_slide", {"slide": 2, "after": 2}), "deck"),
    ("slides", "make a copy of the last slide and put it at the start",
     OP("deck_duplicate_slide", {"slide": 5, "after": 0}), "deck"),
    ("slides", "copy slide 4 after slide 1", OP("deck_duplicate_slide", {"slide": 4, "after": 1}), "deck"),
    ("slides", "duplicate slides 2 and 3", ASK("unparsed"), "deck"),
    ("slides", "delete all slides but two", ASK("ambiguous"), "deck"),
    ("slides", "delete slide 2 or slide 3", ASK("ambiguous"), "deck"),
    ("slides", "rename the last slide to 'Takeaways' and delete the one before it", ASK("unparsed"), "deck"),
    ("slides", "add the bullet 'Three parts' to slide 3", OP("deck_add_bullet", {"slide": 3, "bullet": "Three parts"}),
     "deck"),
    ("slides", "add a slide about sampling speed before the summary",
     OP("deck_add_slide", {"after": 4, "about": "sampling speed"}), "deck"),
    ("slides", "add a slide on guidance as the new second slide", OP("deck_add_slide", {"after": 1, "about": "guidance"}),
     "deck"),
    ("slides", "delete all the slides except 2 of them", ASK("ambiguous"), "deck"),
    ("slides", "delete slide 3 instead of slide 4", ASK("ambiguous"), "deck"),
    ("slides", "retitle slide 3 instead of slide 4 to Costs", ASK("ambiguous"), "deck"),
    ("slides", "delete every slide except slide two", OPS(*(OP("deck_delete_slide", {"slide": n}) for n in (5, 4, 3, 1))),
     "deck"),
    ("slides", "delete every slide except the first",
     OPS(*(OP("deck_delete_slide", {"slide": n}) for n in (5, 4, 3, 2))), "deck"),
    ("slides", "delete all slides but the first", OPS(*(OP("deck_delete_slide", {"slide": n}) for n in (5, 4, 3, 2))),
     "deck"),
    ("slides", "delete every slide except the first and the last",
     OPS(*(OP("deck_delete_slide", {"slide": n}) for n in (4, 3, 2))), "deck"),
    ("slides", "delete all the slides after slide 3", OPS(*(OP("deck_delete_slide", {"slide": n}) for n in (5, 4))),
     "deck"),
    ("slides", "delete every slide", ASK("conflict"), "deck"),
    ("slides", "delete every slide except slide 9", ASK("not_found"), "deck"),
    # one slide's words (answered with every slide's title, or as a shot's look)
    ("question", "what is on slide 3?", OP("question", {"ask": "slide", "slide": 3}), "deck"),
    ("question", "describe slide 3", OP("question", {"ask": "slide", "slide": 3}), "deck"),
    ("question", "what does the last slide say?", OP("question", {"ask": "slide", "slide": 5}), "mixed"),
    # the page's sections and style values (asked about: "a list of the code")
    ("question", "which sections does the page have?", OP("question", {"ask": "page_sections"}), "page"),
    ("question", "what colour are the buttons?", OP("question", {"ask": "page_style", "tokens": ["button-colour"]}),
     "page"),
    ("question", "what font does the page use?",
     OP("question", {"ask": "page_style", "tokens": ["heading-font", "body-font"]}), "page"),
    ("question", "how big is the headline?", OP("question", {"ask": "page_style", "tokens": ["headline-size"]}), "page"),
    ("question", "what is on slide 9?", ASK("not_found"), "deck"),
    # a place named after an earlier clause moved a slide there or away (it deleted the slide just moved)
    ("slides", "move slide 5 to position 2, then delete the last slide", ASK("ambiguous"), "deck"),
    ("slides", "add a slide about costs at the end and delete the last slide", ASK("ambiguous"), "deck"),
    ("slides", "delete slide 2 and retitle the last slide to Wrap-up",
     OPS(OP("deck_delete_slide", {"slide": 2}), OP("deck_edit_slide", {"slide": 4, "title": "Wrap-up"})), "deck"),
    # a second slide and its title after the first's (it was dropped, or became part of the first title)
    ("slides", "rename slide 3 to 'Parts' and slide 4 to 'Process'",
     OPS(OP("deck_edit_slide", {"slide": 3, "title": "Parts"}), OP("deck_edit_slide", {"slide": 4, "title": "Process"})),
     "deck"),
    ("slides", "rename slide 3 to Parts and slide 4 to Process",
     OPS(OP("deck_edit_slide", {"slide": 3, "title": "Parts"}), OP("deck_edit_slide", {"slide": 4, "title": "Process"})),
     "deck"),
    ("slides", "rename slide 3 to 'Bees and honey'", OP("deck_edit_slide", {"slide": 3, "title": "Bees and honey"}),
     "deck"),
    ("slides", "rename slide 3 to 'Parts' and slide 3 to 'X'", ASK("conflict"), "deck"),
    ("slides", "switch the deck to a dark theme", OP("deck_set_theme", {"theme": "dark"}), "deck"),
    # a slide by its title alone, by the slide next to it, and where it goes said as what it is after (each asked)
    ("slides", "delete the summary", OP("deck_delete_slide", {"slide": 5}), "deck"),
    ("slides", "get rid of the slide right before the summary", OP("deck_delete_slide", {"slide": 4}), "deck"),
    ("slides", "delete the slide after slide 2", OP("deck_delete_slide", {"slide": 3}), "deck"),
    ("slides", "delete the slide before the first slide", ASK("not_found"), "deck"),
    ("slides", "move the summary so it's the 2nd slide", OP("deck_move_slide", {"slide": 5, "to": 2}), "deck"),
    ("slides", "move the summary slide so it comes right after the title slide",
     OP("deck_move_slide", {"slide": 5, "to": 2}), "deck"),
    ("slides", "move slide 2 so it's last", OP("deck_move_slide", {"slide": 2, "to": 5}), "deck"),
    ("slides", "use the midnight theme but keep the slide order exactly as it is",
     OP("deck_set_theme", {"theme": "midnight"}), "deck"),
    ("slides", "make the title slide say 'Bees 101'", OP("deck_edit_slide", {"slide": 1, "title": "Bees 101"}), "deck"),
    ("slides", "make slide 3 say 'hello'", ASK("unparsed"), "deck"),  # its title or a bullet? asked
    ("question", "can you tell me how many slides there are?", OP("question", {"ask": "count", "kind": "slide"}),
     "deck"),
    ("routing", "delete the first and last slides",
     OPS(OP("deck_delete_slide", {"slide": 5}), OP("deck_delete_slide", {"slide": 1})), "deck"),
    ("routing", "add a slide about training costs after slide 2",
     OP("deck_add_slide", {"after": 2, "about": "training costs"}), "deck"),
    ("routing", "change the title of slide 2 to 'Why now'", OP("deck_edit_slide", {"slide": 2, "title": "Why now"}),
     "deck"),
    ("routing", "move slide 3 to the end", OP("deck_move_slide", {"slide": 3, "to": 5}), "deck"),
    ("routing", "change the theme to dark", OP("deck_set_theme", {"theme": "dark"}), "deck"),
    ("routing", "regenerate the illustration on slide 2", OP("deck_regenerate_illustration", {"slide": 2}), "deck"),
    ("routing", "delete the last slide", ASK("not_found"), "story"),
    ("routing", "make the headline bigger", OP("page_set_style", {"token": "headline-size", "value": "bigger"}),
     "page"),
    ("routing", "change the button colour to green", OP("page_set_style", {"token": "button-colour", "value": "green"}),
     "page"),
    ("routing", "make the headline bigger", ASK("not_found"), "story"),
    ("routing", "make the hero full-bleed", ASK("not_found"), "deck"),
    ("routing", "make shot 3 night", ASK("not_found"), "page"),
    ("routing", "make it darker", ASK("no_target"), "page"),
    ("routing", "make it darker", ASK("no_target"), "deck"),
    ("unsupported", "swap shots 3 and 4 in the cut", ASK("not_found"), "deck"),
    ("unsupported", "undo the last change to shot 2", ASK("not_found"), "page"),
    # -- asked about: nothing the canvas or the grammar can place ---------------------------------------------
    ("ask", "make shot 3 more mysterious", ASK("unparsed"), "story"),
    ("ask", "flibber the wobble", ASK("unparsed"), "story"),
    ("ask", "make shot 2 sadder and warmer", ASK("unparsed"), "story"),
    ("ask", "make shot 4 night and add a dog", ASK("unparsed"), "story"),
    ("ask", "make shot 4 night with a dragon in the sky", ASK("unparsed"), "story"),
    ("ask", "shot 3", ASK("unparsed"), "story"),
    ("ask", "make it better", ASK("unparsed"), "story"),
    ("ask", "make shot 3 night", ASK("ambiguous"), "two"),
    # "or" with the change between the shots: both were changed, exit 0
    ("ask", "make shot 2 night or shot 3", ASK("ambiguous"), "story"),
    ("ask", "make shot 2 a close-up or shot 3", ASK("ambiguous"), "story"),
    ("negation", "make shot 3 night without changing shot 4", {3: L("night")}, "story"),
    ("ask", "make shot 3 night", ASK("not_found"), "empty"),
    ("ask", "make the bees louder in shot 2", ASK("unparsed"), "story"),
    # Wrong successes found by typing fresh requests (2026-12-03): both shots darkened, the shots swapped in the
    # cut, a whole slide deleted.
    ("ask", "make shot 1 darker than shot 2", ASK("unsupported"), "story"),
    ("ask", "make shot 6 look like shot 1", ASK("unsupported"), "story"),
    ("ask", "make shot 3 as bright as the last shot", ASK("unsupported"), "story"),
    ("ask", "swap the lighting of shots 2 and 3", ASK("unsupported"), "story"),
    ("ask", "I don't like shot 2", ASK("unparsed"), "story"),  # not a comparison with shot 2
    # Two builds in one request built one of them; a new deck's theme was dropped.
    ("ask", "create a landing page and a deck for my cafe", ASK("unsupported"), "empty"),
    ("ask", "make a 6-shot film and a website about it", ASK("unsupported"), "empty"),
    ("ask", "a deck of 3 slides about taxes, dark theme", ASK("unsupported"), "empty"),
    # What a build would have dropped: pictures left out, another language, one framing for every shot.
    ("ask", "a website for my bakery without pictures", ASK("unsupported"), "empty"),
    ("ask", "a website for a bakery in French", ASK("unsupported"), "empty"),
    ("ask", "a 4-shot film about a runner, all close-ups", ASK("unsupported"), "empty"),
    ("ask", "remove the picture from slide 4", ASK("unsupported"), "deck"),
    ("ask", "get rid of the illustration on slide 2", ASK("unsupported"), "deck"),
    # -- notes, status, explorations, repair, builds --------------------------------------------------------------
    ("other", "note: Tova's veil stays white in every shot", OP("note"), "story"),
    ("other", "add a note: check the honey colour with the client", OP("note"), "story"),
    ("other", "mark shot 2 as rejected", OP("status", {"status": "rejected"}), "story"),
    ("other", "explore shot 6 with 3 lighting moods", OP("explore", {"n": 3}), "story"),
    ("other", "try 4 variations of this", OP("explore", {"n": 4}), "sel=4"),
    ("other", "explore shot 6 at dawn, dusk and night", OP("explore", {"n": 3}), "story"),
    ("other", "regenerate what is stale", OP("stale_repair"), "story"),
    ("other", "redo shot 4", {4: {"redo": "take"}}, "story"),
    ("other", "redo the lighting on shot 7", {7: {"redo": "lighting"}}, "story"),
    ("other", "shot 2, a tighter shot", {2: {"framing": "close-up"}}, "story"),
    ("other", "pull back to a wide shot on shot 6", {6: {"framing": "wide"}}, "story"),
    ("other", "make shot 5 less blue", {5: {"blue": "lower"}}, "story"),
    ("other", "turn shot 3 into a nighttime scene", {3: L("night")}, "story"),
    ("other", "keep the character but make shot 1 sunset", {1: L("sunset")}, "story"),
    # -- the web page: copy, design tokens, sections, pictures, versions (a fresh brief: a rooftop honey bar) ---
    *[("page", request, expected, "page") for request, expected in (
        ("make the headline a lot bigger", STYLE("headline-size", "much bigger")),
        ("make the headline 72px", STYLE("headline-size", "72px")),
        ("bigger headline please", STYLE("headline-size", "bigger")),
        # the hero's size had no token: asked about
        ("make the hero image smaller", STYLE("hero-height", "smaller")),
        ("make the hero taller", STYLE("hero-height", "bigger")),
        ("make the hero 600px tall", STYLE("hero-height", "600px")),
        ("make the hero picture much bigger", STYLE("hero-height", "much bigger")),
        ("make the hero headline smaller", STYLE("headline-size", "smaller")),
        ("make the hero text shorter", ASK("unparsed")),
        ("make the buttons navy", STYLE("button-colour", "navy")),
        ("green buttons", STYLE("button-colour", "green")),
        ("change the button text colour to white", STYLE("button-text-colour", "white")),
        ("rounder buttons", STYLE("button-radius", "bigger")),
        ("make the body text a bit smaller", STYLE("text-size", "90%")),
        ("make the headline bold", STYLE("heading-weight", "bold")),
        ("use a serif font", STYLE("fonts", "serif")),
        ("serif headings", STYLE("heading-font", "serif")),
        ("change the body font to Georgia", STYLE("body-font", "Georgia")),
        ("more spacing", STYLE("spacing", "more")),
        ("more white space", STYLE("spacing", "more")),
        ("tighter spacing", STYLE("spacing", "less")),
        ("a darker palette", STYLE("palette", "darker")),
        ("a teal palette", STYLE("palette", "teal")),
        ("make the background darker", STYLE("background", "darker")),
        ("change the headline to 'Bread, slowly'", OP("page_set_text", {"element": "headline", "text": "Bread, slowly"})),
        ("the headline should say 'Honey, slowly'", OP("page_set_text", {"element": "headline",
                                                                          "text": "Honey, slowly"})),
        ("change the headline to 'Welcome'", OP("page_set_text", {"element": "headline", "text": "Welcome"})),
        ("change the headline to Bread and butter", OP("page_set_text", {"element": "headline",
                                                                           "text": "Bread and butter"})),
        ("change the tagline to 'Raw honey from the roof'", OP("page_set_text", {"element": "tagline",
                                                                                   "text": "Raw honey from the roof"})),
        ("make the button say 'Book a tasting'", OP("page_set_text", {"element": "button", "text": "Book a tasting"})),
        # a second quoted text after "or" is not a filler ("hi" is one elsewhere): 'Hello' was written, exit 0
        ("change the headline to 'Hello' or 'Hi'", ASK("unparsed")),
        ("change the headline to 'Hi there'", OP("page_set_text", {"element": "headline", "text": "Hi there"})),
        ("change the about text to 'We keep six hives above the market.'",
         OP("page_set_text", {"element": "about.text", "text": "We keep six hives above the market."})),
        ("rename the gallery heading to 'From the roof'", OP("page_set_text", {"element": "gallery.heading",
                                                                                 "text": "From the roof"})),
        ("add a section about opening hours after the menu",
         OP("page_add_section", {"name": "opening-hours", "after": "menu", "heading": "Opening hours"})),
        ("add a pricing section", OP("page_add_section", {"name": "pricing"})),
        ("add a faq section at the end", OP("page_add_section", {"name": "faq", "after": "contact"})),
        ("remove the testimonials section", OP("page_remove_section", {"section": "testimonials"})),
        ("remove the about section", OP("page_remove_section", {"section": "about"})),
        ("delete the menu", OP("page_remove_section", {"section": "menu"})),
        ("move the gallery above the menu", OP("page_move_section", {"section": "gallery", "before": "menu"})),
        ("put the testimonials first", OP("page_move_section", {"section": "testimonials", "to": "first"})),
        ("move the contact section to the top", OP("page_move_section", {"section": "contact", "to": "first"})),
        # how it should be, said as a complaint or a question (the second probe: each acted, some the wrong way)
        ("the headline is too big", OP("page_set_style", {"token": "headline-size", "value": "smaller"})),
        ("the headline shouldnt be so big", OP("page_set_style", {"token": "headline-size", "value": "smaller"})),
        ("the headline is too small", OP("page_set_style", {"token": "headline-size", "value": "bigger"})),
        ("is the headline too big?", ASK("unsupported")),
        ("the tagline should be shorter", ASK("unparsed")),
        ("the about heading should be more subtle", ASK("unparsed")),
        ("change the button to say 'Book a sitting' and make it navy", ASK("unparsed")),
        ("a little less spacing", ASK("unsupported")),
        ("make the background slightly darker", ASK("unsupported")),
        ("make the buttons bigger", ASK("unsupported")),  # no token sizes a button (probe-81: said so)
        # two sections trading places (asked about: "not what to change")
        ("swap the about and gallery sections", OPS(OP("page_move_section", {"section": "about", "before": "gallery"}),
                                                    OP("page_move_section", {"section": "gallery",
                                                                             "after": "testimonials"}))),
        ("switch the menu section with the gallery", OP("page_move_section", {"section": "menu", "after": "gallery"})),
        # without the word "section" (a newcomer's: asked, "I did not understand"), and a removal with a section kept
        ("swap the menu and the testimonials", OPS(OP("page_move_section", {"section": "testimonials", "before": "menu"}),
                                                   OP("page_move_section", {"section": "menu", "after": "gallery"}))),
        ("remove the about section but keep the contact section", OP("page_remove_section", {"section": "about"})),
        ("remove the menu but keep the menu", ASK("conflict")),
        # one font given the other's (asked about: "not what to change")
        ("use the same font as the headline for the body",
         OP("page_set_style", {"token": "body-font", "value": 'Georgia, "DejaVu Serif", serif'})),
        ("make the body text use the headline font",
         OP("page_set_style", {"token": "body-font", "value": 'Georgia, "DejaVu Serif", serif'})),
        ("use the same font as the headline for the titles", ASK("unparsed")),
        ("move the gallery below the about section", OP("page_move_section", {"section": "gallery",
                                                                                "after": "about"})),
        ("replace the hero image with a photo of rye loaves", OP("page_replace_image", {"image": "hero",
                                                                                         "prompt": "rye loaves"})),
        ("swap the banner photo for a picture of a sleeping cat",
         OP("page_replace_image", {"image": "hero", "prompt": "a sleeping cat"})),
        ("replace the first picture with a photo of rye loaves", OP("page_replace_image", {"image": 1,
                                                                                            "prompt": "rye loaves"})),
        ("replace the second picture with a photo of a bee on lavender",
         OP("page_replace_image", {"image": 2, "prompt": "a bee on lavender"})),
        ("replace the photo of the hives with a close-up of a honeycomb",
         OP("page_replace_image", {"image": 2, "prompt": "close-up of a honeycomb"})),
        ("replace picture 3 with a sketch of a beehive", OP("page_replace_image", {"image": 3,
                                                                                  "prompt": "sketch of a beehive"})),
        ("undo the full-bleed change", OP("page_undo", {"change": "the full-bleed change"})),
        ("undo the last change to the page", OP("page_undo", {})),
        ("go back to the original page", OP("page_revert", {"to": "original"})),
        ("revert the site to version 2", OP("page_revert", {"to": "2"})),
        ("restore the page to how it was before the dark theme", OP("page_revert", {"before_change": "the dark theme"})),
        ("make the hero contained", OP("revise_page")),
        ("remove the pricing section", ASK("not_found")),
        ("move the blog above the menu", ASK("not_found")),
        ("change the footer text to 'hi'", ASK("not_found")),
        ("replace picture 7 with a cat", ASK("not_found")),
        ("add a menu section", ASK("conflict")),
        ("make the headline red", ASK("unparsed")),
        ("make the page feel more premium", ASK("unparsed")),
        ("make the headline bigger and add a dog", ASK("unparsed")),
    )],
    # -- slides: add, delete, move, retitle, bullets, theme, illustration, versions (a fresh topic) -------------
    *[("slides", request, expected, "deck") for request, expected in (
        ("remove the second slide", OP("deck_delete_slide", {"slide": 2})),
        ("get rid of the summary slide", OP("deck_delete_slide", {"slide": 5})),
        ("delete the slide about the case for urban beekeeping", OP("deck_delete_slide", {"slide": 3})),
        ("move slide 4 before slide 2", OP("deck_move_slide", {"slide": 4, "to": 2})),
        ("put slide 5 at the start", OP("deck_move_slide", {"slide": 5, "to": 1})),
        ("move the last slide up", OP("deck_move_slide", {"slide": 5, "to": 4})),
        ("move slide 2 after slide 4", OP("deck_move_slide", {"slide": 2, "to": 4})),
        ("swap slides 2 and 3", OP("deck_move_slide", {"slide": 3, "to": 2})),
        ("make slide 4 the first slide", OP("deck_move_slide", {"slide": 4, "to": 1})),
        ("retitle slide 3 'Who gains'", OP("deck_edit_slide", {"slide": 3, "title": "Who gains"})),
        ('retitle slide 3 "Costs"', OP("deck_edit_slide", {"slide": 3, "title": "Costs"})),
        ("rename the last slide to Questions", OP("deck_edit_slide", {"slide": 5, "title": "Questions"})),
        ("slide 1 should be called 'Bees on the roof'", OP("deck_edit_slide", {"slide": 1,
                                                                              "title": "Bees on the roof"})),
        ("change the speaker notes of slide 2 to 'Pause for questions'",
         OP("deck_edit_slide", {"slide": 2, "notes": "Pause for questions"})),
        ("add a slide about swarm season at the end", OP("deck_add_slide", {"after": 5, "about": "swarm season"})),
        ("insert a slide on hive costs between slides 3 and 4", OP("deck_add_slide", {"after": 3,
                                                                                       "about": "hive costs"})),
        ("add a slide called 'Thank you' at the end", OP("deck_add_slide", {"after": 5, "title": "Thank you"})),
        ("add a bullet 'Hives need shade in July' to slide 3",
         OP("deck_add_bullet", {"slide": 3, "bullet": "Hives need shade in July"})),
        ("remove the last bullet from slide 3", OP("deck_remove_bullet", {"slide": 3, "bullet": 3})),
        ("use the ocean theme", OP("deck_set_theme", {"theme": "ocean"})),
        ("a teal theme", OP("deck_set_theme", {"theme": "teal"})),
        ("make the deck dark", OP("deck_set_theme", {"theme": "dark"})),
        ("regenerate the slide's illustration", OP("deck_regenerate_illustration", {"slide": 2})),
        ("redraw the picture on the second slide", OP("deck_regenerate_illustration", {"slide": 2})),
        ("a new picture for slide 2 showing a bee on lavender",
         OP("deck_regenerate_illustration", {"slide": 2, "prompt": "a bee on lavender"})),
        ("regenerate the illustration on slide 4", ASK("not_found")),
        ("undo the retitle", OP("deck_undo", {"change": "the retitle"})),
        ("revert the deck to the original", OP("deck_revert", {"to": "original"})),
        ("go back to version 2 of the deck", OP("deck_revert", {"to": "2"})),
        ("delete slides 2 and 4", OPS(OP("deck_delete_slide", {"slide": 4}), OP("deck_delete_slide", {"slide": 2}))),
        ("delete slide 2 and retitle slide 4 'Parts of a hive'",
         OPS(OP("deck_delete_slide", {"slide": 2}), OP("deck_edit_slide", {"slide": 3, "title": "Parts of a hive"}))),
        ("swap slides 2 and 5", OPS(OP("deck_move_slide", {"slide": 5, "to": 2}), OP("deck_move_slide",
                                                                                     {"slide": 3, "to": 5}))),
        ("delete slide 9", ASK("not_found")),
        ("move slide 2 to position 8", ASK("not_found")),
        ("make slide 3 more exciting", ASK("unparsed")),
        ("add a slide", ASK("unparsed")),
        ("use the neon-plaid theme", ASK("not_found")),
        ("delete slide 3 and move slide 3 to the end", ASK("conflict")),
        ("move slide 3 to place 3", ASK("conflict")),
    )],
    # -- page and deck: several clauses, selection, the previous turn, typos, questions, routing ---------------
    ("clauses", "make the headline bigger and the button green",
     OPS(STYLE("headline-size", "bigger"), STYLE("button-colour", "green")), "page"),
    ("clauses", "use a serif font, more spacing and a darker palette",
     OPS(STYLE("fonts", "serif"), STYLE("spacing", "more"), STYLE("palette", "darker")), "page"),
    ("clauses", "make the hero full-bleed and the headline bigger",
     OPS(OP("revise_page"), STYLE("headline-size", "bigger")), "page"),
    ("clauses", "add a section about opening hours and prices after the menu",
     OP("page_add_section", {"name": "opening-hours-and-prices", "after": "menu"}), "page"),
    ("clauses", "move slide 4 before slide 2 and delete the last slide",
     OPS(OP("deck_move_slide", {"slide": 4, "to": 2}), OP("deck_delete_slide", {"slide": 5})), "deck"),
    # a style change with what it leaves as it is (asked about: 'don't', 'keep'); keeping what it changes is asked
    ("negation", "make the buttons dark green but don't change the background", STYLE("button-colour", "dark green"),
     "page"),
    ("negation", "use a sans-serif font for the headings, keep the body font as it is", STYLE("heading-font", "sans"),
     "page"),
    ("negation", "make the buttons green but keep the button colour as it is", ASK("conflict"), "page"),
    # "black" is a colour (it set the headings' weight to 900); "bolder" and "weight" are no typos ("colder", "8")
    ("page", "make the headings black", ASK("unparsed"), "page"),
    ("page", "make the title black", ASK("unparsed"), "page"),
    ("page", "make the headings black weight", STYLE("heading-weight", "900"), "page"),
    ("page", "make the headings bolder", STYLE("heading-weight", "bolder"), "page"),
    ("page", "make the body text size bigger", STYLE("text-size", "bigger"), "page"),
    ("selection", "make it darker", STYLE("palette", "darker"), "page:sel"),
    ("selection", "make this green", STYLE("palette", "green"), "page:sel"),
    ("selection", "use a serif font here", STYLE("fonts", "serif"), "page:sel"),
    # the deck named after the slide is not part of the new title (it was: "of the deck to Hives", exit 0)
    ("slides", "retitle slide 2 of the deck to Hives", OP("deck_edit_slide", {"slide": 2, "title": "Hives"}), "deck"),
    # -- two decks: an edit that names no deck asks which (it went to the newest, exit 0); a title, a place among
    # the decks, the selection or the answer picks one
    ("decks", "delete the last slide", ASK("ambiguous"), "decks2"),
    ("decks", "rename slide 2 to Origins", ASK("ambiguous"), "decks2"),
    ("decks", "use the ocean theme", ASK("ambiguous"), "decks2"),
    ("decks", "add a slide about costs after slide 1", ASK("ambiguous"), "decks2"),
    ("decks", "undo the last change to the deck", ASK("ambiguous"), "decks2"),
    ("decks", "what does the last slide say?", ASK("ambiguous"), "decks2"),
    ("decks", "delete slide 2 from the pricing deck", ASK("ambiguous"), "decks2"),
    ("decks", "how many slides are in the night markets deck?",
     IN_DECK("D0", OP("question", {"ask": "count", "kind": "slide", "deck": "D0"})), "decks2"),
    ("decks", "how many slides does the beekeeping deck have", IN_DECK("D1", OP("question", {"deck": "D1"})), "decks2"),
    ("decks", "how many slides are in this deck", IN_DECK("D0", OP("question", {"deck": "D0"})), "decks2:sel"),
    ("decks", "how many slides are in the deck", ASK("ambiguous"), "decks2"),
    ("decks", "how many slides are there", OP("question", {"ask": "count", "kind": "slide"}), "decks2"),
    # one deck: "in the deck" was a word left unread, and the count was asked about
    ("question", "how many slides are in the deck", OP("question", {"ask": "count", "deck": "D1"}), "deck"),
    ("question", "how many slides does the presentation have?", OP("question", {"deck": "D1"}), "deck"),
    ("decks", "delete the last slide of the night markets deck",
     IN_DECK("D0", OP("deck_delete_slide", {"slide": 3})), "decks2"),
    ("decks", "in the beekeeping deck, delete slide 2", IN_DECK("D1", OP("deck_delete_slide", {"slide": 2})), "decks2"),
    ("decks", "use the ocean theme on the deck about night markets",
     IN_DECK("D0", OP("deck_set_theme", {"theme": "ocean"})), "decks2"),
    ("decks", "delete slide 3 from the newest deck", IN_DECK("D1", OP("deck_delete_slide", {"slide": 3})), "decks2"),
    ("decks", "move slide 1 of the first deck to the end",
     IN_DECK("D0", OP("deck_move_slide", {"slide": 1, "to": 3})), "decks2"),
    ("decks", "retitle slide 2 of the urban beekeeping presentation to Hives",
     IN_DECK("D1", OP("deck_edit_slide", {"slide": 2, "title": "Hives"})), "decks2"),
    ("decks", "delete this slide", IN_DECK("D0", OP("deck_delete_slide", {"slide": 2})), "decks2:sel"),
    # -- a span of the story counted from one shot: "every shot from shot 3" changed all eight (every shot and shot 3,
    # "from" a filler), exit 0; "after", "before", "onwards" were asked about
    ("span", "make every shot from shot 3 night", {n: L("night") for n in range(3, 9)}, "story"),
    ("span", "make everything after shot 5 night", {n: L("night") for n in (6, 7, 8)}, "story"),
    ("span", "make the shots after shot 5 night", {n: L("night") for n in (6, 7, 8)}, "story"),
    ("span", "make shots 5 onwards night", {n: L("night") for n in (5, 6, 7, 8)}, "story"),
    ("span", "from shot 6 on, make it night", {n: L("night") for n in (6, 7, 8)}, "story"),
    ("span", "make all shots before shot 4 foggy", {n: L("foggy") for n in (1, 2, 3)}, "story"),
    ("span", "make every shot up to and including shot 3 snowy", {n: {"weather": "snow"} for n in (1, 2, 3)}, "story"),
    ("span", "make every shot from shot 3 night except shot 5", {n: L("night") for n in (3, 4, 6, 7, 8)}, "story"),
    ("span", "make every shot until shot 4 night", ASK("unparsed"), "story"),
    ("span", "make every shot and shot 3 night", ASK("unparsed"), "story"),
    ("span", "make every shot from shot 9 night", ASK("not_found"), "story"),
    ("span", "make every shot from shot 3 night", ASK("ambiguous"), "two"),
    # a range said with "from", or with the noun again after "to": shots 3 and 6 were changed, the "to" a filler
    ("span", "make the shots from 3 to 6 night", {n: L("night") for n in (3, 4, 5, 6)}, "story"),
    ("span", "make every shot from shot 3 to shot 6 night", {n: L("night") for n in (3, 4, 5, 6)}, "story"),
    ("span", "make all shots between 2 and 4 foggy", {n: L("foggy") for n in (2, 3, 4)}, "story"),
    ("span", "make shots 2 to shot 5 night", {n: L("night") for n in (2, 3, 4, 5)}, "story"),
    ("span", "make shot 3 to shot 6 night", ASK("ambiguous"), "story"),
    ("span", "make the 3rd to 6th shots night", {n: L("night") for n in (3, 4, 5, 6)}, "story"),
    # a word before "shots" picks them: the range was read instead, and "even" dropped or "foggy" made a change
    ("span", "make the even shots between 2 and 6 foggy", ASK("unparsed"), "story"),
    ("span", "make the foggy shots between 2 and 6 warmer", ASK("unparsed"), "story"),
    ("span", "the shots from 3 to 6 should be night", {n: L("night") for n in (3, 4, 5, 6)}, "story"),
    ("span", "make the first to the third shot night", {n: L("night") for n in (1, 2, 3)}, "story"),
    ("span", "change shot 3 to shot 6 lighting", ASK("ambiguous"), "story"),
    ("span", "make every shot from shot 3 night", IN_FILM("B", {3: L("night"), 4: L("night")}), "two:selB"),
    # -- two films: a shot named by its place ("the last shot"), or every shot, names no film: it went to the
    # newest film, exit 0; now the turn asks which, and the selection (a shot's image, clip or cut) or the answer
    # picks one, for numbered shots too
    ("films", "make the last shot night", ASK("ambiguous"), "two"),
    ("films", "make the first shot a close-up", ASK("ambiguous"), "two"),
    ("films", "make every shot snowy", ASK("ambiguous"), "two"),
    ("films", "make all the shots night", ASK("ambiguous"), "two"),
    ("films", "the last two shots should be overcast", ASK("ambiguous"), "two"),
    ("films", "make the middle shot foggy", ASK("ambiguous"), "two"),
    ("films", "redo the lighting on shots 2 and 3", ASK("ambiguous"), "two"),
    ("films", "make shot 2 night and the next shot foggy", ASK("ambiguous"), "two"),
    ("films", "make shot 2 night and the other shots foggy", ASK("ambiguous"), "two"),
    ("films", "explore the last shot with 3 lighting moods", ASK("ambiguous"), "two"),
    ("films", "make shot 3 night", IN_FILM("", {3: L("night")}), "two:sel"),
    ("films", "make shot 3 night", IN_FILM("B", {3: L("night")}), "two:selB"),
    ("films", "make the last shot night", IN_FILM("", {8: L("night")}), "two:sel"),
    ("films", "make the last shot night", IN_FILM("B", {4: L("night")}), "two:selB"),
    ("films", "make every shot snowy", IN_FILM("B", {n: {"weather": "snow"} for n in range(1, 5)}), "two:selB"),
    ("films", "make it darker", IN_FILM("", {2: {"luma": "lower"}}), "two:sel"),
    ("films", "make the next shot foggy", IN_FILM("B", {3: L("foggy")}), "two:selB"),
    # "the night shots" and "the same lighting as shot 2" read on the selected film (they were read on every film's
    # shots, and their numbers then on the selected one's)
    ("films", "make the foggy shots warmer", IN_FILM("B", {3: {"warmth": "higher"}}), "two:looksB"),
    ("films", "make shot 1 the same lighting as shot 3", IN_FILM("B", {1: L("foggy")}), "two:looksB"),
    ("films", "make the foggy shots warmer", ASK("ambiguous"), "two:looks"),
    # a film named by words of its title, its place or (with one film) "the film"; the words win over the selection
    ("films", "make shot 3 of the ferry film night", IN_FILM("B", {3: L("night")}), "two"),
    ("films", "make the last shot of the beekeeper film night", IN_FILM("", {8: L("night")}), "two"),
    ("films", "in the ferry film, make every shot snowy", IN_FILM("B", {n: {"weather": "snow"} for n in range(1, 5)}),
     "two"),
    ("films", "make the last shot of the film about the ferry foggy", IN_FILM("B", {4: L("foggy")}), "two"),
    ("films", "make shot 2 of the first film night", IN_FILM("", {2: L("night")}), "two"),
    ("films", "make shot 3 of the ferry film night", IN_FILM("B", {3: L("night")}), "two:sel"),
    ("films", "make the foggy shots of the ferry film warmer", IN_FILM("B", {3: {"warmth": "higher"}}), "two:looks"),
    ("films", "make shot 3 of the film night", ASK("ambiguous"), "two"),
    ("films", "make shot 3 of the pricing film night", ASK("ambiguous"), "two"),
    ("films", "make shot 3 of the film night", {3: L("night")}, "story"),
    ("films", "make the last shot of the ferry film night", ASK("unparsed"), "story"),
    # an exploration's instruction is passed on whole: a film name in it was read by nobody (the selected film's
    # shot 2 was explored for "shot 2 of the beekeeper film")
    ("films", "explore shot 2 of the beekeeper film with 3 lighting moods", OP("explore", {"node_id": "I2"}),
     "two:selB"),
    ("films", "explore shot 2 of the ferry film with 3 lighting moods", OP("explore", {"node_id": "BI2"}), "two"),
    ("films", "explore shot 2 of the whale film with 3 lighting moods", ASK("not_found"), "two"),
    ("films", "explore shot 2 of the ferry film with 3 lighting moods", ASK("not_found"), "story"),
    ("films", "explore shot 3 in the style of a noir film with 3 options", OP("explore", {"node_id": "I3"}), "story"),
    ("films", "explore shot 3 of the film with 3 lighting moods", OP("explore", {"node_id": "I3"}), "story"),
    ("films", "explore the last shot of the whale story", ASK("not_found"), "story"),
    ("films", "how many shots are in the ferry film?", OP("question", {"ask": "count", "kind": "shot", "film": "Q"}),
     "two"),
    ("films", "how many shots does the beekeeper film have?",
     OP("question", {"ask": "count", "kind": "shot", "film": "P"}), "two"),
    ("films", "how many shots are in the whale film?", ASK("unparsed"), "two"),
    # the film's name read, then left out: every film's shots were listed
    ("films", "which shots are in the ferry film?", OP("question", {"ask": "list", "kind": "shot", "film": "Q"}), "two"),
    ("films", "which shots of the ferry film are at night?",
     OP("question", {"ask": "shots_with", "filter": L("night"), "film": "Q"}), "two"),
    ("films", "how many clips are in the ferry film?", ASK("unsupported"), "two"),
    ("films", "make this shot night and the other shots foggy",
     IN_FILM("", {2: L("night"), **{n: L("foggy") for n in (1, 3, 4, 5, 6, 7, 8)}}), "two:sel"),
    ("decks", "delete the last slide", IN_DECK("D0", OP("deck_delete_slide", {"slide": 3})), "decks2:sel"),
    # a slide of a named deck: every slide was listed, its number read and left out (the first target: the slide)
    ("decks", "what is on slide 3 of the night markets deck?",
     IN_DECK("M3", OP("question", {"ask": "slide", "slide": 3})), "decks2"),
    ("decks", "what does slide 2 of the beekeeping deck say?", IN_DECK("SL2", OP("question", {"ask": "slide"})),
     "decks2"),
    ("decks", "what is on slide 9 of the night markets deck?", ASK("not_found"), "decks2"),
    ("selection", "delete this slide", OP("deck_delete_slide", {"slide": 3}), "deck:sel=3"),
    ("selection", "retitle it 'Who gains'", OP("deck_edit_slide", {"slide": 3, "title": "Who gains"}), "deck:sel=3"),
    ("selection", "move it to the end", OP("deck_move_slide", {"slide": 3, "to": 5}), "deck:sel=3"),
    ("selection", "make it darker", ASK("unparsed"), "deck:sel=3"),
    # "the selection" was typo-corrected to "the section", and "selected" alone was no reference: both were asked.
    ("selection", "delete the selection", OP("deck_delete_slide", {"slide": 3}), "deck:sel=3"),
    # A slide of an earlier deck version selected: said so, nothing done (it read "not what to change").
    ("selection", "delete this", ASK("not_found"), "deck:stale"),
    ("selection", "remove the selection", ASK("not_found"), "deck:stale"),
    ("selection", "delete slide 2", OP("deck_delete_slide", {"slide": 2}), "deck:stale"),
    ("selection", "remove the selected one", OP("deck_delete_slide", {"slide": 3}), "deck:sel=3"),
    ("selection", "delete selected", OP("deck_delete_slide", {"slide": 3}), "deck:sel=3"),
    ("selection", "retitle the selection to Who gains",
     OP("deck_edit_slide", {"slide": 3, "title": "Who gains"}), "deck:sel=3"),
    ("selection", "add a bullet 'Costs fall' to the selection",
     OP("deck_add_bullet", {"slide": 3, "bullet": "Costs fall"}), "deck:sel=3"),
    ("previous", "undo that", OPS(OP("page_undo", {}), OP("page_undo", {})), "page:prev"),
    # the last deck change again, on a slide named now ("there are no shots", or asked about)
    ("previous", "do the same to slide 4", OP("deck_delete_slide", {"slide": 4}), "deck:prev"),
    ("previous", "and slide 2 as well", OP("deck_delete_slide", {"slide": 2}), "deck:prev"),
    ("previous", "and the one after it", ASK("ambiguous"), "deck:prev"),
    ("previous", "undo that", OP("deck_undo", {}), "deck:prev"),
    ("previous", "do the same for the website", ASK("not_found"), "deck:prev"),
    ("previous", "undo", OP("deck_undo", {}), "deck:prev"),
    # the last N turns are not the last N shots (it undid shots 7 and 8)
    ("undo", "undo the last two things you did", ASK("unsupported"), "prev"),
    ("undo", "undo the last two", ASK("unsupported"), "prev"),
    ("previous", "undo that", OP("deck_revert", {"to": "previous"}), "deck:undone"),
    ("previous", "undo", OP("deck_undo", {}), "deck:undone"),
    ("previous", "undo again", OP("deck_undo", {}), "deck:undone"),
    ("previous", "undo that", OP("page_undo", {}), "page:sel"),
    ("typo", "make the headlne bigger", STYLE("headline-size", "bigger"), "page"),
    ("typo", "chnage the buton colour to green", STYLE("button-colour", "green"), "page"),
    ("typo", "delete the lsat slide", OP("deck_delete_slide", {"slide": 5}), "deck"),
    ("question", "which slides mention hives?", OP("question", {"ask": "slides_mentioning", "terms": ["hives"]}),
     "deck"),
    ("question", "what's the headline?", OP("question", {"ask": "headline"}), "page"),
    ("routing", "change the theme to dark", ASK("ambiguous"), "both"),  # the page or the deck: the person picks
    ("slides", "delete the beekeeping slide", ASK("ambiguous"), "deck"),
    ("slides", "delete the urban beekeeping slide", OP("deck_delete_slide", {"slide": 1}), "deck"),
    ("routing", "change the deck's theme to dark", OP("deck_set_theme", {"theme": "dark"}), "both"),
    ("routing", "make the page's theme dark", OP("revise_page"), "both"),
    ("routing", "make the headline bigger", STYLE("headline-size", "bigger"), "both"),
    ("routing", "delete the last slide", OP("deck_delete_slide", {"slide": 5}), "both"),
    ("routing", "delete the last slide", ASK("not_found"), "page"),
    ("routing", "a new deck about pollinators for schools", OP("build_deck"), "both"),
    # a list asked with a filter on what the nodes hold: "picture" and "image" are filler words, so nothing was left
    # unread and every slide was listed, the question unanswered
    ("question", "which slide has the picture?", ASK("unsupported"), "deck"),
    ("question", "what slide is the picture on?", ASK("unsupported"), "deck"),
    ("question", "which slide has an image?", ASK("unsupported"), "deck"),
    ("question", "list the shots with their lighting", ASK("unsupported"), "story"),
    ("question", "which slides do we have?", OP("question", {"ask": "list", "kind": "slide"}), "deck"),
    ("question", "which shots have we made so far?", OP("question", {"ask": "list", "kind": "shot"}), "story"),
    # a word typo-corrected into a filler was dropped unread: "bees" became "been" and every slide was listed
    ("typo", "which slide has the bees?", ASK("unsupported"), "deck"),
    ("typo", "which slides mention bees?", OP("question", {"ask": "slides_mentioning", "terms": ["bees"]}), "deck"),
    ("typo", "mkae shot 3 night", {3: L("night")}, "story"),
    # "the last change" read as "the last" shot ("change" is a filler word): another take of the last shot was made
    ("redo", "redo the last change", ASK("unsupported"), "story"),
    ("redo", "redo the last thing", ASK("unsupported"), "prev"),
    ("redo", "redo the last 2 changes", ASK("unsupported"), "story"),
    ("redo", "redo my last change", ASK("unsupported"), "prev"),
    ("redo", "redo the last shot", {8: {"redo": "take"}}, "story"),
    ("redo", "make the last two night", {7: L("night"), 8: L("night")}, "story"),
    # "it" beside a named shot was always read as the "it" of "make it snow in shot 5" (naming nothing): with shot 3
    # selected, "make it night and the next one too" made shot 4 alone night
    ("selection", "make it night and the next one too", {3: L("night"), 4: L("night")}, "sel=3"),
    ("selection", "make it and shot 5 night", {3: L("night"), 5: L("night")}, "sel=3"),
    ("selection", "make it night, shot 5 too", {3: L("night"), 5: L("night")}, "sel=3"),
    ("selection", "make it night and shot 5 too", ASK("no_target"), "story"),
    ("selection", "make it darker in shot 5 and shot 6", {5: {"luma": "lower"}, 6: {"luma": "lower"}},
     "sel=3"),
    ("selection", "make it snow in the next shot", {4: {"weather": "snow"}}, "sel=3"),
    # "as in shot 5" compares with shot 5 (it made shot 5 night, the selected shot left as it was); "as well as" adds
    ("selection", "make it night, as in shot 5", ASK("unsupported"), "sel=3"),
    ("selection", "make it night as well as shot 5", {3: L("night"), 5: L("night")}, "sel=3"),
    ("number", "make shot 3 night as well as shot 5", {3: L("night"), 5: L("night")}, "story"),
    # a status change took every word of the request: the rest was dropped ("... and make shot 4 night")
    ("status", "mark shot 3 as approved and make shot 4 night", ASK("unparsed"), "story"),
    ("status", "mark shot 3 as rejected but keep its clip", ASK("unparsed"), "story"),
    ("status", "mark shot 3 as approved, then redo shot 4", ASK("unparsed"), "story"),
    ("status", "please mark shot 3 as done now", OP("status", {"status": "completed"}), "story"),
    # the status said as the verb (each was asked about as "not what to change")
    ("status", "approve shot 3", OP("status", {"status": "selected"}), "story"),
    ("status", "reject the last two shots", OP("status", {"status": "rejected"}), "story"),
    ("status", "accept shot 5", OP("status", {"status": "selected"}), "story"),
    ("status", "approve shot 3 and regenerate shot 4", ASK("unparsed"), "story"),
    ("status", "approve all shots except shot 2", ASK("unparsed"), "story"),
    ("status", "approve this", OP("status", {"status": "selected"}), "sel=4"),
    ("status", "approve slide 3", ASK("unsupported"), "deck"),  # a deck changes by its own operations
    ("status", "reject this slide", ASK("unsupported"), "deck:sel=3"),
    # with two decks, the deck a copy should go to was read as the slide's own: its slide 2 was copied within it
    ("slides", "copy slide 2 to the beekeeping deck", ASK("unsupported"), "decks2"),
    ("slides", "copy slide 2 into the night markets deck", ASK("unsupported"), "decks2"),
    ("slides", "duplicate slide 2 of the beekeeping deck", IN_DECK("D1", OP("deck_duplicate_slide", {"slide": 2})),
     "decks2"),
    ("slides", "copy slide 2 to the beekeeping deck", OP("deck_duplicate_slide", {"slide": 2}), "deck"),
    # a question and a change in one request: the question was answered and the change dropped, exit 0
    ("question", "what's the headline and make it bigger", ASK("unsupported"), "page"),
    ("question", "what does the headline say? change it to Hello", ASK("unsupported"), "page"),
    ("question", "what colour is the button? make it green", ASK("unsupported"), "page"),
    ("question", "what sections does the page have and remove the menu", ASK("unsupported"), "page"),
    ("question", "what changed in the last turn? undo it", ASK("unsupported"), "prev"),
    ("question", "what did you just do, and make shot 2 foggy", ASK("unsupported"), "prev"),
    ("question", "which slides mention hives and delete them", ASK("unsupported"), "deck"),
    # an exploration's instruction goes to the explorers whole: a change after it was read by nobody; and of two
    # shots named, the first alone was explored
    ("other", "explore shot 3 with 3 lighting moods and make shot 4 night", ASK("unsupported"), "story"),
    ("other", "explore shot 3 with 3 lighting moods, then delete the rest", ASK("unsupported"), "story"),
    ("other", "explore shots 3 and 4 with 3 lighting moods", ASK("unsupported"), "story"),
    ("other", "try 4 variations of shot 2, warmer and cooler", OP("explore", {"n": 4}), "story"),
    # a build and a change of one of its parts: the change went into the premise or topic ("make shot 3 night" made
    # every shot night) and was never made
    ("build", "a 6-shot film about a baker and make shot 3 night", ASK("unsupported"), "empty"),
    ("build", "a 4-slide deck about bees and delete slide 2", ASK("unsupported"), "empty"),
    ("build", "a website for a bakery and make the headline big", ASK("unsupported"), "empty"),
    ("build", "a website for a bakery, make it warm", OP("build_page"), "empty"),
    ("build", "a 6-shot short drama about a lighthouse keeper who must make a choice", OP("build_narrative"),
     "empty"),
    # a note without a colon has no clear end: a change after it was written into the note
    ("note", "note that shot 3 is approved, and make shot 4 night", ASK("unsupported"), "story"),
    ("note", "note: shot 3 is approved, and make shot 4 night next week", OP("note"), "story"),
    ("question", "which slides mention how to make honey?",
     OP("question", {"ask": "slides_mentioning", "terms": ["how", "to", "make", "honey"]}), "deck"),
    # probed on the evening of 2026-12-04: a shot number past the end of the film the words named was taken from
    # the other film
    ("films", "make shot 5 of the ferry film night", ASK("not_found"), "two"),
    ("films", "in the ferry film, make shot 7 warmer", ASK("not_found"), "two"),
    ("films", "make shots 3-6 of the ferry film foggy", ASK("not_found"), "two"),
    ("films", "swap shots 4 and 6 in the ferry film", ASK("not_found"), "two"),
    ("films", "make shot 4 of the ferry film night and shot 5 dusk", ASK("not_found"), "two"),
    # a look said to be too much was made: "shot 4 is too foggy" made shot 4 foggy
    ("ask", "shot 4 is too foggy", ASK("unsupported"), "story"),
    ("ask", "there's too much rain in shot 2", ASK("unsupported"), "story"),
    ("ask", "shot 4 is too much of a close-up", ASK("unsupported"), "story"),
    ("ask", "this looks too wide", ASK("unsupported"), "sel=3"),
    ("relative", "shot 4 is too warm", {4: {"warmth": "lower"}}, "story"),
    # "how dark is shot 3" darkened shot 3; "is shot 6 approved?" was answered with how shot 6 looks
    ("question", "how dark is shot 3", ASK("unsupported"), "story"),
    ("question", "how cold does shot 7 look", ASK("unsupported"), "story"),
    ("question", "how dark is it", ASK("unsupported"), "sel=3"),
    ("question", "is shot 6 approved?", ASK("unsupported"), "story"),
    ("question", "how big is the headline", OP("question", {"ask": "page_style"}), "page"),
    # a second shot with its change negated was given the first one's; "shot 2 too" took the next clause's change
    ("negation", "make shot 5 warmer and shot 6 not warmer", {5: {"warmth": "higher"}}, "story"),
    ("negation", "make shot 5 night and shot 6 not night", {5: L("night")}, "story"),
    ("clauses", "make shot 1 night, shot 2 too, and shot 3 dusk", {1: L("night"), 2: L("night"), 3: L("dusk")},
     "story"),
    ("clauses", "shot 1 rainy, shot 2 also, shot 5 snowy", {1: {"weather": "rain"}, 2: {"weather": "rain"},
                                                            5: {"weather": "snow"}}, "story"),
    ("clauses", "make shot 4 a close-up, shot 5 too, shot 6 wide", {4: {"framing": "close-up"},
                                                                   5: {"framing": "close-up"}, 6: {"framing": "wide"}},
     "story"),
    # "except 2-4" left out shot 2 alone; "every other shot from shot 3" was the union of the two sets, and "the
    # even shots after shot 4" every shot after shot 4
    ("negation", "make every shot dusk except 2-4", {n: L("dusk") for n in (1, 5, 6, 7, 8)}, "story"),
    ("negation", "make all shots night but not 2-3", {n: L("night") for n in (1, 4, 5, 6, 7, 8)}, "story"),
    ("position", "every other shot from shot 3 foggy", ASK("ambiguous"), "story"),
    ("position", "every other shot in shots 3-8 at night", ASK("ambiguous"), "story"),
    ("position", "the even shots after shot 4 rainy", ASK("unparsed"), "story"),
    ("position", "make the even shots rainy", {n: {"weather": "rain"} for n in (2, 4, 6, 8)}, "story"),
    # a story build took one look word for every shot: "not at night" lit every shot at night; a shot named in the
    # brief, an exception, or a change after "then" was dropped
    ("build", "a 5-shot film about a kid at the beach, not at night", ASK("unsupported"), "empty"),
    ("build", "a 4-shot film about a pilot but no night shots", ASK("unsupported"), "empty"),
    ("build", "a 5-shot film about a lighthouse, shot 3 at night", ASK("unsupported"), "empty"),
    ("build", "a 4-shot film about a cat at night, the first shot at dawn", ASK("unsupported"), "empty"),
    ("build", "a 5 shot film about a fox, all at dusk except the last shot", ASK("unsupported"), "empty"),
    ("build", "a 5 shot film about bees then make them all warmer", ASK("unsupported"), "empty"),
    ("build", "a 5-shot film about a dog, then approve all the shots", ASK("unsupported"), "story"),
    ("build", "a 4-shot film about a cat at night", OP("build_narrative", {"n_shots": 4, "lighting": "night"}),
     "empty"),
    # an undo followed by another clause naming a shot undid that shot's own last change
    ("undo", "undo and do shot 4 instead", ASK("unsupported"), "prev"),
    ("undo", "undo, then shot 4", ASK("unsupported"), "prev"),
    # probed on the evening of 2026-12-04 (decks and pages): a slide of another deck selected won over the deck the
    # words named; "it" after a named slide was the selection
    ("decks", "retitle slide 3 of the beekeeping deck to Why",
     IN_DECK("D1", OP("deck_edit_slide", {"slide": 3, "title": "Why"})), "decks2:sel"),
    ("decks", "add a slide about wax to the beekeeping deck",
     IN_DECK("D1", OP("deck_add_slide", {"after": 5, "about": "wax"})), "decks2:sel"),
    ("decks", "delete slide 3 of the beekeeping deck", IN_DECK("D1", OP("deck_delete_slide", {"slide": 3})),
     "decks2:sel"),
    ("slides", "retitle slide 4 to Parts and delete it", ASK("ambiguous"), "deck:sel=3"),
    ("slides", "retitle slide 1 to Intro and add a bullet to it saying Hello", ASK("ambiguous"), "deck:sel=3"),
    ("slides", "move slide 5 to the front and delete it", ASK("ambiguous"), "deck:sel=3"),
    ("slides", "delete it", OP("deck_delete_slide", {"slide": 3}), "deck:sel=3"),
    # "undelete" was corrected to "delete", "un-hide" read as "hide"; "reverse the order" undid a change called
    # "the order"; "put the menu back" moved it last
    ("slides", "undelete slide 3", ASK("unparsed"), "deck"),
    ("page", "unremove the menu", ASK("unparsed"), "page"),
    ("page", "un-hide the testimonials", ASK("unparsed"), "page"),
    ("page", "un-full-bleed the hero", ASK("unparsed"), "page"),
    ("slides", "reverse the order of the slides", ASK("unparsed"), "deck"),
    ("slides", "reverse slides 2 and 3", ASK("unparsed"), "deck"),
    ("page", "reverse the order of the sections", ASK("unparsed"), "page"),
    ("page", "put the menu back", ASK("unparsed"), "page"),
    ("page", "move the menu to the back", OP("page_move_section", {"section": "menu", "to": "last"}), "page"),
    # words another part holds were written in as the new words
    ("slides", "change the title of slide 3 to the same as slide 4", ASK("unparsed"), "deck"),
    ("slides", "give slide 2 the title of slide 3", ASK("unparsed"), "deck"),
    ("page", "change the headline to the same as the tagline", ASK("unparsed"), "page"),
    # a new slide's or section's place, a second new slide, the deck it goes into or its title went into its topic
    ("slides", "add a slide about queen bees, right after the title", ASK("unparsed"), "deck"),
    ("slides", "add a slide about pests second", ASK("unparsed"), "deck"),
    ("slides", "add a slide about pests in position 3", ASK("unparsed"), "deck"),
    ("slides", "add a slide about the history of beekeeping in London, in the middle", ASK("unparsed"), "deck"),
    ("slides", "add a slide about costs and another about risks", ASK("unsupported"), "deck"),
    ("slides", "add a slide on pests, then one on mites", ASK("unsupported"), "deck"),
    ("slides", "add a slide about pests titled 'Uninvited guests'",
     OP("deck_add_slide", {"after": 5, "about": "pests", "title": "Uninvited guests"}), "deck"),
    ("slides", "add a slide about permits to the deck after slide 2",
     OP("deck_add_slide", {"after": 2, "about": "permits"}), "deck"),
    ("slides", "add a slide about the first beekeepers", OP("deck_add_slide", {"after": 5, "about": "the first beekeepers"}),
     "deck"),
    ("page", "add a section about wax candles between gallery and testimonials", ASK("unparsed"), "page"),
    ("page", "add a section for opening hours at the very end", ASK("unparsed"), "page"),
    # a slide moved and then named by its old number: the moved slide was deleted
    ("slides", "move slide 5 to the front then delete slide 5", ASK("ambiguous"), "deck"),
    ("slides", "move slide 5 to the front then delete slide 2",
     OPS(OP("deck_move_slide", {"slide": 5, "to": 1}), OP("deck_delete_slide", {"slide": 3})), "deck"),
    # two questions: one was answered; an exclusion in a search; slides described as shots
    ("question", "how many slides and what's on the last one", ASK("unsupported"), "deck"),
    ("question", "what's on slide 3 and what's the headline", ASK("unsupported"), "both"),
    ("question", "which slides mention hives but not honey", ASK("unsupported"), "deck"),
    ("question", "describe slides 1 to 3", ASK("unsupported"), "deck"),
    # builds that dropped or inverted what the brief said
    ("build", "a 6-slide deck about composting without pictures", ASK("unsupported"), "empty"),
    ("build", "a 5-slide deck about composting in French", ASK("unsupported"), "empty"),
    ("build", "build a deck about honey prices, 6 slides, no summary", ASK("unsupported"), "empty"),
    ("build", "a deck with 6 slides about tea and 2 about coffee", ASK("unsupported"), "empty"),
    ("build", "a 5-slide deck about composting with a slide on worms", ASK("unsupported"), "empty"),
    ("build", "a shorter version of the deck", ASK("unsupported"), "deck"),
    ("build", "a new deck like this one but about wasps", ASK("unsupported"), "deck"),
    ("build", "a new 4-slide deck about wasps and delete this one", ASK("unsupported"), "deck"),
    ("build", "can I get a 5 slide deck on wasps", OP("build_deck", {"n_slides": 5, "topic": "5 slide deck on wasps"}),
     "empty"),
    ("build", "a website for a bar, not dark", ASK("unsupported"), "empty"),
    ("build", "a website for a spa, nothing too bold", ASK("unsupported"), "empty"),
    ("build", "a website for a kids dentist but not playful", ASK("unsupported"), "empty"),
    ("build", "a website for a dentist but without a gallery", ASK("unsupported"), "empty"),
    ("build", "a website for a bakery with a menu and a gallery", ASK("unsupported"), "empty"),
    ("build", "a website for a cafe with 5 pictures", ASK("unsupported"), "empty"),
    ("build", "a website for a florist with a serif font", ASK("unsupported"), "empty"),
    ("build", "a landing page for a no-kill animal shelter", OP("build_page"), "empty"),
    ("build", "a website for a cafe with a view", OP("build_page"), "empty"),
    ("build", "a website for a bakery: warm, rustic, playful, with photos of fresh bread", OP("build_page"), "empty"),
    ("build", "a website for a cafe with lots of photos", ASK("unsupported"), "empty"),
    # asked needlessly before: a comparative said as a verb; an exception by the selection
    ("relative", "warm up shot 6", {6: {"warmth": "higher"}}, "story"),
    ("relative", "cool down the last shot", {8: {"warmth": "lower"}}, "story"),
    ("slides", "delete every slide except this one", OPS(*(OP("deck_delete_slide", {"slide": n}) for n in (5, 4, 2, 1))),
     "deck:sel=3"),
    ("slides", "delete every slide except this one", ASK("no_target"), "deck"),
    # probed again on the evening of 2026-12-04 (a second round): shots
    ("negation", "make shot 2 night and the rest as they are", {2: L("night")}, "story"),
    ("negation", "make shot 2 night and shot 3 as it is", {2: L("night")}, "story"),
    ("position", "leave shot 3 alone and make every other shot night", ASK("ambiguous"), "story"),
    ("position", "apart from shot 2, make every other shot foggy", ASK("ambiguous"), "story"),
    ("number", "make shot 3 and two others night", ASK("ambiguous"), "story"),
    ("number", "make shot 5 and 2 more night", ASK("ambiguous"), "story"),
    ("position", "make the last three but one night", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2 night and shot 5 dusk, then make both rainy", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2 night, shot 5 dusk, and make one of them rainy", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2 night, shot 5 dusk, and make the first one rainy", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2 night and shot 5 dusk, and make it rainy", ASK("ambiguous"), "story"),
    ("ask", "the rain in shot 3 is too much", ASK("unsupported"), "story"),
    ("ask", "there is a lot of rain in shot 3", ASK("unsupported"), "story"),
    ("ask", "make the rain in shot 3 lighter", ASK("unsupported"), "story"),
    ("ask", "light rain in shot 3", ASK("unsupported"), "story"),
    ("relative", "make shot 3 a lot darker and shot 4 slightly", ASK("unsupported"), "story"),
    ("relative", "make shot 3 darker, but only slightly", ASK("unsupported"), "story"),
    ("typo", "add a swarm to shot 3", ASK("unparsed"), "story"),
    ("typo", "make shot 3 funny", ASK("unparsed"), "story"),
    ("typo", "make shot 3 brainy", ASK("unparsed"), "story"),
    ("question", "how many slides and shots are there", ASK("unsupported"), "mixed"),
    ("question", "which shots are at night or rainy", ASK("unsupported"), "story"),
    ("question", "show me shot 2 at night", ASK("unsupported"), "story"),
    ("question", "is it possible to make shot 2 night?", ASK("unsupported"), "story"),
    ("undo", "undo that and do shot 4", ASK("unsupported"), "prev"),
    ("undo", "take that back and do shot 4", ASK("unsupported"), "prev"),
    ("undo", "revert shot 3 to how it was before, and make shot 4 night", ASK("unsupported"), "prev"),
    ("undo", "revert shot 2 and the shot before it", ASK("unsupported"), "story"),
    # decks and pages: a slide next to the selection was the selection; bullets; new words that hold more than the
    # words; builds that write their options into the titles
    ("slides", "retitle the previous slide to Intro", OP("deck_edit_slide", {"slide": 2, "title": "Intro"}),
     "deck:sel=3"),
    ("slides", "add a bullet Costs to the next slide", OP("deck_add_bullet", {"slide": 4, "bullet": "Costs"}),
     "deck:sel=3"),
    ("slides", "retitle the one before to Intro", ASK("no_target"), "deck:sel=3"),
    ("slides", "retitle the next slide to Intro", ASK("no_target"), "deck"),
    ("slides", "add a bullet 'Water nearby' to slide 2 and a bullet 'Shade' to slide 3", ASK("unsupported"), "deck"),
    ("slides", "add the bullets 'Water' and 'Shade' to slide 2", ASK("unsupported"), "deck"),
    ("slides", "add a bullet 'Bees' after bullet 1 on slide 2", ASK("unsupported"), "deck"),
    ("slides", "retitle slide 2 to Hives please", ASK("unparsed"), "deck"),
    ("slides", "retitle slide 2 again", ASK("unparsed"), "deck"),
    ("slides", "retitle slide 2 in French", ASK("unparsed"), "deck"),
    ("slides", "rename slide 3 to match slide 4", ASK("unparsed"), "deck"),
    ("slides", "retitle slide 2 to Hives and slide 3 to Costs and slide 4 to Parts", ASK("unparsed"), "deck"),
    ("slides", "rename slide 2 and slide 3", ASK("unparsed"), "deck"),
    ("slides", "retitle slide 2 to Bees and honey", OP("deck_edit_slide", {"slide": 2, "title": "Bees and honey"}),
     "deck"),
    ("page", "change the headline to Hello please", ASK("unparsed"), "page"),
    ("page", "change the headline to Hello and the tagline as well", ASK("unparsed"), "page"),
    ("page", "set the button to Book now and the colour to navy", ASK("unparsed"), "page"),
    ("page", "replace the second picture with another one", ASK("unparsed"), "page"),
    ("page", "replace the second picture with a photo of jars instead of bees", ASK("unparsed"), "page"),
    ("page", "replace the second picture with a photo of jars and the third with bees", ASK("unparsed"), "page"),
    ("page", "add a section about events, then remove it", ASK("unparsed"), "page"),
    ("page", "add a section about events with three cards", ASK("unparsed"), "page"),
    ("build", "a deck titled 'Dirt matters' about composting", ASK("unsupported"), "empty"),
    ("build", "a dark deck about bees", ASK("unsupported"), "empty"),
    ("build", "a deck about bees, make it funny", ASK("unsupported"), "empty"),
    ("build", "a deck about bees without speaker notes", ASK("unsupported"), "empty"),
    ("build", "a website for a gallery called Blue Door", OP("build_page"), "empty"),
    ("build", "a deck about the history of notes in music", OP("build_deck"), "empty"),
    # found by the second round and left then (2026-12-04): "make it" was "do the same"; a theme put on "it", the
    # shot; an output said to stay as it is while its image changes; "undo" alone took back one of two changes
    ("pronoun", "make shot 4 night and make it and shot 6 rainy",
     {4: {"lighting": "night", "weather": "rain"}, 6: {"weather": "rain"}}, "story"),
    ("pronoun", "make shot 4 night and do it for shot 6 too", {4: {"lighting": "night"}, 6: {"lighting": "night"}},
     "story"),
    ("pronoun", "make shot 2 night and use the ocean theme on it", ASK("ambiguous"), "mixed"),
    ("slides", "use the ocean theme on the deck", OP("deck_set_theme", {"theme": "ocean"}), "mixed"),
    ("slides", "use the ocean theme on it", OP("deck_set_theme", {"theme": "ocean"}), "deck"),
    ("negation", "make shot 3 night and keep the clip as is", ASK("unsupported"), "story"),
    ("negation", "make shot 3 night and leave the clip alone", ASK("unsupported"), "story"),
    ("negation", "make shot 3 night, the image only", ASK("unsupported"), "story"),
    ("negation", "make shot 3 night without touching the clip", ASK("unsupported"), "story"),
    ("negation", "only make shot 3 night", {3: {"lighting": "night"}}, "story"),
    ("typo", "make shot 4 wilder", ASK("unparsed"), "story"),
    ("previous", "undo", OPS(OP("page_undo", {}), OP("page_undo", {})), "page:prev"),
    ("previous", "undo please", OPS(OP("page_undo", {}), OP("page_undo", {})), "page:prev"),
    ("previous", "undo please", OP("deck_undo", {}), "deck:prev"),
    # asked needlessly before (2026-12-04, night): a deck's first slides by count, a bare place, a slide's title asked; a
    # list of sections; the accent named alone; "switch" a look; a kept shot beside "the rest"
    ("slides", "delete the first three slides", OPS(OP("deck_delete_slide", {"slide": 3}),
                                                    OP("deck_delete_slide", {"slide": 2}),
                                                    OP("deck_delete_slide", {"slide": 1})), "deck"),
    ("slides", "swap the first two slides", OP("deck_move_slide", {"slide": 2, "to": 1}), "deck"),
    ("slides", "move the first two slides to the end", ASK("unparsed"), "deck"),
    ("slides", "move slide 2 to 4", OP("deck_move_slide", {"slide": 2, "to": 4}), "deck"),
    ("question", "what's the title of slide 4?", OP("question", {"ask": "slide", "slide": 4}), "deck"),
    ("question", "what is slide 4 about?", OP("question", {"ask": "slide", "slide": 4}), "deck"),
    ("page", "remove the menu and the gallery", OPS(OP("page_remove_section", {"section": "menu"}),
                                                    OP("page_remove_section", {"section": "gallery"})), "page"),
    ("page", "remove the menu and the tagline", ASK("unparsed"), "page"),
    ("page", "remove the menu and the pricing sections", ASK("not_found"), "page"),
    ("page", "make the accent orange", OP("page_set_style", {"token": "accent", "value": "orange"}), "page"),
    ("routing", "switch shot 4 to night", {4: {"lighting": "night"}}, "story"),
    ("negation", "keep shot 3, make the rest night", {n: {"lighting": "night"} for n in ALL if n != 3}, "story"),
    ("negation", "make shot 2 night and keep shot 3", {2: {"lighting": "night"}}, "story"),
    ("negation", "keep shot 3 and make it night", ASK("conflict"), "story"),
    # a third probe, on the readings above (2026-12-04, night): wrong successes it found, and their neighbours
    ("question", "what's slide 4 called now?", OP("question", {"ask": "slide", "slide": 4}), "deck"),
    ("question", "what was slide 5 called before?", ASK("unparsed"), "deck"),
    ("question", "slide 4 called what?", ASK("unparsed"), "deck"),
    ("slides", "slide 4 should be called Hives", OP("deck_edit_slide", {"slide": 4, "title": "Hives"}), "deck"),
    ("slides", "rename slide 4 to 'Why bees?'", OP("deck_edit_slide", {"slide": 4, "title": "Why bees?"}), "deck"),
    ("slides", "move the picture on slide 2 to 4", ASK("unsupported"), "deck"),
    ("slides", "swap the picture on slide 2 with slide 4", ASK("unsupported"), "deck"),
    ("slides", "replace the picture on slide 2 with a hive",
     OP("deck_regenerate_illustration", {"slide": 2, "prompt": "hive"}), "deck"),
    ("slides", "delete first three slides", OPS(OP("deck_delete_slide", {"slide": 3}),
                                                OP("deck_delete_slide", {"slide": 2}),
                                                OP("deck_delete_slide", {"slide": 1})), "deck"),
    ("question", "whats the title of slide 4", OP("question", {"ask": "slide", "slide": 4}), "deck"),
    ("negation", "keep shot 3 and the rest, make shot 4 night", ASK("conflict"), "story"),
    ("negation", "keep shots 3 to 5, make the rest night", {n: {"lighting": "night"} for n in (1, 2, 6, 7, 8)},
     "story"),
    ("negation", "make all shots night except it", ASK("no_target"), "story"),
    ("negation", "make shot 4 night and make everything but it rainy", ASK("no_target"), "story"),
    ("negation", "make all shots rainy except this one", {n: {"weather": "rain"} for n in ALL if n != 3}, "sel=3"),
    ("pronoun", "make shot 4 night and make it, shot 6 and shot 7 rainy",
     {4: {"lighting": "night", "weather": "rain"}, 6: {"weather": "rain"}, 7: {"weather": "rain"}}, "story"),
    ("pronoun", "make shot 4 night and make shot 6 and it rainy", ASK("ambiguous"), "story"),
    ("negation", "make shot 3 night but keep the final cut as is", ASK("unsupported"), "story"),
    ("negation", "only make shot 3's image night", ASK("unsupported"), "story"),
    ("previous", "ok undo", OPS(OP("page_undo", {}), OP("page_undo", {})), "page:prev"),
    ("previous", "undo everything", ASK("ambiguous"), "page:prev"),
    # a fourth probe (2026-12-04, night): an exception by "that one"; new words holding a hedge or another clause;
    # "only in the image"; a picture said by a number; undo said as a question or with a yes
    ("negation", "make all shots night except that one", ASK("no_target"), "sel=3"),
    ("negation", "make shot 3 night but not the other shots", {3: {"lighting": "night"}}, "sel=3"),
    ("negation", "make shot 3 night only in the image", ASK("unsupported"), "story"),
    ("negation", "redo the second shot with warmer light but the same character",
     {2: {"warmth": "higher"}}, "story"),
    ("slides", "rename slide 4 to", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 to Hives maybe", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 to Hives except slide 5", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 to Hives without changing the bullets", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 to Just in time", OP("deck_edit_slide", {"slide": 4, "title": "Just in time"}), "deck"),
    ("slides", "add a slide about honey and one about wax", ASK("unsupported"), "deck"),  # two new slides (probe 81)
    ("slides", "replace the picture on slide 2 with 4", ASK("unsupported"), "deck"),
    ("page", "change the hero heading to Welcome, the rest stays", ASK("unparsed"), "page"),
    ("previous", "yes undo", OPS(OP("page_undo", {}), OP("page_undo", {})), "page:prev"),
    ("previous", "can you undo that?", OPS(OP("page_undo", {}), OP("page_undo", {})), "page:prev"),
    # a fifth probe (2026-12-04, night): new words with a comparison, a reason or a place after them; a slide's
    # picture deleted with its slide; an undo said with "actually"
    ("slides", "rename slide 4 to Hives like slide 3", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 to Hives because it is shorter", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 to Think like a bee", OP("deck_edit_slide", {"slide": 4, "title": "Think like a bee"}),
     "deck"),
    ("slides", "add a slide about wax, same layout as slide 2", ASK("unparsed"), "deck"),
    ("slides", "delete slide 3 and add a slide about honey in its place", ASK("unparsed"), "deck"),
    ("slides", "remove slide 3's picture", ASK("unsupported"), "deck"),
    ("slides", "delete slide 2 image", ASK("unsupported"), "deck"),
    ("page", "change the heading to Honey on the roof in the hero", ASK("unparsed"), "page"),
    ("page", "change the heading to Honey on the roof", OP("page_set_text", {"element": "headline",
                                                                            "text": "Honey on the roof"}), "page"),
    ("page", "add a section with the heading Events", ASK("unparsed"), "page"),
    ("previous", "actually, undo that", OPS(OP("page_undo", {}), OP("page_undo", {})), "page:prev"),
    # a sixth probe (2026-12-04, night): builds negated, asked about or reminded of; a size said in words; a look
    # denied in other words; a film about a website; a status beside another shot named
    ("build", "don't make a film about foxes", ASK("unsupported"), "empty"),
    ("build", "I don't want a film about foxes", ASK("unsupported"), "empty"),
    ("build", "is there a film about foxes", ASK("unsupported"), "empty"),
    ("build", "what would a film about foxes look like", ASK("unsupported"), "empty"),
    ("build", "remember to make a film about foxes", ASK("unsupported"), "empty"),
    ("build", "a film, not a deck, about foxes", ASK("unsupported"), "empty"),
    ("build", "can you make a film about foxes?", OP("build_narrative"), "empty"),
    ("build", "a single-shot film about bees", ASK("unsupported"), "empty"),
    ("build", "a film about bees with a dozen shots", ASK("unsupported"), "empty"),
    ("build", "a deck about bees with one slide", ASK("unsupported"), "empty"),
    ("build", "a film about a fox, fewer than 6 shots", ASK("unsupported"), "empty"),
    ("build", "a 4-shot film about a baker, don't use warm lighting", ASK("unsupported"), "empty"),
    ("build", "a 6-shot film about a nurse, not on the night shift", ASK("unsupported"), "empty"),
    ("build", "a 6-shot film about bees at dusk", OP("build_narrative", {"n_shots": 6, "lighting": "dusk"}), "empty"),
    ("build", "make a film about a website designer", OP("build_narrative"), "empty"),
    ("status", "approve shot 3 instead of shot 4", ASK("unparsed"), "story"),
    ("status", "approve shot 3 like shot 4", ASK("unparsed"), "story"),
    ("status", "approve this one and shot 5", ASK("no_target"), "prev"),
    # small wrong successes left by the probes (2026-12-04, late): a look word of the story's subject, a capital
    # "Say" that begins the new words, "read" typo-corrected to "red", a closing "?" or "!" after new words, a
    # hedge before a title, who a note is to
    ("build", "make a film about the dawn of humanity", ASK("unsupported"), "empty"),
    ("build", "a film about the night of the storm", ASK("unsupported"), "empty"),
    ("build", "a film about a man named Dawn", OP("build_narrative", {"lighting": None}), "empty"),
    ("build", "a 6-shot film about a warm-blooded fox", OP("build_narrative", {"n_shots": 6, "lighting": None}),
     "empty"),
    ("build", "a film about a fox called Dusk, at night", OP("build_narrative", {"lighting": "night"}), "empty"),
    ("build", "a film about a cold-hearted king in warm light", OP("build_narrative", {"lighting": "warm"}), "empty"),
    ("page", "change the contact heading to Say hi", OP("page_set_text", {"element": "contact.heading",
                                                                          "text": "Say hi"}), "page"),
    ("page", "change the hero heading to say hello", OP("page_set_text", {"element": "headline", "text": "hello"}),
     "page"),
    ("page", "change the headline to read Welcome home", OP("page_set_text", {"element": "headline",
                                                                               "text": "Welcome home"}), "page"),
    ("page", "change the headline to read \"Welcome home\"", OP("page_set_text", {"element": "headline",
                                                                                     "text": "Welcome home"}), "page"),
    ("page", "change the headline to Welcome!", ASK("unparsed"), "page"),
    ("page", "change the tagline to Why bees?", ASK("unparsed"), "page"),
    ("slides", "rename slide 4 to Questions?", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 to \"Questions?\"", OP("deck_edit_slide", {"slide": 4, "title": "Questions?"}),
     "deck"),
    ("slides", "add a slide about wax!", OP("deck_add_slide", {"about": "wax"}), "deck"),
    ("slides", "slide 4 should be called like Hives", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 to Like a Bee", OP("deck_edit_slide", {"slide": 4, "title": "Like a Bee"}), "deck"),
    ("other", "note to self: make shot 4 night", OP("note", {"text": "make shot 4 night"}), "story"),
    # "the last one" with a film and a deck on the canvas: a shot or a slide (it took the film's last shot out)
    ("routing", "delete the last one", ASK("no_target"), "mixed"),
    ("routing", "please remove the 2nd one", ASK("no_target"), "mixed"),
    # a seventh and eighth probe (2026-12-04, late night): instructions, corrections, hedges and other clauses
    # written into new words; builds with a changed mind, a size taken back, a look for part of the story, a deck's
    # look, a page's own words
    ("slides", "rename slide 4 to Honey harvest, all caps", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 to Honey harvest, wait no, Honey time", ASK("unparsed"), "deck"),
    ("slides", "add a slide about costs, wait no, about time", ASK("unparsed"), "deck"),
    ("slides", "add a slide about costs and one called Budget", ASK("unparsed"), "deck"),
    ("slides", "add a slide called Thanks and one called Questions", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 to Honey harvest, then slide 5 to Questions", ASK("unparsed"), "deck"),
    ("slides", "actually rename slide 4 instead", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 back", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 to just Honey", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 to whatever you think", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 to Honey \"harvest\"", ASK("unparsed"), "deck"),
    ("slides", "add a slide about swarm control in dark blue", ASK("unparsed"), "deck"),
    ("slides", "rename slide 3 of deck 2 to Travel", ASK("unparsed"), "deck"),
    ("slides", "rename slide 1 from Urban beekeeping to Buzz", ASK("unparsed"), "deck"),
    ("slides", "rename slide 1 to Buzz, or maybe Hum", ASK("unparsed"), "deck"),
    ("slides", "rename slide 2 to Hives and swap shots 1 and 2", ASK("unparsed"), "mixed"),
    ("slides", "rename slide 4 to Just Bees", OP("deck_edit_slide", {"slide": 4, "title": "Just Bees"}), "deck"),
    ("slides", "rename slide 4 to 'Honey \"harvest\"'", OP("deck_edit_slide", {"slide": 4, "title": 'Honey "harvest"'}),
     "deck"),
    ("page", "change the headline to Sweet as honey, bigger", ASK("unparsed"), "page"),
    ("page", "change the tagline to Local raw real with more spacing", ASK("unparsed"), "page"),
    ("page", "add a section called Events. Actually call it Workshops", ASK("unparsed"), "page"),
    ("page", "change the headline to Honey bar & the tagline to Local", ASK("unparsed"), "page"),
    ("page", "change the headline to Sweet as honey; make the tagline Local", ASK("unparsed"), "page"),
    ("page", "change the headline to Sweet as and also use serif", ASK("unparsed"), "page"),
    ("page", "change the headline to Honey & Co", OP("page_set_text", {"element": "headline", "text": "Honey & Co"}),
     "page"),
    ("page", "change the tagline to Local, raw, real", OP("page_set_text", {"element": "tagline",
                                                                            "text": "Local, raw, real"}), "page"),
    ("build", "a 6-shot film about a fox. no wait, 8", ASK("unsupported"), "empty"),
    ("build", "a 6-slide deck about composting, no, 8", ASK("unsupported"), "empty"),
    ("build", "a deck on urban gardening, not 5 slides, 6", ASK("unsupported"), "empty"),
    ("build", "a film about a fox, not 6 shots", ASK("unsupported"), "empty"),
    ("build", "a film about a fox, ending at night", ASK("unsupported"), "empty"),
    ("build", "a film about a fox from day to night", ASK("unsupported"), "empty"),
    ("build", "a film about a fox who hates the night", ASK("unsupported"), "empty"),
    ("build", "a dark green deck about composting", ASK("unsupported"), "empty"),
    ("build", "a deck about composting, plus a slide about worms", ASK("unsupported"), "empty"),
    ("build", "a website for a bakery with the headline Fresh every day", ASK("unsupported"), "empty"),
    ("build", "a website for a bakery, 3 sections", ASK("unsupported"), "empty"),
    ("build", "a deck about dark matter", OP("build_deck", {"n_slides": 5}), "empty"),
    ("build", "a film about a fox going home at night", OP("build_narrative", {"lighting": "night"}), "empty"),
    # references on the same probes: "it" before "do the same to shot 7", the deck renamed through its selected
    # slide, "shots 6+", a change after a duplicate
    ("pronoun", "make it darker and do the same to shot 7", {4: {"luma": "lower"}, 7: {"luma": "lower"}}, "sel=4"),
    ("pronoun", "make it darker, then do the same to shot 7", {4: {"luma": "lower"}, 7: {"luma": "lower"}}, "sel=4"),
    ("pronoun", "make it warmer then the next one", {4: {"warmth": "higher"}, 5: {"warmth": "higher"}}, "sel=4"),
    ("pronoun", "make it snow in shot 1", {1: {"weather": "snow"}}, "sel=4"),
    ("slides", "rename the deck to Bees", ASK("unsupported"), "deck:sel=3"),
    ("slides", "rename it to Bees", OP("deck_edit_slide", {"slide": 3, "title": "Bees"}), "deck:sel=3"),
    ("number", "make shots 6+ darker", ASK("unparsed"), "story"),
    ("slides", "delete slides 4+", ASK("unparsed"), "deck"),
    ("slides", "duplicate this slide and call it Hive basics 2", ASK("ambiguous"), "deck:sel=3"),
    ("slides", "duplicate slide 3 and delete slide 5", OPS(OP("deck_duplicate_slide", {"slide": 3}),
                                                          OP("deck_delete_slide", {"slide": 6})), "deck"),
    ("clauses", "make all shots darker except shot 4 which should be warmer", ASK("ambiguous"), "story"),
    ("clauses", "make all shots darker, but shot 4 warmer instead", ASK("ambiguous"), "story"),
    ("clauses", "make shot 3 darker and shot 4 even darker", ASK("ambiguous"), "story"),
    ("clauses", "make shot 4 even darker", {4: {"luma": "lower"}}, "story"),
    ("slides", "add a slide called Thanks!", ASK("unparsed"), "deck"),
    ("page", "add a section called Events!", ASK("unparsed"), "page"),
    ("page", "add a section about tastings, with a blue background", ASK("unsupported"), "page"),
    ("slides", "change slide 1 title and headline to Buzz", ASK("unsupported"), "both"),
    ("slides", "change the headline and slide 1 title to Buzz", ASK("unsupported"), "both"),
    ("slides", "rename slide 1 to Buzz", OP("deck_edit_slide", {"slide": 1, "title": "Buzz"}), "both"),
    # "to it:" and "do the same for slide 4" were written into slide 4's new bullet
    ("slides", "add a bullet to it: wear gloves, and do the same for slide 4", ASK("unparsed"), "deck:sel=3"),
    ("slides", "add a bullet to it: wear gloves", OP("deck_add_bullet", {"slide": 3, "bullet": "wear gloves"}),
     "deck:sel=3"),
    # "the summary slide", with a slide of a deck that has none selected, renamed the selected slide
    ("slides", "rename the summary slide to End", ASK("not_found"), "decks2:sel"),
    ("slides", "add a bullet to the summary slide: buy honey", ASK("not_found"), "decks2:sel"),
    ("slides", "rename this slide to End", IN_DECK("D0", OP("deck_edit_slide", {"slide": 2, "title": "End"})),
     "decks2:sel"),
    # -- a content probe (2026-12-05): slides, the page and builds
    # "say" after a slide's title: the words after its last "to" were the title ('do next')
    ("slides", "make the title of slide 5 say What to do next", OP("deck_edit_slide", {"slide": 5,
                                                                                       "title": "What to do next"}), "deck"),
    ("slides", "make the title of slide 3 say How to keep bees safe", OP("deck_edit_slide", {
        "slide": 3, "title": "How to keep bees safe"}), "deck"),
    # the deck said after the new words, and a second clause after "then", "after that", "&", "+", "also", ". "
    ("slides", "rename slide 2 to Street food in the night markets deck", ASK("unparsed"), "decks2"),
    ("slides", "rename slide 2 to Basics in the presentation", ASK("unparsed"), "deck"),
    ("slides", "add a bullet to slide 2: Bees need water in the beekeeping deck", ASK("unparsed"), "deck"),
    ("slides", "rename slide 2 of the night markets deck to Street food", IN_DECK("D0", OP(
        "deck_edit_slide", {"slide": 2, "title": "Street food"})), "decks2"),
    ("slides", "rename slide 4 to Act then slide 5 to Wrap", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 to Act after that delete slide 5", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 to Act + delete slide 5", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 to Act. slide 5 to Wrap", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 to Bees & Honey", OP("deck_edit_slide", {"slide": 4, "title": "Bees & Honey"}), "deck"),
    ("page", "change the headline to Sky Honey also the button to Book", ASK("unparsed"), "page"),
    ("page", "replace the first picture with a jar of honey then the second with a hive", ASK("unparsed"), "page"),
    # a plain "page" beside a deck, two builds, a deck with no subject
    ("build", "make a page for the deck", ASK("unsupported"), "deck"),
    ("build", "make a deck about bees and a page about honey", ASK("unsupported"), "empty"),
    ("build", "make a deck", ASK("unsupported"), "empty"),
    ("build", "make a presentation for me", ASK("unsupported"), "empty"),
    ("build", "make a deck about bees", OP("build_deck", {"n_slides": 5}), "empty"),
    # a new section's or slide's name or place said inside its topic
    ("page", "add a section about bees called The Hive", ASK("unparsed"), "page"),
    ("page", "add a section about events, heading: What's on", ASK("unparsed"), "page"),
    ("page", "add a section called Events near the bottom", ASK("unparsed"), "page"),
    ("page", "add a section called Events right after the hero", OP("page_add_section", {
        "name": "events", "heading": "Events", "after": "hero"}), "page"),
    ("slides", "add a slide about pests towards the start", ASK("unparsed"), "deck"),
    ("slides", "add a slide about pests, title: Pests", ASK("unparsed"), "deck"),
    ("slides", "add a slide about pests right after slide 2", OP("deck_add_slide", {"after": 2, "about": "pests"}),
     "deck"),
    # a picture replaced by another of the canvas, a look with a part left out, "theme" kept in the theme
    ("page", "replace picture 2 with picture 1", ASK("unsupported"), "page"),
    ("page", "swap picture 1 with picture 3", ASK("unsupported"), "page"),
    ("page", "replace picture 2 with a jar of honey", OP("page_replace_image", {"image": 2, "prompt": "jar of honey"}),
     "page"),
    ("slides", "replace the picture on slide 2 with shot 2", ASK("unsupported"), "mixed"),
    ("page", "make it use a serif font, but keep the button sans", ASK("unsupported"), "page"),
    ("slides", "make the deck theme ocean", OP("deck_set_theme", {"theme": "ocean"}), "deck"),
    # asked needlessly: a call to action's "now", a title "Back to ...", a rename asked as a question
    ("page", "make the button say Reserve now", OP("page_set_text", {"element": "button", "text": "Reserve now"}),
     "page"),
    ("slides", "rename slide 4 to Hives now", ASK("unparsed"), "deck"),
    ("slides", "rename slide 3 to Back to basics", OP("deck_edit_slide", {"slide": 3, "title": "Back to basics"}),
     "deck"),
    ("slides", "could you rename slide 3 to Costs?", OP("deck_edit_slide", {"slide": 3, "title": "Costs"}), "deck"),
    ("slides", "rename slide 3 to Costs?", ASK("unparsed"), "deck"),
    ("slides", "add a bullet: hives cost money", OP("deck_add_bullet", {"slide": 3, "bullet": "hives cost money"}),
     "deck:sel=3"),
    ("slides", "add a bullet: hives cost money", ASK("no_target"), "deck"),
    ("slides", "use the mono theme", OP("deck_set_theme", {"theme": "mono"}), "deck"),
    # -- end of the content probe
    # -- a film probe (2026-12-05): shots, the cut, versions and typos
    # two clauses joined by "&" or "+" were merged (every shot got every change): they part as "and" does; joined by
    # "/", "with" or nothing, which change goes to which shot is asked
    ("clauses", "make shot 4 night & shot 5 rainy", {4: L("night"), 5: {"weather": "rain"}}, "story"),
    ("clauses", "make shot 4 night + shot 5 rainy", {4: L("night"), 5: {"weather": "rain"}}, "story"),
    ("clauses", "regenerate shot 3 & make shot 4 night", {3: {"redo": "take"}, 4: L("night")}, "story"),
    ("clauses", "make shot 3 rainy shot 4 night", ASK("ambiguous"), "story"),
    ("clauses", "make shot 4 night / shot 5 rainy", ASK("ambiguous"), "story"),
    ("clauses", "make shot 3 night with shot 4 rainy", ASK("ambiguous"), "story"),
    ("clauses", "make shot 4 night and shot 5 rainy", {4: L("night"), 5: {"weather": "rain"}}, "story"),
    ("clauses", "make shot 4 & 5 night", {4: L("night"), 5: L("night")}, "story"),
    ("clauses", "make shot 3 night with rain", {3: {"lighting": "night", "weather": "rain"}}, "story"),
    # a correction in the middle ("..., actually shot 4") added the shot instead of replacing the one before it
    ("clauses", "make shot 3 night actually shot 4", ASK("ambiguous"), "story"),
    ("clauses", "make shot 3 night, actually shot 4", ASK("ambiguous"), "story"),
    ("clauses", "make shot 3 night, make that shot 4", ASK("ambiguous"), "story"),
    ("clauses", "actually, make shot 4 night", {4: L("night")}, "story"),
    # English words corrected into command words: "cosy" duplicated the shot, "mourning" made it dawn
    ("typos", "make shot 3 cosy", ASK("unparsed"), "story"),
    ("typos", "make shot 3 mourning", ASK("unparsed"), "story"),
    ("typos", "make shot 3 a surprise", ASK("unparsed"), "story"),
    ("typos", "warp shot 3", ASK("unparsed"), "story"),
    ("typos", "make shot 3 subset", ASK("unparsed"), "story"),
    ("typos", "make shot 3 raid", ASK("unparsed"), "story"),
    ("typos", "make shot 3 dank", ASK("unparsed"), "story"),
    ("typos", "make shot 3 coil", ASK("unparsed"), "story"),
    ("typos", "make shot 3 nigth", {3: L("night")}, "story"),
    ("typos", "make shot 3 darkr", {3: {"luma": "lower"}}, "story"),
    ("typos", "make shot 3 sunrse", {3: L("dawn")}, "story"),
    # "repeat that on shot 5", "copy that to shot 5" duplicated shot 5: the last change, on shot 5
    ("same", "repeat that on shot 5", {5: L("night")}, "prev"),
    ("same", "repeat that for shot 5", {5: L("night")}, "prev"),
    ("same", "copy that to shot 5", {5: L("night")}, "prev"),
    ("same", "apply that to shot 5", {5: L("night")}, "prev"),
    # going back said as a look ("like it was") was dropped, and only "warmer" made, on top of the night
    ("same", "make it like it was but warmer", ASK("ambiguous"), "prev"),
    ("same", "back to how it was, but warmer", ASK("ambiguous"), "prev"),
    ("same", "make it warmer", {3: {"warmth": "higher"}}, "prev"),
    # "a different lighting from shot 1" redid the lighting of shot 1 too
    ("clauses", "make shot 4 a different lighting from shot 1", ASK("unsupported"), "story"),
    ("clauses", "give shot 4 different lighting from shot 2", ASK("unsupported"), "story"),
    ("clauses", "give shot 4 a different lighting", {4: {"redo": "lighting"}}, "story"),
    # two films with no cut: "the last shot of the ferry film" was the last of no film's cut (the film dropped)
    ("films", "remove the last shot of the ferry film", ASK("ambiguous"), "two"),
    ("films", "move the first shot of the ferry film to the end", ASK("ambiguous"), "two"),
    ("films", "remove the last shot", ASK("ambiguous"), "two"),
    # -- end of the film probe
    # -- a probe of questions, feedback, notes and undo (2026-12-05): asked for no change, or an undo of two things
    ("question", "shot 3 is night?", ASK("unparsed"), "story"),
    ("question", "shot 3 is already night", ASK("unparsed"), "story"),
    ("question", "is shot 3 night?", OP("question", {}), "story"),
    ("question", "the button says book now", ASK("unparsed"), "page"),
    ("question", "the font is serif?", ASK("unparsed"), "page:prev"),
    ("question", "how do i delete slide 4", ASK("unparsed"), "deck"),
    ("question", "how to make shot 3 night", ASK("unparsed"), "story"),
    ("routing", "shot 3 is a bit dark", ASK("unparsed"), "story"),
    ("routing", "the font is a bit small", ASK("unparsed"), "page"),
    ("routing", "shot 3 is a bit too dark", {3: {"luma": "higher"}}, "story"),
    ("routing", "shot 3 is night", {3: L("night")}, "story"),
    ("routing", "i made shot 3 night", ASK("unparsed"), "story"),
    ("routing", "i changed the theme to ocean", ASK("unparsed"), "deck"),
    ("routing", "shot 3 might be night", ASK("unparsed"), "story"),
    ("routing", "maybe delete slide 4?", ASK("unparsed"), "deck"),
    ("routing", "to do: make shot 3 night", ASK("unparsed"), "story"),
    ("page", "undo the page and the deck", ASK("unparsed"), "both"),
    ("page", "undo the page if it's serif", ASK("unparsed"), "both"),
    ("page", "revert the page to the original and the deck too", ASK("unparsed"), "both"),
    ("page", "revert the page to the original", OP("page_revert", {"to": "original"}), "both"),
    ("slides", "undo the deck if shot 3 is night", ASK("unparsed"), "mixed"),
    ("page", "undo the last two", OPS(OP("page_undo", {}), OP("page_undo", {})), "page:prev"),
    # over-reach of the rules above, probed again: each acts (or asks) as a person means it
    ("routing", "shot 3 is still too dark", {3: {"luma": "higher"}}, "story"),
    ("routing", "you made shot 3 too dark", {3: {"luma": "higher"}}, "story"),
    ("routing", "shot 3 could be darker", {3: {"luma": "lower"}}, "story"),
    ("routing", "shot 3 is wide", {3: {"framing": "wide"}}, "story"),
    ("routing", "shot 3's a bit dark", ASK("unparsed"), "story"),
    ("routing", "the opening shot is a bit dark", ASK("unparsed"), "story"),
    ("routing", "shot 3 darker maybe", ASK("unparsed"), "story"),
    ("page", "the background is pale blue", OP("page_set_style", {"token": "background"}), "page"),
    ("page", "undo the last change, please", OP("page_undo", {}), "page"),
    ("slides", "revert the deck to the original, thanks", OP("deck_revert", {"to": "original"}), "deck"),
    ("slides", "undo the last two changes to the beekeeping deck",
     IN_DECK("D1", OPS(OP("deck_undo", {}), OP("deck_undo", {}))), "decks2"),
    ("slides", "rename slide 4 to Then the bees came", OP("deck_edit_slide", {"slide": 4, "title": "Then the bees came"}),
     "deck"),
    ("slides", "rename slide 4 to Honey + the city", OP("deck_edit_slide", {"slide": 4, "title": "Honey + the city"}),
     "deck"),
    ("slides", "rename slide 4 to Wait 10 days", OP("deck_edit_slide", {"slide": 4, "title": "Wait 10 days"}), "deck"),
    ("slides", "add a bullet: gloves, and do the same for slide 4", ASK("unparsed"), "deck:sel=3"),
    ("page", "add a section about events close to the top", ASK("unparsed"), "page"),
    ("build", "make a deck about turning a page", OP("build_deck", {"n_slides": 5}), "empty"),
    ("same", "repeat that on shot 5 but darker", {5: {"lighting": "night", "luma": "lower"}}, "prev"),
    # chatty and casual messages (two more probes): praise, hedges and unwanted looks beside a change, a question with
    # a change on its answer, sign-offs and options in new words, "hide", "reverse the slides", "instead" after a
    # deck's or page's change, a layout said as the hero's picture
    ("routing", "delete slide 3; I like slide 4", ASK("unparsed"), "deck"),
    ("routing", "make shot 3 darker or maybe shot 4", ASK("unparsed"), "story"),
    ("routing", "shot 3 night, shot 4 ok", ASK("unparsed"), "story"),
    ("routing", "make shot 5 rainy, the fog was too much", ASK("unparsed"), "story"),
    ("routing", "make shot 3 night instead of rainy", ASK("unparsed"), "story"),
    ("routing", "shot 4 fog-free", ASK("unparsed"), "story"),
    ("question", "is shot 3 at night? if not make it night", ASK("unsupported"), "story"),
    ("question", "how would shot 4 look at night?", ASK("unparsed"), "story"),
    ("clauses", "make shot 3 darker. Actually just shot 4.", ASK("ambiguous"), "story"),
    ("slides", "rename slide 3 to Costs plz", ASK("unparsed"), "deck"),
    ("slides", "rename slide 2 to Why bees, and bold it", ASK("unparsed"), "deck"),
    ("slides", "rename slide 3 into Costs", ASK("unparsed"), "deck"),
    ("slides", "rename slides 3 & 4 to Costs & Parts", ASK("unparsed"), "deck"),
    ("slides", "rename slide 3 to Now or never", OP("deck_edit_slide", {"slide": 3, "title": "Now or never"}), "deck"),
    ("slides", "reverse the slides", ASK("unparsed"), "deck"),
    ("slides", "delete slide 4 instead", ASK("ambiguous"), "deck:prev"),
    ("page", "change the headline to Sky Honey or similar", ASK("unparsed"), "page"),
    ("page", "hide the gallery", ASK("unparsed"), "page"),
    ("page", "add a team section", OP("page_add_section", {"name": "team"}), "page"),
    ("page", "change the hero to full width", ASK("unparsed"), "page"),
    ("page", "change the hero image to a jar of honey", OP("page_replace_image", {"image": "hero",
                                                                               "prompt": "jar of honey"}), "page"),
    # -- end of the probe of questions, feedback, notes and undo
    # -- wrong successes left by that probe (2026-12-05, later): a look in a shot's description, what a shot has,
    # a bullet "on" a topic, "both" said of one thing
    ("routing", "make shot 3 night (the storm scene)", ASK("unparsed"), "story"),
    ("routing", "make shot 3, the rainy one, night", ASK("unparsed"), "story"),
    ("routing", "make shot 3 night - the storm scene", ASK("unparsed"), "story"),
    ("routing", "make shot 3 night (rainy too)", {3: {"lighting": "night", "weather": "rain"}}, "story"),
    ("routing", "make shot 3 night (please)", {3: L("night")}, "story"),
    ("routing", "shot 4 has rain", ASK("unparsed"), "story"),
    ("routing", "shots 3 and 4 have rain", ASK("unparsed"), "story"),
    ("routing", "shot 4 had rain", ASK("unparsed"), "story"),
    ("routing", "shot 4 has no rain", ASK("unparsed"), "story"),
    ("routing", "shot 4 needs rain", {4: {"weather": "rain"}}, "story"),
    ("routing", "shot 3 has to be night", {3: L("night")}, "story"),
    ("slides", "add a bullet on smokers to slide 4", OP("deck_add_bullet", {"slide": 4, "bullet": "smokers"}), "deck"),
    ("slides", "add a bullet on slide 4: smokers", OP("deck_add_bullet", {"slide": 4, "bullet": "smokers"}), "deck"),
    ("slides", "rename slide 4 to Act 2 - The Final Scene",
     OP("deck_edit_slide", {"slide": 4, "title": "Act 2 - The Final Scene"}), "deck"),
    ("page", "use a serif font on both", ASK("ambiguous"), "both"),
    ("page", "use a serif font", OP("page_set_style", {"token": "fonts", "value": "serif"}), "both"),
    ("routing", "make shot 3 both night and rainy", {3: {"lighting": "night", "weather": "rain"}}, "story"),
    # a change said of nothing: the selection, or the shots the turn before changed, as "make it darker" (it asked,
    # "nothing is selected", with shot 3 selected)
    ("routing", "darker", {3: {"luma": "lower"}}, "sel=3"),
    ("routing", "a bit warmer please", {3: {"warmth": "higher"}}, "sel=3"),
    ("routing", "even darker", {3: {"luma": "lower"}}, "prev"),
    ("routing", "make the dusk shots warmer", ASK("no_target"), "prev"),
    ("routing", "redo", ASK("no_target"), "prev"),
    ("routing", "darker", ASK("no_target"), "story"),
    # -- needless asks left by that probe, and what mending them showed (2026-12-05, evening)
    # several undos of one deck asked "an undo with other changes is ambiguous"; "twice" was a change's name
    ("slides", "undo the last two changes", OPS(OP("deck_undo", {}), OP("deck_undo", {})), "deck:prev"),
    ("slides", "undo the last 2", OPS(OP("deck_undo", {}), OP("deck_undo", {})), "deck:prev"),
    ("slides", "undo twice", OPS(OP("deck_undo", {}), OP("deck_undo", {})), "deck:prev"),
    ("page", "undo twice", OPS(OP("page_undo", {}), OP("page_undo", {})), "page:prev"),
    ("page", "undo 3 times", OPS(OP("page_undo", {}), OP("page_undo", {}), OP("page_undo", {})), "page:prev"),
    ("slides", "undo the last two changes and delete slide 2", ASK("unparsed"), "deck:prev"),
    # a count beside other words was the name of one change: one was undone ("the last 2 changes to slide 3" needs
    # a change whose words have 2 and 3)
    ("slides", "undo the last two changes to slide 3", ASK("unsupported"), "deck:prev"),
    ("slides", "undo the last two slides", ASK("unsupported"), "deck:prev"),
    ("slides", "undo that twice", ASK("unsupported"), "deck:prev"),
    ("page", "undo the last 2 changes to the headline", ASK("unsupported"), "page:prev"),
    ("slides", "undo once", OP("deck_undo", {}), "deck:prev"),
    ("slides", "undo the last 1 change", OP("deck_undo", {}), "deck:prev"),
    # an undo naming its deck or page by title: the named one, not a change called 'the last change to the ...'; a
    # page no title names, or a page said to the deck's reader, is asked about
    ("slides", "undo the last change to the night markets deck", IN_DECK("D0", OP("deck_undo", {})), "decks2"),
    ("slides", "undo the last change to the marketing deck", ASK("ambiguous"), "deck"),
    ("slides", "undo the last change to the honey page", ASK("unparsed"), "deck"),
    ("page", "undo the last change to the honey bar page", OP("page_undo", {}), "page"),
    ("page", "undo the last change to the landing page", OP("page_undo", {}), "page"),
    ("page", "undo the last change to the pricing page", ASK("not_found"), "page"),
    ("page", "undo the last 2 changes to the pricing page", ASK("not_found"), "page"),
    # one verb for a slide and a shot: each part read by its family's reader
    ("routing", "delete slide 4 and shot 4",
     OPS(OP("deck_delete_slide", {"slide": 4}), OP("remove_from_cut", {"shots": ["S4"]})), "mixed"),
    ("routing", "remove shot 2 and slide 3",
     OPS(OP("remove_from_cut", {"shots": ["S2"]}), OP("deck_delete_slide", {"slide": 3})), "mixed"),
    ("routing", "delete slide 4 and shot 9", ASK("unparsed"), "mixed"),
    # the rest said to stay: kept, not more shots to change
    ("routing", "make shot 3 night, the others stay", {3: L("night")}, "story"),
    ("routing", "make shot 3 night and the rest should stay the same", {3: L("night")}, "story"),
    ("routing", "make shot 3 night, the others stay rainy", ASK("unparsed"), "story"),
    # -- wrong successes found by three probes of fresh requests (2026-12-05, evening) ---------------------------
    # a title with the words around it: a description in brackets, a mark instead of "to", a sign-off
    ("slides", "rename slide 3 (the case one) to Why bees", ASK("unparsed"), "deck"),
    ("slides", "rename slide 4 (the summary) to Recap", ASK("unparsed"), "deck"),
    ("slides", "rename slide 3 to: Why bees", OP("deck_edit_slide", {"slide": 3, "title": "Why bees"}), "deck"),
    ("slides", "rename slide 3 - Why bees", OP("deck_edit_slide", {"slide": 3, "title": "Why bees"}), "deck"),
    ("slides", "rename slide 2 → Bees 101", OP("deck_edit_slide", {"slide": 2, "title": "Bees 101"}), "deck"),
    ("slides", "rename slide 3 to why bees, thank u", ASK("unparsed"), "deck"),
    ("page", "change the headline to Honey on the Roof, thank u", ASK("unparsed"), "page"),
    # a new slide's or section's title and topic said together
    ("slides", "add a slide about pollination and call it Pollinators", ASK("unparsed"), "deck"),
    ("slides", "add a slide titled Swarm season about swarms", ASK("unparsed"), "deck"),
    ("slides", "add a slide about swarms titled Swarm season",
     OP("deck_add_slide", {"after": 5, "about": "swarms", "title": "Swarm season"}), "deck"),
    ("page", "add a section about tastings and call it Tasting nights", ASK("unparsed"), "page"),
    ("page", "add a section called Events about our tasting nights", ASK("unparsed"), "page"),
    # a slide's number and a description of another slide, side by side: both were deleted
    ("slides", "delete slide 4, the summary", ASK("conflict"), "deck"),
    ("slides", "delete the summary (slide 4)", ASK("conflict"), "deck"),
    ("slides", "delete slide 5 (the last one)", OP("deck_delete_slide", {"slide": 5}), "deck"),
    ("slides", "delete slide 4 and the summary",
     OPS(OP("deck_delete_slide", {"slide": 5}), OP("deck_delete_slide", {"slide": 4})), "deck"),
    # a colour with a word joined to it: the colour alone was set
    ("page", "set the background to off-white", ASK("unparsed"), "page"),
    ("page", "set the background to near-black", ASK("unparsed"), "page"),
    ("page", "make the accent blue-ish", ASK("unparsed"), "page"),
    # a question about an undo, or one withdrawn: each undid
    ("slides", "what does undo do?", ASK("unparsed"), "deck:prev"),
    ("slides", "undo that? no, keep it", ASK("unparsed"), "deck:prev"),
    ("page", "undo that?? nah nvm", ASK("unparsed"), "page:prev"),
    ("slides", "could you undo the last change?", OP("deck_undo", {}), "deck:prev"),
    # the thing named first is made ("a film about the deck" built a deck); another medium is asked about
    ("routing", "make a film about the deck", OP("build_narrative"), "deck"),
    ("routing", "a storyboard about making a presentation", OP("build_narrative"), "empty"),
    ("routing", "a film about slides at a water park", OP("build_narrative"), "empty"),
    ("routing", "make a video about a website", ASK("unsupported"), "empty"),
    # a musing, or a look asked about with no verb
    ("routing", "i wonder how shot 3 looks at night", ASK("unparsed"), "story"),
    ("routing", "picture shot 7 in fog", ASK("unparsed"), "story"),
    ("routing", "shot 3 at night?", ASK("unparsed"), "story"),
    ("routing", "shot 3 darker please?", {3: {"luma": "lower"}}, "story"),
    # -- needless asks from those probes, mended (2026-12-05, evening): short typing, a name, above and below, a
    # mark for "to" on the page, the last of several sentences
    ("routing", "can u make shot 5 a little darker pls", {5: {"luma": "lower"}}, "story"),
    ("routing", "make shot five abit warmer plz", {5: {"warmth": "higher"}}, "story"),
    ("routing", "hey jarvis, shot 1 golden hour thanks!", {1: L("golden-hour")}, "story"),
    ("routing", "shot 3 nite pls", {3: L("night")}, "story"),
    ("slides", "rename slide 4 to Nite Market", OP("deck_edit_slide", {"slide": 4, "title": "Nite Market"}), "deck"),
    ("slides", "add a bullet to slide 3: Bees abit everywhere",
     OP("deck_add_bullet", {"slide": 3, "bullet": "Bees abit everywhere"}), "deck"),
    ("slides", "move slide 5 above slide 4", OP("deck_move_slide", {"slide": 5, "to": 4}), "deck"),
    ("slides", "move slide 1 below slide 2", OP("deck_move_slide", {"slide": 1, "to": 2}), "deck"),
    ("page", "change the headline to: Honey on the Roof", OP("page_set_text", {"element": "headline", "text": "Honey on the Roof"}),
     "page"),
    ("page", "tagline -> Sip, taste and linger", OP("page_set_text", {"element": "tagline", "text": "Sip, taste and linger"}), "page"),
    ("page", "set the about text to: We keep bees. We pour honey.",
     OP("page_set_text", {"element": "about.text", "text": "We keep bees. We pour honey."}), "page"),
    ("page", "change the headline to Honey on the Roof.",
     OP("page_set_text", {"element": "headline", "text": "Honey on the Roof"}), "page"),
    # -- wrong successes found by a second probe of fresh requests (2026-12-05, evening) --------------------------
    # a size said relative to now was set as the size ("10px bigger" made the headline 10px); points are 4/3 px
    ("page", "make the headline 10px bigger", OP("page_set_style", {"token": "headline-size", "value": "+10px"}),
     "page"),
    ("page", "make the body text 2px smaller", OP("page_set_style", {"token": "text-size", "value": "-2px"}), "page"),
    ("page", "make the headline 12pt", OP("page_set_style", {"token": "headline-size", "value": "16px"}), "page"),
    # a flaw asked for, a change and its opposite, a choice, a look changed and kept
    ("routing", "make shot 5 too dark", ASK("unparsed"), "story"),
    ("routing", "make shot 5 less bright, not darker", ASK("conflict"), "story"),
    ("routing", "lighten shot 5, or darken shot 6", ASK("unparsed"), "story"),
    ("routing", "make shot 4 night but leave the lighting", ASK("unparsed"), "story"),
    ("routing", "same for shot 4 but not night", ASK("unparsed"), "prev"),
    ("routing", "do what you did to shot 3 but to shot 4 at dusk", ASK("unparsed"), "prev"),
    # a remark on how a shot looks, a question mark with no verb of asking, a musing
    ("routing", "shot 6 looks foggy", ASK("unparsed"), "story"),
    ("routing", "shot 3 looks like night", ASK("unparsed"), "story"),
    ("routing", "shot 6 looks too dark", {6: {"luma": "higher"}}, "story"),
    ("routing", "night for shot 3?", ASK("unparsed"), "story"),
    ("routing", "could you make shot 3 night?", {3: L("night")}, "story"),
    ("routing", "let's make shot 3 night?", {3: L("night")}, "story"),
    # a second shot said without its noun (asked as two changes of shot 3)
    ("clauses", "make shot 3 night and 4 dusk", {3: L("night"), 4: L("dusk")}, "story"),
    ("clauses", "make the third shot darker and the fifth lighter", {3: {"luma": "lower"}, 5: {"luma": "higher"}},
     "story"),
    ("clauses", "make shot 3 night and 4", ASK("unparsed"), "story"),
    # -- a third probe, of this session's own rules (2026-12-05, evening): a choice offered with "or", praise after a
    # flaw, one aspect of the selection restored, counted undos typed short
    ("routing", "use the dark theme, or make shot 3 night", ASK("unparsed"), "mixed"),
    ("routing", "use a dark theme for the deck, or a light one", ASK("unparsed"), "mixed"),
    ("page", "change the headline to Honey at dusk, or Honey at night", ASK("unparsed"), "page"),
    ("routing", "a 6-shot film about a bee, or a deck", ASK("unsupported"), "empty"),
    ("routing", "shot 3 looks too dark but I like it", ASK("unparsed"), "story"),
    ("clauses", "make shot 3 night and 4 of them dusk", ASK("conflict"), "story"),
    ("slides", "undo x2", OPS(OP("deck_undo", {}), OP("deck_undo", {})), "deck:prev"),
    ("slides", "undo undo", ASK("unparsed"), "deck:prev"),
    ("routing", "hey jarvis, a deck about bees", OP("build_deck", {"topic": "a deck about bees"}), "empty"),
    ("page", 'tagline: "Slow honey"?', ASK("unparsed"), "page"),
    ("routing", "shot 5 could maybe be rainy", ASK("unparsed"), "story"),
    ("routing", "a film about bees might be fun", ASK("unsupported"), "empty"),
    ("routing", "a short film about bees, not now though", ASK("unsupported"), "empty"),
    ("slides", "add a slide about wax or about honey", ASK("ambiguous"), "deck"),
    # new words with a remark after them, or with marks of their own that were trimmed
    ("slides", "rename slide 2 to Why now, if that works", ASK("unparsed"), "deck"),
    ("page", "change the headline to Honey & hives idk", ASK("unparsed"), "page"),
    ("slides", "rename slide 5 to Wait for it...", OP("deck_edit_slide", {"slide": 5, "title": "Wait for it..."}),
     "deck"),
    ("slides", "rename slide 1 to Bees, Inc.", OP("deck_edit_slide", {"slide": 1, "title": "Bees, Inc."}), "deck"),
    ("slides", "rename slide 2 to 'Twas a sweet year",
     OP("deck_edit_slide", {"slide": 2, "title": "'Twas a sweet year"}), "deck"),
    ("slides", "rename slide 1 to „Bienen“", OP("deck_edit_slide", {"slide": 1, "title": "Bienen"}), "deck"),
    ("slides", 'add a bullet to slide 2: "Keep calm", said the keeper', ASK("unparsed"), "deck"),
    ("page", "change the headline to Open till 11p.m.", OP("page_set_text", {"element": "headline", "text": "Open till 11p.m."}), "page"),
    # a second shot said without its noun after a comma (asked as two changes of shot 3): only with a look after the
    # number; a length, a count or "of them" is no shot
    ("clauses", "make shot 3 night, 4 dusk", {3: L("night"), 4: L("dusk")}, "story"),
    ("clauses", "make shot 3 night, 4 dusk and 5 foggy", {3: L("night"), 4: L("dusk"), 5: L("foggy")}, "story"),
    ("clauses", "make shot 3 night, 4 dusk, 5 foggy", {3: L("night"), 4: L("dusk"), 5: L("foggy")}, "story"),
    ("clauses", "make shots 3 night, 4 dusk", {3: L("night"), 4: L("dusk")}, "story"),
    ("clauses", "make shots 3 and 4 night, 5 dusk", {3: L("night"), 4: L("night"), 5: L("dusk")}, "story"),
    ("clauses", "make shot 3 night, 4 in the rain", {3: L("night"), 4: {"weather": "rain"}}, "story"),
    ("clauses", "make the third shot darker, the fifth lighter", {3: {"luma": "lower"}, 5: {"luma": "higher"}},
     "story"),
    ("clauses", "make shot 3 night, 4 dusk", ASK("ambiguous"), "two"),
    ("clauses", "make shot 3 night, 4 seconds long", ASK("unparsed"), "story"),
    ("clauses", "make shot 3 night, 4 times", ASK("unparsed"), "story"),
    ("clauses", "make shot 3 night, 4 of them dusk", ASK("conflict"), "story"),
    ("clauses", "make shot 3 night, 4 days later", ASK("unparsed"), "story"),
    ("clauses", "make shot 3 night, 4 dark ones", ASK("unparsed"), "story"),
    # a correction in the middle of a request (asked as two changes of shot 2): the later value of the same aspect
    # replaces the earlier; another aspect after it, instead or as well, is asked (both were made)
    ("clauses", "make shot 2 night, no wait, dusk", {2: L("dusk")}, "story"),
    ("clauses", "make shot 2 night... actually dusk", {2: L("dusk")}, "story"),
    ("clauses", "make shot 2 night, no, dusk", {2: L("dusk")}, "story"),
    ("clauses", "make shot 2 night, sorry, dusk", {2: L("dusk")}, "story"),
    ("clauses", "make shot 2 night, I mean dusk", {2: L("dusk")}, "story"),
    ("clauses", "make shot 2 night, actually make it dusk", {2: L("dusk")}, "story"),
    ("clauses", "make shots 2 and 3 night, no wait, dusk", {2: L("dusk"), 3: L("dusk")}, "story"),
    ("clauses", "make shot 2 rainy, actually snowy", {2: {"weather": "snow"}}, "story"),
    ("clauses", "make shot 2 a close-up, actually wide", {2: {"framing": "wide"}}, "story"),
    ("clauses", "make shot 3 night, 4 dusk, no wait, dawn", {3: L("night"), 4: L("dawn")}, "story"),
    ("clauses", "make shot 2 night, no, shot 3", {3: L("night")}, "story"),
    ("clauses", "make shot 2 night, actually make it a close-up", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2 night, actually rainy", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2 night and shot 3 rainy, actually dusk", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2 darker, actually warmer", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2 night, no wait, rainy", ASK("unparsed"), "story"),
    ("clauses", "make shot 2 night, no wait, make shot 3 dusk", ASK("unparsed"), "story"),
    # a number typed against its noun ("shot3", "slide4"; asked about): read as "shot 3", but never inside new words a
    # request writes (a title, a picture's prompt), nor in "mp3", "screenshot3" or "shot3a"
    ("number", "make shot3 night", {3: L("night")}, "story"),
    ("number", "shot3 darker pls", {3: {"luma": "lower"}}, "story"),
    ("number", "make shots3 and 4 night", {3: L("night"), 4: L("night")}, "story"),
    ("number", "make shot3 night", {3: L("night")}, "mixed"),
    ("number", "make shot3 or shot4 night", ASK("ambiguous"), "story"),
    ("number", "make shots6+ darker", ASK("unparsed"), "story"),
    ("number", "make screenshot3 night", ASK("unparsed"), "story"),
    ("number", "make shot3a night", ASK("unparsed"), "story"),
    ("number", "make the mp3 louder", ASK("unparsed"), "story"),
    ("number", "make shot3 night and slide4", ASK("unparsed"), "mixed"),
    ("slides", "delete slide4", OP("deck_delete_slide", {"slide": 4}), "deck"),
    ("slides", "delete slide4", OP("deck_delete_slide", {"slide": 4}), "mixed"),
    ("slides", "move slide 5 before slide2", OP("deck_move_slide", {"slide": 5, "to": 2}), "deck"),
    ("slides", "swap slide2 and slide4",
     OPS(OP("deck_move_slide", {"slide": 4, "to": 2}), OP("deck_move_slide", {"slide": 3, "to": 4})), "deck"),
    ("slides", "rename slide 2 to Slide3 recap", OP("deck_edit_slide", {"slide": 2, "title": "Slide3 recap"}), "deck"),
    ("slides", "delete slide4", ASK("not_found"), "story"),
    ("page", "change the hero to Shot3 Studio", OP("page_replace_image", {"image": "hero", "prompt": "Shot3 Studio"}),
     "page"),
    # a slide's new place said as an ordinal ("put the summary slide second"; asked about): said bare, only as the
    # whole request ("delete slide 3 and move slide 5 first" may say when); a slide or a place the deck lacks is asked
    ("slides", "put the summary slide second", OP("deck_move_slide", {"slide": 5, "to": 2}), "deck"),
    ("slides", "move slide 5 third", OP("deck_move_slide", {"slide": 5, "to": 3}), "deck"),
    ("slides", "move slide 5 to third", OP("deck_move_slide", {"slide": 5, "to": 3}), "deck"),
    ("slides", "put slide 5 in second place", OP("deck_move_slide", {"slide": 5, "to": 2}), "deck"),
    ("slides", "move slide 4 first", OP("deck_move_slide", {"slide": 4, "to": 1}), "deck"),
    ("slides", "move slide 2 last", OP("deck_move_slide", {"slide": 2, "to": 5}), "deck"),
    ("slides", "move slide 2 to last", OP("deck_move_slide", {"slide": 2, "to": 5}), "deck"),
    ("slides", "put this slide second", OP("deck_move_slide", {"slide": 3, "to": 2}), "deck:sel=3"),
    ("slides", "move slide 6 third", ASK("not_found"), "deck"),
    ("slides", "move slide 5 tenth", ASK("not_found"), "deck"),
    ("slides", "put the pricing slide second", ASK("no_target"), "deck"),
    ("slides", "put the summary slide second", ASK("not_found"), "decks2:sel"),
    ("slides", "put the summary slide second", ASK("not_found"), "page"),
    ("slides", "put slide 2 second or third", ASK("unparsed"), "deck"),
    ("slides", "move the second slide", ASK("unparsed"), "deck"),
    ("slides", "move slides 3 and 4 second", ASK("unparsed"), "deck"),
    ("slides", "delete slide 3 and move slide 5 first", ASK("unparsed"), "deck"),
    ("slides", "move slide 5 first then delete slide 2", ASK("unparsed"), "deck"),
    # a shot and the deck under one "make" ("make shot 3 night and the deck dark"; asked about): "make the deck dark",
    # when that alone is read; a part that alone is asked about leaves the request asked about
    ("routing", "make shot 3 night and the deck dark", OPS({3: L("night")}, OP("deck_set_theme", {"theme": "dark"})),
     "mixed"),
    ("routing", "make shot3 night and the presentation dark",
     OPS({3: L("night")}, OP("deck_set_theme", {"theme": "dark"})), "mixed"),
    ("routing", "make shot 3 night and the deck dark", ASK("not_found"), "story"),
    ("routing", "make shot 3 night and the deck", ASK("unparsed"), "mixed"),
    ("routing", "make shot 3 and the deck dark", ASK("unparsed"), "mixed"),
    ("routing", "make shot 3 night and the deck dark or light", ASK("unparsed"), "mixed"),
    ("routing", "make shot 3 night and the deck the ocean theme", ASK("unparsed"), "mixed"),
    # wrong successes a probe of the rules above found (asked about now): a time of day after a comma or "and" is no
    # shot ("..., 6 in the morning" made shot 6 dawn); a correction of a negated value ("night, not dusk, no wait,
    # dusk" made it night); a correction that negates ("..., no wait, not so dark" brightened it); an ordinal
    # after other words is no place ("move slide 4 in a second" moved it to second)
    ("number", "make shot 3 dusk, 6 in the evening", ASK("unparsed"), "story"),
    ("number", "make shot 3 dawn and 6 in the morning", ASK("unparsed"), "story"),
    ("number", "make shot 3 night, 2 at midnight", ASK("unparsed"), "story"),
    ("number", "make shot 3 dusk, 6 evening", ASK("unparsed"), "story"),
    ("number", "make shot 3 foggy, 6 in the morning", ASK("conflict"), "story"),
    ("number", "make shot 3 night and 4 in the rain", {3: L("night"), 4: {"weather": "rain"}}, "story"),
    ("clauses", "make shot 2 night, not dusk, no wait, dusk", ASK("conflict"), "story"),
    ("clauses", "make shot 2 warmer not cooler, no wait, cooler", ASK("conflict"), "story"),
    ("clauses", "make shot 2 darker, not warmer, no wait, cooler", ASK("unparsed"), "story"),
    ("clauses", "make shot 2 darker, no wait, not so dark", ASK("conflict"), "story"),
    ("clauses", "make shot 2 snowy, actually no snow", ASK("conflict"), "story"),
    ("clauses", "make shot 2 night with no rain, no wait, snow", ASK("conflict"), "story"),
    ("slides", "move slide 4 in a second", ASK("unparsed"), "deck"),
    ("slides", "move slide 4 for a second", ASK("unparsed"), "deck"),
    ("slides", "move slide 5 back a second", ASK("unparsed"), "deck"),
    ("slides", "move slide 4 like the last", ASK("unparsed"), "deck"),
    ("slides", "move it in a second", ASK("unparsed"), "deck:sel=3"),
    # a polite word at the end ("pls", "thanks", "lol") no longer stops the phrasings above from being read
    ("clauses", "make shot 2 night, no wait, dusk, thanks", {2: L("dusk")}, "story"),
    ("clauses", "make shot 2 night, no wait, dusk pls", {2: L("dusk")}, "story"),
    ("number", "make shot 3 night, 4 dusk pls", {3: L("night"), 4: L("dusk")}, "story"),
    ("number", "make shot 3 night, 4 dusk, please", {3: L("night"), 4: L("dusk")}, "story"),
    ("number", "make shot 3 dusk, 6 in the evening pls", ASK("unparsed"), "story"),
    ("clauses", "make shot 2 night, actually make it a close-up pls", ASK("ambiguous"), "story"),
    ("slides", "put the summary slide second pls", OP("deck_move_slide", {"slide": 5, "to": 2}), "deck"),
    ("slides", "move slide 4 in a second pls", ASK("unparsed"), "deck"),
    # several shots after the comma ("..., 4 and 5 dusk")
    ("number", "make shot 3 night, 4 and 5 dusk", {3: L("night"), 4: L("dusk"), 5: L("dusk")}, "story"),
    ("number", "make shot 3 night, 4, 5 dusk", {3: L("night"), 4: L("dusk"), 5: L("dusk")}, "story"),
    ("number", "make shots 2 and 3 night, 4 and 5 dusk",
     {2: L("night"), 3: L("night"), 4: L("dusk"), 5: L("dusk")}, "story"),
    ("number", "make shot 3 night, 4 and 5 seconds long", ASK("unparsed"), "story"),
    ("number", "make shot 3 night, 4, 5 times", ASK("unparsed"), "story"),
    # a probe of lists and corrections (2026-12-05): "redo shot 3, 4 dusk" made shots 3 and 4 dusk, though "redo shot
    # 3" is a whole request (another take); "..., 2 close-ups" made shot 2 a close-up (a count, not a shot); "did you
    # leave shot 3 out?" was answered with how shot 3 looks.  Asked now; a list said with "shots", or with a verb that
    # says nothing alone ("make"), or with no change after it, is read as before
    ("clauses", "redo shot 3, 4 dusk", ASK("ambiguous"), "story"),
    ("clauses", "redo shot 3, 4 dusk pls", ASK("ambiguous"), "story"),
    ("clauses", "redo shot 3 and 4 at night", ASK("ambiguous"), "story"),
    ("clauses", "regenerate shot 3, 4 warmer", ASK("ambiguous"), "story"),
    ("clauses", "redo shot 3 and the last shot dusk", ASK("ambiguous"), "story"),
    ("clauses", "redo shot 3, shot 4 dusk", ASK("ambiguous"), "story"),
    ("clauses", "redo the lighting on shot 3, 4 dusk", ASK("ambiguous"), "story"),
    ("clauses", "redo shot 3, 4 dusk", ASK("not_found"), "deck"),
    ("clauses", "redo shots 3, 4 dusk", {3: L("dusk"), 4: L("dusk")}, "story"),
    ("clauses", "redo shot 3, 4", {3: {"redo": "take"}, 4: {"redo": "take"}}, "story"),
    ("clauses", "redo shot 3 and make shot 4 dusk", {3: {"redo": "take"}, 4: L("dusk")}, "story"),
    ("clauses", "make shot 3, 4 dusk", {3: L("dusk"), 4: L("dusk")}, "story"),
    ("clauses", "redo the lighting of shot 2 and shot 4 to night", {2: L("night"), 4: L("night")}, "story"),
    ("number", "make shot 3 night, 2 close-ups", ASK("unparsed"), "story"),
    ("number", "make shot 3 night and 2 close-ups", ASK("unparsed"), "story"),
    ("number", "make shot 3 night, 2 close ups pls", ASK("unparsed"), "story"),
    ("number", "make shot 3 night, 3 close-ups", ASK("unparsed"), "story"),
    ("number", "make shot 3 night, 2 close-up", {3: L("night"), 2: {"framing": "close-up"}}, "story"),
    ("number", "make shot 3 night and 2 a close-up", {3: L("night"), 2: {"framing": "close-up"}}, "story"),
    ("question", "did you leave shot 3 out?", OP("question", {"ask": "cut", "about": "shots"}), "story"),
    ("question", "did you leave out shot 3?", OP("question", {"ask": "cut", "about": "shots"}), "story"),
    ("question", "did you leave the last shot out?", OP("question", {"ask": "cut", "about": "shots"}), "story"),
    ("question", "did you drop shot 3?", OP("question", {"ask": "cut", "about": "shots"}), "story"),
    ("question", "is shot 3 missing?", OP("question", {"ask": "cut", "about": "shots"}), "story"),
    ("question", "did you leave shot 3 out?", ASK("not_found"), "deck"),
    ("question", "did you leave the rain out of shot 3?", OP("question", {"ask": "attribute", "attribute": "look"}),
     "story"),
    ("question", "is shot 3 in the rain?", OP("question", {"ask": "attribute", "attribute": "look"}), "story"),
    # a correction said of "shot 2 is night": the later value, as with "make" (never night); another aspect is asked
    ("clauses", "shot 2 is night, no wait, dusk", {2: L("dusk")}, "story"),
    ("clauses", "shot 2 is night, no wait, dusk pls", {2: L("dusk")}, "story"),
    ("clauses", "shot 4 is rainy, no wait, snowy", {4: {"weather": "snow"}}, "story"),
    ("clauses", "shot 2 is night, no wait, rainy", ASK("unparsed"), "story"),
    ("clauses", "shot 2 is night? no wait, dusk", ASK("conflict"), "story"),
    # needless asks: a face or an emoji after a correction ("..., no wait, dusk 🙂") is a sign-off; "set shot 3 to
    # night, 4 to dusk" names shot 4 as "..., 4 dusk" does; a number taken back right after it is said ("delete slide
    # 2, no wait, 3") is replaced.  "actually" alone, a list, more numbers after it, or new words are still asked
    ("clauses", "make shot 2 night, no wait, dusk 🙂", {2: L("dusk")}, "story"),
    ("clauses", "make shot 2 night, no wait, dusk :)", {2: L("dusk")}, "story"),
    ("clauses", "make shot 2 night, no wait, dusk thanks 🙂", {2: L("dusk")}, "story"),
    ("number", "make shot 3 night, 4 dusk 🙂", {3: L("night"), 4: L("dusk")}, "story"),
    ("clauses", "make shot 2 night, no wait, rainy 🙂", ASK("unparsed"), "story"),
    ("clauses", "make shot 2 night, actually make it a close-up 🙂", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2 night 🙂 no wait, dusk", ASK("conflict"), "story"),
    ("number", "set shot 3 to night, 4 to dusk", {3: L("night"), 4: L("dusk")}, "story"),
    ("number", "change shot 3 to night, 4 to dusk", {3: L("night"), 4: L("dusk")}, "story"),
    ("number", "set shots 3 and 4 to night, 5 to dusk", {3: L("night"), 4: L("night"), 5: L("dusk")}, "story"),
    ("number", "set shot 3 to night, 4 and 5 to dusk", {3: L("night"), 4: L("dusk"), 5: L("dusk")}, "story"),
    ("number", "set shot 3 to night, 4 to dusk", ASK("ambiguous"), "two"),
    ("number", "make shot 3 dusk, 6 to midnight", ASK("conflict"), "story"),
    ("number", "set shot 3 to night, 4 to the end", ASK("unparsed"), "story"),
    ("number", "set shot 3 to night, 4 to 5 dusk", ASK("conflict"), "story"),
    ("slides", "delete slide 2, no wait, 3", OP("deck_delete_slide", {"slide": 3}), "deck"),
    ("slides", "delete slide 2, no wait, slide 3", OP("deck_delete_slide", {"slide": 3}), "deck"),
    ("slides", "delete slide 4, no wait, 5 pls", OP("deck_delete_slide", {"slide": 5}), "deck"),
    ("slides", "delete slide 2, sorry, 3", OP("deck_delete_slide", {"slide": 3}), "deck"),
    ("slides", "move slide 2, no wait, 3 to the end", OP("deck_move_slide", {"slide": 3, "to": 5}), "deck"),
    ("slides", "delete slide 2, no wait, 3", OP("deck_delete_slide", {"slide": 3}), "mixed"),
    ("slides", "delete slide 2, actually 3", ASK("ambiguous"), "deck"),
    ("slides", "delete slide 2, no wait, 3 and 4", ASK("ambiguous"), "deck"),
    ("slides", "delete slide 4 and slide 2, no wait, 3", ASK("ambiguous"), "deck"),
    ("slides", "delete slides 2, no wait, 3", ASK("ambiguous"), "deck"),
    ("slides", "rename slide 2, no wait, 3 to Costs", ASK("unparsed"), "deck"),
    ("slides", "delete slide 2, no wait, 9", ASK("not_found"), "deck"),
    ("clauses", "make shot 2, no wait, 3 night", {3: L("night")}, "story"),
    ("clauses", "make shot 2, no wait, 3 and 4 night", ASK("ambiguous"), "story"),
    # a probe of corrections, lists and sign-offs (2026-12-05, second): "..., no wait, 3 too" / "..., 3 night as well"
    # acted on shot or slide 3 alone (it adds 3); "did you put shot 3 back?", "did you trim shot 3?", "did you keep
    # shot 3?" were answered with how it looks; an emoji of the weather or the sky beside another look was dropped
    # ("make shot 3 night 🌧️"); "slide 3a" was slide 3; a count after a list ("delete slide 3, 2 of them", "redo shot
    # 3, 2 more") was one more number.  Asked now; their neighbours act as before
    ("clauses", "make shot 2, no wait, 3 as well night", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2, no wait, 3 also night", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2, no wait, 3 night too", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2 no wait 3 night and 4 too", {3: L("night"), 4: L("night")}, "story"),
    ("slides", "delete slide 2, no wait, 3 too", ASK("ambiguous"), "deck"),
    ("slides", "delete slide 2, no wait, 3 also", ASK("ambiguous"), "deck"),
    ("slides", "delete slide 2, no wait, 3 instead", OP("deck_delete_slide", {"slide": 3}), "deck"),
    ("slides", "delete slide 2 no wait 3 👍", OP("deck_delete_slide", {"slide": 3}), "deck"),
    ("question", "did you put shot 3 back?", OP("question", {"ask": "cut", "about": "shots"}), "story"),
    ("question", "did you trim shot 3?", ASK("unsupported"), "story"),
    ("question", "did you keep shot 3?", OP("question", {"ask": "cut", "about": "shots"}), "story"),
    ("question", "did shot 3 move?", ASK("unsupported"), "story"),
    ("question", "did you keep shot 3 rainy?", OP("question", {"ask": "attribute", "attribute": "look"}), "story"),
    ("question", "did you keep the rain in shot 3?", OP("question", {"ask": "attribute", "attribute": "look"}),
     "story"),
    ("clauses", "make shot 3 night 🌧️", ASK("unparsed"), "story"),
    ("clauses", "make shot 3 night ❄️", ASK("unparsed"), "story"),
    ("clauses", "make shot 3 dusk 🌙", ASK("unparsed"), "story"),
    ("clauses", "make shot 3 night 🌙", {3: L("night")}, "story"),
    ("clauses", "make shot 3 rainy 🌧️", {3: {"weather": "rain"}}, "story"),
    ("clauses", "make shot 3 night 🔥", {3: L("night")}, "story"),
    ("number", "make shot 3a night", ASK("not_found"), "story"),
    ("number", "remove shot 3a", ASK("not_found"), "story"),
    ("slides", "delete slide 3a", ASK("not_found"), "deck"),
    ("slides", "rename slide 2 to Plan 3a", OP("deck_edit_slide", {"slide": 2, "title": "Plan 3a"}), "deck"),
    ("slides", "delete slide 3, 2 of them", ASK("ambiguous"), "deck"),
    ("slides", "delete slide 3, 4 or so", ASK("ambiguous"), "deck"),
    ("number", "redo shot 3, 2 more", ASK("ambiguous"), "story"),
    ("number", "make shot 3, 2 of them night", ASK("ambiguous"), "story"),
    ("number", "remove shot 3 and 2 more", ASK("ambiguous"), "story"),
    ("number", "make shot 3 night, 2 and 4 dusk", {3: L("night"), 2: L("dusk"), 4: L("dusk")}, "story"),
    # a probe of needless asks (2026-12-05, third): a second shot after a full stop or a comma with no space ("make
    # shot 3 night. 4 dusk", "..., night,4 dusk"), after "at" and a time of day ("..., 4 at dusk"), and a corrected
    # shot's number with a comma before its look ("make shot 2, i mean 3, night") were asked about as two changes of
    # one shot or as "instead, or as well?".  They act now; a clock time, a count, "too" and a list still ask
    ("clauses", "make shot 3 night. 4 dusk", {3: L("night"), 4: L("dusk")}, "story"),
    ("clauses", "make shot 3 night,4 dusk", {3: L("night"), 4: L("dusk")}, "story"),
    ("clauses", "make shot 3 night. 4 dusk", ASK("ambiguous"), "two"),
    ("clauses", "make shot 3 night. 4 seconds long", ASK("unparsed"), "story"),
    ("clauses", "make shot 3 night,4 times", ASK("unparsed"), "story"),
    ("clauses", "make shot 3 night. 4 of them dusk", ASK("conflict"), "story"),
    ("clauses", "make shot 3 night,2 close-ups", ASK("unparsed"), "story"),
    ("clauses", "make shot 3 at night, 4 at dusk", {3: L("night"), 4: L("dusk")}, "story"),
    ("clauses", "make shot 3 at night, 4 at dusk, 5 at dawn", {3: L("night"), 4: L("dusk"), 5: L("dawn")}, "story"),
    ("clauses", "make shot 3 night and 4 at sunset", {3: L("night"), 4: L("sunset")}, "story"),
    ("clauses", "make shot 3 night, 4 at 6pm", ASK("unparsed"), "story"),
    ("clauses", "make shot 3 at night, 4 at 6", ASK("unparsed"), "story"),
    ("clauses", "make shot 3 at night, 4 at midnight", ASK("unparsed"), "story"),
    ("clauses", "make shot 3 at night, 4 at noon", ASK("conflict"), "story"),
    ("clauses", "make shot 2, i mean 3, night", {3: L("night")}, "story"),
    ("clauses", "make shot 2, or rather 3, night", {3: L("night")}, "story"),
    ("clauses", "make shot 2, no wait, 3, night", {3: L("night")}, "story"),
    ("clauses", "make shot 2, i mean 3, a bit darker", {3: {"luma": "lower"}}, "story"),
    ("clauses", "make shot 2, i mean 3, night too", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2, or rather 3, night as well", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2, actually 3, night", ASK("ambiguous"), "story"),
    ("clauses", "make shot 4 and shot 2, i mean 3, night", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2, i mean 3, 4 night", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2, i mean 3, night and 4 dusk", ASK("ambiguous"), "story"),
    # a probe of needless asks (2026-12-06): a shot's number taken back after its look ("make shot 2 night, no wait,
    # 3"), a second shot with "too" ("make shot 3 night, 4 too"), a face with a letter (":D", ":P"), "nope" (read as
    # "note") were asked about.  They act now; more numbers, "too", a question mark, "actually" or "make that" alone,
    # a time of the clock ("noon, no wait, 3": 3 pm?), and a list before the correction still ask
    ("clauses", "make shot 2 night, no wait, 3", {3: L("night")}, "story"),
    ("clauses", "make shot 2 night, sorry, shot 3 pls", {3: L("night")}, "story"),
    ("clauses", "make shot 2 night nope 3", {3: L("night")}, "story"),
    ("clauses", "make shot 2 a bit darker, i mean 3", {3: {"luma": "lower"}}, "story"),
    ("clauses", "set shot 2 to rainy, no wait, 3", {3: {"weather": "rain"}}, "story"),
    ("clauses", "make shot 2 night, no wait", ASK("unparsed"), "story"),
    ("clauses", "make shot 2 night, no wait, 3 too", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2 night, no wait, 3 and 4", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2 night, no wait, 3?", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2 night, actually 3", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2 night, make that 3", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2 noon, no wait, 3", ASK("ambiguous"), "story"),
    ("clauses", "make shots 2 and 3 night, no wait, 4", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2 night and shot 3 dusk, no wait, 4", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2 night and rainy, no wait, 3", ASK("ambiguous"), "story"),
    ("clauses", "make shot 2 night, no wait, 3", ASK("ambiguous"), "two"),
    ("clauses", "make shot 3 night, 4 too", {3: L("night"), 4: L("night")}, "story"),
    ("clauses", "make shot 3 rainy, 4 as well pls", {3: {"weather": "rain"}, 4: {"weather": "rain"}}, "story"),
    ("clauses", "make shot 3 night, 4 and 5 too", {3: L("night"), 4: L("night"), 5: L("night")}, "story"),
    ("clauses", "make shot 3 night, 4 too?", ASK("unparsed"), "story"),
    ("clauses", "make shot 3 night, 4 too maybe", ASK("unparsed"), "story"),
    ("clauses", "make shot 3 night, 4 too much", ASK("unparsed"), "story"),
    ("clauses", "make shot 3 night, 4 to", ASK("unparsed"), "story"),
    ("clauses", "make shot 3 night 4 too", ASK("unparsed"), "story"),
    ("clauses", "make shot 2 dusk :D", {2: L("dusk")}, "story"),
    ("clauses", "make shot 3 night :)", {3: L("night")}, "story"),
    ("clauses", "make shot 2 dusk :P please", {2: L("dusk")}, "story"),
    ("clauses", "make shot 2 dusk xD", ASK("unparsed"), "story"),
    ("clauses", "make shot 2 dusk :O", ASK("unparsed"), "story"),
    ("clauses", "make shot 2 :D", ASK("unparsed"), "story"),
    ("slides", "delete slide 2 nope 3", OP("deck_delete_slide", {"slide": 3}), "deck"),
    ("slides", "delete slide 2, nope, 3", OP("deck_delete_slide", {"slide": 3}), "deck"),
    ("slides", "delete slide 2 nope", ASK("unparsed"), "deck"),
    ("slides", "delete slide 2 nope 3 too", ASK("ambiguous"), "deck"),
    ("slides", "delete slide 4 and slide 2 nope 3", ASK("ambiguous"), "deck"),
    # a number taken back before new words was written into them ("rename slide 2 nope 3 to Costs": 'nope 3 to Costs')
    ("slides", "rename slide 2 nope 3 to Costs", ASK("unparsed"), "deck"),
    ("slides", "rename slide 2 sorry 3 to Costs", ASK("unparsed"), "deck"),
    ("slides", "rename slide 2 to Nope", OP("deck_edit_slide", {"slide": 2, "title": "Nope"}), "deck"),
    # a taking-back word as the first of two titles ("rename slide 2 sorry, slide 3 to Costs" titled slide 2 'sorry')
    ("slides", "rename slide 2 sorry, slide 3 to Costs", ASK("ambiguous"), "deck"),
    ("slides", "rename slide 2 oops, slide 3 to Costs", ASK("ambiguous"), "deck"),
    ("slides", "retitle slide 2 wait, slide 3 to Costs", ASK("ambiguous"), "deck"),
    ("slides", "rename slide 2 no, slide 3 to Costs", ASK("ambiguous"), "deck"),
    ("slides", "rename slide 2 actually, slide 3 to Costs", ASK("ambiguous"), "deck"),
    ("slides", "rename slide 2 to Sorry, slide 3 to Costs",
     OPS(OP("deck_edit_slide", {"slide": 2, "title": "Sorry"}), OP("deck_edit_slide", {"slide": 3, "title": "Costs"})),
     "deck"),
    ("slides", "rename slide 2 'no', slide 3 'Costs'",
     OPS(OP("deck_edit_slide", {"slide": 2, "title": "no"}), OP("deck_edit_slide", {"slide": 3, "title": "Costs"})),
     "deck"),
    # -- probe-81 rows: shot edits (the same for, too after the last turn, a look's source shot, garment shades, repeats)
    # "the same for shot 4" and then another change: the other change was made on both, "the same" dropped
    ("previous", "the same for shot 4, and make shot 5 dawn", {4: L("night"), 5: L("dawn")}, "prev"),
    ("previous", "same for shot 4 and shot 5 dawn", {4: L("night"), 5: L("dawn")}, "prev"),
    ("previous", "the same for shot 4 and make shot 5 a close-up", {4: L("night"), 5: {"framing": "close-up"}}, "prev"),
    ("previous", "same for shot 4, and shot 5 darker", {4: L("night"), 5: {"luma": "lower"}}, "prev"),
    ("previous", "same for shot 4; shot 5 dawn", {4: L("night"), 5: L("dawn")}, "prev"),
    ("previous", "same for shot 4. shot 5 dawn", {4: L("night"), 5: L("dawn")}, "prev"),
    ("previous", "repeat that on shot 4 and make shot 5 dawn", {4: L("night"), 5: L("dawn")}, "prev"),
    ("previous", "shot 4 too, and shot 5 dawn", {4: L("night"), 5: L("dawn")}, "prev"),
    ("previous", "make shot 3 night, the same for shot 4, and shot 5 dawn", {3: L("night"), 4: L("night"),
                                                                           5: L("dawn")}, "story"),
    ("previous", "the same for shot 4 darker", {4: {"lighting": "night", "luma": "lower"}}, "prev"),
    ("previous", "make shot 5 dawn and the same for shot 4", {5: L("dawn"), 4: L("dawn")}, "prev"),
    ("previous", "the same for shot 4 and shot 5", {4: L("night"), 5: L("night")}, "prev"),
    ("previous", "same for shot 4 and shot 5, but darker", {4: {"lighting": "night", "luma": "lower"},
                                                            5: {"lighting": "night", "luma": "lower"}}, "prev"),
    # "the same" with no change before it to repeat: the other change alone was made
    ("previous", "the same for shot 4, and make shot 5 dawn", ASK("no_target"), "story"),
    ("previous", "same for shot 5 but dusk", ASK("no_target"), "story"),
    # "too" / "also" / "as well" after the last turn: a lighting replaced the night instead of adding to it
    ("previous", "also make it foggy", ASK("conflict"), "prev"),
    ("previous", "make it foggy too", ASK("conflict"), "prev"),
    ("previous", "add fog too", ASK("conflict"), "prev"),
    ("previous", "also make it dusk", ASK("conflict"), "prev"),
    ("previous", "make it dusk as well", ASK("conflict"), "prev"),
    ("previous", "make it neon too", ASK("conflict"), "prev"),
    ("previous", "make it candle-lit too", ASK("conflict"), "prev"),
    ("previous", "make it overcast as well", ASK("conflict"), "prev"),
    ("previous", "also make it warmer", {3: {"warmth": "higher"}}, "prev"),
    ("previous", "add some fog", {3: L("foggy")}, "prev"),
    ("previous", "make shot 4 dusk and shot 3 too", {4: L("dusk"), 3: L("dusk")}, "prev"),
    ("previous", "make shot 4 dusk and also shot 3", {4: L("dusk"), 3: L("dusk")}, "prev"),
    # a shot named as where a look comes from was changed with the shot meant, and the look itself dropped
    ("other", "give shot 3 the look of shot 1 at night", ASK("unsupported"), "story"),
    ("other", "shot 3 in the style of shot 1 at dawn", ASK("unsupported"), "story"),
    ("other", "shot 3 with the mood of shot 1, at dusk", ASK("unsupported"), "story"),
    ("other", "shot 3 should have the rain from shot 5", ASK("unsupported"), "story"),
    ("other", "put the rain from shot 5 in shot 3", ASK("unsupported"), "story"),
    ("other", "use the look of shot 1 for shot 3", ASK("unsupported"), "story"),
    ("other", "make the mood of shot 3 warmer", {3: {"warmth": "higher"}}, "story"),
    ("other", "remove the rain from shot 5 and make shot 3 night", {5: {"weather": "clear"}, 3: L("night")}, "story"),
    # a shade of a garment's colour: "dark" darkened the whole shot, "warm" set its lighting, "light" was dropped
    ("other", "make her coat dark red in shot 2", ASK("ambiguous"), "story"),
    ("other", "give her a dark blue coat in shot 2", ASK("ambiguous"), "story"),
    ("other", "dark green jacket for shot 2", ASK("ambiguous"), "story"),
    ("other", "shot 4 in a dark navy coat", ASK("ambiguous"), "story"),
    ("other", "bright red coat in shot 2", ASK("ambiguous"), "story"),
    ("other", "a bright yellow jacket in shot 4", ASK("ambiguous"), "story"),
    ("other", "a warm red coat in shot 4", ASK("ambiguous"), "story"),
    ("other", "a cool blue jacket in shot 4", ASK("ambiguous"), "story"),
    ("other", "light blue coat in shot 4", ASK("ambiguous"), "story"),
    ("other", "make her coat light grey in shot 2", ASK("ambiguous"), "story"),
    ("other", "a golden yellow coat in shot 2", ASK("ambiguous"), "story"),
    ("other", "give her a navy coat in shot 4", {4: {"outfit": "#14213d"}}, "story"),
    ("other", "make shot 2 darker and her coat red", {2: {"outfit": "#d62828", "luma": "lower"}}, "story"),
    ("other", "make shot 2 warm and give her a red coat", {2: {"lighting": "warm", "outfit": "#d62828"}}, "story"),
    # the most a comparative goes, or a step said again: one step was made
    ("other", "make shot 1 as dark as you can", ASK("unsupported"), "story"),
    ("other", "make shot 1 as bright as you can", ASK("unsupported"), "story"),
    ("other", "make shot 1 as dark as possible", ASK("unsupported"), "story"),
    ("other", "darken shot 1 as much as possible", ASK("unsupported"), "story"),
    ("other", "make shot 1 as warm as you can", {1: L("warm")}, "story"),
    ("other", "make shot 3 darker, and then darker again", {3: {"luma": "lower"}}, "story"),
    ("other", "shot 3 darker. shot 3 darker again", {3: {"luma": "lower"}}, "story"),
    ("other", "make shot 3 darker and again darker", {3: {"luma": "lower"}}, "story"),
    ("other", "make shot 3 much darker, then darker again", ASK("conflict"), "story"),
    # the lighting of two shots said apart "to" one look: shot 2 was lit anew and the last shot made night
    ("clauses", "change the lighting of shot 2 and the last shot to night", ASK("ambiguous"), "story"),
    ("clauses", "change the lighting of shot 2 and the 4th shot to night", ASK("ambiguous"), "story"),
    ("clauses", "change the lighting of shots 2 and 4 to night", {2: L("night"), 4: L("night")}, "story"),
    # (end of these rows)
    # -- probe-81 rows: builds, page sections, slides
    # two builds in one request, whatever their sizes: one was built, the other swallowed into its premise or topic
    ("build", "a 3-shot film about a cat and a 3 slide deck about cats", ASK("unsupported"), "empty"),
    ("build", "a 5-slide deck about cats and a 4 shot film about cats", ASK("unsupported"), "empty"),
    ("build", "a 3-shot film about a cat, a 3 slide deck about cats", ASK("unsupported"), "empty"),
    ("build", "a 4 shot film about a cat and a 5 slide deck", ASK("unsupported"), "empty"),
    ("build", "a film about a cat & a deck about cats", ASK("unsupported"), "empty"),
    ("build", "a film about a cat and a page", ASK("unsupported"), "empty"),
    ("build", "a page and a film about cats", ASK("unsupported"), "empty"),
    ("build", "a film about a knight and his page", OP("build_narrative", {"n_shots": 6}), "empty"),
    ("build", "a 6 shot film about a cat and a dog", OP("build_narrative", {"n_shots": 6}), "empty"),
    ("build", "a deck about cats and dogs", OP("build_deck", {"n_slides": 5}), "empty"),
    # a framing for every shot: the build frames each shot by its beat, and dropped it
    ("build", "make me a 7 shot storyboard about a fisherman, close-ups only", ASK("unsupported"), "empty"),
    ("build", "a 7 shot storyboard about a fisherman in close-up", ASK("unsupported"), "empty"),
    ("build", "a 7 shot storyboard about a fisherman, everything in wide shots", ASK("unsupported"), "empty"),
    ("build", "a 7 shot storyboard about a fisherman, shot wide", ASK("unsupported"), "empty"),
    ("build", "a 7 shot storyboard about a fisherman with every shot a close-up", ASK("unsupported"), "empty"),
    ("build", "a 7 shot storyboard about a fisherman, all closeups", ASK("unsupported"), "empty"),
    ("build", "a 6 shot film about a fisherman, filmed up close", ASK("unsupported"), "empty"),
    ("build", "a 6 shot film about a fisherman in medium shots", ASK("unsupported"), "empty"),
    ("build", "a film about a wide river at dusk", OP("build_narrative", {"lighting": "dusk"}), "empty"),
    # two looks, or a look for one shot: the build lights every shot with one look (the first said)
    ("build", "a 6 shot film about a fisherman at night, last shot at dawn", ASK("unsupported"), "empty"),
    ("build", "a 6 shot film about a fisherman, last shot at dawn", ASK("unsupported"), "empty"),
    ("build", "a 6 shot film about a fisherman, the last 2 shots at dawn", ASK("unsupported"), "empty"),
    ("build", "a 6 shot film about a fisherman, first shot at dawn", ASK("unsupported"), "empty"),
    ("build", "a 6 shot film about a fisherman at dawn and dusk", ASK("unsupported"), "empty"),
    ("build", "a 6 shot film about a fisherman at night and foggy", ASK("unsupported"), "empty"),
    ("build", "a 6 shot film about a fisherman at night with a final scene at dawn", ASK("unsupported"), "empty"),
    ("build", "a film about a fox on a cold winter night", ASK("unsupported"), "empty"),
    ("build", "a film about a boxer's last shot at the title", OP("build_narrative", {"lighting": None}), "empty"),
    ("build", "a film about a fisherman who works at night", OP("build_narrative", {"lighting": "night"}), "empty"),
    ("build", "a film about a fisherman at night in the rain", OP("build_narrative", {"lighting": "night"}), "empty"),
    # a new section with no name: it was named after the word before "section" ('a', 'new', 'more', 'me', 'black')
    ("page", "add a section", ASK("no_target"), "page"),
    ("page", "add a new section", ASK("no_target"), "page"),
    ("page", "add another section", ASK("no_target"), "page"),
    ("page", "add one more section", ASK("no_target"), "page"),
    ("page", "add an empty section", ASK("no_target"), "page"),
    ("page", "add a section for me", ASK("no_target"), "page"),
    ("page", "add the section", ASK("no_target"), "page"),
    ("page", "add a big section", ASK("no_target"), "page"),
    ("page", "add a section at the end", ASK("no_target"), "page"),
    ("page", "add a blank section", ASK("no_target"), "page"),
    ("page", "add a new section after the gallery", ASK("no_target"), "page"),
    ("page", "add a cool section", ASK("no_target"), "page"),
    ("page", "add an additional section", ASK("no_target"), "page"),
    ("page", "add a big faq section", ASK("no_target"), "page"),
    ("page", "add another faq section", OP("page_add_section", {"name": "faq"}), "page"),
    ("page", "add one more faq section", OP("page_add_section", {"name": "faq"}), "page"),
    ("page", "add a section about new products",
     OP("page_add_section", {"name": "new-products", "heading": "New products"}), "page"),
    ("page", "add a section called More", OP("page_add_section", {"name": "more", "heading": "More"}), "page"),
    ("page", "add a section for kids", OP("page_add_section", {"name": "kids", "heading": "Kids"}), "page"),
    ("page", "add another section about hours", OP("page_add_section", {"name": "hours", "heading": "Hours"}), "page"),
    ("page", "add one more section about pricing",
     OP("page_add_section", {"name": "pricing", "heading": "Pricing"}), "page"),
    # two new slides in one request: one was added, about both
    ("slides", "add a slide about honey, also one about wax", ASK("unsupported"), "deck"),
    ("slides", "add a slide about honey & one on wax", ASK("unsupported"), "deck"),
    ("slides", "add a slide about honey as well as one about wax", ASK("unsupported"), "deck"),
    ("slides", "add a slide about honey, one about wax", ASK("unsupported"), "deck"),
    ("slides", "add a slide about honey and a second one about wax", ASK("unsupported"), "deck"),
    ("slides", "add a slide about honey, also a slide about wax", ASK("unsupported"), "deck"),
    ("slides", "add a slide about honey along with one about wax", ASK("unsupported"), "deck"),
    ("slides", "add a slide about honey & wax", OP("deck_add_slide", {"after": 5, "about": "honey & wax"}), "deck"),
    ("slides", "add a slide about one on one coaching",
     OP("deck_add_slide", {"after": 5, "about": "one on one coaching"}), "deck"),
    # a look or framing word that names a thing of the premise ("a night market", "a golden retriever", "a close-up
    # magician") beside the look said: the build is lit by the look said (these asked, two looks)
    ("build", "a 6 shot film about a golden retriever at sunset", OP("build_narrative", {"n_shots": 6, "lighting": "sunset"}),
     "empty"),
    ("build", "a 4-shot film about a night market at dusk", OP("build_narrative", {"n_shots": 4, "lighting": "dusk"}),
     "empty"),
    ("build", "a 6 shot film about a dusk patrol at night", OP("build_narrative", {"n_shots": 6, "lighting": "night"}),
     "empty"),
    ("build", "a 5-shot film about a close-up magician", OP("build_narrative", {"n_shots": 5}), "empty"),
    ("build", "a 6 shot film about a night scene in a diner at dawn", ASK("unsupported"), "empty"),
    ("build", "a 6 shot film about night and day", ASK("unsupported"), "empty"),
    ("build", "a 5-shot film about a close-up photographer, all in wide shots", ASK("unsupported"), "empty"),
    # (end of these rows)
    # -- probe-81 rows: two films and the selection
    # A selected shot picks its film, and every shot number counts in it: a number past its end went to the other
    # film ("make shots 3 to 6 night", the 4-shot ferry film's shot selected, changed ferry shots 3 and 4 and the
    # beekeeper film's 5 and 6); it is asked about, naming the film and its length
    *(("films", request, ASK("not_found"), "two:selB") for request in (
        "make shots 3 to 6 night", "make shots 2-7 foggy", "make shots 3 and 6 night", "shots 4 and 5 foggy",
        "make shots 4 and 6 night", "make this and shot 6 night", "make every shot from shot 3 to shot 6 night",
        "make shot 6 night", "make shot 5 rainy", "make the 6th shot night", "make the fifth shot darker",
        "make shot 8 darker", "make shot 2 night and shot 5 foggy", "make every shot from shot 5 night",
        "make shot 2 of the ferry film and shot 6 night", "cut shot 7", "undo the last change to shot 7",
        "revert shot 6", "what lighting is shot 7", "swap shots 3 and 6", "move shot 6 to the end",
        "explore shot 6 with 3 lighting moods")),
    *(("films", request, ASK("not_found"), "two:looksB") for request in (
        "make shots 3 to 6 night", "cut shot 7", "undo the last change to shot 7",
        "make shot 6 the same lighting as shot 3")),
    # ... while the numbers within it, and another film named by its words, still act
    ("films", "make shots 1 to 4 night", IN_FILM("B", {n: L("night") for n in (1, 2, 3, 4)}), "two:selB"),
    ("films", "make shots 3 and 4 night", IN_FILM("B", {3: L("night"), 4: L("night")}), "two:selB"),
    ("films", "make this and shot 4 night", IN_FILM("B", {2: L("night"), 4: L("night")}), "two:selB"),
    ("films", "make shot 6 of the beekeeper film night", IN_FILM("", {6: L("night")}), "two:selB"),
    ("films", "cut shot 3", IN_FILM("B", OP("remove_from_cut", {"shots": ["BS3"]})), "two:selB"),
    ("films", "what lighting is shot 3", IN_FILM("B", OP("question", {"ask": "attribute", "attribute": "lighting"})),
     "two:selB"),
    ("films", "swap shots 3 and 4", IN_FILM("B", OP("reorder_cut", {"swap": ["BS3", "BS4"]})), "two:selB"),
    # the beekeeper film's shot selected: its 8 shots are all there; with nothing selected a number only one film
    # has is that film's
    ("films", "make shots 3 to 6 night", IN_FILM("", {n: L("night") for n in (3, 4, 5, 6)}), "two:sel"),
    ("films", "make shot 6 night", IN_FILM("", {6: L("night")}), "two:sel"),
    ("films", "make shot 6 night", IN_FILM("", {6: L("night")}), "two"),
    ("films", "make shots 5 to 7 night", IN_FILM("", {n: L("night") for n in (5, 6, 7)}), "two"),
    # the same for slides: the selected slide's deck (3 slides) is where slide numbers count
    *(("decks", request, ASK("not_found"), "decks2:sel") for request in (
        "delete slide 5", "delete slides 2 to 5", "rename slide 4 to Costs", "what is on slide 5",
        "delete this and slide 5", "swap slides 2 and 5", "move slide 4 to the end", "delete the 5th slide")),
    ("decks", "rename slide 3 to Costs", IN_DECK("D0", OP("deck_edit_slide", {"slide": 3, "title": "Costs"})),
     "decks2:sel"),
    # (end of these rows)
    # -- probe-81 rows: questions on the cut
    # whether the cut holds a shot, and what it holds, answered from the cut (each was asked about, "I answer how shots
    # look, not whether the cut holds them"); a trim, a move, a look or a filter beside it is still asked about
    ("question", "is shot 3 in the cut?", OP("question", {"ask": "cut", "about": "shots"}), "story"),
    ("question", "is shot 3 still in the film?", OP("question", {"ask": "cut", "about": "shots"}), "story"),
    ("question", "are shots 2 and 4 in the final cut?", OP("question", {"ask": "cut", "about": "shots"}), "story"),
    ("question", "is the last shot in the cut?", OP("question", {"ask": "cut", "about": "shots"}), "story"),
    ("question", "is shot 3 in the cut?", ASK("ambiguous"), "two"),
    ("question", "is shot 3 in the cut?", ASK("not_found"), "deck"),
    ("question", "is shot 9 in the cut?", ASK("not_found"), "story"),
    ("question", "is shot 3 in the cut at night?", ASK("unsupported"), "story"),
    ("question", "did shot 3 get trimmed?", ASK("unsupported"), "story"),
    ("question", "which shots are in the cut?", OP("question", {"ask": "cut", "about": "order"}), "story"),
    ("question", "what's in the cut", OP("question", {"ask": "cut", "about": "order"}), "story"),
    ("question", "what order are the shots in the cut", OP("question", {"ask": "cut", "about": "order"}), "story"),
    ("question", "what's the order of the cut?", OP("question", {"ask": "cut", "about": "order"}), "story"),
    ("question", "list the shots in the cut", OP("question", {"ask": "cut", "about": "order"}), "story"),
    ("question", "how many shots are in the cut?", OP("question", {"ask": "cut", "about": "count"}), "story"),
    ("question", "how many clips are in the final cut now?", OP("question", {"ask": "cut", "about": "count"}), "story"),
    ("question", "which night shots are in the cut?", ASK("unparsed"), "story"),
    # (end of these rows)
    # -- probe-81 needless asks: hedges and short follow-ups
    # praise, a hesitation or politeness before a clear edit asked about its word ('great', 'hmm', 'mind', 'if')
    ("other", "would you mind making shot 5 foggy", {5: L("foggy")}, "story"),
    ("other", "do you mind making shot 3 night", {3: L("night")}, "story"),
    ("other", "if you can, make shot 3 night", {3: L("night")}, "story"),
    ("other", "if it's not too much trouble make shot 3 night", {3: L("night")}, "story"),
    ("other", "make shot 3 night if you can", {3: L("night")}, "story"),
    ("other", "hmm make shot 3 dawn", {3: L("dawn")}, "story"),
    ("other", "great, make shot 4 dawn", {4: L("dawn")}, "story"),
    ("previous", "hmm make it dawn", {3: L("dawn")}, "prev"),
    ("selection", "hmm make it dawn", {4: L("dawn")}, "sel=4"),
    ("previous", "great, now do shot 4 at dawn", {4: L("dawn")}, "prev"),
    ("previous", "cool. shot 5 dusk", {5: L("dusk")}, "prev"),
    # ... and what still asks: a hedge on the look, as "maybe" is; a musing; praise run into the request; "cool," a look
    ("other", "shot 4 dusk I think", ASK("unparsed"), "story"),
    ("other", "shot 4 dusk i guess", ASK("unparsed"), "story"),
    ("other", "would you mind if shot 3 were night", ASK("unparsed"), "story"),
    ("other", "would you mind not making shot 3 night", ASK("unparsed"), "story"),
    ("other", "if you can't, make shot 3 night", ASK("unparsed"), "story"),
    ("other", "great shot 4 dawn", ASK("unparsed"), "story"),
    ("other", "if you can, make shot 3 night or dusk", ASK("unparsed"), "story"),
    ("selection", "cool, darker", {4: {"lighting": "cold", "luma": "lower"}}, "sel=4"),
    ("previous", "never mind", ASK("unparsed"), "prev"),
    # a short follow-up of the last turn (shot 3 made night) asked "not what to change": the same on shot 4
    ("previous", "now shot 4", {4: L("night")}, "prev"),
    ("previous", "now do shot 4", {4: L("night")}, "prev"),
    ("previous", "also shot 4", {4: L("night")}, "prev"),
    ("previous", "now the next one", {4: L("night")}, "prev"),
    ("previous", "also the last shot", {8: L("night")}, "prev"),
    ("previous", "shot 4 too please", {4: L("night")}, "prev"),
    ("previous", "shot 4 too!", {4: L("night")}, "prev"),
    ("previous", "perfect, now shot 4", {4: L("night")}, "prev"),
    ("previous", "nice. shot 4 too", {4: L("night")}, "prev"),
    ("previous", "now shot 4", ASK("no_target"), "story"),
    ("previous", "also shot 4", ASK("no_target"), "story"),
    ("previous", "now shot 4?", ASK("unparsed"), "prev"),
    ("previous", "shot 4 too?", ASK("unparsed"), "prev"),
    # a look in place of the last turn's, said alone with "instead", "actually" or a leading "no," (it asked which
    # shot); a step or another aspect (is the night kept?) still asks, and so does "no" with no stop after it
    ("previous", "dawn instead", {3: L("dawn")}, "prev"),
    ("previous", "no, dusk", {3: L("dusk")}, "prev"),
    ("previous", "nope, dusk", {3: L("dusk")}, "prev"),
    ("previous", "actually dusk", {3: L("dusk")}, "prev"),
    ("previous", "dawn instead", ASK("no_target"), "story"),
    ("previous", "dusk instead", ASK("no_target"), "sel=4"),
    ("previous", "no dusk", ASK("unparsed"), "prev"),
    ("previous", "no, darker", ASK("unparsed"), "prev"),
    ("previous", "rainy instead", ASK("no_target"), "prev"),
    ("previous", "no, rainy", ASK("unparsed"), "prev"),
    # another take of what the last turn made: "redo" alone asks on purpose (the editor's redo?), and so do these
    ("redo", "redo that", ASK("no_target"), "prev"),
    ("redo", "try again", ASK("unparsed"), "prev"),
    # a shot and "but" after the last turn's change: that change there, with the difference ("now shot 4 but darker"
    # darkened shot 4 alone, the night dropped)
    ("clauses", "now shot 4 but darker", {4: {**L("night"), "luma": "lower"}}, "prev"),
    ("clauses", "also shot 4 but darker", {4: {**L("night"), "luma": "lower"}}, "prev"),
    ("clauses", "shot 4 but darker", {4: {**L("night"), "luma": "lower"}}, "prev"),
    ("clauses", "now shot 4 but darker", ASK("no_target"), "story"),
    # (end of these rows)
    # -- probe-81 needless asks: the page in plain words
    *[("page", request, expected, "page") for request, expected in (
        # the theme said as "dark" or "light" of the page, when nothing else is said of it
        ("make the page dark", OP("revise_page", {"change": "make the page dark"})),
        ("make the page light again", OP("revise_page", {"change": "make the page light again"})),
        ("turn the site dark", OP("revise_page", {"change": "turn the site dark"})),
        ("switch the page from light to dark", OP("revise_page", {"change": "switch the page from light to dark"})),
        ("make the page dark then move contact to the top",
         OPS(OP("revise_page", {"change": "make the page dark"}),
             OP("page_move_section", {"section": "contact", "to": "first"}))),
        ("make the page darker", STYLE("palette", "darker")),  # a step of its palette, not the theme
        ("make the page dark blue", STYLE("palette", "dark blue")),
        ("make the page dark and moody", ASK("unparsed")),
        ("make the page dark, not light", ASK("unparsed")),
        ("make the page dark except the hero", ASK("unparsed")),
        ("make the page dark?", ASK("unparsed")),
        # one column: 'one' is a number here
        ("one column", OP("revise_page", {"change": "one columns"})),
        ("use one column", OP("revise_page", {"change": "use one columns"})),
        ("make it one column", OP("revise_page", {"change": "make it one columns"})),
        ("one more column", ASK("unparsed")),
        ("add one column", ASK("unparsed")),
        # a complaint of the page's darkness: a step the other way, unless the theme is what it may mean
        ("the page is too dark", STYLE("palette", "lighter")),
        ("the page is too bright", ASK("ambiguous")),  # a light page: the dark theme, or a darker palette?
        ("the page is a bit too dark", ASK("unparsed")),
        # no token sizes the buttons or the tagline
        ("make the button bigger", ASK("unsupported")),
        ("make the tagline bigger", ASK("unsupported")),
        ("make the button text a bit bigger", ASK("unsupported")),
        ("change the tagline to Think bigger", OP("page_set_text", {"element": "tagline", "text": "Think bigger"})),
        # a colour CSS lacks, as its hex
        ("make the background cream", STYLE("background", "#fffdd0")),
        ("make the accent teal and the background cream",
         OPS(STYLE("accent", "teal"), STYLE("background", "#fffdd0"))),
        ("make the background light cream", ASK("unparsed")),  # no agreed hex; 'light' had been dropped
        ("make the page cream", ASK("ambiguous")),  # the background, or a palette around cream?
        # no tool renames a section
        ("rename the menu section to Drinks", ASK("unsupported")),
        ("call the about section Our story", ASK("unsupported")),
        ("rename the about heading to Our story", OP("page_set_text", {"element": "about.heading", "text": "Our story"})),
    )],
    # (end of these rows)
    # -- probe-81 needless asks: moves and swaps in the cut and the deck
    # a shot moved by places from where it plays in the cut ("up" alone is one place, as a slide's is; every
    # number is read), or to a place said as an ordinal or a bare number after the shot
    ("cut", "move shot 3 up one", OP("reorder_cut", {"move": "S3", "by": -1}), "story"),
    ("cut", "move shot 3 down one", OP("reorder_cut", {"move": "S3", "by": 1}), "story"),
    ("cut", "move shot 5 up", OP("reorder_cut", {"move": "S5", "by": -1}), "story"),
    ("cut", "move shot 3 up 2", OP("reorder_cut", {"move": "S3", "by": -2}), "story"),
    ("cut", "move shot 4 2 places earlier", OP("reorder_cut", {"move": "S4", "by": -2}), "story"),
    ("cut", "move shot 3 one place later", OP("reorder_cut", {"move": "S3", "by": 1}), "story"),
    ("cut", "bump shot 6 down by 2 in the cut please", OP("reorder_cut", {"move": "S6", "by": 2}), "story"),
    ("cut", "move it up", OP("reorder_cut", {"move": "S3", "by": -1}), "sel=3"),
    ("cut", "put shot 4 second", OP("reorder_cut", {"move": "S4", "to": 2}), "story"),
    ("cut", "put shot 4 2nd", OP("reorder_cut", {"move": "S4", "to": 2}), "story"),
    ("cut", "move shot 4 to second place", OP("reorder_cut", {"move": "S4", "to": 2}), "story"),
    ("cut", "move shot 4 to place 2", OP("reorder_cut", {"move": "S4", "to": 2}), "story"),
    ("cut", "move shot 4 to 2", OP("reorder_cut", {"move": "S4", "to": 2}), "story"),
    ("cut", "swap shot 4 with 5", OP("reorder_cut", {"swap": ["S4", "S5"]}), "story"),
    ("cut", "switch 3 and 4", OP("reorder_cut", {"swap": ["S3", "S4"]}), "story"),
    ("cut", "swap 4 with 5", OP("reorder_cut", {"swap": ["S4", "S5"]}), "story"),
    # ... and what still asks: no distance ("later": one place, or to the end?), none ("up 0"), a move in the
    # frame, several shots, two bare numbers beside a deck (shots or slides?) or in two films
    ("cut", "move shot 3 later", ASK("unparsed"), "story"),
    ("cut", "move shot 3 earlier", ASK("unparsed"), "story"),
    ("cut", "move shot 3 up 0", ASK("unparsed"), "story"),
    ("cut", "move shot 3 up a bit", ASK("unparsed"), "story"),
    ("cut", "move the camera up in shot 3", ASK("unparsed"), "story"),
    ("cut", "move shots 3 and 4 up", ASK("unparsed"), "story"),
    ("cut", "play shot 4 for a second", ASK("unparsed"), "story"),
    ("cut", "swap 2 and 3", ASK("unparsed"), "mixed"),
    ("cut", "switch 3 and 4", ASK("ambiguous"), "two"),
    # the deck: every number of a move by places read, "to be second"; bare "later" asked as in the cut
    ("slides", "move slide 5 to be second", OP("deck_move_slide", {"slide": 5, "to": 2}), "deck"),
    ("slides", "move slide 5 up one", OP("deck_move_slide", {"slide": 5, "to": 4}), "deck"),
    ("slides", "move slide 4 up two", OP("deck_move_slide", {"slide": 4, "to": 2}), "deck"),
    ("slides", "move slide 2 down by 2", OP("deck_move_slide", {"slide": 2, "to": 4}), "deck"),
    ("slides", "move slide 1 down 2", OP("deck_move_slide", {"slide": 1, "to": 3}), "deck"),
    ("slides", "move slide 3 one place later", OP("deck_move_slide", {"slide": 3, "to": 4}), "deck"),
    ("slides", "move slide 3 one slot earlier", OP("deck_move_slide", {"slide": 3, "to": 2}), "deck"),
    ("slides", "put slide 4 first", OP("deck_move_slide", {"slide": 4, "to": 1}), "deck"),
    ("slides", "swap slide 2 with slide 4",
     OPS(OP("deck_move_slide", {"slide": 4, "to": 2}), OP("deck_move_slide", {"slide": 3, "to": 4})), "deck"),
    ("slides", "move slide 3 later", ASK("unparsed"), "deck"),
    ("slides", "move slide 4 down 3", ASK("not_found"), "deck"),
    # the page: a section up or down one place among the sections (or the number said)
    ("page", "move the gallery up", OP("page_move_section", {"section": "gallery", "before": "menu"}), "page"),
    ("page", "move the gallery down", OP("page_move_section", {"section": "gallery", "after": "testimonials"}),
     "page"),
    ("page", "move the about section up 2", OP("page_move_section", {"section": "about", "before": "gallery"}),
     "page"),
    ("page", "move the hero up", ASK("not_found"), "page"),
    # (end of these rows)
]


def story_facts(plan: str = "P", premise: str = PREMISE, n: int = N, prefix: str = "") -> list[ShotFact]:
    """The shots of a fresh premise, as the storyboard skill plans them, each with a current image."""
    story = plan_story(premise, n)
    return [ShotFact(id=f"{prefix}S{b.index}", title=f"shot {b.index}", number=b.index, beat=b.beat, plan=plan,
                     plan_title=story.title, image=f"{prefix}I{b.index}", version=1,
                     derived=[f"{prefix}C{b.index}", f"{prefix}CUT"], inputs={"lighting": "neutral"})
            for b in story.beats]


PAGE_BRIEF = "a website for a rooftop honey bar: calm, golden, airy"
PAGE_SECTIONS = ["hero", "menu", "gallery", "testimonials", "about", "contact"]
PAGE_PICTURES = ["a jar of wildflower honey", "the rooftop hives at dawn", "a honey tasting flight"]
DECK_TOPIC = "a 5-slide deck about urban beekeeping"
ILLUSTRATED = 2
"""The slide the deck's picture is on (the slides skill illustrates the first content slide)."""


def page_document() -> PageDocument:
    """The page of a fresh brief, with a menu and testimonials, as the page tools hold it (no engine)."""
    images = [PageImage(node_id=f"G{n}", path=f"images/gallery-{n}.png", sha256=f"{n:064d}", alt=alt)
              for n, alt in enumerate(PAGE_PICTURES, start=1)]
    return PageDocument(design=derive_design(PAGE_BRIEF), layout=LayoutSpec(sections=PAGE_SECTIONS, columns=3),
                        images=images)


def deck_slides() -> list[NodeFact]:
    """The slides of a fresh topic as the slides skill plans them: titles, bullets, one picture."""
    return [NodeFact(id=f"SL{i}", kind="slide", title=s.title, group="D1", index=i, bullets=list(s.bullets),
                     sources=[f"TX{i}", *([f"PIC{i}"] if i == ILLUSTRATED else [])],
                     pictures=1 if i == ILLUSTRATED else 0)
            for i, s in enumerate(plan_slides(DECK_TOPIC, 5), start=1)]


def facts_for(context: str) -> tuple[CanvasFacts, PreviousTurn]:
    """The facts and the previous turn of a row's context."""
    deck = [NodeFact(id="D1", kind="deck", title="Urban beekeeping")]
    slides = deck_slides()
    page = [NodeFact(id="PAGE", kind="code", title="Honey bar page", page="PAGE")]
    previous = PreviousTurn()
    if context == "empty":
        return CanvasFacts(), previous
    if context.startswith("decks2"):  # an older deck beside the beekeeping one: an edit must say which
        older = [NodeFact(id=f"M{i}", kind="slide", title=title, group="D0", index=i)
                 for i, title in enumerate(("Where to go", "What to eat", "Getting there"), start=1)]
        facts = CanvasFacts(decks=[NodeFact(id="D0", kind="deck", title="Night markets of Taipei"), *deck],
                            slides=[*older, *slides])
        if context == "decks2:sel":
            facts.selection = [older[1]]
        return facts, previous
    if context.startswith("deck"):
        facts = CanvasFacts(decks=deck, slides=slides)
        if context == "deck:sel=3":
            facts.selection = [slides[2]]
        if context == "deck:stale":  # slide 3 of the deck before its last edit, selected (rejected with its deck)
            facts.selection = [slides[2].model_copy(update={"id": "OLD3", "group": "D0", "status": "rejected"})]
        if context == "deck:prev":
            previous = PreviousTurn(turn_id="T0", request="delete the last slide", targets=["D1"],
                                    clauses=[{"operation": "deck_delete_slide", "args": {"slide": 5}}])
        if context == "deck:undone":
            previous = PreviousTurn(turn_id="T0", request="undo that", targets=["D1"],
                                    clauses=[{"operation": "deck_undo", "args": {}}])
        return facts, previous
    if context.startswith("page"):
        facts = CanvasFacts(pages=page, page_document=page_document())
        if context == "page:sel":
            facts.selection = [NodeFact(id="PREVIEW", kind="image", title="preview of Honey bar page", page="PAGE")]
        if context == "page:prev":
            previous = PreviousTurn(turn_id="T0", request="use a serif font and more spacing", targets=["PAGE"],
                                    clauses=[{"operation": "page_set_style", "args": {"token": "fonts"}},
                                             {"operation": "page_set_style", "args": {"token": "spacing"}}])
        return facts, previous
    if context == "both":
        return CanvasFacts(decks=deck, slides=slides, pages=page, page_document=page_document()), previous
    if context == "mixed":  # a film and a deck on one canvas
        return CanvasFacts(shots=story_facts(), decks=deck, slides=slides), previous
    shots = story_facts()
    facts = CanvasFacts(shots=shots)
    if context.startswith("two"):
        facts.shots += story_facts("Q", "a 4-shot short film about a ferry in winter", 4, prefix="B")
    if context.startswith("two:looks"):  # shot 5 of the beekeeper film and shot 3 of the ferry film are foggy
        for shot in facts.shots:
            if shot.id in ("S5", "BS3"):
                shot.inputs = {"lighting": "foggy"}
    if context in ("two:sel", "two:selB", "two:looksB"):
        prefix = "B" if context.endswith("B") else ""
        facts.selection = [NodeFact(id=f"{prefix}I2", kind="image", title="shot 2 image", shot=f"{prefix}S2")]
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
    if isinstance(expected, OPS):
        if len(intent.clauses) != len(expected):
            return "wrong_success"
        return "pass" if all(judge(op, intent.model_copy(update={"clauses": [c]})) == "pass"
                             for op, c in zip(expected, intent.clauses, strict=True)) else "wrong_success"
    if isinstance(expected, IN_DECK):
        count = len(expected.op) if isinstance(expected.op, OPS) else 1
        if len(intent.clauses) != count or not all(c.targets and c.targets[0].id == expected.deck
                                                   for c in intent.clauses):
            return "wrong_success"
        return judge(expected.op, intent)
    if isinstance(expected, IN_FILM):
        film = re.compile(rf"{expected.prefix}S\d+")
        if not all(film.fullmatch(t.id) for c in intent.clauses for t in c.targets):
            return "wrong_success"
        return judge(expected.shots, intent)
    if isinstance(expected, OP):
        if intent.operation != expected.operation or (len(intent.clauses) != 1 and expected.operation != "question"):
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
