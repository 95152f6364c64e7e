"""Every configured part that is missing or broken is one line, never a traceback (issue #23), and
``jarvishub memory`` uses the agent's own store.

* a bad ``[[mcp]]`` server disables only its own tools: ``tools`` and ``run`` work with the good server's tools,
  and ``status``, ``tools`` and ``run`` each say in one line which server is out and why;
* Postgres down (``JARVISHUB_CHECKPOINT_URL`` names a port nobody listens on): ``run`` and ``memory`` fail
  with one line naming it;
* with Postgres configured, ``jarvishub memory add`` writes where the agent reads (was: SQLite).
"""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability.engine_processes import cli_env, jarvishub, new_project, one_line

pytestmark = pytest.mark.long_file(40)

FIXTURE_SERVER = Path(__file__).resolve().parents[1] / "mcp" / "server_fixture.py"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Iterator[Path]:
    with new_project(tmp_path_factory.mktemp("one-line")) as made:
        yield made


def test_a_broken_mcp_server_disables_only_its_own_tools_and_says_so_in_one_line(project):
    settings = project / "jarvishub.toml"
    settings.write_text(settings.read_text() + f"""
[[mcp]]
name = "studio"
transport = "stdio"
command = "{sys.executable}"
args = ["{FIXTURE_SERVER}"]

[[mcp]]
name = "broken"
transport = "stdio"
command = "/nonexistent/mcp-server"
""")
    listed = jarvishub("-C", str(project), "tools", "--json")
    assert listed.returncode == 0, listed.stderr
    document = json.loads(listed.stdout)
    names = {tool["tool"] for tool in document["tools"]}
    assert "mcp__studio__palette_for" in names and not any(n.startswith("mcp__broken__") for n in names)
    assert set(document["mcp_unavailable"]) == {"broken"}
    assert "Traceback" not in listed.stderr

    said = "MCP server 'broken' is unavailable, its tools are disabled"
    text = jarvishub("-C", str(project), "tools")
    assert text.returncode == 0 and sum(said in line for line in text.stdout.splitlines()) == 1

    ran = jarvishub("-C", str(project), "run", "note: the studio's palette is warm")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert said in one_line(ran.stderr)

    status = jarvishub("-C", str(project), "status", "--json")
    assert status.returncode == 0
    assert "listing its tools failed" in json.loads(status.stdout)["mcp_unavailable"]["broken"]
    assert said in jarvishub("-C", str(project), "status").stdout


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("argv", [["run", "note: kept nowhere"], ["memory", "list"]])
def test_postgres_down_is_one_line(project, argv):
    env = cli_env(JARVISHUB_CHECKPOINT_URL=f"postgresql://jarvishub@127.0.0.1:{_closed_port()}/jarvishub")
    done = jarvishub("-C", str(project), *argv, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    line = one_line(done.stderr)
    assert "cannot connect to the Postgres server of JARVISHUB_CHECKPOINT_URL" in line


def test_memory_writes_where_the_agent_reads(project, postgres_url, monkeypatch):
    env = cli_env(JARVISHUB_CHECKPOINT_URL=postgres_url)
    added = jarvishub("-C", str(project), "memory", "add", "prefer warm lighting", "--json", env=env)
    assert added.returncode == 0, added.stderr
    key = json.loads(added.stdout)["key"]

    monkeypatch.setenv("JARVISHUB_CHECKPOINT_URL", postgres_url)
    from jarvishub.project import Project
    from jarvishub.runtime import Runtime

    with Project.open(project, follow_outputs=False) as opened:
        runtime = Runtime(opened)
        try:
            assert [item.key for item in runtime.memory.list()] == [key]  # what the agent's turns read
        finally:
            runtime.close()
    without = cli_env()
    without.pop("JARVISHUB_CHECKPOINT_URL")
    listed = jarvishub("-C", str(project), "memory", "list", "--json", env=without)  # the SQLite file
    assert key not in {item["key"] for item in json.loads(listed.stdout)["items"]}
