"""A project's whole tool catalog: its tool families, the evaluator tool, and its skills as tools.

The runtime builds its registry and manifest from :func:`project_tools`.  It sits on the skill floor
because skills are tools whose ``run`` drives a skill graph; the tool families below it
(``tools/catalog.py``) know nothing of skills.
"""

from __future__ import annotations

from typing import Any

from nodes.manifest import Manifest, SkillInfo, build_manifest
from skills.critique import EVALUATE_NODE, default_evaluator
from skills.registry import builtin_skills, skill_info, skill_tool, skill_tools
from store.kinds import KindRegistry
from tools.base import ToolSpec
from tools.catalog import builtin_family_tools, family_tools
from tools.project import ProjectParts
from tools.reader import read_only


def project_tools(project: ProjectParts) -> tuple[list[ToolSpec], dict[str, Any], list[SkillInfo]]:
    """(tools, services, skills) of a project: canvas, recovery, generation, native, MCP, evaluator and skill tools.

    ``services["skill_problems"]`` lists the skill sources that failed to load (each disables only itself).
    """
    tools, services = family_tools(project)
    tools.append(EVALUATE_NODE)
    services["turn_extra"] = {"evaluator": default_evaluator(project.settings, read_only(project.store),
                                                             project.artifacts),
                              "spend": services["spend"]}
    skill_specs, skill_infos, skill_services = skill_tools(project, [t.name for t in tools])
    tools.extend(skill_specs)
    services.update(skill_services)
    return tools, services, skill_infos


def builtin_manifest() -> Manifest:
    """The manifest of a project with nothing of its own: every built-in tool and skill, and the default kinds.

    What ``docs/tools.md`` is generated from; a project's own manifest (``jarvishub tools --json``) adds its MCP
    tools and skills and leaves out ``run_code`` where bubblewrap cannot sandbox it.
    """
    from tools.registry import ToolRegistry

    skills = builtin_skills()
    tools = [*builtin_family_tools(), EVALUATE_NODE, *(skill_tool(s) for s in skills)]
    return build_manifest(KindRegistry.default(), ToolRegistry(tools), [skill_info(s) for s in skills])
