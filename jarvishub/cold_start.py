"""What a project's open does after it started the engine cold: start training the machine's engine cache.

Kept apart from :mod:`jarvishub.engine_training`, which opens a project itself: the open needs only to start it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from store import jvm, process
from store.embedded import ENGINE_ENV
from store.errors import EngineUnavailable

TRAINING_ENV = (*ENGINE_ENV, "XDG_CACHE_HOME")
"""What the training keeps of the environment: what the engine keeps (what runs Python and Java, nothing secret),
and where the cache goes.  Nothing else: the person's settings could point its scratch project at their own
database (``NEO4J_URI``), checkpoints (``JARVISHUB_CHECKPOINT_URL``) or a paid provider."""


def train_in_background() -> int | None:
    """Start training the machine's cache when it has none and none is being trained; the training's pid.

    Never fails the open that calls it: a cache folder it cannot read or a process it cannot start (out of
    processes, a full disk for its log) leaves the engine to start without a cache, as before."""
    try:
        cache = jvm.kept_cache()
        if cache is None or cache.is_file() or jvm.training_alive(jvm.lock_of(cache)):
            return None
        env = {**{k: v for k, v in os.environ.items() if k in TRAINING_ENV},
               jvm.AOT_CACHE_ENV: ""}  # its own engine records, and starts no training of its own
        return process.spawn_detached([sys.executable, "-m", "jarvishub.engine_training", str(cache)],
                                      log=cache.with_name("training.log"), cwd=Path(__file__).resolve().parents[1],
                                      env=env)
    except (OSError, subprocess.SubprocessError, ValueError, EngineUnavailable):  # the launcher's own failures
        return None

