"""One JVM ahead-of-time cache for the test sessions, so that each of the suite's engine starts costs less CPU.

JDK 25 can start with its classes already loaded and linked from a cache (``-XX:AOTCache``) recorded from a
training run.  At the start of a session, :func:`start_training` sets ``JARVISHUB_ENGINE_AOT_CACHE`` (which
the embedded engine reads, ``store.embedded.AOT_CACHE_ENV``) and, unless an earlier session left that cache,
trains it in a background process (``python -m tests.engine_aot FOLDER CACHE``): one engine that makes a
canvas, writes and reads it, runs a user query and stops (JDK's "record" mode), then the JVM's "create" step.
The file appears under its final name only when it is complete; until then engines start without it, as they
do when the JVM cannot use it.

The cache is kept in a private folder of the user's cache folder, named by what it was made from (the
wheel's Java runtime and jars, the JVM options): a training costs about 11 s of CPU (6.7 s in its engine's
JVM), and the README's command has two sessions.  A cache another wheel or other options would need is
trained again under its own name.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

FOLDER = "engine-aot"
"""The folder, in the session's temporary folder, that holds the training run and the cache."""
CACHE = "engine.aot"
CACHE_HOME = Path("jarvishub")
"""Where, under the user's cache folder (``XDG_CACHE_HOME`` or ``~/.cache``), the suite keeps what outlives a
session: the JVM cache (``test-aot``) and the tests' bytecode (``test-pycache``, tests/conftest.py)."""


def private_cache_folder(name: str) -> Path | None:
    """``<cache>/jarvishub/NAME``, made 0700 if missing, when it is a real folder of ours that no one else can
    write; else None (what another account could plant there would run in the tests)."""
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / CACHE_HOME / name
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        found = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.geteuid() or found.st_mode & 0o022:
        return None
    return folder


def _cache_name() -> str:
    """The cache's file name: a digest of the JVM's options and of the wheel's Java runtime and jars."""
    from store.embedded import DEFAULT_JAVA_OPTIONS, _wheel_dir

    wheel = _wheel_dir()
    digest = hashlib.sha256(" ".join(DEFAULT_JAVA_OPTIONS).encode())
    for path in [wheel / "jre" / "lib" / "modules", *sorted((wheel / "jars").glob("*"))]:
        with contextlib.suppress(OSError):
            found = path.stat()
            digest.update(f"{path}:{found.st_size}:{found.st_mtime_ns}".encode())
    return f"engine-{digest.hexdigest()[:16]}.aot"


def start_training(session_tmp: str) -> subprocess.Popen | None:
    """Point the engines at the cache and start training it; ``None`` when not wanted here or already made."""
    from store.embedded import AOT_CACHE_ENV

    if AOT_CACHE_ENV in os.environ:  # set by hand (or to "" to measure without a cache)
        return None
    folder = Path(session_tmp) / FOLDER
    folder.mkdir()
    kept = private_cache_folder("test-aot")
    cache = kept / _cache_name() if kept else folder / CACHE
    os.environ[AOT_CACHE_ENV] = str(cache)
    if cache.is_file():
        return None
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    with open(folder / "training.log", "wb") as log:
        return subprocess.Popen([sys.executable, "-m", "tests.engine_aot", str(folder), str(cache)], cwd=root, env=env,
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)  # its group: the JVM it runs goes with it


def finish_training(training: subprocess.Popen | None, session_tmp: str) -> None:
    """Stop the training if it is still going (a short session does not wait for it) and its engine with it."""
    if training is None:
        return
    if training.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(training.pid, signal.SIGKILL)
        training.wait()
    from store.lifecycle import stop_engine

    stop_engine(Path(session_tmp) / FOLDER / "engine")


def _train(folder: Path, cache: Path) -> None:
    from store.embedded import AOT_CACHE_ENV, DEFAULT_JAVA_OPTIONS, JAVA_OPTIONS_ENV, EmbeddedArcadeEngine, _wheel_dir
    from store.mutations import CreateNode
    from store.neo4j import Neo4jCanvasStore
    from store.tickets import TicketAuthority
    from tests.processes import exited

    configuration = folder / "engine.aotconf"
    os.environ.pop(AOT_CACHE_ENV, None)
    os.environ[JAVA_OPTIONS_ENV] = " ".join(
        [*DEFAULT_JAVA_OPTIONS, "-XX:AOTMode=record", f"-XX:AOTConfiguration={configuration}"])
    engine = EmbeddedArcadeEngine(folder / "engine", idle_seconds=30)
    server = engine.server_pid
    try:
        engine.ensure_database("canvas")
        authority = TicketAuthority()
        store = Neo4jCanvasStore.on(engine, "canvas", authority=authority)
        for i in range(20):
            batch = [CreateNode(kind="image" if i % 2 else "text", title=f"node {i}", inputs={"prompt": f"p {i}"})]
            store.apply(batch, ticket=authority.issue(uuid.uuid4().hex, batch), idempotency_key=None, actor="aot")
        for _ in range(5):
            store.query("MATCH (n:CanvasNode) WHERE n.kind = $kind RETURN n.title AS title ORDER BY title LIMIT 5",
                        {"kind": "image"})
        store.close()
    finally:
        # The JVM writes the configuration as it exits, which takes longer than a stop waits on a loaded machine.
        engine.close()
        os.kill(server, signal.SIGTERM)
        deadline = time.monotonic() + 300
        while not exited(server) and time.monotonic() < deadline:
            time.sleep(0.1)
        engine.stop()
    wheel = _wheel_dir()
    partial = folder / (CACHE + ".partial")
    subprocess.run([str(wheel / "jre" / "bin" / "java"), *DEFAULT_JAVA_OPTIONS, "-XX:AOTMode=create",
                    f"-XX:AOTConfiguration={configuration}", f"-XX:AOTCache={partial}",
                    "-cp", str(wheel / "jars" / "*")], check=True, timeout=300)
    if partial.parent != cache.parent:  # into the kept folder whole (another session may be reading it)
        copied = cache.with_name(f"{cache.name}.{os.getpid()}.partial")
        shutil.copyfile(partial, copied)
        partial = copied
    os.replace(partial, cache)


if __name__ == "__main__":
    _train(Path(sys.argv[1]), Path(sys.argv[2]))
