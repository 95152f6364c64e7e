"""``jarvishub eval`` with a model other than the offline planners, as a subprocess: ``--model openai`` against
the loopback endpoint (the same command measures a real model once a key is set), and ``--model chaos`` for
both agents (the full matrix is run by hand for docs/evaluation.md; here one short scenario)."""

from __future__ import annotations

import json

import pytest

from jarvishub.evaluation.results import load_results
from nodes.models.chaos import ErrorKind
from tests.evaluation.test_eval_cli import GOOD
from tests.providers.conftest import document, jarvishub, user_env

pytestmark = pytest.mark.long_file(45)

SCENARIO = GOOD.format(name="deck-then-question", slides=4) + '''
[[turns]]
kind = "note"
request = "note: the deck needs a slide on safety bicycles"
[[turns.checks]]
type = "outcome"
equals = "replied"
'''
"""A deck, a question about it (the eval CLI tests' scenario), then a note."""


@pytest.fixture
def scenario(tmp_path):
    path = tmp_path / "deck-then-question.toml"
    path.write_text(SCENARIO)
    return path


def test_eval_with_the_configured_model_measures_it_through_its_endpoint(loopback, scenario, tmp_path):
    env = user_env(loopback, JARVISHUB_MEDIA_PROVIDER="offline")  # the model is measured; media stay local
    before = len(loopback.requests("chat"))
    done = jarvishub(env, "eval", str(scenario), "--model", "openai", "--out", str(tmp_path / "run"), "--json",
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert document(done)["passed"] is True
    results = load_results(tmp_path / "run" / "results.json")
    assert results.model == "openai"
    [run] = results.scenarios
    assert run.passed and len(run.turns) == 3
    # Every proposal went to the endpoint, and each turn's bill is the provider's own usage, priced.
    assert len(loopback.requests("chat")) - before == sum(t.metrics.model_calls for t in run.turns) > 0
    assert all(t.spend["tokens_in"] > 0 and t.spend["cost_usd"] > 0 for t in run.turns)


def test_eval_under_chaos_reports_every_mistake_and_no_wrong_success(scenario, tmp_path):
    out = tmp_path / "chaos"
    done = jarvishub({**user_env_offline()}, "eval", str(scenario), "--agent", "both", "--model", "chaos:0.5",
                     "--out", str(out), "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]  # no wrong success, nothing outside a grant
    results = load_results(out / "results.json")
    assert [r["agent"] for r in results.chaos] == ["canvas", "chat"]
    for report in results.chaos:
        assert report["wrong_successes"] == 0 and report["out_of_grant"] == 0
        injected = sum(k["injected"] for k in report["kinds"].values())
        assert injected > 0, report
        assert set(report["kinds"]) == {k.value for k in ErrorKind}
        classified = sum(k["recovered"] + k["asked"] + k["failed_honestly"] + k["wrong_success"]
                         + k["off_premise_done"] for k in report["kinds"].values())
        assert classified == sum(k["turns"] for k in report["kinds"].values())
    turns = [t for s in results.scenarios for t in s.turns]
    assert any(t.injected for t in turns) and all(t.result for t in turns)
    table = (out / "chaos.md").read_text()
    assert "| error kind | injected |" in table and "wrong successes 0, out-of-grant changes 0" in table
    assert json.loads(done.stdout)["passed"] is True


def user_env_offline() -> dict[str, str]:
    """A user's environment without a key: the chaos model wraps the offline planners."""
    import os

    from tests.cli_run import ROOT

    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "JARVISHUB_MODEL"))}
    return {**env, "PYTHONPATH": str(ROOT)}
