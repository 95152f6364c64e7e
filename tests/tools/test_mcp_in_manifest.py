"""An MCP server named in a project's jarvishub.toml: its tools join the manifest and run only through the bridge."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from jarvishub.project import Project
from jarvishub.runtime import Runtime
from jarvishub.settings import PROJECT_FILE
from nodes.actions import ToolCall
from nodes.bridge import SubmitResult, Usage
from nodes.grant import Grant
from nodes.verdicts import Reject
from store.models import new_id
from tools.base import Effect, ToolFamily

SERVER = Path(__file__).parents[1] / "mcp" / "server_fixture.py"
TOOLS = {f"mcp__studio__{name}" for name in ("word_count", "palette_for", "make_swatch", "fail", "slow", "arrange")}


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    """A project whose file names the fixture server over stdio, opened as a person would after editing it."""
    root = tmp_path_factory.mktemp("mcp-project") / "p"
    Project.init(root).close()
    with open(root / PROJECT_FILE, "a") as project_file:
        project_file.write(
            "\n[[mcp]]\n"
            'name = "studio"\n'
            'transport = "stdio"\n'
            f"command = {json.dumps(sys.executable)}\n"
            f"args = [{json.dumps(str(SERVER))}]\n"
        )
    project = Project.open(root)
    running = Runtime(project)
    yield running
    running.close()
    project.close()


def submit(runtime: Runtime, tool: str, grant: Grant, **args: object) -> SubmitResult:
    action = ToolCall(action_id=new_id(), tool=tool, args=args)
    return runtime.bridge.submit(action, grant, Usage(), thread_id="t")


def blobs(runtime: Runtime) -> set[Path]:
    return {p for p in runtime.project.artifacts.root.rglob("*") if p.is_file()}


def test_the_manifest_lists_the_servers_tools_with_schemas_and_effects(runtime: Runtime):
    listed = {t.name: t for t in runtime.manifest.tools if t.family == ToolFamily.MCP}

    assert set(listed) == TOOLS
    word_count = listed["mcp__studio__word_count"]
    assert word_count.description == "Count the whitespace-separated words in a text."
    assert word_count.parameters["required"] == ["text"]
    assert word_count.parameters["properties"]["text"]["type"] == "string"
    assert listed["mcp__studio__arrange"].parameters["properties"]["mode"]["enum"] == ["grid", "row"]
    assert word_count.effects == [Effect.COST_BEARING]
    assert listed["mcp__studio__palette_for"].effects == [Effect.READ_ONLY]
    assert set(listed["mcp__studio__fail"].effects) == {Effect.COST_BEARING, Effect.DESTRUCTIVE}
    assert all(Effect.MUTATES_CANVAS not in t.effects for t in listed.values())
    # The canvas tools are still there beside them.
    assert runtime.manifest.tool("create_node") is not None


def test_an_mcp_tool_runs_through_the_bridge(runtime: Runtime):
    before = runtime.project.store.canvas_version()

    result = submit(runtime, "mcp__studio__word_count", runtime.grant_for("count the words"),
                    text="a moody blue poster")

    assert result.verdict == "allow", result
    assert result.observation["structured"] == {"result": 4}
    assert result.observation["content"] == [{"type": "text", "text": "4"}]
    assert result.provider_calls == 1
    assert result.commit is None and runtime.project.store.canvas_version() == before


def test_bad_arguments_for_an_mcp_tool_are_rejected_before_the_server_is_called(runtime: Runtime):
    action = ToolCall(action_id=new_id(), tool="mcp__studio__word_count", args={"text": 5})

    verdict = runtime.bridge.validate(action, runtime.grant_for("count the words"), Usage())

    assert isinstance(verdict, Reject) and verdict.reason == "bad_arguments"


def test_a_grant_without_the_tool_rejects_it_and_the_server_is_never_called(runtime: Runtime):
    grant = runtime.grants.save(Grant(tools=["read_node", "mcp__studio__word_count"]))
    stored_before, version_before = blobs(runtime), runtime.project.store.canvas_version()
    action = ToolCall(action_id=new_id(), tool="mcp__studio__make_swatch", args={"color": "#457b9d"})

    verdict = runtime.bridge.validate(action, grant, Usage())
    result = runtime.bridge.submit(action, grant, Usage(), thread_id="t")

    assert isinstance(verdict, Reject) and verdict.reason == "tool_not_granted"
    assert result.verdict == "reject" and "mcp__studio__make_swatch" in result.message
    assert result.observation == {} and result.commit is None and result.provider_calls == 0
    # A swatch the server made would be stored as an artifact: nothing was.
    assert blobs(runtime) == stored_before
    assert runtime.project.store.canvas_version() == version_before

    # The same call under a grant that has the tool does reach the server, and stores its image.
    allowed = submit(runtime, "mcp__studio__make_swatch", runtime.grant_for("make a swatch"), color="#457b9d")
    assert allowed.verdict == "allow" and allowed.observation["content"][0]["type"] == "image"
    assert len(blobs(runtime) - stored_before) == 1


def test_the_default_grant_leaves_out_a_destructive_mcp_tool(runtime: Runtime):
    action = ToolCall(action_id=new_id(), tool="mcp__studio__fail", args={})

    verdict = runtime.bridge.validate(action, runtime.grant_for("count the words"), Usage())

    assert isinstance(verdict, Reject) and verdict.reason == "tool_not_granted"
