"""The ``jarvishub`` command line.

Exit codes: 0 what was asked was done; 1 a step failed; 2 bad input (usage,
malformed query, a request the planner cannot do); 3 refused (a write in user
Cypher, an action outside the grant); 4 not found (project, node, shot);
5 paused, waiting for a person (answer with ``jarvishub resume``).

Each group of subcommands is a module of :mod:`jarvishub.commands` (or any
module with ``add_parser(subparsers)``) listed in :data:`COMMAND_MODULES`.
Nothing heavy is imported until a command runs: ``--help`` and argument errors
never load LangGraph, the engine driver or Pillow.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import signal
import sys
from pathlib import Path
from typing import NoReturn

from jarvishub.commands.common import EXIT_CODES_HELP, exit_for_error, print_error, private_umask
from jarvishub.commands.interrupts import report_interrupted, watch_interrupts

COMMAND_MODULES: list[str] = [
    "jarvishub.commands.projects",
    "jarvishub.commands.turns",
    "jarvishub.commands.canvas",
    "jarvishub.commands.ui",
    "jarvishub.commands.evaluate",
    "jarvishub.commands.skill",
    "jarvishub.commands.doctor",
    "jarvishub.engine_command",
]


class OneLineParser(argparse.ArgumentParser):
    """An argument error is one line naming the help to read, not the usage block (exit 2, as argparse)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand and its example."""
    parser = OneLineParser(
        prog="jarvishub",
        description="JarvisHub: a canvas-native harness for multimodal creative agents.",
        epilog=EXIT_CODES_HELP,
    )
    parser.add_argument("-C", "--project", help="the project folder (default: $JARVISHUB_PROJECT, else the "
                                                "current folder or the nearest parent that is a project)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_parser(sub)
    return parser


def examples() -> dict[str, str]:
    """Each subcommand's example, as its ``--help`` shows it."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {name: p.get_default("example") for name, p in sub.choices.items() if p.get_default("example")}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``jarvishub`` console script."""
    args = build_parser().parse_args(argv)
    private_umask()  # databases, leases, caches, outputs/ and workspace/ are the user's alone
    # The driver logs a lost connection on its own; the command says it once, with what to do next.
    logging.getLogger("neo4j").addHandler(logging.NullHandler())
    logging.getLogger("neo4j").propagate = False
    # SIGTERM (a service manager, `timeout`) unwinds like Ctrl-C, so the embedded engine is stopped cleanly.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    # Ctrl-C is a pause: one line naming `jarvishub resume THREAD`, no traceback, never a hang.
    watch_interrupts(args.command)
    if getattr(args, "dir", None) and args.command not in ("demo", "init"):
        args.project = args.dir
    try:
        return args.handler(args)
    except KeyboardInterrupt:
        return report_interrupted(args, print_error)
    except Exception as error:  # noqa: BLE001 - exit_for_error re-raises what it cannot name
        code, message = exit_for_error(error, _project_or_none(args))
        print_error(args, code, message, **({"thread_id": error.thread_id} if hasattr(error, "thread_id") else {}))
        return code


def _project_or_none(args: argparse.Namespace) -> Path | None:
    """The project the command acted on, for an error message; None when there is none."""
    from jarvishub.commands.common import project_path

    try:
        return project_path(args)
    except Exception:  # noqa: BLE001 - only a detail of the message
        return None


if __name__ == "__main__":
    sys.exit(main())
