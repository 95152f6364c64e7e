"""Critique: score a canvas node against a request, by measurement offline or by a vision model.

* :class:`OfflineEvaluator` measures the node's artifact (``tools.generate.measure``):
  lighting asked for (night/dark, bright/high-key, warm, cold; from the request,
  else the node's own ``inputs.lighting``) against mean brightness and warmth;
  the character's identity by its reference's colours being present in the
  image; a clip by decoding it and comparing its duration with the one asked.
* :class:`MultimodalEvaluator` shows the image to a LangChain chat model and
  parses a JSON ``{score, passed, notes}`` reply.
* :data:`EVALUATE_NODE` is the ``evaluate_node`` tool: it evaluates an existing
  node and proposes an ``evaluation`` node that REFERENCES it (role
  ``evaluates``).  The bridge runs it for ``Evaluation`` actions too.
* :data:`CRITIQUE` is the ``critique`` skill, which calls ``evaluate_node``.

Both evaluators satisfy :class:`nodes.feedback.Evaluator`, so either can go in
``Runtime.services["turn_extra"]["evaluator"]`` for the turn loop's feedback.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import numpy as np
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from pydantic import BaseModel, Field, ValidationError

from nodes.evaluation import EvaluationContext, EvaluationReplyError, EvaluationResult
from skills.base import SkillContext, skill
from store.artifacts import ArtifactStore
from store.base import CanvasReader
from store.errors import NodeNotFound
from store.models import ArtifactHandle, CanvasNode, Direction, EdgeType, NodeStatus, Provenance, new_id
from store.mutations import CreateNode, Link
from tools.base import Effect, ToolContext, ToolError, ToolFamily, ToolResult, ToolSpec
from tools.generate.base import Framing, GenerationError, ImageRequest, Lighting, ReferenceInput, ReferenceRole
from tools.generate.measure import colour_fraction, image_stats, probe_video, rgb_array, video_frame
from tools.generate.offline_image import (
    CAPTION_SHARE,
    FRAMING_HEIGHT,
    RAIN_COLOUR,
    SNOW_COLOUR,
    OfflineImageProvider,
    grade,
)
from tools.generate.offline_reading import PictureReading, framing_ranges, read_picture

DARK_AT_MOST = 80.0
"""Mean luma (0..255) a night/dark image stays under; offline night grades measure about 40, neutral 135-175."""
BRIGHT_AT_LEAST = 185.0
"""Mean luma a bright/high-key image reaches; offline high-key grades measure about 195-212."""
WARM_AT_LEAST = 15.0
"""Mean red minus mean blue of a warm image."""
COLD_AT_MOST = -20.0
"""Mean red minus mean blue of a cold image."""
COLOUR_PRESENT = 0.002
"""Share of pixels a character's colour must cover to count as present (a head is about 0.7 % of a frame)."""

_WANTS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("brightness", "dark", re.compile(r"\b(night|dark|dim|moonlit|midnight)\b", re.IGNORECASE)),
    ("brightness", "bright", re.compile(r"\b(high[- ]key|bright|sunny|overexposed)\b", re.IGNORECASE)),
    ("warmth", "warm", re.compile(r"\b(warm|golden|sunset)\b", re.IGNORECASE)),
    ("warmth", "cold", re.compile(r"\b(cold|cool|icy|wintry)\b", re.IGNORECASE)),
)
_LIGHTING_WANTS: dict[str, dict[str, str]] = {
    Lighting.NIGHT.value: {"brightness": "dark"},
    Lighting.HIGH_KEY.value: {"brightness": "bright"},
    Lighting.WARM.value: {"warmth": "warm"},
    Lighting.COLD.value: {"warmth": "cold"},
}


PRESET_EXPECTATIONS: dict[str, tuple[tuple[str, float | None, float | None], ...]] = {
    "warm": (("warmth", WARM_AT_LEAST, None),),
    "cold": (("warmth", None, COLD_AT_MOST),),
    "night": (("mean_brightness", None, DARK_AT_MOST),),
    "high-key": (("mean_brightness", BRIGHT_AT_LEAST, None),),
    "dawn": (("mean_brightness", None, 165.0), ("warmth", 10.0, None), ("saturation", None, 90.0)),
    "noon": (("mean_brightness", 150.0, None), ("contrast", 33.0, None)),
    "golden-hour": (("warmth", 70.0, None), ("saturation", 85.0, None)),
    "sunset": (("warmth", 45.0, None), ("mean_brightness", None, 150.0)),
    "dusk": (("mean_brightness", 65.0, 112.0), ("warmth", None, -5.0)),
    "moonlit": (("mean_brightness", None, 85.0), ("warmth", None, -35.0)),
    "overcast": (("saturation", None, 30.0), ("contrast", None, 52.0)),
    "foggy": (("mean_brightness", 175.0, None), ("saturation", None, 25.0), ("contrast", None, 50.0)),
    "neon": (("saturation", 150.0, None),),
    "candle-lit": (("mean_brightness", None, 100.0), ("warmth", 40.0, None)),
    "low-key": (("mean_brightness", None, 110.0), ("contrast", 25.0, None)),
}
"""What each lighting preset measures as (``ImageStats`` field, at least, at most), over the picture without its
caption; calibrated on the offline renderer over its five settings (see ``tests/requests``)."""
FIGURE_HEIGHT_SHARE: dict[str, tuple[float | None, float | None]] = framing_ranges()
"""Height of the drawn characters (top of the head to the feet) as a share of the picture, per framing: about
0.21-0.25 wide, 0.44-0.50 medium, 0.78-0.88 close-up, with the boundaries at the geometric means between."""
FIGURE_COLOUR_PRESENT = 0.02
"""Share of the characters' pixels a character's colour must cover inside their region (a head is about 10-20 %)."""
WEATHER_COLOURS = {"rain": RAIN_COLOUR, "snow": SNOW_COLOUR}
WEATHER_PRESENT = 0.01
"""Share of the picture rain streaks or snowflakes cover when the weather is drawn."""
EXPOSURE_MOVES = frozenset({"mean_brightness", "contrast"})
TEMPERATURE_MOVES = frozenset({"warmth", "saturation"})
RELATIVE_MEASURES = {"luma": "mean_brightness", "warmth": "warmth", "blue": "mean_blue"}
"""The measurement each comparative moves."""
HISTORY_SAME = 3.0
"""Distance in (luma, warmth, saturation) under which two images look the same."""
HISTORY_SPAN = 120.0
"""Distance from the nearest earlier version at which a candidate's history score reaches 1."""
RELATIVE_AT_LEAST = 4.0
"""How far (0..255 units) a comparative must move its measurement from the previous version."""


def _within(value: float, low: float | None, high: float | None) -> float:
    """1 well inside the range, 0.5 at an edge, 0 far outside it."""
    def span(threshold: float) -> float:  # shares (0..1) ramp over their own size; 0..255 measures over 15 %
        return max(abs(threshold) * 0.15, 5.0) if abs(threshold) >= 1 else max(abs(threshold), 0.001)

    scores = [1.0]
    if low is not None:
        scores.append(_ramp(value, low, span(low), above=True))
    if high is not None:
        scores.append(_ramp(value, high, span(high), above=False))
    return min(scores)


def _span(low: float | None, high: float | None) -> str:
    if low is None:
        return f"at most {high:g}"
    if high is None:
        return f"at least {low:g}"
    return f"{low:g}..{high:g}"


def _named_colours(node: CanvasNode) -> list[str]:
    return [c.lower() for c in node.inputs.get("colors") or node.inputs.get("colours") or []
            if isinstance(c, str) and re.fullmatch(r"#[0-9a-fA-F]{6}", c)]


def _look(stats: Any) -> tuple[float, float, float]:
    return (stats.mean_brightness, stats.warmth, stats.saturation)


def _distance(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return float(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) ** 0.5)


def _previous_version(canvas: CanvasReader, node: CanvasNode) -> CanvasNode | None:
    try:
        older = canvas.neighbours(node.id, [EdgeType.VERSION_OF], Direction.OUT)
    except NodeNotFound:
        return None
    return older[0].node if older else None


def wanted_lighting(request: str, node: CanvasNode) -> dict[str, str]:
    """What lighting to check: ``{"brightness": "dark"|"bright", "warmth": "warm"|"cold"}`` (either may be absent).

    The request decides; a request that names no lighting falls back to the
    node's own ``inputs.lighting`` (an image should look like what it says it is).
    """
    wants: dict[str, str] = {}
    for axis, value, pattern in _WANTS:
        if axis not in wants and pattern.search(request or ""):
            wants[axis] = value
    if not wants:
        wants = dict(_LIGHTING_WANTS.get(str(node.inputs.get("lighting") or ""), {}))
    return wants


def character_references(canvas: CanvasReader, node: CanvasNode,
                         pending: dict[str, CanvasNode] | None = None) -> list[CanvasNode]:
    """The character references of a node: its REFERENCES edges when it is on the canvas, else its inputs.

    ``pending`` holds nodes not committed yet (the step's own): ``node`` among them is read from its inputs.
    """
    pending = pending or {}
    try:
        if node.id in pending:
            raise NodeNotFound(node.id)
        canvas.get_node(node.id)
    except NodeNotFound:
        ids = [str(r.get("node_id")) for r in node.inputs.get("references") or []
               if isinstance(r, dict) and r.get("role") == "character" and r.get("node_id")]
        found = _nodes(canvas, ids, pending)
        return [found[i] for i in dict.fromkeys(ids)]
    return [n.node for n in canvas.neighbours(node.id, [EdgeType.REFERENCES])
            if (n.edge.properties.get("role") or n.node.inputs.get("role")) == "character"]


def intended_inputs(node: CanvasNode) -> dict[str, Any]:
    """A node's inputs with what was asked of it (``inputs.intent``: lighting, framing, weather, outfit) winning.

    An image asked to be high-key but drawn at night is judged as high-key, and fails.
    """
    intent = node.inputs.get("intent") if isinstance(node.inputs.get("intent"), dict) else {}
    return {**node.inputs, **{k: v for k, v in intent.items() if k in ("lighting", "framing", "weather", "outfit")}}


def _nodes(canvas: CanvasReader, ids: list[str], pending: dict[str, CanvasNode]) -> dict[str, CanvasNode]:
    """The nodes of ``ids``: the pending ones as given, the rest read from the canvas in one read."""
    wanted = [i for i in dict.fromkeys(ids) if i not in pending]
    found = {n.id: n for n in canvas.get_nodes(wanted, include_deleted=True)} if wanted else {}
    return {i: pending.get(i) or found[i] for i in dict.fromkeys(ids)}


def _reference_input(node: CanvasNode, role: ReferenceRole, path: Any = None) -> ReferenceInput:
    """A node as the generation tools hand it to a provider: its image artifact (if any) and its inputs."""
    handle = next((h for h in node.outputs if h.mime.startswith("image/")), None)
    return ReferenceInput(node_id=node.id, role=role, sha256=handle.sha256 if handle else None,
                          mime=handle.mime if handle else None, inputs=node.inputs, path=path)


def _ramp(value: float, threshold: float, span: float, *, above: bool) -> float:
    """0.5 exactly at the threshold, rising to 1 ``span`` beyond it on the wanted side, 0 as far on the other."""
    distance = (value - threshold) if above else (threshold - value)
    return float(min(1.0, max(0.0, 0.5 + 0.5 * distance / span)))


class OfflineEvaluator:
    """Scores a node by measuring its artifact; no model, no network.

    The score is the weakest check's score (each check is 0.5 at its threshold),
    so one failed requirement fails the node however well the rest did.
    """

    name = "offline"

    def __init__(self, canvas: CanvasReader, artifacts: ArtifactStore, *, colour_tolerance: int = 8) -> None:
        self.canvas = canvas
        self.artifacts = artifacts
        self.colour_tolerance = colour_tolerance

    def evaluate(self, request: str, node: CanvasNode, context: EvaluationContext | None = None
                 ) -> EvaluationResult:
        """Measure the node against what was asked of it.

        An image is judged on its own intent (its inputs: lighting, framing, outfit, weather, and the
        comparatives in ``inputs.intent`` against its previous version), a clip on decoding with its duration,
        a cut on its structure.  ``request`` adds criteria only when given explicitly (``evaluate_node``); the
        turn loop passes none, so one shot's mood is never asked of another node.
        """
        context = context or EvaluationContext()
        handle = _media(node)
        if handle is None:
            if node.kind in {"image", "video"}:
                return self._result(node, {"artifact": {"score": 0.0, "present": False}},
                                    [f"{node.kind} node {node.id} has no artifact to evaluate"])
            return self._result(node, {}, ["nothing about this node can be measured offline"])
        checks: dict[str, dict[str, Any]] = {}
        failures: list[str] = []
        wants = wanted_lighting(request, node) if request else {}
        if handle.mime.startswith("image/"):
            png = self.artifacts.read_bytes(handle)
            asked = node.model_copy(update={"inputs": intended_inputs(node)})
            known = {**context.pending, **self._named_nodes(node, context.pending)}  # one read for both below
            characters = character_references(self.canvas, node, known)
            reading = self._read(png, asked, characters, known, checks)
            self._check_lighting(png, wants, checks, failures)
            if not request:
                self._check_intent(png, asked, context, characters, reading, checks, failures)
            else:
                self._check_history(png, node, checks, failures)
            self._check_characters(png, asked, characters, reading, checks, failures)
        elif node.inputs.get("clip_node_ids"):
            self._check_cut(node, handle, context, checks, failures)
        elif handle.mime.startswith("video/"):
            self._check_clip(node, handle, wants, checks, failures)
        return self._result(node, checks, failures)

    def _check_intent(self, png: bytes, node: CanvasNode, context: EvaluationContext, characters: list[CanvasNode],
                      reading: PictureReading | None, checks: dict, failures: list[str]) -> None:
        """The node's own look: its lighting preset, framing, weather; comparatives vs its previous version.

        ``node`` carries the inputs that were asked for (:func:`intended_inputs`).  A picture of the offline
        renderer is judged on its reading against its own scene (:mod:`tools.generate.offline_reading`), which
        no grade, weather or premise can fool; any other picture on the presets' measured ranges.
        """
        inputs = node.inputs
        intent = inputs.get("intent") if isinstance(inputs.get("intent"), dict) else {}
        lighting = str(inputs.get("lighting") or "neutral")
        weather = str(inputs.get("weather") or "clear")
        if reading is not None:
            self._check_read_look(reading, inputs, bool(characters), checks, failures)
        else:
            self._check_preset_ranges(image_stats(png, skip_bottom=CAPTION_SHARE), inputs, lighting, checks, failures)
            if weather in WEATHER_COLOURS:
                share = self._colour_share(png, WEATHER_COLOURS[weather], node)
                self._weather_verdict(weather, share, checks, failures)
        relative = intent.get("relative") or {}
        previous = (context.previous.get(node.id) or _previous_version(self.canvas, node)) if relative else None
        if relative and previous is not None and _media(previous) is not None:
            before = image_stats(self.artifacts.read_bytes(_media(previous)), skip_bottom=CAPTION_SHARE)  # type: ignore[arg-type]
            stats = image_stats(png, skip_bottom=CAPTION_SHARE)
            for attribute, direction in relative.items():
                measure = RELATIVE_MEASURES[attribute]
                old, new = float(getattr(before, measure)), float(getattr(stats, measure))
                moved = (new - old) if direction == "higher" else (old - new)
                score = _ramp(moved, RELATIVE_AT_LEAST, RELATIVE_AT_LEAST, above=True)
                checks[f"relative:{attribute}"] = {"wanted": direction, "before": round(old, 2), "after": round(new, 2),
                                                   "previous_id": previous.id, "score": score}
                if score < 0.5:
                    failures.append(f"wanted {attribute} {direction} than the previous version, but it went from "
                                    f"{old:.1f} to {new:.1f}")

    def _named_nodes(self, node: CanvasNode, pending: dict[str, CanvasNode]) -> dict[str, CanvasNode]:
        """The nodes an image's inputs name (its references, the image it edits), in one read; {} if one is gone."""
        ids = [str(r["node_id"]) for r in node.inputs.get("references") or [] if isinstance(r, dict) and r.get("node_id")]
        if node.inputs.get("edit_node_id"):
            ids.append(str(node.inputs["edit_node_id"]))
        try:
            return _nodes(self.canvas, ids, pending)
        except NodeNotFound:
            return {}

    def _read(self, png: bytes, node: CanvasNode, characters: list[CanvasNode], known: dict[str, CanvasNode],
              checks: dict) -> PictureReading | None:
        """The picture read against its own scene, when the offline renderer drew it; else None.

        The scene is rebuilt from the node's inputs and references as the generation tool built its request.
        """
        provider = (node.metadata.get("provenance") or {}).get("provider")
        if provider != OfflineImageProvider.name:
            return None
        colours = [c for ref in characters for c in _named_colours(ref)[:2]]
        if isinstance(node.inputs.get("outfit"), str) and node.inputs["outfit"]:
            colours.append(str(node.inputs["outfit"]))
        try:
            return read_picture(rgb_array(png), self._offline_request(node, known), colours)
        except (NodeNotFound, GenerationError, ValueError, OSError) as error:  # a reference or edited image gone
            checks["reading"] = {"score": 1.0, "measurable": False, "why": f"{type(error).__name__}: {error}"}
            return None

    def _offline_request(self, node: CanvasNode, known: dict[str, CanvasNode]) -> ImageRequest:
        """The :class:`ImageRequest` the generation tool made for ``node`` (its references read as it read them)."""
        inputs = node.inputs
        links = [r for r in inputs.get("references") or [] if isinstance(r, dict) and r.get("node_id")]
        ids = [str(r["node_id"]) for r in links]
        edit = str(inputs["edit_node_id"]) if inputs.get("edit_node_id") else None
        nodes = _nodes(self.canvas, [*ids, *([edit] if edit else [])], known)
        references = [_reference_input(nodes[str(r["node_id"])], ReferenceRole(r.get("role") or "style"))
                      for r in links]
        source = None
        if edit:
            handle = _media(nodes[edit])
            if handle is None:
                raise ValueError(f"the edited image {edit} has no artifact")
            source = _reference_input(nodes[edit], ReferenceRole.SOURCE, self.artifacts.local_path(handle))
        fields = {k: inputs[k] for k in ImageRequest.model_fields
                  if k in inputs and inputs[k] is not None and k not in ("references", "source")}
        return ImageRequest(**fields, references=references, source=source)

    def _check_read_look(self, reading: PictureReading, inputs: dict[str, Any], has_characters: bool,
                         checks: dict, failures: list[str]) -> None:
        """Lighting, framing and weather from the picture's reading against its own scene."""
        lighting = reading.lighting
        graded = lighting + "".join(f", {k} {float(inputs.get(k) or 0):+g}" for k in ("exposure", "temperature")
                                    if inputs.get(k))
        checks["lighting"] = {"wanted": lighting, "explained": reading.explained, "shows": reading.shows,
                              "look": reading.look, "score": 1.0 if reading.lighting_matches else 0.0}
        if not reading.lighting_matches:
            seen = (f"it shows {' or '.join(reading.shows)}" if reading.shows else
                    f"no grade of its scene explains it ({reading.explained:.0%} matches {lighting})")
            moves = ", ".join(f"{name} {now:.0f} where {lighting} gives {then:.0f}"
                              for name, (now, then) in reading.look.items() if abs(now - then) >= 1)
            failures.append(f"wanted {graded} lighting, but the scene below the characters is not graded that way: "
                            f"{seen}" + (f" ({moves})" if moves else ""))
        framing = str(inputs.get("framing") or "medium")
        if has_characters and framing in FIGURE_HEIGHT_SHARE:
            if not reading.located:  # no grade explains the scene: the lighting failed, nothing can be located
                checks["framing"] = {"wanted": framing, "measurable": False, "score": 1.0}
            else:
                low, high = FIGURE_HEIGHT_SHARE[framing]
                share = float(reading.figure_share or 0.0)
                score = _within(share, low, high) if reading.figure_pixels else 0.0
                checks["framing"] = {"wanted": framing, "figure_share": share, "range": [low, high], "score": score}
                if not reading.figure_pixels:
                    failures.append(f"{framing} framing, but no character is drawn")
                elif score < 0.5:
                    failures.append(f"{framing} framing wants the characters to stand {_span(low, high)} of the "
                                    f"picture's height; they stand {share:.2f}")
        weather = str(inputs.get("weather") or "clear")
        if weather in WEATHER_COLOURS:
            self._weather_verdict(weather, reading.weather_share, checks, failures)

    def _check_preset_ranges(self, stats: Any, inputs: dict[str, Any], lighting: str, checks: dict,
                             failures: list[str]) -> None:
        """A picture of another provider: its measurements against the ranges each preset gives (no scene to read)."""
        exposed, tempered = bool(inputs.get("exposure")), bool(inputs.get("temperature"))
        for measure, low, high in PRESET_EXPECTATIONS.get(lighting, ()):
            if (measure in EXPOSURE_MOVES and exposed) or (measure in TEMPERATURE_MOVES and tempered):
                continue  # a comparative moved this on purpose; it is judged against the previous version
            value = float(getattr(stats, measure))
            score = _within(value, low, high)
            checks[f"lighting:{measure}"] = {"wanted": lighting, "value": round(value, 2), "range": [low, high],
                                             "score": score}
            if score < 0.5:
                failures.append(f"{lighting} lighting wants {measure} in {_span(low, high)}, measured {value:.0f}")

    @staticmethod
    def _weather_verdict(weather: str, share: float, checks: dict, failures: list[str]) -> None:
        score = min(1.0, share / (2 * WEATHER_PRESENT))
        checks["weather"] = {"wanted": weather, "share": share, "score": score}
        if score < 0.5:
            failures.append(f"wanted {weather} but its streaks/flakes cover only {share:.3%} of the picture")

    def _check_history(self, png: bytes, node: CanvasNode, checks: dict, failures: list[str]) -> None:
        """A candidate against its lineage: one that looks like a version a person or critic rejected fails, and
        the further it is from every earlier version the better it scores (so different candidates score apart).

        Superseded versions (replaced by a later edit) are history, not rejections.
        """
        older = _previous_version(self.canvas, node)
        if older is None:
            return
        chain = [older, *(e.node for e in self.canvas.lineage(older.id, [EdgeType.VERSION_OF], Direction.OUT))]
        rejected = [n for n in chain if n.status == NodeStatus.REJECTED
                    and not str(n.metadata.get("status_reason") or "").startswith("superseded")]
        here = _look(image_stats(png, skip_bottom=CAPTION_SHARE))
        distances = {}
        for earlier in chain:
            handle = _media(earlier)
            if handle is not None and handle.mime.startswith("image/"):
                distances[earlier.id] = _distance(here, _look(image_stats(self.artifacts.read_bytes(handle),
                                                                          skip_bottom=CAPTION_SHARE)))
        if not distances:
            return
        repeats = [n.id for n in rejected if distances.get(n.id, HISTORY_SAME + 1) <= HISTORY_SAME]
        nearest = min(distances.values())
        score = 0.0 if repeats else round(min(1.0, 0.5 + nearest / HISTORY_SPAN), 4)
        checks["history"] = {"nearest_distance": round(nearest, 2), "rejected": [n.id for n in rejected],
                             "repeats": repeats, "score": score}
        if repeats:
            failures.append(f"it looks like a version that was rejected before ({', '.join(repeats)})")

    def _replaced(self, clip: CanvasNode) -> bool:
        """Whether a newer live version of a stale clip exists.

        A stale clip that is still the head of its lineage is the current clip: another turn marked it and will
        rebuild the cut once its new version commits, so a cut built on it now is current, not this turn's failure.
        """
        return any(e.node.status != NodeStatus.REJECTED
                   for e in self.canvas.lineage(clip.id, [EdgeType.VERSION_OF], Direction.IN))

    def _check_cut(self, node: CanvasNode, handle: ArtifactHandle, context: EvaluationContext, checks: dict,
                   failures: list[str]) -> None:
        """A cut on its structure: its clips are the current ones, in shot order, and it lasts as long as they do."""
        ids = [str(i) for i in node.inputs.get("clip_node_ids") or []]
        on_canvas = {n.id: n for n in self.canvas.get_nodes([i for i in ids if i not in context.pending])}
        clips = [context.pending.get(i) or on_canvas[i] for i in ids]
        outdated = [c.title or c.id for c in clips if c.id not in context.superseded_ok
                    and (c.status == NodeStatus.REJECTED or (c.status == NodeStatus.STALE and self._replaced(c)))]
        checks["clips_current"] = {"score": 0.0 if outdated else 1.0, "outdated": outdated}
        if outdated:
            failures.append(f"the cut uses clips that are no longer current: {', '.join(outdated)}")
        numbers = [int(m.group(1)) for c in clips if (m := re.match(r"shot (\d+)\b", c.title or ""))]
        intent = node.inputs.get("intent") if isinstance(node.inputs.get("intent"), dict) else {}
        asked = intent.get("order")  # a cut reordered on purpose (tools.cut) is judged on the order asked
        in_order = [c.title or c.id for c in clips] == asked if asked else numbers == sorted(numbers)
        checks["clips_in_order"] = {"score": 1.0 if in_order else 0.0, "shots": numbers,
                                    **({"asked": asked} if asked else {})}
        if not in_order:
            failures.append(f"the cut's clips are out of order: shots {numbers}")
        expected = sum(float((c.metadata.get("media") or {}).get("duration_s") or c.inputs.get("duration_s") or 0.0)
                       for c in clips)
        measured = float((node.metadata.get("media") or {}).get("duration_s") or 0.0)
        if not measured:
            measured = probe_video(self.artifacts.local_path(handle)).duration_s
        drift = abs(measured - expected)
        score = _ramp(drift, 0.25, 0.25, above=False)
        checks["duration"] = {"expected_s": round(expected, 3), "measured_s": round(measured, 3), "score": score}
        if score < 0.5:
            failures.append(f"the cut lasts {measured:.2f} s but its clips add up to {expected:.2f} s")

    def _result(self, node: CanvasNode, checks: dict[str, dict[str, Any]], failures: list[str]) -> EvaluationResult:
        score = min((c["score"] for c in checks.values()), default=1.0)
        notes = "; ".join(failures) if failures else ("all checks passed" if checks else "")
        return EvaluationResult(node_id=node.id, score=round(score, 4), passed=score >= 0.5, checks=checks,
                                notes=notes, evaluator=self.name)

    def _check_lighting(self, png: bytes, wants: dict[str, str], checks: dict, failures: list[str]) -> None:
        if not wants:
            return
        stats = image_stats(png)
        if "brightness" in wants:
            dark = wants["brightness"] == "dark"
            threshold = DARK_AT_MOST if dark else BRIGHT_AT_LEAST
            score = _ramp(stats.mean_brightness, threshold, 60.0, above=not dark)
            checks["brightness"] = {"wanted": wants["brightness"], "mean_brightness": round(stats.mean_brightness, 2),
                                    "threshold": threshold, "score": score}
            if score < 0.5:
                failures.append(f"wanted {wants['brightness']} lighting but the mean brightness is "
                                f"{stats.mean_brightness:.0f} ({'at most' if dark else 'at least'} {threshold:.0f})")
        if "warmth" in wants:
            warm = wants["warmth"] == "warm"
            threshold = WARM_AT_LEAST if warm else COLD_AT_MOST
            score = _ramp(stats.warmth, threshold, 40.0, above=warm)
            checks["warmth"] = {"wanted": wants["warmth"], "warmth": round(stats.warmth, 2), "threshold": threshold,
                                "score": score}
            if score < 0.5:
                failures.append(f"wanted {wants['warmth']} lighting but the warmth (red minus blue) is "
                                f"{stats.warmth:.0f} ({'at least' if warm else 'at most'} {threshold:.0f})")

    def _check_characters(self, png: bytes, node: CanvasNode, characters: list[CanvasNode],
                          reading: PictureReading | None, checks: dict, failures: list[str]) -> None:
        """Each character's named colours (the outfit instead of the body's) where the picture draws characters.

        Read against the scene, they are counted among the drawn characters' pixels, so a background of the same
        colour neither hides nor fakes them; for another provider's picture, over the whole picture.
        """
        outfit = node.inputs.get("outfit")
        framing = str(node.inputs.get("framing") or "medium")
        framing = framing if framing in {f.value for f in Framing} else "medium"
        located = reading is not None and reading.located
        for character in characters:
            colours = _named_colours(character)
            name = str(character.inputs.get("name") or character.title or character.id)
            if not colours:
                continue  # nothing named to look for: the character's look is the provider's choice
            if isinstance(outfit, str) and outfit:
                colours = [outfit.lower(), *colours[1:2]]  # the outfit replaces the body colour; the head stays
            if located:
                assert reading is not None
                present = FIGURE_COLOUR_PRESENT
                shares = {c: reading.colour_shares.get(c, 0.0) for c in colours}
            else:
                # A wide shot draws the character smaller: its colours cover less of the picture.
                present = COLOUR_PRESENT * (FRAMING_HEIGHT.get(Framing(framing), 0.45) / 0.45) ** 2
                shares = {c: self._colour_share(png, c, node) for c in colours}
            score = min(min(1.0, share / (2 * present)) for share in shares.values())
            checks[f"character:{character.id}"] = {"name": name, "colour_share": shares, "score": score,
                                                   "among": "the drawn characters" if located else "the picture"}
            if score < 0.5:
                missing = [c for c, share in shares.items() if share < present]
                failures.append(f"character {name} is not recognisable: colours {', '.join(missing)} are missing")

    def _colour_share(self, png: bytes, colour: str, node: CanvasNode) -> float:
        """The share of pixels of ``colour``, as drawn or as the node's grade renders it (whichever is larger)."""
        candidates = {colour}
        lighting = str(node.inputs.get("lighting") or Lighting.NEUTRAL.value)
        if lighting in {item.value for item in Lighting}:
            rgb = np.array([[[int(colour[i:i + 2], 16) for i in (1, 3, 5)]]], dtype=np.uint8)
            graded = grade(rgb, Lighting(lighting), float(node.inputs.get("exposure") or 0.0),
                           float(node.inputs.get("temperature") or 0.0))
            candidates.add("#{:02x}{:02x}{:02x}".format(*graded[0, 0]))
        return round(max(colour_fraction(png, c, self.colour_tolerance) for c in candidates), 5)

    def _check_clip(self, node: CanvasNode, handle: ArtifactHandle, wants: dict[str, str], checks: dict,
                    failures: list[str]) -> None:
        path = self.artifacts.local_path(handle)
        try:
            info = probe_video(path)
        except GenerationError as error:  # ffmpeg could not read it: the clip is unusable
            checks["decodes"] = {"score": 0.0, "error": str(error)}
            failures.append(f"the clip does not decode: {error}")
            return
        checks["decodes"] = {"score": 1.0 if info.frames > 0 else 0.0, "frames": info.frames, "fps": info.fps,
                             "width": info.width, "height": info.height, "codec": info.codec}
        if info.frames <= 0:
            failures.append("the clip has no frames")
        expected = node.inputs.get("duration_s")
        if isinstance(expected, (int, float)):
            tolerance = max(0.15, 1.5 / max(info.fps, 1.0))
            drift = abs(info.duration_s - float(expected))
            score = _ramp(drift, tolerance, tolerance, above=False)
            checks["duration"] = {"expected_s": float(expected), "measured_s": round(info.duration_s, 3),
                                  "tolerance_s": round(tolerance, 3), "score": score}
            if score < 0.5:
                failures.append(f"the clip lasts {info.duration_s:.2f} s, not the {float(expected):g} s asked for")
        if wants and info.frames > 0:
            self._check_lighting(video_frame(path, info.frames // 2), wants, checks, failures)


class _Reply(BaseModel):
    score: float = Field(ge=0.0, le=1.0)
    passed: bool
    notes: str = ""


_PROMPT = """You are a strict art director reviewing one piece of a creative project.
Request: {request}
The {kind} node is titled {title!r}; it was made from these inputs: {inputs}
{characters}
Judge how well the attached image satisfies the request (lighting, subject, character identity, composition).
Reply with only a JSON object: {{"score": <0..1>, "passed": <true|false>, "notes": "<what is wrong, briefly>"}}"""


class MultimodalEvaluator:
    """Scores a node by showing its image (a clip's middle frame) to a vision-capable LangChain chat model."""

    def __init__(self, canvas: CanvasReader, artifacts: ArtifactStore, model: BaseChatModel) -> None:
        self.canvas = canvas
        self.artifacts = artifacts
        self.model = model
        self.model_name = str(getattr(model, "model_name", None) or getattr(model, "model", None)
                              or type(model).__name__)
        self.name = f"multimodal:{self.model_name}"

    def message(self, request: str, node: CanvasNode) -> HumanMessage:
        """The message the model sees: the request, the node's inputs, and its picture as base64."""
        characters = [f"{c.inputs.get('name') or c.title} (colours {', '.join(c.inputs.get('colors') or [])})"
                      for c in character_references(self.canvas, node)]
        text = _PROMPT.format(
            request=request or "(none: judge overall quality)", kind=node.kind, title=node.title,
            inputs=json.dumps({k: v for k, v in node.inputs.items() if k != "references"}, default=str)[:2000],
            characters=f"It should show the character(s): {'; '.join(characters)}." if characters else "")
        content: list[str | dict[Any, Any]] = [{"type": "text", "text": text}]
        picture = self._picture(node)
        if picture is not None:
            content.append({"type": "image", "base64": base64.b64encode(picture).decode(), "mime_type": "image/png"})
        return HumanMessage(content=content)

    def evaluate(self, request: str, node: CanvasNode, context: EvaluationContext | None = None
                 ) -> EvaluationResult:
        """Ask the model; raise :class:`EvaluationReplyError` when its reply is not the JSON asked for.

        The reply's token usage goes into ``checks["judge"]`` (and the error's ``usage``): the call was billed
        either way, and the turn's spend counts it (``tools.spend.charge_judges``).
        """
        reply = self.model.invoke([self.message(request, node)])
        text = reply.content if isinstance(reply.content, str) else " ".join(
            b.get("text", "") if isinstance(b, dict) else str(b) for b in reply.content)
        judge = {"model": self.model_name, "usage": dict(getattr(reply, "usage_metadata", None) or {})}
        try:
            parsed = parse_reply(text)
        except EvaluationReplyError as error:
            error.judge = judge
            raise
        return EvaluationResult(node_id=node.id, score=parsed.score, passed=parsed.passed, notes=parsed.notes,
                                checks={"model_score": parsed.score, "judge": judge}, evaluator=self.name)

    def _picture(self, node: CanvasNode) -> bytes | None:
        handle = _media(node)
        if handle is None:
            return None
        if handle.mime.startswith("image/"):
            return self.artifacts.read_bytes(handle)
        path = self.artifacts.local_path(handle)
        return video_frame(path, max(0, probe_video(path).frames // 2))


def parse_reply(text: str) -> _Reply:
    """The ``{score, passed, notes}`` object in a model's reply (bare or in a code fence)."""
    match = re.search(r"\{.*\}", text, re.DOTALL)
    try:
        if match is None:
            raise ValueError("no JSON object in the reply")
        return _Reply.model_validate(json.loads(match.group(0)))
    except (ValueError, ValidationError) as error:
        raise EvaluationReplyError(
            f"the evaluator model did not reply with a JSON object {{score: 0..1, passed: bool, notes: str}} "
            f"({error}); its reply began: {text[:200]!r}") from error


def default_evaluator(settings: Any, canvas: CanvasReader, artifacts: ArtifactStore):
    """The judge's model (``JARVISHUB_JUDGE_MODEL``) with the measured checks to fall back on, when an API key
    is set and the judge is not ``offline``; else the measured checks alone (:class:`OfflineEvaluator`)."""
    from nodes.models.factory import judge_model

    measured = OfflineEvaluator(canvas, artifacts)
    model = judge_model(settings)
    if model is None:
        return measured
    from skills.judge import JudgeWithFallback

    return JudgeWithFallback(MultimodalEvaluator(canvas, artifacts, model), measured)


def _media(node: CanvasNode) -> ArtifactHandle | None:
    return next((h for h in node.outputs if h.mime.startswith(("image/", "video/"))), None)


# -- the evaluate_node tool -------------------------------------------------------------------------


class EvaluateNodeArgs(BaseModel):
    """Arguments of ``evaluate_node``."""

    node_id: str = Field(description="The node to evaluate.")
    criteria: str = Field(default="", max_length=4000,
                          description="What it should satisfy (the request); the node's own prompt if empty.")


def _evaluator(ctx: ToolContext) -> Any:
    configured = (ctx.services.get("turn_extra") or {}).get("evaluator")
    if configured is not None:
        return configured
    if ctx.canvas is None:
        raise ToolError("evaluate_node needs the canvas, and none is attached to the tool context")
    return default_evaluator(ctx.settings, ctx.canvas, ctx.artifacts)


def run_evaluate_node(ctx: ToolContext, raw: BaseModel) -> ToolResult:
    """Evaluate an existing node and propose an ``evaluation`` node that REFERENCES it."""
    args = EvaluateNodeArgs.model_validate(raw.model_dump())
    if ctx.canvas is None:
        raise ToolError("evaluate_node needs the canvas, and none is attached to the tool context")
    node = ctx.canvas.get_node(args.node_id)
    request = args.criteria or str(node.inputs.get("prompt") or "")
    evaluator = _evaluator(ctx)
    try:
        result = evaluator.evaluate(request, node)
    except EvaluationReplyError as error:
        raise ToolError(str(error)) from error
    from tools.spend import charge_judges

    charge_judges(ctx.services.get("spend"), ctx.services.get("usage"), [result.model_dump()],
                  thread_id=ctx.thread_id, turn_id=ctx.turn_id, action_id=ctx.services.get("action_id"))
    evaluation_id = new_id()
    provenance = Provenance(actor=ctx.actor, turn_id=ctx.turn_id, thread_id=ctx.thread_id, tool="evaluate_node")
    create = CreateNode(
        id=evaluation_id, kind="evaluation", status=NodeStatus.COMPLETED,
        title=f"{'pass' if result.passed else 'fail'} {result.score:.2f}: {node.title or node.id}",
        inputs={"score": result.score, "passed": result.passed, "checks": result.checks, "notes": result.notes,
                "evaluator": result.evaluator, "criteria": request},
        metadata={"provenance": provenance.model_dump(mode="json")})
    link = Link(type=EdgeType.REFERENCES, source=evaluation_id, target=node.id, properties={"role": "evaluates"})
    observation = {"evaluation_id": evaluation_id, "node_id": node.id, "score": result.score,
                   "passed": result.passed, "notes": result.notes, "checks": result.checks}
    return ToolResult(observation=observation, mutations=[create, link])


EVALUATE_NODE = ToolSpec(
    name="evaluate_node",
    family=ToolFamily.CANVAS,
    description=(
        "Score a node against criteria (lighting, character, duration, ...) as an evaluation node."
    ),
    args_schema=EvaluateNodeArgs,
    effects=frozenset({Effect.MUTATES_CANVAS}),
    run=run_evaluate_node,
)
"""The ``evaluate_node`` tool (also what the bridge runs for an ``Evaluation`` action)."""


# -- the critique skill ------------------------------------------------------------------------------


class CritiqueInput(BaseModel):
    """What ``critique`` takes."""

    node_id: str = Field(description="The node to critique.")
    request: str = Field(default="", max_length=4000, description="What the node should satisfy.")


class CritiqueOutput(BaseModel):
    """The evaluation ``critique`` recorded."""

    evaluation_id: str
    score: float
    passed: bool


def _critique(ctx: SkillContext, inp: CritiqueInput) -> CritiqueOutput:
    result = ctx.call("evaluate_node", node_id=inp.node_id, criteria=inp.request)
    return CritiqueOutput(evaluation_id=result["evaluation_id"], score=result["score"], passed=result["passed"])


CRITIQUE = skill(name="critique",
                 description="Score a node against a request as an evaluation node.",
                 input_model=CritiqueInput, output_model=CritiqueOutput, needs=["evaluate_node"])(_critique)
"""The ``critique`` skill."""

__all__: list[str] = [
    "CRITIQUE", "EVALUATE_NODE", "EvaluationReplyError", "MultimodalEvaluator", "OfflineEvaluator",
    "character_references", "default_evaluator", "parse_reply", "wanted_lighting",
]
