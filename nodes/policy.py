"""The default grant policy: derive this turn's grant from the manifest, the canvas and the request.

* Destructive tools are left out unless the request asks to delete or remove,
  and then they need a person's approval.
* A local edit of named nodes ("redo the lighting on shot 7") is scoped to those
  nodes and what was derived from them, so nothing else can change; it gets the
  canvas and recovery tools (regenerate_stale redoes media along the lineage) and
  the skills that revise an existing node.
* A request whose intent is recognised (a story, images or video, audio, critique, web,
  slides, code and files, a note) gets the core canvas tools (a note: all of them) plus
  the tools and skills of that intent.  The tools those skills call that the intent does
  not offer are *skill-only* (``Grant.skill_only_tools``): the skills may call them through
  the bridge, the model is neither offered them nor allowed to call them.  Every tool the
  model is offered is sent with every model call, so a lean grant is a cheap turn.
* Media words alone ("an image of a lighthouse") offer the generation tool itself; with a
  workflow's words ("a site with photos of bread", "a deck on how models generate images")
  they name what the workflow's skills make, and add nothing.
* Anything else may use every tool on the whole canvas.

Tools the policy knows nothing about (MCP tools, a project's own skills) are always
in the grant: the project configured them on purpose.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from nodes.grant import Grant, Scope
from nodes.manifest import Manifest, ToolInfo
from nodes.view import ViewReader, find_focus
from tools.base import Effect, ToolFamily

_DESTRUCTIVE_WORDS = re.compile(r"\b(delete|remove|erase|purge|wipe)\b", re.IGNORECASE)
_LOCAL_EDIT = re.compile(r"\b(redo|re-do|change|fix|adjust|tweak|make|keep|regenerate|relight|recolou?r)\b",
                         re.IGNORECASE)


CORE_CANVAS_TOOLS = frozenset({"read_node", "query_canvas", "create_node", "update_node", "link_nodes", "set_status"})
"""The canvas tools a building request gets; the rest of the family (branch, group, move, unlink, lineage,
evaluate) is offered to a note, a local edit and a request of no known kind, or comes as a skill's need."""
REPAIR_TOOLS = frozenset({"mark_stale", "regenerate_stale"})
"""Redo along the lineage: what a request that builds media needs of the recovery family."""


class Intent:
    """A kind of request, recognised by its words, and the tools it needs beyond the canvas tools."""

    def __init__(self, words: str, *, families: frozenset[ToolFamily] = frozenset(),
                 tools: frozenset[str] = frozenset(), skills: frozenset[str] = frozenset(),
                 edit_skills: frozenset[str] = frozenset(), lends: frozenset[str] = frozenset(),
                 all_canvas: bool = False, alone: bool = False, whole: bool = False) -> None:
        self.pattern = re.compile(rf"\b({words})\b", re.IGNORECASE)
        self.leading = re.compile(rf"^\s*(add an? |take an? )?({words})\b", re.IGNORECASE)
        self.alone = alone
        """Whether the intent counts only when no workflow (an intent with skills) matched the request too."""
        self.whole = whole
        """Whether a request that begins with its words is of this kind only (the rest is content: a note's text)."""
        self.families = families
        self.tools = tools
        self.lends = lends
        """Tools the intent's skills may call beyond their declared needs, lent to them, never offered."""
        self.skills = frozenset(f"skill__{s}" for s in skills | edit_skills)
        self.edit_skills = frozenset(f"skill__{s}" for s in edit_skills)
        """Skills that revise an existing node: the ones a local edit gets."""
        self.all_canvas = all_canvas
        """Whether the request works on the canvas itself (every canvas tool), not only builds on it."""

    def matches(self, request: str) -> bool:
        """Whether the request is of this kind."""
        return bool(self.pattern.search(request))

    def begins(self, request: str) -> bool:
        """Whether the request begins with this kind's words ("note: ...")."""
        return bool(self.leading.match(request))


INTENTS: tuple[Intent, ...] = (
    Intent(r"note|notes|jot|write down", all_canvas=True, whole=True),
    # A story's skills make its images and clips (the generation tools are theirs only); the model cuts and repairs.
    Intent(r"films?|movies?|drama|narrative|stor(y|ies)|storyboards?|shots?|scenes?|characters?|lighting|lit|"
           r"relight|cuts?|trailers?|takes?|moods?|palettes?",
           tools=frozenset({"assemble_cut"}) | REPAIR_TOOLS,
           skills=frozenset({"storyboard", "reference_images", "video_clips"})),
    Intent(r"images?|pictures?|photos?|illustrations?|drawings?|draw|paintings?|paint",
           tools=frozenset({"generate_image"}) | REPAIR_TOOLS, alone=True),
    Intent(r"videos?|clips?|animat\w*", tools=frozenset({"generate_video", "assemble_cut"}) | REPAIR_TOOLS, alone=True),
    Intent(r"audio|sounds?|voices?|voice-?over|speech|narration|music|ambience|soundtrack",
           tools=frozenset({"generate_audio"})),
    # Asked to judge, the model may run the evaluator itself (an evaluation action), not only through critique.
    Intent(r"critique|critic|evaluate|score|judge|review", tools=frozenset({"evaluate_node"}),
           edit_skills=frozenset({"critique"})),
    Intent(r"explore|variations?|alternatives?|try (\d+|two|three|four|five|six|eight)",
           # An exploration picks its candidate with the evaluator when the turn lends it (else a pixel measure).
           tools=REPAIR_TOOLS, lends=frozenset({"evaluate_node"}), edit_skills=frozenset({"explore"})),
    Intent(r"web ?sites?|web ?pages?|landing page|site|html|css|hero|full-bleed|layout|portfolio|header|columns?|"
           r"themes?",
           tools=frozenset({"render_page", "write_file", "read_file", "list_files"}),
           skills=frozenset({"design_to_web"}), edit_skills=frozenset({"web_revise"})),
    Intent(r"slides?|decks?|presentation|lecture|pptx|keynote",
           tools=frozenset({"build_slides"}), skills=frozenset({"slides"})),
    Intent(r"files?|code|script|python|csv|json|workspace|folder",
           families=frozenset({ToolFamily.NATIVE})),
)


def _claimed_skills() -> frozenset[str]:
    return frozenset().union(*(intent.skills for intent in INTENTS))


class IntentTools(NamedTuple):
    """What a recognised request gets: tools offered to the model, and tools lent to its skills only."""

    offered: list[str]
    lent: frozenset[str]


def matched_intents(request: str) -> list[Intent]:
    """The kinds of request ``request`` is (a note is only a note; media words alone only without a workflow)."""
    whole = [intent for intent in INTENTS if intent.whole and intent.begins(request)]
    if whole:
        return whole
    matched = [intent for intent in INTENTS if intent.matches(request)]
    if any(intent.skills for intent in matched):
        matched = [intent for intent in matched if not intent.alone]
    return matched


def intent_tools(manifest: Manifest, request: str, *, local_edit: bool) -> IntentTools | None:
    """The tools a request needs the model to call, or None when its intent is not recognised (then: every tool).

    The tools its skills call are not offered: :func:`default_grant` lends those to the skills only.
    """
    matched = matched_intents(request)
    if not matched and not local_edit:
        return None
    families = {ToolFamily.MCP}
    wanted: set[str] = set(CORE_CANVAS_TOOLS)
    if local_edit or any(intent.all_canvas for intent in matched):
        families.add(ToolFamily.CANVAS)
    if local_edit:
        # Redo along the lineage (mark_stale, regenerate_stale) rather than build anew.
        families.add(ToolFamily.RECOVERY)
        wanted |= set().union(*(intent.edit_skills for intent in matched))
    else:
        for intent in matched:
            families |= intent.families
            wanted |= intent.tools | intent.skills
    claimed = _claimed_skills()

    def chosen(tool: ToolInfo) -> bool:
        if tool.family == ToolFamily.SKILL:
            return tool.name in wanted or tool.name not in claimed
        return tool.family in families or tool.name in wanted

    offered = [t.name for t in manifest.tools if chosen(t)]
    lent = frozenset().union(*(intent.lends for intent in matched if intent.edit_skills & set(offered)))
    return IntentTools(offered, lent)


def default_grant(manifest: Manifest, canvas: ViewReader, request: str, selected: list[str]) -> Grant:
    """The grant a turn gets when the caller names none.

    A chosen skill brings the tools it calls through the bridge (its declared needs: the bridge refuses a
    skill whose needs the grant neither holds nor lends); those the intent does not offer the model are
    lent to the skills only (``skill_only_tools``).
    """
    wants_destruction = bool(_DESTRUCTIVE_WORDS.search(request))
    scope = Scope()
    _, focus = find_focus(canvas, request, selected, [], versioned=False)
    local_edit = bool(focus and _LOCAL_EDIT.search(request))
    if local_edit:
        scope = Scope(all_nodes=False, node_ids=focus, descendants_of=focus)
    chosen = intent_tools(manifest, request, local_edit=local_edit)
    offered = set(chosen.offered) if chosen is not None else {t.name for t in manifest.tools}
    needs = {f"skill__{s.name}": s.needs_tools for s in manifest.skills}
    lent = {n for name in offered for n in needs.get(name, ())} | (chosen.lent if chosen is not None else set())
    lent -= offered

    def kept(names: set[str]) -> list[str]:
        return [t.name for t in manifest.tools
                if t.name in names and (wants_destruction or Effect.DESTRUCTIVE not in t.effects)]

    return Grant(tools=kept(offered), skill_only_tools=kept(lent), scope=scope, approval_effects=[Effect.DESTRUCTIVE])
