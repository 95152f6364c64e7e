"""Requests that ask for no change: a check, a comment, a report of what someone did, a musing, a how-to.

Each of these was carried out as the change its words name (a probe of 2026-12-05): "shot 3 is night?" made shot 3
night, "shot 3 is a bit dark" made it darker, "the button says book now" rewrote the button, "i made shot 3 night"
made it night again, "shot 3 might be night" and "how do i delete slide 4" did what they mused or asked about.  A
reader sees the change words in them; this module sees that nobody asked for the change, and the turn asks instead
(a question with a question word, "is shot 3 night?", is the question reader's and is answered, not asked about).
"""

from __future__ import annotations

import re

from nodes.understanding.intent import Clarification

_LEAD = r"^\s*(?:(?:so|really|sure|hmm+|um+|uh+|well|ok|okay|yeah|yes|and|but|oh|wait|hey|hi|lol)[,?!.]*\s+)*"
_SUBJECT = (r"(?:shots? #?\d+(?:(?:,|,? and|,? &) (?:shot )?#?\d+)*|slides? #?\d+|"
            r"the (?:first|last|opening|closing|final|\d+th) (?:shot|slide)|"
            r"this(?: one| shot| slide| image| picture)?|that(?: one)?|it|everything|every shot|all (?:the )?shots|"
            r"the (?:font|fonts|text|headline|heading|tagline|button|hero|menu|gallery|page|site|deck|theme|title|"
            r"background|colou?rs?|accent|image|picture|photo|cut|film|lighting|light|sky|spacing))")
_STATED = re.compile(_LEAD + _SUBJECT + r"(?:\s+(?P<verb>is|are|was|were|looks?|feels?|seems?|says?|reads?|has|have|"
                     r"had)(?! (?:got )?to\b)\b|(?P<short>'s)\b)(?P<rest>.*)$")
"""A sentence about something on the canvas: "shot 3 is night?", "the font is a bit small", "the button says ...",
"shot 4 has rain" ("has to be night" is an instruction)."""
_ENOUGH = re.compile(r"\b(?:too|enough)\b")
"""What it has, said as a flaw ("has too much rain", "has not enough light"): the readers read the fix."""
_COMPLAINT = re.compile(
    r"^\s*(?:(?:a (?:bit|little|touch|tad)|slightly|very|really|so|quite|rather|kind of|kinda|pretty|super|somewhat|"
    r"way|extremely|a lot)\s+)?(?:dark|darkish|bright|dim|cold|cool|warm|small|big|large|tiny|huge|busy|plain|"
    r"dull|flat|harsh|soft|blurry|grey|gray|pale|long|short|empty|crowded|boring|cluttered|cramped|saturated|"
    r"washed out)\s*(?:[,.!]|$|\b(?:and|but)\b)")
"""A flaw stated without "too" ("is a bit dark"): read as the change's direction, it made the flaw worse ("too
dark" is read as the person means it: brighter)."""
_A_STATE = re.compile(r"^\s*(?:already|still|now)\b|\b(?:already|now|right|yeah|huh|innit)\s*[.!]*\s*$")
_TOO = re.compile(r"\btoo\b")
_ASKED_TO_ACT = re.compile(r"\b(?:make|give|turn|change|set|brighten|darken|fix|use|can you|could you|would you|"
                           r"please|pls|undo|revert|go back|redo|regenerate|delete|remove|rename|add|swap|move)\b")
"""An instruction after the comment ("shot 3 is a bit dark, make it brighter"): the readers read that."""
_DONE_BY_SOMEONE = re.compile(
    _LEAD + r"(?:i|we|you|u)\s+(?:(?:have|'ve|already|just|also|then)\s+)*(?:made|changed|set|deleted|removed|added|"
    r"renamed|retitled|turned|moved|swapped|darkened|brightened|updated|fixed|did|put|switched|replaced|used|"
    r"regenerated)\b")
"""A report of a change already made ("i made shot 3 night", "you changed the font to serif?")."""
_MUSED = re.compile(_LEAD + r"(?:" + _SUBJECT + r"\s+(?:(?:might|may)\s+(?:maybe\s+|perhaps\s+|possibly\s+)?|"
                    r"(?:could|would)\s+(?:maybe|perhaps|possibly|probably)\s+)(?:be|look)\b|(?:i|we)\s+(?:might|may)\s+"
                    r"(?:make|change|set|delete|remove|add|use|turn|give|try|rename|swap|move)\b|i wonder\b|"
                    r"what if\b|(?:maybe|perhaps|possibly)\b|"
                    # "picture shot 7 in fog" (imagine it), and "i wonder how shot 3 looks at night", which the
                    # question rephrasing leaves as "how shot 3 looks at night"
                    r"(?:picture(?!s? #?\d| of\b)|imagine|envision|visuali[sz]e)\b|how (?!about\b|come\b|many\b|much\b)"
                    r"(?:" + _SUBJECT + r")\s+(?:looks?|would|might|could|will|feels?|seems?)\b)")
_MUSED_AFTER = re.compile(r"\b(?:maybe|perhaps)\s*[?.!]*\s*$")
"""A musing ("shot 3 might be night", "we might make shot 3 night", "what if slide 2 were the title?", "maybe delete
slide 4?", "shot 3 darker maybe")."""
_IMPERATIVE = re.compile(
    _LEAD + r"(?:(?:please|pls|plz|kindly|just|now|then|also|ok|okay)[, ]+)*(?:(?:can|could|would|will) (?:you|u)\b|"
    r"(?:make|set|change|turn|give|add|remove|delete|move|swap|switch|put|use|rename|retitle|replace|undo|revert|"
    r"restore|redo|regenerate|darken|lighten|brighten|warm|cool|apply|bring|take|insert|duplicate|approve|reject|"
    r"reset|mark|drop|cut|shorten|lengthen|extend|reorder|keep|leave|try|go|do|write|title|call|name|"
    r"increase|decrease|reduce|raise|lower|get|let'?s|let)\b)")
_TENTATIVE = re.compile(r"\?+\s*(?:really\s*\?*)?\s*$")
"""A change asked with a question mark and no verb of asking ("shot 3 at night?", "night for shot 3?", "shot 3
needs to be night? really?", "tagline: 'Slow honey'?"): is it, or make it?  Each was made so ("make shot 3 night?"
and "shot 3 darker please?" still act)."""
_ASIDE = re.compile(r"^\s*(?:to do\s*:|//|\(.*\)\s*[.!]*\s*$)")
"""A note to self or an aside ("to do: make shot 3 night", "// make shot 3 night", "(make shot 3 night)")."""
_HOW_TO = re.compile(_LEAD + r"(?:how (?:do|can|could|should|would|will|did|does) (?:i|we|you|u|one|someone)\b|"
                     r"how to\b|how would\b|what would\b.{0,60}\blook like\b)")
"""A question about how to do something ("how do i delete slide 4"): it did it."""


_KEPT_SAID = re.compile(r"\b(?:don'?t|do not|never) (?:touch|change)\b|\b(?:keep|leave|except|others?|the rest)\b")
"""What stays, said as such ("shot 2 looks great, don't touch it, but make all the others dusk"): the readers read
that, and praise beside it is part of it."""
_SHOT_NOUN = r"(?:scene|one|shot|take|moment)s?"
_DESCRIBED_SHOT = re.compile(
    rf"\((?:it'?s |i\.?e\.?,? )?(?:the|that|this) [^()]{{0,40}}?\b{_SHOT_NOUN}\s*\)|"
    rf"\bshots? #?\d+(?:(?:,|,? and|,? &) (?:shot )?#?\d+)*\s*(?:,|\s[–—-])\s*(?:the|that|this) (?:[a-z'-]+ ){{1,3}}"
    rf"{_SHOT_NOUN}\b|"
    rf"(?:,|\s[–—-])\s*(?:it'?s )?(?:the|that|this) (?:[a-z'-]+ ){{1,3}}{_SHOT_NOUN}(?: too| as well| also)?\s*[.!]*$")
"""A shot described beside the change, in brackets or between commas or after a dash ("make shot 3 night (the storm
scene)", "make shot 3, the rainy one, night"): its look words are the shot's name, not a change."""
_NAMING_WORDS = re.compile(
    r"\b(?:rename|retitle|title|call|called|name|named|heading|headline|bullet|caption|say|says)\b")
"""Words that write text, which may hold "- the final scene" ("rename slide 4 to Act 2 - The Final Scene")."""
_NOT_OF_A_SHOT = re.compile(_NAMING_WORDS.pattern + r"|^(?!.*\b(?:shots?|scenes?|takes?|frames?|images?)\b)", re.S)
"""Words that write text, or a request that names no shot ("delete slide 5 (the last one)" describes a slide)."""
_WEATHER = r"rain|rainy|snow|snowy|fog|foggy|mist|misty|storm|stormy"
_LIGHT = r"night|day|daylight|dusk|dawn|sunset|sunrise|noon|neon|golden|twilight|morning|evening"
_BESIDES = (
    (re.compile(r"\bor (?:maybe|perhaps|possibly)\b"), "a choice left open", None),
    (re.compile(r"(?:^|[;,.!]\s*|\bbut\s+)(?:i|we) (?:really )?(?:like|love|prefer|adore)\b"), "praise of what stays",
     _KEPT_SAID),
    (re.compile(r"\b(?:shots?|slides?|sections?) #?\d+(?: is| looks| seems)? (?:ok|okay|fine|good|great|perfect|nice|"
                r"lovely)\b"), "praise of what stays", _KEPT_SAID),
    (re.compile(r"\b(?:like|the way|as) (?:shots?|slides?) #?\d+ (?:is|looks|was|does)\b"), "a comparison", None),
    (re.compile(r"\b(?:was|were|is|are|would be|seems?|looks?) (?:a bit |way |far |just |a little )?too much\b"),
     "a look that was too much", None),
    (re.compile(r"\b[a-z]+-free\b"), "a look taken away", None),
    (_DESCRIBED_SHOT, "a description of the shot", _NOT_OF_A_SHOT),
    # "make shot 5 too dark" was made brighter (a flaw named is read as its fix)
    (re.compile(r"\bmake\b[^,;.]*\b(?:way |far |much |a bit |slightly )?too (?:dark|bright|light|warm|cold|cool|"
                r"blue|dim|saturated|busy|big|small)\b"), "a flaw asked for", None),
    # "use a dark theme for the deck, or a light one" took the first; "change the headline to Honey at dusk, or Honey
    # at night" wrote both
    (re.compile(r",\s*or\b(?!\s+(?:not|so)\b)"), "a choice left open", None),
    # "lighten shot 5, or darken shot 6" did both
    (re.compile(r"(?:,\s*|\s)or\s+(?:just\s+)?(?:make|set|darken|lighten|brighten|change|turn|give|add|remove|"
                r"delete|use|warm|cool|swap|move)\b"), "a choice between two changes", None),
    # "make shot 4 night but leave the lighting": the lighting changed
    (re.compile(r"\b(?:leave|keep|don'?t (?:touch|change)|do not (?:touch|change))(?: the| its)? (?:lighting|light)\b"
                r"(?=.*\b(?:" + _LIGHT + r")\b)|\b(?:" + _LIGHT + r")\b(?=.*\b(?:leave|keep|don'?t (?:touch|change)|"
                r"do not (?:touch|change))(?: the| its)? (?:lighting|light)\b)"), "a look changed and kept", None),
    # "same for shot 4 but not night" made it night; "do what you did to shot 3 but to shot 4 at dusk" changed both
    (re.compile(r"\b(?:same|likewise|what you did)\b.*\b(?:but (?:not|no|leave|keep|to|for|on|in|without|don'?t|do "
                r"not)|except|without|only)\b"),
     "the same change with an exception", None),
)
"""Words beside a change that no reading of it accounts for: a target left open ("make shot 3 darker or maybe shot
4" darkened both), praise of another part ("delete slide 3; I like slide 4" deleted both), a comparison ("like shot
4 is" changed shot 4), a look said as unwanted ("make shot 5 rainy, the fog was too much" added fog; "instead of
rainy" added rain; "fog-free" made it foggy), a shot described by its look ("make shot 3 night (the storm scene)"
also made it rainy): (the words, what they are, what said beside them makes them part of the change)."""

_INSTEAD_OF_A_LOOK = re.compile(rf"\binstead of (?:the )?(?:(?P<weather>{_WEATHER})|(?P<light>{_LIGHT}))\b")


def _a_look_of_another_kind_replaced(words: str) -> str | None:
    """"make shot 3 night instead of rainy" added rain, and "rainy instead of night" kept the night: the look
    taken away is of another kind than the one set, and no edit takes a look away.  ("night instead of dusk" sets
    the lighting, which replaces the dusk.)"""
    found = _INSTEAD_OF_A_LOOK.search(words)
    if found is None:
        return None
    rest = words[:found.start()] + " " + words[found.end():]
    other = _LIGHT if found.group("weather") else _WEATHER
    return found.group(0) if re.search(rf"\b(?:{other})\b", rest) else None


def not_asked_to_act(text: str, request: str) -> Clarification | None:
    """A clarification when the request (``text``: as normalised) asks for no change, else None."""
    why = _why_no_change_was_asked(text)
    if why is None:
        return None
    said = " ".join(request.split())[:120]
    return Clarification(
        reason="unparsed", understood=[why], not_understood=[said],
        message=f"'{said}' reads as {why}, not as a request, so I changed nothing. To change something, say what "
                "to do ('make shot 3 brighter', 'delete slide 4'); to ask, start with a question word ('is shot 3 at "
                "night?', 'what does the button say?').")


def _why_no_change_was_asked(text: str) -> str | None:
    """What the request is instead of a request for the change it names, or None when it asks for it."""
    words = text.strip()
    if (replaced := _a_look_of_another_kind_replaced(words)) is not None:
        return f"a look taken away ('{replaced}') beside the change"
    for pattern, why, unless in _BESIDES:
        if (found := pattern.search(words)) is not None and not (unless is not None and unless.search(words)):
            return f"{why} ('{found.group(0).strip(' ;,.!')}') beside the change"
    if _ASIDE.match(words):
        return "a note to self or an aside (a note is 'note: ...')"
    if _HOW_TO.match(words):
        return "a question about how to do it"
    if _MUSED.match(words) or _MUSED_AFTER.search(words):
        return "a thought about a change"
    if _TENTATIVE.search(words) and not _IMPERATIVE.match(words) and not re.search(r"\b(?:please|pls|plz)\b", words):
        return "a question about how it is"
    if (done := _DONE_BY_SOMEONE.match(words)) is not None and not _ASKED_TO_ACT.search(words, done.end()) and \
            not _TOO.search(words, done.end()):  # "you made shot 3 too dark" asks for it to be fixed
        return "a report of a change already made"
    stated = _STATED.match(words)
    if stated is None:
        return None
    rest, verb = stated.group("rest"), stated.group("verb") or "is"
    if rest.rstrip().endswith("?"):
        return "a check of what is there"
    if _ASKED_TO_ACT.search(rest):
        return None
    if verb in ("was", "were", "had"):
        return "a description of how it was"
    if verb in ("has", "have") and not _ENOUGH.search(rest):  # "shot 4 has rain" added rain
        return "a description of what it has"
    if verb in ("says", "say", "reads", "read"):
        return "a description of what it says"
    if verb in ("looks", "look", "seems", "seem", "feels", "feel") and not _TOO.search(rest) and \
            not _ASKED_TO_ACT.search(rest):  # "shot 6 looks foggy" made it foggy
        return "a description of how it looks"
    if _A_STATE.search(rest) and not _TOO.search(rest):  # "still too dark" asks for a fix
        return "a description of how it is"
    if _COMPLAINT.match(rest):
        return "a comment on how it is"
    return None
