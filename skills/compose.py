"""Build a new skill out of existing ones, without touching LangGraph: in sequence, over a list, or by choice.

Each function returns a :class:`~skills.base.Skill` whose graph is a
``StateGraph`` over :class:`~skills.base.SkillState`.  Its graph nodes run the
child skills with :meth:`Skill.run` under ``ctx.branch(...)``, so every child
step still goes through the bridge, with action ids that are deterministic
(parent action id + branch label + counter) and a grant narrowed to that
child's needs.  The composite's ``needs`` are the union of its children's.
A child's graph is its graph node's subgraph: ``get_graph(xray=True)`` draws it
inside the composite, and in a turn its events stream, and its state is
checkpointed, under ``skill__composite:<task>|step1_child:<task>``.

* :func:`sequence` runs skills one after another; each step's input is bound
  from the original input and the outputs so far.
* :func:`fan_out` runs one skill once per item of a list field, in parallel
  (LangGraph ``Send``), and collects the outputs in item order.
* :func:`choose` runs the one skill a condition on the input picks.
* :func:`parallel_map` is the building block under :func:`fan_out`: a skill from
  three plain functions (list the items, work one item, collect the results).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Annotated, Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from skills.base import Skill, SkillContext, SkillState, skill_context
from tools.base import Effect, ToolError

Bind = Callable[[Skill, dict[str, Any], dict[str, Any]], dict[str, Any]]
"""``bind(step, previous, original) -> step input``: ``previous`` merges every earlier step's output (later wins)."""


def by_name(step: Skill, previous: dict[str, Any], original: dict[str, Any]) -> dict[str, Any]:
    """The default binding: every field of the step's input found in the outputs so far or the original input."""
    return _fields_for(step, {**original, **previous})


def sequence(
    name: str,
    description: str,
    steps: list[Skill],
    bind: Bind = by_name,
    *,
    input_model: type[BaseModel] | None = None,
    output_model: type[BaseModel] | None = None,
) -> Skill:
    """A skill that runs ``steps`` in order, feeding each one from the original input and the outputs so far.

    Input model: the first step's unless given.  Output: every step's output
    merged (later steps win), validated by ``output_model`` (default: the last
    step's output model, so pass a wider model to keep earlier steps' fields).
    """
    if not steps:
        raise ValueError(f"sequence {name!r} needs at least one step")
    input_model = input_model or steps[0].input_model
    graph = StateGraph(SkillState)
    previous_node = START
    for index, step in enumerate(steps):
        node_name = f"step{index + 1}_{step.name}"
        graph.add_node(node_name, _sequence_step(name, index, step, bind, input_model))
        graph.add_edge(previous_node, node_name)
        previous_node = node_name
    graph.add_edge(previous_node, END)
    return Skill(name=name, description=description, input_model=input_model,
                 output_model=output_model or steps[-1].output_model, needs=_union_needs(steps),
                 graph=graph.compile(), effects=_union_effects(steps))


def _sequence_step(name: str, index: int, step: Skill, bind: Bind, input_model: type[BaseModel]):
    def run_step(state: SkillState, config: RunnableConfig) -> dict[str, Any]:
        _ = step.graph  # named here because LangGraph finds a node's subgraph among what its function refers to
        ctx = skill_context(config)
        merged = dict((state.get("scratch") or {}).get("merged") or {})
        original = input_model.model_validate(state["input"]).model_dump(mode="json")  # defaults included
        child_input = bind(step, merged, original)
        output = _run_child(ctx, f"{index + 1}-{step.name}", step, child_input, composite=name)
        merged.update(output)
        return {"scratch": {"merged": merged}, "output": merged}

    return run_step


def fan_out(
    name: str,
    description: str,
    skill: Skill,
    over: str,
    item_field: str,
    *,
    input_model: type[BaseModel] | None = None,
    output_model: type[BaseModel] | None = None,
) -> Skill:
    """A skill that runs ``skill`` once per item of the input's list field ``over``, in parallel.

    Each run gets the item as ``item_field`` plus the input's other fields the
    child takes.  Output: ``{"results": [child output, ...]}`` in item order.
    Input model (unless given): the child's fields without ``item_field``, plus
    ``over: list[<item_field's type>]``.
    """
    if item_field not in skill.input_model.model_fields:
        raise ValueError(f"{skill.name} has no input field {item_field!r}; its fields: "
                         f"{', '.join(skill.input_model.model_fields)}")
    input_model = input_model or _fan_out_input(name, skill, over, item_field)
    results_type = list[skill.output_model]  # type: ignore[name-defined]
    output_model = output_model or create_model(
        _model_name(name, "Output"), __doc__=f"What {name} returns: one {skill.name} output per item.",
        results=(results_type, Field(description=f"The outputs of {skill.name}, in item order.")))

    def items(ctx: SkillContext, inp: BaseModel) -> list[Any]:
        return list(getattr(inp, over))

    def work(ctx: SkillContext, inp: BaseModel, index: int, item: Any) -> dict[str, Any]:
        shared = {k: v for k, v in inp.model_dump(mode="json").items() if k != over}
        child_input = {**_fields_for(skill, shared), item_field: item}
        return skill.run(ctx, _child_input(name, skill, child_input)).model_dump(mode="json")

    return parallel_map(name=name, description=description, input_model=input_model, output_model=output_model,
                        needs=list(skill.needs), items=items, work=work,
                        collect=lambda inp, results: {"results": results},
                        label=lambda index, item: f"{skill.name}{index + 1}", actor=f"skill:{skill.name}",
                        effects=skill.effects, child=skill)


def choose(
    name: str,
    description: str,
    condition: Callable[[BaseModel], str],
    options: Mapping[str, Skill],
    *,
    input_model: type[BaseModel] | None = None,
    output_model: type[BaseModel] | None = None,
) -> Skill:
    """A skill that runs the option ``condition(input)`` names, with the input's fields that option takes.

    Input model: the options' shared input model unless given (options with
    different inputs need ``input_model``).  Output: ``{"choice": key, **the
    option's output}``; the default output model adds ``choice`` to the
    options' shared output model, or allows any fields when they differ.
    """
    if not options:
        raise ValueError(f"choose {name!r} needs at least one option")
    skills = list(options.values())
    if input_model is None:
        shared_inputs = {s.input_model for s in skills}
        if len(shared_inputs) != 1:
            raise TypeError(f"the options of {name!r} take different input models; pass input_model=")
        input_model = shared_inputs.pop()
    if output_model is None:
        shared_outputs = {s.output_model for s in skills}
        base = shared_outputs.pop() if len(shared_outputs) == 1 else None
        output_model = create_model(
            _model_name(name, "Output"), __base__=base or _OpenOutput,
            choice=(str, Field(description="Which option ran.")))
    nodes = {key: f"option{i + 1}" for i, key in enumerate(options)}
    chosen_input = input_model

    def route(state: SkillState) -> str:
        key = condition(chosen_input.model_validate(state["input"]))
        if key not in options:
            raise ToolError(f"{name}: the condition chose {key!r}, which is not one of: {', '.join(options)}")
        return nodes[key]

    graph = StateGraph(SkillState)
    for key, option in options.items():
        graph.add_node(nodes[key], _choice(name, key, option))
        graph.add_edge(nodes[key], END)
    graph.add_conditional_edges(START, route, list(nodes.values()))
    return Skill(name=name, description=description, input_model=input_model, output_model=output_model,
                 needs=_union_needs(skills), graph=graph.compile(), effects=_union_effects(skills))


def _choice(name: str, key: str, option: Skill):
    def run_option(state: SkillState, config: RunnableConfig) -> dict[str, Any]:
        _ = option.graph  # the node's subgraph, for LangGraph to find (see _sequence_step)
        output = _run_child(skill_context(config), key, option, _fields_for(option, state["input"]), composite=name)
        return {"output": {"choice": key, **output}}

    return run_option


class _OpenOutput(BaseModel):
    model_config = ConfigDict(extra="allow")


# -- the parallel building block ----------------------------------------------------------------------


class ParallelState(SkillState, total=False):
    """State of a :func:`parallel_map` graph: one branch's item, and every branch's result (a reducer)."""

    index: int
    item: Any
    results: Annotated[list[dict[str, Any]], operator.add]


def parallel_map(
    *,
    name: str,
    description: str,
    input_model: type[BaseModel],
    output_model: type[BaseModel],
    needs: list[str],
    items: Callable[[SkillContext, Any], list[Any]],
    work: Callable[[SkillContext, Any, int, Any], Any],
    collect: Callable[[Any, list[Any]], BaseModel | dict[str, Any]],
    label: Callable[[int, Any], str] = lambda index, item: f"item{index + 1}",
    actor: str | None = None,
    effects: frozenset[Effect] = frozenset({Effect.MUTATES_CANVAS}),
    child: Skill | None = None,
) -> Skill:
    """A skill that lists items, works each one in its own parallel branch (``Send``), then collects.

    ``items(ctx, input)`` returns JSON-able items; ``work(branch_ctx, input,
    index, item)`` runs in ``ctx.branch(label(index, item))`` and returns a
    JSON-able result; ``collect(input, results)`` gets the results in item
    order and returns the output.  ``child``: the skill ``work`` runs, if one, so
    that LangGraph draws its graph inside the ``work`` graph node (xray).
    """

    def list_items(state: ParallelState, config: RunnableConfig) -> dict[str, Any]:
        found = items(skill_context(config), input_model.model_validate(state["input"]))
        return {"scratch": {"items": list(found)}}

    def fan(state: ParallelState) -> list[Send] | str:
        found = (state.get("scratch") or {}).get("items") or []
        if not found:
            return "collect"
        return [Send("work", {"input": state["input"], "index": i, "item": item}) for i, item in enumerate(found)]

    def work_one(state: ParallelState, config: RunnableConfig) -> dict[str, Any]:
        _ = child.graph if child is not None else None  # the node's subgraph, for LangGraph (see _sequence_step)
        ctx = skill_context(config)
        index, item = state["index"], state["item"]
        branch = ctx.branch(label(index, item), actor=actor)
        try:
            value = work(branch, input_model.model_validate(state["input"]), index, item)
        finally:
            ctx.absorb(branch)
        return {"results": [{"index": index, "value": value}]}

    def collect_all(state: ParallelState) -> dict[str, Any]:
        ordered = [r["value"] for r in sorted(state.get("results") or [], key=lambda r: r["index"])]
        output = collect(input_model.model_validate(state["input"]), ordered)
        return {"output": output.model_dump(mode="json") if isinstance(output, BaseModel) else dict(output)}

    graph = StateGraph(ParallelState)
    graph.add_node("list_items", list_items)
    graph.add_node("work", work_one)
    graph.add_node("collect", collect_all)
    graph.add_edge(START, "list_items")
    graph.add_conditional_edges("list_items", fan, ["work", "collect"])
    graph.add_edge("work", "collect")
    graph.add_edge("collect", END)
    return Skill(name=name, description=description, input_model=input_model, output_model=output_model,
                 needs=list(needs), graph=graph.compile(), effects=effects)


# -- helpers -------------------------------------------------------------------------------------------


def _run_child(ctx: SkillContext, label: str, child: Skill, child_input: dict[str, Any], *,
               composite: str) -> dict[str, Any]:
    """Run a child skill in its own branch (its own action ids, a grant narrowed to its needs)."""
    payload = _child_input(composite, child, child_input)
    grant = ctx.bridge.narrow(ctx.grant, actor=f"skill:{child.name}", tools=child.needs)
    branch = ctx.branch(label, actor=f"skill:{child.name}", grant=grant)
    try:
        return child.run(branch, payload).model_dump(mode="json")
    finally:
        ctx.absorb(branch)


def _child_input(composite: str, child: Skill, data: dict[str, Any]) -> BaseModel:
    """The child's validated input; a binding that does not fit is an error the model sees, not a crash."""
    try:
        return child.input_model.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'input'}: {e['msg']}" for e in error.errors())
        raise ToolError(f"{composite}: the input bound for {child.name} is invalid: {problems}") from error


def _fields_for(skill: Skill, data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k in skill.input_model.model_fields}


def _fan_out_input(name: str, skill: Skill, over: str, item_field: str) -> type[BaseModel]:
    fields: dict[str, Any] = {k: (f.annotation, f) for k, f in skill.input_model.model_fields.items()
                              if k not in (item_field, over)}
    item_type = skill.input_model.model_fields[item_field].annotation
    fields[over] = (list[item_type], Field(min_length=1, description=f"One {skill.name} run per item."))  # type: ignore[valid-type]
    return create_model(_model_name(name, "Input"), __doc__=f"What {name} takes.", **fields)


def _union_needs(skills: list[Skill]) -> list[str]:
    return list(dict.fromkeys(tool for s in skills for tool in s.needs))


def _union_effects(skills: list[Skill]) -> frozenset[Effect]:
    return frozenset().union(*(s.effects for s in skills))


def _model_name(name: str, suffix: str) -> str:
    return "".join(part.capitalize() for part in name.replace("-", "_").split("_")) + suffix
