"""Configuration of the generation family, read from ``JARVISHUB_GENERATION_*`` environment variables.

Offline providers are the default for every medium; each medium can be moved
to an OpenAI-compatible endpoint on its own (images remote, clips offline, ...).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

ProviderKind = Literal["offline", "openai"]


class GenerationSettings(BaseSettings):
    """Which provider serves each medium, how to reach the remote one, and where the cache lives."""

    model_config = SettingsConfigDict(env_prefix="JARVISHUB_GENERATION_", extra="ignore")

    image_provider: ProviderKind = "offline"
    video_provider: ProviderKind = "offline"
    audio_provider: ProviderKind = "offline"
    api_key: SecretStr | None = Field(default=None, description="None: the openai SDK reads OPENAI_API_KEY.")
    base_url: str | None = Field(default=None, description="Any OpenAI-compatible endpoint; None: OpenAI's own.")
    provider_name: str = Field(default="openai", description="Names the remote endpoint in signatures and provenance.")
    image_model: str = "gpt-image-1"
    video_model: str = "sora-2"
    speech_model: str = "gpt-4o-mini-tts"
    voice: str = "alloy"
    request_timeout_s: float = 600.0
    max_retries: int = 2
    video_poll_interval_s: float = 5.0
    video_max_wait_s: float = 900.0
    offline_latency_s: float = Field(default=0.0, ge=0, description="Simulated provider latency, for benchmarks.")
    cache_file: Path = Field(default=Path(".jarvishub/generation-cache.sqlite"), description="Relative to the project.")


def generation_settings(settings: Any) -> GenerationSettings:
    """The generation settings of a project's :class:`~jarvishub.settings.Settings`: the environment's
    ``JARVISHUB_GENERATION_*`` values, moved to the OpenAI providers when ``JARVISHUB_MEDIA_PROVIDER`` says so
    (``auto``: when an API key is set).

    Built through validation (never ``model_copy(update=...)``, which skips it), so the key is a ``SecretStr``
    whichever way it arrived: a key in the environment once reached the SDK client as a plain ``str`` and
    crashed every turn.
    """
    base = GenerationSettings()
    media = str(getattr(settings, "media_provider", "auto") or "auto")
    key = getattr(settings, "openai_api_key", None)
    if not (media == "openai" or (media == "auto" and key)):
        return base
    # A medium set on its own (JARVISHUB_GENERATION_VIDEO_PROVIDER=offline: images remote, clips offline) stays so.
    remote = {f"{medium}_provider": "openai" for medium in ("image", "video", "audio")
              if f"{medium}_provider" not in base.model_fields_set}
    return GenerationSettings.model_validate({
        **base.model_dump(),
        **remote,
        "base_url": getattr(settings, "openai_base_url", None) or base.base_url,
        "api_key": key if key is not None else base.api_key,
        "image_model": settings.image_model, "video_model": settings.video_model,
        "speech_model": settings.speech_model,
    })
