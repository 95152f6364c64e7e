"""The embedded engine's JVM: the wheel's Java runtime, the options it starts with and its ahead-of-time cache.

The cache: JDK 25 can start with the classes a training run used already loaded and linked (``-XX:AOTCache``).
On this 2-core machine a project then opens in 0.81 s instead of 1.71 s, and the first turns after a cold start
take 0.78-0.89 of the time (``python bench/engine_cache.py``; docs/engines.md).  A person's first command after
the engine's idle period pays that start again, so it is paid often.

* The cache lives in a private folder of the user's cache folder (``<XDG_CACHE_HOME or ~/.cache>/jarvishub/
  engine-aot``, 0700, ours alone: a file someone else could plant there would be loaded into the engine), named
  by what it was made from: the wheel's Java runtime and jars and the JVM's options.  Another wheel gets a cache
  of its own.
* It is trained from a real session of the product (:mod:`jarvishub.engine_training`, started in the background
  after a cold start that found none); a training holds a lock file naming its process, so one runs at a time.
* The file appears under its final name only when complete (written aside, then renamed), so an engine never
  loads half a cache; one the JVM cannot use (another JVM, other options) it ignores.
* Each engine that starts with the machine's cache marks it used (its modification time); a training, once its
  cache is in place, removes the caches no engine has started with for :data:`UNUSED_CACHE_DAYS` (another wheel's,
  57 MB each) and the copies a killed training left (:func:`remove_unused`).
* ``JARVISHUB_ENGINE_AOT_CACHE`` names a cache to use instead, or, set but empty, none (and no training); so does
  choosing other JVM options (``JARVISHUB_ENGINE_JAVA_OPTIONS``: a cache holds what one set of options loaded).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import stat
import time
from collections.abc import Sequence
from pathlib import Path

from store import process
from store.errors import EngineUnavailable


def wheel_dir() -> Path:
    """The installed ``arcadedb-embedded`` package's folder, found without importing it: its ``__init__``
    loads JPype and numpy (a third of a second), and only its Java runtime and jars are wanted here."""
    spec = importlib.util.find_spec("arcadedb_embedded")
    if spec is None or not spec.submodule_search_locations:
        raise EngineUnavailable("the arcadedb-embedded wheel is not installed; pip install arcadedb-embedded")
    return Path(next(iter(spec.submodule_search_locations)))


DEFAULT_JAVA_OPTIONS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")
"""How the engine's JVM compiles and collects.  The canvas's queries are small and a project's engine lives for
minutes, so the optimising compiler (C2) and the parallel collector cost more CPU than they earn back: with
them off a cold command waits about half as long for the server, and a warm workload of small queries costs
about half the CPU, for about 0.6 ms more a statement on an idle machine (``python bench/engine_start.py``;
figures in docs/engines.md)."""
JAVA_OPTIONS_ENV = "JARVISHUB_ENGINE_JAVA_OPTIONS"
"""The embedded engine's JVM options instead of :data:`DEFAULT_JAVA_OPTIONS`, space-separated (set but empty:
the JVM's own defaults, C2 and G1)."""
AOT_CACHE_ENV = "JARVISHUB_ENGINE_AOT_CACHE"
"""A JVM ahead-of-time cache (JDK 25's ``-XX:AOTCache``) the engine starts with instead of the machine's own
(:func:`kept_cache`), when the file exists; set but empty, none, and none is trained.  The test suite
trains one per session (``tests/engine_aot.py``); a cache that does not match the JVM, its options or its jars is
ignored by the JVM."""


def java_options() -> list[str]:
    """The JVM options the embedded engine starts with, besides its heap."""
    chosen = os.environ.get(JAVA_OPTIONS_ENV)
    options = list(DEFAULT_JAVA_OPTIONS) if chosen is None else chosen.split()
    return [*options, *cache_option()]


CACHE_HOME = "jarvishub"
"""The folder, under the user's cache folder, that holds what JarvisHub keeps between runs."""
KEPT_FOLDER = "engine-aot"


def private_cache_folder(name: str) -> Path | None:
    """``<cache>/jarvishub/NAME``, made 0700 if missing, when it is a real folder of ours that no one else can
    write; else None (what another account could plant there would run in our engines or tests)."""
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / CACHE_HOME / name
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        found = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.geteuid() or found.st_mode & 0o022:
        return None
    return folder


def cache_name(options: Sequence[str]) -> str:
    """A cache's file name: a digest of the JVM's options and of the wheel's Java runtime and jars."""
    wheel = wheel_dir()
    digest = hashlib.sha256(" ".join(options).encode())
    for path in [wheel / "jre" / "lib" / "modules", *sorted((wheel / "jars").glob("*"))]:
        with contextlib.suppress(OSError):
            found = path.stat()
            digest.update(f"{path}:{found.st_size}:{found.st_mtime_ns}".encode())
    return f"engine-{digest.hexdigest()[:16]}.aot"


def kept_cache() -> Path | None:
    """Where the machine's cache for the default JVM options is (or will be), or None when the user's cache
    folder cannot hold it safely, or the user chose the cache or the options themselves."""
    if AOT_CACHE_ENV in os.environ or JAVA_OPTIONS_ENV in os.environ:
        return None
    folder = private_cache_folder(KEPT_FOLDER)
    return folder / cache_name(DEFAULT_JAVA_OPTIONS) if folder is not None else None


def cache_option() -> list[str]:
    """The ``-XX:AOTCache`` option an engine starts with: the chosen cache, else the machine's, when it exists
    (none when it cannot be looked at: the engine starts as it did before there was a cache).  The machine's is
    marked used (:func:`remove_unused` keeps it)."""
    chosen = os.environ.get(AOT_CACHE_ENV)
    try:
        cache = Path(chosen) if chosen else None if chosen is not None else kept_cache()
        if cache is None or not cache.is_file():
            return []
        if chosen is None:
            with contextlib.suppress(OSError):
                os.utime(cache)
        return [f"-XX:AOTCache={cache}"]
    except OSError:
        return []


UNUSED_CACHE_DAYS = 30
"""A cache no engine has started with for this long is removed by the next training (another wheel's, most likely:
a wheel upgraded in place names a new cache)."""
LEFT_PARTIAL_S = 3600
"""A training's copy not renamed after this long was left by a killed training (one gives up after 600 s)."""


def remove_unused(kept: Path, *, now: float | None = None) -> list[Path]:
    """Remove, beside ``kept``, the caches unused for :data:`UNUSED_CACHE_DAYS` and the copies left by killed
    trainings; the paths removed.  An engine that loaded a cache maps it, so removing it under a running engine
    takes nothing from it."""
    now = time.time() if now is None else now
    removed = []
    for path in kept.parent.iterdir():
        if path == kept or not path.name.startswith("engine-"):
            continue
        limit = LEFT_PARTIAL_S if path.name.endswith(".partial") else \
            UNUSED_CACHE_DAYS * 86400 if path.name.endswith(".aot") else None
        with contextlib.suppress(OSError):
            if limit is not None and path.is_file() and not path.is_symlink() and now - path.stat().st_mtime > limit:
                path.unlink()
                removed.append(path)
    return removed


def lock_of(cache: Path) -> Path:
    """The lock file a training of ``cache`` holds while it runs."""
    return cache.with_name(cache.name + ".training")


def training_alive(lock: Path) -> bool:
    """Whether the process named in a training's lock file is still that process."""
    try:
        pid, started = (int(part) for part in lock.read_text().split())
    except (OSError, ValueError):
        return False
    return process.is_same_process(pid, started)


def take_lock(lock: Path) -> bool:
    """Hold the training's lock (created exclusively; one left by a dead training is taken over)."""
    mine = f"{os.getpid()} {process.start_time(os.getpid())}"
    for _ in range(2):
        try:
            descriptor = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            if training_alive(lock):
                return False
            lock.unlink(missing_ok=True)
            continue
        with os.fdopen(descriptor, "w") as out:
            out.write(mine)
        return True
    return False
