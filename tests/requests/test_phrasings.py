"""The phrasing suite: requests in many forms, run in order on one 9-shot project with the offline planner.

Each request is checked from the canvas and the pixels: exactly the targeted
shots' images and clips, plus the cut, changed hash (nothing else did); the
change is measurable in each new image (a lighting preset's measurements, a
comparative against the previous version, the character's size for framing,
the outfit's colour, rain or snow); and the invariants hold after the commit.
The edits are cumulative (each case's expectation holds whatever came before
it), so the suite shares one project and builds it once.  To keep the wall time
reasonable, half the cases run end to end (a turn, committed, clip and cut
rebuilt) and the other half (``DRY``) run the planner's own steps against the
live canvas without committing: the dirty set it would mark and the image it
would render, measured the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from nodes.models.edits import already_done, image_overrides
from nodes.models.grammar import EditRequest
from nodes.understanding.turn import understand
from store.models import CanvasNode, NodeStatus
from tools.generate.tools import GENERATE_IMAGE, GenerateImageArgs
from tools.recovery import regeneration_args
from tools.staleness import stale_set

from skills.critique import EXPOSURE_MOVES, PRESET_EXPECTATIONS, TEMPERATURE_MOVES
from tests.requests.canvas_checks import N_SHOTS, build_story, check_invariants, current_outputs, hashes
from tools.generate.base import Lighting
from tools.generate.measure import colour_fraction, image_stats
from tools.generate.offline_image import CAPTION_SHARE, RAIN_COLOUR, SNOW_COLOUR, grade

ALL = list(range(1, N_SHOTS + 1))


DRY = "dry"


class Case:
    """A request, its form, the shots it must change and how the change measures; ``DRY`` first: planned only."""

    def __init__(self, *spec: Any) -> None:
        self.e2e = spec[0] != DRY
        self.form, self.request, self.shots, self.check = spec if self.e2e else spec[1:]

    @property
    def id(self) -> str:
        return f"{self.form}:{self.request}"


CASES = [
    Case("digit", "make shot 3 night, keep the rest", [3], ("lighting", "night")),
    Case(DRY, "verbless", "shot five should be at sunset", [5], ("lighting", "sunset")),
    Case("ordinal", "redo the second shot with warmer light but the same character", [2], ("relative", "warmth", 1)),
    Case(DRY, "list", "change the lighting of shots 2 and 4 to dawn", [2, 4], ("lighting", "dawn")),
    Case("list", "change the lighting of shot 2 and shot 4 to night", [2, 4], ("lighting", "night")),
    Case(DRY, "digit", "change the lighting of shot 4 to dawn", [4], ("lighting", "dawn")),
    Case("framing", "redo shot 1 with a wider angle", [1], ("framing", "wide")),
    Case(DRY, "outfit", "change the character's coat to red in shot 4", [4], ("outfit", "#d62828")),
    Case("comparative", "make shot 4 darker, it feels too bright", [4], ("relative", "luma", -1)),
    Case("word", "shot six at golden hour", [6], ("lighting", "golden-hour")),
    Case("ordinal", "the seventh shot should be overcast", [7], ("lighting", "overcast")),
    Case(DRY, "range", "shots 7-9 foggy", [7, 8, 9], ("lighting", "foggy")),
    Case("last", "the last shot should be candle-lit", [9], ("lighting", "candle-lit")),
    Case(DRY, "image", "image 8 in neon", [8], ("lighting", "neon")),
    Case("weather", "make it snow in shot 1", [1], ("weather", "snow")),
    Case("weather", "shot 5 in the rain", [5], ("weather", "rain")),
    Case("framing", "shot 6 as a close-up", [6], ("framing", "close-up")),
    Case(DRY, "negation", "shot 6 is too warm", [6], ("relative", "warmth", -1)),
    Case("negation", "make shot 7 less blue", [7], ("relative", "blue", -1)),
    Case(DRY, "negation", "shot 3 is too dark", [3], ("relative", "luma", 1)),
    Case("ordinal", "make the third shot moonlit", [3], ("lighting", "moonlit")),
    Case(DRY, "word", "shot two at noon", [2], ("lighting", "noon")),
    Case("digit", "make shot 1 high-key", [1], ("lighting", "high-key")),
    Case(DRY, "digit", "give shot 8 a low-key noir look", [8], ("lighting", "low-key")),
    Case("time of day", "shot 4 at dusk", [4], ("lighting", "dusk")),
    Case(DRY, "every", "every shot at dawn", ALL, ("lighting", "dawn")),
    Case("list", "make shots 1 and 2 cold", [1, 2], ("lighting", "cold")),
    Case(DRY, "ordinal", "the ninth shot should be warm", [9], ("lighting", "warm")),
    Case("outfit", "put the character in a blue coat in shot 5", [5], ("outfit", "#1f4e9c")),
    Case(DRY, "outfit", "shot three: make the jacket yellow", [3], ("outfit", "#f2c12e")),
    Case("framing", "shot 6 back to a medium shot", [6], ("framing", "medium")),
    Case(DRY, "framing", "make shot nine a close-up", [9], ("framing", "close-up")),
    Case("weather", "no more rain in shot 5", [5], ("weather", "clear")),
    Case(DRY, "redo", "redo the lighting on shot 7", [7], ("redo", "lighting")),
    Case("redo", "redo shot 4", [4], ("redo", "take")),
    Case(DRY, "constraint", "keep the character but make shot 2 sunset", [2], ("lighting", "sunset")),
    Case("constraint", "same composition, but make shot 3 golden hour", [3], ("lighting", "golden-hour")),
    Case("range", "shots 4 to 6 overcast", [4, 5, 6], ("lighting", "overcast")),
    Case("comparative", "make shot 4 brighter", [4], ("relative", "luma", 1)),
    Case(DRY, "comparative", "make shot 9 cooler", [9], ("relative", "warmth", -1)),
    Case("time of day", "shot one at twilight", [1], ("lighting", "dusk")),
    Case(DRY, "time of day", "shot 2 in the early morning", [2], ("lighting", "dawn")),
    Case("time of day", "turn shot 8 into a nighttime scene", [8], ("lighting", "night")),
    Case(DRY, "digit", "candlelight in shot 7", [7], ("lighting", "candle-lit")),
    Case("last", "the final shot at midday", [9], ("lighting", "noon")),
    Case(DRY, "weather", "shot 4 with snowfall", [4], ("weather", "snow")),
    Case("framing", "make the first shot a close-up", [1], ("framing", "close-up")),
    Case(DRY, "word", "shot seven should be moonlit", [7], ("lighting", "moonlit")),
    Case("image", "image 2 overcast", [2], ("lighting", "overcast")),
    Case(DRY, "range", "shots 2 through 3 at sunset", [2, 3], ("lighting", "sunset")),
    Case("verbless", "shot 6 in neon light", [6], ("lighting", "neon")),
    Case(DRY, "verbless", "the eighth shot, foggy", [8], ("lighting", "foggy")),
    Case("comparative", "shot 5 feels too cold", [5], ("relative", "warmth", 1)),
    Case(DRY, "comparative", "shot 1 is too bright", [1], ("relative", "luma", -1)),
    Case("outfit", "shot 9: the character's cloak should be green", [9], ("outfit", "#2a9d3f")),
    Case(DRY, "list", "shots 3, 5 and 7 at golden hour", [5, 7], ("lighting", "golden-hour")),
    Case("constraint", "keep the rest and make shot 4 high-key", [4], ("lighting", "high-key")),
    Case(DRY, "framing", "pull back to a wide shot on shot 4", [4], ("framing", "wide")),
    Case("weather", "make shot 2 rainy", [2], ("weather", "rain")),
    Case(DRY, "word", "shot eight at sunset", [8], ("lighting", "sunset")),
    Case("image", "make image 6 warmer", [6], ("relative", "warmth", 1)),
    Case("every", "all shots at noon", ALL[:-1], ("lighting", "noon")),  # shot 9 is at noon already: left alone
]


@pytest.fixture(scope="module")
def story(project, make_runtime_module):
    build_story(make_runtime_module)
    check_invariants(project.store)
    return make_runtime_module()


@pytest.fixture(scope="module")
def make_runtime_module(project):
    """Runtimes on the module's project, closed at the end of the module."""
    from jarvishub.runtime import Runtime

    made: list[Runtime] = []

    def _make(**kwargs: Any) -> Runtime:
        made.append(Runtime(project, **kwargs))
        return made[-1]

    yield _make
    for runtime in made:
        runtime.close()


def test_the_suite_covers_every_form_with_at_least_60_requests():
    forms = {c.form for c in CASES}
    assert len(CASES) >= 60 and len({c.request for c in CASES}) == len(CASES)
    assert {"digit", "word", "ordinal", "list", "range", "last", "every", "image", "verbless", "comparative",
            "negation", "constraint", "framing", "outfit", "weather", "time of day", "redo"} <= forms


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_request_changes_exactly_its_shots_measurably(case: Case, story, project):
    store, artifacts = project.store, project.artifacts
    if not case.e2e:
        return planned_only(case, story, project)
    before_nodes = current_outputs(store)
    before = hashes(store)

    outcome = story.run(case.request)

    assert outcome.outcome == "replied", outcome.reply
    after_nodes = current_outputs(store)
    after = hashes(store)
    expected = {f"shot {n} {part}" for n in case.shots for part in ("image", "clip")} | {"final cut"}
    assert {t for t in after if after[t] != before.get(t)} == expected, outcome.reply
    check_invariants(store)
    for n in case.shots:
        old, new = before_nodes[f"shot {n} image"], after_nodes[f"shot {n} image"]
        old_png, new_png = artifacts.read_bytes(old.outputs[0]), artifacts.read_bytes(new.outputs[0])
        CHECKS[case.check[0]](case.check[1:], old, new, old_png, new_png, store)


def planned_only(case: Case, runtime, project) -> None:
    """What the offline planner would do, without committing: its dirty set on the canvas and the image it renders.

    The steps are the edit playbook's own (grammar, target resolution on the canvas, overrides, the stale set,
    the regeneration arguments); only the commit, the clip and the cut are left out, which the end-to-end
    cases run. The canvas does not change, so the cumulative cases after it see the same project.
    """
    store, artifacts = project.store, project.artifacts
    intent = understand(store, case.request)
    assert intent.clarification is None and intent.operation == "edit", intent.clarification
    resolved = [(target.image_id, EditRequest.model_validate(clause.modifications))
                for clause in intent.clauses for target in clause.targets]
    resolved = [(image, edit) for image, edit in resolved if not already_done(edit, store.get_node(image).inputs)]
    dirty = {n.title for image, _ in resolved for n in stale_set(store, image)}
    expected = {f"shot {n} {part}" for n in case.shots for part in ("image", "clip")} | {"final cut"}
    assert dirty == expected
    ctx = runtime.bridge.context()
    for image, edit in resolved:
        old = store.get_node(image)
        args = regeneration_args(old, {}, image_overrides(edit, old.inputs))
        made = GENERATE_IMAGE.run(ctx, GenerateImageArgs.model_validate(args))
        create = made.mutations[0]
        new = CanvasNode(id=create.id, kind=create.kind, title=create.title, inputs=create.inputs,
                         outputs=create.outputs)
        assert new.outputs[0].sha256 != old.outputs[0].sha256
        CHECKS[case.check[0]](case.check[1:], old, new, artifacts.read_bytes(old.outputs[0]),
                              artifacts.read_bytes(new.outputs[0]), store)
    check_invariants(store)


# -- measurements ---------------------------------------------------------------------------------------


def _stats(png: bytes):
    return image_stats(png, skip_bottom=CAPTION_SHARE)


def _graded(colour: str, node) -> str:
    rgb = np.array([[[int(colour[i:i + 2], 16) for i in (1, 3, 5)]]], dtype=np.uint8)
    out = grade(rgb, Lighting(node.inputs.get("lighting") or "neutral"), float(node.inputs.get("exposure") or 0),
                float(node.inputs.get("temperature") or 0))[0, 0]
    return "#{:02x}{:02x}{:02x}".format(*out)


def _share(png: bytes, colour: str, node) -> float:
    return colour_fraction(png, _graded(colour, node), 8, skip_bottom=CAPTION_SHARE)


def _check_lighting(args, old, new, old_png, new_png, store) -> None:
    (preset,) = args
    assert new.inputs["lighting"] == preset
    stats = _stats(new_png)
    exposed, tempered = bool(new.inputs.get("exposure")), bool(new.inputs.get("temperature"))
    for measure, low, high in PRESET_EXPECTATIONS.get(preset, ()):
        if (measure in EXPOSURE_MOVES and exposed) or (measure in TEMPERATURE_MOVES and tempered):
            continue
        value = getattr(stats, measure)
        assert low is None or value >= low, f"{preset}: {measure} {value:.1f} < {low}"
        assert high is None or value <= high, f"{preset}: {measure} {value:.1f} > {high}"
    before = _stats(old_png)
    assert (stats.mean_brightness, stats.warmth, stats.saturation) != (
        before.mean_brightness, before.warmth, before.saturation)


_MEASURE = {"luma": "mean_brightness", "warmth": "warmth", "blue": "mean_blue"}


def _check_relative(args, old, new, old_png, new_png, store) -> None:
    attribute, sign = args
    measure = _MEASURE[attribute]
    moved = getattr(_stats(new_png), measure) - getattr(_stats(old_png), measure)
    assert moved * sign >= 4.0, f"{attribute} moved by {moved:.1f}"
    assert new.inputs["lighting"] == old.inputs["lighting"]  # a comparative keeps the mood, it nudges it


def _head_colour(node, store) -> str:
    from skills.critique import character_references

    [character] = character_references(store, node)
    return character.inputs["colors"][1].lower()


def _check_framing(args, old, new, old_png, new_png, store) -> None:
    (framing,) = args
    assert new.inputs["framing"] == framing and old.inputs.get("framing", "medium") != framing
    head = _head_colour(new, store)
    before, after = _share(old_png, head, old), _share(new_png, head, new)
    order = ["wide", "medium", "close-up"]
    bigger = order.index(framing) > order.index(old.inputs.get("framing", "medium"))
    assert (after > before * 1.5) if bigger else (after < before / 1.5), (before, after)


def _check_outfit(args, old, new, old_png, new_png, store) -> None:
    (colour,) = args
    assert new.inputs["outfit"] == colour
    assert _share(new_png, colour, new) > 0.01 > _share(old_png, colour, old)


def _check_weather(args, old, new, old_png, new_png, store) -> None:
    (weather,) = args
    assert new.inputs["weather"] == weather
    for kind, colour in (("rain", RAIN_COLOUR), ("snow", SNOW_COLOUR)):
        before, after = _share(old_png, colour, old), _share(new_png, colour, new)
        if weather == kind:
            assert after > before + 0.01, (kind, before, after)
        elif old.inputs.get("weather") == kind:
            assert after < before - 0.01, (kind, before, after)


def _check_redo(args, old, new, old_png, new_png, store) -> None:
    (what,) = args
    if what == "lighting":
        assert new.inputs["lighting"] != old.inputs["lighting"]
        assert _stats(new_png).mean_rgb != _stats(old_png).mean_rgb
    else:
        assert new.inputs["seed"] == old.inputs.get("seed", 0) + 1 and new_png != old_png


CHECKS: dict[str, Callable[..., None]] = {
    "lighting": _check_lighting, "relative": _check_relative, "framing": _check_framing, "outfit": _check_outfit,
    "weather": _check_weather, "redo": _check_redo,
}


class _FailsOneShot:
    """The offline evaluator, except that it rejects every new version of one shot's image."""

    def __init__(self, inner: Any, title: str) -> None:
        self.inner, self.title = inner, title

    def evaluate(self, request: str, node: Any, context: Any = None) -> Any:
        result = self.inner.evaluate(request, node, context)
        if node.title == self.title:
            return result.model_copy(update={"passed": False, "score": 0.1, "notes": "rejected for the test"})
        return result


def test_a_rejected_new_version_restores_the_previous_one_and_the_cut_is_rebuilt(story, project,
                                                                                make_runtime_module):
    from skills.critique import OfflineEvaluator

    store = project.store
    evaluator = _FailsOneShot(OfflineEvaluator(store, project.artifacts), "shot 1 image")
    runtime = make_runtime_module(services={"turn_extra": {"evaluator": evaluator}})
    before_nodes, before = current_outputs(store), hashes(store)

    outcome = runtime.run("make shots 1 and 2 neon")

    assert outcome.outcome == "failed" and "failed its check" in outcome.reply, outcome.reply
    after_nodes, after = current_outputs(store), hashes(store)
    assert {t for t in after if after[t] != before[t]} == {"shot 2 image", "shot 2 clip", "final cut"}
    assert after_nodes["shot 1 image"].id == before_nodes["shot 1 image"].id
    assert after_nodes["shot 1 image"].status == NodeStatus.COMPLETED
    check_invariants(store)
    rejected = [n for n in store.find_nodes(kind="image", status=NodeStatus.REJECTED)
                if n.title == "shot 1 image" and n.inputs.get("lighting") == "neon"]
    assert len(rejected) == 1
    # A later turn on the same shot works from the restored version, and the cut follows again.
    again = story.run("make shot 1 sunset")
    assert again.outcome == "replied", again.reply
    check_invariants(store)


def test_selecting_an_exploration_candidate_rebuilds_that_shots_clip_and_the_cut(story, project):
    store = project.store
    before_nodes, before = current_outputs(store), hashes(store)

    outcome = story.run("explore shot 4 with three lighting moods")

    assert outcome.outcome == "replied", outcome.reply
    after_nodes, after = current_outputs(store), hashes(store)
    assert {t for t in after if after[t] != before[t]} == {"shot 4 image", "shot 4 clip", "final cut"}
    selected = after_nodes["shot 4 image"]
    assert selected.status == NodeStatus.SELECTED and selected.id != before_nodes["shot 4 image"].id
    explored = store.get_node(before_nodes["shot 4 image"].id)
    assert explored.status == NodeStatus.REJECTED and "superseded" in explored.metadata["status_reason"]
    # The reply names the variation picked and the image it replaced as a person knows them, not by their ids.
    assert f"selected the {selected.inputs['lighting']!r} one" in outcome.reply, outcome.reply
    assert "It replaces shot 4 image; rebuilt shot 4 clip, final cut." in outcome.reply, outcome.reply
    assert selected.id not in outcome.reply and explored.id not in outcome.reply, outcome.reply
    check_invariants(store)
