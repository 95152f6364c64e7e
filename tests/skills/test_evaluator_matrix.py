"""The offline evaluator over every lighting preset × framing × weather, on fresh premises: no correct picture is
rejected, and a renderer that ignores framing, lighting or weather is caught.

Each picture goes the way the turn loop's feedback sees it: ``generate_image`` runs in-process on a real project
(its references on the canvas, read over Bolt), and its uncommitted node is judged on its own intent.  The pictures
are small and nothing is committed, so the whole matrix takes seconds.  The premises are new here (none is one the
grammar or the renderer was tuned on); among them a beach whose character has a light-blue head, the colour a sunset
or dawn grade gives the sky behind it (issue #20: "make shot 5 sunset" on a beach exited 1).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from nodes.feedback import pending_nodes
from nodes.evaluation import EvaluationContext
from skills.critique import OfflineEvaluator
from skills.storyboard import plan_story
from tools.generate.base import Framing, GeneratedMedia, ImageRequest, ImageProvider, Lighting, Weather
from tools.generate.offline_image import OfflineImageProvider
from tools.generate.service import GenerationService
from tools.generate.tools import GenerateImageArgs, run_generate_image

if TYPE_CHECKING:
    from conftest import Agent

pytestmark = pytest.mark.long_file(25)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)

PREMISES = (
    "a tired lifeguard on a beach finds a message in a bottle",  # sea; a light-blue head under a blue sky
    "a courier cycles down a snowy street before dawn",  # city
    "a clockmaker mends a music box in her kitchen",  # room: warm before any grade
    "a fox cub gets lost in the forest",  # forest; a tall figure, cut off by a close-up
    "a girl flies a kite over the hills",  # hills; a round figure
)
CELLS = list(itertools.product(list(Lighting), list(Framing), list(Weather)))
WIDTH, HEIGHT = 160, 96


class IgnoresFraming(OfflineImageProvider):
    """The offline renderer with a bug: every character drawn at medium framing."""

    def generate(self, request: ImageRequest) -> GeneratedMedia:
        return super().generate(request.model_copy(update={"framing": Framing.MEDIUM}))


class IgnoresLighting(OfflineImageProvider):
    """The offline renderer with a bug: no grade."""

    def generate(self, request: ImageRequest) -> GeneratedMedia:
        return super().generate(request.model_copy(update={"lighting": Lighting.NEUTRAL}))


class IgnoresWeather(OfflineImageProvider):
    """The offline renderer with a bug: always clear."""

    def generate(self, request: ImageRequest) -> GeneratedMedia:
        return super().generate(request.model_copy(update={"weather": Weather.CLEAR}))


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory, start_agent) -> Iterator[Agent]:
    with start_agent(tmp_path_factory.mktemp("matrix") / "p") as running:
        yield running


@pytest.fixture(scope="module")
def premises(agent: Agent) -> dict[str, dict[str, Any]]:
    """Each premise's character and scene references, made as the storyboard makes them."""
    made = {}
    for premise in PREMISES:
        plan = plan_story(premise)
        character = agent.call("create_node", kind="reference", title=plan.character.name, status="completed",
                               inputs={"role": "character", **plan.character.model_dump(mode="json")})["created"]
        scene = agent.call("create_node", kind="reference", title=plan.scene.name, status="completed",
                           inputs={"role": "scene", **plan.scene.model_dump(mode="json")})["created"]
        made[premise] = {"references": [character, scene], "prompt": plan.beats[3].prompt,
                         "reference_roles": {character: "character", scene: "scene"}}
    return made


def _judge(agent: Agent, provider: ImageProvider, premise: dict[str, Any], lighting: Lighting, framing: Framing,
           weather: Weather, seed: int) -> Any:
    """Generate one picture (uncommitted) and evaluate it as the turn loop's feedback does."""
    generation = agent.runtime.services["generation"]
    ctx = agent.runtime.bridge.context()
    ctx.services = {**ctx.services, "generation": GenerationService(
        agent.runtime.project.artifacts, None, provider, generation.video_provider, generation.audio_provider)}
    asked = {"lighting": lighting.value, "framing": framing.value, "weather": weather.value}
    made = run_generate_image(ctx, GenerateImageArgs(**premise, **asked, intent=asked, seed=seed, width=WIDTH,
                                                     height=HEIGHT, title="shot 4 image"))
    [node] = pending_nodes({"mutations": [m.model_dump(mode="json") for m in made.mutations]})
    evaluator = OfflineEvaluator(agent.store, agent.runtime.project.artifacts)
    return evaluator.evaluate("", node, EvaluationContext(pending={node.id: node}))


@pytest.mark.parametrize("premise", PREMISES)
def test_no_correct_picture_is_rejected(agent: Agent, premises: dict[str, dict[str, Any]], premise: str):
    rejected, misread = [], []
    for seed, (lighting, framing, weather) in enumerate(CELLS):
        verdict = _judge(agent, OfflineImageProvider(), premises[premise], lighting, framing, weather, seed)
        cell = f"{lighting.value}/{framing.value}/{weather.value}"
        if not verdict.passed:
            rejected.append(f"{cell}: {verdict.notes}")
        elif (verdict.checks.get("lighting") or {}).get("shows") != [lighting.value] \
                or (verdict.checks.get("framing") or {}).get("figure_share") is None:
            misread.append(f"{cell}: {verdict.checks}")  # passed without reading what it was asked
    assert not rejected, f"{len(rejected)} of {len(CELLS)} correct pictures rejected:\n" + "\n".join(rejected[:10])
    assert not misread, "\n".join(misread[:3])


@pytest.mark.parametrize(("bug", "guilty"), [
    (IgnoresFraming, lambda lighting, framing, weather: framing != Framing.MEDIUM),
    (IgnoresLighting, lambda lighting, framing, weather: lighting != Lighting.NEUTRAL),
    (IgnoresWeather, lambda lighting, framing, weather: weather != Weather.CLEAR),
], ids=["ignores-framing", "ignores-lighting", "ignores-weather"])
def test_a_renderer_that_ignores_an_attribute_is_caught(agent: Agent, premises: dict[str, dict[str, Any]],
                                                       bug: type[OfflineImageProvider], guilty: Any):
    """Every picture the bug changes is rejected, naming the attribute; the pictures it leaves right pass."""
    attribute = bug.__name__.removeprefix("Ignores").lower()
    missed, wrongly = [], []
    for index, premise in enumerate(PREMISES):
        # Every seventh cell, from a different start on each premise: every preset, framing and weather on each.
        for seed, (lighting, framing, weather) in enumerate(CELLS[index::7]):
            verdict = _judge(agent, bug(), premises[premise], lighting, framing, weather, seed)
            cell = f"{premise[:20]}… {lighting.value}/{framing.value}/{weather.value}"
            if guilty(lighting, framing, weather):
                if verdict.passed or verdict.checks.get(attribute, {}).get("score", 1.0) >= 0.5:
                    missed.append(f"{cell}: {verdict.notes}")
            elif not verdict.passed:
                wrongly.append(f"{cell}: {verdict.notes}")
    assert not missed, f"{len(missed)} wrong pictures passed:\n" + "\n".join(missed[:10])
    assert not wrongly, f"{len(wrongly)} right pictures rejected:\n" + "\n".join(wrongly[:10])
