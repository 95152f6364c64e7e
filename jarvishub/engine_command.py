"""``jarvishub engine status|stop``: the project's embedded engine, without starting it.

Only the standard library and :mod:`store.lifecycle` are imported, so both answer
at once and neither starts a JVM.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from store.lifecycle import EngineStatus, engine_status, stop_engine

STATE_DIR = ".jarvishub"  # jarvishub.settings.STATE_DIR, not imported: that pulls in pydantic-settings


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``engine`` on the CLI's subparsers."""
    parser = subparsers.add_parser(
        "engine",
        help="the project's embedded engine: status, stop it now, or serve it to Neo4j tools",
        description="The embedded ArcadeDB engine lingers after the last command for an idle period "
        "($JARVISHUB_ENGINE_IDLE_SECONDS, default 600 s) so the next command is fast. "
        "`status` shows it; `stop` ends it now; `serve` keeps it up in the foreground and prints the Bolt URI, "
        "database and read-only account for outside Neo4j tools (docs/neo4j-tools.md).",
        epilog="examples:\n  jarvishub engine status --json\n  jarvishub engine serve --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("action", choices=["status", "stop", "serve"])
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    parser.add_argument("--stop-on-exit", action="store_true", help="serve: stop the engine when serving ends")
    parser.set_defaults(handler=handle)
    return parser


def _engine_dir(args: argparse.Namespace) -> Path:
    from jarvishub.commands.common import project_path

    return project_path(args) / STATE_DIR / "engine"


def _describe(status: EngineStatus) -> str:
    if not status.running:
        note = " (a stale record of a process that is not the engine was ignored)" if status.stale_record else ""
        return f"engine: not running{note}"
    users = ", ".join(str(pid) for pid in status.leases) or "none (lingering until idle)"
    return (
        f"engine: running, pid {status.pid}, bolt://127.0.0.1:{status.bolt_port}, up {status.uptime_s:.0f} s\n"
        f"used by: {users}\nidle period: {status.idle_seconds:g} s"
    )


def handle(args: argparse.Namespace) -> int:
    """Print the engine's status, or stop it (exit 0 either way); or serve it (:mod:`jarvishub.engine_serve`)."""
    if args.action == "serve":  # opens the project, so it imports what status/stop avoid
        from jarvishub.engine_serve import handle as serve

        return serve(args)
    folder = _engine_dir(args)
    if args.action == "stop":
        before = engine_status(folder)
        stopped = stop_engine(folder)
        if args.json:
            print(json.dumps({"stopped": stopped, "pid": before.pid}))
        else:
            print(f"engine: stopped (pid {before.pid})" if stopped else "engine: was not running")
        return 0
    status = engine_status(folder)
    print(json.dumps(status.as_dict()) if args.json else _describe(status))
    return 0

