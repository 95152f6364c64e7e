"""The offline audio provider: speech through ``espeak-ng`` when installed, synthesised tones otherwise.

Both paths are deterministic: espeak-ng renders the same words to the same
samples, and every synthesised sound comes from a random generator seeded by
the request.  Output is 16-bit mono WAV written with the standard ``wave``
module.
"""

from __future__ import annotations

import hashlib
import io
import shutil
import subprocess
import tempfile
import time
import wave
from pathlib import Path

import numpy as np

from tools.generate.base import (
    AudioKind,
    AudioProvider,
    AudioRequest,
    GeneratedMedia,
    GenerationError,
    GenerationRequest,
    ProviderIdentity,
)

DEFAULT_BED_S = 4.0
_ESPEAK_TIMEOUT_S = 60
_PENTATONIC = (0, 2, 4, 7, 9)  # semitones above the root


def write_wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """Encode float samples in -1..1 as 16-bit mono WAV bytes."""
    pcm = np.clip(np.rint(samples * 32767), -32768, 32767).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sample_rate)
        w.writeframes(pcm.tobytes())
    return buf.getvalue()


def read_wav(data: bytes) -> tuple[np.ndarray, int]:
    """Decode 16-bit mono WAV bytes into float samples and their rate."""
    with wave.open(io.BytesIO(data), "rb") as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1:
            raise GenerationError("expected 16-bit mono WAV")
        rate = w.getframerate()
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    return pcm.astype(np.float64) / 32768.0, rate


def tone_bed(kind: AudioKind, duration_s: float, sample_rate: int, seed: int) -> np.ndarray:
    """A seeded bed: a slowly breathing drone with soft noise (ambience), or a drone and pentatonic notes (music)."""
    rng = np.random.default_rng(seed)
    n = max(1, round(duration_s * sample_rate))
    t = np.arange(n) / sample_rate
    root = rng.uniform(90, 180)
    out = np.zeros(n)
    for ratio in (1.0, 1.5, 2.0, 3.0)[: rng.integers(2, 5)]:
        swell = 0.6 + 0.4 * np.sin(2 * np.pi * rng.uniform(0.05, 0.3) * t + rng.uniform(0, 2 * np.pi))
        out += swell * np.sin(2 * np.pi * root * ratio * t) / ratio
    if kind is AudioKind.MUSIC:
        note_len = rng.choice([0.25, 0.375, 0.5])
        step = max(1, round(note_len * sample_rate))
        envelope = np.exp(-np.arange(step) / (0.3 * step))
        for start in range(0, n, step):
            semis = 12 + _PENTATONIC[rng.integers(0, len(_PENTATONIC))] + 12 * rng.integers(0, 2)
            span = min(step, n - start)
            note = np.sin(2 * np.pi * root * 2 ** (semis / 12) * t[start : start + span])
            out[start : start + span] += 1.2 * envelope[:span] * note
    else:
        noise = rng.standard_normal(n)
        kernel = np.ones(64) / 64  # a crude low-pass: a wind-like hush rather than hiss
        out += 0.8 * np.convolve(noise, kernel, mode="same")
    fade = min(n // 4, round(0.05 * sample_rate))
    if fade:
        ramp = np.linspace(0.0, 1.0, fade)
        out[:fade] *= ramp
        out[-fade:] *= ramp[::-1]
    return _normalise(out)


def babble(text: str, sample_rate: int, seed: int) -> np.ndarray:
    """Speech-shaped tones when no speech engine is installed: one voiced burst per word, pitch set by the word."""
    parts = []
    gap = np.zeros(round(0.07 * sample_rate))
    for word in text.split() or [text]:
        digest = hashlib.sha256(f"{seed}\x1f{word.lower()}".encode()).digest()
        length = round((0.1 + 0.06 * len(word)) * sample_rate)
        t = np.arange(length) / sample_rate
        pitch = 110 + digest[0] % 110
        contour = pitch * (1 + 0.1 * np.sin(np.pi * t / t[-1]))  # a gentle rise and fall
        phase = 2 * np.pi * np.cumsum(contour) / sample_rate
        voiced = sum(np.sin(k * phase) / k for k in (1, 2, 3, 4))
        parts += [voiced * np.sin(np.pi * np.arange(length) / length), gap]
    return _normalise(np.concatenate(parts))


class OfflineAudioProvider(AudioProvider):
    """Deterministic WAVs made locally; ``latency_s`` simulates a slow provider."""

    name = "offline"
    model = "offline-tones-v1"
    espeak_model = "espeak-ng"
    babble_model = "offline-babble-v1"

    def __init__(self, latency_s: float = 0.0, use_espeak: bool = True) -> None:
        self.latency_s = latency_s
        self.espeak = shutil.which("espeak-ng") if use_espeak else None
        self._voices: frozenset[str] | None = None

    def identity(self, request: GenerationRequest) -> ProviderIdentity:
        """Speech is made by espeak-ng when found, else by the babble synthesiser; beds by the tone synthesiser."""
        if isinstance(request, AudioRequest) and request.kind is AudioKind.SPEECH:
            return ProviderIdentity(name=self.name, model=self.espeak_model if self.espeak else self.babble_model)
        return super().identity(request)

    def speech(self, request: AudioRequest) -> GeneratedMedia:
        """Speak the prompt; a requested duration longer than the speech pads it with silence."""
        self._wait()
        if self.espeak:
            samples, rate = read_wav(self._espeak(request))
            samples = _resample(samples, rate, request.sample_rate)
        else:
            samples = babble(request.prompt, request.sample_rate, request.seed)
        if request.duration_s:
            samples = np.pad(samples, (0, max(0, round(request.duration_s * request.sample_rate) - len(samples))))
        return self._media(samples, request)

    def ambience(self, request: AudioRequest) -> GeneratedMedia:
        """A tone bed of the requested length (4 s if none), seeded by the request's seed and prompt."""
        self._wait()
        seed = int.from_bytes(hashlib.sha256(f"{request.seed}\x1f{request.prompt}".encode()).digest()[:8], "big")
        samples = tone_bed(request.kind, request.duration_s or DEFAULT_BED_S, request.sample_rate, seed)
        return self._media(samples, request)

    def espeak_voices(self) -> frozenset[str]:
        """The voice names espeak-ng knows (languages, voice names and voice files, lower case)."""
        if self._voices is None:
            listing = subprocess.run(
                [self.espeak, "--voices"],  # type: ignore[list-item]
                capture_output=True,
                text=True,
                timeout=_ESPEAK_TIMEOUT_S,
                check=False,
                process_group=0,  # not stopped by the terminal's Ctrl-C, which only pauses the turn
            ).stdout
            names = set()
            for line in listing.splitlines()[1:]:
                cols = line.split()
                if len(cols) >= 5:
                    names.update(
                        {cols[1].lower(), cols[3].lower(), cols[4].lower(), cols[4].rsplit("/", 1)[-1].lower()}
                    )
            self._voices = frozenset(names)
        return self._voices

    def _espeak(self, request: AudioRequest) -> bytes:
        voice = "en" if request.voice == "default" else request.voice
        # espeak-ng falls back to its default voice on an unknown name and exits 0
        # when reading stdin, so unknown voices are caught here instead.
        if voice.split("+")[0].lower() not in self.espeak_voices():
            raise GenerationError(
                f"espeak-ng has no voice {voice!r}; try voice 'default' or a language code such as 'en-us' or 'fr'"
            )
        with tempfile.TemporaryDirectory(prefix="jarvishub-speech-") as tmp:
            out = Path(tmp) / "speech.wav"
            # The words go in on stdin so a line starting with "-" is never read as an option.
            proc = subprocess.run(
                [self.espeak, "--stdin", "-v", voice, "-w", str(out)],  # type: ignore[list-item]
                input=request.prompt.encode(),
                capture_output=True,
                timeout=_ESPEAK_TIMEOUT_S,
                check=False,
                process_group=0,  # not stopped by the terminal's Ctrl-C, which only pauses the turn
            )
            if proc.returncode != 0 or not out.exists():
                message = proc.stderr.decode("utf-8", "replace").strip()
                raise GenerationError(f"espeak-ng failed for voice {voice!r}: {message}")
            return out.read_bytes()

    def _media(self, samples: np.ndarray, request: AudioRequest) -> GeneratedMedia:
        identity = self.identity(request)
        return GeneratedMedia(
            data=write_wav(samples, request.sample_rate),
            mime="audio/wav",
            provider=identity.name,
            model=identity.model,
            duration_s=len(samples) / request.sample_rate,
            details={"kind": request.kind.value, "voice": request.voice, "sample_rate": request.sample_rate},
        )

    def _wait(self) -> None:
        if self.latency_s:
            time.sleep(self.latency_s)


def _normalise(samples: np.ndarray, peak: float = 0.6) -> np.ndarray:
    top = float(np.abs(samples).max()) if samples.size else 0.0
    return samples * (peak / top) if top > 0 else samples


def _resample(samples: np.ndarray, rate: int, target: int) -> np.ndarray:
    if rate == target or samples.size == 0:
        return samples
    n = max(1, round(samples.size * target / rate))
    return np.interp(np.arange(n) * rate / target, np.arange(samples.size), samples)
