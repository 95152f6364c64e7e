"""Building the generation service a project runs with, from :class:`GenerationSettings`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from store.artifacts import ArtifactStore
from tools.generate.cache import SignatureCache
from tools.generate.offline_audio import OfflineAudioProvider
from tools.generate.offline_image import OfflineImageProvider
from tools.generate.offline_video import OfflineVideoProvider
from tools.generate.service import GenerationService
from tools.generate.settings import GenerationSettings
from tools.spend import PriceTable

if TYPE_CHECKING:
    from openai import OpenAI


def openai_client(settings: GenerationSettings) -> OpenAI:
    """An SDK client for the configured endpoint (the SDK is imported here: a third of a second that an offline
    project, and every command that does not generate, does not pay)."""
    from openai import OpenAI

    return OpenAI(
        api_key=settings.api_key.get_secret_value() if settings.api_key else None,
        base_url=settings.base_url,
        timeout=settings.request_timeout_s,
        max_retries=settings.max_retries,
    )


def build_generation_service(
    settings: GenerationSettings, artifacts: ArtifactStore, project_dir: Path, client: OpenAI | None = None,
    prices: PriceTable | None = None,
) -> GenerationService:
    """The service with the configured provider per medium and the cache in the project folder.

    ``client`` is built from the settings when a medium is remote and none is given; ``prices`` price what
    the remote ones bill (``tools.spend``; its defaults when None).
    """
    latency = settings.offline_latency_s
    remote = "openai" in (settings.image_provider, settings.video_provider, settings.audio_provider)
    if remote:
        from tools.generate.openai_audio import OpenAIAudioProvider
        from tools.generate.openai_image import OpenAIImageProvider
        from tools.generate.openai_video import OpenAIVideoProvider
    if remote and client is None:
        client = openai_client(settings)
    name = settings.provider_name
    image = (
        OpenAIImageProvider(client, model=settings.image_model, name=name)  # type: ignore[arg-type]
        if settings.image_provider == "openai"
        else OfflineImageProvider(latency_s=latency)
    )
    video = (
        OpenAIVideoProvider(
            client,  # type: ignore[arg-type]
            model=settings.video_model,
            poll_interval_s=settings.video_poll_interval_s,
            max_wait_s=settings.video_max_wait_s,
            name=name,
        )
        if settings.video_provider == "openai"
        else OfflineVideoProvider(latency_s=latency)
    )
    offline_audio = OfflineAudioProvider(latency_s=latency)
    audio = (
        OpenAIAudioProvider(client, model=settings.speech_model, voice=settings.voice, beds=offline_audio, name=name)  # type: ignore[arg-type]
        if settings.audio_provider == "openai"
        else offline_audio
    )
    cache_path = settings.cache_file if settings.cache_file.is_absolute() else Path(project_dir) / settings.cache_file
    return GenerationService(artifacts, SignatureCache(cache_path), image, video, audio, prices=prices)
