"""The web canvas's token never rides on a command line, and without it another local user reads nothing.

Reproductions of #23: a token given with ``--token`` sat on the command line, where any local user read it
(one did, and moved a node); and reads needed no token on loopback, so while ``ui`` ran any local user read
the canvas and its artifacts.  Each test runs ``jarvishub ui`` as a user does, in a subprocess, and looks
from outside: ``/proc/PID/cmdline`` of the server and of the browser it opens, and HTTP requests made by
another user of the machine (``nobody``, when the tests run as root).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from jarvishub.project import Project
from store.models import NodeStatus
from store.mutations import CreateNode
from tests.cli_run import ROOT, cli

TOKEN = "Secret-canvas-token-1234567890abcdefghij"
URL = re.compile(r"(http://127\.0\.0\.1:\d+)/#token=(\S+)")


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Iterator[Path]:
    """A project with one image on its canvas, its engine held for the module."""
    path = tmp_path_factory.mktemp("ui") / "film"
    assert cli("init", str(path)).returncode == 0
    with Project.open(path) as project:
        handle = project.artifacts.put_bytes(b"\x89PNG\r\n\x1a\n" + b"0" * 64, "image/png", "still.png")
        from nodes.actions import CanvasMutation
        from nodes.bridge import Usage
        from jarvishub.runtime import Runtime

        runtime = Runtime(project)
        try:
            runtime.bridge.submit(CanvasMutation(action_id="still", mutations=[CreateNode(
                kind="image", title="a still", status=NodeStatus.COMPLETED, outputs=[handle])]),
                runtime.grant_for("seed"), Usage(), thread_id="seed")
        finally:
            runtime.close()
        (path / "sha").write_text(handle.sha256)
        yield path


class Ui:
    """A running ``jarvishub ui`` and the address it printed."""

    def __init__(self, folder: Path, *args: str, env: dict[str, str] | None = None) -> None:
        full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
        full_env.pop("OPENAI_API_KEY", None)
        self.process = subprocess.Popen([sys.executable, "-m", "jarvishub.cli", "-C", str(folder), "ui", "--port",
                                         "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                        env=full_env, cwd=folder.parent)
        line = self.process.stdout.readline() if self.process.stdout else ""
        found = URL.search(line)
        if not found:
            self.stop()
            raise AssertionError(f"ui printed no address: {line!r} {self.process.stderr.read()[-2000:]}")
        self.base, self.token = found.group(1), found.group(2)

    def command_line(self) -> str:
        return Path(f"/proc/{self.process.pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            if stream:
                stream.close()


def status_as_another_user(url: str, token: str | None = None) -> int:
    """The HTTP status another local user gets for ``url`` (``nobody`` when we are root), with curl."""
    command = ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "20"]
    if token:
        command += ["-H", f"Authorization: Bearer {token}"]
    prefix = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 and shutil.which("runuser") else []
    return int(subprocess.run([*prefix, *command, url], capture_output=True, text=True, timeout=60).stdout or 0)


def test_reads_need_the_token_and_the_token_is_not_on_the_command_line(folder):
    sha = (folder / "sha").read_text()
    ui = Ui(folder, env={"JARVISHUB_UI_TOKEN": TOKEN})
    try:
        assert ui.token == TOKEN
        assert TOKEN not in ui.command_line()
        for path in ("/api/info", "/api/canvas", "/api/jobs", f"/artifacts/{sha}", "/api/events"):
            assert status_as_another_user(ui.base + path) == 401, path
            assert status_as_another_user(ui.base + path, token="not-the-token") == 401, path
        assert status_as_another_user(ui.base + "/") == 200  # the page itself holds no data
        with httpx.Client(base_url=ui.base, timeout=30) as client:
            mine = {"Authorization": f"Bearer {TOKEN}"}
            assert client.get("/api/info", headers=mine).status_code == 200
            assert client.get(f"/artifacts/{sha}", headers=mine).status_code == 200
    finally:
        ui.stop()


def test_a_token_on_the_command_line_is_refused_without_being_repeated(folder):
    done = cli("-C", str(folder), "ui", "--port", "0", "--token", TOKEN)
    assert done.returncode == 2
    assert "--token-file" in done.stderr and TOKEN not in done.stderr + done.stdout


def test_a_token_file_others_can_read_or_a_link_is_refused(folder, tmp_path):
    loose = tmp_path / "loose"
    loose.write_text(TOKEN)
    loose.chmod(0o644)
    done = cli("-C", str(folder), "ui", "--port", "0", "--token-file", str(loose))
    assert done.returncode == 2 and "chmod 600" in done.stderr and TOKEN not in done.stderr
    private = tmp_path / "private"
    private.write_text(TOKEN + "\n")
    private.chmod(0o600)
    link = tmp_path / "link"
    link.symlink_to(private)
    done = cli("-C", str(folder), "ui", "--port", "0", "--token-file", str(link))
    assert done.returncode == 2 and "symlink" in done.stderr


def test_open_hands_the_browser_a_private_file_not_the_token(folder, tmp_path):
    private = tmp_path / "token"
    private.write_text(TOKEN + "\n")
    private.chmod(0o600)
    seen = tmp_path / "browser-argv"
    browser = tmp_path / "browser"
    # A stand-in browser: records its command line and the file it was asked to open, as a browser reads it.
    # Its last record is renamed into place: the test waits for that file, and must not read it half written.
    browser.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" > {seen}\ncat \"${{1#file://}}\" > {seen}.page\n"
                       f"stat -c %a \"${{1#file://}}\" > {seen}.mode.part && mv {seen}.mode.part {seen}.mode\n")
    browser.chmod(0o755)
    ui = Ui(folder, "--token-file", str(private), "--open", env={"BROWSER": str(browser)})
    try:
        assert ui.token == TOKEN and TOKEN not in ui.command_line()
        deadline = time.monotonic() + 30
        while not Path(f"{seen}.mode").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        argv = seen.read_text()
        assert TOKEN not in argv and argv.startswith("file://"), argv
        assert f"#token={TOKEN}" in Path(f"{seen}.page").read_text()
        assert Path(f"{seen}.mode").read_text().strip() == "600"
        opened = Path(argv.strip().removeprefix("file://"))
        assert stat.S_IMODE(opened.stat().st_mode) == 0o600
    finally:
        ui.stop()
    assert not opened.exists()  # gone with the server
