"""The embedded default engine: an ArcadeDB server from the ``arcadedb-embedded`` wheel, spoken to over Bolt.

With no ``NEO4J_URI``, JarvisHub runs ArcadeDB itself:

* the server is a separate process (the wheel's bundled Java runtime and jars),
  bound to 127.0.0.1 on free ports, with its data in ``<project>/.jarvishub/engine``;
* its users file is written before start with hashed passwords for ``root`` and
  a read-only account, so no secret is on its command line or in its environment;
* ``engine.json`` (0600) records the ports, passwords, pid and start time, so a
  second process of the same project reuses the running server;
* the server lingers after the last process closes and its detached supervisor stops
  it after the idle period (see :mod:`store.lifecycle`).
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import hashlib
import json
import os
import secrets
import socket
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import neo4j

from store import lifecycle, process
from store.arcadedb_security import READER_USER, ROOT_USER, write_security_files
from store.engine import ARCADEDB_PROFILE, ARCADEDB_SCHEMA_SQL, Engine, EngineLimits, init_canvas_meta
from store.errors import EngineUnavailable
from store.jvm import (  # noqa: F401  (the engine's JVM; its names are imported from here too)
    AOT_CACHE_ENV,
    DEFAULT_JAVA_OPTIONS,
    JAVA_OPTIONS_ENV,
    java_options,
    wheel_dir,
)
from store.locks import ProjectLocks
from store.private_files import ensure_private_dir, ensure_private_tree, read_private, write_private

_START_TIMEOUT_S = 90.0
# What the engine and its supervisor inherit: enough to run, nothing secret (API keys stay with us).
ENGINE_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV",
             # the supervisor is Python run from the checkout: where (and whether) it may write bytecode
             "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX",
             lifecycle.EVENT_LOG_ENV)


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


_PORT_ATTEMPTS = 3
"""How often a start picks new ports when another process took one of them first."""


def _taken_by_another(pid: int, ports: tuple[int, ...]) -> bool:
    """Whether one of ``ports`` answers although the process ``pid`` does not listen on it."""
    mine = process.listening_ports(pid)
    return any(port not in mine and _port_open(port) for port in ports)


def _child_env() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key in ENGINE_ENV}


class EmbeddedArcadeEngine(Engine):
    """ArcadeDB started (or reused) for one project folder."""

    profile = ARCADEDB_PROFILE

    def __init__(
        self,
        data_dir: Path,
        *,
        heap: str = "1g",
        default_database: str = "canvas",
        idle_seconds: float | None = None,
        limits: EngineLimits | None = None,
    ) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.data_dir.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        ensure_private_dir(self.data_dir)  # ours alone, never a link: it will hold the passwords
        ensure_private_dir(self.data_dir / "leases")
        self.default_database = default_database
        self.idle_seconds = lifecycle.idle_seconds_from_env() if idle_seconds is None else idle_seconds
        self.limits = limits or EngineLimits()
        self.locks = ProjectLocks(self.data_dir, query_slots=self.limits.query_slots,
                                  agent_query_slots=self.limits.agent_query_slots)
        self._heap = heap
        self._lease: Path | None = None
        self._info = self._start_or_reuse()
        self._uri = f"bolt://127.0.0.1:{self._info['bolt_port']}"
        self.driver = neo4j.GraphDatabase.driver(self._uri, auth=(ROOT_USER, self._info["password"]))
        self.reader_driver = neo4j.GraphDatabase.driver(self._uri, auth=(READER_USER, self._info["reader_password"]))
        self._closed = False
        atexit.register(self.close)

    # -- lifecycle ---------------------------------------------------------------
    @property
    def server_pid(self) -> int:
        """The pid of the ArcadeDB server process."""
        return int(self._info["pid"])

    @property
    def start_seconds(self) -> float:
        """How long this process waited for the server (0 when it reused a running one)."""
        return float(self._info.get("waited_s", 0.0))

    def _start_or_reuse(self) -> dict[str, Any]:
        with lifecycle.engine_lock(self.data_dir):
            info = lifecycle.read_state(self.data_dir)
            if lifecycle.is_our_engine(info, self.data_dir) and lifecycle.supervisor_alive(info):
                assert info is not None
                if process.listens_on(int(info["pid"]), (int(info["bolt_port"]), int(info["http_port"]))):
                    info["waited_s"] = 0.0
                    self._lease = lifecycle.take_lease(self.data_dir)
                    return info
            # Not running, deaf, unsupervised, moved here, or the record is gone or names some other process
            # now: stop every engine of this folder (by identity), then start one.
            lifecycle.stop_server(self.data_dir, info)
            info = self._launch()
            self._lease = lifecycle.take_lease(self.data_dir)
            return info

    def _launch(self, attempt: int = 1) -> dict[str, Any]:
        wheel = wheel_dir()
        java = wheel / "jre" / "bin" / "java"
        if not java.exists():
            raise EngineUnavailable(f"the arcadedb-embedded wheel has no Java runtime at {java}; reinstall it")
        bolt_port, http_port = process.free_ports(2)
        password, reader_password = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        root = self.data_dir / "server"
        ensure_private_tree(self.data_dir, "server", "config")
        write_security_files(
            root / "config",
            root_password=password,
            reader_password=reader_password,
            reader_row_limit=self.limits.user_row_limit,
            reader_timeout_ms=int(self.limits.statement_timeout_s * 1000),
        )
        command = [
            str(java),
            f"-Xmx{self._heap}",
            *java_options(),
            "-Djava.awt.headless=true",
            "-Dfile.encoding=UTF8",
            "-cp",
            str(wheel / "jars" / "*"),
            lifecycle.root_path_arg(self.data_dir),
            f"-Darcadedb.server.databaseDirectory={root / 'databases'}",
            # The HTTP API is needed only to create databases and their schema; loopback, same root account.
            "-Darcadedb.server.httpIncomingHost=127.0.0.1",
            f"-Darcadedb.server.httpIncomingPort={http_port}",
            "-Darcadedb.server.plugins=Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
            "-Darcadedb.bolt.host=127.0.0.1",
            f"-Darcadedb.bolt.port={bolt_port}",
            # development mode: the engine returns its own error messages (production hides them).
            "-Darcadedb.server.mode=development",
            "-Darcadedb.serverMetrics=false",
            # No Cypher reads files or URLs, whoever asks (the reader is also refused by its group).
            "-Darcadedb.opencypher.loadCsv.allowFileUrls=false",
            "-Darcadedb.opencypher.loadCsv.allowRemoteUrls=false",
            # The engine-side bound of every statement: a runaway query dies here even if its client left.
            f"-Darcadedb.command.timeout={int(self.limits.statement_timeout_s * 1000)}",
            "com.arcadedb.server.ArcadeDBServer",
        ]
        started = time.monotonic()
        token = secrets.token_hex(8)
        # The server runs as the child of its supervisor, which stops it when idle, when this folder goes
        # away, and takes it along when it dies itself (store.lifecycle).
        supervisor = process.spawn_detached(
            [sys.executable, "-m", "store.lifecycle", "supervise", str(self.data_dir), str(self.idle_seconds),
             token, str(os.getpid()), "--", *command],
            log=self.data_dir / "engine.log", cwd=Path(__file__).resolve().parent.parent, env=_child_env(),
        )
        supervisor_start = process.start_time(supervisor)
        try:
            return self._wait_for_server(supervisor, supervisor_start, token, started, bolt_port, http_port, password,
                                         reader_password, attempt)
        except BaseException as error:
            # Interrupted (Ctrl-C) or failed while the server starts: nobody will record it, so stop it now.  On
            # Ctrl-C the supervisor is sent the stop, not waited for: it takes its server down by itself.
            process.terminate(supervisor, supervisor_start or 0, timeout_s=10,
                              wait=not isinstance(error, KeyboardInterrupt))
            raise

    def _wait_for_server(self, supervisor: int, supervisor_start: int | None, token: str, started: float,
                         bolt_port: int, http_port: int, password: str, reader_password: str,
                         attempt: int) -> dict[str, Any]:
        """Wait until the supervised server listens on its ports, then record it; returns the record."""
        while (launch := lifecycle.read_launch(self.data_dir, token)) is None:
            if not process.is_same_process(supervisor, supervisor_start):
                raise EngineUnavailable(self._exited_while_starting())
            if time.monotonic() - started > _START_TIMEOUT_S:
                process.terminate(supervisor, supervisor_start or 0, timeout_s=5)
                raise EngineUnavailable(f"ArcadeDB did not start within {_START_TIMEOUT_S:.0f} s")
            time.sleep(0.02)
        pid, start = int(launch["pid"]), launch.get("start_time")
        polls = 0
        # Polled quickly (the listening rows only) while the server starts, thoroughly once a second: each full
        # read of the tables costs tens of ms of kernel time that the starting JVM could use.
        while not process.listens_on(pid, (bolt_port, http_port), leading_only=polls % 20 != 19):
            polls += 1
            alive = process.is_same_process(pid, start)
            checked = polls % 20 == 0 or not alive  # a server that lost a port to another may just have exited
            if attempt < _PORT_ATTEMPTS and checked and _taken_by_another(pid, (bolt_port, http_port)):
                # Another server took a port between our pick and our bind: stop ours and pick again,
                # rather than let our driver talk to someone else's server.
                process.terminate(supervisor, supervisor_start or 0, timeout_s=10)
                return self._launch(attempt + 1)
            if not alive:
                process.terminate(supervisor, supervisor_start or 0, timeout_s=5)
                raise EngineUnavailable(self._exited_while_starting())
            if time.monotonic() - started > _START_TIMEOUT_S:
                process.terminate(supervisor, supervisor_start or 0, timeout_s=5)
                raise EngineUnavailable(f"ArcadeDB did not open its ports within {_START_TIMEOUT_S:.0f} s")
            time.sleep(0.05)
        info = {
            "pid": pid,
            "start_time": start,
            "bolt_port": bolt_port,
            "http_port": http_port,
            "password": password,
            "reader_password": reader_password,
            "started_at": time.time(),
            "idle_seconds": self.idle_seconds,
            "waited_s": round(time.monotonic() - started, 3),
            "supervisor_pid": supervisor,
            "supervisor_start": supervisor_start,
        }
        lifecycle.write_state(self.data_dir, info)
        lifecycle.log_event(event="engine_start", token=token, data_dir=str(self.data_dir), waited_s=info["waited_s"],
                            test=os.environ.get("PYTEST_CURRENT_TEST", ""))
        return info

    def _exited_while_starting(self) -> str:
        """Why the server exited while starting, as far as its log says (a full disk shows there first)."""
        log = self.data_dir / "engine.log"
        try:
            with open(log, "rb") as handle:
                handle.seek(max(0, handle.seek(0, os.SEEK_END) - 8192))
                tail = handle.read().decode(errors="replace")
        except OSError:
            tail = ""
        full = next((line.strip() for line in reversed(tail.splitlines()) if "No space left on device" in line), "")
        return f"ArcadeDB exited while starting{f' ({full[:200]})' if full else ''}; see {log}"

    def close(self) -> None:
        """Close the drivers and give up this process's lease; the supervisor stops the server after the idle period."""
        if getattr(self, "_closed", True):
            return
        self._closed = True
        for driver in (self.driver, self.reader_driver):
            with contextlib.suppress(Exception):
                driver.close()
        with lifecycle.engine_lock(self.data_dir):
            if self._lease is not None:
                self._lease.unlink(missing_ok=True)

    def stop(self, *, wait: bool = True) -> None:
        """Close, then stop the server now whoever else uses it (tests, `jarvishub engine stop`); ``wait=False``:
        send it the stop and return (an interrupted command), it shuts down by itself."""
        self.close()
        lifecycle.stop_engine(self.data_dir, wait=wait)

    # -- databases ---------------------------------------------------------------
    def _http(self, path: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        token = base64.b64encode(f"{ROOT_USER}:{self._info['password']}".encode()).decode()
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
        """Create the database, its schema and its version counter, unless this server run already has them.

        The first command on a server records that it set ``database`` up (:meth:`_ready_record`); a later
        command on the same server, with the same schema, skips the two HTTP calls and the Bolt round trip,
        a tenth of what a warm command waits.  A restarted server or a changed schema does it all again.
        """
        ready, record = self._ready_file(database), self._ready_record()
        with contextlib.suppress(OSError, ValueError):
            if json.loads(read_private(ready)) == record:
                return
        if not self.database_exists(database):
            try:
                self._http("/api/v1/server", {"command": f"create database {database}"})
            except EngineUnavailable:
                if not self.database_exists(database):  # another process won the race
                    raise
        self._http(f"/api/v1/command/{database}", {"language": "sqlscript", "command": ";\n".join(ARCADEDB_SCHEMA_SQL)})
        init_canvas_meta(self.driver, database)
        write_private(ready, json.dumps(record).encode())

    def _ready_file(self, database: str) -> Path:
        return self.data_dir / f"ready-{database}.json"

    def _ready_record(self) -> dict[str, Any]:
        """What a set-up database is recorded with: the server run (pid and start time) and the schema."""
        schema = hashlib.sha256("\n".join(ARCADEDB_SCHEMA_SQL).encode()).hexdigest()
        return {"pid": int(self._info["pid"]), "start_time": self._info.get("start_time"), "schema": schema}

    def drop_database(self, database: str) -> None:
        self._ready_file(database).unlink(missing_ok=True)
        if self.database_exists(database):
            self._http("/api/v1/server", {"command": f"drop database {database}"})
