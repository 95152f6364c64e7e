"""The README's test command, run by bash as CI runs it (``.ci/run``), with ``pip`` and ``python`` replaced by
scripts that log their arguments and exit as told: the slow half runs even when the fast half fails, and the
command fails when either half does."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_test_command() -> str:
    """The command after ``<!-- ci:test-command -->`` (the line ``.ci/run`` runs)."""
    lines = README.read_text().splitlines()
    marker = lines.index("<!-- ci:test-command -->")
    assert lines[marker + 1] == "```bash"
    return lines[marker + 2]


@pytest.mark.parametrize(("fast", "slow", "code"), [(0, 0, 0), (1, 0, 1), (0, 1, 1), (2, 5, 2), (0, 5, 5)])
def test_both_halves_run_and_either_failing_fails_the_command(tmp_path: Path, fast: int, slow: int,
                                                              code: int) -> None:
    log = tmp_path / "calls"
    (tmp_path / "pip").write_text(f'#!/bin/sh\necho "pip $*" >> {log}\n')
    (tmp_path / "python").write_text(
        f'#!/bin/sh\necho "python $*" >> {log}\ncase "$*" in *"not slow"*) exit {fast};; *) exit {slow};; esac\n')
    for shim in ("pip", "python"):
        (tmp_path / shim).chmod(0o755)
    done = subprocess.run(["bash", "-c", readme_test_command()], env={**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}"},
                          capture_output=True, text=True, timeout=60)
    calls = log.read_text().splitlines()
    assert calls[0].startswith("pip install -e")
    assert [c for c in calls if c.startswith("python -m pytest")] == [
        'python -m pytest -q -p no:cacheprovider -n 2 --dist loadfile -m not slow',
        "python -m pytest -q -p no:cacheprovider -m slow"], calls
    assert done.returncode == code, done.stderr
