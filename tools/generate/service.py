"""The generation service: a provider per medium behind the signature cache, storing into the artifact store.

Tools and subagents call this, never a provider directly, so every generation
is signed, looked up, counted and stored the same way.  It is thread-safe:
parallel explorations share one service, and two threads asking for the same
signature at once make it once (the second waits and gets a cache hit).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from store.artifacts import ArtifactStore
from store.models import ArtifactHandle
from tools.generate.base import (
    AudioProvider,
    AudioRequest,
    ConcatRequest,
    GeneratedMedia,
    GenerationRequest,
    ImageProvider,
    ImageRequest,
    MediaProvider,
    VideoProvider,
    VideoRequest,
)
from tools.generate.cache import CacheEntry, SignatureCache, signature
from tools.generate.errors import ProviderUnavailable
from tools.spend import PriceTable, Spend

Medium = Literal["image", "video", "audio"]
MEDIA: tuple[Medium, ...] = ("image", "video", "audio")
_EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/webp": ".webp",
    "video/mp4": ".mp4",
    "audio/wav": ".wav",
}


class GenerationOutcome(BaseModel):
    """What one generation produced, and whether it was made or found."""

    handle: ArtifactHandle
    signature: str
    cache_hit: bool
    provider: str
    model: str
    elapsed_s: float = Field(description="Wall time of this call, waiting and storing included.")
    provider_s: float | None = Field(default=None, description="Time inside the provider; None on a cache hit.")
    media: dict[str, Any] = Field(default_factory=dict, description="Duration, size and provider details.")
    spend: Spend | None = Field(default=None, description="What the provider billed for this call (None: nothing, "
                                "a cache hit or a free provider), priced by the service's price table.")


@dataclass
class _Flight:
    lock: threading.Lock
    users: int = 0


class GenerationService:
    """Signs, looks up, generates, stores and records; counts provider calls and cache hits per medium."""

    def __init__(
        self,
        artifacts: ArtifactStore,
        cache: SignatureCache | None,
        image_provider: ImageProvider,
        video_provider: VideoProvider,
        audio_provider: AudioProvider,
        prices: PriceTable | None = None,
    ) -> None:
        self.artifacts = artifacts
        self.prices = prices or PriceTable()
        self.cache = cache
        self.image_provider = image_provider
        self.video_provider = video_provider
        self.audio_provider = audio_provider
        self.provider_calls: dict[Medium, int] = dict.fromkeys(MEDIA, 0)
        self.cache_hits: dict[Medium, int] = dict.fromkeys(MEDIA, 0)
        self._lock = threading.Lock()
        self._flights: dict[str, _Flight] = {}

    def image(self, request: ImageRequest, tool_name: str = "generate_image") -> GenerationOutcome:
        """Make (or find) the image the request asks for."""
        return self._run("image", self.image_provider, request, self.image_provider.generate, tool_name)

    def video(self, request: VideoRequest, tool_name: str = "generate_video") -> GenerationOutcome:
        """Make (or find) one clip."""
        return self._run("video", self.video_provider, request, self.video_provider.generate, tool_name)

    def cut(self, request: ConcatRequest, tool_name: str = "assemble_cut") -> GenerationOutcome:
        """Join clips into one cut (or find the same cut made before); counted as video."""
        return self._run("video", self.video_provider, request, self.video_provider.concat, tool_name)

    def audio(self, request: AudioRequest, tool_name: str = "generate_audio") -> GenerationOutcome:
        """Make (or find) one sound."""
        return self._run("audio", self.audio_provider, request, self.audio_provider.generate, tool_name)

    def signature_of(self, medium: Medium, request: GenerationRequest, tool_name: str) -> str:
        """The signature a request would be cached under, without generating anything."""
        provider = {"image": self.image_provider, "video": self.video_provider, "audio": self.audio_provider}[medium]
        return self._sign(provider, request, tool_name)

    def _run(
        self,
        medium: Medium,
        provider: MediaProvider,
        request: GenerationRequest,
        call: Callable[[Any], GeneratedMedia],
        tool_name: str,
    ) -> GenerationOutcome:
        start = time.perf_counter()
        sig = self._sign(provider, request, tool_name)
        with self._single_flight(sig):
            entry = self.cache.get(sig, self.artifacts) if self.cache else None
            if entry is not None:
                self._count(self.cache_hits, medium)
                return _outcome(entry, sig, True, start, None)
            began = time.perf_counter()
            try:
                media = call(request)
            except ProviderUnavailable as error:
                # Billed answers that could not be used (a truncated image) are paid all the same.
                if error.paid_calls:
                    who = provider.identity(request)
                    error.spend = self._price(who.model, error.billed, {}).model_copy(
                        update={"calls": error.paid_calls})
                raise
            provider_s = time.perf_counter() - began
            self._count(self.provider_calls, medium)
            entry = CacheEntry(
                handle=self._store(media, tool_name, sig),
                tool=tool_name,
                provider=media.provider,
                model=media.model,
                media=media.describe(),
            )
            if self.cache is not None:
                entry = self.cache.put(sig, entry)
        spend = self._price(media.model, media.billed, media.usage) if media.billed is not None else None
        return _outcome(entry, sig, False, start, provider_s).model_copy(update={"spend": spend})

    def estimates(self) -> dict[str, float]:
        """What one call of each generation tool may cost at most (USD), for the cost budget's check."""
        found: dict[str, float] = {}
        for tool, provider in (("generate_image", self.image_provider), ("generate_video", self.video_provider),
                               ("generate_audio", self.audio_provider)):
            most = provider.most_billed()
            if most is not None:
                found[tool] = self._price(provider.model, most, {}).cost_usd
        return found

    def _price(self, model: str, billed: dict[str, float], usage: dict[str, Any]) -> Spend:
        return self.prices.media(model, usage=usage, images=int(billed.get("images", 0)),
                                 seconds=billed.get("seconds", 0.0), audio_seconds=billed.get("audio_seconds", 0.0),
                                 characters=int(billed.get("characters", 0)))

    def _sign(self, provider: MediaProvider, request: GenerationRequest, tool_name: str) -> str:
        who = provider.identity(request)
        seed = getattr(request, "seed", None)
        return signature(tool_name, who.name, who.model, request.signature_params(), seed, request.upstream_hashes())

    def _store(self, media: GeneratedMedia, tool_name: str, sig: str) -> ArtifactHandle:
        name = f"{tool_name}-{sig[:12]}{_EXTENSIONS.get(media.mime, '')}"
        if media.data is not None:
            return self.artifacts.put_bytes(media.data, media.mime, name=name)
        return self.artifacts.put_file(media.path, media.mime, name=name)  # type: ignore[arg-type]

    def _count(self, counter: dict[Medium, int], medium: Medium) -> None:
        with self._lock:
            counter[medium] += 1

    @contextmanager
    def _single_flight(self, sig: str) -> Iterator[None]:
        # One lock per signature in flight, dropped when its last user leaves:
        # different signatures run in parallel, equal ones one after another.
        with self._lock:
            flight = self._flights.setdefault(sig, _Flight(threading.Lock()))
            flight.users += 1
        try:
            with flight.lock, (self.cache.flight(sig) if self.cache is not None else nullcontext()):
                yield
        finally:
            with self._lock:
                flight.users -= 1
                if flight.users == 0:
                    del self._flights[sig]


def _outcome(entry: CacheEntry, sig: str, hit: bool, start: float, provider_s: float | None) -> GenerationOutcome:
    return GenerationOutcome(
        handle=entry.handle,
        signature=sig,
        cache_hit=hit,
        provider=entry.provider,
        model=entry.model,
        elapsed_s=time.perf_counter() - start,
        provider_s=provider_s,
        media=entry.media,
    )
