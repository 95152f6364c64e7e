"""A build's budget fits the work its request asks for: a 24-shot film gets made in its one turn (the default of
200 tool calls stopped it before its cut), while every other turn keeps the default that stops a runaway loop,
and no request can buy more than the largest build the interpreter reads."""

from __future__ import annotations

import pytest

from nodes.grant import Budget
from nodes.policy import build_budget, default_grant
from nodes.understanding.pipeline import interpret

DEFAULT = Budget().tool_calls


@pytest.mark.parametrize("request_text, tool_calls", [
    ("a 24-shot short film about a lighthouse keeper's last winter", round((9 * 24 + 9) * 1.5)),
    ("a 1000-shot film about the sea", DEFAULT),  # past the skill's 24 shots: asked about, nothing built
    ("a 6-shot short drama about a lighthouse keeper", DEFAULT),  # 63 planned calls: the default is more
    ("a 20-slide deck about the history of the bicycle", DEFAULT),  # 45 planned calls: the default is more
    ("a 150-slide deck about the history of the bicycle", DEFAULT),  # past the skill's 20 slides: asked about
    ("a 100000-slide deck about the history of the bicycle", DEFAULT),
    ("add a note: the lamp stays warm", DEFAULT),
    ("how many shots are there", DEFAULT),
])
def test_only_a_sized_build_gets_more_than_the_default(request_text, tool_calls):
    assert build_budget(interpret(request_text)).tool_calls == tool_calls


def test_a_24_shot_film_is_made_in_its_one_turn(make_runtime, project):
    runtime = make_runtime()
    out = runtime.run("a 24-shot short film about a lighthouse keeper's last winter")
    assert out.outcome == "replied", out.reply
    counts = project.store.count_nodes()
    assert (counts["image"], counts["shot"], counts["video"]) == (24, 24, 25)  # 24 clips and the cut
    grant = runtime.grants.get(out.grant_id)
    assert grant.budget.tool_calls == round((9 * 24 + 9) * 1.5) and grant.budget.generation_calls == 200


def test_the_default_grant_of_an_edit_keeps_the_default_budget(make_runtime):
    """On the film just made (the module's project): an edit of one shot is back on the default budget."""
    runtime = make_runtime()
    intent = runtime.understand("make shot 3 night")
    assert [c.operation for c in intent.clauses] == ["edit"]
    assert default_grant(runtime.manifest, intent, []).budget == Budget()
