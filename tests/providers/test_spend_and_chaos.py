"""The pieces under the provider path, without an engine: pricing and the spend ledger, the spend budget, the
repeated-call guard, and the chaos model's mistakes (its own behaviour, around a scripted model)."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from nodes.bridge import Usage
from nodes.grant import Budget, check_spend
from nodes.models.chaos import FALSE_CLAIM_TEXT, ChaosModel, ErrorKind, parse_chaos, without_injections
from nodes.models.scripted import ScriptedModel
from nodes.repeats import repeated_call
from nodes.verdicts import GrantDenied
from store.models import new_id
from tools.spend import PriceTable, Spend, SpendLedger

SHOT = new_id()


def test_prices_follow_the_providers_usage_and_overrides(tmp_path):
    table = PriceTable.for_project({"prices": {"house-model": {"input_per_mtok": 1.0}}}, None)
    # A dated snapshot is priced as its family; OpenAI's names for the fields and LangChain's both count.
    dated = table.chat("gpt-4o-mini-2024-07-18", {"prompt_tokens": 1_000_000, "completion_tokens": 1_000_000})
    assert dated.cost_usd == pytest.approx(0.75) and dated.tokens_in == dated.tokens_out == 1_000_000
    assert table.chat("house-model", {"input_tokens": 500_000}).cost_usd == pytest.approx(0.5)
    assert table.chat("nobody-knows", {"input_tokens": 10}).unpriced == ["nobody-knows"]
    # An image is priced by its tokens when the provider reports them, else per image.
    by_tokens = table.media("gpt-image-1", usage={"input_tokens": 100, "output_tokens": 4160,
                                                  "input_tokens_details": {"text_tokens": 100, "image_tokens": 0}})
    assert by_tokens.cost_usd == pytest.approx((100 * 5 + 4160 * 40) / 1e6)
    assert table.media("gpt-image-1", images=2).cost_usd == pytest.approx(0.5)
    assert table.media("sora-2", seconds=4).cost_usd == pytest.approx(0.4)
    file = tmp_path / "prices.toml"
    file.write_text('[prices."sora-2"]\nper_second = 0.5\n')
    assert PriceTable.for_project({}, file).media("sora-2", seconds=4).cost_usd == pytest.approx(2.0)


def test_the_ledger_keeps_what_a_stopped_step_was_billed_for_its_resume(tmp_path):
    ledger = SpendLedger(tmp_path / "spend.sqlite")
    ledger.record(Spend(calls=1, tokens_in=10, tokens_out=5, cost_usd=0.25), source="image", model="gpt-image-1",
                  thread_id="t", turn_id="turn-1")
    ledger.record(Spend(calls=1, tokens_in=100, tokens_out=20, cost_usd=0.01), source="agent", model="gpt-4o-mini",
                  thread_id="t", turn_id="turn-1")
    ledger.record(Spend(calls=1, cost_usd=0.4), source="video", model="sora-2", thread_id="t", turn_id="turn-2")
    assert ledger.turn("turn-1") == Spend(calls=2, tokens_in=110, tokens_out=25, cost_usd=0.26)
    assert set(ledger.by_turn()) == {"turn-1", "turn-2"}
    assert {k: v.cost_usd for k, v in ledger.by_source().items()} == {"image": 0.25, "agent": 0.01, "video": 0.4}
    # The turn's state was checkpointed before the billed calls (the step stopped): the ledger brings it up.
    usage = Usage(cost_usd=0.01, paid_calls=1)
    ledger.estimates = {"generate_image": 0.5}
    ledger.sync(usage, "turn-1")
    assert (usage.paid_calls, usage.cost_usd, usage.generation_estimates) == (2, 0.26, {"generate_image": 0.5})


def test_a_spend_budget_refuses_the_call_that_could_pass_it():
    budget = Budget(cost_usd=1.0, tokens=1000)
    check_spend(budget, Usage(cost_usd=0.5), next_call_usd=0.5)  # exactly the budget: allowed
    with pytest.raises(GrantDenied, match=r"cost budget of \$1.0000 would be exceeded: \$0.5000 spent"):
        check_spend(budget, Usage(cost_usd=0.5), next_call_usd=0.51)
    with pytest.raises(GrantDenied, match="budget of 1,000 tokens"):
        check_spend(budget, Usage(tokens_in=900, tokens_out=50), next_call_tokens=100)


def step(index: int, tool: str, args: dict, seen: int, *, rejected: bool = False) -> dict:
    return {"index": index, "action": {"kind": "tool_call", "tool": tool, "args": args},
            "verdict": {"verdict": "reject" if rejected else "allow"}, "observation": {"ok": index},
            "seen_version": seen}


def test_a_call_repeated_with_the_canvas_unchanged_is_a_loop_and_after_a_change_is_not():
    read = {"kind": "tool_call", "tool": "read_node", "args": {"node_id": SHOT}}
    steps = [step(0, "read_node", {"node_id": SHOT}, 4)]
    assert "already called with these arguments in step 0" in repeated_call(steps, read, 4, read_only=True)
    # Someone else wrote since the read: a fresh look, not a loop.
    assert repeated_call(steps, read, 5, read_only=True) is None
    assert repeated_call([step(0, "read_node", {"node_id": SHOT}, 4, rejected=True)], read, 4) is None
    # A call that writes, repeated at once, is a loop whatever it changed itself (a skill commits as it goes).
    create = {"kind": "tool_call", "tool": "create_node", "args": {"title": "a"}}
    assert "step 0" in repeated_call([step(0, "create_node", {"title": "a"}, 4)], create, 9)
    # After it, the canvas as the next proposal saw it is the version to compare with.
    steps = [step(0, "create_node", {"title": "a"}, 4), step(1, "read_node", {"node_id": SHOT}, 5)]
    assert "step 0" in repeated_call(steps, create, 5)
    assert repeated_call(steps, create, 6) is None


def conversation() -> list:
    return [SystemMessage(content="view"), HumanMessage(content="make shot 3 night")]


def chaos(rate: float = 1.0, **fields) -> ChaosModel:
    inner = ScriptedModel(script=[{"name": "update_node", "args": {"node_id": SHOT, "title": "night"}}] * 40)
    model = ChaosModel(inner=inner, rate=rate, seed=7, foreign_ids=[new_id()], **fields,
                       all_tools=["read_node", "update_node", "delete_node", "run_code"])
    return model.bind_tools([{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
                             for n in ("read_node", "update_node")])


def test_the_chaos_model_makes_every_kind_of_mistake_and_logs_each():
    model = chaos()
    messages = conversation()
    made = []
    for turn in range(16):
        reply = model.invoke(messages + [HumanMessage(content=f"again {turn}")])
        made.append((model.log.entries[-1]["kind"], reply))
        messages += [reply if reply.tool_calls else AIMessage(content=str(reply.content)),
                     *[ToolMessage(content="{}", tool_call_id=c["id"]) for c in reply.tool_calls]]
    kinds = {kind for kind, _ in made}
    assert kinds == {k.value for k in ErrorKind}  # every kind, the least used chosen each time
    by_kind = {kind: reply for kind, reply in reversed(made)}
    assert by_kind["false_claim"].content == FALSE_CLAIM_TEXT and not by_kind["false_claim"].tool_calls
    assert by_kind["malformed_json"].invalid_tool_calls and not by_kind["malformed_json"].tool_calls
    assert by_kind["out_of_grant"].tool_calls[0]["name"] in ("delete_node", "run_code")
    assert by_kind["hallucinated_id"].tool_calls[0]["args"]["node_id"] != SHOT
    assert by_kind["foreign_id"].tool_calls[0]["args"]["node_id"] == model.foreign_ids[0]
    assert len(by_kind["parallel_some_invalid"].tool_calls) >= 2
    wrong = by_kind["wrong_types"].tool_calls[0]["args"]
    assert wrong != {"node_id": SHOT, "title": "night"} and any(isinstance(v, dict) for v in wrong.values())


def test_the_draw_is_the_same_for_the_same_conversation_whatever_its_ids():
    first, second = chaos(rate=0.5), chaos(rate=0.5)
    asked = [HumanMessage(content=f"shot {new_id()} request {n}") for n in range(12)]
    again = [HumanMessage(content=f"shot {new_id()} request {n}") for n in range(12)]
    for a, b in zip(asked, again, strict=True):
        first.invoke([*conversation(), a])
        second.invoke([*conversation(), b])
    assert first.log.counts() == second.log.counts() and 0 < len(first.log.entries) < 12


def test_a_forgiving_chaos_model_shows_its_inner_model_the_turn_without_its_mistakes():
    model = chaos(kinds=[ErrorKind.PARALLEL_SOME_INVALID])
    reply = model.invoke(conversation())
    valid = [c for c in reply.tool_calls if c["name"] == "update_node" and c["args"] == {"node_id": SHOT,
                                                                                         "title": "night"}]
    assert len(valid) == 1 and len(reply.tool_calls) >= 2
    answered = [*conversation(), reply, *[ToolMessage(content="{}", tool_call_id=c["id"]) for c in reply.tool_calls]]
    shown = without_injections(answered, model.log)
    assert [c["id"] for m in shown for c in getattr(m, "tool_calls", [])] == [valid[0]["id"]]
    assert [m.tool_call_id for m in shown if isinstance(m, ToolMessage)] == [valid[0]["id"]]


def test_chaos_model_names():
    assert parse_chaos("chaos") == (0.1, "offline")
    assert parse_chaos("chaos:0.3:openai") == (0.3, "openai")
    with pytest.raises(ValueError, match="between 0 and 1"):
        parse_chaos("chaos:3")
