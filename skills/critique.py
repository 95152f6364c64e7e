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

from nodes.feedback import EvaluationResult
from skills.base import SkillContext, skill
from store.artifacts import ArtifactStore
from store.base import CanvasReader
from store.errors import NodeNotFound
from store.models import ArtifactHandle, CanvasNode, EdgeType, NodeStatus, Provenance, new_id
from store.mutations import CreateNode, Link
from tools.base import Effect, ToolContext, ToolError, ToolFamily, ToolResult, ToolSpec
from tools.generate.base import GenerationError, Lighting
from tools.generate.measure import colour_fraction, image_stats, probe_video, video_frame
from tools.generate.offline_image import grade

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


class EvaluationReplyError(ValueError):
    """A vision model's reply was not the JSON ``{score, passed, notes}`` it was asked for."""


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


def character_references(canvas: CanvasReader, node: CanvasNode) -> list[CanvasNode]:
    """The character references of a node: its REFERENCES edges when it is on the canvas, else its inputs."""
    try:
        canvas.get_node(node.id)
    except NodeNotFound:
        ids = [r.get("node_id") for r in node.inputs.get("references") or []
               if isinstance(r, dict) and r.get("role") == "character" and r.get("node_id")]
        return canvas.get_nodes([str(i) for i in ids]) if ids else []
    return [n.node for n in canvas.neighbours(node.id, [EdgeType.REFERENCES])
            if (n.edge.properties.get("role") or n.node.inputs.get("role")) == "character"]


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

    def evaluate(self, request: str, node: CanvasNode) -> EvaluationResult:
        """Measure the node against the request."""
        handle = _media(node)
        if handle is None:
            if node.kind in {"image", "video"}:
                return self._result(node, {"artifact": {"score": 0.0, "present": False}},
                                    [f"{node.kind} node {node.id} has no artifact to evaluate"])
            return self._result(node, {}, ["nothing about this node can be measured offline"])
        checks: dict[str, dict[str, Any]] = {}
        failures: list[str] = []
        wants = wanted_lighting(request, node)
        if handle.mime.startswith("image/"):
            png = self.artifacts.read_bytes(handle)
            self._check_lighting(png, wants, checks, failures)
            self._check_characters(png, node, checks, failures)
        elif handle.mime.startswith("video/"):
            self._check_clip(node, handle, wants, checks, failures)
        return self._result(node, checks, failures)

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

    def _check_characters(self, png: bytes, node: CanvasNode, checks: dict, failures: list[str]) -> None:
        lighting = str(node.inputs.get("lighting") or Lighting.NEUTRAL.value)
        for character in character_references(self.canvas, node):
            colours = [c.lower() for c in character.inputs.get("colors") or character.inputs.get("colours") or []
                       if isinstance(c, str) and re.fullmatch(r"#[0-9a-fA-F]{6}", c)]
            name = str(character.inputs.get("name") or character.title or character.id)
            if not colours:
                continue  # nothing named to look for: the character's look is the provider's choice
            shares = {c: self._colour_share(png, c, lighting) for c in colours}
            score = min(min(1.0, share / (2 * COLOUR_PRESENT)) for share in shares.values())
            checks[f"character:{character.id}"] = {"name": name, "colour_share": shares, "score": score}
            if score < 0.5:
                missing = [c for c, share in shares.items() if share < COLOUR_PRESENT]
                failures.append(f"character {name} is not recognisable: colours {', '.join(missing)} are missing")

    def _colour_share(self, png: bytes, colour: str, lighting: str) -> float:
        """The share of pixels of ``colour``, as drawn or as the node's lighting grades it (whichever is larger)."""
        candidates = {colour}
        if lighting in {item.value for item in Lighting}:
            rgb = np.array([[[int(colour[i:i + 2], 16) for i in (1, 3, 5)]]], dtype=np.uint8)
            candidates.add("#{:02x}{:02x}{:02x}".format(*grade(rgb, Lighting(lighting))[0, 0]))
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
        model_name = getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__
        self.name = f"multimodal:{model_name}"

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

    def evaluate(self, request: str, node: CanvasNode) -> EvaluationResult:
        """Ask the model; raise :class:`EvaluationReplyError` when its reply is not the JSON asked for."""
        reply = self.model.invoke([self.message(request, node)])
        text = reply.content if isinstance(reply.content, str) else " ".join(
            b.get("text", "") if isinstance(b, dict) else str(b) for b in reply.content)
        parsed = parse_reply(text)
        return EvaluationResult(node_id=node.id, score=parsed.score, passed=parsed.passed, notes=parsed.notes,
                                checks={"model_score": parsed.score}, evaluator=self.name)

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
    """A :class:`MultimodalEvaluator` on the project's chat model when ``OPENAI_API_KEY`` is set, else offline."""
    if getattr(settings, "openai_api_key", None):
        from nodes.models.factory import chat_model

        return MultimodalEvaluator(canvas, artifacts, chat_model(settings))
    return OfflineEvaluator(canvas, artifacts)


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
        "Score a node against criteria (lighting, character identity, clip duration, ...) and record the "
        "result as an evaluation node that REFERENCES it."
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
                 description="Score a node against a request and record an evaluation node that REFERENCES it.",
                 input_model=CritiqueInput, output_model=CritiqueOutput, needs=["evaluate_node"])(_critique)
"""The ``critique`` skill."""

__all__: list[str] = [
    "CRITIQUE", "EVALUATE_NODE", "EvaluationReplyError", "MultimodalEvaluator", "OfflineEvaluator",
    "character_references", "default_evaluator", "parse_reply", "wanted_lighting",
]
