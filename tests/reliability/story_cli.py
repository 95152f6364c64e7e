"""What the reliability tests of stories share: ``jarvishub`` run as a user runs it, in subprocesses, on a story.

Each call is ``python -m jarvishub.cli`` with this checkout first on the path and no API key (the offline
planner and providers), so a test drives the product exactly as a person at a shell does, several at once.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jarvishub.project import Project

ROOT = Path(__file__).resolve().parents[2]


def start(*args: str, cwd: Path) -> subprocess.Popen:
    """``jarvishub ARGS`` started in the background (stdout and stderr captured)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(cwd)}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.Popen([sys.executable, "-m", "jarvishub.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)


def finish(process: subprocess.Popen, timeout: float = 400) -> tuple[int, str, str]:
    """Wait for a started command: (exit code, stdout, stderr)."""
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out, err


def jarvishub(*args: str, cwd: Path) -> tuple[int, str, str]:
    """``jarvishub ARGS``, waited for."""
    return finish(start(*args, cwd=cwd))


def run_json(folder: Path, request: str, *extra: str) -> tuple[int, dict[str, Any], str]:
    """``jarvishub -C FOLDER run --json REQUEST``: (exit code, the turn's JSON document, stderr)."""
    code, out, err = jarvishub("-C", str(folder), "run", "--json", *extra, request, cwd=folder)
    try:
        document = json.loads(out)
    except json.JSONDecodeError:
        document = {"unparsed": out}
    return code, document, err


def init(folder: Path) -> None:
    """``jarvishub init FOLDER``."""
    code, _, err = jarvishub("init", str(folder), "--json", cwd=folder.parent)
    assert code == 0, err


def tell(folder: Path, premise: str) -> None:
    """The story of ``premise`` in the project at ``folder`` (storyboard, shot images, clips, the cut)."""
    code, document, err = run_json(folder, premise)
    assert code == 0 and document.get("outcome") == "replied", err or document


@contextmanager
def story(folder: Path, premise: str) -> Iterator[Project]:
    """A new project at ``folder`` holding the story of ``premise``, open in this process meanwhile.

    Holding it open keeps its engine up between commands: each command reuses it instead of starting it again.
    """
    init(folder)
    with Project.open(folder) as project:
        tell(folder, premise)
        yield project


def copy_project(source: Path, target: Path) -> None:
    """A copy of the project at ``source`` at ``target``, as ``cp -a`` makes it once its engine is stopped.

    Cheaper than telling the same story again through the CLI (the offline planner and providers make the same
    canvas from the same premise, ids aside); the copy starts its own engine when opened, as a moved project does.
    """
    from store.lifecycle import stop_engine

    stop_engine(source / ".jarvishub" / "engine")  # its database files are whole only once it is stopped
    shutil.copytree(source, target, symlinks=True)
