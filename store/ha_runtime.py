"""The ArcadeDB runtime that can replicate: where it is, and how to install it.

The ``arcadedb-embedded`` wheel the project depends on (26.10) leaves ArcadeDB's
HA module out: since ArcadeDB 26.4 replication lives in ``arcadedb-ha-raft``
(Apache Ratis), and the wheel's build excludes that jar and Ratis
(``bindings/python/scripts/jar_exclusions.txt``); no PyPI package ships them.
ArcadeDB 26.3.x has the Bolt plugin *and* its earlier built-in replication
(``com.arcadedb.server.ha``, configured with the same ``arcadedb.ha.*``
settings) inside ``arcadedb-server``, and its ``arcadedb-embedded`` wheel is on
PyPI.  A replicated canvas therefore runs that wheel's own Java runtime and
jars, unpacked (never imported: the project's Python keeps the newer wheel)
into a cache folder by ``python -m store.ha_runtime install``.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from store.errors import EngineUnavailable

HA_WHEEL = "arcadedb-embedded"
HA_VERSION = "26.3.2"
HOME_ENV = "JARVISHUB_ARCADEDB_HA_HOME"
_HA_CLASS = "com/arcadedb/server/ha/HAServer.class"


@dataclass(frozen=True)
class HaRuntime:
    """A Java runtime and an ArcadeDB classpath that has both replication and the Bolt plugin."""

    home: Path

    @property
    def java(self) -> Path:
        """The wheel's bundled ``java``."""
        return self.home / "jre" / "bin" / "java"

    @property
    def classpath(self) -> str:
        """Every jar of that ArcadeDB release."""
        return str(self.home / "jars" / "*")


def default_home() -> Path:
    """``JARVISHUB_ARCADEDB_HA_HOME``, or a per-user cache folder named after the release."""
    configured = os.environ.get(HOME_ENV)
    if configured:
        return Path(configured)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "jarvishub" / f"arcadedb-ha-{HA_VERSION}"


def _has_replication(jars: Path) -> bool:
    for jar in jars.glob("arcadedb-server-*.jar"):
        with zipfile.ZipFile(jar) as archive:
            if _HA_CLASS in archive.namelist():
                return True
    return False


def find_ha_runtime(home: Path | None = None) -> HaRuntime | None:
    """The installed runtime, or None when it is missing or lacks replication or Bolt."""
    runtime = HaRuntime(home or default_home())
    jars = runtime.home / "jars"
    if not runtime.java.is_file() or not any(jars.glob("arcadedb-bolt-*.jar")):
        return None
    return runtime if _has_replication(jars) else None


def require_ha_runtime(home: Path | None = None) -> HaRuntime:
    """The installed runtime, or a typed error saying how to install it."""
    runtime = find_ha_runtime(home)
    if runtime is None:
        raise EngineUnavailable(
            f"no ArcadeDB runtime with replication at {home or default_home()}; install it with "
            f"`python -m store.ha_runtime install` (unpacks {HA_WHEEL}=={HA_VERSION} from PyPI)"
        )
    return runtime


def _extract(wheel: Path, target: Path) -> None:
    """Unpack the wheel's ``jre/`` and ``jars/`` into ``target``, keeping the executable bits zip records."""
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            name = info.filename
            if not name.startswith(("arcadedb_embedded/jre/", "arcadedb_embedded/jars/")) or name.endswith("/"):
                continue
            out = target / name.removeprefix("arcadedb_embedded/")
            out.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as source, open(out, "wb") as sink:
                shutil.copyfileobj(source, sink)
            mode = (info.external_attr >> 16) & 0o777
            if mode & stat.S_IXUSR or "/bin/" in name or name.endswith("/jspawnhelper"):
                os.chmod(out, 0o755)


def install_ha_runtime(home: Path | None = None) -> HaRuntime:
    """Download the release's wheel with pip (PyPI) and unpack its runtime; a no-op when already there."""
    home = home or default_home()
    found = find_ha_runtime(home)
    if found is not None:
        return found
    with tempfile.TemporaryDirectory(prefix="arcadedb-ha-") as scratch:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
             f"{HA_WHEEL}=={HA_VERSION}", "-d", scratch],
            check=True, timeout=600,
        )
        wheel = next(Path(scratch).glob("*.whl"))
        home.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=home.parent))
        try:
            _extract(wheel, staging)
            if home.exists():
                shutil.rmtree(home)
            staging.rename(home)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return require_ha_runtime(home)


if __name__ == "__main__":  # python -m store.ha_runtime install|where
    if len(sys.argv) != 2 or sys.argv[1] not in ("install", "where"):
        sys.exit("usage: python -m store.ha_runtime install|where")
    if sys.argv[1] == "install":
        print(install_ha_runtime().home)
    else:
        found = find_ha_runtime()
        print(found.home if found else f"not installed (expected at {default_home()})")
        sys.exit(0 if found else 1)
