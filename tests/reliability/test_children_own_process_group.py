"""The programs a step runs (ffmpeg, Chromium) are in process groups of their own (issue #23): a terminal's Ctrl-C
signals JarvisHub's group only, so it pauses the turn and never kills the step's encode or render (which would
then be recorded as the step's failure, and replayed as one by ``resume``)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from tools.generate.base import GenerationError
from tools.generate.ffmpeg import encode_frames


def _descendants(pid: int) -> dict[int, tuple[int, str]]:
    """Every process below ``pid``: its process group and program."""
    table: dict[int, tuple[int, int, str]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                program = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
            except (OSError, IndexError):
                continue
            table[int(entry)] = (int(fields[1]), int(fields[2]), program)
    found: dict[int, tuple[int, str]] = {}
    todo = [pid]
    while todo:
        parent = todo.pop()
        for child, (ppid, group, program) in table.items():
            if ppid == parent and child not in found:
                found[child] = (group, program)
                todo.append(child)
    return found


def test_ffmpeg_runs_in_a_process_group_of_its_own(tmp_path):
    release = threading.Event()

    def frames():
        yield np.zeros((16, 16, 3), dtype=np.uint8)
        release.wait(60)  # the encode stays open while the test looks at it

    failure: list[BaseException] = []

    def encode() -> None:
        try:
            encode_frames(frames(), 16, 16, 12, tmp_path / "clip.mp4")
        except GenerationError as error:  # pragma: no cover - only a diagnostic if the encode itself fails
            failure.append(error)

    worker = threading.Thread(target=encode)
    worker.start()
    try:
        deadline = time.monotonic() + 60
        while not (running := {p: g for p, (g, program) in _descendants(os.getpid()).items() if "ffmpeg" in program}):
            assert time.monotonic() < deadline, "ffmpeg never started"
            time.sleep(0.01)
        [(pid, group)] = running.items()
        assert group == pid != os.getpgid(0)
    finally:
        release.set()
        worker.join(60)
    assert not failure and (tmp_path / "clip.mp4").stat().st_size > 0


@pytest.mark.system_tool("chromium", apt="chromium")
def test_the_browser_runs_in_a_process_group_of_its_own():
    from tools.native.browser import Browser

    before = set(_descendants(os.getpid()))  # what other tests of this worker started (an engine's supervisor)
    browser = Browser.launch()
    try:
        children = {pid: seen for pid, seen in _descendants(os.getpid()).items() if pid not in before}
        assert any("chromium" in program for _, program in children.values()), children
        ours = os.getpgid(0)
        assert all(group != ours for group, _ in children.values()), children
    finally:
        browser.close()
