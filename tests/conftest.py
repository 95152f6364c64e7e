"""Shared fixtures: real engines started once per test session, a fresh canvas per test."""

from __future__ import annotations

import os
import signal
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

# Engines started by tests linger only briefly after their last user, so no JVM outlives the run.
os.environ.setdefault("JARVISHUB_ENGINE_IDLE_SECONDS", "3")

from store.connect import EngineSettings, start_engine
from store.engine import Engine
from store.neo4j import Neo4jCanvasStore
from store.tickets import TicketAuthority
from tests import engine_aot
from tests.system_tools import missing_system_tool as _missing_system_tool
from tests.system_tools import require_system_tool as _require_system_tool


# -- system programs: one marker for every test that needs Chromium or espeak-ng ----------------
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "system_tool(name, apt=None): the test needs this system program; "
                                       "skipped with an install hint when absent (failed in CI)")
    config.addinivalue_line("markers", "long_file(seconds): a file whose tests take about that long together on "
                                       "a quiet two-core machine; scheduled first")
    # xdist's default sorts files by their number of tests before handing them out; the long files have few
    # tests (several processes, engines and turns each), so they went out last and one worker ran them
    # alone at the end while the other sat idle.  Collection order, long files first, is kept instead.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False
    _session_tmp_setup(config)


# -- long files first: with `--dist loadfile` a long file that starts last ends the run alone ----------------
def _seconds(item: pytest.Item) -> float:
    marker = item.get_closest_marker("long_file")
    return float(marker.args[0]) if marker and marker.args else 0.0


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put the files marked ``long_file(seconds)`` first, longest first (collection order otherwise).

    xdist hands a worker the next file whenever it has room, so starting the long files first lets the
    short ones fill in around them at the end (``pytest_configure`` keeps xdist from re-sorting them).
    """
    items.sort(key=lambda item: -_seconds(item))


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker in item.iter_markers("system_tool"):
        _require_system_tool(*marker.args, **marker.kwargs)


# -- no engine and no temporary folder outlives the suite ------------------------------------------
ENGINE_EXIT_WAIT_S = float(os.environ.get("JARVISHUB_TEST_ENGINE_EXIT_WAIT_S", "30"))
SESSION_TMP_ENV = "JARVISHUB_TEST_TMPDIR"
"""The session's own temporary folder: every test (and every process it starts) makes its temporary files
under it (``TMPDIR``), so that what is left in it at the end was left behind by a test."""


def _is_controller(config: pytest.Config) -> bool:
    return not hasattr(config, "workerinput")  # an xdist worker has it; the controller and a plain run do not


def _session_tmp_setup(config: pytest.Config) -> None:
    """Give the session (and xdist's workers, which inherit the environment) a temporary folder of its own."""
    import tempfile

    if SESSION_TMP_ENV not in os.environ and _is_controller(config):
        folder = tempfile.mkdtemp(prefix="jarvishub-tests-")
        os.chmod(folder, 0o755)  # like /tmp for the tests' other accounts (the postgres server's, a test attacker)
        os.environ[SESSION_TMP_ENV] = folder
        os.environ["TMPDIR"] = folder
        tempfile.tempdir = None  # gettempdir() reads TMPDIR again
        if not os.environ.get("XDG_RUNTIME_DIR"):
            # A desktop session has one; without it PulseAudio's client (Chromium playing a clip) makes its
            # runtime folder in TMPDIR (pulse-XXXX), which is the machine's doing, not a test's leftover.
            runtime_dir = os.path.join(folder, RUNTIME_DIR)
            os.mkdir(runtime_dir, 0o700)
            os.environ["XDG_RUNTIME_DIR"] = runtime_dir
        _keep_bytecode(folder)
        global _aot_training
        _aot_training = engine_aot.start_training(folder)  # engines start with less CPU once it is there


_aot_training = None
"""The background process training the session's JVM cache (tests/engine_aot.py), in the controller."""
PYCACHE = "pycache"
RUNTIME_DIR = "xdg-runtime"


def _keep_bytecode(session_tmp: str) -> None:
    """Let the suite's Python processes share their compiled modules, from one session to the next.

    The suite starts hundreds of them (CLI commands, the workers): with PYTHONDONTWRITEBYTECODE set in the
    shell each compiled the checkout's modules again, about 0.4 s of CPU a command, where an installed
    jarvishub (and a checkout on CI) has its bytecode.  The cache (PYTHONPYCACHEPREFIX) is a private folder
    under the user's cache folder (``tests.engine_aot.private_cache_folder``), so the checkout is still never
    written; it outlives the session because a prefix holds the bytecode of *every* module, the installed
    packages' too: in a prefix new to the session each worker compiled LangChain, LangGraph and the checkout
    again (collecting the suite cost 25 s of CPU instead of 9 s, and the slow half's run as much again).
    Python checks each file against its source's size and time, so a stale entry is compiled again, never used.
    """
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is None:
        return
    prefix = engine_aot.private_cache_folder("test-pycache") or os.path.join(session_tmp, PYCACHE)
    os.environ["PYTHONPYCACHEPREFIX"] = str(prefix)
    sys.pycache_prefix = str(prefix)
    sys.dont_write_bytecode = False


def _left_behind(session_tmp: str) -> tuple[list[int], list[str]]:
    """Engine and supervisor processes of the session still running, and the entries of its temporary folder
    that are not pytest's own."""
    from tests.processes import session_processes

    processes = session_processes(session_tmp)
    entries = sorted(name for name in os.listdir(session_tmp)
                     if not name.startswith("pytest-of-") and name not in (engine_aot.FOLDER, PYCACHE, RUNTIME_DIR))
    return processes, entries


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when an engine (or its supervisor) started by the tests still runs once every fixture closed,
    or when a test left a temporary folder behind; on a clean pass, remove the session's temporary folder."""
    import shutil

    from tests.processes import exited

    session_tmp = os.environ.get(SESSION_TMP_ENV)
    if not session_tmp or not _is_controller(session.config) or not os.path.isdir(session_tmp):
        return
    engine_aot.finish_training(_aot_training, session_tmp)
    deadline = time.monotonic() + ENGINE_EXIT_WAIT_S  # engines closed by the last fixtures are still exiting
    alive, entries = _left_behind(session_tmp)
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = [pid for pid in alive if not exited(pid)]
    for pid in alive:  # ours (they name this session's folders): stop them so they don't linger
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")

    def fail(message: str) -> None:
        if reporter is not None:
            reporter.write_line(f"FAILED: {message}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED

    if alive:
        fail(f"engine processes started by the tests outlived the suite: {alive} (killed; data under {session_tmp})")
    if entries:
        fail(f"tests left temporary files behind in {session_tmp}: {', '.join(entries[:20])}")
    if session.exitstatus == 0:
        shutil.rmtree(session_tmp, ignore_errors=True)
    elif reporter is not None:
        reporter.write_line(f"the session's temporary files are kept in {session_tmp}")


def _engine_names() -> list[str]:
    names = ["arcadedb"]
    if os.environ.get("NEO4J_URI"):
        names.append("neo4j")
    return names


@pytest.fixture(scope="session")
def engines(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Engine]]:
    """Every engine this run can reach: embedded ArcadeDB always, Neo4j when NEO4J_URI is set."""
    started: dict[str, Engine] = {}
    started["arcadedb"] = start_engine(EngineSettings(data_dir=tmp_path_factory.mktemp("arcadedb")))
    if os.environ.get("NEO4J_URI"):
        started["neo4j"] = start_engine(
            EngineSettings(
                data_dir=tmp_path_factory.mktemp("neo4j"),
                neo4j_uri=os.environ["NEO4J_URI"],
                neo4j_user=os.environ.get("NEO4J_USER", "neo4j"),
                neo4j_password=os.environ.get("NEO4J_PASSWORD", ""),
                neo4j_database=os.environ.get("NEO4J_DATABASE", "neo4j"),
            )
        )
    yield started
    for engine in started.values():
        engine.close()


@pytest.fixture(params=_engine_names())
def engine(request: pytest.FixtureRequest, engines: dict[str, Engine]) -> Engine:
    """One engine of the run; tests using it run once per engine."""
    return engines[request.param]


@pytest.fixture
def authority() -> TicketAuthority:
    """The ticket authority the validation node would hold."""
    return TicketAuthority()


@pytest.fixture
def canvas(engine: Engine, authority: TicketAuthority) -> Iterator[Neo4jCanvasStore]:
    """A fresh, empty canvas on the engine (its own database on ArcadeDB; a wiped one on Neo4j)."""
    if engine.profile.name == "neo4j":
        database = engine.default_database
        engine.drop_database(database)
    else:
        database = "t" + uuid.uuid4().hex[:12]
    engine.ensure_database(database)
    store = Neo4jCanvasStore.on(engine, database, authority=authority)
    yield store
    store.close()
    if engine.profile.name != "neo4j":
        engine.drop_database(database)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A scratch project folder."""
    return tmp_path


@pytest.fixture
def write(canvas: Neo4jCanvasStore, authority: TicketAuthority):
    """Apply mutations with a ticket issued for exactly them, as the validation node would."""

    def _write(*mutations, key: str | None = None, actor: str = "test"):
        batch = list(mutations)
        return canvas.apply(batch, ticket=authority.issue(uuid.uuid4().hex, batch), idempotency_key=key, actor=actor)

    return _write


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, engines: dict[str, Engine]):
    """A real project shared by the tests of one module, its canvas a database of its own on the worker's
    embedded engine (``Project.open(host=...)``): one engine start per worker, not one per module.

    A module whose tests stop or kill the engine, or run the CLI on the project's folder (which finds its canvas
    in the folder's own engine), takes :func:`own_engine_project` instead.
    """
    from jarvishub.project import Project

    host = engines["arcadedb"]
    opened = Project.init(tmp_path_factory.mktemp("project") / "p", host=host)
    yield opened
    opened.close()
    host.drop_database(opened.store.database)


@pytest.fixture(scope="module")
def own_engine_project(tmp_path_factory: pytest.TempPathFactory):
    """A real project with its own embedded engine, as the CLI opens one, shared by the tests of one module."""
    from jarvishub.project import Project

    opened = Project.init(tmp_path_factory.mktemp("project") / "p")
    yield opened
    opened.close()


@pytest.fixture
def make_runtime(project):
    """Build runtimes on the module's project with a chosen chat model; closed after the test."""
    from jarvishub.runtime import Runtime

    made = []

    def _make(**kwargs):
        runtime = Runtime(project, **{"keep_browser": True, **kwargs})
        made.append(runtime)
        return runtime

    yield _make
    for runtime in made:
        runtime.close()


@pytest.fixture(scope="module")
def runtime(project):
    """One runtime on the module's project (offline planner), shared by the module's tests.

    Like every long-lived runtime the suite makes, it keeps one Chromium for its page renders
    (``Runtime(keep_browser=True)``); the CLI's one-turn processes, which the suite runs too, launch one per render.
    """
    from jarvishub.runtime import Runtime

    made = Runtime(project, keep_browser=True)
    yield made
    made.close()


@pytest.fixture
def require_system_tool():
    """``require_system_tool(name, apt=package)``: the program's path, or a skip (a failure in CI) naming the package."""
    return _require_system_tool


# -- PostgreSQL (checkpoints and memory) ------------------------------------------------------------
def _postgres_bin() -> Path | None:
    import glob
    import shutil

    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(versions[-1]).parent if versions else None


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real PostgreSQL server from Debian's packages on a free loopback port, for the whole session.

    It runs as the ``postgres`` system user when the tests run as root (the server refuses root), in a
    temporary folder, and is stopped at the end.  Yields the URL of its ``postgres`` database.
    """
    import shutil
    import socket
    import subprocess
    import tempfile

    bin_dir = _postgres_bin()
    if bin_dir is None:
        _missing_system_tool("PostgreSQL is not installed: apt-get install postgresql")
    folder = Path(tempfile.mkdtemp(prefix="jarvishub-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    data = folder / "data"
    subprocess.run([*as_user, str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "jarvishub",
                    "--no-sync", "-E", "UTF8"], check=True, capture_output=True)
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
    subprocess.run([*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l",
                    str(folder / "server.log"), "-w", "-t", "120", "start"], check=True, capture_output=True)
    try:
        yield f"postgresql://jarvishub@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                       capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: str) -> str:
    """A fresh, empty database on the session's PostgreSQL server."""
    import psycopg

    name = "t" + uuid.uuid4().hex[:12]
    with psycopg.connect(postgres_server, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return postgres_server.rsplit("/", 1)[0] + "/" + name
