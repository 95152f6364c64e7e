"""Versions: undo the last change to X (or the last N), revert X to its original, version N, the version before a
named change or the one current at a time, undo the whole last turn ("undo that"), compare two versions, list
them.

Each understood request becomes clauses whose operation is the version tool that carries it out and whose
``args`` are that tool's arguments (``undo_change``, ``revert_version``, ``undo_turn``, ``compare_versions``,
``list_versions``: ``docs/versions.md``), one clause per output.  What a request is about is an *output*
(:mod:`nodes.understanding.readers.outputs`): a shot's current image, its clip when the words say clip, the cut,
the page, the deck, a selected node.  "Undo that" undoes the turn before (a page's or a deck's change with the
page's or the deck's own undo, through ``undo_change``).  Whether the version asked for exists is checked on the
canvas when the turn starts (``nodes.understanding.on_canvas``), before anything runs.
"""

from __future__ import annotations

import re
from typing import Any

from nodes.understanding.facts import NodeFact
from nodes.understanding.intent import Clarification, Clause, Target
from nodes.understanding.readers.base import PreviousTurn, ReadContext, Reading, not_found, typed
from nodes.understanding.readers.cut import switched_back
from nodes.understanding.readers.outputs import Outputs, read_outputs, take_owner_words
from nodes.understanding.references import ambiguous_message
from nodes.understanding.text import THEN_A_CHANGE, Words, undo_not_asked_for, undo_question

UNDO_FURTHER = re.compile(r"\s*(?:(?:and|now|then|ok|okay)[, ]+)*(?:please )?undo(?: (?:again|once more|one more(?: time| step| "
                          r"change)?|another(?: one| step| change)?|the (?:one|change) before(?: that| it)?|further(?: back)?))"
                          r"(?: please)?\s*[.!]*\s*")
""""undo again", "undo one more": a step further back than the last undo (as a second Ctrl-Z), never that undo
taken back.  "undo again" on a page failed ("no change matches 'again'")."""
JUST_UNDO = re.compile(r"\s*(?:(?:and|now|then|ok|okay)[, ]+)*(?:please )?undo(?: please)?\s*[.!]*\s*")
""""undo" alone: after an undo, a step further back (as a second Ctrl-Z); "undo that" takes that undo back."""
_UNDO_THEN = re.compile(r"\b(?:un-?do|take (?:that|it|this) back|revert)\b(?:\s+(?:that|it|this))?\s*"
                        r"(?:,|;|\.|\band\b|\bthen\b)")
"""An undo ended before what follows ("undo and do shot 4 instead"): what follows is not what it undoes."""
_LEAD = (r"\s*(?:(?:and|then|also|now|please|pls|just|so|ok|okay|kindly|can you|could you|would you|i want to|i'd like "
         r"to|let's|lets)[, ]+)*")
_BREAK = rf"(?:[,;.]|\b(?:and|then|but)\b){_LEAD}"
_VERBS = (r"cut|remove|delete|drop|take|pull|skip|do|redo|make|put|bring|add|move|swap|switch|duplicate|copy|insert|"
          r"trim|shorten|lengthen|extend|set|change|turn|give|use|regenerate|reject|approve|mark|rename|replace|darken|"
          r"brighten")
_ANOTHER_VERB = re.compile(rf"(?:^{_LEAD}|{_BREAK})(?P<verb>{_VERBS})\b")
"""A clause with a verb of its own, at the start of the request or after a break: another change beside an undo
or a revert (undo and revert words are one change with it: "undo shot 3 and revert shot 4")."""
_CLAUSE_END = re.compile(rf"{_BREAK}(?=(?:{_VERBS}|un-?do|revert|restore|reset|roll|go back)\b)")
"""Where the next clause with a verb begins ("revert shot 2 | and swap shots 5 and 6")."""
UNDO = re.compile(r"\bun-?do\b|\btake (?:that|it|this) back\b|\breverse (?:that|it|this|the last change)\b")
REVERT = re.compile(r"\b(?:revert(?:ed)?|restore|roll ?back|rollback|roll\b.{0,40}?\bback|reset|go(?:ing)? back|"
                    r"take\b.{0,40}?\bback|"
                    r"put\b.{0,40}?\bback|set\b.{0,40}?\bback|change\b.{0,40}?\bback|bring back|switch back|"
                    r"return)\b")
COMPARE = re.compile(r"\bcompare\b|\bdiff(?:erence)?s? between\b|\bwhat(?:'s| is| are)? (?:the )?differen(?:t|ces?) "
                     r"between\b|\bside[- ]by[- ]side\b")
LIST = re.compile(r"^\s*(?:list|show(?: me)?)(?: all)? (?:the )?versions\b|\bhow many versions\b")
INTO_CUT = re.compile(r"\b(?:in|into|to) the (?:final |current )?(?:cut|edit|film|sequence)\b")
TURN = re.compile(r"\b(?:the )?(?:whole |entire |complete |full )?(?:last|previous|latest) (?:turn|request|step|"
                  r"instruction|command|prompt)\b|\beverything (?:you|i|we) (?:just )?did\b|\b(?:the )?(?:whole|entire) "
                  r"(?:last )?(?:turn|request)\b")
THAT = re.compile(r"\b(?:that|this|it|what you (?:just )?did|what you (?:just )?changed|the (?:last )?undo|your "
                  r"undo|the last change|your last change|the change|my last request|the last thing you did)\b")
STEPS = re.compile(r"\b(?:the )?(?:last|previous|latest) (\d+) (?:changes|edits|versions)\b|\b(\d+) (?:changes|edits|"
                   r"steps) back\b")
TURNS_N = re.compile(r"\b(?:the )?(?:last|previous|latest) (\d+)(?: (?:things?|turns?|requests?|steps?|instructions?|"
                     r"commands?|actions?)(?: (?:you|i|we) (?:just )?(?:did|made|asked for|changed))?)?"
                     r"\s*[.!?]*\s*$")
"""The last N turns ("undo the last two things you did", "undo the last 2 turns", "undo the last two"): without
a noun, or with one for turns, the number counts turns, not the last N shots.  "the last 2 changes" alone asks
to what (STEPS); "the last 2 changes to shot 3" is that output's."""
LAST_THING = re.compile(r"\b(?:the )?(?:last|previous|latest) (?:thing|action)(?: (?:you|i|we) (?:just )?(?:did|made|"
                        r"asked for))?\b|(?<=undo )(?:the )?(?:last|latest|previous|most recent)(?: one)?"
                        r"(?=(?:,? please)?\s*[.!?]*$)")
""""undo the last thing you did": the turn before, as "undo that"; so is "undo the last one", "undo the previous
one" (the last shot's, or the shot before the last edited one's, last change was undone)."""
ONE_CHANGE = re.compile(r"\b(?:the )?(?:last|latest|previous|most recent) (?:change|edit)\b|\bthe change\b|"
                        r"(?<=undo )(?:the )?(?:last|latest|previous|most recent) one(?= (?:on|to|for|of|in) )|"
                        r"\bchanges? (?:to|on|of|made to)\b|\bwhat you (?:just )?did (?:to|on)\b")
ORIGINAL = re.compile(r"\b(?:its |the |their )?(?:very )?(?:original|1th|first)(?: version| one| state| take| image| "
                      r"clip| cut)?\b|\bhow (?:it|they) (?:was|were|looked) (?:at first|originally|at the start|in "
                      r"the beginning)\b|\bthe start\b")
VERSION_N = re.compile(r"\b(?:version|v) ?#?(\d+)\b|\b(?:the )?(\d+)th version\b")
PREVIOUS = re.compile(r"\b(?:the |its )?(?:previous|last|earlier|prior|older) (?:version|one|take)\b|"
                      r"\bthe version before\b|\bhow (?:it|they) (?:was|were|looked) before\b")
BEFORE = re.compile(r"\b(?:to )?(?:how (?:it|they) (?:was|were|looked) |the way (?:it|they) (?:was|were) |the version "
                    r"|what (?:it|they) (?:was|were) )?before\b\s*(.+)$")
WHEN = re.compile(r"\b(?:(?:this|yesterday) (?:morning|afternoon|evening)|yesterday(?:'s)?|last night|last week|"
                  r"earlier today|today|(?:\d+|an?|one) (?:minute|hour|day|week)s? ago|(?:minute|hour|day|week)s? ago)\b")
HOW_IT_WAS = re.compile(r"\b(?:how|the way|what) (?:it|they) (?:was|were|looked|used to look|used to be)\b|"
                        r"\b(?:as|like) (?:it|they) (?:was|were)\b")
"""Words that say "as it was" (taken before references are read: their "it" is not a reference)."""
JOINING = re.compile(r"\b(?:version|state|take)s?\b|\bto\b|\bfrom\b|\bof\b|\b(?:and|with|against|vs|versus)\b")
_ONE_ASPECT = re.compile(r"\b(?:lighting|light|framing|weather|outfits?|colou?rs?|time of day|sky|skies)\b")
"""One aspect of a shot's look, said in an undo or a revert (which restores its whole image)."""
PUT_BACK = re.compile(r"^\s*(?:(?:please|pls|plz|kindly|ok|okay|now|can you|could you|would you)[, ]+)*"
                      r"(?:(?:put|bring|add) back (?:shots? #?\d+(?:(?:,|,? and|,? &) (?:shot )?#?\d+)*|the (?:last|first|"
                      r"final|\d+th) shot)|(?:put|bring|add)\b.{0,40}?\bback)(?: in| into it| in again| again)?"
                      r"(?:(?: in| into)? the (?:cut|film|edit))?(?:,? (?:at the (?:start|beginning|front|end)|first|last|"
                      r"(?:at |in )?(?:position|place|slot) \d+|(?:right |just )?(?:after|before) (?:shot )?\d+|"
                      r"between (?:shots? )?\d+ and \d+))?(?:,? (?:and|&) (?:shots? )?#?\d+(?: too| as well)?)?"
                      r"\s*[.!?]*\s*$")
""""put shot 6 back", "put shot 1 back at the start", "bring back shot 6": into the cut it was taken out of (the cut
reader's), not an older version ("at the start" made it a revert of shot 1's look, with exit 0; "pls put shot 3
back" and "bring back shot 3" undid shot 3's last change while "put shot 3 back" put it back in the cut; "put shot
8 back, and shot 7 too" undid both shots' last changes)."""
CURRENT = re.compile(r"\b(?:the |its )?(?:current|latest|newest|present|now|new) ?(?:version|one|take)?\b")
NAMED_CHANGE = re.compile(r"\bthe ([a-z0-9'-]+(?: [a-z0-9'-]+){0,3}?) (?:change|edit)\b")
NOT_A_NAME = frozenset("last latest previous most recent whole entire 1th 2th 3th first second final very".split())
THAT_DONE = re.compile(r"\bwhat you (?:just )?(?:did|changed|made)\b")
ONE_WORD_ORIGINAL = re.compile(r"\b(?:the |its )?(?:original|1th|first)\b")
ONE_WORD_PREVIOUS = re.compile(r"\b(?:the |its )?(?:previous|prior|earlier|older)\b")
ONE_WORD_CURRENT = re.compile(r"\b(?:the |its )?(?:current|latest|newest|present)\b|\bnow\b")
"""Compare's "the previous and the current version": each word names one of the two."""
LEADS = re.compile(r"\b(?:please|can you|could you|let's|lets|i want to|i'd like to|just|again|now)\b")


def _clause(ctx: ReadContext, operation: str, args: dict[str, Any], understood: str,
            target: Target | None = None, references: list | None = None) -> Clause:
    return Clause(text=ctx.request, domain="versions", operation=operation, args=args,
                  targets=[target] if target is not None else [], references=references or [],
                  understood=[understood])


def _was_an_undo(previous: PreviousTurn) -> bool:
    """Whether the turn before undid or reverted something."""
    return any(str(c.get("operation") or "").endswith(("undo", "_revert", "undo_turn", "undo_change"))
               for c in previous.clauses)


class VersionReader:
    """Undo, revert, compare and list versions of an output, and undo a whole turn."""

    name = "versions"

    def read(self, ctx: ReadContext) -> Reading | None:
        words, text = ctx.words, ctx.words.text
        if INTO_CUT.search(text) and not UNDO.search(text):
            return None  # "put shot 6 back in the cut": the cut's
        if COMPARE.search(text):
            return self._compare(ctx)
        if LIST.search(text):
            return self._list(ctx)
        undo = UNDO.search(text)
        revert = None if undo else REVERT.search(text)
        if undo is None and revert is None or undo is None and PUT_BACK.search(text):
            return None
        if (aspect := _ONE_ASPECT.search(text)) is not None and not NAMED_CHANGE.search(text) and (re.search(
                r"\b(?:shots?|images?|pictures?|this|its|it|that|selected|selection)\b", text) or ctx.facts.selection):
            # "reset shot 3's lighting" reverted the whole image to its original (its rain went too), and "revert
            # the lighting of shot 3" undid its last change, whatever that changed
            words.take_all()
            return Reading(clarification=Clarification(
                reason="unsupported", understood=[f"restore the {aspect.group(0)} of a shot"], message=(
                    f"I restore a shot's whole image (every change made after that version goes), not its "
                    f"{aspect.group(0)} alone, so I changed nothing. Say the {aspect.group(0)} it should have ('make "
                    f"shot 3 neutral', 'make shot 3 dusk'), undo the change that set it ('undo the night change to "
                    "shot 3'), or restore the whole image ('revert shot 3 to the original').")))
        if undo is not None:
            if (why := undo_not_asked_for(text[:undo.start()], text[undo.end():])) is not None:
                words.take_all()
                return Reading(clarification=Clarification(reason="unparsed", understood=["an undo"],
                                                           message=undo_question(why)))
            words.mark(undo.start(), undo.end())
            return self._undo(ctx, undo)
        assert revert is not None
        if (asked := switched_back(ctx)) is not None:
            return asked
        for verb in ("revert", "restore", "roll", "rollback", "reset", "go", "going", "take", "put", "set", "change",
                     "bring", "switch", "return", "back", "reverted"):
            words.take(re.compile(rf"\b{verb}\b"), revert.start(), revert.end())
        words.take(LEADS)
        return self._revert(ctx, revert)

    # -- undo ----------------------------------------------------------------------------------------------
    def _undo(self, ctx: ReadContext, verb: re.Match[str]) -> Reading:
        words, after = ctx.words, verb.end()
        if (JUST_UNDO.fullmatch(words.text) or UNDO_FURTHER.fullmatch(words.text)) and _was_an_undo(ctx.previous):
            # "undo", then "undo" again: it took the first undo back (the change came back), and a third brought
            # it back out: two undos never went two steps back
            words.take_all()
            return Reading(clarification=Clarification(
                reason="ambiguous", understood=["undo, after an undo"],
                message=f"The last turn was an undo ('{ctx.previous.request[:60]}'). To go a step further back, name "
                        "the change ('undo the rain on shot 2', 'undo the last change to shot 2'); to take that undo "
                        "back, say 'undo the undo'."))
        if words.take(TURN):
            words.take(re.compile(r"\b(?:whole|entire|all|everything)\b"))
            words.take(LEADS)
            return Reading(clauses=[_clause(ctx, "undo_turn", {}, "undo the whole last turn")])
        if words.take(LAST_THING):  # "the last" is not the last shot here (it undid shot 8)
            words.take(LEADS)
            return self._undo_previous(ctx)
        if (turns := TURNS_N.search(words.text, after)) is not None:
            words.take_all()
            if int(turns.group(1)) == 1:
                return self._undo_previous(ctx)
            # "undo the last two things you did" undid the last two shots (7 and 8) of the film, with exit 0
            return Reading(clarification=Clarification(
                reason="unsupported", understood=[f"undo the last {turns.group(1)} turns"],
                message="I take back one turn at a time: 'undo that' undoes the last turn (said again right after, "
                        "it undoes that undo). To take back an earlier turn's change too, name what it changed: "
                        "'undo the last change to shots 2 to 4', 'revert shot 3 to the original', or 'undo the last "
                        "2 changes to shot 3'."))
        words.take(THAT_DONE)
        words.take(LEADS)
        named = next((m for m in NAMED_CHANGE.finditer(words.text) if not set(m.group(1).split()) <= NOT_A_NAME), None)
        if named is not None and not words.used(named.start(), named.end()):
            return self._undo_named(ctx, named, verb)
        steps_match = words.take(STEPS, first=True)
        steps = int(steps_match[0].group(1) or steps_match[0].group(2)) if steps_match else 1
        words.take(ONE_CHANGE)
        words.take(HOW_IT_WAS)
        outputs = read_outputs(ctx)
        take_owner_words(words)
        deictic = all(r.form in ("pronoun", "selection") for r in outputs.references) and not ctx.facts.selection
        if outputs.found and not (deictic and not outputs.targets and not outputs.missing and not outputs.ambiguous):
            if (asked := _unplaced(ctx, outputs, "undo")) is not None:
                return asked
            if _UNDO_THEN.search(words.text):
                # "undo and do shot 4 instead", "undo, then shot 4": the shot is another clause's, and shot 4's
                # own last change was undone
                words.take_all()
                return Reading(clarification=Clarification(
                    reason="unsupported", understood=["undo", *[r.said for r in outputs.references]],
                    message="That is an undo and then something about "
                            f"{', '.join(r.said for r in outputs.references)}: I do one or the other, so I changed "
                            "nothing. Say 'undo' first, then the change ('make shot 4 night'); or 'undo the last "
                            "change to shot 4'."))
            if (asked := _beside_another_change(ctx, verb)) is not None:
                return asked
            if any(r.form == "every" and r.said.strip() in ("everything", "all of them") for r in outputs.references):
                # "undo everything" undid one change of every shot: a shot changed twice kept the first change.
                words.take_all()
                return Reading(clarification=Clarification(
                    reason="ambiguous", understood=["undo every shot's changes"],
                    message="Undo everything: the last turn ('undo that'), or every shot back to its first "
                            "version ('revert every shot to the original')? Say which."))
            said = "the last change" if steps == 1 else f"the last {steps} changes"
            return Reading(clauses=[_clause(ctx, "undo_change", {"node_id": t.id, **({"steps": steps} if steps > 1
                                                                                     else {})},
                                            f"undo {said} to {t.title}", t, outputs.references)
                                    for t in outputs.targets])
        if steps > 1:
            return Reading(clarification=Clarification(
                reason="no_target", understood=[f"undo the last {steps} changes"],
                not_understood=words.unused(),
                message=f"Undo the last {steps} changes to what? Name it ('shot 3', 'the cut') or select it."))
        words.take(THAT)
        words.take(re.compile(r"\b(?:just|last|change|again|this|that|it|here)\b"))
        return self._undo_previous(ctx)

    def _undo_named(self, ctx: ReadContext, named: re.Match[str], verb: re.Match[str]) -> Reading:
        """"undo the neon change to shot 5": the output back to the version before that change, which must be
        its last one (checked on the canvas: an image cannot take back one change and keep the later ones)."""
        words = ctx.words
        said = f"the {named.group(1)} change"
        words.mark(named.start(), named.end())
        outputs = read_outputs(ctx)
        take_owner_words(words)
        words.take(JOINING)
        if not outputs.found:
            return Reading(clarification=Clarification(
                reason="no_target", understood=[f"undo {said}"], not_understood=words.unused(),
                message=f"Undo {said} to what? Name it ('shot 3', 'the cut') or select it."))
        if (asked := _unplaced(ctx, outputs, "undo") or _beside_another_change(ctx, verb)) is not None:
            return asked
        clauses = [_clause(ctx, "revert_version", {"node_id": t.id, "before_change": said},
                           f"undo {said} to {t.title}", t, outputs.references) for t in outputs.targets]
        for clause in clauses:
            clause.modifications["named_change"] = True
        return Reading(clauses=clauses)

    def _undo_previous(self, ctx: ReadContext) -> Reading:
        """"undo that": the turn before, undone; a page's or a deck's change with its own undo."""
        previous = ctx.previous
        if previous.turn_id is None:
            return not_found(ctx, "an earlier turn", "There is no earlier turn to undo on this project.",
                             understood=["undo the last turn"])
        operations = [str(c.get("operation") or "") for c in previous.clauses]
        changed = [op for op in operations if op not in ("question", "status", "note", "list_versions",
                                                         "compare_versions")]
        undid = any(op.endswith(("_undo", "_revert")) for op in changed)
        for kind, facts_nodes, ops in (("page", ctx.facts.pages, ("revise_page", "page_")),
                                       ("deck", ctx.facts.decks, ("deck_",))):
            # an undo turn undone is the whole turn taken back (undo_turn), not its steps undone once more
            if changed and not undid and facts_nodes and all(op.startswith(ops) or op in ops for op in changed):
                node = facts_nodes[0] if kind == "page" else _changed_deck(ctx, facts_nodes)
                if node is None:  # several decks, and the turn before changed one this canvas no longer shows
                    break
                steps = len(changed)
                target = Target(id=node.id, kind="code" if kind == "page" else "deck", title=node.title or kind,
                                referred_as="that")
                said = "the last change" if steps == 1 else f"the last {steps} changes"
                return Reading(clauses=[_clause(ctx, "undo_change", {"node_id": node.id,
                                                                     **({"steps": steps} if steps > 1 else {})},
                                                f"undo {said} to the {kind} ('{previous.request[:60]}')", target)])
        args = {"turn_id": previous.turn_id} if previous.touched else {}
        said = f"undo the last turn ('{previous.request[:60]}')" if previous.touched else \
            "undo the last turn that changed the canvas"
        return Reading(clauses=[_clause(ctx, "undo_turn", args, said)])

    # -- revert --------------------------------------------------------------------------------------------
    def _revert(self, ctx: ReadContext, verb: re.Match[str]) -> Reading:
        words, reset = ctx.words, verb.group(0) == "reset"
        selector, said = self._selector(words)
        if selector is not None and "unclear" in selector:
            words.take_all()
            return Reading(clarification=Clarification(
                reason="unsupported", understood=[f"revert to {said}"],
                message=f"I cannot tell which change 'before {selector['unclear']}' names, or what else the request "
                        "asks, so I changed nothing. Say one revert at a time, naming the change: 'revert shot 3 to "
                        "before the night change'."))
        if reset and selector is None:  # "reset shot 2": back to how it was made
            selector, said = {"original": True}, "the original"
        words.take(HOW_IT_WAS)
        outputs = read_outputs(ctx)
        take_owner_words(words)
        words.take(JOINING)
        if selector is None:  # "revert shot 3", "restore it": the version before its last change
            selector, said = {"previous": True}, "the previous version"
        if not outputs.found:
            return Reading(clarification=Clarification(
                reason="no_target", understood=[f"revert to {said}"], not_understood=words.unused(),
                message=f"Revert what to {said}? Name it ('shot 3', 'shot 3's clip', 'the cut') or select it."))
        if (asked := _unplaced(ctx, outputs, "revert") or _beside_another_change(ctx, verb)) is not None:
            return asked
        if selector == {"previous": True}:
            return Reading(clauses=[_clause(ctx, "undo_change", {"node_id": t.id}, f"undo the last change to "
                                            f"{t.title}", t, outputs.references) for t in outputs.targets])
        return Reading(clauses=[_clause(ctx, "revert_version", {"node_id": t.id, **selector},
                                        f"revert {t.title} to {said}", t, outputs.references)
                                for t in outputs.targets])

    @staticmethod
    def _selector(words: Words) -> tuple[dict[str, Any] | None, str]:
        """Which version: taken before the references are read (a description or a time may hold any word)."""
        before = words.peek(BEFORE)
        if before is not None:
            named = before.group(1).strip(" .!?")
            if THEN_A_CHANGE.search(before.group(1)) or re.fullmatch(r",?\s*(?:it|that|this|them)?\s*", named) or \
                    re.search(r"\band (?:the|shot|slide|its?)\b", named):
                # "revert shot 3 to how it was before, and make shot 4 night": the change after it was taken for
                # the name of an earlier change; "revert shot 2 and the shot before it" named 'it'
                return {"unclear": named}, f"the version before {named!r}"
            words.mark(before.start(), len(words.text))
            return {"before_change": named}, f"the version before {named!r}"
        if (when := words.take(WHEN, first=True)):
            said = when[0].group(0).removesuffix("'s")
            return {"at": said}, f"how it was {said}"
        if (number := words.take(VERSION_N, first=True)):
            n = int(number[0].group(1) or number[0].group(2))
            return ({"original": True}, "the original") if n == 1 else ({"version": n}, f"version {n}")
        if words.take(PREVIOUS, first=True):
            return {"previous": True}, "the previous version"
        if words.take(ORIGINAL, first=True):
            return {"original": True}, "the original"
        return None, ""

    # -- compare and list ------------------------------------------------------------------------------------
    def _compare(self, ctx: ReadContext) -> Reading:
        words = ctx.words
        words.take(COMPARE)
        words.take(LEADS)
        picked: list[tuple[int, Any]] = []
        for match in words.take(re.compile(r"\bversions? (\d+) (?:and|with|to|vs|versus) (\d+)\b")):
            picked += [(match.start(), int(match.group(1))), (match.start() + 1, int(match.group(2)))]
        for pattern, value in ((VERSION_N, None), (ORIGINAL, "original"), (PREVIOUS, "previous"),
                               (CURRENT, "current"), (ONE_WORD_ORIGINAL, "original"), (ONE_WORD_PREVIOUS, "previous"),
                               (ONE_WORD_CURRENT, "current")):
            for match in words.take(pattern):
                if value is None:
                    numbers = [int(n) for n in re.findall(r"\d+", match.group(0))]
                    picked += [(match.start(), n) for n in numbers]
                else:
                    picked.append((match.start(), value))
        picked.sort(key=lambda p: p[0])
        values = [v for _, v in picked]
        values = [("original" if v == 1 else v) for v in values]
        a, b = (values + ["previous", "current"])[:2] if len(values) != 1 else (values[0], "current")
        how_it_was = words.take(HOW_IT_WAS)
        outputs = read_outputs(ctx)
        take_owner_words(words)
        words.take(JOINING)
        if not outputs.found:
            return Reading(clarification=Clarification(
                reason="no_target", understood=["compare two versions"], not_understood=words.unused(),
                message="Compare the versions of what? Name it ('shot 3', 'the cut') or select it."))
        if (asked := _unplaced(ctx, outputs, "compare")) is not None:
            return asked
        if len(outputs.targets) > 1 and not picked and not how_it_was and not _OF_EACH_VERSIONS.search(ctx.words.text):
            return Reading(clarification=_two_outputs_compared(outputs))
        return Reading(clauses=[_clause(ctx, "compare_versions", {"node_id": t.id, "a": a, "b": b},
                                        f"compare {_named(a)} and {_named(b)} of {t.title}", t,
                                        outputs.references) for t in outputs.targets])

    def _list(self, ctx: ReadContext) -> Reading | None:
        words = ctx.words
        words.take(LIST)
        outputs = read_outputs(ctx)
        if not outputs.found:
            return None
        take_owner_words(words)
        words.take(re.compile(r"\b(?:are there|is there|there|exist|does|do|have|has|so far)\b|\?"))
        words.take(JOINING)
        if (asked := _unplaced(ctx, outputs, "list")) is not None:
            return asked
        return Reading(clauses=[_clause(ctx, "list_versions", {"node_id": t.id}, f"the versions of {t.title}", t,
                                        outputs.references) for t in outputs.targets])


def _changed_deck(ctx: ReadContext, decks: list[NodeFact]) -> NodeFact | None:
    """The deck the turn before changed: its new version is among what that turn touched (one deck: that one)."""
    changed = set(ctx.previous.touched) | set(ctx.previous.targets)
    return next((d for d in decks if d.id in changed), decks[0] if len(decks) == 1 else None)


_OF_EACH_VERSIONS = re.compile(r"\b(?:each|both|every|their|its) (?:own )?(?:versions?|takes?)\b|\bversions? of\b")
"""Versions said of each output ("compare the versions of shots 3 and 4", "compare each one's versions"): each output
is compared with its own earlier version."""


def _two_outputs_compared(outputs: Outputs) -> Clarification:
    """"compare shot 3 to shot 4" compared each shot with its own earlier version: what was asked is two outputs
    side by side, which no tool compares (a version compare is of one output's versions)."""
    said = " and ".join(t.referred_as or t.title or t.id for t in outputs.targets)
    return Clarification(
        reason="unsupported", operation="compare_versions", understood=[f"compare {said}"],
        message=(f"I compare the versions of one output ('compare shot 3 with its previous version'), not two "
                 f"different outputs side by side, so I changed and compared nothing ({said}). To see each one's "
                 "change, say 'compare the versions of shots 3 and 4'."))


def _named(value: Any) -> str:
    return f"version {value}" if isinstance(value, int) else f"the {value} version"


def _beside_another_change(ctx: ReadContext, verb: re.Match[str]) -> Reading | None:
    """An undo or a revert (``verb``) beside a clause with a verb of its own (:data:`_ANOTHER_VERB`): every shot
    named was read as the undo's.  "undo shot 3 and cut shot 4" undid the cut's last change and shot 4's image
    ("cut" read as the cut), "cut shot 4 and put shot 8 back" and "undo shot 3 and put shot 4 back" undid images
    ("put ... back" is the cut's there), "revert shot 3 and do shot 4" undid shot 4 ("do" a filler).  No turn
    carries an undo beside another change of the story, so it is asked (as "unparsed": a slide's or the page's
    clause beside it is still read on its own)."""
    text = ctx.words.text
    other = next((m for m in _ANOTHER_VERB.finditer(text) if not verb.start() <= m.start("verb") < verb.end()), None)
    if other is None:
        return None
    ctx.words.take_all()
    undo, change = _clause_said(ctx, verb.start()), _clause_said(ctx, other.start("verb"))
    first, second = (undo, change) if verb.start() < other.start() else (change, undo)
    unclear = ""
    if other.group("verb") == "do":
        unclear = (f" ('{change}' does not say what to do there: the same again, or "
                   + (f"the last turn's change ('{ctx.previous.request[:60]}') there instead?)" if ctx.previous.clauses
                      else "which change?)"))
    return Reading(clarification=Clarification(
        reason="unparsed", understood=[undo], not_understood=[change],
        message=f"'{first}' and '{second}' are two changes{unclear}: I make an undo, a revert or a shot put back "
                "into the cut in a request of its own, so I changed nothing. Say them one at a time, each "
                "naming its shots ('undo shot 3', then 'make shot 4 night' or 'remove shot 4 from the cut')."))


def _clause_said(ctx: ReadContext, start: int) -> str:
    """The request's own words from ``start`` to the end of that clause."""
    end = _CLAUSE_END.search(ctx.words.text, start + 1)
    stop = end.start() if end is not None else len(ctx.words.text)
    return typed(ctx, start, stop) or ctx.words.text[start:stop].strip()


def _unplaced(ctx: ReadContext, outputs: Outputs, verb: str) -> Reading | None:
    """A clarification when a named output is not on the canvas, matches several shots, or is a pronoun with
    nothing to point at; None when every one resolved."""
    if outputs.missing:
        ctx.words.take_all()
        return Reading(clarification=Clarification(
            reason="not_found", missing=outputs.missing, understood=[f"{verb} a version"],
            message=(f"There is no {', '.join(m.removeprefix('a ') for m in outputs.missing)} {ctx.facts.where}"
                     + ("; make a storyboard first." if not ctx.facts.has_story else ".")
                     + " (A shot's versions are its image's and its clip's.)")))
    if outputs.ambiguous:
        ctx.words.take_all()
        return Reading(clarification=Clarification(
            reason="ambiguous", candidates=outputs.ambiguous, understood=[f"{verb} a version"],
            message=ambiguous_message(outputs.ambiguous)))
    if outputs.unresolved or not outputs.targets:
        said = outputs.unresolved[0] if outputs.unresolved else "it"
        return Reading(clarification=Clarification(
            reason="no_target", understood=[f"{verb} a version"], not_understood=ctx.words.unused(),
            message=f"I could not tell what '{said}' means: nothing is selected. Name it ('shot 3', 'the cut') or "
                    "select it on the canvas."))
    return None
