"""Turns: ``run``, ``resume`` and ``history``.

A turn's thread id is printed before the turn does anything, so a crash
(engine killed, connection lost, Ctrl-C) always leaves the id that
``jarvishub resume`` needs on screen; the crash itself is one line naming it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from jarvishub.commands.common import (EXIT_BAD_INPUT, EXIT_OK, EXIT_PAUSED, TurnCrashed, command, emit,
                                       is_engine_failure, opened_runtime, opened_trajectories, paused_gc,
                                       print_error, provider_stop)
from jarvishub.commands.outcomes import exit_code, result_of

MAX_REQUEST_CHARS = 200_000


def add_parser(sub: Any) -> None:
    """Register run, resume and history."""
    p = command(sub, "run", cmd_run, "run one agent turn: a request in plain words",
                "jarvishub run \"keep the character but redo the lighting on shot 3\"")
    p.add_argument("request", nargs="?", help="the request; `-` reads it from stdin")
    p.add_argument("--file", metavar="F", help="read the request from a file (for long requests)")
    p.add_argument("--thread", help="continue this thread (default: a new one)")
    p.add_argument("--grant", help="a named grant profile from jarvishub.toml")
    p.add_argument("--select", action="append", metavar="NODE_ID", help="nodes the request is about")
    p = command(sub, "resume", cmd_resume, "answer a paused turn, or continue one that was interrupted",
                "jarvishub resume 01J... --answer 01J...")
    p.add_argument("thread", nargs="?", help="the thread (default: the most recent unfinished turn)")
    p.add_argument("--answer", help="the answer to a clarification (e.g. the id of the node you meant)")
    decision = p.add_mutually_exclusive_group()
    decision.add_argument("--approve", action="store_true", help="approve the action waiting for approval")
    decision.add_argument("--reject", action="store_true", help="reject the action waiting for approval")
    p = command(sub, "history", cmd_history, "turns with their actions, and turns left unfinished",
                "jarvishub history")
    p.add_argument("--thread")


def read_request(args: argparse.Namespace) -> str:
    """The request from the argument, ``-`` (stdin) or ``--file``; exactly one of them."""
    given = [source for source in (args.request, args.file) if source is not None]
    if len(given) != 1:
        raise ValueError("give the request as an argument, `-` for stdin, or --file F (exactly one)")
    if args.file is not None:
        path = Path(args.file)
        if path.is_dir():
            raise ValueError(f"--file {args.file} is a folder; give the file that holds the request")
        text = _utf8(path.read_bytes(), f"--file {args.file}")
    elif args.request == "-":
        text = _utf8(sys.stdin.buffer.read(), "the request on stdin")
    else:
        # The shell hands over bytes; Python keeps bytes that are not UTF-8 as lone surrogates.
        text = _utf8(os.fsencode(args.request), "the request")
    text = text.strip()
    if not text:
        raise ValueError("the request is empty")
    if len(text) > MAX_REQUEST_CHARS:
        raise ValueError(f"the request has {len(text)} characters; the limit is {MAX_REQUEST_CHARS}")
    return text


def _utf8(data: bytes, where: str) -> str:
    """``data`` as text, or a ValueError saying where the first byte that is not UTF-8 is."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{where} is not valid UTF-8 (byte 0x{data[error.start]:02x} at position {error.start}); "
                         "save it as UTF-8 and run the command again") from None


def check_selected(runtime: Any, selected: list[str]) -> None:
    """Every ``--select`` id names a node on the canvas (NodeNotFound, exit 4, before the turn starts)."""
    if selected:
        runtime.project.store.get_nodes(list(dict.fromkeys(selected)))


def warn_unavailable(runtime: Any) -> None:
    """One line on stderr per configured MCP server whose tools this turn goes without."""
    from tools.mcp_health import lines

    for line in lines(runtime.services.get("mcp_unavailable") or {}):
        sys.stderr.write(f"warning: {line}\n")


def announce(args: argparse.Namespace, runtime: Any, thread_id: str, verb: str, *, name_project: bool = True) -> None:
    """Name the project and the thread once the turn's start is recorded (with --json on stderr, so stdout stays
    one document): from then on ``jarvishub resume THREAD`` can take the turn up, and an interrupt says so."""
    from jarvishub.commands.common import project_line
    from jarvishub.commands.interrupts import resumable
    from jarvishub.output import console

    resumable(thread_id)
    project = runtime.project
    if args.json:
        sys.stderr.write(json.dumps({"event": "turn_started", "project": str(project.root),
                                     "thread_id": thread_id}) + "\n")
        sys.stderr.flush()
    else:
        if name_project:
            console.print(project_line(project.root, project.name), highlight=False)
        console.print(f"[dim]{verb} thread {thread_id} (if it stops: jarvishub resume {thread_id})[/dim]",
                      highlight=False)


def drive(args: argparse.Namespace, runtime: Any, thread_id: str,
           start: Callable[[Callable[[str, dict], None]], Any]) -> Any:
    """Run a turn with progress, turning an engine failure into :class:`TurnCrashed` naming the thread."""
    try:
        return _with_progress(start, quiet=args.json)
    except Exception as error:
        if is_engine_failure(error):
            raise TurnCrashed(thread_id, error) from error
        stopped = provider_stop(thread_id, error)
        if stopped is not None:
            raise stopped from error
        raise


def _with_progress(start: Callable[[Callable[[str, dict], None]], Any], quiet: bool) -> Any:
    """Show which graph node runs and what the tools report while the turn runs."""
    if quiet:
        return start(lambda kind, data: None)
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from jarvishub.output import console

    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=console,
                  transient=True) as progress:
        task = progress.add_task("starting", total=None)
        steps = {"count": 0}

        def on_event(kind: str, data: dict) -> None:
            if kind == "node":
                node = data["node"]
                if node == "record":
                    steps["count"] += 1
                    step = ((data.get("update") or {}).get("steps") or [{}])[-1]
                    action = step.get("action") or {}
                    verdict = step.get("verdict") or {}
                    label = action.get("tool") or action.get("kind") or "step"
                    rejected = verdict.get("verdict") == "reject"
                    mark = "[red]✗[/red]" if rejected else "[green]✓[/green]"
                    progress.console.print(f"  {mark} step {steps['count']}: {label}"
                                           + (f"  ({verdict.get('message')})" if rejected else ""))
                progress.update(task, description=f"step {steps['count'] + 1}: {node}")
            elif kind == "progress":
                progress.update(task, description=str(data.get("message", data))[:100])

        return start(on_event)


def _canvas_range(runtime: Any, outcome: Any) -> tuple[int, int]:
    """The canvas versions before and after a turn as its trajectory recorded them (what ``history`` shows)."""
    for turn in reversed(runtime.trajectories.turns(outcome.thread_id)):
        if turn.get("turn_id") == outcome.turn_id:
            return int(turn.get("canvas_before", 0)), int(turn.get("canvas_after", 0))
    return outcome.canvas_before, outcome.canvas_after


def turn_spend(runtime: Any, outcome: Any) -> Any:
    """What the turn was billed (``tools.spend``), or None when the runtime keeps no spend ledger."""
    ledger = runtime.services.get("spend")
    return ledger.turn(outcome.turn_id) if ledger is not None and outcome.turn_id else None


def turn_document(runtime: Any, outcome: Any) -> dict[str, Any]:
    """How a turn ended, as ``--json`` prints it."""
    before, after = _canvas_range(runtime, outcome)
    spend = turn_spend(runtime, outcome)
    return {"project": str(runtime.project.root), "result": result_of(outcome), **outcome.model_dump(),
            "canvas_before": before, "canvas_after": after,
            **({"spend": spend.model_dump(mode="json")} if spend is not None else {})}


def report(args: argparse.Namespace, runtime: Any, outcome: Any, *, quiet_json: bool = False) -> int:
    """Print how a turn ended and return its exit code (``quiet_json``: the caller prints one document for
    several turns, so this prints nothing with ``--json``)."""
    from jarvishub.output import console, print_json

    before, after = _canvas_range(runtime, outcome)
    result = result_of(outcome)
    if args.json:
        if not quiet_json:
            print_json(turn_document(runtime, outcome))
    else:
        if outcome.reply:
            console.print(outcome.reply, markup=False)
        if outcome.outcome == "interrupted":
            question = outcome.interrupt or {}
            console.print(f"[yellow]paused ({question.get('type')}):[/yellow] "
                          f"{question.get('question') or question.get('reason') or question}", markup=True)
            for candidate in question.get("candidates") or []:
                version = candidate.get("version")  # a shot's image version; a deck or a page has none here
                console.print(f"  {candidate.get('id')}  {candidate.get('title')}"
                              + (f"  v{version}" if version is not None else ""), markup=False)
            console.print(f"answer with: jarvishub resume {outcome.thread_id} --answer '...' "
                          "(or --approve / --reject)", markup=False)
        spend = turn_spend(runtime, outcome)
        billed = f" · {spend.text()}" if spend is not None and spend.calls else ""
        console.print(f"[dim]thread {outcome.thread_id} · canvas v{before} → v{after} · "
                      f"{len(outcome.steps)} steps · {outcome.provider_calls} provider calls{billed} · {result}[/dim]")
    return exit_code(outcome)


def cmd_run(args: argparse.Namespace) -> int:
    """Run one agent turn on the project."""
    from store.models import new_id

    request = read_request(args)
    thread_id = args.thread or new_id()
    with opened_runtime(args) as runtime:
        check_selected(runtime, args.select or [])
        warn_unavailable(runtime)
        outcome = drive(args, runtime, thread_id, lambda on_event: runtime.run(
            request, thread_id=thread_id, profile=args.grant, selected=args.select or [], on_event=on_event,
            on_started=lambda _: announce(args, runtime, thread_id, "starting")))
        return report(args, runtime, outcome)


def unfinished_turns(runtime: Any) -> list[dict[str, Any]]:
    """Turns that started and never finished (crashed, or waiting for a person), newest last."""
    rows = []
    for start in runtime.trajectories.unfinished():
        waiting = runtime.pending(start["thread_id"])
        rows.append({**start, "state": "waiting" if waiting else "interrupted", "question": waiting})
    return rows


def _finished(runtime: Any, thread_id: str) -> bool:
    """Whether every turn started on the thread has finished (nothing to answer or continue there)."""
    open_threads = {turn["thread_id"] for turn in runtime.trajectories.unfinished()}
    return thread_id not in open_threads and bool(runtime.trajectories.started_turns(thread_id))


def cmd_resume(args: argparse.Namespace) -> int:
    """Answer a paused turn (approval, clarification) or continue one that crashed."""
    answer: Any = args.answer
    if args.approve:
        answer = {"decision": "approve"}
    elif args.reject:
        answer = {"decision": "reject", "message": args.answer or "rejected from the command line"}
    with opened_runtime(args) as runtime:
        thread_id = args.thread
        if thread_id is None:
            pending = unfinished_turns(runtime)
            if not pending:
                print_error(args, EXIT_BAD_INPUT, "error: no unfinished turn to resume; `jarvishub history` "
                                                  "lists the turns")
                return EXIT_BAD_INPUT
            thread_id = pending[-1]["thread_id"]
        waiting = runtime.pending(thread_id)
        if waiting is None and _finished(runtime, thread_id):
            detail = ("there is no question to answer" if answer is not None
                      else "there is nothing to continue")
            print_error(args, EXIT_BAD_INPUT, f"error: the turn on thread {thread_id} has finished: {detail}; "
                                              "`jarvishub history` lists the turns")
            return EXIT_BAD_INPUT
        if waiting is not None and answer is None:
            # Resuming with no answer would answer the question with nothing: show it instead.
            from jarvishub.runtime import TurnOutcome

            outcome = TurnOutcome(thread_id=thread_id, turn_id="", outcome="interrupted", interrupt=waiting)
            report(args, runtime, outcome)
            return EXIT_PAUSED
        announce(args, runtime, thread_id, "resuming")
        outcome = drive(args, runtime, thread_id,
                         lambda on_event: runtime.resume(thread_id, answer, on_event))
        return report(args, runtime, outcome)


def cmd_history(args: argparse.Namespace) -> int:
    """Turns with their actions (oldest first), then the turns left unfinished."""
    from jarvishub.output import console, print_rows

    with opened_trajectories(args) as (project, trajectories):
        turns = trajectories.turns(args.thread)
        unfinished = []
        if any(not args.thread or t["thread_id"] == args.thread for t in trajectories.unfinished()):
            # whether an unfinished turn waits for a person is in its thread's checkpoint, which the runtime's graph
            # reads; without one, history reads the trajectories alone and leaves LangGraph unloaded
            with paused_gc():
                from jarvishub.runtime import Runtime
            runtime = Runtime(project)
            try:
                unfinished = [t for t in unfinished_turns(runtime) if not args.thread or t["thread_id"] == args.thread]
            finally:
                runtime.close()
        from tools.spend import Spend, read_project_spend, spend_json

        ledger = read_project_spend(project.state_dir)
        spent = ledger.by_turn() if ledger is not None else {}
        for turn in turns:
            turn["result"] = result_of(SimpleNamespace(outcome=turn.get("outcome") or "unfinished",
                                                       steps=turn.get("steps") or [], reply=turn.get("reply")))
            turn["spend"] = spend_json(spent.get(turn["turn_id"], Spend()))
        for turn in unfinished:  # what a stopped turn was billed before it stopped stays counted
            turn["spend"] = spend_json(spent.get(turn["turn_id"], Spend()))
        rows = [{"thread": t["thread_id"], "request": t["request"],
                 "actions": ", ".join((a or {}).get("tool") or (a or {}).get("kind", "?") for a in t["actions"]),
                 "canvas": f"v{t['canvas_before']}→v{t['canvas_after']}", "result": t["result"],
                 "tokens": f"{t['spend']['tokens_in'] + t['spend']['tokens_out']:,}",
                 "cost": f"${t['spend']['cost_usd']:.4f}" + (" +?" if t["spend"]["unpriced"] else "")}
                for t in turns]
        open_rows = [{"thread": t["thread_id"], "request": t["request"], "state": t["state"],
                      "cost": f"${t['spend']['cost_usd']:.4f}", "resume": f"jarvishub resume {t['thread_id']}"}
                     for t in unfinished]

        def text() -> None:
            print_rows(["thread", "request", "actions", "canvas", "result", "tokens", "cost"], rows)
            if open_rows:
                print_rows(["thread", "request", "state", "cost", "resume"], open_rows, title="unfinished turns")

        emit(args, project, {"turns": turns, "unfinished": unfinished}, text)
        if not args.json and not rows and not open_rows:
            console.print("no turns yet: jarvishub run \"...\"")
    return EXIT_OK
