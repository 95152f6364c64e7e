"""The jarvishub command line, run as a real subprocess against a real project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jarvishub.cli import examples
from jarvishub.project import Project
from jarvishub.trajectory import PLACEHOLDER
from tests.cli_run import cli

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.long_file(30)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A project whose engine this test process keeps running, so each CLI process reuses it."""
    path = tmp_path_factory.mktemp("cli") / "film"
    done = cli("init", str(path), "--json", cwd=path.parent)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["engine"] == "arcadedb"
    with Project.open(path):
        yield path


def test_run_query_status_and_history(folder):
    ran = cli("-C", str(folder), "run", "note: the heroine's coat is red", "--json")
    assert ran.returncode == 0, ran.stderr
    outcome = json.loads(ran.stdout)
    assert outcome["outcome"] == "replied" and outcome["reply"].startswith("Added note")
    assert outcome["project"] == str(folder) and outcome["result"] == "done"
    started = json.loads(ran.stderr.strip().splitlines()[0])
    assert started == {"event": "turn_started", "project": str(folder), "thread_id": outcome["thread_id"]}

    rows = json.loads(cli("-C", str(folder), "query", "MATCH (n:CanvasNode) WHERE n.kind = $k RETURN n.title AS t",
                          "--param", "k=text", "--json").stdout)["rows"]
    assert rows == [{"t": "the heroine's coat is red"}]
    table = cli("-C", str(folder), "query", "MATCH (n:CanvasNode) RETURN n.title AS title")
    assert table.returncode == 0 and "heroine" in table.stdout and "1 row(s)" in table.stdout

    status = json.loads(cli("-C", str(folder), "status", "--json").stdout)
    assert status["by_kind"] == {"text": 1} and status["turns"] == 1
    assert set(status["code_sandbox"]) == {"available", "bwrap", "reason"}
    history = json.loads(cli("-C", str(folder), "history", "--json").stdout)
    assert history["project"] == str(folder) and history["unfinished"] == []
    turn = history["turns"][0]
    assert [a["tool"] for a in turn["actions"] if a.get("tool")] == ["create_node"]
    assert (turn["canvas_before"], turn["canvas_after"]) == (outcome["canvas_before"], outcome["canvas_after"])


def test_bad_input_gets_clear_errors_and_exit_codes(folder):
    refused = cli("-C", str(folder), "query", "MATCH (n) DETACH DELETE n")
    assert refused.returncode == 3 and "read-only" in refused.stderr
    syntax = cli("-C", str(folder), "query", "MATCH (n RETURN n")
    assert syntax.returncode == 2 and "could not parse" in syntax.stderr
    assert "  MATCH (n RETURN n\n" in syntax.stderr and "\n           ^" in syntax.stderr  # under the R of RETURN
    typo = cli("-C", str(folder), "query", "RETUR 1")  # no clause the lexer knows: the engine's parser answers
    assert typo.returncode == 2 and "could not parse" in typo.stderr and "\n  ^" in typo.stderr
    for flag, value in (("--limit", "-1"), ("--limit", "0"), ("--timeout", "-1"), ("--timeout", "nan")):
        refused_arg = cli("-C", str(folder), "query", "RETURN 1", flag, value)
        assert refused_arg.returncode == 2 and flag in refused_arg.stderr
    missing = cli("-C", str(folder / "nowhere"), "status")
    assert missing.returncode == 4 and "not a JarvisHub project" in missing.stderr
    bad_param = cli("-C", str(folder), "query", "RETURN 1", "--param", "novalue")
    assert bad_param.returncode == 2


def test_a_grant_profile_limits_the_turn(folder):
    before = json.loads(cli("-C", str(folder), "status", "--json").stdout)["canvas_version"]
    ran = cli("-C", str(folder), "run", "note: should not be written", "--grant", "read-only", "--json")
    assert ran.returncode == 3 and json.loads(ran.stdout)["result"] == "refused"
    assert "grant does not include" in json.loads(ran.stdout)["reply"]
    status = json.loads(cli("-C", str(folder), "status", "--json").stdout)
    assert status["by_kind"].get("text", 0) <= 1 and status["canvas_version"] == before + 1  # the Turn record only


def test_memory_and_trajectory_export(folder, tmp_path):
    added = cli("-C", str(folder), "memory", "add", "prefer", "warm", "lighting", "--json")
    assert added.returncode == 0, added.stderr
    item = json.loads(added.stdout)
    assert item["params"].get("lighting") == "warm"
    listed = json.loads(cli("-C", str(folder), "memory", "list", "--json").stdout)["items"]
    assert [i["key"] for i in listed] == [item["key"]]
    assert cli("-C", str(folder), "memory", "forget", item["key"]).returncode == 0
    assert json.loads(cli("-C", str(folder), "memory", "list", "--json").stdout)["items"] == []

    out = tmp_path / "turns.jsonl"
    exported = cli("-C", str(folder), "trajectory", "export", "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines and all("canvas_diff" in line for line in lines)
    assert PLACEHOLDER.match(lines[0]["request"])  # without --consent, no word of the request


EXAMPLES = examples()


@pytest.mark.parametrize("command", sorted(EXAMPLES))
def test_every_command_explains_itself_with_an_example(command):
    shown = cli(command, "--help")
    assert shown.returncode == 0 and "example:" in shown.stdout and EXAMPLES[command] in shown.stdout


HEAVY = ("langgraph", "neo4j", "PIL", "langchain_core", "pydantic_settings")


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["query", "RETURN 1", "--limit", "-1"], ["nope"]])
def test_help_and_argument_errors_load_nothing_heavy(argv):
    probe = ("import json, sys\nfrom jarvishub.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n"
             "    pass\nprint(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & set(%r))))" % (HEAVY,))
    done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


AGENT_STACK = ("langgraph", "langchain", "langchain_core", "langchain_openai", "PIL", "numpy")


def imported_modules(importtime_stderr: str) -> set[str]:
    """The top-level packages a ``python -X importtime`` process imported, from its report on stderr."""
    return {line.split("|")[-1].strip().split(".")[0] for line in importtime_stderr.splitlines()
            if line.startswith("import time:") and not line.rstrip().endswith("| imported package")}


@pytest.mark.parametrize("argv", [["status", "--json"],
                                  ["query", "MATCH (n:CanvasNode) RETURN count(n) AS n", "--json"]])
def test_status_and_query_load_neither_the_agent_stack_nor_pillow(folder, argv):
    """Reading the canvas needs the driver and the store, not LangGraph, LangChain, Pillow or numpy."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "jarvishub.cli", "-C", str(folder), *argv],
                          capture_output=True, text=True, timeout=240, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["project"] == str(folder)
    loaded = imported_modules(done.stderr)
    assert {"neo4j", "store", "pydantic"} <= loaded  # the report is real: the command read the canvas
    assert loaded.isdisjoint(AGENT_STACK), sorted(loaded & set(AGENT_STACK))


def test_a_command_collects_garbage_again_after_its_start(folder):
    """The collector is paused only while a command starts (commands/common.py: paused_gc), never for its run."""
    probe = ("import gc, json, sys\nfrom jarvishub.cli import main\ncode = main(sys.argv[1:])\n"
             "print(json.dumps({'code': code, 'enabled': gc.isenabled(), 'frozen': gc.get_freeze_count() > 0}))")
    done = subprocess.run([sys.executable, "-c", probe, "-C", str(folder), "status", "--json"], capture_output=True,
                          text=True, timeout=240, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"code": 0, "enabled": True, "frozen": True}
