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
* every granted tool the model already called in this turn (it asked for it: from then on it has the schema).

The grant does not change: the validate graph node checks each call against the grant, never against the menu.
So a model that needs a tool it was not offered calls it by name (:func:`more_tools_line` lists them in the
system message) and is served; a call outside the grant is refused as before.
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
MORE_TOOLS = "Also granted (call by name; its schema comes with the next call): "
"""How the system message names the granted tools the model was not offered (the offline planner reads it)."""


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
              began_empty: bool = False, called: Iterable[str] = ()) -> ToolMenu:
    """The menu of one model call under ``grant``: ``intent`` None (a turn with none) offers every granted tool;
    ``began_empty``: the turn began on an empty canvas (no reads, not even named); ``called``: the tools the
    model called so far in the turn."""
    granted = [t.name for t in manifest.tools if grant.allows_tool(t.name)]
    reads = set(canvas_reading_tools(manifest))
    wanted = set(granted) if intent is None else intent_menu(manifest, intent, selected)
    if began_empty:
        wanted -= reads
    wanted |= set(called)
    offered = [name for name in granted if name in wanted]
    named = [name for name in granted if name not in wanted and not (began_empty and name in reads)]
    return ToolMenu(offered, named)


def step_menu(manifest: Manifest, grant: Grant, intent: Intent | None, state: Mapping[str, Any]) -> ToolMenu:
    """:func:`tool_menu` of a step of the turn in ``state`` (its selection, where it began, its calls so far)."""
    from nodes.selection import selected_nodes

    before = state.get("canvas_before")
    called = [(step.get("action") or {}).get("tool") for step in state.get("steps") or []]
    return tool_menu(manifest, grant, intent, selected=selected_nodes(state.get("selected_ids") or []),
                     began_empty=before is not None and int(before) == 0, called=[c for c in called if c])


def more_tools_line(menu: ToolMenu) -> str:
    """The system message's line naming the granted tools not offered ("" when every one is)."""
    return MORE_TOOLS + ", ".join(menu.named) if menu.named else ""


def named_tools(system_text: str) -> set[str]:
    """The tool names :func:`more_tools_line` wrote into a system message (how a model reads them back)."""
    for line in system_text.splitlines():
        if line.startswith(MORE_TOOLS):
            return {name.strip() for name in line[len(MORE_TOOLS):].split(",") if name.strip()}
    return set()
