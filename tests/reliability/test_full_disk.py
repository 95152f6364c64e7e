"""A full disk loses nothing and says so in one line (issue #23).

The project lives on a small tmpfs mounted for the test (the tests run as root; without the right to mount,
they are skipped and say why).  The disk is filled to the last byte:

* before a turn (``run``), for ``status`` on a running engine, and for a cold start: one line each, exit 1,
  no traceback; once space is freed the same commands work on the same canvas;
* in the middle of a turn: one line naming ``jarvishub resume THREAD``; once space is freed, that resume
  finishes the request.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability.engine_processes import cli_env, jarvishub, one_line, stop_engines_under

pytestmark = pytest.mark.long_file(90)

DRAMA = "a 1-shot short drama about a lighthouse keeper who finds a message in a bottle"


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 32 MB tmpfs, unmounted after the test (its engine stopped first)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m,mode=0700", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()}): the full-disk tests need root")
    try:
        yield mount
    finally:
        stop_engines_under(mount)
        if subprocess.run(["umount", str(mount)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def fill(disk: Path) -> Path:
    """Write a file until the disk has no byte left; returns it (remove it to free the space)."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as handle:
        for size in (1 << 20, 1 << 12, 1):
            try:
                while True:
                    handle.write(b"\0" * size)
            except OSError:
                pass
    return filler


def _disk_full_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 1, done.stdout + done.stderr
    line = one_line(done.stderr)
    assert "the disk is full" in line and "nothing was lost" in line
    return line


def _works_or_says_disk_full(done: subprocess.CompletedProcess) -> None:
    """A read-only command may still work on a full disk; if it cannot, it says so in one line."""
    if done.returncode == 0:
        assert "Traceback" not in done.stderr
    else:
        _disk_full_line(done)


def _notes(project: Path) -> dict:
    done = jarvishub("-C", str(project), "status", "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["by_kind"]


def test_a_full_disk_before_a_turn_for_status_and_for_a_cold_start_says_so_and_loses_nothing(disk):
    project = disk / "p"
    assert jarvishub("init", str(project)).returncode == 0
    assert jarvishub("-C", str(project), "run", "note: first").returncode == 0

    filler = fill(disk)
    assert "run the command again" in _disk_full_line(jarvishub("-C", str(project), "run", "note: second"))
    _works_or_says_disk_full(jarvishub("-C", str(project), "status"))
    filler.unlink()

    assert jarvishub("-C", str(project), "engine", "stop").returncode == 0  # (a clean stop frees its logs)
    filler = fill(disk)
    _disk_full_line(jarvishub("-C", str(project), "status"))  # a cold start: the engine cannot write its files
    filler.unlink()
    assert _notes(project) == {"text": 1}
    assert jarvishub("-C", str(project), "run", "note: second").returncode == 0
    assert _notes(project) == {"text": 2}


def test_a_disk_that_fills_during_a_turn_names_the_resume_that_finishes_it_once_space_is_freed(disk):
    project = disk / "p"
    assert jarvishub("init", str(project)).returncode == 0
    turn = subprocess.Popen([sys.executable, "-m", "jarvishub.cli", "-C", str(project), "run", DRAMA],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env())
    printed: list[str] = []
    reader = threading.Thread(target=lambda: printed.extend(turn.stdout), daemon=True)  # type: ignore[arg-type]
    reader.start()
    deadline = time.monotonic() + 240
    while not any("step 1:" in line for line in printed):  # the storyboard is committed; the images are next
        assert turn.poll() is None and time.monotonic() < deadline, "".join(printed)
        time.sleep(0.01)
    filler = fill(disk)
    _, stderr = turn.communicate(timeout=240)
    line = _disk_full_line(subprocess.CompletedProcess(turn.args, turn.returncode, "".join(printed), stderr))
    thread = line.rsplit("jarvishub resume ", 1)[1].rstrip("`")

    filler.unlink()
    resumed = jarvishub("-C", str(project), "resume", thread)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    status = json.loads(jarvishub("-C", str(project), "status", "--json").stdout)
    assert status["attention"] == []
    assert status["by_status"] == {"completed": sum(status["by_kind"].values())}
    assert [Path(p).name for p in status["outputs"]] == ["final-cut.mp4"]
