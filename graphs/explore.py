"""Parallel subagent explorations of one image node ("try four lighting moods").

The ``explore`` skill is a LangGraph ``StateGraph``:

``plan`` reads the explored node, parses the instruction into N variations,
opens every branch's ``group`` node ("branch i: <variation>", status running)
in one batch, and fans out with ``Send`` to the ``subagent`` subgraph once per
branch.  The branches run in parallel (``max_concurrency`` is raised to
:data:`MAX_BRANCHES`, so a small machine's default thread pool does not cap
them) and append their results to a reducer key (``results:
Annotated[list, operator.add]``), so parallel writes never collide.  Each
subagent works under its own grant, narrowed from the skill's
(``Grant.narrow(actor="subagent:<i>", ...)``, saved in the GrantStore) to
``generate_image`` on the explored node's lineage and its own group, and writes
only through the bridge:

* ``start``: narrow and save the subagent's grant;
* ``generate``: ``generate_image`` with the explored image's inputs (prompt,
  seed, references and their roles, lighting, palette, width, height, edit
  source) and the branch's change, ``version_of`` the explored node, so the
  candidate has a ``VERSION_OF`` edge to it; its pixels are measured;
* ``evaluate``: the critic's score of the candidate (``evaluate_node``), when
  the project has that tool and the turn grants it;
* ``fail``: an error of start or generate ends up here instead of in the
  siblings: the branch's group gets status ``failed`` and ``metadata.error``
  (message, step, branch), and holds the candidate if one was made.

``critique`` (the parent, once every branch is back) compares the completed
candidates, then writes one batch through the bridge: each candidate into its
group (``IN_GROUP``), each group completed, the best candidate ``selected`` and
the rest ``rejected`` (``set_status`` mutations; the reason, with the score,
lands in ``metadata.status_reason``).  The selection replaces the explored
image in the same batch, as any new version does: the explored image is
superseded, the selected one takes its title and is linked to what it was made
for (its shot), and what was made from the explored image (its clip, the cut)
is marked stale.  One commit, so nobody reads a half-marked set or two current
versions of one output.  Nothing is deleted: rejected candidates stay queryable.

``rebuild`` then regenerates what was marked (``regenerate_stale``, which takes
its inputs at their current version: the selected image), starting again when
another turn's commit replaced what it was rebuilding.  So an exploration ends
the same whoever asked for it: ``jarvishub explore``, a model calling
``skill__explore``, or the offline planner's "explore shot 3 ...".

Commits serialise on the canvas version counter, so the exploration makes as few
as it can: one to open the groups, two per branch (the generation, the
evaluation), one for the verdict, one for the rebuild.  That is what keeps N
branches close to one generation's latency.

Parsing the instruction (deterministic; ``n`` comes from the input, number words are ignored):

* **lighting** when it says light/lighting/lit/mood(s)/grade/relight or names a
  lighting preset as an edit names it (``nodes.models.grammar.LIGHTING_WORDS``: ``warm``, ``cold``/``cool``,
  ``dawn``, ``dusk``, ``night``, ``golden hour``, ``high-key``, ...): the named ones in order of mention, else
  warm, cold, night, high-key, neutral without the explored image's own lighting;
* otherwise **palette** when it says palette/colour(s)/colour scheme/recolour or
  names a palette of :data:`store.memory.NAMED_PALETTES`: named ones in order,
  else the table's order without the explored image's palette;
* otherwise **seed**: seed + 1, + 2, ... ("try four takes").

When there are more branches than choices, the choices repeat with the seed
raised by one per round ("warm, seed 8").  Lighting or palettes the project
memory rejected (``services["memory"]``, a :class:`store.memory.ProjectMemory`)
are left out unless the instruction names them.

Comparing (the critic): with ``evaluate_node`` scores for every candidate, the
highest score wins (the critic gets a grant of its own, narrowed from the turn's
grant to that one tool: a tool a project may lack cannot be a declared need of
the skill); its scores saturate, so ties are broken by the measurement below.
Without them, the measurement alone decides: brightness and warmth
(:func:`tools.generate.measure.image_stats`) and RMS luma contrast of each
candidate, against a target read from the instruction: ``warmest`` → highest
warmth, ``coldest``/``coolest`` → lowest warmth, ``brightest``/``lightest`` →
highest brightness, ``darkest``/``moodiest`` → lowest brightness,
``truest``/``most faithful``/``best match`` → the strongest shift toward the
branch's own mood, ``contrast``/``punchiest`` or nothing said → highest
contrast.  Remaining ties go to the lower branch index.
"""

from __future__ import annotations

import io
import operator
import re
import time
from collections.abc import Callable, Iterable
from typing import Annotated, Any, Literal, TypedDict

import numpy as np
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send
from PIL import Image
from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema

from nodes.actions import CanvasMutation
from nodes.bridge import EVALUATOR_TOOL, SubmitResult
from nodes.grant import Grant, Scope
from nodes.models.grammar import named_lighting
from nodes.verdicts import GrantDenied
from skills.base import Skill, SkillContext, SkillStepRejected, skill_context
from store.errors import CanvasError, is_engine_outage
from store.memory import NAMED_PALETTES
from store.models import CanvasNode, Direction, EdgeType, NodeStatus
from store.mutations import CreateNode, GroupNodes, Link, SetStatus, UpdateNode
from tools.base import ToolError
from tools.generate.measure import image_stats
from tools.staleness import stale_set
from tools.versions import NotHeadVersion, require_head


SKILL_NAME = "explore"
TOOL_NAME = "skill__explore"
MAX_BRANCHES = 16
SKILL_NEEDS = ["generate_image", "group_nodes", "set_status", "regenerate_stale"]
SUBAGENT_TOOLS = ["generate_image"]
SUBAGENT_KINDS = ["group", "image"]
MOODS = ("warm", "cold", "night", "high-key", "neutral")

Axis = Literal["lighting", "palette", "seed"]
BranchStatus = Literal["completed", "failed", "selected", "rejected"]

_LIGHTING_AXIS = re.compile(r"\b(?:light|lights|lighting|lit|mood|moods|grade|grades|grading|relight)\b")
_PALETTE_AXIS = re.compile(r"\b(?:palettes?|colou?rs?|colou?r schemes?|recolou?r)\b")
_CRITERIA: tuple[tuple[re.Pattern[str], str, Literal["max", "min"]], ...] = (
    (re.compile(r"\bwarm(?:er|est)\b|\bmost warm\b"), "warmth", "max"),
    (re.compile(r"\b(?:cold|cool)(?:er|est)\b|\bmost (?:cold|cool)\b"), "warmth", "min"),
    (re.compile(r"\b(?:bright|light)(?:er|est)\b|\bmost bright\b"), "brightness", "max"),
    (re.compile(r"\bdark(?:er|est)\b|\bmood(?:ier|iest)\b"), "brightness", "min"),
    (re.compile(r"\btruest\b|\bmost faithful\b|\bbest match(?:es)?\b|\bstrongest\b"), "mood_match", "max"),
    (re.compile(r"\bcontrast\w*\b|\bpunch(?:ier|iest)\b"), "contrast", "max"),
)
_SEED_LIMIT = 2**63 - 1


class ExploreError(ToolError):
    """The exploration cannot start: the node is not an image made from a prompt, or the input is unusable."""


class ExploreRejected(CanvasError):
    """The bridge turned the exploration down (unknown node, grant, budget); the message says why."""


class ExploreFailed(CanvasError):
    """The exploration ran and stopped with an error; the message says where."""


class InjectedFailure(RuntimeError):
    """A branch failing on purpose because its index is in ``fail_branches`` (tests of the failure path)."""


# -- the skill's schemas ----------------------------------------------------------------------------
class ExploreInput(BaseModel):
    """What to explore: a node, how many branches, and how they should differ."""

    node_id: str = Field(description="The image node to explore; every candidate is a new version of it.")
    n: int = Field(default=4, ge=1, le=MAX_BRANCHES, description="How many branches (subagents) to run in parallel.")
    instruction: str = Field(default="", max_length=2000,
                             description='How the branches differ, e.g. "try four lighting moods", '
                                         '"two palettes, pick the warmest", "four takes".')
    fail_branches: SkipJsonSchema[list[int]] = Field(
        default_factory=list, description="Test hook: branch indexes that fail on purpose.")


class BranchResult(BaseModel):
    """What one subagent did."""

    index: int
    label: str
    changes: dict[str, Any] = Field(description="The generation args this branch changed.")
    status: BranchStatus
    group_id: str | None = None
    candidate_id: str | None = None
    error: str | None = None
    failed_at: str | None = Field(default=None, description="The subagent step that failed.")
    score: float | None = None
    measures: dict[str, float] = Field(default_factory=dict)
    evaluation: dict[str, Any] | None = Field(default=None, description="evaluate_node's score and evaluation id.")
    elapsed_s: float = Field(default=0.0, description="The branch's own wall time.")


class FailedBranch(BaseModel):
    """A branch that failed, and where its failure is recorded on the canvas."""

    index: int
    label: str
    group_id: str | None
    error: str


class ExploreOutput(BaseModel):
    """The exploration's outcome: the groups, the candidates, the one selected and the failures."""

    explored_id: str = ""
    explored_title: str = Field(default="", description="The explored image's title, to name it to a person.")
    axis: str = ""
    criterion: str = Field(default="", description='What the critic compared, e.g. "highest contrast".')
    critic: str = Field(default="", description="evaluate_node, or measure (pixel statistics).")
    group_ids: list[str] = Field(default_factory=list)
    candidate_ids: list[str] = Field(default_factory=list)
    selected_id: str | None = None
    replaced_id: str | None = Field(default=None, description="The explored image the selected candidate superseded.")
    rebuilt: list[dict[str, Any]] = Field(
        default_factory=list, description="What was made from the explored image, rebuilt from the selected one "
                                          "(regenerate_stale's report: old id, new id, title).")
    failed: list[FailedBranch] = Field(default_factory=list)
    branches: list[BranchResult] = Field(default_factory=list)


class ExploreResult(ExploreOutput):
    """:func:`jarvishub.explore.explore`'s answer: the skill's output and the turn it ran as."""

    thread_id: str
    turn_id: str
    action_id: str
    provider_calls: int = 0
    cache_hits: int = 0


# -- parsing the instruction -----------------------------------------------------------------------
def plan_variations(instruction: str, n: int, base: dict[str, Any],
                    avoid: dict[str, list[str]] | None = None) -> tuple[Axis, list[dict[str, Any]]]:
    """The axis and ``n`` variations ``{"index", "label", "changes"}`` an instruction asks for (see module doc)."""
    text = " ".join(instruction.lower().split())
    avoid = avoid or {}
    named_moods = named_lighting(text)  # the edit grammar's presets: "at dawn, dusk and night" names three
    named_palettes = _named(text, {p: rf"\b{p}\b" for p in NAMED_PALETTES})
    seed = int(base.get("seed") or 0)
    # "recolour with the ocean and noir palettes": palettes named as palettes, though "noir" is a lighting word too.
    palettes_asked = bool(named_palettes) and bool(_PALETTE_AXIS.search(text))
    if not palettes_asked and (named_moods or _LIGHTING_AXIS.search(text)):
        current = base.get("lighting") or "neutral"
        choices = named_moods or _without([m for m in MOODS if m != current], avoid.get("lighting"))
        return "lighting", _rounds(n, seed, [(m, {"lighting": m}) for m in choices])
    if named_palettes or _PALETTE_AXIS.search(text):
        current = [c.lower() for c in base.get("palette") or []]
        names = named_palettes or _without([p for p in NAMED_PALETTES if NAMED_PALETTES[p] != current],
                                           avoid.get("palette"))
        return "palette", _rounds(n, seed, [(f"{p} palette", {"palette": list(NAMED_PALETTES[p])}) for p in names])
    return "seed", [{"index": i, "label": f"seed {_seed(seed, i + 1)}", "changes": {"seed": _seed(seed, i + 1)}}
                    for i in range(n)]


def choose_criterion(instruction: str, axis: str) -> tuple[str, Literal["max", "min"]]:
    """The measurement the critic compares and whether higher or lower wins (default: highest contrast)."""
    text = instruction.lower()
    for pattern, measure, direction in _CRITERIA:
        if pattern.search(text) and (measure != "mood_match" or axis == "lighting"):
            return measure, direction
    return "contrast", "max"


def _named(text: str, patterns: dict[str, str]) -> list[str]:
    hits = [(m.start(), name) for name, pattern in patterns.items() if (m := re.search(pattern, text))]
    return [name for _, name in sorted(hits)]


def _without(choices: list[str], avoided: Iterable[str] | None) -> list[str]:
    kept = [c for c in choices if c not in set(avoided or ())]
    return kept or choices


def _rounds(n: int, seed: int, choices: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    variations = []
    for i in range(n):
        label, changes = choices[i % len(choices)]
        extra = i // len(choices)
        if extra:
            changes = {**changes, "seed": _seed(seed, extra)}
            label = f"{label}, seed {changes['seed']}"
        variations.append({"index": i, "label": label, "changes": dict(changes)})
    return variations


def _seed(seed: int, offset: int) -> int:
    return (seed + offset) % (_SEED_LIMIT + 1)


def generation_args(node: CanvasNode) -> dict[str, Any]:
    """The ``generate_image`` args that remake an image node: its recorded inputs, references with their roles."""
    inputs = node.inputs
    if node.kind != "image" or not inputs.get("prompt"):
        raise ExploreError(f"node {node.id} is a {node.kind} node without a prompt; "
                           "explore works on image nodes made with generate_image")
    args = {k: inputs[k] for k in ("prompt", "seed", "lighting", "palette", "width", "height", "edit_node_id")
            if inputs.get(k) is not None}
    references: list[str] = []
    roles: dict[str, str] = {}
    for ref in inputs.get("references") or []:
        ref_id = ref.get("node_id") if isinstance(ref, dict) else ref
        if ref_id:
            references.append(ref_id)
            if isinstance(ref, dict) and ref.get("role"):
                roles[ref_id] = ref["role"]
    if references:
        args["references"] = references
    if roles:
        args["reference_roles"] = roles
    return args


# -- graph state -------------------------------------------------------------------------------------
class ExploreState(TypedDict, total=False):
    """The skill graph's state: SkillState plus the branches' results, appended in parallel."""

    input: dict[str, Any]
    output: dict[str, Any]
    scratch: dict[str, Any]
    results: Annotated[list[dict[str, Any]], operator.add]


class BranchState(TypedDict, total=False):
    """One subagent's state (its input is the ``Send`` payload)."""

    branch: dict[str, Any]
    explored_id: str
    explored_title: str
    base_args: dict[str, Any]
    base_measures: dict[str, float]
    critic_grant: dict[str, Any] | None
    instruction: str
    grant: dict[str, Any]
    started: float
    candidate_id: str
    measures: dict[str, float]
    error: str
    failed_at: str
    results: Annotated[list[dict[str, Any]], operator.add]


class BranchOutput(TypedDict):
    """What a subagent hands back to the parent: only its result (so siblings never write the same key)."""

    results: Annotated[list[dict[str, Any]], operator.add]


# -- the parent's nodes --------------------------------------------------------------------------------
def _plan(state: ExploreState, config: RunnableConfig) -> dict[str, Any]:
    ctx = skill_context(config)
    inp = ExploreInput.model_validate(state["input"])
    explored = ctx.canvas.get_node(inp.node_id)
    require_head(ctx.canvas, explored.id, turn_id=ctx.turn_id)  # exploring a replaced version would fork its output
    base = generation_args(explored)
    memory = ctx.services.get("memory")
    avoid = (memory.params_for_generation().get("avoid") or {}) if memory is not None else {}
    axis, variations = plan_variations(inp.instruction, inp.n, base, avoid)
    fail = set(inp.fail_branches)
    for variation in variations:
        variation["fail"] = variation["index"] in fail
    groups = _open_groups(ctx, explored.id, inp.instruction, variations)
    for variation in variations:
        variation["group_id"] = groups[variation["index"]]
    handle = next((h for h in explored.outputs if h.mime.startswith("image/")), None)
    critic = _critic_grant(ctx, explored.id)
    return {"scratch": {
        "explored_id": explored.id, "explored_title": explored.title, "base_args": base,
        "base_measures": pixel_measures(ctx.artifacts.read_bytes(handle)) if handle else {},
        "axis": axis, "criterion": list(choose_criterion(inp.instruction, axis)), "variations": variations,
        "critic_grant": critic.model_dump(mode="json") if critic else None,
    }}


def _open_groups(ctx: SkillContext, explored_id: str, instruction: str,
                 variations: list[dict[str, Any]]) -> dict[int, str]:
    """Every branch's ``group`` node, running, in one batch; ``{branch index: group id}``.

    The ids are read back from the commit, so a resumed turn (whose batch is replayed, not re-applied)
    finds the groups it made the first time.
    """
    opened = _submit(ctx, "groups", [
        CreateNode(kind="group", status=NodeStatus.RUNNING, title=_group_title(v),
                   inputs={"explores": explored_id, "branch": v["index"], "variation": v["label"],
                           "changes": v["changes"], "instruction": instruction},
                   metadata={"provenance": {"actor": ctx.actor, "tool": SKILL_NAME, "turn_id": ctx.turn_id}})
        for v in variations])
    made = ctx.canvas.get_nodes(opened.commit.node_ids if opened.commit else [])
    groups = {int(n.inputs["branch"]): n.id for n in made if n.kind == "group" and "branch" in n.inputs}
    if len(groups) != len(variations):
        raise SkillStepRejected(f"opening the branch groups made {len(groups)} of {len(variations)}; "
                                f"see commit {opened.commit.id if opened.commit else '(none)'}")
    return groups


def _fan_out(state: ExploreState) -> list[Send]:
    scratch = state["scratch"]
    shared = {k: scratch[k] for k in ("explored_id", "explored_title", "base_args", "base_measures", "critic_grant")}
    return [Send("subagent", {**shared, "branch": variation, "instruction": state["input"].get("instruction", "")})
            for variation in scratch["variations"]]


def _critique(state: ExploreState, config: RunnableConfig) -> dict[str, Any]:
    ctx = skill_context(config)
    scratch = state["scratch"]
    measure, direction = scratch["criterion"]
    branches = [BranchResult.model_validate(r) for r in sorted(state.get("results") or [], key=lambda r: r["index"])]
    done = [b for b in branches if b.status == "completed" and b.candidate_id]
    criterion = f"{'highest' if direction == 'max' else 'lowest'} {measure.replace('_', ' ')}"
    # The evaluator's scores count only if every candidate has one; they saturate, so the measurement breaks ties.
    evaluated = bool(done) and all(b.evaluation and b.evaluation.get("score") is not None for b in done)
    critic = EVALUATOR_TOOL if evaluated else "measure"
    if evaluated:
        criterion = f"highest evaluate_node score, then {criterion}"
    for branch in done:
        value = branch.measures.get(measure, branch.measures.get("contrast", 0.0))
        branch.measures["rank"] = round(value if direction == "max" else -value, 3)
        branch.score = round(float(branch.evaluation["score"]) if evaluated else value, 3)  # type: ignore[index]
    if done:
        compared = criterion
        for attempt in range(1, REBUILD_ATTEMPTS + 1):
            # The selection replaces the explored image: nothing is selected if another turn replaced it while the
            # branches ran, or while the verdict was written (its batch then fails on the versions it read).
            replaced = _replaced(ctx, scratch["explored_id"])
            best = None if replaced is not None else max(
                done, key=lambda b: (b.score if evaluated else 0.0, b.measures["rank"], -b.index))
            criterion = compared if best is not None else f"nothing selected: {replaced}"
            try:
                stale = _write_verdict(ctx, scratch["explored_id"], done, best, criterion,
                                       "verdict" if attempt == 1 else f"verdict-{attempt}")
                break
            except SkillStepRejected as refused:
                if refused.refused != "StaleVersion" or attempt == REBUILD_ATTEMPTS:
                    raise
        scratch = {**scratch, "stale": stale}
    output = ExploreOutput(
        explored_id=scratch["explored_id"], explored_title=scratch["explored_title"], axis=scratch["axis"],
        criterion=criterion, critic=critic,
        group_ids=[b.group_id for b in branches if b.group_id],
        candidate_ids=[b.candidate_id for b in done if b.candidate_id],
        selected_id=next((b.candidate_id for b in done if b.status == "selected"), None),
        failed=[FailedBranch(index=b.index, label=b.label, group_id=b.group_id, error=b.error or "")
                for b in branches if b.status == "failed"],
        branches=branches,
    )
    output.replaced_id = output.explored_id if output.selected_id else None
    return {"output": output.model_dump(mode="json"), "scratch": scratch}


def _write_verdict(ctx: SkillContext, explored_id: str, done: list[BranchResult], best: BranchResult | None,
                   criterion: str, label: str) -> list[str]:
    """Commit the verdict on every completed candidate, and the selection's replacement; the ids to rebuild.

    One batch: nobody ever reads a half-marked set (two selected, some unmarked, a candidate outside its group) or
    two current versions of the explored output.
    """
    verdicts: list[Any] = []
    stale: list[str] = []
    if best is not None:
        verdicts, stale = _replacement(ctx, explored_id, str(best.candidate_id))
    for branch in done:
        chosen = branch is best
        branch.status = "selected" if chosen else "rejected"
        candidate, group = branch.candidate_id or "", branch.group_id or ""
        verdicts += [
            GroupNodes(group_id=group, node_ids=[candidate]),
            SetStatus(node_id=group, status=NodeStatus.COMPLETED),
            SetStatus(node_id=candidate, status=NodeStatus.SELECTED if chosen else NodeStatus.REJECTED,
                      reason=(f"explore: {criterion} of {len(done)} candidates ({branch.score:g})" if chosen else
                              f"explore: {criterion}" if best is None else
                              f"explore: lost on {criterion} ({branch.score:g}) to {best.candidate_id} "
                              f"({best.score:g})")),
        ]
    _submit(ctx, label, verdicts)
    return stale


def _replacement(ctx: SkillContext, explored_id: str, selected_id: str) -> tuple[list[Any], list[str]]:
    """What selecting ``selected_id`` changes besides the verdict: (mutations, the nodes to rebuild).

    The selected candidate takes the explored image's place, as any new version does: the explored image is
    superseded (only if no other turn changed it since it was read: ``expected_version``), the selected one
    takes its title and is linked to what it was made for (its shot), and what was made from the explored one
    (its clip, the cut) is marked stale, to be rebuilt from the selected one.
    """
    explored = ctx.canvas.get_node(explored_id)
    made_for = ctx.canvas.neighbours(explored_id, [EdgeType.GENERATED_FROM], Direction.OUT)
    already = {n.node.id for n in ctx.canvas.neighbours(selected_id, [EdgeType.GENERATED_FROM], Direction.OUT)}
    derived = stale_set(ctx.canvas, explored_id)[1:]
    reason = f"made from {explored_id}, which {selected_id} replaced (selected in an exploration)"
    mutations: list[Any] = [
        SetStatus(node_id=explored_id, status=NodeStatus.REJECTED, expected_version=explored.version,
                  reason=f"superseded by {selected_id} (selected in an exploration)"),
        # It is that output now ("shot 2 image"), not a branch ("shot 2 image · warm": its group keeps the label).
        UpdateNode(node_id=selected_id, title=explored.title),
        *(Link(type=EdgeType.GENERATED_FROM, source=selected_id, target=n.node.id, properties=n.edge.properties)
          for n in made_for if n.node.id not in already),
        *(SetStatus(node_id=n.id, status=NodeStatus.STALE, reason=reason, expected_version=n.version)
          for n in derived),
    ]
    return mutations, [n.id for n in derived]


REBUILD_ATTEMPTS = 16
"""How often the verdict or the rebuild starts again when another turn's commit changed what it had read (as a
turn's ``regenerate_stale`` step does, ``nodes/commit.py``)."""


def _rebuild(state: ExploreState, config: RunnableConfig) -> dict[str, Any]:
    """Rebuild what was made from the explored image (its clip, the cut) from the selected candidate."""
    stale = (state.get("scratch") or {}).get("stale") or []
    if not stale:
        return {}
    ctx = skill_context(config)
    for attempt in range(1, REBUILD_ATTEMPTS + 1):
        try:
            rebuilt = ctx.call("regenerate_stale", node_ids=stale)
            break
        except SkillStepRejected as refused:
            if refused.refused != "StaleVersion" or attempt == REBUILD_ATTEMPTS:
                raise
    report = [r for r in rebuilt.get("regenerated") or [] if "new" in r]
    return {"output": {**state["output"], "rebuilt": report}}


def _replaced(ctx: SkillContext, explored_id: str) -> str | None:
    """Why the explored node can no longer be replaced by a candidate (a newer version from another turn), or None."""
    try:
        require_head(ctx.canvas, explored_id, turn_id=ctx.turn_id)
    except NotHeadVersion as replaced:
        return str(replaced)
    return None


def _critic_grant(ctx: SkillContext, explored_id: str) -> Grant | None:
    """The grant the per-candidate evaluations run under, or None when ``evaluate_node`` is absent or not granted.

    ``evaluate_node`` may be missing from a project, so it cannot be a declared need of the skill (a missing need
    makes the skill unavailable) and the skill's own grant never holds it.  The critic's grant is narrowed from the
    turn's grant the skill's was narrowed from, to that one tool: it can never exceed what the turn allowed.
    """
    if not ctx.bridge.has_tool(EVALUATOR_TOOL):
        return None
    if ctx.grant.allows_tool(EVALUATOR_TOOL):
        return ctx.grant
    try:
        turn_grant = ctx.bridge.grant(ctx.grant.parent_id) if ctx.grant.parent_id else None
    except GrantDenied:  # the skill was given a grant of its own, not one narrowed from the turn's
        return None
    if turn_grant is None or turn_grant.revoked or not turn_grant.lends_tool(EVALUATOR_TOOL):
        return None
    return ctx.bridge.narrow(turn_grant, actor="subagent:critic", tools=[EVALUATOR_TOOL],
                             scope=Scope(all_nodes=False, node_ids=[explored_id], descendants_of=[explored_id]))


def _submit(ctx: SkillContext, label: str, mutations: list[Any]) -> SubmitResult:
    """One batch of mutations through the bridge (validated, ticketed, committed once per action id)."""
    submitted = ctx.bridge.submit(
        CanvasMutation(action_id=f"{ctx.action_prefix}/{label}", actor=ctx.actor, mutations=mutations),
        ctx.grant, ctx.usage, thread_id=ctx.thread_id, turn_id=ctx.turn_id)
    if submitted.verdict != "allow":
        raise SkillStepRejected(f"{ctx.actor} could not write {label}: {submitted.message}",
                                refused=submitted.reason or submitted.verdict)
    return submitted


# -- a subagent's nodes -----------------------------------------------------------------------------------
def _start(state: BranchState, config: RunnableConfig) -> dict[str, Any]:
    ctx = skill_context(config)
    index, explored = state["branch"]["index"], state["explored_id"]
    started = time.perf_counter()
    try:
        group = state["branch"]["group_id"]
        grant = ctx.bridge.narrow(
            ctx.grant, actor=f"subagent:{index}", tools=SUBAGENT_TOOLS, node_kinds=SUBAGENT_KINDS,
            scope=Scope(all_nodes=False, node_ids=[explored, group], group_ids=[group], descendants_of=[explored]))
    except Exception as error:  # noqa: BLE001 - recorded by the fail node; a sibling must never see it
        if is_engine_outage(error):
            raise  # nothing could record it: the turn stops, and a resume runs the branch again
        return {"started": started, "error": _describe(error), "failed_at": "start"}
    return {"started": started, "grant": grant.model_dump(mode="json")}


def _step(name: str, work: Callable[[BranchState, SkillContext], dict[str, Any]]):
    """A subagent graph node: ``work`` with the subagent's context; an exception becomes ``error`` in state."""

    def node(state: BranchState, config: RunnableConfig) -> dict[str, Any]:
        parent = skill_context(config)
        step_ctx = _subagent_context(parent, state, name)
        try:
            return work(state, step_ctx)
        except Exception as error:  # noqa: BLE001 - recorded on the canvas, never raised into the siblings
            if is_engine_outage(error):
                raise  # nothing could record it: the turn stops, and a resume runs the branch again
            return {"error": _describe(error), "failed_at": name}
        finally:
            parent.absorb(step_ctx)

    return node


def _generate(state: BranchState, ctx: SkillContext) -> dict[str, Any]:
    branch = state["branch"]
    if branch.get("fail"):
        raise InjectedFailure(f"branch {branch['index']} was asked to fail (fail_branches)")
    title = f"{state['explored_title'] or 'image'} · {branch['label']}"
    made = ctx.call("generate_image", **{**state["base_args"], **branch["changes"],
                                         "version_of": state["explored_id"], "title": title})
    # Measured here, in parallel with the siblings, so the critique only compares numbers.
    measures = pixel_measures(ctx.artifacts.read_bytes(made["sha256"]), state.get("base_measures"),
                              branch["changes"].get("lighting"))
    return {"candidate_id": made["node_id"], "measures": measures}


def _evaluate(state: BranchState, config: RunnableConfig) -> dict[str, Any]:
    """The critic's look at this branch's candidate (``evaluate_node``), when the turn grants it.

    A refused or failed evaluation leaves the branch completed: the parent then compares by measurement.
    """
    evaluation = None
    if state.get("critic_grant"):
        parent = skill_context(config)
        critic = parent.branch(f"subagent-{state['branch']['index']}/evaluate", actor="subagent:critic",
                               grant=Grant.model_validate(state["critic_grant"]))
        try:
            seen = critic.call(EVALUATOR_TOOL, node_id=state["candidate_id"], criteria=state["instruction"])
            evaluation = {"score": _score_of(seen), "evaluation_id": seen.get("evaluation_id")}
        except Exception as error:  # noqa: BLE001 - the candidate stands; only the critic's opinion is missing
            if is_engine_outage(error):
                raise
            evaluation = {"score": None, "error": _describe(error)}
        finally:
            parent.absorb(critic)
    return {"results": [_result(state, "completed", evaluation=evaluation)]}


def _fail(state: BranchState, config: RunnableConfig) -> dict[str, Any]:
    parent = skill_context(config)
    ctx = _subagent_context(parent, state, "fail")
    branch, error = state["branch"], state.get("error") or "unknown error"
    group = branch["group_id"]
    detail = {"message": error, "step": state.get("failed_at"), "branch": branch["index"],
              "variation": branch["label"], "actor": ctx.actor}
    mutations: list[Any] = [UpdateNode(node_id=group, metadata_patch={"error": detail}),
                            SetStatus(node_id=group, status=NodeStatus.FAILED, reason=error[:500])]
    if state.get("candidate_id"):  # a candidate made before the failure stays with its branch
        mutations.append(GroupNodes(group_id=group, node_ids=[state["candidate_id"]]))
    try:
        _submit(ctx, "error", mutations)
    except Exception as record_error:  # noqa: BLE001 - keep the first error; say that recording it failed too
        error = f"{error} (and recording the failure failed: {_describe(record_error)})"
    finally:
        parent.absorb(ctx)
    return {"results": [_result(state, "failed", error=error)]}


def _group_title(branch: dict[str, Any]) -> str:
    return f"branch {branch['index']}: {branch['label']}"


def _subagent_context(parent: SkillContext, state: BranchState, step: str) -> SkillContext:
    index = state["branch"]["index"]
    grant = Grant.model_validate(state["grant"]) if state.get("grant") else parent.grant
    return parent.branch(f"subagent-{index}/{step}", actor=f"subagent:{index}", grant=grant)


def _result(state: BranchState, status: BranchStatus, *, error: str | None = None,
            evaluation: dict[str, Any] | None = None) -> dict[str, Any]:
    branch = state["branch"]
    return BranchResult(
        index=branch["index"], label=branch["label"], changes=branch["changes"], status=status,
        group_id=branch.get("group_id"), candidate_id=state.get("candidate_id"), error=error,
        failed_at=state.get("failed_at") if error else None, measures=state.get("measures") or {},
        evaluation=evaluation, elapsed_s=round(time.perf_counter() - state.get("started", time.perf_counter()), 4),
    ).model_dump(mode="json")


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def _score_of(observation: dict[str, Any]) -> float | None:
    score = observation.get("score")
    return float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else None


# -- measuring -----------------------------------------------------------------------------------------------
MEASURE_SIZE = 128
"""Images are box-reduced to about this many pixels a side before measuring: means are kept, and it is ~10x faster."""


def pixel_measures(png_bytes: bytes, base: dict[str, float] | None = None, mood: str | None = None
                   ) -> dict[str, float]:
    """Brightness and warmth (:func:`~tools.generate.measure.image_stats`) and RMS luma contrast of an image.

    With the explored image's measures as ``base`` and the branch's lighting ``mood``, also ``mood_match``:
    how far the image moved toward its mood (warm: warmth up, cold: warmth down, night: brightness down,
    high-key: brightness up, neutral: as little change as possible), in 0..255 levels.
    """
    with Image.open(io.BytesIO(png_bytes)) as image:
        rgb = image.convert("RGB")
    small = rgb.reduce(max(1, min(rgb.size) // MEASURE_SIZE))
    encoded = io.BytesIO()
    small.save(encoded, format="PNG", compress_level=1)
    stats = image_stats(encoded.getvalue())
    pixels = np.asarray(small, dtype=np.float64)
    luma = 0.299 * pixels[..., 0] + 0.587 * pixels[..., 1] + 0.114 * pixels[..., 2]
    measures = {"brightness": round(stats.mean_brightness, 3), "warmth": round(stats.warmth, 3),
                "contrast": round(float(luma.std()), 3)}
    if mood and base:
        d_warm = measures["warmth"] - base["warmth"]
        d_bright = measures["brightness"] - base["brightness"]
        shift = {"warm": d_warm, "cold": -d_warm, "night": -d_bright, "high-key": d_bright}
        measures["mood_match"] = round(shift.get(mood, -(abs(d_warm) + abs(d_bright))), 3)
    return measures


# -- the graphs ----------------------------------------------------------------------------------------------
def _route(next_node: str) -> Callable[[BranchState], str]:
    return lambda state: "fail" if state.get("error") else next_node


def build_subagent_graph():
    """One exploration branch: start → generate → evaluate; an error in start or generate → fail."""
    graph = StateGraph(BranchState, output_schema=BranchOutput)
    graph.add_node("start", _start)
    graph.add_node("generate", _step("generate", _generate))
    graph.add_node("evaluate", _evaluate)
    graph.add_node("fail", _fail)
    graph.add_edge(START, "start")
    graph.add_conditional_edges("start", _route("generate"), ["generate", "fail"])
    graph.add_conditional_edges("generate", _route("evaluate"), ["evaluate", "fail"])
    graph.add_edge("evaluate", END)
    graph.add_edge("fail", END)
    return graph.compile()


def build_explore_graph():
    """plan → Send × N → subagent (in parallel) → critique → rebuild."""
    graph = StateGraph(ExploreState)
    graph.add_node("plan", _plan)
    graph.add_node("subagent", build_subagent_graph())
    graph.add_node("critique", _critique)
    graph.add_node("rebuild", _rebuild)
    graph.add_edge(START, "plan")
    graph.add_conditional_edges("plan", _fan_out, ["subagent"])
    graph.add_edge("subagent", "critique")
    graph.add_edge("critique", "rebuild")
    graph.add_edge("rebuild", END)
    # The default thread pool has min(32, cpus + 4) workers: on a 2-CPU machine that caps 8 branches at 6.
    return graph.compile().with_config({"max_concurrency": MAX_BRANCHES})


EXPLORE_SKILL = Skill(
    name=SKILL_NAME,
    description=("Explore N variations of an image node in parallel (moods, palettes or seeds from the "
                 "instruction) as new versions; the best is selected, the rest rejected."),
    input_model=ExploreInput,
    output_model=ExploreOutput,
    needs=list(SKILL_NEEDS),
    graph=build_explore_graph(),
)
"""The ``explore`` skill (the tool ``skill__explore``), listed in :data:`skills.builtin.BUILTIN_SKILLS`."""
