"""Where skills come from: the built-ins, the project file, and the ``jarvishub.skills`` entry point group.

Each skill becomes a tool ``skill__<name>`` (family ``skill``) whose ``requires``
are the skill's needs, so a grant that lacks any of them makes the skill
unavailable that turn, and it is listed under ``skills`` in the manifest.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from nodes.bridge import Usage
from nodes.manifest import SkillInfo
from nodes.ports import BridgePort
from skills.base import Skill, SkillContext
from tools.base import ToolContext, ToolError, ToolFamily, ToolResult, ToolSpec

if TYPE_CHECKING:
    from jarvishub.project import Project

ENTRY_POINT_GROUP = "jarvishub.skills"
TOOL_PREFIX = "skill__"


def builtin_skills() -> list[Skill]:
    """The skills JarvisHub ships."""
    from skills.builtin import BUILTIN_SKILLS

    return list(BUILTIN_SKILLS)


def _load(reference: str) -> Skill:
    module_name, _, attribute = reference.partition(":")
    value = getattr(importlib.import_module(module_name), attribute)
    skill = value() if callable(value) and not isinstance(value, Skill) else value
    if not isinstance(skill, Skill):
        raise TypeError(f"{reference} is not a Skill")
    return skill


def discover_skills(project_config: dict[str, Any]) -> list[Skill]:
    """Built-ins, then entry points, then ``[skills] load = ["module:attr", ...]`` of the project file."""
    found = {s.name: s for s in builtin_skills()}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        skill = _load(entry.value)
        found[skill.name] = skill
    for reference in (project_config.get("skills") or {}).get("load", []):
        skill = _load(reference)
        found[skill.name] = skill
    return list(found.values())


def run_skill_tool(skill: Skill, ctx: ToolContext, args: BaseModel) -> ToolResult:
    """Run a skill invoked as a tool: a narrowed grant, the parent's budget, every step through the bridge."""
    bridge = ctx.services.get("bridge")
    if not isinstance(bridge, BridgePort) or bridge.root_grant_id is None:
        raise ToolError(f"skill {skill.name} must be run through the bridge")
    grant = bridge.narrow(bridge.root_grant_id, actor=f"skill:{skill.name}", tools=skill.needs)
    usage = ctx.services.get("usage") or Usage()
    skill_ctx = SkillContext(
        bridge=bridge, grant=grant, usage=usage, thread_id=ctx.thread_id or "", turn_id=ctx.turn_id,
        action_prefix=f"{ctx.services.get('action_id') or ctx.turn_id}/{skill.name}", actor=f"skill:{skill.name}",
        services={**ctx.services, "artifacts": ctx.artifacts, "workspace": ctx.workspace}, progress=ctx.progress)
    output = skill.run(skill_ctx, args)
    return ToolResult(observation={"skill": skill.name, **output.model_dump(mode="json")},
                      provider_calls=skill_ctx.provider_calls, cache_hits=skill_ctx.cache_hits)


def skill_tool(skill: Skill) -> ToolSpec:
    """The tool through which an agent invokes a skill."""
    return ToolSpec(
        name=TOOL_PREFIX + skill.name,
        family=ToolFamily.SKILL,
        description=skill.description,
        args_schema=skill.input_model,
        effects=skill.effects,
        run=lambda ctx, args, _skill=skill: run_skill_tool(_skill, ctx, args),
        requires=frozenset(skill.needs),
    )


def skill_info(skill: Skill) -> SkillInfo:
    """How the manifest lists a skill."""
    return SkillInfo(name=skill.name, description=skill.description,
                     input_schema=skill.input_model.model_json_schema(),
                     output_schema=skill.output_model.model_json_schema(), needs_tools=list(skill.needs))


def skill_tools(project: Project) -> tuple[list[ToolSpec], list[SkillInfo], dict[str, Any]]:
    """Tools and manifest entries for every skill the project has."""
    skills = discover_skills(project.settings.project)
    return [skill_tool(s) for s in skills], [skill_info(s) for s in skills], {"skills": {s.name: s for s in skills}}
