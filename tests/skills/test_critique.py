"""critique and evaluate_node: measurable verdicts on real media, recorded on the canvas through the bridge."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from nodes.actions import Evaluation
from nodes.bridge import Usage
from nodes.evaluation import Evaluator
from skills.critique import (
    EvaluateNodeArgs,
    EvaluationReplyError,
    MultimodalEvaluator,
    OfflineEvaluator,
    run_evaluate_node,
)
from store.models import CanvasNode, EdgeType, NodeStatus, new_id
from tools.base import ToolError

if TYPE_CHECKING:
    from conftest import Agent

MIRA = {"role": "character", "name": "Mira", "colors": ["#c0392b", "#f5cba7"], "shape": "round"}
ODO = {"role": "character", "name": "Odo", "colors": ["#2e86c1", "#f0b27a"], "shape": "tall"}


def _with_evaluator(project) -> dict[str, Any]:
    return {"services": {"turn_extra": {"evaluator": OfflineEvaluator(project.store, project.artifacts)}}}


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory, start_agent) -> Iterator[Agent]:
    with start_agent(tmp_path_factory.mktemp("critique") / "p", configure=_with_evaluator) as running:
        yield running


@pytest.fixture(scope="module")
def evaluator(agent: Agent) -> OfflineEvaluator:
    return agent.runtime.services["turn_extra"]["evaluator"]


@pytest.fixture(scope="module")
def characters(agent: Agent) -> dict[str, str]:
    return {spec["name"]: agent.call("create_node", kind="reference", title=spec["name"], status="completed",
                                     inputs=spec)["created"] for spec in (MIRA, ODO)}


@pytest.fixture(scope="module")
def night_image(agent: Agent, characters: dict[str, str]) -> CanvasNode:
    made = agent.call("generate_image", prompt="Mira on the pier", references=[characters["Mira"]],
                      lighting="night", width=384, height=224)
    return agent.store.get_node(made["node_id"])


@pytest.fixture(scope="module")
def clip(agent: Agent, night_image: CanvasNode) -> CanvasNode:
    made = agent.call("generate_video", source_node_id=night_image.id, camera="zoom", duration_s=1.0, fps=12)
    return agent.store.get_node(made["node_id"])


def test_a_night_image_fails_a_bright_request_and_passes_a_night_one(agent: Agent, night_image: CanvasNode,
                                                                    characters: dict[str, str]):
    bright = agent.call("skill__critique", node_id=night_image.id, request="a bright high-key shot of Mira")
    night = agent.call("skill__critique", node_id=night_image.id, request="Mira on the pier at night")

    assert not bright["passed"] and bright["score"] < 0.5
    assert night["passed"] and night["score"] >= 0.5
    failed = agent.store.get_node(bright["evaluation_id"])
    assert failed.kind == "evaluation" and failed.inputs["passed"] is False
    assert failed.inputs["evaluator"] == "offline" and "brightness" in failed.inputs["notes"]
    assert failed.inputs["checks"]["brightness"]["mean_brightness"] < 80
    [edge] = [n.edge for n in agent.store.neighbours(failed.id, [EdgeType.REFERENCES])]
    assert (edge.target, edge.properties) == (night_image.id, {"role": "evaluates"})
    passed = agent.store.get_node(night["evaluation_id"])
    identity = passed.inputs["checks"][f"character:{characters['Mira']}"]
    assert identity["score"] == 1.0 and min(identity["colour_share"].values()) > 0.002


def test_the_bridge_runs_evaluation_actions_with_the_same_tool(agent: Agent, night_image: CanvasNode):
    grant = agent.runtime.grant_for("evaluate")
    action = Evaluation(action_id=new_id(), node_id=night_image.id, criteria="warm golden light")
    result = agent.runtime.bridge.submit(action, grant, Usage(), thread_id=agent.thread_id)
    assert result.verdict == "allow" and result.observation["passed"] is False
    assert result.observation["checks"]["warmth"]["wanted"] == "warm"
    assert agent.store.get_node(result.observation["evaluation_id"]).kind == "evaluation"


def test_a_pending_node_is_checked_against_the_characters_its_inputs_reference(
        evaluator: OfflineEvaluator, night_image: CanvasNode, characters: dict[str, str]):
    feedback_evaluator: Evaluator = evaluator  # what the turn loop's feedback node takes
    pending = night_image.model_copy(update={"id": new_id()})  # as the feedback node sees it: not committed yet
    assert feedback_evaluator.evaluate("Mira at night", pending).passed
    impostor = pending.model_copy(update={"inputs": {**pending.inputs, "references": [
        {"node_id": characters["Odo"], "role": "character"}]}})
    result = evaluator.evaluate("Odo at night", impostor)
    assert not result.passed and "Odo is not recognisable" in result.notes


def test_a_clip_must_decode_with_the_duration_asked_for(evaluator: OfflineEvaluator, clip: CanvasNode):
    good = evaluator.evaluate("a night clip", clip)
    assert good.passed and good.checks["duration"]["measured_s"] == pytest.approx(1.0, abs=0.1)
    assert good.checks["brightness"]["wanted"] == "dark"
    wrong = clip.model_copy(update={"inputs": {**clip.inputs, "duration_s": 3.0}})
    result = evaluator.evaluate("", wrong)
    assert not result.passed and "not the 3 s asked for" in result.notes


class ScriptedModel(BaseChatModel):
    """A chat model that answers with a fixed text and keeps what it was sent."""

    reply: str
    seen: list[Any] = Field(default_factory=list)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        self.seen.append(messages)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.reply))])

    @property
    def _llm_type(self) -> str:
        return "scripted"


def test_the_multimodal_evaluator_shows_the_image_and_reads_a_json_verdict(agent: Agent, night_image: CanvasNode):
    model = ScriptedModel(reply='```json\n{"score": 0.2, "passed": false, "notes": "too dark"}\n```')
    evaluator = MultimodalEvaluator(agent.store, agent.runtime.project.artifacts, model)
    result = evaluator.evaluate("bright and sunny", night_image)
    assert (result.score, result.passed, result.notes) == (0.2, False, "too dark")
    [message] = model.seen[0]
    text, image = message.content
    assert "bright and sunny" in text["text"] and "Mira" in text["text"]
    assert image["type"] == "image" and image["mime_type"] == "image/png"
    assert base64.b64decode(image["base64"]) == agent.runtime.project.artifacts.read_bytes(night_image.outputs[0])


def test_a_malformed_model_reply_is_a_clear_error(agent: Agent, night_image: CanvasNode):
    evaluator = MultimodalEvaluator(agent.store, agent.runtime.project.artifacts, ScriptedModel(reply="Looks great!"))
    with pytest.raises(EvaluationReplyError, match="JSON object"):
        evaluator.evaluate("anything", night_image)
    ctx = agent.runtime.bridge.context()
    ctx.services["turn_extra"] = {"evaluator": evaluator}
    with pytest.raises(ToolError, match="Looks great"):
        run_evaluate_node(ctx, EvaluateNodeArgs(node_id=night_image.id))


# -- judged on what was asked of each node (the turn loop passes no request) -------------------------------


def _image(agent: Agent, characters: dict[str, str], **args: Any) -> CanvasNode:
    made = agent.call("generate_image", prompt="Mira on the pier", references=[characters["Mira"]], width=256,
                      height=160, **args)
    return agent.store.get_node(made["node_id"])


def test_an_image_is_judged_on_its_own_lighting_not_on_the_turns_words(
        evaluator: OfflineEvaluator, night_image: CanvasNode):
    assert evaluator.evaluate("", night_image).passed
    claims_bright = night_image.model_copy(update={"inputs": {**night_image.inputs, "lighting": "high-key"}})
    result = evaluator.evaluate("", claims_bright)
    assert not result.passed and "wanted high-key lighting" in result.notes and "it shows night" in result.notes


@pytest.mark.parametrize("lighting", ["dawn", "sunset", "moonlit", "candle-lit", "neon", "overcast"])
def test_every_lighting_preset_measures_as_it_says(agent: Agent, evaluator: OfflineEvaluator,
                                                   characters: dict[str, str], lighting: str):
    image = _image(agent, characters, lighting=lighting)
    result = evaluator.evaluate("", image)
    assert result.passed, result.notes
    assert result.checks["lighting"]["shows"] == [lighting]
    neutral = _image(agent, characters)
    pretending = neutral.model_copy(update={"inputs": {**neutral.inputs, "lighting": lighting}})
    refused = evaluator.evaluate("", pretending)
    assert not refused.passed and refused.checks["lighting"]["shows"] == ["neutral"]


def test_framing_outfit_and_weather_are_measured(agent: Agent, evaluator: OfflineEvaluator,
                                                 characters: dict[str, str]):
    close = _image(agent, characters, framing="close-up", outfit="#2a9d3f", weather="snow")
    result = evaluator.evaluate("", close)
    assert result.passed, result.notes
    assert result.checks["framing"]["wanted"] == "close-up" and result.checks["weather"]["wanted"] == "snow"
    plain = _image(agent, characters)
    for claim in ({"framing": "close-up"}, {"outfit": "#2a9d3f"}, {"weather": "rain"}, {"framing": "wide"}):
        pretending = plain.model_copy(update={"inputs": {**plain.inputs, **claim}})
        assert not evaluator.evaluate("", pretending).passed, claim


def test_a_comparative_is_judged_against_the_previous_version(agent: Agent, evaluator: OfflineEvaluator,
                                                              characters: dict[str, str]):
    first = _image(agent, characters, lighting="dawn")
    darker = _image(agent, characters, lighting="dawn", exposure=-0.6, version_of=first.id,
                    intent={"relative": {"luma": "lower"}})
    result = evaluator.evaluate("", darker)
    assert result.passed and result.checks["relative:luma"]["previous_id"] == first.id
    assert result.checks["relative:luma"]["after"] < result.checks["relative:luma"]["before"]
    # A version of `first` now would fork its output (darker replaced it): the next version is made from darker.
    not_darker = _image(agent, characters, lighting="dawn", exposure=0.6, version_of=darker.id,
                        intent={"relative": {"luma": "lower"}})
    failed = evaluator.evaluate("", not_darker)
    assert not failed.passed and "luma lower than the previous version" in failed.notes
    # "too bright" asks for darker: the words "bright" in a request never make a darker image fail.
    assert evaluator.evaluate("", darker).passed


def test_a_cut_is_judged_on_its_structure_never_on_a_shots_mood(agent: Agent, evaluator: OfflineEvaluator,
                                                                 clip: CanvasNode, night_image: CanvasNode,
                                                                 characters: dict[str, str]):
    bright = _image(agent, characters, lighting="high-key")
    bright_clip = agent.store.get_node(agent.call("generate_video", source_node_id=bright.id, duration_s=1.0,
                                                  fps=12, title="shot 2 clip")["node_id"])
    night_clip = agent.store.get_node(agent.call("generate_video", source_node_id=night_image.id, duration_s=1.0,
                                                 fps=12, title="shot 1 clip")["node_id"])
    cut = agent.store.get_node(agent.call("assemble_cut", clip_node_ids=[night_clip.id, bright_clip.id])["node_id"])
    result = evaluator.evaluate("", cut)
    assert result.passed, result.notes
    assert set(result.checks) == {"clips_current", "clips_in_order", "duration"}
    assert result.checks["duration"]["measured_s"] == pytest.approx(2.0, abs=0.2)
    backwards = agent.store.get_node(agent.call("assemble_cut", clip_node_ids=[bright_clip.id, night_clip.id])["node_id"])
    assert not evaluator.evaluate("", backwards).passed
    agent.call("set_status", node_id=bright_clip.id, status="rejected")
    outdated = evaluator.evaluate("", cut)
    assert not outdated.passed and "no longer current" in outdated.notes


def test_a_cut_on_a_clip_another_turn_marked_stale_is_current_until_that_clip_is_replaced(
        agent: Agent, evaluator: OfflineEvaluator, night_image: CanvasNode):
    first = agent.store.get_node(agent.call("generate_video", source_node_id=night_image.id, duration_s=1.0,
                                            fps=12, title="shot 1 clip")["node_id"])
    second = agent.store.get_node(agent.call("generate_video", source_node_id=night_image.id, duration_s=1.0,
                                             fps=12, camera="pan", title="shot 2 clip")["node_id"])
    cut = agent.store.get_node(agent.call("assemble_cut", clip_node_ids=[first.id, second.id])["node_id"])
    # Another turn marks shot 2 stale: its clip is still the head of its lineage, so the cut is current.
    agent.call("mark_stale", node_id=second.id, reason="another turn redoes shot 2")
    assert agent.store.get_node(second.id).status == NodeStatus.STALE
    assert evaluator.evaluate("", cut).passed
    # Once a newer version of that clip is live, a cut of the old one is out of date, stale or not.
    agent.call("generate_video", source_node_id=night_image.id, duration_s=1.0, fps=12, camera="zoom",
               title="shot 2 clip", version_of=second.id)
    outdated = evaluator.evaluate("", cut)
    assert not outdated.passed and "no longer current: shot 2 clip" in outdated.notes


def test_an_exploration_never_selects_a_look_that_was_rejected_and_scores_candidates_apart(
        agent: Agent, characters: dict[str, str]):
    neutral = _image(agent, characters)
    agent.call("set_status", node_id=neutral.id, status="rejected")
    warm = _image(agent, characters, lighting="warm", version_of=neutral.id)

    explored = agent.call("skill__explore", node_id=warm.id, n=4, instruction="try four lighting moods")

    branches = {b["label"]: b for b in explored["branches"]}
    assert "neutral" in branches and branches["neutral"]["status"] == "rejected", branches.get("neutral")
    assert explored["selected_id"] != branches["neutral"]["candidate_id"]
    assert branches["neutral"]["score"] == 0.0
    scores = [b["score"] for b in branches.values()]
    assert len(set(scores)) == len(scores), scores
    history = agent.store.get_node(branches["neutral"]["evaluation"]["evaluation_id"]).inputs["checks"]["history"]
    assert history["repeats"] == [neutral.id]
