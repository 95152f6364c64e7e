"""The README's test command, run by bash as CI runs it (``.ci/run``), with ``pip`` and ``python`` replaced by
scripts that log their arguments and exit as told: the slow half runs even when the fast half fails, and the
command fails when either half does.  The slow half collects only its folder, so no test marked ``slow`` may live
outside it (the fast half deselects it and the slow half would not see it)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
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
        'python -m pytest -q -p no:cacheprovider -n 3 --dist loadfile -m not slow',
        "python -m pytest -q -p no:cacheprovider -m slow tests/cluster"], calls
    assert done.returncode == code, done.stderr


def test_every_test_marked_slow_is_in_the_folder_the_slow_half_runs() -> None:
    """The slow half is ``-m slow FOLDER`` (collecting the whole suite to deselect all but 34 tests cost about 9 s
    of CPU, 25 s with nothing compiled yet); a ``slow`` mark anywhere else would run in neither half."""
    folder = TESTS.parent / readme_test_command().split("-m slow ")[1].split(";")[0].strip()
    assert folder.is_dir() and folder.is_relative_to(TESTS), folder
    marked_elsewhere = [str(path.relative_to(TESTS.parent)) for path in TESTS.rglob("*.py")
                        if not path.is_relative_to(folder) and path != Path(__file__).resolve()
                        and "mark.slow" in path.read_text(encoding="utf-8")]
    assert marked_elsewhere == [], marked_elsewhere
