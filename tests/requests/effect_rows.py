"""The request suite's rows as effects on the canvas (tests/requests/effects.py), on the effect run's premises.

Every row of ``suite.py`` and ``suite_versions.py`` is taken with its expectation turned into an effect:
shot edits → :class:`Edit`; asks → :class:`Ask`; questions, comparisons and lists → :class:`Answer` (nothing
written); undo and revert → :class:`Back` (the canvas as it was before the history the row's setup turns made);
every other operation → :class:`Op`, judged on the canvas by its arguments.  Words naming the suite's premise
are rewritten for the effect run's fresh premises (Tova → the ferry pilot, urban beekeeping → community solar
gardens).  A row whose context a real project cannot hold is left out, with the reason in :data:`LEFT_OUT`.
"""

from __future__ import annotations

from typing import Any

from tests.requests.effects import CHARACTER, Answer, Ask, Back, Edit, Op, Ops, Row
from tests.requests.suite import ASK, CASES, OPS
from tests.requests.suite_versions import VERSION_CASES

SETUP_OF_CONTEXT: dict[str, tuple[str, ...]] = {
    "prev": ("make shot 3 night",),
    "undone": ("make shot 3 night", "undo that"),
    "page:prev": ("use a serif font and more spacing",),
    "page:edited": ("make the hero full-bleed",),
    "deck:prev": ("delete the last slide",),
    "deck:edited": ("delete the last slide",),
    "deck:undone": ("delete the last slide", "undo that"),
    "deck:stale": ("retitle slide 3 to 'Who pays'",),  # a new slide 3: the one selected before it is an old version
}
"""The turns before the row that its context speaks of, run on the row's thread."""

HISTORY: dict[str, tuple[tuple[str, ...], int]] = {
    # request → (setup turns, the state the row must end in: 0 = before them, k = after the k-th)
    "undo the last change to shot 2": (("make shot 2 night", "make shot 2 a close-up"), 1),
    "undo the last two changes to shot 4": (("make shot 4 night", "make shot 4 a close-up", "make shot 4 rainy"), 1),
    "undo the last 3 changes to shot 1": (("make shot 1 night", "make shot 1 a close-up", "make shot 1 rainy"), 0),
    "please undo the latest edit on shot 5": (("make shot 5 night",), 0),
    "undo what you did to shot 6": (("make shot 6 foggy",), 0),
    "undo shot 7": (("make shot 7 night", "make shot 7 rainy"), 1),
    "undo the last change to the third shot": (("make shot 3 dawn",), 0),
    "undo the last change to the last shot": (("make shot 8 dusk", "make shot 8 a close-up"), 1),
    "undo the last change to shot 2's clip": (("make shot 2's clip 3 seconds long",), 0),
    "undo the last change to the cut": (("swap shots 3 and 4 in the cut",), 0),
    "undo the last change to the final cut": (("remove the last shot from the final cut",), 0),
    "undo this": (("make shot 4 night",), 0),
    "undo the last change to it": (("make shot 4 neon",), 0),
    "revert shot 3 to the original": (("make shot 3 night", "make shot 3 a close-up"), 0),
    "go back to the original shot 5": (("make shot 5 rainy",), 0),
    "reset shot 2": (("make shot 2 dusk", "make shot 2 wide"), 0),
    "restore the first version of shot 6": (("make shot 6 night",), 0),
    "put shot 4 back how it was at first": (("make shot 4 sunset", "make shot 4 snowy"), 0),
    "put shot 5 back to before the neon change": (("make shot 5 neon", "make shot 5 a close-up"), 0),
    "restore shot 5 to how it was before the neon change": (("make shot 5 rainy", "make shot 5 neon"), 1),
    "revert shot 2 to before we made it night": (("make shot 2 night", "make shot 2 rainy"), 0),
    "take shot 8 back to before the close-up": (("make shot 8 rainy", "make shot 8 a close-up"), 1),
    "revert shot 3": (("make shot 3 night", "make shot 3 rainy"), 1),
    "go back to the previous version of shot 2": (("make shot 2 foggy", "make shot 2 a close-up"), 1),
    "revert it to the original": (("make shot 4 night", "make shot 4 a close-up"), 0),
    "revert shot 3's clip to the original": (("make shot 3's clip 3 seconds long",), 0),
    "undo the full-bleed change": (("more spacing", "make the hero full-bleed"), 1),
    "undo the last change to the page": (("use a serif font",), 0),
    "undo the last change to the landing page": (("use a serif font",), 0),
    "undo the last change to the honey bar page": (("use a serif font",), 0),
    "go back to the original page": (("more spacing", "a teal palette"), 0),
    "restore the page to how it was before the dark theme": (("switch to a dark theme", "more spacing"), 0),
    "undo the retitle": (("retitle slide 3 'Who gains'",), 0),
    "revert the deck to the original": (("delete the last slide", "use the ocean theme"), 0),
}

HISTORY_IN_CONTEXT: dict[tuple[str, str], tuple[tuple[str, ...], int]] = {
    ("undo this", "sel=clip4"): (("make shot 4's clip 3 seconds long",), 0),
    ("undo that", "page:sel"): (("use a serif font",), 0),  # the page's last change is the setup's, not a reset
    # "undo" again after an undo: the change before the one undone (a second Ctrl-Z), so a change is made before
    # it: retitle, delete, undo that, then "undo" takes the retitle back too (the deck as it was first made)
    ("undo", "deck:undone"): (("retitle slide 2 to Basics", "delete the last slide", "undo that"), 0),
    ("undo again", "deck:undone"): (("retitle slide 2 to Basics", "delete the last slide", "undo that"), 0),
    # several undos in one request: as many changes made first (the context's own turn is one of them)
    ("undo the last two changes", "deck:prev"): (("retitle slide 2 to Basics",), 0),
    ("undo the last 2", "deck:prev"): (("retitle slide 2 to Basics",), 0),
    ("undo twice", "deck:prev"): (("retitle slide 2 to Basics",), 0),
    ("undo x2", "deck:prev"): (("retitle slide 2 to Basics",), 0),
    ("undo 3 times", "page:prev"): (("make the hero full-bleed",), 0),
}

SETUP_ONLY: dict[str, tuple[str, ...]] = {
    # rows judged by their own operation that need something on the canvas first
    "put shot 6 back in the cut": ("take shot 6 out of the cut",),
    "bring shot 4 back into the film": ("take shot 4 out of the cut",),
    "put shot 8 back": ("remove the last shot from the final cut",),
    "put shot 8 back in": ("remove the last shot from the final cut",),
    "pls put shot 3 back": ("take shot 3 out of the cut",),
    "bring back shot 3": ("take shot 3 out of the cut",),
    "put shot 8 back, and shot 7 too": ("take shots 7 and 8 out of the cut",),
    "put shot 8 back and shot 7 as well": ("take shots 7 and 8 out of the cut",),
    # a clip lasts 2 s: 2 s taken off would leave none (asked on the canvas)
    "trim 2 seconds from shot 4": ("make shot 4's clip 4 seconds long",),
    "cut 2 seconds from shot 4": ("make shot 4's clip 4 seconds long",),
    "take 2 seconds off shot 4": ("make shot 4's clip 4 seconds long",),
    "compare the first and the current version of shot 3": ("make shot 3 night",),
    "compare versions 1 and 2 of shot 6": ("make shot 6 night",),
    "compare version 2 and version 3 of the cut": ("make shot 1 night", "make shot 2 night"),
    "compare shot 4 with its original": ("make shot 4 night",),
    "compare the previous and the current version of shot 2": ("make shot 2 night",),
    "compare the versions of this": ("make shot 2 night",),  # (shot 2's image selected) two versions to compare
}

LEFT_OUT: dict[str, str] = {
    "two": "two storyboards: the effect run's premises hold one",
    "version N": "a version number: the premise's lineages grow as rows are put back, so 'version 2' is another "
                 "picture on each run (the words → call rows check it, test_understanding.py)",
    "time": "a time ('this morning', 'yesterday'): the premise is minutes old",
    "no previous turn": "the row expects no previous turn; a real project always has one (its build)",
    "premise words": "names a picture of the suite's page that the effect run's page does not have",
}

_PREVIOUS_SENSITIVE = {("the next one at dusk", "story"), ("do the same to shot 5", "story"),
                       ("undo that", "story"), ("undo the last turn", "story"),
                       ("undo the entire previous request", "story"), ("undo everything you just did", "story"),
                       ("that's too dark", "story"), ("the same for shot 4, and make shot 5 dawn", "story"),
                       ("same for shot 5 but dusk", "story"), ("now shot 4", "story"), ("also shot 4", "story"),
                       ("dawn instead", "story"), ("now shot 4 but darker", "story")}
_VERSION_N = {"go back to version 2 of the cut", "revert the final cut to v3", "go back to version 2 of shot 4",
              "revert shot 1 to the second version", "restore version 4 of shot 7's clip", "revert the site to version 2",
              "go back to version 2 of the deck"}
_TIMES = {"revert shot 1 to how it was this morning", "restore yesterday's version of shot 3",
          "roll shot 6 back to how it looked 2 hours ago", "revert the cut to how it was an hour ago"}
_PREMISE_WORDS = {"replace the photo of the hives with a close-up of a honeycomb"}

_WORDS = (("Tova", CHARACTER), ("urban beekeeping", "community solar gardens"), ("beekeeping", "solar"),
          ("honey bar", "bicycle repair"))
_RESTORING = {"undo_change", "revert_version", "undo_turn", "page_undo", "page_revert", "deck_undo", "deck_revert"}
_READING = {"question", "compare_versions", "list_versions"}


def _rewrite(text: str) -> str:
    for old, new in _WORDS:
        text = text.replace(old, new)
    return text


def _args(args: dict[str, Any]) -> dict[str, Any]:
    return {k: _rewrite(v) if isinstance(v, str) else v for k, v in args.items()}


def effect(expected: Any, request: str, context: str) -> tuple[Any, tuple[str, ...]]:
    """The effect a suite expectation asks for on the canvas, and the setup turns it needs."""
    setup = SETUP_OF_CONTEXT.get(context, ()) + SETUP_ONLY.get(request, ())
    if isinstance(expected, ASK):
        return Ask(expected.reason), setup
    if isinstance(expected, dict):
        return Edit(expected), setup
    ops = tuple(expected) if isinstance(expected, OPS) else (expected,)
    if all(getattr(op, "operation", "edit") in _RESTORING for op in ops):
        if (request, context) in HISTORY_IN_CONTEXT or request in HISTORY:
            turns, state = HISTORY_IN_CONTEXT.get((request, context)) or HISTORY[request]
            return Back(state), setup + turns
        # an undo of the context's own turns: "undo that" after one turn → before it; after an undo → redone
        return Back(len(setup) - 1 if context.endswith("undone") else 0), setup
    if all(getattr(op, "operation", "edit") in _READING for op in ops):
        return Answer(), setup
    # a shot edit beside another kind's change ("make shot 3 night and the deck dark"): its shots, as an edit
    converted = tuple(Edit(op) if isinstance(op, dict) else Op(op.operation, _args(op.args)) for op in ops)
    return (converted[0] if len(converted) == 1 else Ops(converted)), setup


def left_out(request: str, context: str) -> str | None:
    """Why a suite row is not in the effect run (None: it is)."""
    if context.startswith("two") or context.endswith("two"):  # no premise holds two films: tests/requests/test_two_films.py
        return "two"
    if context.startswith("decks2"):  # no premise holds two decks: tests/requests/test_page_and_deck_requests.py
        return "two decks"
    if (request, context) in _PREVIOUS_SENSITIVE:
        return "no previous turn"
    if request in _VERSION_N:
        return "version N"
    if request in _TIMES:
        return "time"
    if request in _PREMISE_WORDS:
        return "premise words"
    return None


EXTRA: list[Row] = [
    # ordinary questions, answered from the canvas (the answer read back), and what the suite's rows do not name
    Row("question", "what is on the canvas?", Answer(r"holds .*\b8 shot\b"), "story"),
    Row("question", "how many shots are there?", Answer(r"^8 found"), "story"),
    Row("question", "which notes mention pelicans?", Answer(r"1 note mention 'pelicans': 'pelicans on the pier"),
        "story", ("note: pelicans on the pier at dawn",)),
    Row("question", "which notes mention pelicans?", Answer(r"no note mentions 'pelicans'"), "story"),
    Row("question", "which slides mention costs?", Answer(r"1 slide mention 'costs': slide 3 "), "deck"),
    Row("question", "which shots are at night?", Answer(r"^1 shot with lighting night: shot 4 "), "story",
        ("make shot 4 night",)),
    Row("question", "what's on the canvas", Answer(r"holds .*\b1 deck\b"), "deck"),
    Row("question", "how many slides are in the deck?", Answer(r"^5 found: the deck '.+' has 5 slides"), "deck"),
    # the page's sections and style values, read from the page as it is
    Row("question", "which sections does the page have?",
        Answer(r"6 sections, top to bottom: hero, menu, gallery, testimonials, about, contact"), "page"),
    Row("question", "what colour are the buttons?", Answer(r"button.*background: #006400 \(--button-colour\)"),
        "page", ("make the buttons dark green",)),
    Row("question", "which sections does the page have?", Answer(r"5 sections, .*: hero, menu, testimonials, about, "
                                                                 r"contact"), "page", ("remove the gallery",)),
    # the cut's shots, read from the cut as it is (each was asked about: "not whether the cut holds them")
    Row("question", "is shot 3 in the cut?", Answer(r"^Yes: shot 3\b.* is in the cut \(3rd of 8 in the cut 'final cut'"),
        "cut"),
    Row("question", "did you leave shot 3 out?", Answer(r"^No: shot 3\b.* is not in the cut 'final cut'; it is still on "
                                                        r"the canvas\. The cut holds 7: shot 1\b.*, shot 2\b.*, shot 4\b"),
        "cut", ("remove shot 3 from the cut",)),
    Row("question", "which shots are in the cut?", Answer(r"^The cut 'final cut' holds 8 clips, in this order: shot 4\b.*, "
                                                          r"shot 1\b.*, shot 2\b.*, shot 3\b.*, shot 5\b"),
        "cut", ("move shot 4 to the start of the cut",)),
    Row("question", "how many shots are in the cut?", Answer(r"^7 found: the cut 'final cut' holds 7 clips"), "cut",
        ("remove shot 5 from the cut",)),
]
"""Rows of the effect run beyond the suite's."""


def effect_rows() -> list[Row]:
    """Every suite row the effect run can hold, as a :class:`Row`, and :data:`EXTRA`."""
    rows = list(EXTRA)
    for category, request, expected, context in [*CASES, *VERSION_CASES]:
        if left_out(request, context):
            continue
        spec, setup = effect(expected, request, context)
        rows.append(Row(category, _rewrite(request), spec, context, setup))
    return rows


def left_out_rows() -> list[tuple[str, str, str]]:
    """(request, context, reason) of the suite rows the effect run leaves out."""
    found = []
    for _, request, _, context in [*CASES, *VERSION_CASES]:
        reason = left_out(request, context)
        if reason:
            found.append((request, context, reason))
    return found


ROWS = effect_rows()

NOT_DONE: dict[str, str] = {}
"""Rows the effect run has seen end honestly but not done as asked (exit 1 or a clarification), and why."""

ALWAYS = {"add a shot of Mara reading the letter between shots 2 and 3", "duplicate shot 4", "use 2 columns",
          "make the headline 72px", "make shot 1 night, shot 2 too, and shot 3 dusk", "shot 4 is too foggy",
          "add a slide about pests titled 'Uninvited guests'", "undelete slide 3", "a website for a bar, not dark"}
"""Rows the slice always holds: a shot inserted between two others, a shot duplicated (#20's end-to-end gaps),
page requests the fresh page already satisfies (said, exit 0, nothing changed), and one of each of the evening of
2026-12-04's wrong successes that a fresh premise can hold (a look carried by "too", a look said to be too much, a
new slide's title, an undoing prefix, a denied look in a brief)."""

SAMPLE_EVERY = 10
"""The suite runs every tenth row of each category (its first included), the bench all of them (`bench/requests.py
--effects`).  It was every eighth; the suite grew by about 180 rows on 2026-12-04, and the slice is held near its
size then (about 120 rows), so that the suite's time does not grow with every probe."""


def sample(rows: list[Row] = ROWS) -> list[Row]:
    """A representative slice: :data:`EXTRA`, :data:`ALWAYS`, and from each category every SAMPLE_EVERY-th row."""
    picked: list[Row] = [r for r in rows if r in EXTRA or r.request in ALWAYS]
    seen: dict[str, int] = {}
    for row in rows:
        if row in picked:
            continue
        i = seen[row.category] = seen.get(row.category, -1) + 1
        if i % SAMPLE_EVERY == 0:
            picked.append(row)
    return picked
