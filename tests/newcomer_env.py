"""What the newcomer tests share: the console script run as a newcomer runs it, in a temp HOME."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WARM_FOR_S = "120"
"""How long a project's engine lingers after a command here, as a user's would (600 s): the next command of the
test finds it warm instead of starting another JVM (the suite's 3 s outlasted the gap between two commands on a
loaded machine).  :func:`place` stops them."""


def jarvishub(*args: str, cwd: Path, home: Path, stdin: str | None = None,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The console script's code as a newcomer runs it: a fresh HOME, no API key, no project named."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                   "JARVISHUB_ENGINE_IDLE_SECONDS": WARM_FOR_S, **(env or {})}
    for name in ("OPENAI_API_KEY", "JARVISHUB_PROJECT", "NEO4J_URI"):
        environment.pop(name, None)
    return subprocess.run([sys.executable, "-m", "jarvishub.cli", *args], capture_output=True, text=True,
                          timeout=300, env=environment, cwd=cwd, input=stdin)


@pytest.fixture(scope="module")
def place(tmp_path_factory) -> Iterator[dict[str, Path]]:
    """A temp HOME and a work folder that is not a project; the engines of its projects are stopped at the end."""
    from tests.reliability.engine_processes import stop_engines_under

    base = tmp_path_factory.mktemp("newcomer")
    (base / "home").mkdir()
    (base / "work").mkdir()
    try:
        yield {"home": base / "home", "work": base / "work"}
    finally:
        stop_engines_under(base)
