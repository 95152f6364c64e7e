"""results.json: the evaluation's one output file, as pydantic models (schema ``jarvishub-eval/1``).

``jarvishub.evaluation.report`` and ``jarvishub.evaluation.dataset`` read it back with
:func:`load_results`; the field names are the contract of docs/evaluation.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from statistics import mean, median
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from jarvishub.evaluation.comparison import EDIT_KINDS, comparison

SCHEMA = "jarvishub-eval/1"


class TurnMetrics(BaseModel):
    """The process metrics of one scripted turn (definitions: docs/evaluation.md)."""

    provider_calls: int = 0
    estimated_cost_usd: float = 0.0
    model_calls: int = 0
    context_bytes: int = 0
    max_call_bytes: int = 0
    tool_schema_bytes: int = 0
    targeted_outputs: int | None = None
    changed_outputs: int = 0
    untargeted_changed: int = 0
    locality: float | None = None
    rejections: int = 0
    rejection_reasons: dict[str, int] = Field(default_factory=dict)
    retries: int = 0
    clarifications: int = 0
    approvals: int = 0
    recovered: bool | None = None
    wall_s: float = 0.0
    call_bytes: int | None = Field(default=None, description="Mean model-visible bytes per model call of the turn "
                                   "(context_bytes / model_calls); None when the turn made no model call.")
    changed: list[str] = Field(default_factory=list, description="The output keys counted in changed_outputs.")


class CheckResult(BaseModel):
    """One check after a turn: what was expected, whether it held, and what was seen."""

    name: str
    passed: bool
    detail: str = ""


class TurnResult(BaseModel):
    """One scripted turn as it ran."""

    index: int
    kind: str
    request: str
    via: Literal["cli", "web"] = "cli"
    thread_id: str = ""
    turn_ids: list[str] = Field(default_factory=list)
    outcome: str = ""
    metrics: TurnMetrics = Field(default_factory=TurnMetrics)
    checks: list[CheckResult] = Field(default_factory=list)
    error: str | None = None
    result: str = Field(default="", description="What the CLI would have reported: done, failed, paused, ...")
    spend: dict[str, float] = Field(default_factory=dict, description="What the providers billed (tools.spend): "
                                    "calls, tokens_in, tokens_out, cost_usd; empty offline.")
    injected: list[str] = Field(default_factory=list, description="Errors the chaos model injected (by kind).")
    claimed: bool = Field(default=False, description="The turn ended on the chaos model's false claim of work.")
    retry: bool = Field(default=False, description="The same scripted turn asked again after a caught false claim.")
    out_of_grant: list[str] = Field(default_factory=list, description="What the turn did outside its grant.")


class ScenarioTotals(BaseModel):
    """A scenario's turns added up."""

    provider_calls: int = 0
    estimated_cost_usd: float = 0.0
    context_bytes: int = 0
    changed_outputs: int = 0
    untargeted_changed: int = 0
    rejections: int = 0
    retries: int = 0
    clarifications: int = 0
    approvals: int = 0
    checks_passed: int = 0
    checks_total: int = 0
    wall_s: float = 0.0


class ScenarioResult(BaseModel):
    """One scenario run by one agent in its own fresh project."""

    name: str
    workflow: str
    agent: str
    project_dir: str
    passed: bool = False
    error: str | None = None
    wall_s: float = 0.0
    turns: list[TurnResult] = Field(default_factory=list)
    totals: ScenarioTotals = Field(default_factory=ScenarioTotals)

    def finish(self) -> ScenarioResult:
        """Fill in the totals and ``passed`` (every check passed and nothing errored)."""
        t = ScenarioTotals()
        for turn in self.turns:
            m = turn.metrics
            t.provider_calls += m.provider_calls
            t.estimated_cost_usd = round(t.estimated_cost_usd + m.estimated_cost_usd, 6)
            t.context_bytes += m.context_bytes
            t.changed_outputs += m.changed_outputs
            t.untargeted_changed += m.untargeted_changed
            t.rejections += m.rejections
            t.retries += m.retries
            t.clarifications += m.clarifications
            t.approvals += m.approvals
            t.checks_passed += sum(1 for c in turn.checks if c.passed)
            t.checks_total += len(turn.checks)
            t.wall_s = round(t.wall_s + m.wall_s, 3)
        self.totals = t
        self.passed = self.error is None and all(t.error is None for t in self.turns) \
            and t.checks_passed == t.checks_total
        return self


class AgentSummary(BaseModel):
    """One agent on one workflow, over every scenario of that workflow."""

    model_config = ConfigDict(extra="allow")

    edit_turn_provider_calls_median: float | None = None
    locality_mean: float | None = None
    untargeted_changed: int = 0
    context_bytes_at_turn: dict[str, int | None] = Field(default_factory=dict)
    call_bytes_at_turn: dict[str, int | None] = Field(default_factory=dict)
    """Bytes per model call at turn N: how big one call's input has grown (the turn's total also counts calls)."""
    checks_passed: int = 0
    checks_total: int = 0
    edit_turn_model_calls_median: float | None = None
    """Model calls per edit turn (median over the edit and feedback turns)."""
    max_call_bytes: int = 0
    """The largest single model call of any turn."""
    context_bytes: int = 0
    """Model-visible bytes of every turn, summed."""
    wall_s: float = 0.0
    """Wall time of the workflow's scenario runs, summed."""


SUMMARY_TURNS = (1, 5, 10)
"""Turns (1-based) at which the summary reports context bytes (mean over the workflow's scenarios)."""


def summarise(scenarios: list[ScenarioResult]) -> dict[str, dict[str, AgentSummary]]:
    """Workflow → agent → summary."""
    grouped: dict[str, dict[str, list[ScenarioResult]]] = {}
    for s in scenarios:
        grouped.setdefault(s.workflow, {}).setdefault(s.agent, []).append(s)
    out: dict[str, dict[str, AgentSummary]] = {}
    for workflow, agents in sorted(grouped.items()):
        out[workflow] = {}
        for agent, runs in sorted(agents.items()):
            edits = [t.metrics.provider_calls for s in runs for t in s.turns if t.kind in EDIT_KINDS]
            edit_calls = [t.metrics.model_calls for s in runs for t in s.turns if t.kind in EDIT_KINDS]
            localities = [t.metrics.locality for s in runs for t in s.turns if t.metrics.locality is not None]
            at_turn: dict[str, int | None] = {}
            per_call: dict[str, int | None] = {}
            for n in SUMMARY_TURNS:
                turns = [s.turns[n - 1].metrics for s in runs if len(s.turns) >= n]
                at_turn[str(n)] = round(mean(m.context_bytes for m in turns)) if turns else None
                sizes = [m.context_bytes / m.model_calls for m in turns if m.model_calls]
                per_call[str(n)] = round(mean(sizes)) if sizes else None
            out[workflow][agent] = AgentSummary(
                edit_turn_provider_calls_median=median(edits) if edits else None,
                locality_mean=round(mean(localities), 4) if localities else None,
                untargeted_changed=sum(s.totals.untargeted_changed for s in runs),
                context_bytes_at_turn=at_turn,
                call_bytes_at_turn=per_call,
                checks_passed=sum(s.totals.checks_passed for s in runs),
                checks_total=sum(s.totals.checks_total for s in runs),
                edit_turn_model_calls_median=median(edit_calls) if edit_calls else None,
                max_call_bytes=max((t.metrics.max_call_bytes for s in runs for t in s.turns), default=0),
                context_bytes=sum(s.totals.context_bytes for s in runs),
                wall_s=round(sum(s.wall_s for s in runs), 3))
    return out


class Results(BaseModel):
    """The whole run: every scenario for every agent, and the per-workflow summary."""

    model_config = ConfigDict(populate_by_name=True)

    schema_: str = Field(default=SCHEMA, alias="schema")
    started_at: str
    finished_at: str = ""
    """Empty while the run goes on: results.json is rewritten as each scenario run finishes."""
    stopped: str = Field(default="", description="Why the run stopped before its last scenario (Ctrl-C), if it "
                         "did: the scenarios listed are the runs that finished.")
    wall_s: float = 0.0
    model: str = "offline"
    agents: list[str] = Field(default_factory=list)
    jarvishub_version: str = ""
    scenarios: list[ScenarioResult] = Field(default_factory=list)
    summary: dict[str, dict[str, AgentSummary]] = Field(default_factory=dict)
    comparison: dict[str, Any] = Field(default_factory=dict, description="Per scenario: each agent's checks and "
                                       "wall time, and the canvas agent against each baseline turn by turn "
                                       "(jarvishub.evaluation.comparison; docs/evaluation.md, 'The comparison').")
    chaos: list[dict[str, Any]] = Field(default_factory=list, description="With --model chaos: one report per "
                                        "agent (jarvishub.evaluation.chaos.ChaosReport).")

    @property
    def passed(self) -> bool:
        """Whether every scenario passed (the CLI's exit 0); under chaos, whether no turn reported a wrong success
        and nothing was done outside a grant (checks that fail because of injected errors are expected)."""
        if self.chaos:
            return bool(self.scenarios) and all(r["wrong_successes"] == 0 and r["out_of_grant"] == 0
                                                for r in self.chaos)
        return bool(self.scenarios) and all(s.passed for s in self.scenarios)

    def write(self, path: Path) -> Path:
        """Write results.json (the summary recomputed from the scenarios), atomically: a reader, or a run killed
        while writing, finds the previous file whole or this one, never half of one."""
        from store.private_files import write_private

        self.summary = summarise(self.scenarios)
        self.comparison = comparison(self.scenarios)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_private(path.parent.resolve() / path.name, (json.dumps(self.model_dump(mode="json", by_alias=True), indent=2) + "\n").encode())
        return path


def load_results(path: Path) -> Results:
    """Read a results.json back (what report.py and dataset.py start from)."""
    return Results.model_validate_json(Path(path).read_text())
