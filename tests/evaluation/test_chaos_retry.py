"""The eval runner's answer to a false claim of work (``jarvishub eval --model chaos``), on the chat baseline.

A turn that claimed work it did not do and committed nothing is asked again, and the retry decides whether
the scenario stays on premise.  A turn that committed part of the work before the claim is not asked again:
the same words would do that part a second time (at 30% chaos the baseline built a second storyboard after
half of the first and reported done, a wrong success).  It stays failed, honestly, and what follows it runs off
premise.  A real project, the real chat baseline, and a chaos model that makes exactly these two claims.
"""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from jarvishub.evaluation.chaos import build_reports
from jarvishub.evaluation.results import Results
from jarvishub.evaluation.runner import run_scenario
from jarvishub.evaluation.scenario import Scenario
from nodes.models.chaos import ChaosModel, ErrorKind
from nodes.models.transcript import TranscriptPlanner

pytestmark = pytest.mark.long_file(60)  # one project, a deck, a 2-shot drama: scheduled first (tests/conftest.py)

DECK = "a 3-slide deck about the history of the lighthouse"
DRAMA = "a 2-shot short drama about a lighthouse keeper"
SCENARIO = f'''
name = "claims"
workflow = "narrative"
description = "A deck, a short drama, a question: the chaos model claims the deck at once, and the drama half-way."

[[turns]]
kind = "create"
request = "{DECK}"
[[turns.checks]]
type = "count"
kind = "slide"
equals = 3

[[turns]]
kind = "create"
request = "{DRAMA}"
[[turns.checks]]
type = "count"
kind = "shot"
equals = 2
[[turns.checks]]
type = "count"
kind = "video"
equals = 3

[[turns]]
kind = "query"
request = "how many images are there"
[[turns.checks]]
type = "outcome"
equals = "replied"
'''


class ClaimsAt(ChaosModel):
    """A chaos model that makes one mistake only: a false claim, once, where ``claims`` says.

    ``claims`` maps a request to how many tool results of its turn come before the claim (0: instead of
    the first call), so the claim lands at the same point of the turn whatever came before it.
    """

    claims: dict[str, int]
    made: set[str] = set()

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        result = super()._generate(messages, stop, run_manager, **kwargs)  # rate 0: the planner's own reply
        humans = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
        asked = str(messages[humans[-1]].content) if humans else ""
        results = sum(isinstance(m, ToolMessage) for m in messages[humans[-1]:]) if humans else 0
        for request, after in self.claims.items():
            if request in asked and results == after and request not in self.made:
                self.made.add(request)
                claim = self._inject(ErrorKind.FALSE_CLAIM, result.generations[0].message, messages, 0)
                return ChatResult(generations=[ChatGeneration(message=claim)])
        return result


def test_a_claim_after_partial_work_is_not_asked_again_and_counts_honestly(tmp_path):
    scenario = Scenario.model_validate(tomllib.loads(SCENARIO))
    model = ClaimsAt(inner=TranscriptPlanner(), rate=0.0, forgiving=True, claims={DECK: 0, DRAMA: 2}, made=set())
    result = run_scenario(scenario, "chat", model, tmp_path)
    assert result.error is None, result.error
    assert [(t.request, t.claimed, t.retry) for t in result.turns] == [
        (DECK, True, False),  # claimed at once, nothing committed: asked again ...
        (DECK, False, True),  # ... and the retry made the deck
        (DRAMA, True, False),  # storyboard and pictures committed, then the claim: not asked again
        ("how many images are there", False, False)]
    deck, retried, drama, question = result.turns
    assert [c.passed for c in deck.checks] == [False] and [c.passed for c in retried.checks] == [True]
    assert not all(c.passed for c in drama.checks)
    assert drama.result == "failed"  # the turn's own measured report caught the claim: 2 shots, no clips, no cut
    # One storyboard on the canvas: the half-made drama was not built a second time.
    assert [c.detail for c in drama.checks if c.name.startswith("count shot")] == ["2 shot nodes"]

    [report] = build_reports(Results(started_at="", model="chaos", agents=["chat"], scenarios=[result]), 1.0)
    claims = report.kinds[ErrorKind.FALSE_CLAIM.value]
    # Both claims are caught by the turns themselves (exit 1): the deck's as a build that made no deck, the drama's
    # as a story with no clips and no cut.  The eval had nothing left to catch from the commits.
    assert (claims.turns, claims.failed_honestly, claims.caught_by_commits, claims.wrong_success) == (2, 2, 0, 0)
    assert deck.result == "failed"
    assert report.wrong_successes == 0 and report.out_of_grant == 0
    assert report.clean == {"recovered": 1}  # the retried deck
    assert sum(report.off_premise.values()) == 1  # the question after the half-made drama
    assert question.metrics.model_calls >= 1
