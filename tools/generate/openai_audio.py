"""Speech from an OpenAI (or OpenAI-compatible) endpoint through the ``openai`` SDK.

The Audio API speaks text but makes no ambience or music, so beds are
delegated to another audio provider (the offline tone synthesiser unless told
otherwise), and :meth:`identity` says so, which keeps their signatures honest.
"""

from __future__ import annotations

from openai import OpenAI, OpenAIError

from tools.generate.base import (
    AudioKind,
    AudioProvider,
    AudioRequest,
    GeneratedMedia,
    GenerationError,
    GenerationRequest,
    ProviderIdentity,
)
from tools.generate.errors import ProviderUnavailable, classify
from tools.generate.measure import wav_info
from tools.generate.offline_audio import OfflineAudioProvider


class OpenAIAudioProvider(AudioProvider):
    """``gpt-4o-mini-tts`` (or any configured model) behind ``audio.speech``; beds from ``beds``."""

    def __init__(
        self,
        client: OpenAI,
        model: str = "gpt-4o-mini-tts",
        voice: str = "alloy",
        beds: AudioProvider | None = None,
        name: str = "openai",
    ) -> None:
        self.client = client
        self.model = model
        self.voice = voice
        self.beds = beds or OfflineAudioProvider()
        self.name = name

    def identity(self, request: GenerationRequest) -> ProviderIdentity:
        """Speech is this endpoint's; ambience and music belong to the bed provider."""
        if isinstance(request, AudioRequest) and request.kind is not AudioKind.SPEECH:
            return self.beds.identity(request)
        return super().identity(request)

    def speech(self, request: AudioRequest) -> GeneratedMedia:
        """Speak the prompt as WAV in the request's voice (or the configured one for ``default``)."""
        voice = self.voice if request.voice == "default" else request.voice
        what = f"the speech model {self.model} at {self.name}"
        try:
            response = self.client.audio.speech.create(
                model=self.model, voice=voice, input=request.prompt, response_format="wav"
            )
        except OpenAIError as e:
            raise classify(e, what, max_retries=self.client.max_retries) from e
        data = response.content
        try:
            info = wav_info(data)
        except (GenerationError, ValueError, EOFError) as e:  # billed, but not a WAV we can read
            raise ProviderUnavailable("invalid_output", what, f"the speech is not a readable WAV: {e}",
                                      paid_calls=1, billed={"characters": float(len(request.prompt))}) from e
        return GeneratedMedia(
            data=data,
            mime="audio/wav",
            provider=self.name,
            model=self.model,
            duration_s=info.duration_s,
            details={"kind": request.kind.value, "voice": voice, "sample_rate": info.sample_rate},
            billed={"audio_seconds": float(info.duration_s), "characters": float(len(request.prompt))},
        )

    def most_billed(self) -> dict[str, float] | None:
        """Speech of the longest prompt a request takes, at a slow speaking rate (12 characters a second)."""
        return {"audio_seconds": 4000 / 12, "characters": 4000.0}

    def ambience(self, request: AudioRequest) -> GeneratedMedia:
        """Delegate the bed to the bed provider."""
        return self.beds.ambience(request)
