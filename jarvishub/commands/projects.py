"""Projects: ``init``, ``open``, ``status``, ``export`` and ``demo``.

Projects resolve like git repositories (see :mod:`jarvishub.locate`).  A demo
always gets a fresh folder of its own next to where you stand, so running it
twice never mixes two storyboards in one canvas.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from content.sizes import SHOTS_MAX, SHOTS_MIN, SLIDES_MAX, SLIDES_MIN
from jarvishub.commands.common import (EXIT_BAD_INPUT, EXIT_OK, command, emit, opened_project, opened_runtime,
                                       opened_trajectories, print_error, project_path, users_umask)
from jarvishub.locate import OUTPUTS_DIR, enclosing_project

DEMO_REQUESTS: dict[str, list[str]] = {
    "narrative": ["a {shots}-shot short drama about a lighthouse keeper who finds a message in a bottle"],
    "web": ["a website for a photography studio: quiet, editorial, lots of white space, black-and-white portraits",
            "make the hero full-bleed"],
    "slides": ["a {slides}-slide lecture deck on how diffusion models generate images"],
}

# What repairs a node in each status that needs attention.
REPAIR = {
    "stale": 'jarvishub run "regenerate what is stale"',
    "failed": 'jarvishub run "redo {title}"',
}


def add_parser(sub: Any) -> None:
    """Register init, open, status, export and demo."""
    p = command(sub, "init", cmd_init, "make a folder a project (default: the current folder)", "jarvishub init my-film")
    p.add_argument("dir", nargs="?", help="the folder (default: the current one)")
    p = command(sub, "open", cmd_open, "show a project's state and the paths of its latest outputs",
                "jarvishub open my-film")
    p.add_argument("dir", nargs="?", help="the project (default: the one you stand in)")
    command(sub, "status", cmd_status, "what is on the canvas, what needs attention, where the files are",
            "jarvishub status --json")
    p = command(sub, "export", cmd_export, "copy the current outputs to a folder", "jarvishub export ~/film-out")
    p.add_argument("destination", help="the folder to copy into (created if missing)")
    p = command(sub, "demo", cmd_demo, "create a fresh demo project and run a workflow offline",
                "jarvishub demo narrative --shots 6")
    p.add_argument("workflow", choices=sorted(DEMO_REQUESTS))
    p.add_argument("--dir", help="the project folder (default: a new ./jarvishub-demo-WORKFLOW[-N])")
    p.add_argument("--shots", type=int, default=6, choices=range(SHOTS_MIN, SHOTS_MAX + 1), metavar=f"{SHOTS_MIN}..{SHOTS_MAX}",
                   help="shots in the narrative demo")
    p.add_argument("--slides", type=int, default=5, choices=range(SLIDES_MIN, SLIDES_MAX + 1), metavar=f"{SLIDES_MIN}..{SLIDES_MAX}",
                   help="slides in the slides demo")


def cmd_init(args: argparse.Namespace) -> int:
    """Create the project in DIR (or -C, or the current folder); its canvas engine starts inside it."""
    from jarvishub.project import Project

    root = Path(args.dir or args.project or ".").resolve()
    with Project.init(root) as project:
        info = {"engine": project.engine.profile.name, "canvas_version": project.store.canvas_version()}

        def text() -> None:
            from jarvishub.output import console

            console.print(f"project ready (engine: {info['engine']}); next: "
                          f"{'' if root == Path.cwd().resolve() else f'cd {root} && '}jarvishub run \"...\"")

        emit(args, project, info, text)
    return EXIT_OK


def _final_outputs(files: list[Any], root: Path) -> list[str]:
    from jarvishub.outputs import headlines

    return sorted(str(root / OUTPUTS_DIR / f.path) for f in headlines(files))


def cmd_status(args: argparse.Namespace) -> int:
    """Counts by kind and status, what needs attention and how to repair it, and the latest outputs."""
    import threading

    project_path(args)  # "not a project" before anything starts
    # Probing the sandbox starts a bwrap child: let it run while the engine answers the canvas reads.  Its
    # module is imported here, not in the thread: two threads importing at once only take turns on the GIL and
    # the import locks, which made every import of the command slower.
    sandbox: dict[str, Any] = {}
    try:
        from tools.native.code import sandbox_status
    except Exception as error:  # noqa: BLE001 - status reports it rather than failing
        sandbox_status = None
        sandbox["status"] = {"available": False, "reason": f"the sandbox could not be probed: {error}"}
    probe = threading.Thread(target=_probe_sandbox, args=(sandbox_status, sandbox))
    probe.start()
    try:
        return _status(args, probe, sandbox)
    finally:
        probe.join()  # never left running past the command, whatever ended it


def _status(args: argparse.Namespace, probe: Any, sandbox: dict[str, Any]) -> int:
    from jarvishub import outputs
    from store.models import NodeStatus

    with opened_trajectories(args) as (project, trajectories):
        store = project.store
        unfinished = trajectories.unfinished()
        # While a turn is unfinished (interrupted, crashed, waiting), what it left stale or failed is its to
        # finish: `run "regenerate what is stale"` would rebuild without the request that turn still carries.
        finish_first = (f"jarvishub resume {unfinished[-1]['thread_id']} (finish the unfinished turn first)"
                        if unfinished else None)
        attention = [
            {"id": n.id, "kind": n.kind, "title": n.title, "status": n.status.value,
             "repair": finish_first or REPAIR[status].format(title=n.title or n.id)}
            for status in REPAIR
            for n in store.find_nodes(status=NodeStatus(status))
        ]
        attention += [{"id": t["thread_id"], "kind": "turn", "title": t["request"][:60],
                       "status": "unfinished or waiting for a person",
                       "repair": f"jarvishub resume {t['thread_id']}"} for t in unfinished]
        files = outputs.sync(project.root, store, project.artifacts)
        attention += [{"id": f.node_id, "kind": f.kind, "title": f.title, "status": "edited in outputs/",
                       "repair": f"the canvas's version is kept in the artifact store: remove "
                                 f"{OUTPUTS_DIR}/{f.path} and `jarvishub status` puts it back"}
                      for f in files if f.edited]
        info = {
            "engine": project.engine.profile.name,
            "canvas_version": store.canvas_version(),
            "by_kind": store.count_nodes(by="kind"),
            "by_status": store.count_nodes(by="status"),
            "attention": attention,
            "turns": len(trajectories.turns()),
            "outputs": _final_outputs(files, project.root),
        }
        spend = project_spend(project.state_dir)
        if spend is not None:
            info["spend"] = spend
        info["skill_problems"] = skill_problems(project)
        probe.join()
        # run_code is offered only where agent code can be sandboxed; say why not when it is not.
        info["code_sandbox"] = sandbox["status"]
        from tools import mcp_health

        info["mcp_unavailable"] = mcp_health.unavailable(project.state_dir, project.settings.project.get("mcp") or [],
                                                         project.root)

        def text() -> None:
            from jarvishub.output import console, print_rows

            console.print(f"engine={info['engine']}  canvas v{info['canvas_version']}  {info['turns']} turns")
            print_rows(["kind", "count"], [{"kind": k, "count": v} for k, v in sorted(info["by_kind"].items())])
            print_rows(["status", "count"],
                       [{"status": k, "count": v} for k, v in sorted(info["by_status"].items())])
            if attention:
                print_rows(["id", "kind", "title", "status", "repair"], attention, title="needs attention")
            if not info["code_sandbox"]["available"]:
                console.print(f"run_code is not offered: {info['code_sandbox']['reason']}")
            for line in mcp_health.lines(info["mcp_unavailable"]):
                console.print(line, markup=False, highlight=False)
            if spend is not None:
                console.print(spend["text"], markup=False, highlight=False)
            for line in info["skill_problems"]:
                console.print(f"skill not loaded: {line}", markup=False, highlight=False)
            _print_outputs(info["outputs"], project.root)

        emit(args, project, info, text)
    return EXIT_OK


def project_spend(state_dir: Path) -> dict[str, Any] | None:
    """What the project's turns were billed, in all and by source (agent, judge, image, ...); None if nothing."""
    from tools.spend import Spend, read_project_spend, spend_json

    ledger = read_project_spend(state_dir)
    if ledger is None:
        return None
    sources = ledger.by_source()
    total = Spend()
    for part in sources.values():
        total = total.plus(part)
    parts = ", ".join(f"{name} ${part.cost_usd:.4f}" for name, part in sorted(sources.items()))
    return {"total": spend_json(total), "by_source": {k: spend_json(v) for k, v in sources.items()},
            "text": f"spent: {total.calls} paid calls · {total.text()} ({parts})"}


def skill_problems(project: Any) -> list[str]:
    """One line per skill source of the project that fails to load (nothing is imported when it has none)."""
    from importlib.metadata import entry_points

    config = project.settings.project
    if not ((project.root / "skills").is_dir() or (config.get("skills") or {}).get("load")
            or entry_points(group="jarvishub.skills")):
        return []
    from skills.registry import discover_skills

    return [problem.line() for problem in discover_skills(project.root, config, builtins=[]).problems]


def _probe_sandbox(sandbox_status: Callable[[], Any] | None, into: dict[str, Any]) -> None:
    if sandbox_status is None:
        return
    try:
        into["status"] = sandbox_status().model_dump()
    except Exception as error:  # noqa: BLE001 - status reports it rather than failing
        into["status"] = {"available": False, "reason": f"the sandbox could not be probed: {error}"}


def _print_outputs(paths: list[str], root: Path) -> None:
    from jarvishub.output import console

    if not paths:
        console.print("no output files yet")
        return
    console.print(f"your files are in {root / OUTPUTS_DIR}; the latest:")
    for path in paths:
        console.print(f"  {path}", markup=False, highlight=False)


def cmd_open(args: argparse.Namespace) -> int:
    """Where a project's latest outputs are, so you can open them."""
    from jarvishub import outputs

    with opened_project(args) as project:
        files = outputs.sync(project.root, project.store, project.artifacts)
        finals = _final_outputs(files, project.root)
        current = [str(project.root / OUTPUTS_DIR / f.path) for f in files if f.current]
        emit(args, project, {"outputs": finals, "current": current,
                             "canvas_version": project.store.canvas_version()},
             lambda: _print_outputs(finals, project.root))
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    """Copy the current outputs (not superseded versions) into a folder."""
    from jarvishub import outputs

    destination = Path(args.destination).expanduser().resolve()
    with opened_project(args) as project:
        if (project.root / OUTPUTS_DIR) in (destination, *destination.parents):
            raise ValueError(f"export into a folder outside {project.root / OUTPUTS_DIR}")
        files = outputs.sync(project.root, project.store, project.artifacts)
        with users_umask():  # the copies are for sharing: the user's own umask, not the project's 077
            copied = outputs.export(files, project.root / OUTPUTS_DIR, destination)

        def text() -> None:
            from jarvishub.output import console

            console.print(f"copied {len(copied)} file(s) to {destination}", markup=False)

        emit(args, project, {"destination": str(destination), "files": [str(p) for p in copied]}, text)
    return EXIT_OK


def demo_folder(workflow: str, where: Path) -> Path:
    """A fresh folder for a demo: ``jarvishub-demo-NAME``, then ``-2``, ``-3``… next to ``where``.

    Never inside an existing project: standing in one, the demo goes next to it.
    """
    inside = enclosing_project(where)
    parent = inside.parent if inside is not None else where.resolve()
    base = parent / f"jarvishub-demo-{workflow}"
    candidate, number = base, 1
    while candidate.exists():
        number += 1
        candidate = parent / f"{base.name}-{number}"
    return candidate


def cmd_demo(args: argparse.Namespace) -> int:
    """Create a demo project and run one of the three workflows offline."""
    from jarvishub import outputs
    from jarvishub.commands.turns import report
    from jarvishub.output import console
    from jarvishub.project import Project

    if args.dir:
        folder = Path(args.dir).expanduser().resolve()
        inside = enclosing_project(folder)
        if inside is not None:
            print_error(args, EXIT_BAD_INPUT, f"error: {folder} is inside the project {inside}; a demo makes a "
                                              "project of its own: pick a --dir outside it")
            return EXIT_BAD_INPUT
        if folder.exists() and any(folder.iterdir()):
            print_error(args, EXIT_BAD_INPUT, f"error: {folder} is not empty; pick a new --dir")
            return EXIT_BAD_INPUT
    else:
        folder = demo_folder(args.workflow, Path.cwd())
    Project.init(folder).close()
    args.project = str(folder)
    code = EXIT_OK
    turns: list[dict[str, Any]] = []
    with opened_runtime(args) as runtime:
        from jarvishub.commands.turns import announce, drive, turn_document
        from store.models import new_id

        for number, template in enumerate(DEMO_REQUESTS[args.workflow]):
            request = template.format(shots=args.shots, slides=args.slides)
            thread_id = new_id()
            if not args.json:
                console.print(f"[bold]» {request}[/bold]", markup=True, highlight=False)
            outcome = drive(args, runtime, thread_id, lambda on_event, r=request, t=thread_id, n=number: runtime.run(
                r, thread_id=t, on_event=on_event,
                on_started=lambda _: announce(args, runtime, t, "starting", name_project=n == 0)))
            code = report(args, runtime, outcome, quiet_json=True)
            turns.append({"request": request, **turn_document(runtime, outcome)})
            if code != EXIT_OK:
                break
        files = outputs.sync(folder, runtime.project.store, runtime.project.artifacts)
    if args.json:  # one document for the whole demo, however many turns it ran
        from jarvishub.output import print_json

        print_json({"project": str(folder), "workflow": args.workflow, "result": turns[-1]["result"],
                    "exit_code": code, "turns": turns,
                    "outputs": [str(folder / OUTPUTS_DIR / f.path) for f in outputs.headlines(files)]})
    else:
        finals = [f.path for f in outputs.headlines(files)]
        if code == EXIT_OK:
            console.print(f"\nyour files are in {folder / OUTPUTS_DIR}", markup=False, highlight=False)
        else:  # "your files are in" after a failed step read as a demo that worked
            made = f"what it made before that is in {folder / OUTPUTS_DIR}" if finals else "it made no files"
            console.print(f"\nthe demo stopped at '{turns[-1]['request']}' (exit {code}); {made}", markup=False,
                          highlight=False)
        console.print(f"  cd {folder.name if folder.parent == Path.cwd().resolve() else folder}", markup=False,
                      highlight=False)
        console.print("  jarvishub status" if code == EXIT_OK else "  jarvishub history", markup=False)
        for path in finals:
            console.print(f"  open {OUTPUTS_DIR}/{path}", markup=False, highlight=False)
    return code
