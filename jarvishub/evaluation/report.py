"""``report.html``: one self-contained page of a suite's results — tables, inline SVG plots, definitions.

The page loads nothing: no script, no stylesheet, no font, no image from
anywhere.  Its Content-Security-Policy (``default-src 'none'``) makes the
browser enforce that, so even text that escaped escaping could not run or
fetch.  Everything taken from the results (requests are what people typed,
check details echo them) is HTML-escaped.
"""

from __future__ import annotations

import statistics
from html import escape
from pathlib import Path
from typing import Any

from jarvishub.evaluation.comparison import comparison
from jarvishub.evaluation.definitions import METRICS
from jarvishub.evaluation.plots import Series, colors, grouped_bars, line_plot
from jarvishub.evaluation.reading import Results, ScenarioResult, TurnResult, load_results
from jarvishub.evaluation.results import EDIT_KINDS, SUMMARY_TURNS
from jarvishub.evaluation.results import ScenarioResult as RunnerScenario
from jarvishub.evaluation.results import summarise as summarise_runs

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

_STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px auto; max-width: 1280px;
       padding: 0 16px; color: #0f172a; background: #f8fafc; }
h1 { font-size: 24px; } h2 { margin-top: 36px; border-bottom: 2px solid #cbd5e1; } h3 { margin-top: 24px; }
table { border-collapse: collapse; margin: 8px 0 16px; background: #fff; }
th, td { border: 1px solid #cbd5e1; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #e2e8f0; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.request { min-width: 200px; max-width: 360px; overflow-wrap: anywhere; }
table.turns { font-size: 13px; } td.failed { color: #b91c1c; max-width: 320px; }
.pass { color: #15803d; font-weight: 600; } .fail { color: #b91c1c; font-weight: 600; }
figure { margin: 12px 0 20px; } figcaption { color: #475569; max-width: 600px; }
svg.plot { background: #f1f5f9; font-size: 11px; max-width: 100%; height: auto; }
.wide { overflow-x: auto; max-width: 100%; } svg.plot .plot-title { font-size: 14px; font-weight: 600; }
.plots { display: flex; flex-wrap: wrap; gap: 8px 24px; }
dl.metrics dt { font-family: ui-monospace, monospace; font-weight: 600; } dl.metrics dd { margin: 0 0 8px 16px; }
.meta { color: #475569; }
"""


def write_report(results_json_path: str | Path, html_path: str | Path) -> Path:
    """Render the results file at ``results_json_path`` into the page ``html_path``; returns that path."""
    html = render_report(load_results(Path(results_json_path)))
    target = Path(html_path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(html, encoding="utf-8")
    return target


def render_report(results: Results | dict[str, Any]) -> str:
    """The report page of a suite run, as one HTML string."""
    results = load_results(results)
    agents = results.agent_names()
    palette = colors(agents)
    body = [_header(results)]
    body.append("<h2>Summary per workflow</h2>")
    body.append(_summary_table(results, agents))
    body.append(_comparison_section(results))
    body.append(_checks_section(results, agents, palette))
    body.append(_sessions_section(results, agents, palette))
    for n, workflow in enumerate(results.workflows()):
        body.append(f"<h2>Workflow: {escape(workflow)}</h2>")
        body.append(_plots(results, workflow, agents, palette, n))
        for scenario in results.scenarios:
            if scenario.workflow == workflow:
                body.append(_scenario_section(scenario))
    body.append(_definitions())
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>JarvisHub evaluation: {escape(results.model or 'unknown model')}</title>\n"
        f"<style>{_STYLE}</style>\n</head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>\n"
    )


# -- header and summary -------------------------------------------------------------------------
def _header(results: Results) -> str:
    passed = sum(1 for s in results.scenarios if s.passed)
    facts = [
        ("model", results.model or "unknown"),
        ("agents", ", ".join(results.agent_names())),
        ("JarvisHub", results.jarvishub_version or "unknown"),
        ("started", results.started_at or "unknown"),
        ("finished", results.finished_at or "unknown"),
        ("wall time", _fmt(results.wall_s, " s")),
        ("scenarios passed", f"{passed} of {len(results.scenarios)}"),
    ]
    items = "".join(f"<li>{escape(k)}: <strong>{escape(v)}</strong></li>" for k, v in facts)
    return f"<h1>JarvisHub evaluation report</h1>\n<ul class=\"meta\">{items}</ul>"


def summarise(results: Results, workflow: str, agent: str) -> dict[str, Any]:
    """The summary of one workflow for one agent: the runner's own where it wrote one, computed here otherwise.

    Computed by the runner's own :func:`jarvishub.evaluation.results.summarise` over the scenarios read back
    (their totals recomputed from their turns), with the number of scenarios and of those that passed.
    """
    scenarios = [s for s in results.scenarios if s.workflow == workflow and s.agent == agent]
    runner = summarise_runs([_as_run(s) for s in scenarios]).get(workflow, {}).get(agent)
    computed: dict[str, Any] = {
        "scenarios": len(scenarios),
        "scenarios_passed": sum(1 for s in scenarios if s.passed),
        **(runner.model_dump() if runner is not None else {}),
    }
    written = {k: v for k, v in (results.summary.get(workflow, {}).get(agent) or {}).items() if v is not None}
    for key in ("context_bytes_at_turn", "call_bytes_at_turn"):
        if isinstance(written.get(key), dict):
            written[key] = {**(computed.get(key) or {}), **written[key]}
    return {**computed, **written}


def _as_run(scenario: ScenarioResult) -> RunnerScenario:
    """A scenario read back as the runner's model: what was not measured counts as zero, totals recomputed."""
    data = scenario.model_dump(mode="json", exclude_none=True, exclude={"totals"})
    data["project_dir"] = scenario.project_dir or ""
    return RunnerScenario.model_validate(data).finish()


def _summary_table(results: Results, agents: list[str]) -> str:
    """Rows are metrics; columns are the agents of each workflow, side by side."""
    workflows = results.workflows()
    columns = [summarise(results, w, a) for w in workflows for a in agents]
    rows: list[tuple[str, list[str]]] = [
        ("Scenarios passed", [f"{s['scenarios_passed']} of {s['scenarios']}" for s in columns]),
        ("Provider calls per edit turn (median)", [_fmt(s.get("edit_turn_provider_calls_median")) for s in columns]),
        ("Locality (mean over turns with targets; 1.0 is exact)", [_fmt(s.get("locality_mean")) for s in columns]),
        ("Untargeted outputs changed (total)", [_fmt(s.get("untargeted_changed")) for s in columns]),
        *((f"Context bytes at turn {n}", [_fmt((s.get("context_bytes_at_turn") or {}).get(str(n)), digits=0)
                                          for s in columns]) for n in SUMMARY_TURNS),
        *((f"Bytes per model call at turn {n}", [_fmt((s.get("call_bytes_at_turn") or {}).get(str(n)), digits=0)
                                                 for s in columns]) for n in SUMMARY_TURNS),
        ("Model calls per edit turn (median)", [_fmt(s.get("edit_turn_model_calls_median")) for s in columns]),
        ("Largest model call (bytes)", [_fmt(s.get("max_call_bytes"), digits=0) for s in columns]),
        ("Model-visible bytes (all turns)", [_fmt(s.get("context_bytes"), digits=0) for s in columns]),
        ("Wall time of the runs (s)", [_fmt(s.get("wall_s"), digits=0) for s in columns]),
        ("Checks passed", [f"{s.get('checks_passed', 0)} of {s.get('checks_total', 0)}" for s in columns]),
    ]
    top = "".join(f'<th scope="colgroup" colspan="{len(agents)}">{escape(w)}</th>' for w in workflows)
    second = "".join(f'<th scope="col">{escape(a)}</th>' for _ in workflows for a in agents)
    lines = "".join(f'<tr><th scope="row">{escape(name)}</th>'
                    + "".join(f'<td class="num">{escape(v)}</td>' for v in values) + "</tr>" for name, values in rows)
    return ('<table class="summary"><caption>Canvas agent and baseline per workflow</caption>'
            f'<thead><tr><th scope="col" rowspan="2">metric</th>{top}</tr><tr>{second}</tr></thead>'
            f"<tbody>{lines}</tbody></table>")


# -- the canvas agent against each baseline -------------------------------------------------------------
def _comparison_section(results: Results) -> str:
    """Per scenario and baseline: the turns the canvas agent lost in bytes per call or (edit turns) in model calls,
    listed by turn; both wall times; both checks; and, apart, the turns where the baseline failed its checks."""
    compared = {name: entry for name, entry in comparison([_as_run(s) for s in results.scenarios]).items()
                if entry.get("canvas_against")}
    if not compared:
        return ""
    rows = []
    for name, entry in compared.items():
        for agent, c in entry["canvas_against"].items():
            checks = c["checks"]
            rows.append(
                "<tr>" + f"<td>{escape(name)}</td><td>{escape(agent)}</td>"
                f'<td class="num">{c["common_turns"]}</td>'
                + _verdict(f"{checks['canvas']} / {checks['baseline']} of {checks['total']}", c["checks_lost"])
                + _verdict(f"{_fmt(c['wall_s']['canvas'])} / {_fmt(c['wall_s']['baseline'])}", c["wall_lost"])
                + _verdict(f"{_fmt(c['wall_s_both_done']['canvas'])} / {_fmt(c['wall_s_both_done']['baseline'])}"
                           f" ({c['wall_s_both_done']['turns']} turns)", c["wall_lost_both_done"])
                + _turn_list(c["bytes_per_call_lost"], "bytes")
                + _turn_list(c["edit_calls_lost"], "calls")
                + "<td>" + (escape("; ".join(
                    f"{t['turn']} ({t['baseline_outcome'] or 'no outcome'}: {', '.join(t['baseline_failed'])}"
                    + (f"; canvas {_fmt(t['call_bytes']['canvas'], digits=0)} against "
                       f"{_fmt(t['call_bytes']['baseline'], digits=0)} bytes per call" if t["more_bytes"] else "")
                    + (f"; canvas {t['model_calls']['canvas']} against {t['model_calls']['baseline']} model calls"
                       if t["more_calls"] else "") + ")"
                    for t in c["baseline_failed_turns"])) or "none") + "</td></tr>")
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in (
        "scenario", "baseline", "turns compared", "checks passed: canvas / baseline", "wall s: canvas / baseline",
        "wall s of the turns both did (both passed every check)",
        "turns where the canvas agent sent more bytes per call", "edit turns where it made more model calls",
        "turns where the baseline failed its checks (not counted as losses)"))
    return ("<h2>The canvas agent against each baseline</h2>"
            "<p>Over the turns both ran, numbered from 1. A turn where the baseline failed its checks (it asked "
            "<code>not_found</code> for what its window lost, was refused, or did something else) is not a loss "
            "of the canvas agent in bytes or calls: it is listed in the last column, with both agents' figures "
            "where the canvas agent sent more, and counted in neither loss column.</p>"
            f'<div class="wide"><table class="comparison"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _verdict(text: str, lost: bool) -> str:
    return f'<td class="num {"fail" if lost else "pass"}">{escape(text)}</td>'


def _turn_list(turns: list[dict[str, Any]], unit: str) -> str:
    if not turns:
        return '<td class="pass">none</td>'
    return '<td class="fail">' + escape("; ".join(
        f"{t['turn']} ({_fmt(t['canvas'], digits=0)} against {_fmt(t['baseline'], digits=0)} {unit})"
        for t in turns)) + "</td>"


# -- checks per scenario, and the long sessions ----------------------------------------------------------
LONG_SESSION = 20
"""Scenarios of at least this many turns get their own bytes-per-call and cumulative-bytes plots."""


def _checks_section(results: Results, agents: list[str], palette: dict[str, str]) -> str:
    """Checks passed per scenario: one group per scenario, one bar per agent (the totals in the caption)."""
    names = list(dict.fromkeys(s.name for s in results.scenarios))
    if not names:
        return ""
    runs = {(s.name, s.agent): s for s in results.scenarios}

    def passed(name: str, agent: str) -> float | None:
        run = runs.get((name, agent))
        return None if run is None else float(sum(1 for t in run.turns for c in t.checks if c.passed))

    totals = {name: max((sum(len(t.checks) for t in runs[(name, a)].turns) for a in agents if (name, a) in runs),
                        default=0) for name in names}
    keys = {name: f"S{i + 1}" for i, name in enumerate(names)}
    series = [Series(a, [passed(name, a) for name in names], palette[a]) for a in agents]
    def ran(name: str) -> str:  # runs stopped early have fewer turns: say so, their bars are not comparable
        counts = {a: len(runs[(name, a)].turns) for a in agents if (name, a) in runs}
        if len(set(counts.values())) <= 1:
            return ""
        return "; turns run: " + ", ".join(f"{a} {n}" for a, n in counts.items())

    legend = "; ".join(f"{keys[n]} = {n} (up to {totals[n]} checks{ran(n)})" for n in names)
    plot = grouped_bars("plot-checks", "Checks passed per scenario", "scenario", "checks passed",
                        [keys[n] for n in names], series)
    return ("<h2>Checks passed per scenario</h2>"
            + _figure(plot, f"Checks on the canvas that passed, per scenario and agent. {legend}."))


def _sessions_section(results: Results, agents: list[str], palette: dict[str, str]) -> str:
    """Per long scenario: bytes per model call and cumulative model-visible bytes against the turn number."""
    long = list(dict.fromkeys(s.name for s in results.scenarios if len(s.turns) >= LONG_SESSION))
    if not long:
        return ""
    runs = {(s.name, s.agent): s for s in results.scenarios}
    figures = []
    for n, name in enumerate(long):
        turns = max(len(runs[(name, a)].turns) for a in agents if (name, a) in runs)
        xs = list(range(1, turns + 1))
        per_call, cumulative = [], []
        for agent in agents:
            run = runs.get((name, agent))
            values = [t.metrics.bytes_per_call for t in run.turns] if run else []
            per_call.append(Series(agent, [*values, *[None] * (turns - len(values))], palette[agent]))
            total, running = 0.0, []
            for t in (run.turns if run else []):
                total += t.metrics.context_bytes or 0
                running.append(total)
            cumulative.append(Series(agent, [*running, *[None] * (turns - len(running))], palette[agent]))
        figures.append(_figure(line_plot(f"plot-long-{n}-call", f"Bytes per model call ({name})", "turn",
                                         "bytes per call", xs, per_call),
                               f"{name}: model-visible bytes per model call at each turn (context bytes / model "
                               "calls); gaps are turns without a model call (a person's own edit, or a turn that "
                               "asked before calling)."))
        figures.append(_figure(line_plot(f"plot-long-{n}-cumulative", f"Cumulative bytes ({name})", "turn",
                                         "model-visible bytes so far", xs, cumulative),
                               f"{name}: model-visible bytes sent from turn 1 to each turn, summed."))
    return ("<h2>Sessions as long as real ones</h2>"
            f"<p>Scenarios of {LONG_SESSION} turns or more, turn by turn, one line per agent.</p>"
            '<div class="plots">' + "\n".join(figures) + "</div>")


# -- plots --------------------------------------------------------------------------------------------
def _plots(results: Results, workflow: str, agents: list[str], palette: dict[str, str], n: int) -> str:
    scenarios = [s for s in results.scenarios if s.workflow == workflow]
    figures = []
    turns = max((len(s.turns) for s in scenarios), default=0)
    if turns:
        xs = list(range(1, turns + 1))
        series = [Series(a, [_mean_context(scenarios, a, i) for i in range(turns)], palette[a]) for a in agents]
        figures.append(_figure(line_plot(f"plot-{n}-context", f"Context bytes per turn ({workflow})", "turn",
                                         "model-visible bytes", xs, series),
                               f"Model-visible bytes per turn, mean over the {workflow} scenarios that have that "
                               "turn; one line per agent."))
    edits = _edit_turns(scenarios)
    if edits:
        keys = {name: f"S{i + 1}" for i, name in enumerate(dict.fromkeys(name for name, _ in edits))}
        legend = "; ".join(f"{short} = {name}" for name, short in keys.items())
        labels = [f"{keys[name]} #{index + 1}" for name, index in edits]
        calls = [Series(a, [_edit_metric(scenarios, a, key, "provider_calls") for key in edits], palette[a])
                 for a in agents]
        figures.append(_figure(grouped_bars(f"plot-{n}-calls", f"Provider calls per edit turn ({workflow})",
                                            "scenario #turn", "provider calls", labels, calls),
                               "Media-provider calls (cache hits excluded) of every edit and feedback turn, one bar "
                               f"per agent. {legend}."))
        local = [Series(a, [_edit_metric(scenarios, a, key, "locality") for key in edits], palette[a])
                 for a in agents]
        figures.append(_figure(grouped_bars(f"plot-{n}-locality", f"Locality per edit turn ({workflow})",
                                            "scenario #turn", "changed / targeted outputs", labels, local,
                                            reference=1.0, reference_label="exact (1.0)"),
                               "Outputs changed divided by outputs targeted; the dashed line is exact work. "
                               f"n/a: the turn declares no targets or was not measured. {legend}."))
    else:
        figures.append(f"<p>No edit turns in the {escape(workflow)} scenarios.</p>")
    return '<div class="plots">' + "\n".join(figures) + "</div>"


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{escape(caption)}</figcaption></figure>"


def _mean_context(scenarios: list[ScenarioResult], agent: str, index: int) -> float | None:
    values = [s.turns[index].metrics.context_bytes for s in scenarios
              if s.agent == agent and len(s.turns) > index and s.turns[index].metrics.context_bytes is not None]
    return statistics.fmean(values) if values else None  # type: ignore[arg-type]


def _edit_turns(scenarios: list[ScenarioResult]) -> list[tuple[str, int]]:
    """(scenario, turn index) of every edit turn any agent ran, in scenario then turn order."""
    return list(dict.fromkeys((s.name, t.index) for s in scenarios for t in s.turns if t.kind in EDIT_KINDS))


def _edit_metric(scenarios: list[ScenarioResult], agent: str, key: tuple[str, int], metric: str) -> float | None:
    for s in scenarios:
        if s.agent == agent and s.name == key[0]:
            for t in s.turns:
                if t.index == key[1]:
                    value = getattr(t.metrics, metric)
                    return None if value is None else float(value)
    return None


# -- scenarios -----------------------------------------------------------------------------------------
_COLUMNS = [("#", None), ("kind", None), ("request", None), ("outcome", None),
            ("provider calls", "provider_calls"), ("est. cost $", "estimated_cost_usd"), ("model calls", "model_calls"),
            ("context bytes", "context_bytes"), ("changed", "changed_outputs"), ("targeted", "targeted_outputs"),
            ("untargeted changed", "untargeted_changed"), ("locality", "locality"), ("rejections", "rejections"),
            ("retries", "retries"), ("clarifications", "clarifications"), ("approvals", "approvals"),
            ("recovered", "recovered"), ("wall s", "wall_s"), ("checks", None), ("failed checks", None)]


def _scenario_section(scenario: ScenarioResult) -> str:
    verdict = ('<span class="pass">passed</span>' if scenario.passed
               else '<span class="fail">failed</span>')
    head = (f'<section class="scenario" data-agent="{escape(scenario.agent)}">'
            f"<h3>{escape(scenario.name)} — {escape(scenario.agent)} agent: {verdict}</h3>"
            f"<p class=\"meta\">wall time {escape(_fmt(scenario.wall_s, ' s'))}; project "
            f"<code>{escape(scenario.project_dir or 'unknown')}</code></p>")
    if scenario.error:
        head += f'<p class="fail">error: {escape(scenario.error)}</p>'
    header = "".join(f'<th scope="col">{escape(name)}</th>' for name, _ in _COLUMNS)
    rows = "".join(_turn_row(t) for t in scenario.turns)
    return (f'{head}<div class="wide"><table class="turns"><thead><tr>{header}</tr></thead><tbody>{rows}</tbody>'
            "</table></div></section>")


def _turn_row(turn: TurnResult) -> str:
    passed = sum(1 for c in turn.checks if c.passed)
    failed = "".join(f"<li><strong>{escape(c.name)}</strong>: {escape(c.detail)}</li>"
                     for c in turn.checks if not c.passed)
    cells = [f'<td class="num">{turn.index + 1}</td>', f"<td>{escape(turn.kind)}</td>",
             f'<td class="request">{escape(turn.request)}</td>', f"<td>{escape(turn.outcome or '')}</td>"]
    for _, metric in _COLUMNS[4:-2]:
        value = getattr(turn.metrics, metric or "")
        if metric == "rejections" and turn.metrics.rejection_reasons:
            reasons = ", ".join(f"{k}: {v}" for k, v in turn.metrics.rejection_reasons.items())
            cells.append(f'<td class="num">{escape(_fmt(value))} ({escape(reasons)})</td>')
        else:
            cells.append(f'<td class="num">{escape(_fmt(value))}</td>')
    cells.append(f'<td class="num">{passed}/{len(turn.checks)}</td>')
    cells.append(f'<td class="failed">{"<ul>" + failed + "</ul>" if failed else ""}</td>')
    return "<tr>" + "".join(cells) + "</tr>"


def _definitions() -> str:
    items = "".join(f"<dt>{escape(name)}</dt><dd>{escape(text)}</dd>" for name, text in METRICS.items())
    kinds = " or ".join(f"<code>{k}</code>" for k in EDIT_KINDS)
    return ("<h2>How to read this report</h2><p>Every number is computed from the recorded trajectories and commits "
            f"of the runs, not from what the agents said. An edit turn is a scripted turn of kind {kinds}. Turns are "
            f'numbered from 1.</p><dl class="metrics">{items}</dl>')


def _fmt(value: Any, unit: str = "", digits: int = 2) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        text = f"{value:,.{digits}f}"
        return (text.rstrip("0").rstrip(".") if "." in text else text) + unit
    if isinstance(value, int):
        return f"{value:,}" + unit
    return str(value) + unit
