"""A representative slice of the request suite carried out on real projects, its effects read on the canvas.

Every category of the suite (shot edits by number, position, description, selection and the previous turn;
several clauses; negations; typos; questions; undo and revert at several depths; the cut; the page; slides;
routing; asks and refusals) is run through ``Runtime.run`` with the offline planner, on fresh premises (a ferry
pilot's story, a deck on community solar gardens, a bicycle repair café's page), and judged on the canvas by
``tests/requests/effects.py``: hashes and pixels of the shots, the cut's order, the page's CSS tokens and
sections, the slides' titles and previews, and for asks nothing written and the exit code.  The whole run (every
row) is ``bench/requests.py --effects``; its figures are in docs/requests.md.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from jarvishub.commands.outcomes import exit_code
from jarvishub.runtime import Runtime
from nodes.models.scripted import ScriptedModel
from store.models import new_id
from tests.requests.effect_rows import NOT_DONE, ROWS, sample
from tests.requests.effects import EffectRunner, Verdict

pytestmark = pytest.mark.long_file(120)

_ORDER = ["cut", "versions", "story", "deck", "both", "page", "empty"]
SAMPLE = sorted(sample(), key=lambda r: _ORDER.index(r.premise))
"""Grouped by premise, so each premise's project is opened once."""

VERDICTS: list[Verdict] = []


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Any:
    made = EffectRunner(tmp_path_factory.mktemp("effects"))
    yield made
    made.close()


@pytest.mark.parametrize("row", SAMPLE, ids=[f"{r.category}:{r.request}:{r.context}" for r in SAMPLE])
def test_a_request_does_on_the_canvas_what_it_asks(runner: EffectRunner, row: Any) -> None:
    verdict = runner.run(row)
    VERDICTS.append(verdict)
    assert verdict.verdict != "wrong_success", verdict.why
    assert verdict.verdict == "pass" or row.request in NOT_DONE, (verdict.verdict, verdict.why)


def test_the_slice_covers_every_category_and_no_turn_was_a_wrong_success() -> None:
    assert VERDICTS, "the rows above ran first"
    assert {r.category for r in SAMPLE} == {r.category for r in ROWS}
    assert {r.premise for r in SAMPLE} >= {"story", "deck", "page"}
    verdicts = Counter(v.verdict for v in VERDICTS)
    assert verdicts["wrong_success"] == 0, [(v.row.request, v.why) for v in VERDICTS if v.verdict == "wrong_success"]


def test_a_slide_and_a_shot_in_one_request_get_both_grants_and_a_measured_report(runner: EffectRunner) -> None:
    """Two families in one request: the union of their smallest grants, both carried out, the report checked;
    a model that does one half is not done."""
    premise = runner.premise("mixed")
    runtime, thread = premise.runtime, new_id()
    assert exit_code(runtime.run("make shot 2 night", thread_id=thread)) == 0
    night = premise.state()
    out = runtime.run("delete the last slide and undo the last change to shot 2", thread_id=thread)
    assert exit_code(out) == 0 and out.measured["checked"] and out.measured["matches"], out.reply
    after = premise.state()
    assert after.titles == night.titles[:-1] and after.previews == night.previews[:-1]
    assert after.hashes == premise.base.hashes  # shot 2, its clip and the cut as before the night; nothing else
    grant = runtime.grants.get(out.grant_id)
    assert not grant.scope.all_nodes and {"deck_delete_slide", "undo_change"} <= set(grant.tools), grant

    assert exit_code(runtime.run("make shot 2 night", thread_id=thread)) == 0
    half = Runtime(premise.project, model=ScriptedModel(script=[
        {"name": "deck_delete_slide", "args": {"slide": 1}}, "Deleted the first slide and undid shot 2's change."]))
    try:
        out = half.run("delete the first slide and undo the last change to shot 2")
    finally:
        half.close()
    assert out.outcome == "failed" and exit_code(out) == 1, out.reply
    assert out.measured["checked"] and out.measured["missing"], out.measured
