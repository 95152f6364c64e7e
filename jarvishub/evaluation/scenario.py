"""Scenarios as data: ``jarvishub/evaluation/scenarios/NAME.toml`` parsed into pydantic models, with errors that name file and field.

A scenario is one multi-turn session: an opening request, then scripted
follow-ups, each with the checks a person would make on the canvas afterwards.
Turns name what they target and select by *references* ("shot 3", "final cut",
"Photography Studio page"), resolved on the canvas by the runner, never by ids.
"""

from __future__ import annotations

import tomllib
from importlib.resources import files
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

SCENARIO_DIR = Path(str(files("jarvishub.evaluation") / "scenarios"))
"""The suite that ships with JarvisHub: package data of ``jarvishub.evaluation`` (found through
``importlib.resources``, so a wheel install has it as an editable checkout does)."""

Workflow = Literal["narrative", "web", "slides", "mixed"]
TurnKind = Literal["create", "edit", "feedback", "approve", "explore", "select", "refuse", "clarify", "resume",
                   "query", "note", "undo", "person"]


class ScenarioError(Exception):
    """A scenario file that cannot be used: which file, which field, and what is wrong."""

    def __init__(self, path: Path | str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = str(path)


class _Check(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OutcomeCheck(_Check):
    """The turn ended with one of these outcomes."""

    type: Literal["outcome"]
    equals: str | list[str]


class CountCheck(_Check):
    """How many current nodes of a kind (optionally of a status) are on the canvas."""

    type: Literal["count"]
    kind: str
    status: str | None = None
    equals: int | None = None
    at_least: int | None = None

    @model_validator(mode="after")
    def _one_bound(self) -> CountCheck:
        if (self.equals is None) == (self.at_least is None):
            raise ValueError("give exactly one of equals / at_least")
        return self


class ChangedOnlyCheck(_Check):
    """Exactly the targeted outputs (and what derives from them) changed: nothing untargeted, nothing missed."""

    type: Literal["changed_only"]


class ChangedCheck(_Check):
    """These references got a new version (or were made) in this turn."""

    type: Literal["changed"]
    refs: list[str] = Field(min_length=1)


class UnchangedCheck(_Check):
    """These references are exactly as before the turn (same current node)."""

    type: Literal["unchanged"]
    refs: list[str] = Field(min_length=1)


class MeasureCheck(_Check):
    """A measured attribute of an output image, compared with before the turn or with a bound."""

    type: Literal["measure"]
    ref: str
    attribute: Literal["luma", "warmth", "saturation", "contrast"]
    compare: Literal["lower", "higher", "unchanged"] | None = None
    below: float | None = None
    above: float | None = None

    @model_validator(mode="after")
    def _something_to_compare(self) -> MeasureCheck:
        if self.compare is None and self.below is None and self.above is None:
            raise ValueError("give compare (lower/higher/unchanged) or a bound (below/above)")
        return self


class ClarificationCheck(_Check):
    """The turn asked instead of acting, for this reason."""

    type: Literal["clarification"]
    reason: str


class RefusedCheck(_Check):
    """The bridge rejected an action of the turn (optionally for this reason) and the canvas did not change."""

    type: Literal["refused"]
    reason: str | None = None


class VerifyCheck(_Check):
    """The canvas invariants hold (one current version per output, clips from current images, cut current)."""

    type: Literal["verify"]


class FileExistsCheck(_Check):
    """A file matching this glob exists in the project's workspace (or outputs/)."""

    type: Literal["file_exists"]
    glob: str


Check = Annotated[OutcomeCheck | CountCheck | ChangedOnlyCheck | ChangedCheck | UnchangedCheck | MeasureCheck
                  | ClarificationCheck | RefusedCheck | VerifyCheck | FileExistsCheck, Field(discriminator="type")]


class PersonEdit(BaseModel):
    """What a person does directly on the web canvas between agent turns (not a request to the agent): an action
    of the web API (``POST /api/nodes/{id}/reject``, ``/restore``, ``/inputs``) on the node ``ref`` names."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["reject", "restore", "edit"]
    ref: str = Field(min_length=1, description="A reference to one output, as a turn's targets are written")
    version: int | None = Field(default=None, ge=1, description="restore: the version number to make current")
    inputs: dict[str, Any] | None = Field(default=None, description="edit: the inputs to change (merged)")

    @model_validator(mode="after")
    def _complete(self) -> PersonEdit:
        if self.action == "restore" and self.version is None:
            raise ValueError("a restore needs the version to make current")
        if self.action == "edit" and not self.inputs:
            raise ValueError("an edit needs the inputs it changes")
        return self


class Turn(BaseModel):
    """One scripted turn: what the person says (or does) and what they then check."""

    model_config = ConfigDict(extra="forbid")

    kind: TurnKind
    request: str = Field(min_length=1)
    targets: list[str] | None = None
    selected: list[str] = Field(default_factory=list)
    profile: str | None = None
    via: Literal["cli", "web"] = "cli"
    answer: str | None = Field(default=None, description="approve | reject | a reference: answers an interrupt")
    crash_after_steps: int | None = Field(default=None, ge=1)
    same_thread: bool = True
    session: int | None = Field(default=None, ge=1, description="Run on this session's thread (session 1 is the "
                                "scenario's main thread); sessions are the threads of different sittings")
    restart: bool = Field(default=False, description="Close the agent and stop the canvas engine before this "
                          "turn, then open the project again (a new sitting, a new process)")
    person: PersonEdit | None = Field(default=None, description="kind person: the web-canvas action to take")
    checks: list[Check] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> Turn:
        if (self.kind == "person") != (self.person is not None):
            raise ValueError("a turn of kind person needs a person action, and only it may have one")
        if self.crash_after_steps is not None and self.via == "web":
            raise ValueError("a crash turn runs in a child process; it cannot also go through the web API")
        if any(isinstance(c, ChangedOnlyCheck) for c in self.checks) and self.targets is None:
            raise ValueError("a changed_only check needs the turn's targets")
        return self


class ProjectConfig(BaseModel):
    """Extra project.toml content for the scenario's fresh project (grant profiles, settings)."""

    model_config = ConfigDict(extra="forbid")

    config: str = ""


class Scenario(BaseModel):
    """A scripted multi-turn session on one workflow."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    workflow: Workflow
    description: str = Field(min_length=1)
    project: ProjectConfig = Field(default_factory=ProjectConfig)
    turns: list[Turn] = Field(min_length=1)

    @model_validator(mode="after")
    def _config_is_toml(self) -> Scenario:
        if self.project.config:
            try:
                tomllib.loads(self.project.config)
            except tomllib.TOMLDecodeError as error:
                raise ValueError(f"project.config is not valid TOML: {error}") from error
        return self


def _field(loc: tuple[object, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in ("outcome", "count", "changed_only", "changed", "unchanged", "measure", "clarification",
                      "refused", "verify", "file_exists") and out.endswith("]"):
            continue  # the discriminator's tag adds nothing a person needs
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def load_scenario(path: Path | str) -> Scenario:
    """Read and validate one scenario file; a bad file raises :class:`ScenarioError` naming the file and field."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise ScenarioError(path, "no such scenario file") from error
    except tomllib.TOMLDecodeError as error:
        raise ScenarioError(path, f"not valid TOML: {error}") from error
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(f"{_field(e['loc'])}: {e['msg']}" for e in error.errors()[:5])
        raise ScenarioError(path, problems) from error
    if scenario.name != path.stem:
        raise ScenarioError(path, f"name: {scenario.name!r} must match the file name {path.stem!r}")
    return scenario


def find_scenarios(names: list[str] | None = None, folder: Path = SCENARIO_DIR) -> list[tuple[Path, Scenario]]:
    """The named scenarios (a name in ``folder`` or a path to a .toml file), or every scenario in ``folder``."""
    if not names:
        paths = sorted(folder.glob("*.toml"))
        if not paths:
            raise ScenarioError(folder, "no scenario files (*.toml) here")
    else:
        paths = []
        for name in names:
            candidate = Path(name)
            if candidate.suffix != ".toml":
                candidate = folder / f"{name}.toml"
            if not candidate.exists():
                known = ", ".join(p.stem for p in sorted(folder.glob("*.toml"))) or "none"
                raise ScenarioError(candidate, f"no such scenario; the suite has: {known}")
            paths.append(candidate)
    return [(p, load_scenario(p)) for p in paths]
