"""Offline outline patterns: a fixed set of sections per kind of topic, filled with the topic's noun phrases.

Each kind (:data:`content.topics.TopicKind`) has its sections in the order a
talk would give them, each with a rank: a short deck takes the best-ranked
sections and shows them in talk order.  Templates name only the topic's
phrases (``{S}`` the subject, ``{H}`` its head noun phrase, ``{A}``/``{B}`` the
sides of a comparison, ``{do}`` a how-to's action, ``{clause}``/``{O}`` a
process's clause and output), never the deck's own words, and never put a
verb right after a phrase, so "bicycles" and "the bicycle" both read well.
"""

from __future__ import annotations

from dataclasses import dataclass

from content.topics import DeckRequest, TopicKind


@dataclass(frozen=True)
class Section:
    """One section pattern: a title, bullets and notes to fill, a rank (1 = keep first) and a diagram label."""

    title: str
    bullets: tuple[str, ...]
    notes: str
    rank: int
    box: str


_HISTORY = (
    Section("Where {S} began", ("The need that gave rise to {S}", "The first attempts, and who made them",
                                "Why the earliest versions fell short", "Life before {S}"),
            "Open with the origins of {S}: the need, the first attempts, what did not work yet.", 1, "Origins"),
    Section("The early years of {S}", ("The first designs that worked", "Who took up {S} first, and for what",
                                       "What held {S} back at the start"),
            "Describe the first working forms of {S} and their first users.", 4, "Early years"),
    Section("Turning points in the history of {S}", ("The inventions that made {S} practical",
                                                     "The people who pushed {S} forward",
                                                     "What each change made possible",
                                                     "Ideas that were tried and dropped"),
            "Walk through the turning points of {S} in order, one example each.", 2, "Turning points"),
    Section("How {S} spread", ("From a few enthusiasts to everyday use", "How {S} changed daily life",
                               "Where {S} caught on first"),
            "Show how {S} spread and what it changed for ordinary people.", 5, "Spread"),
    Section("{S} today", ("Where {S} stands now", "What has stayed the same since the beginning",
                          "What is changing right now"),
            "Bring the story of {S} up to the present.", 3, "Today"),
    Section("Lessons from the history of {S}", ("Patterns that repeat across the story",
                                                "What the past suggests about what comes next"),
            "Draw two or three lessons from the history of {S}.", 6, "Lessons"),
    Section("What comes next for {S}", ("Trends to watch", "Questions still open about {S}"),
            "End the story of {S} with what may come next.", 7, "Next"),
)

_HOW_TO = (
    Section("{S}: what a good result looks like", ("The goal, in one sentence", "How to recognise {S} done well",
                                                   "How long it takes the first time"),
            "Show the end result first so the steps have a target.", 3, "Goal"),
    Section("What you need to {do}", ("Tools and materials for {S}", "What to prepare before you start",
                                      "How much time to set aside"),
            "List everything needed to {do}; nothing should be missing at step one.", 2, "Gather"),
    Section("Step by step: how to {do}", ("Get everything for {S} ready", "Work through the core steps in order",
                                          "Check progress after each step", "Finish and tidy up"),
            "Demonstrate each step to {do}; pause after each one.", 1, "Steps"),
    Section("Common mistakes with {S}", ("Rushing the preparation", "Skipping the checks between steps",
                                         "Using the wrong tools for {S}"),
            "Name the mistakes people make with {S} and how to avoid each.", 4, "Avoid mistakes"),
    Section("Checking your work on {S}", ("Signs that it went right", "Signs that something went wrong",
                                          "How to fix the usual problems"),
            "Show how to tell whether the attempt to {do} worked.", 5, "Check"),
    Section("Going further with {S}", ("Variations worth trying", "Skills to practise next",
                                       "Where to learn more about {S}"),
            "Point to the next steps after learning to {do}.", 6, "Go further"),
    Section("A practice plan for {S}", ("Start small and repeat", "Add one new challenge at a time",
                                        "Keep notes on what worked"),
            "Give a simple plan to practise {S}.", 7, "Practise"),
)

_COMPARISON = (
    Section("{A} and {B} at a glance", ("{A} in one line", "{B} in one line", "Where they overlap",
                                        "Where they differ most"),
            "Introduce {A} and {B} side by side before going into detail.", 1, "Overview"),
    Section("Strengths of {A}", ("The clearest advantages of {A}", "Situations that suit {A}",
                                 "Who gets the most from {A}"),
            "Make the best case for {A}.", 3, "{A}"),
    Section("Strengths of {B}", ("The clearest advantages of {B}", "Situations that suit {B}",
                                 "Who gets the most from {B}"),
            "Make the best case for {B}.", 4, "{B}"),
    Section("{A} vs {B}: side by side", ("Cost: up front and over time", "Effort: learning, setup and upkeep",
                                         "Risk: what can go wrong with each", "Fit: the needs each one serves"),
            "Compare {A} and {B} on the same criteria, one row at a time.", 2, "Criteria"),
    Section("Trade-offs between {A} and {B}", ("What you give up with {A}", "What you give up with {B}",
                                               "When the difference hardly matters"),
            "Be honest about what each choice costs.", 5, "Trade-offs"),
    Section("Choosing between {A} and {B}", ("Reasons to pick {A}", "Reasons to pick {B}",
                                             "Questions to ask before deciding"),
            "Turn the comparison of {A} and {B} into a decision rule.", 2, "Decision"),
    Section("Myths about {A} and {B}", ("Claims that do not hold up", "What the evidence says"),
            "Clear up common myths about {A} and {B}.", 7, "Myths"),
)

_PROCESS = (
    Section("{S} at a glance", ("The job of {S} in one sentence", "What goes in and what comes out",
                                "Where you meet {S} today"),
            "Start with the purpose of {S}, then explain how {clause}.", 1, "{H}"),
    Section("The building blocks of {S}", ("The main parts and what each one does", "How the parts connect",
                                           "Which part does the heavy lifting"),
            "Name the parts of {S} before showing them at work.", 3, "Parts"),
    Section("Step by step: how {clause}", ("The starting point", "What happens at each stage",
                                           "How each stage hands over to the next", "What comes out at the end{O:: }"),
            "Trace how {clause}, one stage at a time.", 2, "Stages"),
    Section("The key idea behind {S}", ("The one idea that makes {S} work", "An everyday analogy",
                                        "Why simpler approaches fall short"),
            "Give the single idea that explains {S}, with an analogy.", 4, "Key idea"),
    Section("{S} in practice", ("A worked example from start to finish", "What it costs in time and resources",
                                "How the results are checked"),
            "Work through one real example of {S}.", 5, "Practice"),
    Section("Limits of {S}", ("Cases that trip up {S}", "Known weaknesses and their causes", "Open problems"),
            "Be clear about what {S} cannot do yet.", 6, "Limits"),
    Section("What comes next for {S}", ("Active research and new ideas", "What could change in the next few years"),
            "Close with the future of {S}.", 7, "Next"),
)

_CONCEPT = (
    Section("{H}: the core idea", ("A one-sentence definition of {H}", "Where the idea comes from",
                                   "{H} compared with nearby ideas"),
            "Define {S} plainly before anything else.", 1, "{H}"),
    Section("The case for {H}", ("The problems behind the interest in {H}", "Who benefits from {H}",
                                 "What it costs to ignore {H}"),
            "Explain why {S} deserves attention.", 2, "Why"),
    Section("The key parts of {H}", ("The main parts of {S}", "How the parts fit together",
                                     "Which part matters most"),
            "Break {S} into its parts.", 3, "Parts"),
    Section("Putting {H} to work", ("A first small step", "What a typical week looks like",
                                    "How to measure progress"),
            "Show what doing {S} looks like day to day.", 4, "Practice"),
    Section("{H} in the real world", ("Real examples of {H}", "What they got right", "What they learned"),
            "Give two concrete examples of {S}.", 5, "Examples"),
    Section("Common misconceptions about {H}", ("What people often get wrong", "Where the confusion comes from",
                                                "A clearer way to think about {H}"),
            "Correct the usual misunderstandings about {S}.", 6, "Misconceptions"),
    Section("Open questions about {H}", ("What is still unknown", "Where {H} may go next"),
            "End with what is still open about {S}.", 7, "Open questions"),
)

_EXTRAS = (
    Section("Key terms for {H}", ("Words you will hear often", "What each one means here"),
            "Define the vocabulary around {S}.", 8, "Terms"),
    Section("Questions to discuss about {H}", ("What surprised you", "What you would try first",
                                               "What you would like to know more about"),
            "Open the floor for questions about {S}.", 9, "Discussion"),
    Section("Further reading on {H}", ("Introductory sources", "Deeper sources", "Where to follow new work"),
            "Point to sources on {S}.", 10, "Reading"),
)

PATTERNS: dict[TopicKind, tuple[Section, ...]] = {
    "history": _HISTORY, "how-to": _HOW_TO, "comparison": _COMPARISON, "process": _PROCESS, "concept": _CONCEPT,
}
"""The outline patterns of each kind of topic, in talk order."""

DIAGRAM_SECTION: dict[TopicKind, int] = {"history": 2, "how-to": 2, "comparison": 3, "process": 2, "concept": 2}
"""Which section of each kind carries the diagram when it is in the deck (index into its patterns)."""


def choose_sections(kind: TopicKind, count: int) -> list[tuple[Section, int]]:
    """``count`` sections for a kind, in talk order, with a part number (1 unless a section has to repeat)."""
    pool = sorted(PATTERNS[kind] + _EXTRAS, key=lambda s: s.rank)
    chosen = [(section, 1) for section in pool[:count]]
    part = 2
    while len(chosen) < count:  # longer than every pattern: the best-ranked sections continue
        chosen += [(section, part) for section in pool[:count - len(chosen)]]
        part += 1
    order = {id(section): index for index, section in enumerate(PATTERNS[kind] + _EXTRAS)}
    return sorted(chosen, key=lambda pair: (order[id(pair[0])], pair[1]))


def fill(template: str, request: DeckRequest) -> str:
    """A template with the request's phrases in it; ``{O:: }`` becomes ": images" when there is an output."""
    text = template.replace("{O:: }", f": {request.obj}" if request.obj else "")
    values = {"S": request.subject, "H": request.head, "A": request.side_a, "B": request.side_b,
              "do": request.action, "clause": request.clause, "O": request.obj}
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return capitalise(text)


def capitalise(text: str) -> str:
    """Upper-case the first letter only (names and acronyms inside keep their case)."""
    return text[:1].upper() + text[1:]


__all__ = ["DIAGRAM_SECTION", "PATTERNS", "Section", "capitalise", "choose_sections", "fill"]
