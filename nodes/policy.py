"""The default grant policy: derive this turn's grant from the manifest and the turn's intent.

The request is read once, by the interpreter (``nodes.understanding``); the policy reads the intent.

* Destructive tools are left out unless the request asks to delete or remove,
  and then they need a person's approval.
* A local edit of named nodes ("redo the lighting on shot 7", "the last shot", a selection) is scoped to those
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
* A page or deck operation ("make the headline bigger", "delete the last slide") gets the tools that carry it
  out and the read tools (``nodes.understanding.kinds.OPERATION_TOOLS``), scoped to the page (its code node and
  what is made from it: its HTML file and preview) or to the deck (its node, its slides, their contents and
  pictures): the table of ``docs/page-and-deck-tools.md``.  A page selected through its preview is scoped at
  the page (the interpreter resolves the selection to it).
* A question gets the read-only canvas tools: it never changes the canvas, and the grant makes sure.
* Anything else may use every tool on the whole canvas.
* A build sized by its request ("a 24-shot film", "a 40-slide deck") gets a tool-call budget sized by the work
  its skills will do for that many shots or slides (:func:`build_budget`), never less than the default; every
  other turn keeps the default budget, which stops a runaway loop.

Tools the policy knows nothing about (MCP tools, a project's own skills) are always
in the grant: the project configured them on purpose.

A version or cut operation ("undo the last change to shot 2", "swap shots 3 and 4 in the cut") gets the tool
that carries it out (with ``list_versions`` for undo, revert and compare) and the read tools, scoped to what
that call writes on this canvas (``tools.write_scope.write_scope``, recorded on the clause when the turn
started: ``nodes/understanding/on_canvas.py``): :func:`operation_grant`.  Comparing and listing versions write
nothing.
"""

from __future__ import annotations

from typing import NamedTuple

from content.sizes import SHOTS_MAX, SLIDES_MAX
from nodes.grant import Budget, Grant, Scope
from nodes.manifest import Manifest, ToolInfo
from nodes.selection import selected_nodes
from nodes.understanding.intent import Intent
from nodes.understanding.kinds import (CONTENT_OPERATIONS, OPERATION_KINDS, OPERATION_TOOLS, READ_ONLY_OPERATIONS,
                                      clauses_by_family, family_of)
from tools.base import Effect, ToolFamily

CORE_CANVAS_TOOLS = frozenset({"read_node", "query_canvas", "create_node", "update_node", "link_nodes", "set_status"})
"""The canvas tools a building request gets; the rest of the family (branch, group, move, unlink, lineage,
evaluate) is offered to a note, a local edit and a request of no known kind, or comes as a skill's need."""
READ_TOOLS = frozenset({"read_node", "query_canvas"})
"""What a question gets: it is answered from the canvas and never changes it (the grant enforces that)."""
REPAIR_TOOLS = frozenset({"mark_stale", "regenerate_stale", "repair"})
"""Redo along the lineage: what a request that builds media needs of the recovery family (``repair`` is the
other two in one call)."""
LOCAL_OPERATIONS = frozenset({"edit", "explore", "revise_page", "status"})
"""Operations on named nodes: their grant is scoped to the targets and what derives from them."""
EDIT_TOOLS = READ_TOOLS | REPAIR_TOOLS | frozenset({"read_lineage", "update_node", "set_status"})
"""What a local edit of render values ("redo the lighting on shot 3") is offered: the read tools, the redo along
the lineage (``repair`` in one call, or its two parts), and a change of a node's inputs or status.  Not the rest
of the canvas and recovery families (branch, group, move, link, version and checkpoint tools: each has a request
of its own and a grant of its own), whose schemas went with every model call of the edit (23 tools, 11 KB,
against 8 tools, 3.9 KB; ``bench/turn.py`` prints both)."""


BUILD_CALLS: dict[str, tuple[str, int, int, int]] = {
    "build_narrative": ("n_shots", 9, 9, SHOTS_MAX),
    "build_deck": ("n_slides", 2, 5, SLIDES_MAX),
}
"""Tool calls a build makes through the bridge, its skills' own calls included: operation → (the clause's count
argument, calls per unit, calls besides, the most units a budget is sized for).  Measured on the built-in skills
(a story: per shot its node, its links, its image, its clip and their links and statuses, 63 calls for 6 shots
and 117 for 12; a deck: per slide its content node and link, 15 calls for 5 slides and 29 for 12);
``tests/bridge/test_build_budget.py`` runs a 24-shot film under the sized budget."""
BUILD_HEADROOM = 1.5
"""The sized budget over the planned calls: room for a repair and the model's own calls, not for a loop."""


def build_budget(intent: Intent) -> Budget:
    """The turn's budget: the default, or for builds of a named size enough tool calls for the planned work.

    Sized from the intent's own count (the interpreter asks about a size past the skills' bounds, content.sizes), so a long request cannot buy an
    unbounded budget; the other limits (generation calls, wall time, cost, rejections in a row) stay the
    default's."""
    default = Budget()
    planned = 0
    for clause in intent.clauses:
        sized = BUILD_CALLS.get(clause.operation)
        if sized is None:
            continue
        argument, per_unit, besides, most = sized
        units = clause.args.get(argument)
        if isinstance(units, int) and units > 0:
            planned += per_unit * min(units, most) + besides
    if default.tool_calls is None or not planned:
        return default
    return default.model_copy(update={"tool_calls": max(default.tool_calls, round(planned * BUILD_HEADROOM))})


class RequestKind:
    """A kind of request (``nodes.understanding.kinds``) and the tools it needs beyond the canvas tools."""

    def __init__(self, name: str, *, families: frozenset[ToolFamily] = frozenset(),
                 tools: frozenset[str] = frozenset(), skills: frozenset[str] = frozenset(),
                 edit_skills: frozenset[str] = frozenset(), lends: frozenset[str] = frozenset(),
                 all_canvas: bool = False, alone: bool = False) -> None:
        self.name = name
        self.alone = alone
        """Whether the kind counts only when no workflow (a kind with skills) is named too."""
        self.families = families
        self.tools = tools
        self.lends = lends
        """Tools the kind's skills may call beyond their declared needs, lent to them, never offered."""
        self.skills = frozenset(f"skill__{s}" for s in skills | edit_skills)
        self.edit_skills = frozenset(f"skill__{s}" for s in edit_skills)
        """Skills that revise an existing node: the ones a local edit gets."""
        self.all_canvas = all_canvas
        """Whether the request works on the canvas itself (every canvas tool), not only builds on it."""


KINDS: tuple[RequestKind, ...] = (
    RequestKind("note", all_canvas=True),
    # A story's skills make its images and clips (the generation tools are theirs only); the model cuts and repairs.
    RequestKind("story", tools=frozenset({"assemble_cut"}) | REPAIR_TOOLS,
                skills=frozenset({"storyboard", "reference_images", "video_clips"})),
    RequestKind("images", tools=frozenset({"generate_image"}) | REPAIR_TOOLS, alone=True),
    RequestKind("video", tools=frozenset({"generate_video", "assemble_cut"}) | REPAIR_TOOLS, alone=True),
    RequestKind("audio", tools=frozenset({"generate_audio"})),
    # Asked to judge, the model may run the evaluator itself (an evaluation action), not only through critique.
    RequestKind("critique", tools=frozenset({"evaluate_node"}), edit_skills=frozenset({"critique"})),
    # An exploration picks its candidate with the evaluator when the turn lends it (else a pixel measure).
    RequestKind("explore", tools=REPAIR_TOOLS, lends=frozenset({"evaluate_node"}), edit_skills=frozenset({"explore"})),
    RequestKind("web", tools=frozenset({"render_page", "write_file", "read_file", "list_files"}),
                skills=frozenset({"design_to_web"}), edit_skills=frozenset({"web_revise"})),
    RequestKind("slides", tools=frozenset({"build_slides"}), skills=frozenset({"slides"})),
    RequestKind("files", families=frozenset({ToolFamily.NATIVE})),
    RequestKind("status", all_canvas=True),
    # A skill the request names: the core canvas tools and the project's skills (the named one among them); the
    # tools the skill declares it needs are lent to it by default_grant.
    RequestKind("skill"),
)


def _claimed_skills() -> frozenset[str]:
    return frozenset().union(*(kind.skills for kind in KINDS))


class IntentTools(NamedTuple):
    """What a recognised request gets: tools offered to the model, and tools lent to its skills only."""

    offered: list[str]
    lent: frozenset[str]


def matched_kinds(intent: Intent) -> list[RequestKind]:
    """The kinds of request the intent is (media words alone count only without a workflow)."""
    matched = [kind for kind in KINDS if kind.name in intent.kinds]
    if any(kind.skills for kind in matched):
        matched = [kind for kind in matched if not kind.alone]
    return matched


def intent_tools(manifest: Manifest, intent: Intent, *, local_edit: bool) -> IntentTools | None:
    """The tools a request needs the model to call, or None when its kind is not recognised (then: every tool).

    The tools its skills call are not offered: :func:`default_grant` lends those to the skills only.
    """
    if "question" in intent.kinds:
        return IntentTools([t.name for t in manifest.tools if t.name in READ_TOOLS or t.family == ToolFamily.MCP
                            and Effect.READ_ONLY in t.effects], frozenset())
    matched = matched_kinds(intent)
    if not matched and not local_edit:
        return None
    families = {ToolFamily.MCP}
    wanted: set[str] = set(CORE_CANVAS_TOOLS)
    if local_edit and {c.operation for c in intent.clauses} == {"edit"}:
        wanted = set(EDIT_TOOLS).union(*(kind.edit_skills for kind in matched))
    elif local_edit:
        # Redo along the lineage (mark_stale, regenerate_stale) rather than build anew.
        families |= {ToolFamily.CANVAS, ToolFamily.RECOVERY}
        wanted |= set().union(*(kind.edit_skills for kind in matched))
    else:
        if any(kind.all_canvas for kind in matched):
            families.add(ToolFamily.CANVAS)
        for kind in matched:
            families |= kind.families
            wanted |= kind.tools | kind.skills
    claimed = _claimed_skills()

    def chosen(tool: ToolInfo) -> bool:
        if tool.family == ToolFamily.SKILL:
            return tool.name in wanted or tool.name not in claimed
        return tool.family in families or tool.name in wanted

    offered = [t.name for t in manifest.tools if chosen(t)]
    lent = frozenset().union(*(kind.lends for kind in matched if kind.edit_skills & set(offered)))
    return IntentTools(offered, lent)


def content_tools(manifest: Manifest, intent: Intent) -> IntentTools:
    """The tools of the intent's page or deck operations, the read tools, and what the policy always keeps."""
    wanted = set(READ_TOOLS).union(*(OPERATION_TOOLS[c.operation] for c in intent.clauses))
    claimed = _claimed_skills()
    offered = [t.name for t in manifest.tools if t.name in wanted or t.family == ToolFamily.MCP
               or (t.family == ToolFamily.SKILL and t.name not in claimed)]
    return IntentTools(offered, frozenset())


def content_scope(intent: Intent) -> Scope:
    """What a page or deck operation may write: the page and what is made from it, or the deck with its slides,
    their contents and pictures (each target lists them in ``writes``)."""
    targets = [t for c in intent.clauses for t in c.targets]
    pages = [t.id for t in targets if t.kind == "code"]
    ids = [t.id for t in targets if t.kind in ("code", "deck")] + [i for t in targets for i in t.writes]
    return Scope(all_nodes=False, node_ids=list(dict.fromkeys(ids)), descendants_of=list(dict.fromkeys(pages)))


def focus_of(intent: Intent, selected: list[str]) -> list[str]:
    """The nodes a local edit is about: the selection, the ids written, and every target with its image and what
    an operation on it rewrites besides (``Target.writes``: a rejection's earlier versions made current again)."""
    ids = [*selected_nodes(selected), *intent.node_ids]
    for clause in intent.clauses:
        for target in clause.targets:
            ids += [target.id] + ([target.image_id] if target.image_id else []) + target.writes
    return list(dict.fromkeys(ids))


def default_grant(manifest: Manifest, intent: Intent, selected: list[str]) -> Grant:
    """The grant a turn gets when the caller names none, derived from the turn's intent.

    A chosen skill brings the tools it calls through the bridge (its declared needs: the bridge refuses a
    skill whose needs the grant neither holds nor lends); those the intent does not offer the model are
    lent to the skills only (``skill_only_tools``).
    """
    if intent.clarification is None and len({family_of(c.operation) for c in intent.clauses}) > 1:
        mixed = mixed_grant(manifest, intent, selected)
        if mixed is not None:
            return mixed
    versions = operation_grant(manifest, intent)
    if versions is not None:
        return versions
    scope = Scope()
    focus = focus_of(intent, selected)
    asked = intent.clarification.reason if intent.clarification is not None else None
    if asked == "ambiguous":  # the person picks one of the candidates: the scope holds them all
        focus += [i for c in intent.clarification.candidates for i in (c.get("id"), c.get("image_id")) if i]
    operations = {clause.operation for clause in intent.clauses}
    content = asked in (None, "ambiguous") and bool(operations) and operations <= CONTENT_OPERATIONS
    local_edit = not content and bool(focus) and asked in (None, "ambiguous") and bool(operations) \
        and operations <= LOCAL_OPERATIONS
    if local_edit:
        scope = Scope(all_nodes=False, node_ids=focus, descendants_of=focus)
    if content:
        scope = content_scope(intent)
    chosen = content_tools(manifest, intent) if content else intent_tools(manifest, intent, local_edit=local_edit)
    offered = set(chosen.offered) if chosen is not None else {t.name for t in manifest.tools}
    needs = {f"skill__{s.name}": s.needs_tools for s in manifest.skills}
    lent = {n for name in offered for n in needs.get(name, ())} | (chosen.lent if chosen is not None else set())
    lent -= offered

    def kept(names: set[str]) -> list[str]:
        return [t.name for t in manifest.tools
                if t.name in names and (intent.removal or Effect.DESTRUCTIVE not in t.effects)]

    return Grant(tools=kept(offered), skill_only_tools=kept(lent), scope=scope, approval_effects=[Effect.DESTRUCTIVE],
                 budget=build_budget(intent))


def mixed_grant(manifest: Manifest, intent: Intent, selected: list[str]) -> Grant | None:
    """The grant of a request whose clauses work on different kinds of output (a slide deleted and a shot's
    change undone): the union of each family's own smallest grant, tools and scope.  None when one family's
    part would get the whole canvas: then no part is narrowed."""
    parts = []
    for clauses in clauses_by_family(intent.clauses):
        kinds = list(dict.fromkeys(k for c in clauses for k in OPERATION_KINDS.get(c.operation, [])))
        part = default_grant(manifest, intent.model_copy(update={"clauses": clauses, "kinds": kinds}), selected)
        if part.scope.all_nodes:
            return None
        parts.append(part)

    def union(values: list[list[str]]) -> list[str]:
        return list(dict.fromkeys(v for value in values for v in value))

    tools = union([p.tools for p in parts])
    return Grant(tools=tools, skill_only_tools=[t for t in union([p.skill_only_tools for p in parts]) if t not in tools],
                 scope=Scope(all_nodes=False, node_ids=union([p.scope.node_ids for p in parts]),
                             descendants_of=union([p.scope.descendants_of for p in parts])),
                 approval_effects=[Effect.DESTRUCTIVE])


def operation_grant(manifest: Manifest, intent: Intent) -> Grant | None:
    """The grant of a request made of version and cut operations, or None for any other request.

    Each clause is one tool call; the grant offers those tools and the read tools, and its scope is the union of
    what the calls write (``Clause.modifications["scope"]``, from ``tools.write_scope``), so a restore, a reorder
    or an undo of a turn can change nothing else.  A clause never checked on the canvas (no recorded scope) gets
    no grant here: the default policy decides.
    """
    from nodes.understanding.on_canvas import OPERATIONS

    operations = {clause.operation for clause in intent.clauses}
    if intent.clarification is not None or not operations or not operations <= OPERATIONS:
        return None
    writes = operations - READ_ONLY_OPERATIONS
    node_ids: list[str] = []
    descendants: list[str] = []
    for clause in intent.clauses:
        if clause.operation in READ_ONLY_OPERATIONS or "already" in clause.modifications:
            continue
        scope = clause.modifications.get("scope")
        if scope is None:
            return None
        node_ids += scope.get("node_ids") or []
        descendants += scope.get("descendants_of") or []
    wanted = set(READ_TOOLS).union(*(OPERATION_TOOLS[op] for op in operations))
    claimed = _claimed_skills()

    def chosen(tool: ToolInfo) -> bool:
        if tool.family == ToolFamily.MCP:
            return bool(writes) or Effect.READ_ONLY in tool.effects
        if tool.family == ToolFamily.SKILL:
            return bool(writes) and tool.name not in claimed
        return tool.name in wanted

    offered = [t.name for t in manifest.tools if chosen(t) and Effect.DESTRUCTIVE not in t.effects]
    return Grant(tools=offered, scope=Scope(all_nodes=False, node_ids=list(dict.fromkeys(node_ids)),
                                            descendants_of=list(dict.fromkeys(descendants))),
                 approval_effects=[Effect.DESTRUCTIVE])
