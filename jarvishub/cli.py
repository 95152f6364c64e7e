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

from jarvishub.commands.common import EXIT_CODES_HELP, exit_for_error, print_error

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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand and its example."""
    parser = argparse.ArgumentParser(
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
    # The driver logs a lost connection on its own; the command says it once, with what to do next.
    logging.getLogger("neo4j").addHandler(logging.NullHandler())
    logging.getLogger("neo4j").propagate = False
    # SIGTERM (a service manager, `timeout`) unwinds like Ctrl-C, so the embedded engine is stopped cleanly.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    if getattr(args, "dir", None) and args.command not in ("demo", "init"):
        args.project = args.dir
    try:
        return args.handler(args)
    except Exception as error:  # noqa: BLE001 - exit_for_error re-raises what it cannot name
        code, message = exit_for_error(error)
        print_error(args, code, message, **({"thread_id": error.thread_id} if hasattr(error, "thread_id") else {}))
        return code


if __name__ == "__main__":
    sys.exit(main())
