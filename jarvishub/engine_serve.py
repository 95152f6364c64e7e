"""``jarvishub engine serve``: keep the project's engine up for outside Neo4j tools, and say how to reach it.

The embedded engine picks free ports and fresh passwords at every start and
lingers only while someone holds a lease, so outside tools (mcp-neo4j-cypher,
langchain-neo4j, Neo4j Browser, cypher-shell) need a process that holds one and
tells them where it is.  This is that process: it opens the project (taking a
lease), prints the Bolt URI, the database and the **read-only** account, and
waits in the foreground until Ctrl-C / SIGTERM.  Then it gives its lease back;
the engine lingers for its idle period like after any command (or stops at once
with ``--stop-on-exit``).  The store's own (root) account is never printed.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from jarvishub.integrations.access import ReadOnlyAccess, read_only_access
from jarvishub.project import Project
from store import lifecycle

LAUNCHER = Path(__file__).resolve().parent / "integrations" / "mcp_cypher_launcher.py"
"""Runs mcp-neo4j-cypher so that its read tool works on ArcadeDB (docs/neo4j-tools.md)."""

_WATCH_S = 2.0
"""How often serve checks that the engine it advertises is still the one running."""


def _after_serving(idle_s: float | None, stop_on_exit: bool) -> str:
    if stop_on_exit:
        return "stops (--stop-on-exit)"
    if idle_s is None:
        return "keeps running (a Neo4j server is not ours to stop)"
    return f"lingers {idle_s:g} s (jarvishub engine stop ends it now)"


def _describe(project: Project, access: ReadOnlyAccess, after: str) -> str:
    env = " ".join(f"{key}={value}" for key, value in access.env().items())
    return (
        f"serving the canvas of {project.root} ({access.engine}); Ctrl-C stops serving\n"
        f"  bolt uri:  {access.uri}\n"
        f"  database:  {access.database}\n"
        f"  user:      {access.user}  (read-only: the engine refuses writes, schema changes and file access)\n"
        f"  password:  {access.password}\n"
        f"for Neo4j tools:\n  {env}\n"
        f"mcp-neo4j-cypher (reads on ArcadeDB): <its python> {LAUNCHER}\n"
        f"after Ctrl-C the engine {after}; the password changes when the engine restarts"
    )


def _engine_alive(project: Project) -> bool:
    """Whether the embedded engine advertised is still running (a Neo4j server is not ours to watch)."""
    data_dir = getattr(project.engine, "data_dir", None)
    if data_dir is None:
        return True
    return lifecycle.is_our_engine(lifecycle.read_state(data_dir), data_dir)


def _recorded_idle_seconds(project: Project) -> float | None:
    """The idle period the running engine's supervisor applies (set by whichever process started it)."""
    data_dir = getattr(project.engine, "data_dir", None)
    return None if data_dir is None else lifecycle.engine_status(data_dir).idle_seconds


def serve(project_dir: Path, *, as_json: bool = False, stop_on_exit: bool = False) -> int:
    """Hold the engine of ``project_dir`` up until SIGINT/SIGTERM; 0 on a requested stop, 1 if the engine died."""
    stop = threading.Event()
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig in previous:
        signal.signal(sig, lambda signum, frame: stop.set())
    try:
        with Project.open(project_dir) as project:
            access = read_only_access(project)
            idle_s = _recorded_idle_seconds(project)
            info: dict[str, Any] = {
                **access.model_dump(),
                "read_only": True,
                "project": str(project.root),
                "env": access.env(),
                "mcp_cypher_launcher": str(LAUNCHER),
                "lingers_s": None if stop_on_exit else idle_s,
            }
            text = _describe(project, access, _after_serving(idle_s, stop_on_exit))
            print(json.dumps(info) if as_json else text, flush=True)
            while not stop.wait(_WATCH_S):
                if not _engine_alive(project):
                    print("error: the engine stopped (killed, or `jarvishub engine stop`); serve again to restart it",
                          file=sys.stderr, flush=True)
                    return 1
            if stop_on_exit:
                project.engine.stop()
        print("stopped serving", file=sys.stderr, flush=True)
        return 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def handle(args: argparse.Namespace) -> int:
    """The ``engine serve`` action of the CLI."""
    from jarvishub.commands.common import project_path

    return serve(project_path(args), as_json=args.json,
                 stop_on_exit=getattr(args, "stop_on_exit", False))
