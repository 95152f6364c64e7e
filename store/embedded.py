"""The embedded default engine: an ArcadeDB server from the ``arcadedb-embedded`` wheel, spoken to over Bolt.

With no ``NEO4J_URI``, JarvisHub runs ArcadeDB itself:

* the server is a separate process (the wheel's bundled Java runtime and jars),
  bound to 127.0.0.1 on free ports, with its data in ``<project>/.jarvishub/engine``;
* ``engine.json`` in that folder records the ports, password and pid, so a
  second process of the same project reuses the running server instead of
  starting another on the same files;
* every process that uses the server holds a lease file; the last one to close
  stops the server with SIGTERM, which runs ArcadeDB's shutdown hook and closes
  the databases cleanly.  A server whose every lease holder died is stopped by
  the next process that finds it so.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import fcntl
import json
import os
import secrets
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import neo4j

from store.engine import ARCADEDB_PROFILE, ARCADEDB_SCHEMA_SQL, Engine, init_canvas_meta
from store.errors import EngineUnavailable

_START_TIMEOUT_S = 90.0


def _wheel_dir() -> Path:
    import arcadedb_embedded

    return Path(arcadedb_embedded.__file__).parent


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child still answers kill(0); ask /proc when we can.
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.split(")")[-1].split()[0] != "Z"
    return True


class EmbeddedArcadeEngine(Engine):
    """ArcadeDB started (or reused) for one project folder."""

    profile = ARCADEDB_PROFILE

    def __init__(self, data_dir: Path, *, heap: str = "1g", default_database: str = "canvas") -> None:
        self.data_dir = Path(data_dir).resolve()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.default_database = default_database
        self._heap = heap
        self._info = self._start_or_reuse()
        self._uri = f"bolt://127.0.0.1:{self._info['bolt_port']}"
        self.driver = neo4j.GraphDatabase.driver(self._uri, auth=("root", self._info["password"]))
        self._closed = False
        atexit.register(self.close)

    # -- lifecycle ---------------------------------------------------------------
    @property
    def _state_file(self) -> Path:
        return self.data_dir / "engine.json"

    @property
    def _leases(self) -> Path:
        return self.data_dir / "leases"

    @property
    def server_pid(self) -> int:
        """The pid of the ArcadeDB server process."""
        return int(self._info["pid"])

    @property
    def start_seconds(self) -> float:
        """How long this process waited for the server (0 when it reused a running one)."""
        return float(self._info.get("waited_s", 0.0))

    def _start_or_reuse(self) -> dict[str, Any]:
        with self._lock():
            info = self._read_state()
            if info and _pid_alive(int(info["pid"])) and _port_open(int(info["bolt_port"])):
                info["waited_s"] = 0.0
                self._take_lease()
                return info
            if info and _pid_alive(int(info["pid"])):
                self._terminate(int(info["pid"]))  # running but deaf: replace it
            info = self._launch()
            self._take_lease()
            return info

    def _launch(self) -> dict[str, Any]:
        wheel = _wheel_dir()
        java = wheel / "jre" / "bin" / "java"
        if not java.exists():
            raise EngineUnavailable(f"the arcadedb-embedded wheel has no Java runtime at {java}; reinstall it")
        bolt_port, http_port = _free_port(), _free_port()
        password = secrets.token_urlsafe(18)
        root = self.data_dir / "server"
        command = [
            str(java),
            f"-Xmx{self._heap}",
            "-Djava.awt.headless=true",
            "-Dfile.encoding=UTF8",
            "-cp",
            str(wheel / "jars" / "*"),
            f"-Darcadedb.server.rootPath={root}",
            f"-Darcadedb.server.databaseDirectory={root / 'databases'}",
            f"-Darcadedb.server.rootPassword={password}",
            "-Darcadedb.server.httpIncomingHost=127.0.0.1",
            f"-Darcadedb.server.httpIncomingPort={http_port}",
            "-Darcadedb.server.plugins=Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
            "-Darcadedb.bolt.host=127.0.0.1",
            f"-Darcadedb.bolt.port={bolt_port}",
            # development mode: the engine returns its own error messages (production hides them).
            "-Darcadedb.server.mode=development",
            "-Darcadedb.serverMetrics=false",
            "com.arcadedb.server.ArcadeDBServer",
        ]
        # The root password is set only when the server's security file does not exist yet;
        # a fresh password each launch therefore needs a fresh security file.
        (root / "config" / "server-users.jsonl").unlink(missing_ok=True)
        log = open(self.data_dir / "engine.log", "ab")
        started = time.monotonic()
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
            cwd=self.data_dir,  # ArcadeDB writes its log/ folder into its working directory
        )
        log.close()
        while not _port_open(bolt_port) or not _port_open(http_port):
            if process.poll() is not None:
                raise EngineUnavailable(
                    f"ArcadeDB exited with code {process.returncode} while starting; see {self.data_dir / 'engine.log'}"
                )
            if time.monotonic() - started > _START_TIMEOUT_S:
                process.kill()
                raise EngineUnavailable(f"ArcadeDB did not open its Bolt port within {_START_TIMEOUT_S:.0f} s")
            time.sleep(0.05)
        info = {
            "pid": process.pid,
            "bolt_port": bolt_port,
            "http_port": http_port,
            "password": password,
            "started_at": time.time(),
            "waited_s": round(time.monotonic() - started, 3),
        }
        tmp = self._state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(info))
        os.chmod(tmp, 0o600)
        os.replace(tmp, self._state_file)
        return info

    def _read_state(self) -> dict[str, Any] | None:
        try:
            return json.loads(self._state_file.read_text())
        except (OSError, ValueError):
            return None

    @contextlib.contextmanager
    def _lock(self):
        with open(self.data_dir / "engine.lock", "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _take_lease(self) -> None:
        self._leases.mkdir(exist_ok=True)
        (self._leases / str(os.getpid())).touch()

    def _live_leases(self) -> list[int]:
        alive = []
        for lease in self._leases.glob("*"):
            pid = int(lease.name) if lease.name.isdigit() else -1
            if pid > 0 and _pid_alive(pid):
                alive.append(pid)
            else:
                lease.unlink(missing_ok=True)
        return alive

    @staticmethod
    def _terminate(pid: int, timeout_s: float = 30.0) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
            if not _pid_alive(pid):
                return
            time.sleep(0.05)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)

    def close(self) -> None:
        if getattr(self, "_closed", True):
            return
        self._closed = True
        with contextlib.suppress(Exception):
            self.driver.close()
        with self._lock():
            (self._leases / str(os.getpid())).unlink(missing_ok=True)
            if not self._live_leases():
                self._terminate(self.server_pid)
                self._state_file.unlink(missing_ok=True)

    # -- databases ---------------------------------------------------------------
    def _http(self, path: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        token = base64.b64encode(f"root:{self._info['password']}".encode()).decode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{self._info['http_port']}{path}",
            data=None if payload is None else json.dumps(payload).encode(),
            headers={"Authorization": f"Basic {token}", "Content-Type": "application/json"},
            method="GET" if payload is None else "POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            detail = error.read().decode(errors="replace")
            raise EngineUnavailable(f"ArcadeDB refused {payload}: {error.code} {detail}") from error

    def database_exists(self, database: str) -> bool:
        """Whether ArcadeDB has this database."""
        return database in (self._http("/api/v1/databases").get("result") or [])

    def ensure_database(self, database: str) -> None:
        if not self.database_exists(database):
            try:
                self._http("/api/v1/server", {"command": f"create database {database}"})
            except EngineUnavailable:
                if not self.database_exists(database):  # another process won the race
                    raise
        script = ";\n".join(ARCADEDB_SCHEMA_SQL)
        self._http(f"/api/v1/command/{database}", {"language": "sqlscript", "command": script})
        init_canvas_meta(self.driver, database)

    def drop_database(self, database: str) -> None:
        if self.database_exists(database):
            self._http("/api/v1/server", {"command": f"drop database {database}"})
