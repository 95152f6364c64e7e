"""The test sessions' JVM ahead-of-time cache: the machine's own (:mod:`store.jvm`), trained at the start
of a session that finds none, so that each of the suite's engine starts costs less CPU.

At the start of a session, :func:`start_training` sets ``JARVISHUB_ENGINE_AOT_CACHE`` (which the embedded engine
reads, ``store.jvm.AOT_CACHE_ENV``: so no engine of the tests starts a training of its own) to the machine's
cache and, unless it exists, trains it in a background process (``python -m jarvishub.engine_training CACHE FOLDER``,
the product's own training, its scratch project in the session's folder).  The file appears under its final name
only when it is complete; until then engines start without it, as they do when the JVM cannot use it.  A
training takes about 19 s on a quiet machine, once a machine: the README's command has two sessions, and the
second (and any later one) finds the cache.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from store.jvm import private_cache_folder

FOLDER = "engine-aot"
"""The folder, in the session's temporary folder, that holds the training's scratch project and its log (and
the cache, when the user's cache folder cannot hold it)."""
CACHE = "engine.aot"

__all__ = ["FOLDER", "finish_training", "private_cache_folder", "start_training"]


def start_training(session_tmp: str) -> subprocess.Popen | None:
    """Point the engines at the cache and start training it; ``None`` when not wanted here or already made."""
    from store.jvm import AOT_CACHE_ENV, kept_cache

    if AOT_CACHE_ENV in os.environ:  # set by hand (or to "" to measure without a cache)
        return None
    folder = Path(session_tmp) / FOLDER
    folder.mkdir()
    cache = kept_cache() or folder / CACHE
    os.environ[AOT_CACHE_ENV] = str(cache)
    if cache.is_file():
        return None
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root), AOT_CACHE_ENV: ""}
    with open(folder / "training.log", "wb") as log:
        return subprocess.Popen([sys.executable, "-m", "jarvishub.engine_training", str(cache), str(folder)], cwd=root,
                                env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
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

    for engine in (Path(session_tmp) / FOLDER).glob("jarvishub-engine-aot-*/project/.jarvishub/engine"):
        stop_engine(engine)
