"""Every tool family of a project, with the services its tools need (generation, MCP).

This floor knows tools only: the evaluator tool and the project's skills are
added one floor up (``skills/catalog.py``), which is what the runtime calls.
"""

from __future__ import annotations

from typing import Any

from tools.base import ToolSpec
from tools.canvas import canvas_tools
from tools.project import ProjectParts
from tools.recovery import recovery_tools
from tools.version_tools import VERSION_TOOLS


def builtin_family_tools() -> list[ToolSpec]:
    """Every built-in tool of the families, whatever this machine has (the reference, ``docs/tools.md``).

    :func:`family_tools` offers these (less ``run_code`` without a sandbox) and a project's MCP tools, so the
    reference cannot leave out a tool a project offers.
    """
    from tools.cut import CUT_TOOLS
    from tools.deck import DECK_TOOLS
    from tools.generate.tools import GENERATION_TOOLS
    from tools.native.tools import NATIVE_TOOLS
    from tools.page import PAGE_TOOLS

    return [*canvas_tools(), *recovery_tools(), *VERSION_TOOLS, *GENERATION_TOOLS, *CUT_TOOLS, *NATIVE_TOOLS,
            *PAGE_TOOLS, *DECK_TOOLS]


def family_tools(project: ProjectParts) -> tuple[list[ToolSpec], dict[str, Any]]:
    """(tools, services) of a project's tool families (canvas, recovery, generation, native, MCP) and the spend
    ledger that every paid call of the project's turns is charged to."""
    services: dict[str, Any] = {}
    from tools.generate.factory import build_generation_service
    from tools.generate.settings import generation_settings

    from tools.spend import PriceTable, SpendLedger

    gen_settings = generation_settings(project.settings)
    prices = PriceTable.for_project(project.settings.project, getattr(project.settings, "prices_file", None))
    services["generation"] = build_generation_service(gen_settings, project.artifacts, project.root, prices=prices)
    # Every paid call of the project's turns is charged here (tools.spend): tokens, calls, cost.
    services["spend"] = SpendLedger(project.state_dir / "spend.sqlite", prices)
    services["spend"].estimates = services["generation"].estimates()

    from tools.native.code import sandbox_status
    from tools.native.tools import RUN_CODE

    # Agent code runs only in the OS sandbox: without bubblewrap the tool is not offered at all
    # (sandbox_status() says why, for `doctor`/`status`), never run unsandboxed.
    sandboxed = sandbox_status().available
    tools = [t for t in builtin_family_tools() if t is not RUN_CODE or sandboxed]

    mcp_servers = project.settings.project.get("mcp") or []
    if mcp_servers:
        from tools import mcp_health
        from tools.mcp.loader import load_available_mcp_tools

        # A server that cannot start or list disables its own tools only; `status` and `tools` say which.
        mcp_specs, services["mcp_unavailable"] = load_available_mcp_tools(mcp_servers)
        tools.extend(mcp_specs)
        mcp_health.record(project.state_dir, services["mcp_unavailable"])
    return tools, services
