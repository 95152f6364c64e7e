"""The ``jarvishub`` command line.

Exit codes: 0 success; 1 an unexpected failure; 2 bad input (usage, malformed
query, unknown node); 3 refused (a write in user Cypher, an action outside the
grant); 4 not found (project, node).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jarvishub.output import errors, print_json, print_rows
from jarvishub.project import Project
from store.errors import CanvasError, CypherSyntaxError, CypherWriteRefused, NodeNotFound, QueryTimeout

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_REFUSED, EXIT_NOT_FOUND = 0, 1, 2, 3, 4

Command = Callable[[argparse.Namespace], int]


def _project_dir(args: argparse.Namespace) -> Path:
    return Path(args.project or os.environ.get("JARVISHUB_PROJECT") or ".").resolve()


def _parse_params(pairs: list[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"--param takes key=value, got {pair!r}")
        key, raw = pair.split("=", 1)
        try:
            params[key] = json.loads(raw)
        except json.JSONDecodeError:
            params[key] = raw
    return params


def cmd_init(args: argparse.Namespace) -> int:
    """Create a project folder (the canvas engine starts inside it)."""
    with Project.init(_project_dir(args)) as project:
        info = {"project": str(project.root), "engine": project.engine.profile.name, "canvas_version": project.store.canvas_version()}
    if args.json:
        print_json(info)
    else:
        print(f"project ready at {info['project']} (engine: {info['engine']})")
    return EXIT_OK


def cmd_query(args: argparse.Namespace) -> int:
    """Run read-only Cypher against the canvas."""
    params = _parse_params(args.param or [])
    with Project.open(_project_dir(args)) as project:
        result = project.store.query(args.cypher, params, timeout_s=args.timeout, row_limit=args.limit)
    if args.json:
        print_json(result.model_dump())
    else:
        print_rows(result.columns, result.rows)
        print(f"{len(result.rows)} row(s){' (truncated)' if result.truncated else ''}")
    return EXIT_OK


def cmd_status(args: argparse.Namespace) -> int:
    """Show what is on the canvas: counts by kind and status, and what is stale or failed."""
    with Project.open(_project_dir(args)) as project:
        store = project.store
        info = {
            "project": str(project.root),
            "engine": project.engine.profile.name,
            "canvas_version": store.canvas_version(),
            "by_kind": store.count_nodes(by="kind"),
            "by_status": store.count_nodes(by="status"),
            "attention": [
                {"id": n.id, "kind": n.kind, "title": n.title, "status": n.status.value}
                for status in ("stale", "failed")
                for n in store.find_nodes(status=status)  # type: ignore[arg-type]
            ],
        }
    if args.json:
        print_json(info)
    else:
        print(f"{info['project']}  engine={info['engine']}  canvas version {info['canvas_version']}")
        print_rows(["kind", "count"], [{"kind": k, "count": v} for k, v in sorted(info["by_kind"].items())])
        print_rows(["status", "count"], [{"status": k, "count": v} for k, v in sorted(info["by_status"].items())])
        if info["attention"]:
            print_rows(["id", "kind", "title", "status"], info["attention"], title="needs attention")
    return EXIT_OK


EXAMPLES = {
    "init": "jarvishub init my-film",
    "query": "jarvishub query \"MATCH (n:CanvasNode) WHERE n.kind = \\$k RETURN n.title\" --param k=image",
    "status": "jarvishub status --json",
}

COMMANDS: dict[str, Command] = {"init": cmd_init, "query": cmd_query, "status": cmd_status}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand and its example."""
    parser = argparse.ArgumentParser(
        prog="jarvishub",
        description="JarvisHub: a canvas-native harness for multimodal creative agents.",
    )
    parser.add_argument("-C", "--project", help="project folder (default: $JARVISHUB_PROJECT or the current folder)")
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text, epilog=f"example:\n  {EXAMPLES[name]}",
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        p.add_argument("--json", action="store_true", help="print JSON for scripts")
        p.set_defaults(handler=COMMANDS[name])
        return p

    p = add("init", "create a project folder")
    p.add_argument("dir", nargs="?", help="the folder (default: the project folder)")
    p = add("query", "run a read-only Cypher query on the canvas")
    p.add_argument("cypher")
    p.add_argument("--param", action="append", metavar="KEY=VALUE", help="a query parameter (JSON values allowed)")
    p.add_argument("--limit", type=int, default=1000, help="maximum rows (default 1000)")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds before the query is abandoned")
    add("status", "what is on the canvas, and what is stale or failed")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``jarvishub`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "dir", None):
        args.project = args.dir
    try:
        return args.handler(args)
    except CypherWriteRefused as error:
        errors.print(f"[red]refused:[/red] {error}")
        return EXIT_REFUSED
    except NodeNotFound as error:
        errors.print(f"[red]not found:[/red] {error}")
        return EXIT_NOT_FOUND
    except (CypherSyntaxError, QueryTimeout, ValueError) as error:
        errors.print(f"[red]error:[/red] {error}")
        return EXIT_BAD_INPUT
    except CanvasError as error:
        errors.print(f"[red]error:[/red] {error}")
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
