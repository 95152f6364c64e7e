"""Fixtures for the configured-provider path: a loopback OpenAI server, and commands run as a user runs them.

A user's configuration is their environment: these tests set ``OPENAI_API_KEY``, ``OPENAI_BASE_URL`` and the
``JARVISHUB_*`` names in the environment of a real ``jarvishub`` subprocess (or of this process, for the Python
API), never in a settings object handed to the code.  The only values a user would not set are the ones that
keep the suite short: the video poll interval, and fewer retries where a test waits for them to run out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jarvishub.project import Project
from tests.cli_run import ROOT, cli
from tests.providers.loopback import LoopbackOpenAI

_OURS = ("OPENAI_", "JARVISHUB_MODEL", "JARVISHUB_JUDGE", "JARVISHUB_MEDIA", "JARVISHUB_GENERATION_",
         "JARVISHUB_IMAGE", "JARVISHUB_VIDEO", "JARVISHUB_SPEECH", "JARVISHUB_BUDGET", "JARVISHUB_PRICES")


def user_env(server: LoopbackOpenAI, **names: str | None) -> dict[str, str]:
    """A user's environment with a key and the loopback endpoint (plus ``names``; None removes one)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_OURS)}
    env.update({"PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-loopback", "OPENAI_BASE_URL": server.base_url,
                "JARVISHUB_GENERATION_VIDEO_POLL_INTERVAL_S": "0.05",
                # One engine for the module's commands, stopped with the project fixture that holds it.
                "JARVISHUB_ENGINE_IDLE_SECONDS": "20"})
    for name, value in names.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def jarvishub(env: dict[str, str], *args: str, cwd: Path | None = None, timeout: float = 400) -> subprocess.CompletedProcess:
    """``jarvishub ARGS`` in a subprocess with ``env``, as a user types it."""
    return subprocess.run([sys.executable, "-m", "jarvishub.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=cwd)


def document(done: subprocess.CompletedProcess) -> dict[str, Any]:
    """The ``--json`` document a command printed (its stderr in the failure message when there is none)."""
    assert done.stdout.strip(), f"no JSON on stdout (exit {done.returncode}): {done.stderr[-2000:]}"
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def loopback() -> Iterator[LoopbackOpenAI]:
    """The module's loopback OpenAI server: any model is the offline planner as the agent and, asked without
    tools, a judge that looks at pictures."""
    with LoopbackOpenAI() as server:
        yield server


@pytest.fixture(scope="session")
def shared_project(tmp_path_factory) -> Iterator[Project]:
    """One project for the configuration, failure and Python API tests (each names what it makes uniquely and
    reads only that), held open by this process so its engine serves every command: starting an engine is
    the slow part of a test that runs one turn."""
    path = tmp_path_factory.mktemp("providers") / "shared"
    assert cli("init", str(path), "--json").returncode == 0
    with Project.open(path) as project:
        yield project
