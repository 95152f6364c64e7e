"""``outputs/`` holds private copies (issue #23): editing one never changes the stored artifact, ``status`` flags
an output that differs from its artifact (and keeps the edit), and nothing of the project is readable by
other users (the CLI runs under umask 077, whatever the user's shell has).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

from jarvishub.project import Project
from jarvishub.runtime import Runtime
from nodes.actions import ToolCall
from nodes.bridge import Usage
from tests.reliability.engine_processes import jarvishub, stop_engines_under


def _status(project: Path) -> dict:
    done = jarvishub("-C", str(project), "status", "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_outputs_are_private_copies_and_an_edited_one_is_flagged_not_overwritten(tmp_path):
    project = tmp_path / "p"
    previous = os.umask(0o022)  # a user's usual umask: the CLI must not depend on it
    try:
        assert jarvishub("init", str(project)).returncode == 0
        with Project.open(project, follow_outputs=False) as opened:
            runtime = Runtime(opened)
            try:
                made = runtime.bridge.submit(
                    ToolCall(action_id="lighthouse", tool="generate_image",
                             args={"prompt": "a lighthouse above the harbour", "seed": 7}),
                    runtime.grant_for("an image of a lighthouse"), Usage(), thread_id="outputs")
                assert made.verdict == "allow", made.message
                node = opened.store.get_node(made.observation["node_id"])
                blob = opened.artifacts.local_path(node.outputs[0].sha256)
            finally:
                runtime.close()
        status = _status(project)
        [output] = [Path(p) for p in status["outputs"]]
        assert output.read_bytes() == blob.read_bytes()
        assert output.stat().st_nlink == 1 and output.stat().st_ino != blob.stat().st_ino, "a copy, not a link"

        for folder in (project / ".jarvishub", project / "outputs", project / "workspace"):
            for path in [folder, *folder.rglob("*")]:
                try:
                    mode = stat.S_IMODE(path.lstat().st_mode)
                except FileNotFoundError:  # SQLite removed its -wal or -shm file between the listing and here
                    continue
                assert mode & 0o077 == 0, f"{path} is {mode:o}: readable by other users"

        output.write_bytes(output.read_bytes() + b"a person's edit")
        edited = _status(project)
        [flag] = [row for row in edited["attention"] if row["status"] == "edited in outputs/"]
        assert flag["id"] == node.id and str(output.relative_to(project)) in flag["repair"]
        assert output.read_bytes().endswith(b"a person's edit"), "the edit is kept"
        assert _sha256(blob) == node.outputs[0].sha256, "the stored artifact is untouched"

        output.unlink()
        restored = _status(project)
        assert output.read_bytes() == blob.read_bytes()
        assert not [row for row in restored["attention"] if row["status"] == "edited in outputs/"]

        exported = tmp_path / "exported"
        assert jarvishub("-C", str(project), "export", str(exported)).returncode == 0
        [copy] = [p for p in exported.rglob("*") if p.is_file()]
        assert stat.S_IMODE(copy.stat().st_mode) == 0o644, "an export is for sharing: the user's own umask"
    finally:
        os.umask(previous)
        stop_engines_under(tmp_path)
