"""Every tool family of a project, with the services the tools need (generation, browser, MCP)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tools.base import ToolSpec
from tools.canvas import canvas_tools
from tools.reader import read_only
from tools.recovery import recovery_tools

if TYPE_CHECKING:
    from jarvishub.project import Project
    from nodes.manifest import SkillInfo


def project_tools(project: Project) -> tuple[list[ToolSpec], dict[str, Any], list[SkillInfo]]:
    """(tools, services, skills) for a project: canvas, recovery, generation, native, MCP and skill tools."""
    services: dict[str, Any] = {}
    tools: list[ToolSpec] = [*canvas_tools(), *recovery_tools()]
    from tools.generate.factory import build_generation_service
    from tools.generate.settings import generation_settings
    from tools.generate.tools import GENERATION_TOOLS

    from nodes.spend import PriceTable, SpendLedger

    gen_settings = generation_settings(project.settings)
    prices = PriceTable.for_project(project.settings.project, getattr(project.settings, "prices_file", None))
    services["generation"] = build_generation_service(gen_settings, project.artifacts, project.root, prices=prices)
    # Every paid call of the project's turns is charged here (nodes.spend): tokens, calls, cost.
    services["spend"] = SpendLedger(project.state_dir / "spend.sqlite", prices)
    services["spend"].estimates = services["generation"].estimates()
    tools.extend(GENERATION_TOOLS)

    from tools.native.code import sandbox_status
    from tools.native.tools import NATIVE_TOOLS, RUN_CODE

    # Agent code runs only in the OS sandbox: without bubblewrap the tool is not offered at all
    # (sandbox_status() says why, for `doctor`/`status`), never run unsandboxed.
    sandboxed = sandbox_status().available
    tools.extend(t for t in NATIVE_TOOLS if t is not RUN_CODE or sandboxed)

    mcp_servers = project.settings.project.get("mcp") or []
    if mcp_servers:
        from tools.mcp.config import McpServerConfig
        from tools.mcp.loader import load_mcp_tools

        tools.extend(load_mcp_tools([McpServerConfig.model_validate(s) for s in mcp_servers]))

    from skills.critique import EVALUATE_NODE, default_evaluator

    tools.append(EVALUATE_NODE)
    services["turn_extra"] = {"evaluator": default_evaluator(project.settings, read_only(project.store),
                                                             project.artifacts),
                              "spend": services["spend"]}

    from skills.registry import skill_tools

    skill_specs, skill_infos, skill_services = skill_tools(project)
    tools.extend(skill_specs)
    services.update(skill_services)
    return tools, services, skill_infos
