"""Another local user cannot read or redirect a project's state (issue #23, "Secrets and local users").

The attacker is a real other account: a throwaway uid run with ``setpriv``.  The victim is this test's user
running the CLI.  Attacks:

* the attacker makes the project folder and plants ``.jarvishub/engine/engine.tmp -> LOOT`` before the victim
  runs ``jarvishub init`` there;
* the victim's project folder can be written by others; the attacker renames its ``.jarvishub`` away and
  plants their own with the link, then the victim runs a command.

Both must end in a one-line refusal (exit 3) with no secret in the loot.  The layer under the ownership check
is attacked with that check switched off: secrets are written ``O_EXCL | O_NOFOLLOW`` and renamed into place,
so a link planted under any name never receives them.  And a symlink inside ``.jarvishub/`` is never followed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from store import private_files
from tests.reliability.engine_processes import jarvishub, one_line

ATTACKER = 46123  # a throwaway uid and gid with no account


def as_attacker(script: str) -> None:
    """Run a shell script as the attacker's uid (no groups)."""
    subprocess.run(["setpriv", f"--reuid={ATTACKER}", f"--regid={ATTACKER}", "--clear-groups", "sh", "-ec", script],
                   check=True, timeout=30)


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder every user may create in, like /tmp (sticky), and a loot folder of the attacker's inside it."""
    folder = Path(tempfile.mkdtemp(prefix="jh-local-users-", dir="/tmp"))
    folder.chmod(0o1777)
    loot = folder / "attacker"
    as_attacker(f"mkdir -m 755 {loot} && touch {loot}/loot && chmod 666 {loot}/loot")
    yield folder
    for data_dir in folder.glob("*/.jarvishub/engine"):
        from store.lifecycle import stop_engine

        stop_engine(data_dir)
    shutil.rmtree(folder, ignore_errors=True)


def _secret_leaked(loot: Path, project: Path) -> bool:
    """Whether the loot holds anything, or a password of any engine record under the project."""
    if loot.read_bytes():
        return True
    for record in project.rglob("engine.json"):
        try:
            info = json.loads(record.read_text())
        except (OSError, ValueError):
            continue
        if info.get("password", "\0").encode() in loot.read_bytes():
            return True
    return False


def test_a_state_folder_planted_by_another_user_is_refused(shared):
    project, loot = shared / "film", shared / "attacker" / "loot"
    as_attacker(f"mkdir -m 777 {project} && mkdir -p -m 777 {project}/.jarvishub/engine && "
                f"ln -s {loot} {project}/.jarvishub/engine/engine.tmp")
    done = jarvishub("init", str(project))
    assert done.returncode == 3, done.stdout + done.stderr
    line = one_line(done.stderr)
    assert str(project) in line and "not to you" in line
    assert not _secret_leaked(loot, project)
    assert not (project / ".jarvishub" / "engine" / "engine.json").exists(), "no engine was started there"


def test_a_renamed_and_replanted_state_folder_is_refused(shared):
    project, loot = shared / "film", shared / "attacker" / "loot"
    project.mkdir(mode=0o755)
    assert jarvishub("init", str(project)).returncode == 0
    project.chmod(0o777)  # the victim shares the folder with other users
    as_attacker(f"mv {project}/.jarvishub {project}/.stolen && mkdir -p -m 777 {project}/.jarvishub/engine && "
                f"ln -s {loot} {project}/.jarvishub/engine/engine.tmp && "
                f"ln -s {loot} {project}/.jarvishub/engine/engine.json")
    done = jarvishub("-C", str(project), "status")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "can be written by other users" in one_line(done.stderr)
    assert not _secret_leaked(loot, project)


def test_with_the_ownership_check_off_a_planted_link_still_gets_no_secret(shared, monkeypatch):
    """The layer under the ownership check: state files are created O_EXCL|O_NOFOLLOW and renamed into place."""
    loot = shared / "attacker" / "loot"
    data_dir = shared / "engine"
    links = ["engine.tmp", "engine.json", "engine.lock", "ready-canvas.json", "ready-canvas.json.tmp",
             "server/config/server-users.jsonl", "server/config/server-users.jsonl.tmp",
             "server/config/server-groups.json.tmp"]
    as_attacker(f"mkdir -p -m 777 {data_dir}/server/config && chmod 777 {data_dir}/server && "
                + " && ".join(f"ln -s {loot} {data_dir}/{name}" for name in links if name != "engine.lock"))
    monkeypatch.setattr(private_files, "check_owned_dir", lambda path, info=None: os.lstat(path))  # switched off
    from store.embedded import EmbeddedArcadeEngine

    engine = EmbeddedArcadeEngine(data_dir, idle_seconds=600)
    try:
        engine.ensure_database("canvas")
        with engine.driver.session(database="canvas") as session:
            assert session.run("RETURN 1 AS one").single()["one"] == 1
    finally:
        engine.stop()
    assert loot.read_bytes() == b"", "a secret went through a planted link"
    for name in ("engine.tmp", "server/config/server-users.jsonl.tmp"):
        assert (data_dir / name).is_symlink(), "the planted links were neither followed nor used"
    assert not (data_dir / "server" / "config" / "server-users.jsonl").is_symlink()


@pytest.mark.parametrize("planted", [".jarvishub/checkpoints.sqlite", ".jarvishub/engine", ".jarvishub/artifacts"])
def test_a_symlink_inside_the_project_state_is_never_followed(tmp_path, planted):
    project = tmp_path / "film"
    project.mkdir()
    (project / "jarvishub.toml").write_text('[project]\nname = "film"\n')
    (project / ".jarvishub").mkdir(mode=0o700)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / planted).symlink_to(elsewhere)
    done = jarvishub("-C", str(project), "status")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "symbolic link" in one_line(done.stderr)
    assert list(elsewhere.iterdir()) == []
