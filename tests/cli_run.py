"""The ``jarvishub`` console script's code run as a real subprocess, with this checkout first on the path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, cwd: Path | None = None, timeout: float = 280) -> subprocess.CompletedProcess:
    """``python -m jarvishub.cli ARGS`` without an API key (the offline planner), its output captured."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run([sys.executable, "-m", "jarvishub.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=cwd)
