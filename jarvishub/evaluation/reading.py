"""Reading a suite's ``results.json`` for the report and the dataset export, tolerant of keys it does not know.

The writer (the runner) may add fields; readers only need the ones named here,
so every model keeps extra keys and gives every field a default.  What is not a
results file at all (not JSON, not an object, another schema) is a
:class:`ResultsError` naming the file and the cause.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

SCHEMA_PREFIX = "jarvishub-eval/"


class ResultsError(ValueError):
    """A results file that cannot be read as a JarvisHub evaluation (says which file and why)."""


class _Tolerant(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class CheckResult(_Tolerant):
    """One check on the canvas after a turn."""

    name: str = ""
    passed: bool = False
    detail: str = ""


class TurnMetrics(_Tolerant):
    """A scripted turn's process metrics (None where the runner could not or need not measure)."""

    provider_calls: int | None = None
    estimated_cost_usd: float | None = None
    model_calls: int | None = None
    context_bytes: int | None = None
    max_call_bytes: int | None = None
    tool_schema_bytes: int | None = None
    targeted_outputs: int | None = None
    changed_outputs: int | None = None
    untargeted_changed: int | None = None
    locality: float | None = None
    rejections: int | None = None
    rejection_reasons: dict[str, Any] = Field(default_factory=dict)
    retries: int | None = None
    clarifications: int | None = None
    approvals: int | None = None
    recovered: bool | None = None
    wall_s: float | None = None

    @property
    def bytes_per_call(self) -> float | None:
        """Mean model-visible bytes per model call of the turn (None without a model call)."""
        if not self.model_calls or self.context_bytes is None:
            return None
        return self.context_bytes / self.model_calls


class TurnResult(_Tolerant):
    """One scripted turn of a scenario as it ran."""

    index: int = 0
    kind: str = ""
    request: str = ""
    via: str = "cli"
    thread_id: str | None = None
    turn_ids: list[str] = Field(default_factory=list)
    outcome: str | None = None
    metrics: TurnMetrics = Field(default_factory=TurnMetrics)
    checks: list[CheckResult] = Field(default_factory=list)


class ScenarioResult(_Tolerant):
    """One scenario run by one agent."""

    name: str
    workflow: str = "other"
    agent: str = "canvas"
    project_dir: str | None = None
    passed: bool | None = None
    error: str | None = None
    wall_s: float | None = None
    turns: list[TurnResult] = Field(default_factory=list)
    totals: dict[str, Any] = Field(default_factory=dict)


class Results(_Tolerant):
    """A whole suite run (eval-design §5)."""

    schema_name: str = Field(default=SCHEMA_PREFIX + "1", alias="schema")
    started_at: str | None = None
    finished_at: str | None = None
    wall_s: float | None = None
    model: str = ""
    agents: list[str] = Field(default_factory=list)
    jarvishub_version: str = ""
    scenarios: list[ScenarioResult] = Field(default_factory=list)
    summary: dict[str, dict[str, dict[str, Any]]] = Field(default_factory=dict)

    def workflows(self) -> list[str]:
        """Workflows in the order their first scenario appears."""
        return list(dict.fromkeys(s.workflow for s in self.scenarios))

    def agent_names(self) -> list[str]:
        """The agents compared: the declared ones, then any only seen in scenarios."""
        return list(dict.fromkeys([*self.agents, *(s.agent for s in self.scenarios)]))


def load_results(source: str | Path | dict[str, Any] | BaseModel) -> Results:
    """Parse a results file, its loaded JSON, or the runner's own results model into :class:`Results`."""
    if isinstance(source, Results):
        return source
    where = "the results object"
    data: Any = source
    if isinstance(source, BaseModel):
        data = source.model_dump(mode="json", by_alias=True)
    elif not isinstance(source, dict):
        where = str(source)
        try:
            data = json.loads(Path(source).read_text(encoding="utf-8"))
        except FileNotFoundError as error:
            raise ResultsError(f"no results file at {where}") from error
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise ResultsError(f"{where} is not JSON: {error}") from error
    if not isinstance(data, dict):
        raise ResultsError(f"{where} holds a {type(data).__name__}, not a results object")
    schema = str(data.get("schema", SCHEMA_PREFIX + "1"))
    if not schema.startswith(SCHEMA_PREFIX):
        raise ResultsError(f"{where} has schema {schema!r}; this reader knows {SCHEMA_PREFIX}*")
    try:
        return Results.model_validate(data)
    except ValidationError as error:
        raise ResultsError(f"{where} is not a JarvisHub evaluation result: {error}") from error
