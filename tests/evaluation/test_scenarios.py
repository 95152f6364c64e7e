"""One narrative scenario end to end, as `jarvishub eval` runs it: a fresh project, real engine, real turns.

Its checks must pass for the canvas agent; the chat baseline runs the same scenario when it is installed
(its checks are measured, not required: the comparison is the point).
"""

from __future__ import annotations

import importlib.util
import json
import sqlite3

import pytest

from jarvishub.evaluation.runner import run_scenario
from jarvishub.evaluation.scenario import SCENARIO_DIR, load_scenario

pytestmark = pytest.mark.long_file(40)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)

SCENARIO = load_scenario(SCENARIO_DIR / "narrative-lighthouse-lighting.toml")
STEP_KEYS = {"model_calls", "model_input_bytes", "tool_schema_bytes", "max_call_bytes"}


def _chat_available() -> bool:
    return importlib.util.find_spec("jarvishub.chat_runtime") is not None


@pytest.fixture(scope="module")
def canvas_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("eval")
    return out, run_scenario(SCENARIO, "canvas", "offline", out)


def test_the_canvas_agent_passes_every_check(canvas_run):
    _, result = canvas_run
    failed = [(t.index, c.name, c.detail) for t in result.turns for c in t.checks if not c.passed]
    assert result.error is None and all(t.error is None for t in result.turns), result.error
    assert failed == []
    assert result.passed and result.totals.checks_total == sum(len(t.checks) for t in SCENARIO.turns)


def test_metrics_come_from_the_recorded_trajectory(canvas_run):
    out, result = canvas_run
    create, edit = result.turns[0], result.turns[1]
    assert create.metrics.provider_calls == 13  # 6 images, 6 clips, 1 cut
    assert create.metrics.changed_outputs == 13 and create.metrics.targeted_outputs is None
    assert (edit.metrics.targeted_outputs, edit.metrics.changed_outputs, edit.metrics.untargeted_changed,
            edit.metrics.locality) == (3, 3, 0, 1.0)
    assert edit.metrics.changed == ["final cut", "shot 3 clip", "shot 3 image"]
    for turn in result.turns:
        assert turn.metrics.model_calls >= 1 and turn.metrics.context_bytes > turn.metrics.tool_schema_bytes > 0
        assert 0 < turn.metrics.wall_s and len(turn.turn_ids) == 1
    # The numbers are the trajectory's, which the project keeps: read them back independently.
    project = out / result.project_dir
    with sqlite3.connect(project / ".jarvishub" / "trajectories.sqlite") as db:
        steps = [json.loads(b) for (b,) in db.execute(
            "SELECT body FROM steps WHERE turn_id = ?", (edit.turn_ids[0],))]
        turn = json.loads(db.execute("SELECT body FROM turns WHERE turn_id = ?",
                                                   (edit.turn_ids[0],)).fetchone()[0])
    assert all(STEP_KEYS <= set(s) for s in steps)
    assert sum(s["model_input_bytes"] for s in steps) == edit.metrics.context_bytes
    assert sum(s["provider_calls"] for s in steps) == edit.metrics.provider_calls == 3
    assert turn["started_at"] < turn["finished_at"]


@pytest.mark.skipif(not _chat_available(), reason="jarvishub.chat_runtime (the chat baseline, eval-baseline's "
                                                  "branch) is not on this branch yet")
def test_the_chat_baseline_runs_the_same_scenario(tmp_path):
    result = run_scenario(SCENARIO, "chat", "offline", tmp_path)
    assert result.error is None, result.error
    assert len(result.turns) == len(SCENARIO.turns) and all(t.error is None for t in result.turns)
    assert result.turns[0].outcome == "replied" and result.turns[0].metrics.provider_calls > 0
    assert all(t.metrics.model_calls >= 1 for t in result.turns)
