"""Fixtures of the skill tests: a real project (embedded store over Bolt, offline providers) driven like an agent."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest

from jarvishub.project import Project
from jarvishub.runtime import Runtime
from nodes.actions import ToolCall
from nodes.bridge import SubmitResult, Usage
from nodes.grant import Grant
from store.models import EdgeType, new_id
from store.neo4j import Neo4jCanvasStore


class Agent:
    """Calls tools and skills the way an agent does: ``ToolCall`` actions through ``Bridge.submit`` under a grant."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.thread_id = new_id()

    @property
    def store(self) -> Neo4jCanvasStore:
        """The project's canvas (for reading in assertions)."""
        return self.runtime.project.store

    def submit(self, tool: str, args: dict[str, Any], *, grant: Grant | None = None,
               action_id: str | None = None) -> SubmitResult:
        """One action, whatever its verdict."""
        granted = self.runtime.grant_for(f"use {tool}", grant=grant)
        action = ToolCall(action_id=action_id or new_id(), tool=tool, args=args)
        return self.runtime.bridge.submit(action, granted, Usage(), thread_id=self.thread_id)

    def call(self, tool: str, **args: Any) -> dict[str, Any]:
        """One action that must succeed; its observation."""
        result = self.submit(tool, args)
        assert result.verdict == "allow" and "error" not in result.observation, result
        return result.observation

    def targets(self, node_id: str, edge: EdgeType) -> list[str]:
        """Ids of the nodes ``node_id`` points at over ``edge``."""
        return [n.node.id for n in self.store.neighbours(node_id, [edge])]


@contextmanager
def _running(root: Path, project_file: str | None = None,
             configure: Callable[[Project], dict[str, Any]] | None = None) -> Iterator[Agent]:
    root.mkdir(parents=True, exist_ok=True)
    if project_file is not None:
        (root / "jarvishub.toml").write_text(project_file)
    project = Project.init(root, media_provider="offline", openai_api_key=None)
    runtime = None
    try:
        runtime = Runtime(project, **(configure(project) if configure else {}))
        yield Agent(runtime)
    finally:
        if runtime is not None:
            runtime.close()
        project.close()


@pytest.fixture(scope="session")
def start_agent() -> Callable[..., AbstractContextManager[Agent]]:
    """``with start_agent(folder, project_file=None, configure=None) as agent:`` a running project.

    ``configure(project)`` returns extra ``Runtime`` keyword arguments (tools, services).
    """
    return _running
