"""The tool menu of a model call: which of the grant's tools the model is sent the schemas of, shaped by the intent.

Every call pays for the schemas it binds (a grant of every tool is about 45 KB a call), so the model is offered
the tools the turn's intent needs, and told only the names of the other tools the grant holds:

* the tools the default grant policy gives this intent (``nodes.policy.default_grant``: a page edit's page
  tools, a story's skills, a question's reads), kept to those the turn's grant holds.  Under the default
  policy that is the grant itself; under a profile or a caller's grant that allows more (every tool, say), the
  menu is still the intent's;
* the canvas-read tools (``nodes.manifest.canvas_reading_tools``) only when the request asks a question, a
  reference is left unresolved (the interpreter asks which shot, or found none: then the reads are *all* it is
  offered, for a model should look and ask rather than act), or the request was not understood at all.  A
  resolved edit has its targets, their versions and what derives from them in the view; a turn that began on
  an empty canvas has nothing to read (its own tool results say what it made);
* every granted tool the model already called in this turn, or asked for with :data:`MORE_TOOLS`.

The grant does not change: the validate graph node checks each call against the grant, never against the menu.
A model can call only the tools it was sent the schemas of, so whenever granted tools are left off the menu the
call also binds :data:`MORE_TOOLS`, whose description names them: a model that needs one asks for it (one model
call) and is offered it from its next call on.  A model that calls a granted tool it was not offered anyway is
served as any granted call; a call outside the grant is refused as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from nodes.grant import Grant
from nodes.manifest import Manifest, canvas_reading_tools
from nodes.understanding.intent import Intent
from nodes.understanding.kinds import OPERATION_TOOLS, READ_ONLY_OPERATIONS

UNRESOLVED = frozenset({"no_target", "not_found", "ambiguous"})
"""Clarification reasons that leave a reference unresolved (which shot? none such): the model is offered the
reads, to look before it asks."""
MORE_TOOLS = "more_tools"
"""The menu's own tool, bound whenever granted tools are left off the menu: its description names them, and a
call of it (``{"names": [...]}``) has them offered from the model's next call of the turn on.  It is answered
by the propose graph node itself (it reads nor writes nothing), so it needs no grant: it can only offer tools
the grant already holds."""
_MORE_TOOLS_SAYS = "Offers granted tools: "


class ToolMenu(NamedTuple):
    """The tools a model call binds, and the granted ones it is only told the names of (manifest order)."""

    offered: list[str]
    named: list[str]


def wants_reads(intent: Intent) -> bool:
    """Whether the request needs the canvas-read tools: a question, a reference left unresolved, a request not
    understood, or an operation that is itself a read (list or compare versions)."""
    if intent.clarification is not None or not intent.clauses or "question" in intent.kinds:
        return True
    if any(c.operation in READ_ONLY_OPERATIONS or c.operation == "question" for c in intent.clauses):
        return True
    return any(r.missing or (r.candidates and not r.target_ids) for c in intent.clauses for r in c.references)


def intent_menu(manifest: Manifest, intent: Intent, selected: Sequence[str]) -> set[str]:
    """The tools the intent needs, whatever the grant: its operations' own tools, and what the default policy
    would grant it, without the canvas reads unless :func:`wants_reads`."""
    from nodes.policy import default_grant

    reads = set(canvas_reading_tools(manifest))
    asked = intent.clarification.reason if intent.clarification is not None else None
    if asked in UNRESOLVED:
        return reads
    policy = default_grant(manifest, intent, list(selected)).tools
    wanted = {t.name for t in manifest.tools} if policy is None else set(policy)
    if not wants_reads(intent):
        wanted -= reads
    # The tool an operation is carried out by stays, read or not ("compare versions 1 and 3").
    wanted |= {OPERATION_TOOLS[c.operation][0] for c in intent.clauses if c.operation in OPERATION_TOOLS}
    return wanted


def tool_menu(manifest: Manifest, grant: Grant, intent: Intent | None, *, selected: Sequence[str] = (),
              began_empty: bool = False, called: Iterable[str] = (), asked: Iterable[str] = ()) -> ToolMenu:
    """The menu of one model call under ``grant``: ``intent`` None (a turn with none) offers every granted tool;
    ``began_empty``: the turn began on an empty canvas (no reads, not even named); ``called``: the tools the
    model called so far in the turn; ``asked``: the tools it was given by :data:`MORE_TOOLS`."""
    granted = [t.name for t in manifest.tools if grant.allows_tool(t.name)]
    reads = set(canvas_reading_tools(manifest))
    wanted = set(granted) if intent is None else intent_menu(manifest, intent, selected)
    if began_empty:
        wanted -= reads
    wanted |= set(called) | set(asked)
    offered = [name for name in granted if name in wanted]
    named = [name for name in granted if name not in wanted and not (began_empty and name in reads)]
    return ToolMenu(offered, named)


def step_menu(manifest: Manifest, grant: Grant, intent: Intent | None, state: Mapping[str, Any]) -> ToolMenu:
    """:func:`tool_menu` of a step of the turn in ``state`` (its selection, where it began, its calls so far, the
    tools it asked for)."""
    from nodes.selection import selected_nodes

    before = state.get("canvas_before")
    called = [(step.get("action") or {}).get("tool") for step in state.get("steps") or []]
    return tool_menu(manifest, grant, intent, selected=selected_nodes(state.get("selected_ids") or []),
                     began_empty=before is not None and int(before) == 0, called=[c for c in called if c],
                     asked=[name for ask in state.get("menu_asks") or [] for name in ask.get("names") or []])


def more_tools_schema(menu: ToolMenu) -> dict[str, Any] | None:
    """The schema of :data:`MORE_TOOLS` for ``menu`` (None when every granted tool is offered).

    A model calls only the tools whose schemas it was sent (an OpenAI-compatible endpoint offers no other), so
    a granted tool left off the menu must be reachable by a call the model *can* make: this one."""
    if not menu.named:
        return None
    # Every call pays for this schema: the fewest words that say what it does, and no "required" (a call with no
    # names is answered with what it may ask for).
    return {"type": "function", "function": {
        "name": MORE_TOOLS, "description": _MORE_TOOLS_SAYS + ", ".join(menu.named),
        "parameters": {"type": "object", "properties": {"names": {"type": "array", "items": {"type": "string"}}}}}}


def named_tools(schemas: Iterable[Mapping[str, Any]]) -> set[str]:
    """The granted tools a call's :data:`MORE_TOOLS` schema names (how a model reads them back; none when the
    call was offered every granted tool)."""
    for schema in schemas:
        function = schema.get("function") or {}
        if function.get("name") == MORE_TOOLS:
            listed = str(function.get("description") or "").removeprefix(_MORE_TOOLS_SAYS)
            return {name.strip() for name in listed.split(",") if name.strip()}
    return set()


def answer_ask(menu: ToolMenu, asked: Any) -> tuple[list[str], str]:
    """The tools a :data:`MORE_TOOLS` call with arguments ``asked`` is given, and the answer the model reads
    (kept in the turn's state as ``menu_asks``, with the step it came before, so each later call shows it).

    Only granted tools left off the menu are given; a name the grant does not hold (or no list at all) is
    answered with what the model may ask for, so a confused model hears why rather than looping."""
    names = asked.get("names") if isinstance(asked, dict) else None
    wanted = [str(n) for n in names] if isinstance(names, list) else []
    given = [n for n in menu.named if n in wanted]
    refused = [n for n in wanted if n not in given and n not in menu.offered]
    parts = [f"offered from now on: {', '.join(given)}" if given else "nothing offered"]
    if refused:
        parts.append(f"not granted to this turn: {', '.join(refused)}")
    if not given:
        parts.append(f"you may ask for: {', '.join(menu.named)}")
    return given, "; ".join(parts)
