"""A seeded project, and ``jarvishub engine serve`` on it as a real subprocess."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jarvishub.project import Project
from store.models import EdgeType
from store.mutations import CreateNode, Link

ROOT = Path(__file__).resolve().parents[2]
PROJECT_FILE = '[project]\nname = "tools"\n\n[kinds]\nmood_board = "A board of moods for one scene."\n'


@pytest.fixture(scope="session")
def seeded_project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    """A project with a project-specific kind and a small canvas written through the store's ticketed apply."""
    folder = tmp_path_factory.mktemp("tools") / "film"
    folder.mkdir()
    (folder / "jarvishub.toml").write_text(PROJECT_FILE)
    project = Project.init(folder)
    mira, shot = CreateNode(kind="reference", title="Mira"), CreateNode(kind="image", title="shot 7")
    board = CreateNode(kind="mood_board", title="harbour at dusk")
    batch = [mira, shot, board, Link(type=EdgeType.REFERENCES, source=shot.id, target=mira.id)]
    project.store.apply(batch, ticket=project.store._authority.issue(uuid.uuid4().hex, batch), idempotency_key="seed")
    yield project
    project.close()


def fingerprint(project: Project) -> dict[str, Any]:
    """Everything a write could change, read on the store's own account."""
    with project.engine.driver.session(database=project.store.database) as session:
        nodes = session.run("MATCH (n) RETURN labels(n) AS l, properties(n) AS p").data()
        rels = session.run("MATCH ()-[r]->() RETURN type(r) AS t, properties(r) AS p").data()
        indexes = sorted(row["name"] for row in session.run("SHOW INDEXES").data())
    digest = hashlib.sha256(json.dumps([sorted(json.dumps(n, sort_keys=True, default=str) for n in nodes),
                                        sorted(json.dumps(r, sort_keys=True, default=str) for r in rels)]).encode())
    return {"canvas": digest.hexdigest(), "version": project.store.canvas_version(), "indexes": indexes}


def cli_env(project: Project) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(project.root.parent)}
    env.pop("OPENAI_API_KEY", None)
    return env


def jarvishub(project: Project, *args: str) -> subprocess.CompletedProcess:
    """Run the CLI as a real subprocess on the project (a later ``-C`` wins)."""
    return subprocess.run([sys.executable, "-m", "jarvishub.cli", "-C", str(project.root), *args],
                          capture_output=True, text=True, timeout=240, env=cli_env(project))


class Served:
    """A running ``jarvishub engine serve --json`` and what it printed."""

    def __init__(self, project: Project) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jarvishub.cli", "-C", str(project.root), "engine", "serve", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env(project),
        )
        line = self.process.stdout.readline() if self.process.stdout else ""
        assert line, f"engine serve printed nothing: {self.process.stderr.read() if self.process.stderr else ''}"
        self.info: dict[str, Any] = json.loads(line)

    def stop(self, sig: int = signal.SIGINT) -> tuple[int, str]:
        """Signal serve, wait for it; its exit code and stderr."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        _, err = self.process.communicate(timeout=60)
        return self.process.returncode, err


@pytest.fixture(scope="session")
def served(seeded_project: Project) -> Iterator[Served]:
    """``jarvishub engine serve --json`` on the seeded project, stopped with Ctrl-C afterwards."""
    serving = Served(seeded_project)
    yield serving
    code, err = serving.stop()
    assert code == 0, err
