"""The generation interfaces: one provider ABC per medium and the pydantic requests they take.

A provider turns a request into media bytes (or a file) and nothing else: it
never reads or writes the canvas.  The tools resolve canvas nodes into
:class:`ReferenceInput` values before a provider sees them, and the
:class:`~tools.generate.service.GenerationService` stores what comes back.

Every request can say which of its fields decide the output
(:meth:`GenerationRequest.signature_params`) and which artifacts it was made
from (:meth:`GenerationRequest.upstream_hashes`); the signature cache is built
on those two.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, model_validator


class GenerationError(Exception):
    """A provider could not produce the media (ffmpeg failed, a remote job failed, an input was unusable)."""


class Lighting(StrEnum):
    """The lighting (time of day, mood) a shot is graded with; each one moves pixels in a known direction.

    The offline renderer's grade per value is a table in ``tools.generate.offline_image.LIGHTING_GRADES``.
    """

    NEUTRAL = "neutral"
    WARM = "warm"
    COLD = "cold"
    NIGHT = "night"
    HIGH_KEY = "high-key"
    DAWN = "dawn"
    NOON = "noon"
    GOLDEN_HOUR = "golden-hour"
    SUNSET = "sunset"
    DUSK = "dusk"
    MOONLIT = "moonlit"
    OVERCAST = "overcast"
    FOGGY = "foggy"
    NEON = "neon"
    CANDLE_LIT = "candle-lit"
    LOW_KEY = "low-key"


class Framing(StrEnum):
    """How much of the frame the characters fill (the offline renderer scales them)."""

    WIDE = "wide"
    MEDIUM = "medium"
    CLOSE_UP = "close-up"


class Weather(StrEnum):
    """Weather drawn over the scene."""

    CLEAR = "clear"
    RAIN = "rain"
    SNOW = "snow"


class CameraMove(StrEnum):
    """How the camera moves over a still when it becomes a clip."""

    STATIC = "static"
    PAN = "pan"
    ZOOM = "zoom"
    FADE = "fade"


class ReferenceRole(StrEnum):
    """What a referenced canvas node stands for in a new piece of media."""

    CHARACTER = "character"
    SCENE = "scene"
    STYLE = "style"
    PROP = "prop"
    SOURCE = "source"
    CLIP = "clip"


class ImageMode(StrEnum):
    """Which kind of image generation a request asks for (derived from its fields)."""

    TEXT = "text"
    REFERENCE = "reference"
    EDIT = "edit"


class VideoMode(StrEnum):
    """Whether a clip starts from a still image or from text alone (derived from its fields)."""

    IMAGE = "image"
    TEXT = "text"


class AudioKind(StrEnum):
    """What sort of sound to make."""

    SPEECH = "speech"
    AMBIENCE = "ambience"
    MUSIC = "music"


HexColour = Annotated[
    str,
    StringConstraints(pattern=r"^#[0-9a-fA-F]{6}$"),
    AfterValidator(str.lower),
]
"""A ``#rrggbb`` colour, kept in lower case so equal colours sign equally."""


class ReferenceInput(BaseModel):
    """A canvas node handed to a provider: what it stands for, its artifact, and its inputs.

    ``inputs`` is the node's own inputs dict (e.g. ``{"name": "Mira", "colors":
    ["#c0392b"], "shape": "round"}``): for a character without a picture that is
    all a provider has to keep the character the same from shot to shot.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    node_id: str = Field(description="The canvas node this reference came from; not part of a signature.")
    role: ReferenceRole
    sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$", description="The node's artifact, if any.")
    mime: str | None = None
    inputs: dict[str, Any] = Field(default_factory=dict)
    path: Path | None = Field(
        default=None,
        exclude=True,
        description="A local file holding the artifact, for providers that read pixels or upload it.",
    )


class GenerationRequest(BaseModel):
    """What every generation request shares: strict fields and a way to sign itself."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def signature_params(self) -> dict[str, Any]:
        """The fields that decide the output, as JSON-able data.

        Node ids and local paths are left out: the same character under another
        node id, or an artifact found at another path, makes the same media.
        """
        params = self.model_dump(mode="json")
        for name, value in self:
            if isinstance(value, ReferenceInput):
                params[name] = _reference_params(value)
            elif isinstance(value, list) and value and isinstance(value[0], ReferenceInput):
                params[name] = [_reference_params(r) for r in value]
        return params

    def upstream_hashes(self) -> list[str]:
        """The sha256 of every artifact this request is made from, in field order then list order."""
        hashes: list[str] = []
        for _, value in self:
            refs = value if isinstance(value, list) else [value]
            hashes.extend(r.sha256 for r in refs if isinstance(r, ReferenceInput) and r.sha256)
        return hashes

    def references_with_role(self, role: ReferenceRole) -> list[ReferenceInput]:
        """The references of one role, in the order given (empty for requests without references)."""
        return [r for r in getattr(self, "references", []) if r.role == role]


def _reference_params(reference: ReferenceInput) -> dict[str, Any]:
    """What of a reference decides the output: its bytes when it has an artifact, else its inputs.

    A clip's inputs name other nodes (its source image's id), which a regeneration changes while the bytes
    stay the same; signing the inputs of a reference that has bytes would miss the cache for nothing.
    """
    data = reference.model_dump(mode="json", exclude={"node_id", "path"})
    if reference.sha256:
        data.pop("inputs", None)
    return data


class ImageRequest(GenerationRequest):
    """Make one still image: from text, guided by references, or by editing a source image."""

    prompt: str = Field(min_length=1, max_length=4000)
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    width: int = Field(default=512, ge=64, le=4096)
    height: int = Field(default=512, ge=64, le=4096)
    lighting: Lighting = Lighting.NEUTRAL
    palette: list[HexColour] = Field(default_factory=list, max_length=16)
    references: list[ReferenceInput] = Field(default_factory=list)
    source: ReferenceInput | None = Field(default=None, description="The image to edit; makes this an edit.")
    framing: Framing = Framing.MEDIUM
    weather: Weather = Weather.CLEAR
    outfit: HexColour | None = Field(default=None, description="The characters' outfit colour instead of their own.")
    exposure: float = Field(default=0.0, ge=-3.0, le=3.0, description="Stops brighter (+) or darker (-).")
    temperature: float = Field(default=0.0, ge=-3.0, le=3.0, description="Warmer (+, more red, less blue) or cooler.")

    def signature_params(self) -> dict[str, Any]:
        """As for every request, minus the look fields left at their defaults (older signatures stay valid)."""
        params = super().signature_params()
        for name in _LOOK_DEFAULTS:
            if params.get(name) == _LOOK_DEFAULTS[name]:
                params.pop(name, None)
        return params

    @property
    def mode(self) -> ImageMode:
        """Edit when there is a source image, reference-guided when there are references, else text."""
        if self.source is not None:
            return ImageMode.EDIT
        return ImageMode.REFERENCE if self.references else ImageMode.TEXT


_LOOK_DEFAULTS: dict[str, Any] = {"framing": "medium", "weather": "clear", "outfit": None, "exposure": 0.0,
                                   "temperature": 0.0}


class VideoRequest(GenerationRequest):
    """Make one clip: a camera move over a source still, or a clip from text alone."""

    prompt: str = Field(default="", max_length=4000)
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    source: ReferenceInput | None = Field(default=None, description="The still the clip starts from.")
    camera: CameraMove = CameraMove.STATIC
    duration_s: float = Field(default=3.0, gt=0, le=60)
    fps: int = Field(default=24, ge=1, le=60)
    width: int | None = Field(default=None, ge=16, le=3840, description="None: the source's width (or 640).")
    height: int | None = Field(default=None, ge=16, le=2160, description="None: the source's height (or 360).")
    lighting: Lighting = Lighting.NEUTRAL
    palette: list[HexColour] = Field(default_factory=list, max_length=16)
    references: list[ReferenceInput] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check(self) -> VideoRequest:
        if self.source is None and not self.prompt.strip():
            raise ValueError("a clip without a source image needs a prompt")
        for side in (self.width, self.height):
            # H.264 in yuv420p halves chroma in both directions, so both sides must be even.
            if side is not None and side % 2:
                raise ValueError(f"width and height must be even for H.264 yuv420p, got {side}")
        return self

    @property
    def mode(self) -> VideoMode:
        """Image-to-video when there is a source still, else text-to-video."""
        return VideoMode.IMAGE if self.source is not None else VideoMode.TEXT


class ConcatRequest(GenerationRequest):
    """Join clips, in the order given, into one cut."""

    clips: list[ReferenceInput] = Field(min_length=1)


class AudioRequest(GenerationRequest):
    """Make one sound: speech of the prompt's words, or an ambience/music bed it describes."""

    kind: AudioKind = AudioKind.SPEECH
    prompt: str = Field(min_length=1, max_length=4000, description="Words to speak, or a description of the bed.")
    voice: str = Field(default="default", max_length=64)
    duration_s: float | None = Field(default=None, gt=0, le=600, description="None: speech sets its own length.")
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    sample_rate: int = Field(default=22050, ge=8000, le=48000)


class GeneratedMedia(BaseModel):
    """What a provider hands back: bytes or a file it keeps, what they are, and who made them."""

    model_config = ConfigDict(frozen=True)

    data: bytes | None = None
    path: Path | None = Field(default=None, description="A file the provider keeps; the receiver copies it.")
    mime: str
    provider: str
    model: str
    duration_s: float | None = None
    width: int | None = None
    height: int | None = None
    details: dict[str, Any] = Field(default_factory=dict, description="Provider specifics: job id, voice, ...")
    usage: dict[str, Any] = Field(default_factory=dict, description="The provider's own usage fields (tokens).")
    billed: dict[str, float] | None = Field(
        default=None, description="The units a paid provider bills this call by ({'images': 1}, {'seconds': 4}, "
        "{'audio_seconds': 2.1, 'characters': 40}); None: free (offline, a local cut). Priced by tools.spend.")

    @model_validator(mode="after")
    def _one_payload(self) -> GeneratedMedia:
        if (self.data is None) == (self.path is None):
            raise ValueError("GeneratedMedia needs exactly one of data or path")
        return self

    def read_bytes(self) -> bytes:
        """The media bytes, wherever they are."""
        return self.data if self.data is not None else Path(self.path).read_bytes()  # type: ignore[arg-type]

    def describe(self) -> dict[str, Any]:
        """The JSON-able facts about the media (no bytes), for node metadata and the cache."""
        return self.model_dump(mode="json", exclude={"data", "path"})


class ProviderIdentity(BaseModel):
    """Which provider and model would serve a request: part of its signature."""

    model_config = ConfigDict(frozen=True)

    name: str
    model: str


FFMPEG_CONCAT = ProviderIdentity(name="ffmpeg", model="concat")
"""Who joins clips: every provider we have cuts locally with ffmpeg, so a cut signs the same under any of them."""


class MediaProvider(ABC):
    """What all providers share: a name and a model, which go into every signature."""

    name: str
    model: str

    def identity(self, request: GenerationRequest) -> ProviderIdentity:
        """Who serves this request; a provider that delegates some requests says so here."""
        return ProviderIdentity(name=self.name, model=self.model)

    def most_billed(self) -> dict[str, float] | None:
        """The most one call may be billed for (the units :attr:`GeneratedMedia.billed` counts); None: free.

        The cost budget refuses a call whose most could take a turn's spend past it, before it is made.
        """
        return None


class ImageProvider(MediaProvider):
    """Makes still images (PNG)."""

    @abstractmethod
    def generate(self, request: ImageRequest) -> GeneratedMedia:
        """Make the image the request asks for; ``request.mode`` tells text, reference or edit apart."""


class VideoProvider(MediaProvider):
    """Makes clips (MP4) and joins them into a cut."""

    @abstractmethod
    def image_to_video(self, request: VideoRequest) -> GeneratedMedia:
        """Animate ``request.source`` (a still with a local path) with the requested camera move."""

    @abstractmethod
    def text_to_video(self, request: VideoRequest) -> GeneratedMedia:
        """Make a clip from the prompt and style alone."""

    @abstractmethod
    def concat(self, request: ConcatRequest) -> GeneratedMedia:
        """Join the clips (each with a local path) in order into one MP4."""

    def generate(self, request: VideoRequest) -> GeneratedMedia:
        """Dispatch on the request's mode."""
        if request.mode is VideoMode.IMAGE:
            return self.image_to_video(request)
        return self.text_to_video(request)

    def identity(self, request: GenerationRequest) -> ProviderIdentity:
        """Cuts are joined locally (see :data:`FFMPEG_CONCAT`); everything else is this provider's."""
        if isinstance(request, ConcatRequest):
            return FFMPEG_CONCAT
        return super().identity(request)


class AudioProvider(MediaProvider):
    """Makes sound (WAV): speech, and ambience or music beds."""

    @abstractmethod
    def speech(self, request: AudioRequest) -> GeneratedMedia:
        """Speak ``request.prompt`` in ``request.voice``."""

    @abstractmethod
    def ambience(self, request: AudioRequest) -> GeneratedMedia:
        """Make an ambience or music bed of ``request.duration_s`` seconds."""

    def generate(self, request: AudioRequest) -> GeneratedMedia:
        """Dispatch on the request's kind."""
        if request.kind is AudioKind.SPEECH:
            return self.speech(request)
        return self.ambience(request)
