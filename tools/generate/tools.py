"""The generation tool family: ``generate_image``, ``generate_video``, ``generate_audio``, ``assemble_cut``.

Each tool reads the canvas nodes it names, turns them into provider requests,
asks the :class:`~tools.generate.service.GenerationService` (found in
``ctx.services["generation"]``) for the media, and returns the mutations that
put the result on the canvas: one completed node holding the artifact handle,
with provenance, signature, cache hit and timings in its metadata, and the
typed edges to what it was made from.  Nothing here writes the canvas.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from store.errors import ArtifactCorrupted, ArtifactNotFound, NodeNotFound
from store.models import ArtifactHandle, CanvasNode, EdgeType, NodeStatus, Provenance, new_id
from store.mutations import CreateNode, Link
from tools.base import Effect, ToolContext, ToolError, ToolFamily, ToolResult, ToolSpec
from tools.generate.base import (
    AudioKind,
    AudioRequest,
    CameraMove,
    ConcatRequest,
    Framing,
    GenerationError,
    HexColour,
    ImageRequest,
    Lighting,
    ReferenceInput,
    ReferenceRole,
    VideoRequest,
    Weather,
)
from tools.generate.errors import ContentRefused, ProviderUnavailable
from tools.generate.service import GenerationOutcome, GenerationService
from tools.spend import Spend, charge
from tools.versions import require_head

_Args = TypeVar("_Args", bound=BaseModel)
_GUIDE_ROLES = (ReferenceRole.CHARACTER, ReferenceRole.SCENE, ReferenceRole.STYLE, ReferenceRole.PROP)


class _NodeArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    node_id: str | None = Field(default=None, description="Id to give the new node.")
    version_of: str | None = Field(default=None, description="Node this is a new version of.")
    title: str | None = None
    references: list[str] = Field(
        default_factory=list, description="Character/scene/style/prop nodes to keep consistent.")
    reference_roles: dict[str, ReferenceRole] = Field(
        default_factory=dict, description="Role per reference id.")
    intent: dict[str, Any] = Field(
        default_factory=dict,
        description="What was asked, e.g. {'lighting': 'night'}; the evaluator checks it.",
    )


class _StyleArgs(_NodeArgs):
    seed: int = Field(default=0, ge=0, le=2**63 - 1, description="Change for another take.")
    lighting: Lighting = Lighting.NEUTRAL
    palette: list[HexColour] = Field(default_factory=list, max_length=16, description="#rrggbb colours to favour.")


class GenerateImageArgs(_StyleArgs):
    """Arguments of ``generate_image``."""

    prompt: str = Field(min_length=1, max_length=4000, description="What the image shows.")
    width: int = Field(default=512, ge=64, le=4096)
    height: int = Field(default=512, ge=64, le=4096)
    edit_node_id: str | None = Field(default=None, description="An image node to edit.")
    framing: Framing = Framing.MEDIUM
    weather: Weather = Weather.CLEAR
    outfit: HexColour | None = Field(default=None, description="#rrggbb outfit colour.")
    exposure: float = Field(default=0.0, ge=-3.0, le=3.0, description="Stops brighter (+) or darker (-).")
    temperature: float = Field(default=0.0, ge=-3.0, le=3.0, description="Warmer (+) or cooler (-).")


class GenerateVideoArgs(_StyleArgs):
    """Arguments of ``generate_video``."""

    prompt: str = Field(default="", max_length=4000, description="What happens; needed without source_node_id.")
    source_node_id: str | None = Field(default=None, description="The image the clip starts from.")
    camera: CameraMove = CameraMove.STATIC
    duration_s: float = Field(default=3.0, gt=0, le=60)
    fps: int = Field(default=24, ge=1, le=60)
    width: int | None = Field(default=None, ge=16, le=3840, description="Even; default: the source's.")
    height: int | None = Field(default=None, ge=16, le=2160, description="Even; default: the source's.")


class GenerateAudioArgs(_NodeArgs):
    """Arguments of ``generate_audio``."""

    kind: AudioKind = AudioKind.SPEECH
    prompt: str = Field(min_length=1, max_length=4000, description="Words to speak, or the sound to make.")
    voice: str = Field(default="default", max_length=64)
    duration_s: float | None = Field(default=None, gt=0, le=600, description="For ambience/music (else 4).")
    seed: int = Field(default=0, ge=0, le=2**63 - 1)


class AssembleCutArgs(_NodeArgs):
    """Arguments of ``assemble_cut``."""

    clip_node_ids: list[str] = Field(min_length=1, description="Video nodes, in playing order.")


def run_generate_image(ctx: ToolContext, args: BaseModel | Mapping[str, Any]) -> ToolResult:
    """Generate (or edit) an image and propose it as a new canvas node."""
    a = _validated(args, GenerateImageArgs)
    nodes = _read(ctx, [*a.references, a.edit_node_id, a.version_of])
    _require_head(ctx, a)
    references = _references(ctx, a, nodes)
    source = _media_input(ctx, nodes[a.edit_node_id], ReferenceRole.SOURCE, "image/") if a.edit_node_id else None
    request = _request(ImageRequest, **_style(a, references), source=source, framing=a.framing, weather=a.weather,
                       outfit=a.outfit, exposure=a.exposure, temperature=a.temperature)
    outcome = _generate(ctx, "image", lambda s: s.image(request, "generate_image"))
    derived = [(a.edit_node_id, {"as": "edit"})] if a.edit_node_id else []
    return _result(ctx, "generate_image", "image", a, outcome, references, derived)


def run_generate_video(ctx: ToolContext, args: BaseModel | Mapping[str, Any]) -> ToolResult:
    """Generate a clip from a source image (or from text) and propose it as a new canvas node."""
    a = _validated(args, GenerateVideoArgs)
    nodes = _read(ctx, [*a.references, a.source_node_id, a.version_of])
    _require_head(ctx, a)
    references = _references(ctx, a, nodes)
    source = _media_input(ctx, nodes[a.source_node_id], ReferenceRole.SOURCE, "image/") if a.source_node_id else None
    request = _request(
        VideoRequest, **_style(a, references), source=source, camera=a.camera, duration_s=a.duration_s, fps=a.fps
    )
    outcome = _generate(ctx, "clip", lambda s: s.video(request, "generate_video"))
    derived = [(a.source_node_id, {"as": "source"})] if a.source_node_id else []
    return _result(ctx, "generate_video", "video", a, outcome, references, derived)


def run_generate_audio(ctx: ToolContext, args: BaseModel | Mapping[str, Any]) -> ToolResult:
    """Generate speech, ambience or music and propose it as a new canvas node."""
    a = _validated(args, GenerateAudioArgs)
    references = _references(ctx, a, _read(ctx, [*a.references, a.version_of]))
    _require_head(ctx, a)
    request = _request(AudioRequest, kind=a.kind, prompt=a.prompt, voice=a.voice, duration_s=a.duration_s, seed=a.seed)
    outcome = _generate(ctx, "audio", lambda s: s.audio(request, "generate_audio"))
    return _result(ctx, "generate_audio", "audio", a, outcome, references, [])


def run_assemble_cut(ctx: ToolContext, args: BaseModel | Mapping[str, Any]) -> ToolResult:
    """Join clip nodes, in order, into one cut and propose it as a new video node."""
    a = _validated(args, AssembleCutArgs)
    nodes = _read(ctx, [*a.clip_node_ids, *a.references, a.version_of])
    _require_head(ctx, a)
    clips = [_media_input(ctx, nodes[i], ReferenceRole.CLIP, "video/") for i in a.clip_node_ids]
    references = _references(ctx, a, nodes)
    request = _request(ConcatRequest, clips=clips)
    outcome = _generate(ctx, "cut", lambda s: s.cut(request, "assemble_cut"))
    derived = [(clip_id, {"as": "clip", "order": i}) for i, clip_id in enumerate(a.clip_node_ids)]
    return _result(ctx, "assemble_cut", "video", a, outcome, references, derived)


_MEDIA_EFFECTS = frozenset({Effect.GENERATES_MEDIA, Effect.MUTATES_CANVAS, Effect.COST_BEARING})

GENERATE_IMAGE = ToolSpec(
    name="generate_image",
    family=ToolFamily.GENERATION,
    description=(
        "Generate an image from a prompt, consistent with its references; edit_node_id edits an image, "
        "version_of makes a new version."
    ),
    args_schema=GenerateImageArgs,
    effects=_MEDIA_EFFECTS,
    run=run_generate_image,
)
GENERATE_VIDEO = ToolSpec(
    name="generate_video",
    family=ToolFamily.GENERATION,
    description=(
        "Generate a clip: a camera move over source_node_id's image, or from the prompt alone "
        "(duration_s in seconds)."
    ),
    args_schema=GenerateVideoArgs,
    effects=_MEDIA_EFFECTS | {Effect.LONG_RUNNING},
    run=run_generate_video,
)
GENERATE_AUDIO = ToolSpec(
    name="generate_audio",
    family=ToolFamily.GENERATION,
    description="Generate speech of the prompt's words, or an ambience or music bed.",
    args_schema=GenerateAudioArgs,
    effects=_MEDIA_EFFECTS,
    run=run_generate_audio,
)
# Joining clips is local ffmpeg work: it makes media but costs nothing.
ASSEMBLE_CUT = ToolSpec(
    name="assemble_cut",
    family=ToolFamily.GENERATION,
    description="Join video clip nodes, in order, into one cut.",
    args_schema=AssembleCutArgs,
    effects=frozenset({Effect.GENERATES_MEDIA, Effect.MUTATES_CANVAS}),
    run=run_assemble_cut,
)

GENERATION_TOOLS: tuple[ToolSpec, ...] = (GENERATE_IMAGE, GENERATE_VIDEO, GENERATE_AUDIO, ASSEMBLE_CUT)
"""Every tool of the generation family, for the manifest."""


def _validated(args: BaseModel | Mapping[str, Any], schema: type[_Args]) -> _Args:
    # Validate again even when handed a model: a model built with
    # model_construct, or a dict from a raw tool call, has not been checked.
    data = args.model_dump() if isinstance(args, BaseModel) else dict(args)
    try:
        return schema.model_validate(data)
    except ValidationError as e:
        raise ToolError(f"invalid arguments: {_explain(e)}") from e


def _request(model: type[_Args], **fields: Any) -> _Args:
    try:
        return model(**fields)
    except ValidationError as e:
        raise ToolError(f"invalid request: {_explain(e)}") from e


def _explain(error: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, err['loc'])) or 'arguments'}: {err['msg']}" for err in error.errors())


def _service(ctx: ToolContext) -> GenerationService:
    service = ctx.services.get("generation")
    if not isinstance(service, GenerationService):
        raise ToolError("no generation service is configured for this run (ctx.services['generation'])")
    return service


def _read(ctx: ToolContext, ids: list[str | None]) -> dict[str, CanvasNode]:
    wanted = list(dict.fromkeys(i for i in ids if i))
    if not wanted:
        return {}
    if ctx.canvas is None:
        raise ToolError("this tool needs to read canvas nodes, but no canvas reader was given")
    try:
        nodes = ctx.canvas.get_nodes(wanted)
    except NodeNotFound as e:
        raise ToolError(f"{e}; use an id of an existing node") from e
    found = {n.id: n for n in nodes if not n.deleted}
    missing = [i for i in wanted if i not in found]
    if missing:
        raise ToolError(f"no canvas node with id {missing[0]!r}; use an id of an existing node")
    return found


def _require_head(ctx: ToolContext, args: _NodeArgs) -> None:
    """Refuse, before paying a provider, a new version of a node another turn has already replaced."""
    if args.version_of:
        require_head(ctx.canvas, args.version_of, turn_id=ctx.turn_id)


def _references(ctx: ToolContext, args: _NodeArgs, nodes: dict[str, CanvasNode]) -> list[ReferenceInput]:
    stray = sorted(set(args.reference_roles) - set(args.references))
    if stray:
        raise ToolError(
            f"reference_roles names {stray[0]!r}, which is not in references; add it there or drop the role"
        )
    refs = []
    for node_id in dict.fromkeys(args.references):
        node = nodes[node_id]
        role = args.reference_roles.get(node_id) or _role_of(node)
        refs.append(_media_input(ctx, node, role, "image/", required=False))
    return refs


def _style(args: GenerateImageArgs | GenerateVideoArgs, references: list[ReferenceInput]) -> dict[str, Any]:
    """The request fields images and clips share."""
    return {
        "prompt": args.prompt,
        "seed": args.seed,
        "width": args.width,
        "height": args.height,
        "lighting": args.lighting,
        "palette": args.palette,
        "references": references,
    }


def _role_of(node: CanvasNode) -> ReferenceRole:
    for candidate in (node.kind, node.inputs.get("role")):
        if candidate in {r.value for r in _GUIDE_ROLES}:
            return ReferenceRole(candidate)
    return ReferenceRole.STYLE


def _media_input(
    ctx: ToolContext, node: CanvasNode, role: ReferenceRole, mime_prefix: str, required: bool = True
) -> ReferenceInput:
    handle = next((h for h in node.outputs if h.mime.startswith(mime_prefix)), None)
    if handle is None and required:
        kind = mime_prefix.rstrip("/")
        raise ToolError(
            f"node {node.id} ({node.kind}) has no {kind} output to use as {role.value}; "
            f"pass a node that holds a completed {kind}"
        )
    return ReferenceInput(
        node_id=node.id,
        role=role,
        sha256=handle.sha256 if handle else None,
        mime=handle.mime if handle else None,
        inputs=node.inputs,
        path=_local_path(ctx, node, handle) if handle else None,
    )


def _local_path(ctx: ToolContext, node: CanvasNode, handle: ArtifactHandle) -> Path:
    try:
        return ctx.artifacts.local_path(handle)
    except (ArtifactNotFound, ArtifactCorrupted) as e:
        raise ToolError(f"the media of node {node.id} is missing or damaged ({e}); regenerate that node first") from e


class RefusedByProvider(ToolError):
    """The provider's content policy refused the generation: the agent sees it, and a turn ending on it is refused."""

    refused = "content_policy"


def _generate(ctx: ToolContext, what: str, call: Callable[[GenerationService], GenerationOutcome]) -> GenerationOutcome:
    service = _service(ctx)
    if ctx.progress:
        ctx.progress(f"generating {what}")
    try:
        outcome = call(service)
    except ProviderUnavailable as e:
        # The turn stops here (nothing of this call reaches the canvas); what was billed is charged first.
        if e.spend is not None:
            _charge(ctx, what, e.spend, service)
        raise
    except ContentRefused as e:
        raise RefusedByProvider(f"could not generate the {what}: {e}") from e
    except GenerationError as e:
        raise ToolError(f"could not generate the {what}: {e}") from e
    if outcome.spend is not None:
        _charge(ctx, what, outcome.spend, service, model=outcome.model)
    return outcome


def _charge(ctx: ToolContext, what: str, spend: Spend, service: GenerationService, model: str | None = None) -> None:
    """Count a billed generation in the turn's usage (the budget) and the project's spend ledger."""
    usage = ctx.services.get("usage")
    if usage is not None:
        charge(usage, spend)
    ledger = ctx.services.get("spend")
    if ledger is not None:
        medium = {"clip": "video"}.get(what, what)
        provider = {"image": service.image_provider, "video": service.video_provider,
                    "audio": service.audio_provider}.get(medium, service.image_provider)
        ledger.record(spend, source=medium, model=model or provider.model, thread_id=ctx.thread_id,
                      turn_id=ctx.turn_id, action_id=ctx.services.get("action_id"))


def _result(
    ctx: ToolContext,
    tool: str,
    kind: str,
    args: _NodeArgs,
    outcome: GenerationOutcome,
    references: list[ReferenceInput],
    derived_from: list[tuple[str, dict[str, Any]]],
) -> ToolResult:
    node_id = args.node_id or new_id()
    inputs = args.model_dump(mode="json", exclude={"node_id", "version_of", "title", "reference_roles"})
    if references:
        inputs["references"] = [{"node_id": r.node_id, "role": r.role.value} for r in references]
    provenance = Provenance(
        actor=ctx.actor,
        turn_id=ctx.turn_id,
        thread_id=ctx.thread_id,
        tool=tool,
        provider=outcome.provider,
        model=outcome.model,
    )
    create = CreateNode(
        id=node_id,
        kind=kind,
        title=args.title or _title(getattr(args, "prompt", "") or tool),
        status=NodeStatus.COMPLETED,
        inputs=inputs,
        outputs=[outcome.handle],
        metadata={
            "provenance": provenance.model_dump(mode="json"),
            "signature": outcome.signature,
            "cache_hit": outcome.cache_hit,
            "timings": {"elapsed_s": outcome.elapsed_s, "provider_s": outcome.provider_s},
            "media": outcome.media,
        },
    )
    links = [
        Link(type=EdgeType.REFERENCES, source=node_id, target=r.node_id, properties={"role": r.role.value})
        for r in references
    ]
    links += [Link(type=EdgeType.GENERATED_FROM, source=node_id, target=t, properties=p) for t, p in derived_from]
    if args.version_of:
        links.append(Link(type=EdgeType.VERSION_OF, source=node_id, target=args.version_of))
    observation = {
        "node_id": node_id,
        "kind": kind,
        "sha256": outcome.handle.sha256,
        "mime": outcome.handle.mime,
        "cache_hit": outcome.cache_hit,
        "provider": outcome.provider,
        "model": outcome.model,
        **{k: outcome.media[k] for k in ("width", "height", "duration_s") if outcome.media.get(k) is not None},
    }
    return ToolResult(
        observation=observation,
        mutations=[create, *links],
        provider_calls=0 if outcome.cache_hit else 1,
        cache_hits=1 if outcome.cache_hit else 0,
    )


def _title(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
