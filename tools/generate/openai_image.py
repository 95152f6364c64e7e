"""Images from an OpenAI (or OpenAI-compatible) endpoint through the ``openai`` SDK.

Text requests go to ``images.generate``; reference-guided requests and edits
upload the reference pictures (the image being edited first) to
``images.edit``.  References without a picture (a character known only by its
description) are written into the prompt instead.
"""

from __future__ import annotations

import base64
import binascii
import io
from pathlib import Path

import httpx
from openai import OpenAI, OpenAIError
from openai.types import ImagesResponse
from PIL import Image

from tools.generate.base import GeneratedMedia, GenerationError, ImageProvider, ImageRequest, ReferenceInput
from tools.generate.errors import ProviderUnavailable, classify
from tools.generate.prompt_text import compose_prompt

DEFAULT_SIZES = ("1024x1024", "1536x1024", "1024x1536")
_MAX_UPLOADS = 16  # images.edit takes at most this many pictures


class OpenAIImageProvider(ImageProvider):
    """``gpt-image-1`` (or any configured model) behind the Images API."""

    def __init__(
        self,
        client: OpenAI,
        model: str = "gpt-image-1",
        sizes: tuple[str, ...] = DEFAULT_SIZES,
        name: str = "openai",
        download_timeout_s: float = 60.0,
        invalid_retries: int = 1,
    ) -> None:
        self.client = client
        self.model = model
        self.sizes = sizes
        self.name = name
        self.download_timeout_s = download_timeout_s
        self.invalid_retries = invalid_retries

    def generate(self, request: ImageRequest) -> GeneratedMedia:
        """Generate, or edit with the uploaded pictures when the request has any.

        Unusable bytes (truncated, not an image) are asked for again up to ``invalid_retries`` times; each
        such answer was billed, so the error that ends the retries says how many were paid for.
        """
        uploads = _pictures(request)
        prompt = compose_prompt(request, uploaded=uploads)
        size = nearest_size(request.width, request.height, self.sizes)
        what = f"the image model {self.model} at {self.name}"
        paid = 0
        for attempt in range(self.invalid_retries + 1):
            try:
                if uploads:
                    files = [(Path(r.path).name, Path(r.path).read_bytes(), r.mime or "image/png") for r in uploads]  # type: ignore[arg-type]
                    response = self.client.images.edit(model=self.model, image=files, prompt=prompt, size=size, n=1)
                else:
                    response = self.client.images.generate(model=self.model, prompt=prompt, size=size, n=1)
            except OpenAIError as e:
                raise _with_paid(classify(e, what, max_retries=self.client.max_retries), paid) from e
            paid += 1
            try:
                data = self._first_image(response)
                width, height, mime = _inspect(data)
            except GenerationError as e:
                if attempt < self.invalid_retries:
                    continue
                raise ProviderUnavailable("invalid_output", what, str(e), attempts=paid, paid_calls=paid,
                                          billed={"images": float(paid)}) from e
            usage = response.usage.model_dump(mode="json", exclude_none=True) if response.usage else {}
            return GeneratedMedia(
                data=data,
                mime=mime,
                provider=self.name,
                model=self.model,
                width=width,
                height=height,
                details={"mode": request.mode.value, "size": size, "uploads": len(uploads), "billed_answers": paid},
                usage=usage,
                billed={"images": float(paid)},
            )
        raise AssertionError("unreachable: the loop returns or raises")

    def most_billed(self) -> dict[str, float] | None:
        """One image per request, asked for again at most ``invalid_retries`` times."""
        return {"images": float(self.invalid_retries + 1)}

    def _first_image(self, response: ImagesResponse) -> bytes:
        item = (response.data or [None])[0]
        if item is not None and item.b64_json:
            try:
                return base64.b64decode(item.b64_json, validate=True)
            except binascii.Error as e:
                raise GenerationError(f"the image came back as broken base64 ({e})") from e
        if item is not None and item.url:
            try:
                reply = httpx.get(item.url, timeout=self.download_timeout_s, follow_redirects=True)
                reply.raise_for_status()
            except httpx.HTTPError as e:
                raise GenerationError(f"could not download the generated image from {item.url}: {e}") from e
            return reply.content
        raise GenerationError(f"{self.name} image model {self.model} returned no image")


def _with_paid(error: Exception, paid: int) -> Exception:
    """An outage after some billed but unusable answers says how many were billed."""
    if isinstance(error, ProviderUnavailable) and paid:
        error.paid_calls += paid
        error.billed = {"images": float(error.paid_calls)}
    return error


def nearest_size(width: int, height: int, sizes: tuple[str, ...]) -> str:
    """The allowed ``WxH`` size whose aspect ratio is closest to the request's (first one on a tie)."""
    wanted = width / height

    def distance(size: str) -> float:
        w, h = (int(v) for v in size.split("x"))
        return abs(w / h - wanted)

    return min(sizes, key=distance)


def _pictures(request: ImageRequest) -> list[ReferenceInput]:
    candidates = ([request.source] if request.source else []) + list(request.references)
    pictures = [
        r for r in candidates if r is not None and r.path is not None and (r.mime or "image/").startswith("image/")
    ]
    return pictures[:_MAX_UPLOADS]


def _inspect(data: bytes) -> tuple[int, int, str]:
    """Size and type of the image, decoding every pixel: a truncated PNG opens, and fails only on load."""
    try:
        with Image.open(io.BytesIO(data)) as im:
            im.load()
            return im.width, im.height, Image.MIME.get(im.format or "", "application/octet-stream")
    except (OSError, SyntaxError, ValueError) as e:
        raise GenerationError(f"the image model returned bytes that are not a whole image ({len(data)} bytes): "
                              f"{e}") from e
