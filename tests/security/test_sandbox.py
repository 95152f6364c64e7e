"""Agent code under run_code, with the bootstrap's string guard switched off, cannot reach the canvas.

The attack of issue #10: read ``.jarvishub/engine/engine.json`` (ports and the
root password), then talk to the engine over Bolt or HTTP.  Each attempt is
checked on the host first (the file is readable and the ports answer there), so
the failure inside shows the sandbox, not a missing target.
"""

from __future__ import annotations

from typing import Any

import json
import socket
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from jarvishub.runtime import Runtime
from nodes.actions import ToolCall
from nodes.bridge import Usage
from nodes.grant import Grant
from tests.security.canvas_state import fingerprint, seeded_runtime
from tests.system_tools import missing_system_tool, require_system_tool
from tools.native.code import CodeLimits, run_python, sandbox_status


@pytest.fixture(scope="module")
def project(own_engine_project: Any) -> Any:
    """Its tests attack the secrets and ports of the project's own engine."""
    return own_engine_project


ATTACK = """
    import json, os, socket, sys
    results = {}
    for path in PATHS:
        try:
            with open(path, "rb") as f:
                results["read " + path] = "READ " + str(len(f.read()))
        except OSError as error:
            results["read " + path] = "failed: " + type(error).__name__
    for port in PORTS:
        for host in ("127.0.0.1", "localhost", "::1"):
            try:
                with socket.create_connection((host, port), timeout=2) as s:
                    s.sendall(b"POST /api/v1/command/x HTTP/1.0\\r\\n\\r\\n")
                    results[f"connect {host}:{port}"] = "CONNECTED"
            except OSError as error:
                results[f"connect {host}:{port}"] = "failed: " + type(error).__name__
    results["processes"] = sorted(p for p in os.listdir("/proc") if p.isdigit())
    print(json.dumps(results))
"""


@pytest.fixture(autouse=True)
def _sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    require_system_tool("bwrap", apt="bubblewrap")
    status = sandbox_status()
    if not status.available:
        missing_system_tool(status.reason)
    monkeypatch.setenv("JARVISHUB_CODE_GUARD", "0")  # the string guard off: only the sandbox stands


@pytest.fixture(scope="module")
def runtime(project) -> Iterator[Runtime]:
    yield from seeded_runtime(project)


def _targets(project) -> tuple[list[str], list[int]]:
    """Secret files of the project and the engine's ports, each shown to be reachable from the host."""
    [engine_file] = list(project.state_dir.rglob("engine.json"))
    paths = [str(engine_file), *(str(p) for p in project.state_dir.glob("*.sqlite"))]
    assert all(Path(p).read_bytes() for p in paths[:1])  # the harness can read them
    info = json.loads(engine_file.read_text())
    ports = [int(info[k]) for k in ("bolt_port", "http_port") if info.get(k)]
    assert ports, info.keys()
    for port in ports:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()  # the host reaches them
    relative = [f"../../../.jarvishub/{Path(p).relative_to(project.state_dir)}" for p in paths]
    return paths + relative, ports


def _attack(project) -> str:
    paths, ports = _targets(project)
    return f"PATHS = {paths!r}\nPORTS = {ports!r}\n" + textwrap.dedent(ATTACK)


def _assert_refused(stdout: str) -> None:
    results = json.loads(stdout.strip().splitlines()[-1])
    processes = results.pop("processes")
    assert len(processes) <= 3, processes  # its own pid namespace: bwrap's init, the snippet
    leaked = {k: v for k, v in results.items() if not v.startswith("failed")}
    assert leaked == {}
    assert len(results) >= 4


def test_agent_code_reads_no_engine_secret_and_reaches_no_engine_port(runtime) -> None:
    project = runtime.project
    before = fingerprint(project.store)
    run = run_python(_attack(project), project.workspace, project.artifacts, CodeLimits(guard=False, timeout_s=60))
    assert run.ok, run.stderr
    _assert_refused(run.stdout)
    assert fingerprint(project.store) == before


def test_through_the_bridge_the_only_change_is_the_code_node(runtime) -> None:
    project = runtime.project
    before = fingerprint(project.store)
    grant = runtime.grants.save(Grant())
    result = runtime.bridge.submit(ToolCall(action_id="attack", tool="run_code", args={"source": _attack(project)}),
                                   grant, Usage(), thread_id="attack")
    assert result.verdict == "allow" and result.observation["exit_code"] == 0, result.observation
    _assert_refused(result.observation["stdout"])
    after = fingerprint(project.store)
    assert result.commit is not None and after["commits"] == before["commits"] + 1
    made = set(result.commit.node_ids)
    assert [n for n in after["nodes"] if n[0] not in made] == before["nodes"]  # every other node untouched
    assert {project.store.get_node(i).kind for i in made} == {"code"}


def test_without_bwrap_run_code_is_not_offered_and_never_runs_unsandboxed(runtime, monkeypatch, tmp_path) -> None:
    from skills.catalog import project_tools
    from tools.native.code import SandboxUnavailable

    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH with no bwrap on it
    sandbox_status.cache_clear()
    try:
        status = sandbox_status()
        assert not status.available and "apt-get install bubblewrap" in status.reason
        tools, _, _ = project_tools(runtime.project)
        assert "run_code" not in {t.name for t in tools} and "read_file" in {t.name for t in tools}
        with pytest.raises(SandboxUnavailable, match="bubblewrap"):
            run_python("open('escaped', 'w').write('x')", runtime.project.workspace, runtime.project.artifacts)
        assert not list(runtime.project.workspace.rglob("escaped"))
    finally:
        monkeypatch.undo()
        sandbox_status.cache_clear()
    assert sandbox_status().available
