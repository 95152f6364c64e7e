"""The Done-when comparison in the product: results.json's ``comparison`` and report.html list, per scenario and
baseline, the turns the canvas agent lost (bytes per call, model calls per edit turn), both wall times and both
checks; a turn the baseline failed is listed apart, never counted as the canvas agent's loss."""

from __future__ import annotations

import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

from jarvishub.evaluation.results import CheckResult, Results, ScenarioResult, TurnMetrics, TurnResult
from jarvishub.evaluation.report import render_report
from tests.cli_run import ROOT


def _turn(index: int, kind: str, calls: int, call_bytes: int, wall: float, passed: bool = True,
          outcome: str = "replied") -> TurnResult:
    return TurnResult(index=index, kind=kind, request=f"request {index + 1}", outcome=outcome,
                      metrics=TurnMetrics(model_calls=calls, context_bytes=calls * call_bytes, call_bytes=call_bytes,
                                          wall_s=wall),
                      checks=[CheckResult(name="outcome replied", passed=passed, detail=outcome)])


def _results() -> Results:
    canvas = ScenarioResult(name="film", workflow="narrative", agent="canvas", project_dir="runs/canvas/film", turns=[
        _turn(0, "create", 2, 5_000, 3.0),   # more bytes per call than the baseline: a loss at turn 1
        _turn(1, "edit", 3, 2_000, 1.0),     # more calls on an edit: a loss at turn 2
        _turn(2, "edit", 4, 9_000, 2.0),     # more of both, but the baseline failed this turn: not a loss
        _turn(3, "query", 5, 1_000, 1.0),    # more calls on a question: not an edit turn, not a loss
    ]).finish()
    chat = ScenarioResult(name="film", workflow="narrative", agent="chat-trimmed", project_dir="runs/chat/film",
                          turns=[_turn(0, "create", 2, 4_000, 1.0), _turn(1, "edit", 2, 2_500, 1.0),
                                 _turn(2, "edit", 1, 3_000, 0.5, passed=False, outcome="clarification"),
                                 _turn(3, "query", 2, 5_000, 1.0)]).finish()
    return Results(started_at="2026-12-02T00:00:00Z", agents=["canvas", "chat-trimmed"], scenarios=[canvas, chat])


def test_results_json_lists_the_losses_by_turn_and_the_baselines_failed_turns_apart(tmp_path):
    path = _results().write(tmp_path / "results.json")
    against = json.loads(path.read_text())["comparison"]["film"]["canvas_against"]["chat-trimmed"]
    assert against["bytes_per_call_lost"] == [{"turn": 1, "canvas": 5_000, "baseline": 4_000}]
    assert against["edit_calls_lost"] == [{"turn": 2, "canvas": 3, "baseline": 2}]
    [failed] = against["baseline_failed_turns"]
    assert (failed["turn"], failed["baseline_outcome"], failed["more_bytes"], failed["more_calls"]) == (
        3, "clarification", True, True)
    assert against["wall_s"] == {"canvas": 7.0, "baseline": 3.5} and against["wall_lost"] is True
    # Like for like: the turns both did (turn 3 the baseline gave up on quickly is left out).
    assert against["wall_s_both_done"] == {"turns": 3, "canvas": 5.0, "baseline": 3.0}
    assert against["wall_lost_both_done"] is True
    assert against["checks"] == {"canvas": 4, "baseline": 3, "total": 4} and against["checks_lost"] is False


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._table = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._table = dict(attrs).get("class") or ""
        elif tag == "tr" and self._table == "comparison":
            self.rows.append([])
        elif tag in ("td", "th") and self._table == "comparison":
            self.rows[-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._table = ""

    def handle_data(self, data: str) -> None:
        if self._table == "comparison" and self.rows and self.rows[-1]:
            self.rows[-1][-1] += data


def test_the_report_shows_the_comparison_per_scenario_and_baseline():
    cells = _Cells()
    cells.feed(render_report(_results()))
    head, row = cells.rows
    assert row[:6] == ["film", "chat-trimmed", "4", "4 / 3 of 4", "7 / 3.5", "5 / 3 (3 turns)"]
    assert row[6] == "1 (5,000 against 4,000 bytes)" and row[7] == "2 (3 against 2 calls)"
    assert row[8] == ("3 (clarification: outcome replied; canvas 9,000 against 3,000 bytes per call; "
                      "canvas 4 against 1 model calls)")
    assert "not counted as losses" in head[8]


def test_the_bench_script_is_the_same_comparison(tmp_path):
    path = _results().write(tmp_path / "results.json")
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "eval_compare.py"), str(path)], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads(Path(path).read_text())["comparison"]
