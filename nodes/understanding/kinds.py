"""What kind of work a request is, by its words, and what else it names (quoted titles, ids, removals).

The grant policy gives each kind its tools (``nodes/policy.py``).  A request the readers understood gets
its kinds from its operation (a question is a question whatever nouns it holds); the words decide only for
a request no reader understood, which a real model then plans: "an image of a lighthouse" still gets the
image tool and nothing more.
"""

from __future__ import annotations

import re
from typing import Any

KIND_WORDS: dict[str, str] = {
    "note": r"note|notes|jot|write down",
    "story": r"films?|movies?|drama|narrative|stor(?:y|ies)|storyboards?|shots?|scenes?|characters?|lighting|lit|"
             r"relight|cuts?|trailers?|takes?|moods?|palettes?",
    "images": r"images?|pictures?|photos?|illustrations?|drawings?|draw|paintings?|paint",
    "video": r"videos?|clips?|animat\w*",
    "audio": r"audio|sounds?|voices?|voice-?over|speech|narration|music|ambience|soundtrack",
    "critique": r"critique|critic|evaluate|score|judge|review",
    "explore": r"explore|variations?|alternatives?|try (?:\d+|two|three|four|five|six|eight)",
    "web": r"web ?sites?|web ?pages?|landing page|site|html|css|hero|full-bleed|layout|portfolio|header|columns?|themes?",
    "slides": r"slides?|decks?|presentation|lecture|pptx|keynote",
    "files": r"files?|code|script|python|csv|json|workspace|folder",
}
"""Kind → the words that name it (the policy's table of tools per kind is keyed the same)."""

_PATTERNS = {kind: re.compile(rf"\b(?:{words})\b", re.IGNORECASE) for kind, words in KIND_WORDS.items()}
_NOTE_LEAD = re.compile(r"^\s*(?:add an? |take an? )?(?:note|notes|jot|write down)\b", re.IGNORECASE)

CONTENT_TOOLS: dict[str, tuple[str, ...]] = {
    "page_set_text": ("page_set_text", "page_read"), "page_set_style": ("page_set_style", "page_read"),
    "page_add_section": ("page_add_section", "page_read"), "page_remove_section": ("page_remove_section", "page_read"),
    "page_move_section": ("page_move_section", "page_read"),
    "page_replace_image": ("page_replace_image", "page_read"), "page_undo": ("page_undo", "page_read"),
    "page_revert": ("page_revert", "page_read"), "revise_page": ("skill__web_revise", "page_read"),
    "deck_add_slide": ("deck_add_slide", "deck_read"), "deck_delete_slide": ("deck_delete_slide", "deck_read"),
    "deck_move_slide": ("deck_move_slide", "deck_read"), "deck_edit_slide": ("deck_edit_slide", "deck_read"),
    "deck_duplicate_slide": ("deck_duplicate_slide", "deck_read"),
    "deck_add_bullet": ("deck_edit_slide", "deck_read"), "deck_remove_bullet": ("deck_edit_slide", "deck_read"),
    "deck_set_theme": ("deck_set_theme", "deck_read"),
    "deck_regenerate_illustration": ("deck_regenerate_illustration", "deck_read"),
    "deck_undo": ("deck_undo", "deck_read"), "deck_revert": ("deck_revert", "deck_read"),
}
"""A page or deck operation → the tools that carry it out (the first writes; the second reads the page or deck,
for a model that looks before it acts).  ``docs/page-and-deck-tools.md``, "Grants": the smallest grant."""

VERSION_OPERATIONS = frozenset({"undo_change", "revert_version", "undo_turn", "compare_versions", "list_versions"})
CUT_OPERATIONS = frozenset({"reorder_cut", "remove_from_cut", "return_to_cut", "insert_shot", "duplicate_shot",
                            "set_clip_duration"})
READ_ONLY_OPERATIONS = frozenset({"compare_versions", "list_versions"})
"""Version operations that write nothing."""

VERSION_TOOLS: dict[str, tuple[str, ...]] = {
    "undo_change": ("undo_change", "list_versions"), "revert_version": ("revert_version", "list_versions"),
    "undo_turn": ("undo_turn",), "compare_versions": ("compare_versions", "list_versions"),
    "list_versions": ("list_versions",), **{op: (op,) for op in sorted(CUT_OPERATIONS)},
}
"""A version or cut operation → the tool that carries it out (named as the operation, its ``args`` the tool's
arguments) and the read that shows the versions a model may want to look at first (docs/versions.md, "The
smallest grant for each operation")."""

OPERATION_TOOLS: dict[str, tuple[str, ...]] = {**CONTENT_TOOLS, **VERSION_TOOLS}
"""Every operation carried out by tool calls → its tools, the writing one first: the one table the grant policy,
the offline planner and the measured report read."""

CONTENT_OPERATIONS = frozenset(CONTENT_TOOLS)
"""Page and deck operations (``nodes.models.content``, ``measure.measure_content``)."""

OPERATION_KINDS: dict[str, list[str]] = {
    **{op: ["versions"] for op in VERSION_OPERATIONS}, **{op: ["cut"] for op in CUT_OPERATIONS},
    "note": ["note"], "build_narrative": ["story"], "build_page": ["web"], "revise_page": ["web"],
    "build_deck": ["slides"], "edit": ["story"], "stale_repair": ["story"], "explore": ["explore"],
    "question": ["question"], "status": ["status"], "skill": ["skill"],
    **{op: ["web"] for op in CONTENT_TOOLS if op.startswith("page_")},
    **{op: ["slides"] for op in CONTENT_TOOLS if op.startswith("deck_")},
}
"""An understood operation → the kinds its grant is made of."""

_REMOVAL = re.compile(r"\b(?:delete|remove|erase|purge|wipe)\b", re.IGNORECASE)
_QUOTED = re.compile(r"[\"“]([^\"”]{2,60})[\"”]")
_TITLE_REF = re.compile(r"\b(shot|slide|scene|clip|section|page|image)\s+#?(\d+)\b", re.IGNORECASE)
_NODE_ID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")


def word_kinds(text: str) -> list[str]:
    """The kinds a request's words name (a note is only a note)."""
    if _NOTE_LEAD.match(text):
        return ["note"]
    return [kind for kind, pattern in _PATTERNS.items() if pattern.search(text)]


def asks_removal(text: str) -> bool:
    """Whether the request asks to delete or remove something (destructive tools, with approval)."""
    return bool(_REMOVAL.search(text))


def titles_named(request: str, normalised: str) -> list[str]:
    """Titles a request points at ("shot 7", "slide 3", a quoted name): the view shows those nodes in full."""
    titles = [f"{kind.lower()} {number}" for kind, number in _TITLE_REF.findall(normalised)]
    return list(dict.fromkeys(titles + [q.strip() for q in _QUOTED.findall(request)]))


def node_ids_named(request: str) -> list[str]:
    """Node ids written in the request."""
    return list(dict.fromkeys(_NODE_ID.findall(request)))


def family_of(operation: str) -> str:
    """Which kind of output an operation works on: the page, the deck, or the story (shots, versions, the cut)."""
    if operation.startswith("page_") or operation == "revise_page":
        return "page"
    if operation.startswith("deck_"):
        return "deck"
    return "story"


def clauses_by_family(clauses: list[Any]) -> list[list[Any]]:
    """Clauses grouped by :func:`family_of` their operation, in the request's order (a request about a slide and a
    shot: two groups, each planned, granted and measured as if asked alone)."""
    groups: dict[str, list[Any]] = {}
    for clause in clauses:
        groups.setdefault(family_of(clause.operation), []).append(clause)
    return list(groups.values())
