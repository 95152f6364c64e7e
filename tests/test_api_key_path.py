"""A user with ``OPENAI_API_KEY`` in the environment runs turns through the CLI, as they would type them.

Settings objects injected into tests are not the user's path: a key read from the environment once reached
the OpenAI SDK client as a plain string and crashed every turn while the suite was green.  These tests set the
key (and ``OPENAI_BASE_URL`` pointing at a loopback server that speaks the chat-completions API) in a real
``jarvishub`` subprocess's environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jarvishub.project import Project
from tests.bridge.openai_chat_server import ScriptedChatServer
from tests.cli_run import ROOT, cli


def keyed_cli(base_url: str, *args: str, media: str | None = None) -> subprocess.CompletedProcess:
    """``jarvishub ARGS`` with an API key and an OpenAI-compatible endpoint in the environment."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-loopback-test", "OPENAI_BASE_URL": base_url}
    env.pop("JARVISHUB_MEDIA_PROVIDER", None)
    if media is not None:
        env["JARVISHUB_MEDIA_PROVIDER"] = media
    return subprocess.run([sys.executable, "-m", "jarvishub.cli", *args], capture_output=True, text=True,
                          timeout=240, env=env)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    path = tmp_path_factory.mktemp("keyed") / "notes"
    done = cli("init", str(path), "--json", cwd=path.parent)
    assert done.returncode == 0, done.stderr
    with Project.open(path):
        yield path


def test_a_key_in_the_environment_runs_a_turn(folder):
    """With the key set (media auto: the OpenAI providers are built too), a note is a turn that exits 0.
    A key with ``JARVISHUB_MEDIA_PROVIDER=offline`` is ``tests/providers/test_configurations.py``'s."""
    text = "the key path works"
    replies = [{"tool": "create_node", "arguments": {"kind": "text", "title": text, "inputs": {"text": text},
                                                      "status": "completed"}},
               {"content": "Added the note."}]
    with ScriptedChatServer(replies) as server:
        ran = keyed_cli(server.base_url, "-C", str(folder), "run", f"note: {text}", "--json")
    assert ran.returncode == 0, ran.stderr
    assert "Traceback" not in ran.stderr
    outcome = json.loads(ran.stdout)
    assert outcome["result"] == "done"
    # The model was really asked (through the key's endpoint), and its action reached the canvas.
    assert len(server.requests) == 2
    assert server.requests[0]["tools"], "the granted tools are bound to the model call"
    rows = json.loads(cli("-C", str(folder), "query", "MATCH (n:CanvasNode {kind: 'text'}) WHERE n.title = $t "
                          "RETURN count(n) AS n", "--param", f"t={text}", "--json").stdout)["rows"]
    assert rows == [{"n": 1}]


def test_status_with_a_key_in_the_environment(folder):
    """Commands that build the generation service (every one that opens tools) do not crash on a key."""
    with ScriptedChatServer([]) as server:
        shown = keyed_cli(server.base_url, "-C", str(folder), "tools", "--json")
    assert shown.returncode == 0, shown.stderr
    assert "generate_image" in {t["tool"] for t in json.loads(shown.stdout)["tools"]}


def test_a_model_claiming_a_note_it_never_wrote_is_not_done(folder):
    """The reply comes from the commits: a model that answers "Done" without writing is a failed turn."""
    text = "the unwritten note"
    with ScriptedChatServer([{"content": "Done: I added the note you asked for."}] * 4) as server:
        ran = keyed_cli(server.base_url, "-C", str(folder), "run", f"note: {text}", "--json")
    outcome = json.loads(ran.stdout)
    assert ran.returncode != 0 and outcome["result"] != "done", outcome
    assert "no change to a note" in outcome["reply"], outcome["reply"]
    rows = json.loads(cli("-C", str(folder), "query", "MATCH (n:CanvasNode {kind: 'text'}) WHERE n.title = $t "
                          "RETURN count(n) AS n", "--param", f"t={text}", "--json").stdout)["rows"]
    assert rows == [{"n": 0}]


def test_a_model_endpoint_that_is_down_is_named_as_the_model_not_the_canvas_engine(folder):
    """A refused connection to the model's endpoint is the model's outage: the one line names the model and says
    the turn is saved, and never blames the canvas engine (it once said "the canvas engine stopped answering")."""
    import socket

    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    ran = keyed_cli(f"http://127.0.0.1:{port}/v1", "-C", str(folder), "run", "note: the endpoint is down",
                    media="offline")
    assert ran.returncode == 1, (ran.stdout, ran.stderr)
    said = ran.stdout + ran.stderr
    assert "could not be reached" in said and "jarvishub resume" in said, said
    assert "canvas engine" not in said, said
    assert "Traceback" not in said
