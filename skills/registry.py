"""Where skills come from, and how each becomes a tool the agent can call.

Skills are found in four places; on a name clash the later one wins:

1. the built-ins (``skills/builtin.py``);
2. installed packages, through the entry point group ``jarvishub.skills``;
3. the project's ``skills/`` folder: every ``*.py`` module and package in it (names starting with ``_``
   are helpers, not loaded), like ComfyUI's ``custom_nodes``;
4. the project file's ``[skills] load = ["module:attribute", "module", ...]``: a module of the project
   (``my_skills`` is ``<project>/my_skills.py``) or, when the project has none of that name, an installed one.

Project modules are imported as submodules of a package private to the project (no ``PYTHONPATH``, no
clash with JarvisHub's own ``skills`` package or another project's modules of the same name); a project
module imports its neighbours relatively (``from ._palettes import NEON``).

A source that fails (a module that does not import, an attribute that is not a skill, a skill whose
needs name no tool of the project) disables only itself: it becomes one :class:`SkillProblem` line,
shown by ``jarvishub skills`` and ``jarvishub status``, and every other skill loads.

Each skill becomes a tool ``skill__<name>`` (family ``skill``) whose ``requires`` are the skill's needs,
so a grant that lacks any of them makes the skill unavailable that turn, and it is listed under
``skills`` in the manifest.
"""

from __future__ import annotations

import hashlib
import importlib
import re
import sys
import types
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from langgraph.errors import GraphBubbleUp
from pydantic import BaseModel, ValidationError

from nodes.bridge import Usage
from nodes.manifest import SkillInfo
from nodes.ports import BridgePort
from nodes.skill_match import SKILL_TOOL_PREFIX, describe_skill
from skills.base import Skill, SkillContext
from store.errors import CanvasError, is_engine_outage
from tools.base import ToolContext, ToolError, ToolFamily, ToolResult, ToolSpec, model_schema
from tools.project import ProjectParts, project_config

ENTRY_POINT_GROUP = "jarvishub.skills"
TOOL_PREFIX = SKILL_TOOL_PREFIX
PROJECT_SKILLS_DIR = "skills"
"""The folder of a project whose modules are loaded as skills."""
BUILTIN = "built-in"

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,56}$")  # skill__ + name stays a valid OpenAI function name (≤ 64)


class SkillProblem(BaseModel):
    """A skill source that could not be loaded, in one line: where, and why."""

    source: str
    message: str

    def line(self) -> str:
        """``source: message``, the line ``skills`` and ``status`` print."""
        return f"{self.source}: {self.message}"


@dataclass
class FoundSkills:
    """The skills of a project, where each came from, and the sources that failed."""

    skills: list[Skill] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    """Skill name → where it was loaded from (``built-in``, ``skills/poster.py``, an entry point, ...)."""
    problems: list[SkillProblem] = field(default_factory=list)

    def add(self, skill: Skill, source: str) -> None:
        """Register a skill (a later one replaces an earlier one of the same name)."""
        self.skills = [s for s in self.skills if s.name != skill.name] + [skill]
        self.sources[skill.name] = source

    def problem(self, source: str, message: str) -> None:
        """Record a source that failed, in one line."""
        self.problems.append(SkillProblem(source=source, message=" ".join(str(message).split())))

    def has(self, skill: Skill) -> bool:
        """Whether this very skill object is registered already (a module that imports one holds it too)."""
        return any(s is skill for s in self.skills)

    def drop(self, name: str, message: str) -> None:
        """Disable a skill that loaded but cannot run here."""
        source = self.sources.pop(name, name)
        self.skills = [s for s in self.skills if s.name != name]
        self.problem(source, message)


def builtin_skills() -> list[Skill]:
    """The skills JarvisHub ships."""
    from skills.builtin import BUILTIN_SKILLS

    return list(BUILTIN_SKILLS)


# -- importing a project's modules --------------------------------------------------------------------------------
def project_package(root: Path) -> str:
    """The name of the package a project's modules are imported under (one per project folder)."""
    root = Path(root).resolve()
    name = f"_jarvishub_project_{hashlib.sha256(str(root).encode()).hexdigest()[:16]}"
    if name not in sys.modules:
        package = types.ModuleType(name, f"The modules of the JarvisHub project at {root}.")
        package.__path__ = [str(root)]
        package.__package__ = name
        sys.modules[name] = package
    return name


def _project_module_file(root: Path, dotted: str) -> Path | None:
    """The file (or folder) of the project that ``dotted`` names, if the project has one."""
    base = root.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py", base):
        if candidate.is_file() or (candidate == base and base.is_dir()):
            return candidate
    return None


def _import(root: Path | None, dotted: str) -> types.ModuleType:
    """A module of the project when it has one of that name, else an installed module.

    The project's ``skills/`` folder needs no ``__init__.py``: under the project's package it is a
    namespace package, so ``skills/poster.py`` is ``<project package>.skills.poster``.
    """
    if root is not None and _project_module_file(root, dotted) is not None:
        return importlib.import_module(f"{project_package(root)}.{dotted}")
    return importlib.import_module(dotted)


def _why(error: BaseException) -> str:
    """One line for an error: its type and message (a syntax error's file and line are in its message)."""
    if isinstance(error, SyntaxError):
        where = f"{Path(error.filename).name}, line {error.lineno}" if error.filename else f"line {error.lineno}"
        return f"SyntaxError: {error.msg} ({where})"
    return f"{type(error).__name__}: {error}"


# -- from a module or an attribute to skills ---------------------------------------------------------------------
def _as_skill(value: Any, what: str) -> Skill:
    if isinstance(value, Skill):
        return value
    if callable(value) and not isinstance(value, type):
        made = value()  # a factory: a function with no arguments returning a Skill
        if isinstance(made, Skill):
            return made
        raise TypeError(f"{what}() returned {type(made).__name__}, not a Skill")
    raise TypeError(f"{what} is not a Skill but {type(value).__name__} (make one with @skill, Skill(...) or "
                    "skills.compose)")


def _skills_in(module: types.ModuleType) -> list[Skill]:
    """Every Skill a module holds at its top level, in definition order."""
    seen: set[int] = set()
    found = []
    for value in vars(module).values():
        if isinstance(value, Skill) and id(value) not in seen:
            seen.add(id(value))
            found.append(value)
    return found


def _check(skill: Skill) -> Skill:
    if not _NAME.match(skill.name):
        raise ValueError(f"skill name {skill.name!r} must be a letter then letters, digits or _ (at most 57)")
    bad = [t for t in skill.triggers if not t.strip() or ";" in t or "'" in t.strip()[:1] + t.strip()[-1:]]
    if bad:
        raise ValueError(f"skill {skill.name}: trigger phrases must be plain words, without ';' ({bad[0]!r})")
    return skill


def _load_reference(found: FoundSkills, root: Path | None, reference: str, source: str) -> None:
    """``module:attribute`` (that skill) or ``module`` (every skill it holds that is not loaded yet)."""
    module_name, _, attribute = reference.strip().partition(":")
    try:
        module = _import(root, module_name)
        if attribute:
            found.add(_check(_as_skill(getattr(module, attribute), reference)), source)
            return
        skills = [s for s in _skills_in(module) if not found.has(s)]
        if not skills:
            raise LookupError(f"{module_name} holds no skill that is not loaded already")
        for skill in skills:
            found.add(_check(skill), source)
    except Exception as error:  # noqa: BLE001 - a broken skill source disables itself, never the project
        found.problem(source, _why(error))


def _load_folder(found: FoundSkills, root: Path) -> None:
    """The project's ``skills/`` folder: each module's own skills (those it makes, or holds and no other of
    its modules makes), so a module that imports its neighbour's skill to compose does not claim it."""
    loaded: list[tuple[str, types.ModuleType]] = []
    problems: list[tuple[str, str]] = []
    for module in _project_folder_modules(root):
        source = f"{PROJECT_SKILLS_DIR}/{module}" + ("" if (root / PROJECT_SKILLS_DIR / module).is_dir() else ".py")
        try:
            loaded.append((source, _import(root, f"{PROJECT_SKILLS_DIR}.{module}")))
        except Exception as error:  # noqa: BLE001 - a module that does not import disables only itself
            problems.append((source, _why(error)))
    names = {module.__name__ for _, module in loaded}
    for source, module in loaded:
        own = [s for s in _skills_in(module) if not found.has(s)
               and (s.defined_in == module.__name__ or s.defined_in not in names)]
        if not own and not any(s.defined_in == module.__name__ for s in _skills_in(module)):
            problems.append((source, "defines no skill (helpers go in modules whose names start with _)"))
        for skill in own:
            try:
                found.add(_check(skill), source)
            except ValueError as error:
                problems.append((source, _why(error)))
    for source, message in sorted(problems):
        found.problem(source, message)


def _project_folder_modules(root: Path) -> Iterator[str]:
    folder = root / PROJECT_SKILLS_DIR
    if not folder.is_dir():
        return
    for path in sorted(folder.iterdir()):
        if path.name.startswith(("_", ".")):
            continue
        if path.suffix == ".py" and path.is_file():
            yield path.stem
        elif path.is_dir() and (path / "__init__.py").is_file():
            yield path.name


def discover_skills(root: Path | None, config: dict[str, Any] | None = None, *,
                    builtins: Iterable[Skill] | None = None) -> FoundSkills:
    """The skills of a project: built-ins, entry points, its ``skills/`` folder, then ``[skills] load``.

    ``builtins`` defaults to :func:`builtin_skills` (pass ``[]`` to find a project's own skills only).
    """
    found = FoundSkills()
    for skill in builtin_skills() if builtins is None else builtins:
        found.add(skill, BUILTIN)
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        source = f"entry point {entry.name} = {entry.value}" + (f" ({entry.dist.name})" if entry.dist else "")
        try:
            found.add(_check(_as_skill(entry.load(), entry.value)), source)
        except Exception as error:  # noqa: BLE001 - an installed package's broken skill disables only itself
            found.problem(source, _why(error))
    if root is not None:
        root = Path(root).resolve()
        importlib.invalidate_caches()  # files written since this process last looked are found
        _load_folder(found, root)
    loads = ((config or {}).get("skills") or {}).get("load", [])
    if isinstance(loads, str):
        loads = [loads]
    for reference in loads:
        _load_reference(found, root, str(reference), f"jarvishub.toml [skills] load {reference!r}")
    return found


# -- a skill as a tool ------------------------------------------------------------------------------------------------
def run_skill_tool(skill: Skill, ctx: ToolContext, args: BaseModel) -> ToolResult:
    """Run a skill invoked as a tool: a narrowed grant, the parent's budget, every step through the bridge.

    Whatever the skill's own code does wrong (raises, returns an output its model refuses, reaches for a
    write method the read-only canvas does not have) ends as a :class:`ToolError`, which the bridge turns
    into a failed step the model and the trajectory see, never an exception out of the turn.  A step the
    bridge refused keeps its reason (``SkillStepRejected.refused``).
    """
    bridge = ctx.services.get("bridge")
    if not isinstance(bridge, BridgePort) or bridge.root_grant_id is None:
        raise ToolError(f"skill {skill.name} must be run through the bridge")
    grant = bridge.narrow(bridge.root_grant_id, actor=f"skill:{skill.name}", tools=skill.needs)
    usage = ctx.services.get("usage") or Usage()
    skill_ctx = SkillContext(
        bridge=bridge, grant=grant, usage=usage, thread_id=ctx.thread_id or "", turn_id=ctx.turn_id,
        action_prefix=f"{ctx.services.get('action_id') or ctx.turn_id}/{skill.name}", actor=f"skill:{skill.name}",
        services={**ctx.services, "artifacts": ctx.artifacts, "workspace": ctx.workspace}, progress=ctx.progress)
    try:
        output = skill.run(skill_ctx, args, subgraph=ctx.services.get("subgraph"))
    except (ToolError, GraphBubbleUp):
        raise
    except Exception as error:  # noqa: BLE001 - the skill's own code failed: a failed step, with the reason
        if is_engine_outage(error):
            raise  # not the skill's failure: the turn stops here, and a resume runs the step again
        raise _skill_failure(skill, error) from error
    return ToolResult(observation={"skill": skill.name, **output.model_dump(mode="json")},
                      provider_calls=skill_ctx.provider_calls, cache_hits=skill_ctx.cache_hits)


def _skill_failure(skill: Skill, error: Exception) -> Exception:
    """The error a failed skill step reports (a refusal by the bridge keeps its type and reason)."""
    if isinstance(error, CanvasError):
        return error  # SkillStepRejected, StaleVersion, ...: Bridge.execute reports it with its reason
    if isinstance(error, AttributeError) and getattr(error, "name", None) in _WRITE_METHODS:
        return ToolError(f"skill {skill.name} tried to write the canvas directly ({error.name}): a skill's canvas "
                         "is read-only; change the canvas with ctx.call(\"<tool>\", ...), which goes through the "
                         "bridge")
    if isinstance(error, ValidationError):
        return ToolError(f"skill {skill.name} got or made a value its models refuse: "
                         + "; ".join(f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']}" for e in error.errors()))
    return ToolError(f"skill {skill.name} failed: {_why(error)}")


_WRITE_METHODS = frozenset({"apply", "commit", "submit_mutations", "write", "create_node", "update_node", "delete"})


def skill_tool(skill: Skill) -> ToolSpec:
    """The tool through which an agent invokes a skill (its trigger phrases end its description)."""
    return ToolSpec(
        name=TOOL_PREFIX + skill.name,
        family=ToolFamily.SKILL,
        description=describe_skill(skill.description, skill.triggers),
        args_schema=skill.input_model,
        effects=skill.effects,
        run=lambda ctx, args, _skill=skill: run_skill_tool(_skill, ctx, args),
        requires=frozenset(skill.needs),
    )


def skill_info(skill: Skill, source: str = BUILTIN) -> SkillInfo:
    """How the manifest lists a skill."""
    return SkillInfo(name=skill.name, description=skill.description,
                     input_schema=model_schema(skill.input_model),
                     output_schema=model_schema(skill.output_model), needs_tools=list(skill.needs),
                     triggers=list(skill.triggers), source=source)


def skill_tools(project: ProjectParts, tool_names: Iterable[str] | None = None) -> tuple[
        list[ToolSpec], list[SkillInfo], dict[str, Any]]:
    """Tools and manifest entries for every skill the project has, and ``services``: ``skills`` by name and
    ``skill_problems`` (the sources that failed, as :class:`SkillProblem`).

    With ``tool_names`` (the project's other tools), a skill that needs a tool the project lacks is
    disabled with a problem line instead of being listed and then refused on every call.
    """
    found = discover_skills(project.root, project_config(project))
    if tool_names is not None:
        known = set(tool_names) | {TOOL_PREFIX + s.name for s in found.skills}
        for skill in list(found.skills):
            missing = [n for n in skill.needs if n not in known]
            if missing:
                found.drop(skill.name, f"skill {skill.name} needs {', '.join(missing)}, which this project has no "
                                       "tool of that name for (see `jarvishub tools`)")
    return ([skill_tool(s) for s in found.skills], [skill_info(s, found.sources[s.name]) for s in found.skills],
            {"skills": {s.name: s for s in found.skills}, "skill_problems": list(found.problems)})
