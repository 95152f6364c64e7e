"""Calling a tool the way an agent does in the content tests: a ``ToolCall`` through ``Bridge.submit``."""

from __future__ import annotations

from typing import Any

from jarvishub.runtime import Runtime
from nodes.actions import ToolCall
from nodes.bridge import SubmitResult, Usage
from nodes.grant import Grant
from store.models import new_id


def submit(runtime: Runtime, tool: str, grant: Grant | None = None, **args: Any) -> SubmitResult:
    """One tool call under ``grant`` (default: every tool on the whole canvas), whatever its verdict."""
    granted = runtime.grant_for(f"use {tool}", grant=grant or Grant())
    return runtime.bridge.submit(ToolCall(action_id=new_id(), tool=tool, args=args), granted, Usage(),
                                 thread_id=f"content-{tool}")


def call(runtime: Runtime, tool: str, **args: Any) -> dict[str, Any]:
    """One tool call that must succeed; its observation."""
    result = submit(runtime, tool, **args)
    assert result.verdict == "allow" and "error" not in result.observation, result
    return result.observation
