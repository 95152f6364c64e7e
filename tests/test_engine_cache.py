"""The machine's JVM cache for the embedded engine (store/jvm.py, jarvishub/engine_training.py), the way a
person meets it: a command that opens a project, cold-starting its engine on a machine without the cache starts its training in the background, later engines
start with it, and a cache folder someone else could write is never used.

Each command runs in a subprocess with the person's environment: no ``JARVISHUB_ENGINE_AOT_CACHE`` (the suite
sets one for its own engines), the user's cache folder under ``tmp_path``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from store import process
from store.jvm import AOT_CACHE_ENV, JAVA_OPTIONS_ENV
from store.lifecycle import stop_engine

pytestmark = pytest.mark.long_file(60)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[1]

_START = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from jarvishub.project import Project
    from store import jvm
    project = Project.init(Path(sys.argv[1]))
    kept = jvm.kept_cache()
    print(json.dumps({"pid": project.engine.server_pid, "version": project.store.canvas_version(),
                      "cache": str(kept) if kept else None}))
    project.close()
""")


def _person_env(cache_home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (AOT_CACHE_ENV, JAVA_OPTIONS_ENV)}
    return {**env, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(cache_home), **extra}


def _start_engine(folder: Path, env: dict[str, str]) -> dict:
    """A command that opens a project (cold-starting its engine), writes nothing and exits (the engine lingers)."""
    done = subprocess.run([sys.executable, "-c", _START, str(folder)], env=env, capture_output=True, text=True,
                          timeout=180, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cache_name(env: dict[str, str]) -> str:
    """The machine's cache's file name, as the person's processes compute it."""
    return subprocess.run([sys.executable, "-c", "from store.jvm import cache_name, DEFAULT_JAVA_OPTIONS; "
                           "print(cache_name(DEFAULT_JAVA_OPTIONS))"],
                          env=env, capture_output=True, text=True, check=True, cwd=ROOT).stdout.strip()


def _command_line(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


def _wait_for(what, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if what():
            return True
        time.sleep(0.2)
    return False


def test_a_cold_start_trains_the_cache_in_the_background_and_later_engines_start_with_it(tmp_path):
    cache_home = tmp_path / "cache"
    env = _person_env(cache_home)
    # What earlier wheels and trainings left: a cache no engine used for 40 days and one used yesterday (another
    # wheel's, both 57 MB in life), a killed training's copy two hours old and one being written right now.
    kept_folder = cache_home / "jarvishub" / "engine-aot"
    kept_folder.mkdir(parents=True, mode=0o700)
    now = time.time()
    left = {name: (kept_folder / name, age_s) for name, age_s in [
        ("engine-0000000000000000.aot", 40 * 86400), ("engine-1111111111111111.aot", 86400),
        ("engine-2222222222222222.aot.77.partial", 7200), ("engine-3333333333333333.aot.78.partial", 0)]}
    for path, age_s in left.values():
        path.write_bytes(b"old")
        os.utime(path, (now - age_s, now - age_s))
    first = _start_engine(tmp_path / "one", env)
    cache = Path(first["cache"])
    assert cache.parent == cache_home / "jarvishub" / "engine-aot"
    assert oct(cache.parent.stat().st_mode & 0o777) == "0o700"
    assert not any("-XX:AOTCache" in arg for arg in _command_line(first["pid"])), "no cache yet: none loaded"
    lock = cache.with_name(cache.name + ".training")
    try:
        # The command has exited; its training goes on without it, and holds the lock while it does.
        assert _wait_for(lock.exists, 30), "the cold start began no training"
        trainer = int(lock.read_text().split()[0])
        assert "jarvishub.engine_training" in " ".join(_command_line(trainer))
        assert _wait_for(lambda: cache.is_file() and not lock.exists(), 420), \
            (cache.with_name("training.log").read_text()[-3000:] if cache.with_name("training.log").exists() else "")
        assert sorted(p.name for p in cache.parent.glob("*.partial")) == ["engine-3333333333333333.aot.78.partial"], \
            "the cache is written aside and renamed whole; a killed training's copy is removed, a fresh one kept"
        assert oct(cache.stat().st_mode & 0o022) == "0o0", "no one else may replace it"
        assert sorted(p.name for p in cache.parent.glob("engine-*.aot")) == sorted(
            [cache.name, "engine-1111111111111111.aot"]), "the cache unused for 40 days is removed, yesterday's kept"

        os.utime(cache, (now - 40 * 86400, now - 40 * 86400))
        second = _start_engine(tmp_path / "two", env)
        assert f"-XX:AOTCache={cache}" in _command_line(second["pid"])
        assert time.time() - cache.stat().st_mtime < 600, "an engine that starts with the cache marks it used"
        assert second["version"] == 0  # and the engine that loaded it serves its canvas
        assert not lock.exists(), "with the cache there, no second training"
    finally:
        for folder in (tmp_path / "one", tmp_path / "two"):
            stop_engine(folder / ".jarvishub" / "engine")


def test_a_chosen_cache_setting_or_other_jvm_options_train_nothing(tmp_path):
    cache_home = tmp_path / "cache"
    for name, extra in (("none", {AOT_CACHE_ENV: ""}), ("options", {JAVA_OPTIONS_ENV: "-XX:+UseSerialGC"})):
        started = _start_engine(tmp_path / name, _person_env(cache_home, **extra))
        try:
            assert started["cache"] is None
            assert not any("-XX:AOTCache" in arg for arg in _command_line(started["pid"]))
            time.sleep(1)  # a training would have taken its lock by now (it takes it before anything else)
            kept = cache_home / "jarvishub" / "engine-aot"
            assert not kept.exists() or not list(kept.iterdir()), f"{name}: a training started"
        finally:
            stop_engine(tmp_path / name / ".jarvishub" / "engine")


def test_a_cache_folder_others_can_write_is_neither_trained_nor_loaded(tmp_path):
    """A file planted in the cache folder would run inside the engine: a folder that is not ours alone is left
    alone, with the cache another account put there."""
    cache_home = tmp_path / "cache"
    kept = cache_home / "jarvishub" / "engine-aot"
    kept.mkdir(parents=True)
    kept.chmod(0o777)
    env = _person_env(cache_home)
    name = _cache_name(env)
    (kept / name).write_bytes(b"planted")
    started = _start_engine(tmp_path / "p", env)
    try:
        assert started["cache"] is None
        assert not any("-XX:AOTCache" in arg for arg in _command_line(started["pid"])), "the planted file was loaded"
        time.sleep(1)
        assert sorted(p.name for p in kept.iterdir()) == [name], "a training started in a folder others can write"
    finally:
        stop_engine(tmp_path / "p" / ".jarvishub" / "engine")


def test_a_training_stopped_midway_leaves_no_cache_and_the_next_cold_start_trains_again(tmp_path):
    cache_home = tmp_path / "cache"
    env = _person_env(cache_home)
    first = _start_engine(tmp_path / "one", env)
    cache = Path(first["cache"])
    lock = cache.with_name(cache.name + ".training")
    try:
        assert _wait_for(lock.exists, 30)
        trainer = int(lock.read_text().split()[0])
        time.sleep(2)  # into its session
        os.kill(trainer, signal.SIGKILL)
        assert _wait_for(lambda: process.start_time(trainer) is None, 30)
        assert not cache.exists(), "a killed training left a cache"
        # Its lock names a dead process: the next cold start takes it over and trains again.
        stop_engine(tmp_path / "one" / ".jarvishub" / "engine")
        _start_engine(tmp_path / "one", env)
        assert _wait_for(lambda: lock.exists() and int(lock.read_text().split()[0]) != trainer, 30)
        again = int(lock.read_text().split()[0])
        os.kill(again, signal.SIGKILL)
        assert _wait_for(lambda: process.start_time(again) is None, 30)
    finally:
        stop_engine(tmp_path / "one" / ".jarvishub" / "engine")
        for scratch in Path(tempfile.gettempdir()).glob("jarvishub-engine-aot-*"):  # the killed training's
            stop_engine(scratch / "project" / ".jarvishub" / "engine")
            shutil.rmtree(scratch, ignore_errors=True)


def test_a_damaged_cache_is_ignored_by_the_engine_which_starts_and_serves(tmp_path):
    """A cache file the JVM cannot read (a disk error, another JVM's) costs a warning in the engine's log, not the
    person's command."""
    cache_home = tmp_path / "cache"
    env = _person_env(cache_home)
    name = _cache_name(env)
    kept = cache_home / "jarvishub" / "engine-aot"
    kept.mkdir(parents=True, mode=0o700)
    (kept / name).write_bytes(b"not a cache")
    started = _start_engine(tmp_path / "p", env)
    try:
        assert f"-XX:AOTCache={kept / name}" in _command_line(started["pid"])
        assert started["version"] == 0
    finally:
        stop_engine(tmp_path / "p" / ".jarvishub" / "engine")


def test_the_training_keeps_none_of_the_persons_settings(tmp_path):
    """The person's environment may point at their own Neo4j, their Postgres checkpoints or a paid provider: the
    training's scratch project must reach none of them.  Started with all three set to places that would make it
    fail (nothing listens there) and a key no provider would take, it trains the cache all the same."""
    cache_home = tmp_path / "cache"
    hostile = _person_env(cache_home, NEO4J_URI="bolt://127.0.0.1:9", NEO4J_PASSWORD="not-theirs",
                          JARVISHUB_CHECKPOINT_URL="postgresql://nobody@127.0.0.1:9/none",
                          OPENAI_API_KEY="sk-not-a-key", OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    kept = cache_home / "jarvishub" / "engine-aot"
    kept.mkdir(parents=True, mode=0o700)
    cache = kept / _cache_name(hostile)
    done = subprocess.run([sys.executable, "-m", "jarvishub.engine_training", str(cache), str(tmp_path)],
                          env=hostile, capture_output=True, text=True, timeout=420, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    assert cache.is_file()
    assert not list(tmp_path.glob("jarvishub-engine-aot-*")), "its scratch project is removed"


def test_a_training_that_cannot_start_does_not_fail_the_open(tmp_path):
    """Its log cannot be opened (here a folder stands where it goes): the command opens its project all the same."""
    cache_home = tmp_path / "cache"
    kept = cache_home / "jarvishub" / "engine-aot"
    kept.mkdir(parents=True, mode=0o700)
    (kept / "training.log").mkdir()
    started = _start_engine(tmp_path / "p", _person_env(cache_home))
    try:
        assert started["version"] == 0
        assert not list(kept.glob("*.training")), "no training runs"
    finally:
        stop_engine(tmp_path / "p" / ".jarvishub" / "engine")
