"""The engine's passwords stay in 0600 files of a 0700 folder (issue #10).

Never on a command line, never in a child's environment, never readable by
another OS user: checked on the real processes and, as uid ``nobody``, with
``setpriv``.
"""

from __future__ import annotations

from typing import Any

import json
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from store import process
from store.embedded import EmbeddedArcadeEngine


@pytest.fixture(scope="module")
def project(own_engine_project: Any) -> Any:
    """Its tests read the state files of the project's own engine."""
    return own_engine_project


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _secrets(engine: EmbeddedArcadeEngine) -> list[bytes]:
    info = json.loads((engine.data_dir / "engine.json").read_text())
    return [info["password"].encode(), info["reader_password"].encode()]


def _reaper_pids(data_dir: Path) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            args = process.cmdline(int(entry.name))
            if "store.lifecycle" in args and str(data_dir) in args:
                found.append(int(entry.name))
    return found


@pytest.fixture(scope="module")
def embedded():
    """An engine whose parent folders anyone may traverse, so only its own file modes protect it."""
    parent = Path(tempfile.mkdtemp(prefix="jh-secrets-", dir="/tmp"))
    parent.chmod(0o755)
    engine = EmbeddedArcadeEngine(parent / "engine")
    engine.ensure_database("canvas")
    yield engine
    engine.stop()
    shutil.rmtree(parent, ignore_errors=True)


def test_no_password_on_a_command_line_or_in_an_environment(embedded):
    pids = [embedded.server_pid, *_reaper_pids(embedded.data_dir)]
    assert len(pids) == 2, "the engine and its reaper"
    for pid in pids:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        environ = Path(f"/proc/{pid}/environ").read_bytes()
        for secret in _secrets(embedded):
            assert secret not in cmdline
            assert secret not in environ


def test_users_file_holds_hashes_not_passwords(embedded):
    users = (embedded.data_dir / "server" / "config" / "server-users.jsonl").read_bytes()
    for secret in _secrets(embedded):
        assert secret not in users
    assert all(json.loads(line)["password"].startswith("PBKDF2WithHmacSHA256$") for line in users.splitlines())


def test_engine_files_are_the_owners_alone(embedded):
    assert _mode(embedded.data_dir) == 0o700
    assert _mode(embedded.data_dir / "engine.json") == 0o600
    config = embedded.data_dir / "server" / "config"
    assert _mode(config / "server-users.jsonl") == 0o600
    assert _mode(config / "server-groups.json") == 0o600
    database_files = [p for p in (embedded.data_dir / "server" / "databases").rglob("*") if p.is_file()]
    assert database_files
    assert [p for p in database_files if _mode(p) & 0o077] == []


def test_project_state_folder_and_sqlite_files_are_private(project):
    state = project.state_dir
    assert _mode(state) == 0o700
    for name in ("checkpoints.sqlite", "trajectories.sqlite"):
        assert _mode(state / name) == 0o600


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root to become nobody")
def test_another_user_cannot_read_the_password(embedded):
    script = (
        f"cat {embedded.data_dir / 'engine.json'} && exit 10\n"
        f"cat {embedded.data_dir / 'server' / 'config' / 'server-users.jsonl'} && exit 11\n"
        f"grep -a -l -F -e '{_secrets(embedded)[0].decode()}' /proc/*/cmdline /proc/*/environ 2>/dev/null && exit 12\n"
        "exit 0\n"
    )
    assert _mode(embedded.data_dir.parent) == 0o755  # nobody reaches the folder; only its mode stops them
    result = subprocess.run(
        ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "sh", "-c", script],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert _secrets(embedded)[0].decode() not in result.stdout


def test_every_state_file_and_lease_is_private(project):
    """#23: ``generation-cache.sqlite`` and the engine's lease files were 0644.  Every file the project's state
    folder holds, the engine's leases and the generation cache among them, is the user's alone."""
    state = project.state_dir
    leases = list((state / "engine" / "leases").iterdir())
    assert leases and (state / "generation-cache.sqlite").is_file()  # the files the issue found open
    opened = [f"{p.relative_to(state)} {oct(_mode(p))}" for p in state.rglob("*")
              if not p.is_symlink() and ((p.is_file() and _mode(p) & 0o077) or (p.is_dir() and _mode(p) != 0o700))]
    assert opened == []
