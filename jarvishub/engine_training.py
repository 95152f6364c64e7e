"""Training the machine's engine cache (:mod:`store.jvm`) from a real session of the product.

A project's open that cold-started its engine on a machine without the cache starts the training
(:func:`jarvishub.cold_start.train_in_background`): a detached, niced process (``python -m jarvishub.engine_training CACHE``) that runs
a short offline session on a scratch project (a storyboard, a note, a shot edit, an undo, a question and a
person's Cypher query) in an engine recording what its JVM loads, stops that engine and builds the cache (JDK's
"record" then "create" modes).  19 s on a quiet machine, once a machine (6.1 s of CPU in its own process and the
JVM that builds the cache, the recording engine's besides); nothing waits for it, and engines start without a cache
until it is there.  The training keeps nothing of the person's environment but what
runs Python (:data:`TRAINING_ENV`), so their settings cannot point its scratch project at their own database,
checkpoints or a paid provider.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from jarvishub.cold_start import TRAINING_ENV
from store import jvm, process
from store.jvm import AOT_CACHE_ENV, DEFAULT_JAVA_OPTIONS, JAVA_OPTIONS_ENV, wheel_dir

TRAINING_TIMEOUT_S = 600
"""A training that has not finished by then gives up (it is tried again after a later cold start)."""
_STOP_WAIT_S = 300
"""How long a training waits for its recording JVM to exit: the JVM writes what it recorded as it exits."""
TRAINING_SESSION = (
    "a 4-shot short drama about a lighthouse keeper and a message in a bottle",
    "note: the keeper's lamp flickers",
    "make shot 2 night",
    "undo that",
    "how many shots are there?",
)
"""The training's turns, run by the offline planner: the canvas's writes, views, reads, lineage and undo."""
TRAINING_QUERY = "MATCH (n:CanvasNode) WHERE n.kind = $kind RETURN n.title AS title ORDER BY title LIMIT 5"
"""A person's read-only Cypher on the reader account, the other statement path."""


def train(cache: Path, workdir: Path | None = None) -> bool:
    """Record a real session's classes and build ``cache`` from them, in a scratch folder under ``workdir`` (the
    temporary folder by default) removed after; False when the cache exists or another training holds it.

    Runs in a process of its own (:func:`main`): it sets the engine's options in its environment."""
    lock = jvm.lock_of(cache)
    if cache.is_file() or not jvm.take_lock(lock):
        return False
    folder = Path(tempfile.mkdtemp(prefix="jarvishub-engine-aot-", dir=workdir))
    try:
        configuration = folder / "engine.aotconf"
        _record(folder, configuration)
        partial = folder / "engine.aot.partial"
        wheel = wheel_dir()
        subprocess.run([str(wheel / "jre" / "bin" / "java"), *DEFAULT_JAVA_OPTIONS, "-XX:AOTMode=create",
                        f"-XX:AOTConfiguration={configuration}", f"-XX:AOTCache={partial}",
                        "-cp", str(wheel / "jars" / "*")], check=True, timeout=TRAINING_TIMEOUT_S,
                       stdout=subprocess.DEVNULL)
        aside = cache.with_name(f"{cache.name}.{os.getpid()}.partial")  # copied whole before it takes the name
        shutil.copyfile(partial, aside)
        os.replace(aside, cache)
        jvm.remove_unused(cache)
        return True
    finally:
        lock.unlink(missing_ok=True)
        shutil.rmtree(folder, ignore_errors=True)


def _record(folder: Path, configuration: Path) -> None:
    """Run the training session on a scratch project whose engine records, and stop it, waiting for its JVM to
    write what it recorded."""
    os.environ[AOT_CACHE_ENV] = ""
    os.environ[JAVA_OPTIONS_ENV] = " ".join(
        [*DEFAULT_JAVA_OPTIONS, "-XX:AOTMode=record", f"-XX:AOTConfiguration={configuration}"])
    from jarvishub.project import Project
    from jarvishub.runtime import Runtime
    from nodes.models.offline import OfflinePlanner

    project = Project.init(folder / "project")
    engine = project.engine
    server, engine_dir = getattr(engine, "server_pid", None), getattr(engine, "data_dir", None)
    try:
        runtime = Runtime(project, model=OfflinePlanner(), evaluate_generations=False)
        try:
            thread = None
            for request in TRAINING_SESSION:
                thread = runtime.run(request, thread_id=thread).thread_id
            project.store.query(TRAINING_QUERY, {"kind": "image"})
        finally:
            runtime.close()
    finally:
        project.close()
        if server is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(server, signal.SIGTERM)
            deadline = time.monotonic() + _STOP_WAIT_S
            while process.start_time(server) is not None and time.monotonic() < deadline:
                time.sleep(0.1)
        if engine_dir is not None:
            from store.lifecycle import stop_engine

            stop_engine(engine_dir)


def _give_up(signum: int, frame: object) -> None:
    raise TimeoutError(f"the engine cache's training did not finish within {TRAINING_TIMEOUT_S} s")


def main(argv: Sequence[str]) -> int:
    """``python -m jarvishub.engine_training CACHE [WORKDIR]``: train ``CACHE`` with nothing of the environment
    but :data:`TRAINING_ENV`, niced, within :data:`TRAINING_TIMEOUT_S`."""
    for key in [key for key in os.environ if key not in TRAINING_ENV]:
        del os.environ[key]
    with contextlib.suppress(OSError):
        os.nice(10)  # what a person runs meanwhile goes first; the JVM it starts inherits this
    signal.signal(signal.SIGALRM, _give_up)
    signal.alarm(TRAINING_TIMEOUT_S)
    return 0 if train(Path(argv[0]), Path(argv[1]) if len(argv) > 1 else None) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
