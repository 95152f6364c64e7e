"""Reading and exploring the canvas: ``query``, ``explore``, ``memory``, ``trajectory``, ``tools``, ``skills``."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from jarvishub.commands.common import (EXIT_FAILED, EXIT_OK, EXIT_REFUSED, bounded, command, emit,
                                       opened_project, opened_runtime, opened_trajectories, parse_params, print_error,
                                       project_path)

MAX_ROWS = 100_000
MAX_TIMEOUT_S = 3600.0


def add_parser(sub: Any) -> None:
    """Register the canvas commands."""
    p = command(sub, "query", cmd_query, "run a read-only Cypher query on the canvas",
                "jarvishub query \"MATCH (n:CanvasNode) WHERE n.kind = \\$k RETURN n.title\" --param k=image")
    p.add_argument("cypher")
    p.add_argument("--param", action="append", metavar="KEY=VALUE", help="a query parameter (JSON values allowed)")
    p.add_argument("--limit", type=bounded(int, 1, MAX_ROWS), default=1000,
                   help=f"maximum rows, 1..{MAX_ROWS} (default 1000)")
    p.add_argument("--timeout", type=bounded(float, 0.001, MAX_TIMEOUT_S), default=10.0,
                   help=f"seconds before the engine stops the query, up to {MAX_TIMEOUT_S:g} (default 10)")
    p = command(sub, "explore", cmd_explore, "explore alternatives of a node with parallel subagents",
                "jarvishub explore 01J... --n 4 \"try four lighting moods\"")
    p.add_argument("node_id")
    p.add_argument("instruction")
    p.add_argument("--n", type=bounded(int, 1, 16), default=4, help="number of branches, 1..16")
    p = command(sub, "memory", cmd_memory, "list, add or forget remembered preferences and decisions",
                "jarvishub memory add prefer warm lighting")
    p.add_argument("action", choices=["list", "add", "forget"])
    p.add_argument("text", nargs="*", help="what to remember (add) or the item key (forget)")
    p.add_argument("--kind", choices=["preference", "decision", "rejection"],
                   help="what the item is (inferred from the text when omitted)")
    p = command(sub, "trajectory", cmd_trajectory, "export trajectories (redacted JSONL)",
                "jarvishub trajectory export --thread 01J... --out turns.jsonl")
    p.add_argument("action", choices=["export"])
    p.add_argument("--thread", help="one thread (default: every thread)")
    p.add_argument("--out", required=True)
    p.add_argument("--consent", action="store_true", help="include prompt and feedback text")
    command(sub, "tools", cmd_tools, "the tool manifest: families, effects, what the default grant allows",
            "jarvishub tools --json")
    command(sub, "skills", cmd_skills, "the skills an agent can call, and the tools each needs", "jarvishub skills")


_POSITION = re.compile(r"line (\d+)(?::|, column )(\d+)")


def with_caret(cypher: str, message: str) -> str:
    """The engine's message, and the query's line with a caret under the position it names."""
    if "^" in message:
        return message
    found = _POSITION.search(message)
    if not found:
        return message
    line_no, column = int(found.group(1)), int(found.group(2))
    if ", column " in found.group(0):
        column -= 1  # Neo4j counts columns from 1, ArcadeDB's "L:C" from 0
    lines = cypher.splitlines() or [""]
    line = lines[min(max(line_no, 1), len(lines)) - 1]
    return f"{message}\n  {line}\n  {' ' * max(column, 0)}^"


def cmd_query(args: argparse.Namespace) -> int:
    """Run read-only Cypher against the canvas."""
    from store.errors import CypherSyntaxError

    params = parse_params(args.param or [])
    with opened_project(args) as project:
        try:
            result = project.store.query(args.cypher, params, timeout_s=args.timeout, row_limit=args.limit)
        except CypherSyntaxError as error:
            raise CypherSyntaxError(with_caret(args.cypher, str(error))) from error

        def text() -> None:
            from jarvishub.output import console, print_rows

            print_rows(result.columns, result.rows)
            console.print(f"{len(result.rows)} row(s){' (truncated)' if result.truncated else ''}")

        emit(args, project, result.model_dump(), text)
    return EXIT_OK


def cmd_explore(args: argparse.Namespace) -> int:
    """Explore alternatives of a node with parallel subagents; one is selected, the rest kept as rejected."""
    from jarvishub.explore import ExploreFailed, ExploreRejected, explore

    with opened_runtime(args) as runtime:
        _check_explorable(runtime.project.store.get_node(args.node_id))  # NodeNotFound: exit 4
        try:
            result = explore(runtime, args.node_id, args.n, args.instruction)
        except ExploreRejected as error:
            print_error(args, EXIT_REFUSED, f"refused: {error}")
            return EXIT_REFUSED
        except ExploreFailed as error:
            print_error(args, EXIT_FAILED, f"failed: {error}")
            return EXIT_FAILED
        data = result.model_dump(mode="json")

        def text() -> None:
            from jarvishub.output import console, print_rows

            print_rows(["label", "status", "score", "node"], [
                {"label": b.get("label"), "status": b.get("status"), "score": b.get("score"),
                 "node": b.get("candidate_id") or b.get("node_id")} for b in data.get("branches") or []])
            console.print(f"selected {data.get('selected_id')}"
                          + (f", in place of {data['replaced_id']}" if data.get("replaced_id") else "")
                          + (f"; rebuilt {', '.join(str(r.get('title')) for r in data['rebuilt'])}"
                             if data.get("rebuilt") else "")
                          + (f"; failed branches: {[f['label'] for f in data['failed']]}"
                             if data.get("failed") else ""))

        emit(args, runtime.project, data, text)
    return EXIT_OK


def _check_explorable(node: Any) -> None:
    """A ValueError (exit 2) for a node explore cannot vary, in the words the explore skill would use."""
    from graphs.explore import generation_args
    from tools.base import ToolError

    try:
        generation_args(node)
    except ToolError as error:
        raise ValueError(str(error)) from None


def cmd_memory(args: argparse.Namespace) -> int:
    """Inspect and edit what the project remembers across turns and threads."""
    from jarvishub.locate import STATE_DIR
    from jarvishub.output import console, print_json, print_rows
    from store.memory import ProjectMemory

    from jarvishub.project import prepare_state_dir
    from jarvishub.settings import load_settings

    root = project_path(args)
    prepare_state_dir(root / STATE_DIR)  # ours alone, never through a link, like every command's
    # The agent's own store: Postgres when JARVISHUB_CHECKPOINT_URL (or the project file) names one.
    memory = ProjectMemory.open(root / STATE_DIR, load_settings(root).checkpoint_url)
    try:
        if args.action == "add":
            if not args.text:
                raise ValueError("memory add needs the text to remember")
            data: Any = memory.add(" ".join(args.text), kind=args.kind).model_dump(mode="json")
        elif args.action == "forget":
            if not args.text:
                raise ValueError("memory forget needs the key of the item")
            data = {"forgotten": memory.forget(args.text[0]).model_dump(mode="json")}
        else:
            data = {"items": [item.model_dump(mode="json") for item in memory.list()]}
    finally:
        if hasattr(memory, "close"):
            memory.close()
    if args.json:
        print_json({"project": str(root), **data})
        return EXIT_OK
    console.print(f"[dim]project {root.name} · {root}[/dim]")
    if args.action == "list":
        print_rows(["key", "kind", "text", "params"], data["items"])
    else:
        console.print(data)
    return EXIT_OK


def cmd_trajectory(args: argparse.Namespace) -> int:
    """Export trajectories as JSONL, redacted; prompt and feedback text only with consent."""
    from jarvishub.trajectory import export_thread

    with opened_trajectories(args) as (project, trajectories):
        consent = args.consent or project.settings.consent
        count = export_thread(project.store, trajectories, args.thread, Path(args.out), consent=consent)

        def text() -> None:
            from jarvishub.output import console

            console.print(f"wrote {count} turn(s) to {args.out} (consent: {consent})")

        emit(args, project, {"turns": count, "out": args.out, "consent": consent}, text)
    return EXIT_OK


def tool_rows(runtime: Any) -> list[dict[str, Any]]:
    """One row per manifest tool: family, effects, and what the default grant says about it."""
    from nodes.policy import default_grant

    from nodes.understanding.intent import Intent

    grant = default_grant(runtime.manifest, Intent(request=""), [])
    rows = []
    for tool in runtime.manifest.tools:
        effects = sorted(str(e.value) for e in tool.effects)
        rows.append({
            "tool": tool.name, "family": str(tool.family.value if hasattr(tool.family, "value") else tool.family),
            "effects": effects, "default_grant": grant.allows_tool(tool.name),
            "approval": tool.name in grant.approval_tools or any(e in grant.approval_effects for e in tool.effects),
            "description": tool.description,
            "parameters": tool.parameters, "returns": tool.returns,
        })
    return rows


def cmd_tools(args: argparse.Namespace) -> int:
    """The manifest's tools as a table."""
    with opened_runtime(args) as runtime:
        rows = tool_rows(runtime)
        unavailable = runtime.services.get("mcp_unavailable") or {}

        def text() -> None:
            from jarvishub.output import console, print_rows
            from tools.mcp_health import lines

            print_rows(["tool", "family", "effects", "default_grant", "approval"],
                       [{**r, "effects": ", ".join(r["effects"]) or "-",
                         "default_grant": "yes" if r["default_grant"] else "no (ask for it)",
                         "approval": "yes" if r["approval"] else "no"} for r in rows])
            for line in lines(unavailable):
                console.print(line, markup=False, highlight=False)

        emit(args, runtime.project, {"tools": rows, "mcp_unavailable": unavailable}, text)
    return EXIT_OK


def cmd_skills(args: argparse.Namespace) -> int:
    """The manifest's skills, the tools each one needs, where each came from, and the sources that failed."""
    with opened_runtime(args) as runtime:
        rows = [{"skill": s.name, "needs": s.needs_tools, "source": s.source, "triggers": s.triggers,
                 "description": s.description, "input_schema": s.input_schema, "output_schema": s.output_schema}
                for s in runtime.manifest.skills]
        problems = [p.line() for p in runtime.services.get("skill_problems") or []]

        def text() -> None:
            from jarvishub.output import console, print_rows

            print_rows(["skill", "needs", "source", "description"],
                       [{**r, "needs": ", ".join(r["needs"]) or "-"} for r in rows])
            for line in problems:
                console.print(f"not loaded: {line}", markup=False, highlight=False)

        emit(args, runtime.project, {"skills": rows, "problems": problems}, text)
    return EXIT_OK
