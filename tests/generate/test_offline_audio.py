"""Offline audio is valid WAV of a sensible length, deterministic, through espeak-ng or the synthesiser."""

from __future__ import annotations


import pytest

from tools.generate.base import AudioKind, AudioRequest, GenerationError
from tools.generate.measure import wav_info
from tools.generate.offline_audio import OfflineAudioProvider

LINE = "The boats are in, Mira. Come down to the harbour."
needs_espeak = pytest.mark.system_tool("espeak-ng", apt="espeak-ng")


@pytest.mark.parametrize("kind", [AudioKind.AMBIENCE, AudioKind.MUSIC])
def test_beds_have_the_requested_duration(kind):
    media = OfflineAudioProvider().generate(AudioRequest(kind=kind, prompt="wind over the water", duration_s=2.5))
    info = wav_info(media.read_bytes())
    assert info.duration_s == pytest.approx(2.5, abs=1 / info.sample_rate)
    assert (info.channels, info.sample_width, info.sample_rate) == (1, 2, 22050)
    assert 0.3 < info.peak <= 1.0
    assert media.mime == "audio/wav"


def test_beds_are_deterministic_and_seeded():
    provider = OfflineAudioProvider()
    request = AudioRequest(kind=AudioKind.MUSIC, prompt="calm", duration_s=1, seed=4)
    assert provider.generate(request).read_bytes() == provider.generate(request).read_bytes()
    assert (
        provider.generate(request.model_copy(update={"seed": 5})).read_bytes()
        != provider.generate(request).read_bytes()
    )


def test_synthesised_speech_without_espeak():
    provider = OfflineAudioProvider(use_espeak=False)
    request = AudioRequest(prompt=LINE)
    media = provider.generate(request)
    info = wav_info(media.read_bytes())
    words = len(LINE.split())
    assert 0.2 * words < info.duration_s < 1.0 * words
    assert media.model == "offline-babble-v1" == provider.identity(request).model
    assert media.read_bytes() == provider.generate(request).read_bytes()


def test_speech_pads_to_a_longer_requested_duration():
    media = OfflineAudioProvider(use_espeak=False).generate(AudioRequest(prompt="hi", duration_s=3))
    assert wav_info(media.read_bytes()).duration_s == pytest.approx(3.0, abs=0.01)


@needs_espeak
def test_espeak_speech_is_real_and_deterministic():
    provider = OfflineAudioProvider()
    request = AudioRequest(prompt=LINE, sample_rate=16000)
    media = provider.generate(request)
    info = wav_info(media.read_bytes())
    assert media.model == "espeak-ng"
    assert info.sample_rate == 16000
    assert 1.0 < info.duration_s < 8.0
    assert info.peak > 0.1
    assert media.read_bytes() == provider.generate(request).read_bytes()
    assert provider.generate(request.model_copy(update={"voice": "fr"})).read_bytes() != media.read_bytes()


@needs_espeak
def test_unknown_espeak_voice_says_what_to_do():
    with pytest.raises(GenerationError, match="no voice 'no-such-voice'; try voice 'default'"):
        OfflineAudioProvider().generate(AudioRequest(prompt="hello", voice="no-such-voice"))
