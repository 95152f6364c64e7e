"""Fixtures: the fixture MCP server reached over stdio and over streamable HTTP, loaded once per session.

The tool tests take ``fixture_tools`` and so run once per transport: the same
assertions hold whether the server is a child process or an HTTP endpoint.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from store.artifacts import LocalArtifactStore
from tools.base import ToolContext, ToolSpec
from tools.mcp import McpServerConfig, load_mcp_tools

SERVER = Path(__file__).with_name("server_fixture.py")
SERVER_NAME = "studio"


def _stdio_config(**overrides: object) -> McpServerConfig:
    fields: dict[str, object] = {
        "name": SERVER_NAME,
        "transport": "stdio",
        "command": sys.executable,
        "args": [str(SERVER)],
    }
    return McpServerConfig.model_validate({**fields, **overrides})


@pytest.fixture
def stdio_config() -> Callable[..., McpServerConfig]:
    """Build the fixture server's stdio config, as a project config would name it, with fields overridden."""
    return _stdio_config


@pytest.fixture(scope="session")
def http_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start the fixture server over streamable HTTP on a free loopback port; yield its MCP endpoint."""
    port = _free_port()
    log = tmp_path_factory.mktemp("mcp-http") / "server.log"
    with open(log, "wb") as sink:
        process = subprocess.Popen(
            [sys.executable, str(SERVER), "--http", str(port)], stdout=sink, stderr=subprocess.STDOUT
        )
    try:
        _wait_for_port(port, process, log)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="session", params=["stdio", "streamable_http"])
def fixture_config(request: pytest.FixtureRequest) -> McpServerConfig:
    """The fixture server's config, once per transport."""
    if request.param == "stdio":
        return _stdio_config()
    url = request.getfixturevalue("http_url")
    return McpServerConfig(name=SERVER_NAME, transport="streamable_http", url=url)


@pytest.fixture(scope="session")
def fixture_tools(fixture_config: McpServerConfig) -> dict[str, ToolSpec]:
    """The fixture server's tools, loaded through the loader, by manifest name."""
    return {spec.name: spec for spec in load_mcp_tools([fixture_config])}


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    """A tool context with a local artifact store in the test's own folder."""
    return ToolContext(artifacts=LocalArtifactStore(tmp_path), workspace=tmp_path)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for_port(port: int, process: subprocess.Popen[bytes], log: Path, limit_s: float = 15.0) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"fixture HTTP server exited with {process.returncode}:\n{log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"fixture HTTP server did not listen on 127.0.0.1:{port} within {limit_s} s")
