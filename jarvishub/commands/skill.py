"""Skills from the command line: ``skill new NAME`` scaffolds one, ``skill run NAME --arg k=v`` runs one.

``skill run`` submits one call of the skill's tool to the bridge, under a grant made for it from what the
skill declares: the skill's tool for the person, its needs lent to it (``Grant.skill_only_tools``), nothing
else.  Every step the skill takes is validated and committed by the bridge, as in a turn.  The exit code
comes from what the bridge did (``commands/outcomes.py``'s table): 0 done, 1 a step failed, 2 bad
arguments, 3 refused, 4 no such skill.
"""

from __future__ import annotations

import argparse
import keyword
import re
from pathlib import Path
from typing import Any

from jarvishub.commands.common import (EXIT_BAD_INPUT, EXIT_CODES_HELP, EXIT_NOT_FOUND, EXIT_OK, command,
                                       opened_runtime, parse_params, print_error, project_line, project_path)

NAME = re.compile(r"^[a-z][a-z0-9_]{0,56}$")


def add_parser(sub: Any) -> None:
    """Register ``skill new`` and ``skill run``."""
    example = "jarvishub skill run poster --arg title=\"Night Harbour\" --arg style=neon"
    parent = sub.add_parser("skill", help="make a skill (new) or run one through the bridge (run)",
                            description="make a skill (new) or run one through the bridge (run)",
                            epilog=f"example:\n  jarvishub skill new poster\n  {example}\n\n{EXIT_CODES_HELP}",
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parent.set_defaults(example=example)
    inner = parent.add_subparsers(dest="skill_command", required=True, metavar="ACTION")
    p = command(inner, "new", cmd_skill_new, "scaffold a working skill in skills/NAME.py and its test",
                "jarvishub skill new haiku_card")
    p.add_argument("name", help="the skill's name: lower case letters, digits and _")
    p = command(inner, "run", cmd_skill_run, "run one skill through the bridge and show what it made",
                "jarvishub skill run poster --arg title=\"Night Harbour\" --arg style=neon --json")
    p.add_argument("name", help="the skill (see `jarvishub skills`)")
    p.add_argument("--arg", action="append", metavar="KEY=VALUE",
                   help="an input of the skill (JSON values allowed: --arg n_shots=3 --arg ids='[\"01J...\"]')")


# -- skill new ----------------------------------------------------------------------------------------------------------
def cmd_skill_new(args: argparse.Namespace) -> int:
    """Write ``skills/NAME.py`` (a working skill) and ``tests/test_skill_NAME.py`` (its test) into the project."""
    name = args.name
    if not NAME.match(name) or keyword.iskeyword(name):
        raise ValueError(f"{name!r} is not a skill name: use lower case letters, digits and _, starting with a letter")
    root = project_path(args)
    skill_file = root / "skills" / f"{name}.py"
    test_file = root / "tests" / f"test_skill_{name}.py"
    for path in (skill_file, test_file):
        if path.exists():
            raise ValueError(f"{path.relative_to(root)} exists already; pick another name or edit it")
    from skills.registry import discover_skills

    found = discover_skills(root, _read_project_file(root))
    if name in found.sources:
        raise ValueError(f"a skill named {name!r} exists already ({found.sources[name]}); pick another name")
    words = name.replace("_", " ")
    skill_file.parent.mkdir(parents=True, exist_ok=True)
    test_file.parent.mkdir(parents=True, exist_ok=True)
    skill_file.write_text(SKILL_TEMPLATE.format(name=name, words=words, camel=_camel(name)), encoding="utf-8")
    test_file.write_text(TEST_TEMPLATE.format(name=name, words=words), encoding="utf-8")
    made = [str(skill_file.relative_to(root)), str(test_file.relative_to(root))]
    next_steps = [f"jarvishub skill run {name} --arg text=\"hello\"", f"jarvishub run \"make a {words} saying hello\"",
                  f"python -m pytest {test_file.relative_to(root)}"]
    if args.json:
        from jarvishub.output import print_json

        print_json({"project": str(root), "skill": name, "files": made, "next": next_steps})
    else:
        from jarvishub.output import console

        console.print(project_line(root))
        console.print(f"made {made[0]} (the skill) and {made[1]} (its test); next:", markup=False)
        for line in next_steps:
            console.print(f"  {line}", markup=False, highlight=False)
    return EXIT_OK


def _read_project_file(root: Path) -> dict[str, Any]:
    import tomllib

    from jarvishub.locate import PROJECT_FILE

    return tomllib.loads((root / PROJECT_FILE).read_text(encoding="utf-8"))


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_") if part) or "Skill"


SKILL_TEMPLATE = '''\
"""{name}: a {words} on the canvas, as a text node (made by `jarvishub skill new {name}`: change it freely).

Run it:      jarvishub skill run {name} --arg text="hello"
Ask for it:  jarvishub run "make a {words} saying hello"
Test it:     python -m pytest tests/test_skill_{name}.py
"""

from pydantic import BaseModel, Field

from skills.base import SkillContext, skill


class {camel}Input(BaseModel):
    text: str = Field(description="What the {words} says")


class {camel}Output(BaseModel):
    node_id: str = Field(description="The text node it made")


@skill(name="{name}", description="Put a {words} on the canvas: a text node with the given text.",
       input_model={camel}Input, output_model={camel}Output, needs=["create_node"],
       triggers=["make a {words}"])
def {name}(ctx: SkillContext, inp: {camel}Input) -> {camel}Output:
    # Every change goes through the bridge: ctx.call(tool, **arguments) runs one tool of the skill's `needs`
    # and returns what it returns (create_node: {{"created": id}}; docs/tools.md lists every tool's keys).
    made = ctx.call("create_node", kind="text", title=inp.text[:60], inputs={{"text": inp.text}}, status="completed")
    return {camel}Output(node_id=made["created"])
'''

TEST_TEMPLATE = '''\
"""Tests of the {name} skill: a request asks for it, and it runs through the bridge in a fresh project."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from nodes.skill_match import match_skill
from skills.registry import discover_skills, skill_info

PROJECT = Path(__file__).resolve().parents[1]


def jarvishub(*args, cwd):
    """The jarvishub command in a subprocess, offline (no API key), as you would run it."""
    env = {{key: value for key, value in os.environ.items() if key != "OPENAI_API_KEY"}}
    env.setdefault("JARVISHUB_ENGINE_IDLE_SECONDS", "5")  # the test project's engine stops soon after
    return subprocess.run([sys.executable, "-m", "jarvishub.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def the_skill():
    found = discover_skills(PROJECT, builtins=[])
    return next(s for s in found.skills if s.name == "{name}")


def test_a_request_asks_for_it_with_its_arguments():
    match = match_skill("make a {words} saying good morning", [skill_info(the_skill())])
    assert match is not None and match.complete, match
    assert match.tool == "skill__{name}" and match.arguments == {{"text": "good morning"}}


def test_it_runs_through_the_bridge_in_a_fresh_project(tmp_path):
    assert jarvishub("init", cwd=tmp_path).returncode == 0
    shutil.copytree(PROJECT / "skills", tmp_path / "skills")
    done = jarvishub("skill", "run", "{name}", "--arg", "text=good morning", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    made = {{node["id"]: node for node in result["made"]}}
    assert made[result["output"]["node_id"]]["kind"] == "text"
'''


# -- skill run ----------------------------------------------------------------------------------------------------------
def cmd_skill_run(args: argparse.Namespace) -> int:
    """Run one skill through the bridge under a grant of its declared needs; print what it made."""
    from pydantic import ValidationError

    from jarvishub.commands.outcomes import EXIT_FOR_RESULT

    arguments = parse_params(args.arg or [])
    with opened_runtime(args) as runtime:
        tool = f"skill__{args.name}"
        spec = runtime.registry.get(tool)
        if spec is None:
            return _no_such_skill(args, runtime)
        try:
            spec.args_schema.model_validate(arguments)
        except ValidationError as error:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in error.errors())
            print_error(args, EXIT_BAD_INPUT, f"error: the arguments of {args.name} are invalid: {problems}; its "
                                              f"inputs: {_inputs_help(spec.args_schema)}")
            return EXIT_BAD_INPUT
        report = run_skill(runtime, args.name, arguments)
        code = EXIT_FOR_RESULT[report["result"]]
        _print_run(args, runtime, report, code)
    return code


def skill_grant(name: str, needs: list[str]) -> Any:
    """The grant ``skill run`` gives: the skill's tool for the person who asked, its declared needs lent to it."""
    from nodes.grant import Grant

    return Grant(actor="person", tools=[f"skill__{name}"], skill_only_tools=[n for n in needs if n != name])


def run_skill(runtime: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Submit one call of skill ``name`` to the bridge; what it returned, what it made, and its result.

    ``result`` is a row of ``EXIT_FOR_RESULT``: done, bad_request (the bridge found the arguments invalid),
    refused (the bridge refused the call or one of the skill's steps), busy or failed.
    """
    from nodes.actions import ToolCall
    from nodes.bridge import Usage
    from store.models import new_id

    spec = runtime.registry.get(f"skill__{name}")
    grant = runtime.grants.save(skill_grant(name, sorted(spec.requires)))
    thread_id = new_id()
    before = runtime.project.store.canvas_version()
    action = ToolCall(action_id=new_id(), actor="person", tool=spec.name, args=arguments)
    submitted = runtime.bridge.submit(action, grant, Usage(), thread_id=thread_id)
    observation = dict(submitted.observation or {})
    if submitted.verdict != "allow":
        result = "bad_request" if submitted.reason == "bad_arguments" else "refused"
        error, reason = submitted.message, submitted.reason
    elif "error" in observation:
        result = ("refused" if observation.get("refused") else
                  "busy" if observation.get("error_type") == "QueryBusy" else "failed")
        error, reason = observation["error"], observation.get("refused") or observation.get("error_type")
    else:
        result, error, reason = "done", None, None
    made = _made(runtime, thread_id, before)
    return {"skill": name, "arguments": arguments, "result": result, "thread_id": thread_id, "grant_id": grant.id,
            "output": {k: v for k, v in observation.items() if k != "skill"} if result == "done" else None,
            "error": error, "reason": reason, "made": made}


def _made(runtime: Any, thread_id: str, before: int) -> list[dict[str, Any]]:
    """The nodes the run's commits wrote, with the file each shows under outputs/."""
    from jarvishub import outputs
    from jarvishub.locate import OUTPUTS_DIR

    store = runtime.project.store
    ids = list(dict.fromkeys(i for c in store.commits(since_version=before) if c.thread_id == thread_id
                             for i in c.node_ids))
    if not ids:
        return []
    files = {f.node_id: f for f in outputs.sync(runtime.project.root, store, runtime.project.artifacts)}
    return [{"id": n.id, "kind": n.kind, "title": n.title, "status": n.status.value,
             "file": str(runtime.project.root / OUTPUTS_DIR / files[n.id].path) if n.id in files else None}
            for n in store.get_nodes(ids, include_deleted=True)]


def _print_run(args: argparse.Namespace, runtime: Any, report: dict[str, Any], code: int) -> None:
    """The report on stdout (a table, or one JSON document); a run that did not succeed says why in one line on
    stderr either way."""
    from jarvishub.output import console, errors, print_json, print_rows

    if args.json:
        print_json({"project": str(runtime.project.root), **report, "exit_code": code})
    else:
        console.print(project_line(runtime.project.root, runtime.project.name))
        if report["made"]:
            print_rows(["id", "kind", "title", "status", "file"],
                       [{**n, "file": n["file"] or "-"} for n in report["made"]], title=f"{report['skill']} made")
        if report["result"] == "done":
            console.print(f"ran {report['skill']}: "
                          + ", ".join(f"{k} = {v}" for k, v in (report["output"] or {}).items()),
                          markup=False, highlight=False)
    if report["result"] != "done":
        kept = f" ({len(report['made'])} node(s) its earlier steps made stay)" if report["made"] else ""
        errors.print(f"{report['result']}: {report['skill']}: {report['error']}{kept}", markup=False, highlight=False)


def _no_such_skill(args: argparse.Namespace, runtime: Any) -> int:
    names = sorted(s.name for s in runtime.manifest.skills)
    problems = [p.line() for p in runtime.services.get("skill_problems") or []]
    related = [line for line in problems if args.name in line]
    message = f"not found: no skill named {args.name!r}; this project has: {', '.join(names)}"
    if related:
        message += "; not loaded: " + " | ".join(related)
    print_error(args, EXIT_NOT_FOUND, message)
    return EXIT_NOT_FOUND


def _inputs_help(model: Any) -> str:
    fields = []
    for name, info in model.model_fields.items():
        fields.append(name + ("" if info.is_required() else "?"))
    return ", ".join(fields) or "none"
