"""The ``jarvishub`` command line.

Exit codes: 0 success; 1 an unexpected failure; 2 bad input (usage, malformed
query, unknown node or thread); 3 refused (a write in user Cypher, an action
outside the grant); 4 not found (project, node); 5 paused, waiting for a
person (approval or clarification: answer with ``jarvishub resume``).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jarvishub import engine_command
from jarvishub.output import console, errors, print_json, print_rows
from jarvishub.project import Project
from jarvishub.settings import PROJECT_FILE
from store.errors import CanvasError, CypherSyntaxError, CypherWriteRefused, NodeNotFound, QueryTimeout

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_REFUSED, EXIT_NOT_FOUND, EXIT_PAUSED = 0, 1, 2, 3, 4, 5
CURRENT_FILE = Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config")) / "jarvishub" / "current-project"

DEMO_REQUESTS: dict[str, list[str]] = {
    "narrative": ["a {shots}-shot short drama about a lighthouse keeper who finds a message in a bottle"],
    "web": ["a website for a photography studio: quiet, editorial, lots of white space, black-and-white portraits",
            "make the hero full-bleed"],
    "slides": ["a {slides}-slide lecture deck on how diffusion models generate images"],
}


def project_dir(args: argparse.Namespace) -> Path:
    """-C, then $JARVISHUB_PROJECT, then the current folder if it is a project, then the last opened one."""
    if getattr(args, "project", None):
        return Path(args.project).resolve()
    if os.environ.get("JARVISHUB_PROJECT"):
        return Path(os.environ["JARVISHUB_PROJECT"]).resolve()
    if (Path.cwd() / PROJECT_FILE).exists() or not CURRENT_FILE.exists():
        return Path.cwd()
    return Path(CURRENT_FILE.read_text().strip())


def _require_project(path: Path) -> Path:
    if not (path / PROJECT_FILE).exists():
        raise FileNotFoundError(f"{path} is not a JarvisHub project (no {PROJECT_FILE}); run `jarvishub init {path}`")
    return path


@contextmanager
def opened_runtime(path: Path, **kwargs: Any) -> Iterator[Any]:
    """A project and its runtime, closed afterwards."""
    from jarvishub.runtime import Runtime

    with Project.open(_require_project(path)) as project:
        runtime = Runtime(project, **kwargs)
        try:
            yield runtime
        finally:
            runtime.close()


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


# -- running turns with progress -------------------------------------------------------------
def _run_with_progress(runtime: Any, start: Callable[[Callable[[str, dict], None]], Any], quiet: bool) -> Any:
    """Run a turn while showing which graph node runs and what the tools report."""
    if quiet:
        return start(lambda kind, data: None)
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=console,
                  transient=True) as progress:
        task = progress.add_task("starting", total=None)
        steps = {"count": 0}

        def on_event(kind: str, data: dict) -> None:
            if kind == "node":
                node = data["node"]
                update = data.get("update") or {}
                if node == "record":
                    steps["count"] += 1
                    step = (update.get("steps") or [{}])[-1]
                    action = step.get("action") or {}
                    verdict = (step.get("verdict") or {}).get("verdict", "")
                    label = action.get("tool") or action.get("kind") or "step"
                    mark = "[red]✗[/red]" if verdict == "reject" else "[green]✓[/green]"
                    progress.console.print(f"  {mark} step {steps['count']}: {label}"
                                           + (f"  ({(step.get('verdict') or {}).get('message')})"
                                              if verdict == "reject" else ""))
                progress.update(task, description=f"step {steps['count'] + 1}: {node}")
            elif kind == "progress":
                progress.update(task, description=str(data.get("message", data))[:100])

        return start(on_event)


def _report(outcome: Any, as_json: bool) -> int:
    if as_json:
        print_json(outcome.model_dump())
    else:
        if outcome.reply:
            console.print(outcome.reply)
        if outcome.outcome == "interrupted":
            question = outcome.interrupt or {}
            console.print(f"[yellow]paused ({question.get('type')}):[/yellow] "
                          f"{question.get('question') or question.get('reason') or question}")
            console.print(f"answer with: jarvishub resume {outcome.thread_id} --answer '...' "
                          "(or --approve / --reject)")
        console.print(f"[dim]thread {outcome.thread_id} · canvas v{outcome.canvas_before} → "
                      f"v{outcome.canvas_after} · {len(outcome.steps)} steps · "
                      f"{outcome.provider_calls} provider calls[/dim]")
    if outcome.outcome == "interrupted":
        return EXIT_PAUSED
    return EXIT_OK if outcome.outcome == "replied" else EXIT_REFUSED


def _layout(runtime: Any) -> None:
    try:
        from jarvishub.web.layout import layout_pending
    except ImportError:
        return
    layout_pending(runtime)


def cmd_init(args: argparse.Namespace) -> int:
    """Create a project folder (the canvas engine starts inside it)."""
    with Project.init(project_dir(args)) as project:
        info = {"project": str(project.root), "engine": project.engine.profile.name,
                "canvas_version": project.store.canvas_version()}
    _remember(Path(info["project"]))
    if args.json:
        print_json(info)
    else:
        console.print(f"project ready at {info['project']} (engine: {info['engine']})")
    return EXIT_OK


def _remember(path: Path) -> None:
    CURRENT_FILE.parent.mkdir(parents=True, exist_ok=True)
    CURRENT_FILE.write_text(str(path))


def cmd_open(args: argparse.Namespace) -> int:
    """Continue a project: make it the current one and show where it stands."""
    path = _require_project(project_dir(args))
    _remember(path)
    return cmd_status(args)


def cmd_run(args: argparse.Namespace) -> int:
    """Run one agent turn on the project."""
    with opened_runtime(project_dir(args)) as runtime:
        outcome = _run_with_progress(runtime, lambda on_event: runtime.run(
            args.request, thread_id=args.thread, profile=args.grant, selected=args.select or [],
            on_event=on_event), args.json)
        _layout(runtime)
    return _report(outcome, args.json)


def cmd_resume(args: argparse.Namespace) -> int:
    """Answer a paused turn (approval, clarification) or continue one that crashed."""
    answer: Any = args.answer
    if args.approve:
        answer = {"decision": "approve"}
    elif args.reject:
        answer = {"decision": "reject", "message": args.answer or "rejected from the command line"}
    with opened_runtime(project_dir(args)) as runtime:
        outcome = _run_with_progress(runtime, lambda on_event: runtime.resume(args.thread, answer, on_event),
                                     args.json)
        _layout(runtime)
    return _report(outcome, args.json)


def cmd_demo(args: argparse.Namespace) -> int:
    """Create a demo project and run one of the three workflows offline."""
    folder = Path(args.dir or f"jarvishub-demo-{args.workflow}").resolve()
    Project.init(folder).close()
    _remember(folder)
    code = EXIT_OK
    with opened_runtime(folder) as runtime:
        for template in DEMO_REQUESTS[args.workflow]:
            request = template.format(shots=args.shots, slides=args.slides)
            if not args.json:
                console.print(f"[bold]» {request}[/bold]")
            outcome = _run_with_progress(runtime, lambda on_event, r=request: runtime.run(r, on_event=on_event),
                                         args.json)
            code = _report(outcome, args.json)
            if code != EXIT_OK:
                break
        _layout(runtime)
    if not args.json:
        console.print(f"\nproject: {folder}\n  jarvishub -C {folder} status\n  jarvishub ui {folder}")
    return code


def cmd_status(args: argparse.Namespace) -> int:
    """Show what is on the canvas: counts by kind and status, what is stale or failed, and the code sandbox."""
    from tools.native.code import sandbox_status

    with Project.open(_require_project(project_dir(args))) as project:
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
            "turns": len(store.turns()),
            # run_code is offered only where agent code can be sandboxed; say why not when it is not.
            "code_sandbox": sandbox_status().model_dump(),
        }
    if args.json:
        print_json(info)
    else:
        console.print(f"{info['project']}  engine={info['engine']}  canvas v{info['canvas_version']}  "
                      f"{info['turns']} turns")
        print_rows(["kind", "count"], [{"kind": k, "count": v} for k, v in sorted(info["by_kind"].items())])
        print_rows(["status", "count"], [{"status": k, "count": v} for k, v in sorted(info["by_status"].items())])
        if info["attention"]:
            print_rows(["id", "kind", "title", "status"], info["attention"], title="needs attention")
        if not info["code_sandbox"]["available"]:
            console.print(f"run_code is not offered: {info['code_sandbox']['reason']}")
    return EXIT_OK


def cmd_history(args: argparse.Namespace) -> int:
    """Turns with their actions (oldest first)."""
    with opened_runtime(project_dir(args)) as runtime:
        turns = runtime.trajectories.turns(args.thread)
    rows = [{"thread": t["thread_id"][-8:], "turn": t["turn_id"][-8:], "request": t["request"],
             "actions": ", ".join((a or {}).get("tool") or (a or {}).get("kind", "?") for a in t["actions"]),
             "canvas": f"v{t['canvas_before']}→v{t['canvas_after']}", "outcome": t.get("outcome")}
            for t in turns]
    if args.json:
        print_json(turns)
    else:
        print_rows(["thread", "turn", "request", "actions", "canvas", "outcome"], rows)
    return EXIT_OK


def cmd_query(args: argparse.Namespace) -> int:
    """Run read-only Cypher against the canvas."""
    params = _parse_params(args.param or [])
    with Project.open(_require_project(project_dir(args))) as project:
        result = project.store.query(args.cypher, params, timeout_s=args.timeout, row_limit=args.limit)
    if args.json:
        print_json(result.model_dump())
    else:
        print_rows(result.columns, result.rows)
        console.print(f"{len(result.rows)} row(s){' (truncated)' if result.truncated else ''}")
    return EXIT_OK


def cmd_explore(args: argparse.Namespace) -> int:
    """Explore alternatives of a node with parallel subagents; one is selected, the rest kept as rejected."""
    from jarvishub.explore import ExploreFailed, ExploreRejected, explore

    with opened_runtime(project_dir(args)) as runtime:
        try:
            result = explore(runtime, args.node_id, args.n, args.instruction)
        except ExploreRejected as error:
            errors.print(f"[red]refused:[/red] {error}")
            return EXIT_REFUSED
        except ExploreFailed as error:
            errors.print(f"[red]failed:[/red] {error}")
            return EXIT_FAILED
        _layout(runtime)
    data = result.model_dump(mode="json")
    if args.json:
        print_json(data)
    else:
        print_rows(["label", "status", "score", "node"], [
            {"label": b.get("label"), "status": b.get("status"), "score": b.get("score"),
             "node": b.get("candidate_id") or b.get("node_id")} for b in data.get("branches") or []])
        console.print(f"selected {data.get('selected_id')}"
                      + (f"; failed branches: {[f['label'] for f in data['failed']]}" if data.get("failed") else ""))
    return EXIT_OK


def cmd_memory(args: argparse.Namespace) -> int:
    """Inspect and edit what the project remembers across turns and threads."""
    from jarvishub.settings import STATE_DIR
    from store.memory import ProjectMemory

    memory = ProjectMemory.open(_require_project(project_dir(args)) / STATE_DIR)
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
            data = [item.model_dump(mode="json") for item in memory.list()]
    finally:
        if hasattr(memory, "close"):
            memory.close()
    if args.json:
        print_json(data)
    elif args.action == "list":
        print_rows(["key", "kind", "text", "params"], data)
    else:
        console.print(data)
    return EXIT_OK


def cmd_trajectory(args: argparse.Namespace) -> int:
    """Export trajectories as JSONL, redacted; prompt and feedback text only with consent."""
    from jarvishub.trajectory import export_thread

    with opened_runtime(project_dir(args)) as runtime:
        consent = args.consent or runtime.project.settings.consent
        count = export_thread(runtime.project.store, runtime.trajectories, args.thread, Path(args.out),
                              consent=consent)
    if args.json:
        print_json({"turns": count, "out": args.out, "consent": consent})
    else:
        console.print(f"wrote {count} turn(s) to {args.out} (consent: {consent})")
    return EXIT_OK


def cmd_ui(args: argparse.Namespace) -> int:
    """Serve the web canvas on 127.0.0.1 (another interface needs --allow-remote and a token)."""
    from jarvishub.web import serve

    serve(_require_project(project_dir(args)), host=args.host, port=args.port,
          token=args.token or os.environ.get("JARVISHUB_UI_TOKEN"), allow_remote=args.allow_remote,
          person=args.person, open_browser=args.open)
    return EXIT_OK


EXAMPLES = {
    "init": "jarvishub init my-film",
    "open": "jarvishub open my-film",
    "run": "jarvishub run \"keep the character but redo the lighting on shot 7\"",
    "resume": "jarvishub resume 01J... --approve",
    "demo": "jarvishub demo narrative --shots 6",
    "status": "jarvishub status --json",
    "history": "jarvishub history",
    "query": "jarvishub query \"MATCH (n:CanvasNode) WHERE n.kind = \\$k RETURN n.title\" --param k=image",
    "explore": "jarvishub explore 01J... --n 4 \"try four lighting moods\"",
    "memory": "jarvishub memory add prefer warm lighting",
    "trajectory": "jarvishub trajectory export --thread 01J... --out turns.jsonl",
    "ui": "jarvishub ui my-film --port 8765",
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand and its example."""
    parser = argparse.ArgumentParser(
        prog="jarvishub",
        description="JarvisHub: a canvas-native harness for multimodal creative agents.",
        epilog="exit codes: 0 ok, 1 failed, 2 bad input, 3 refused, 4 not found, 5 paused for a person",
    )
    parser.add_argument("-C", "--project", help="project folder (default: $JARVISHUB_PROJECT, the current folder "
                                                "if it is a project, else the last one opened)")
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, handler: Callable[[argparse.Namespace], int], help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text, epilog=f"example:\n  {EXAMPLES[name]}",
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        p.add_argument("--json", action="store_true", help="print JSON for scripts")
        p.set_defaults(handler=handler)
        return p

    p = add("init", cmd_init, "create a project folder")
    p.add_argument("dir", nargs="?", help="the folder (default: the project folder)")
    p = add("open", cmd_open, "continue a project later: make it current and show its state")
    p.add_argument("dir", nargs="?")
    p = add("run", cmd_run, "run one agent turn: a request in plain words")
    p.add_argument("request")
    p.add_argument("--thread", help="continue this thread (default: a new one)")
    p.add_argument("--grant", help="a named grant profile from jarvishub.toml")
    p.add_argument("--select", action="append", metavar="NODE_ID", help="nodes the request is about")
    p = add("resume", cmd_resume, "answer a paused turn, or continue one that was interrupted")
    p.add_argument("thread")
    p.add_argument("--answer", help="the answer to a clarification")
    p.add_argument("--approve", action="store_true", help="approve the action waiting for approval")
    p.add_argument("--reject", action="store_true", help="reject the action waiting for approval")
    p = add("demo", cmd_demo, "create a demo project and run a workflow offline")
    p.add_argument("workflow", choices=sorted(DEMO_REQUESTS))
    p.add_argument("--dir", help="project folder (default: ./jarvishub-demo-WORKFLOW)")
    p.add_argument("--shots", type=int, default=6, help="shots in the narrative demo")
    p.add_argument("--slides", type=int, default=5, help="slides in the slides demo")
    add("status", cmd_status, "what is on the canvas, and what is stale or failed")
    p = add("history", cmd_history, "turns with their actions")
    p.add_argument("--thread")
    p = add("query", cmd_query, "run a read-only Cypher query on the canvas")
    p.add_argument("cypher")
    p.add_argument("--param", action="append", metavar="KEY=VALUE", help="a query parameter (JSON values allowed)")
    p.add_argument("--limit", type=int, default=1000, help="maximum rows (default 1000)")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds before the query is abandoned")
    p = add("explore", cmd_explore, "explore alternatives of a node with parallel subagents")
    p.add_argument("node_id")
    p.add_argument("instruction")
    p.add_argument("--n", type=int, default=4, help="number of branches")
    p = add("memory", cmd_memory, "list, add or forget remembered preferences and decisions")
    p.add_argument("action", choices=["list", "add", "forget"])
    p.add_argument("text", nargs="*", help="what to remember (add) or the item key (forget)")
    p.add_argument("--kind", choices=["preference", "decision", "rejection"],
                   help="what the item is (inferred from the text when omitted)")
    p = add("trajectory", cmd_trajectory, "export trajectories (redacted JSONL)")
    p.add_argument("action", choices=["export"])
    p.add_argument("--thread", help="one thread (default: every thread)")
    p.add_argument("--out", required=True)
    p.add_argument("--consent", action="store_true", help="include prompt and feedback text")
    p = add("ui", cmd_ui, "serve the web canvas")
    p.add_argument("dir", nargs="?")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--token", help="bearer token for write endpoints ($JARVISHUB_UI_TOKEN; generated when omitted)")
    p.add_argument("--allow-remote", action="store_true", help="allow a non-loopback --host (needs --token)")
    p.add_argument("--person", help="the name your changes are recorded under (default: your user name)")
    p.add_argument("--open", action="store_true", help="open the page in a browser")
    engine_command.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``jarvishub`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    # SIGTERM (a service manager, `timeout`) unwinds like Ctrl-C, so the embedded engine is stopped cleanly.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    if getattr(args, "dir", None) and args.command != "demo":
        args.project = args.dir
    try:
        return args.handler(args)
    except CypherWriteRefused as error:
        errors.print(f"[red]refused:[/red] {error}")
        return EXIT_REFUSED
    except (NodeNotFound, FileNotFoundError) as error:
        errors.print(f"[red]not found:[/red] {error}")
        return EXIT_NOT_FOUND
    except (CypherSyntaxError, QueryTimeout, ValueError, KeyError) as error:
        errors.print(f"[red]error:[/red] {error}")
        return EXIT_BAD_INPUT
    except CanvasError as error:
        errors.print(f"[red]error:[/red] {error}")
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
