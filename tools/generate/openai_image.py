"""Images from an OpenAI (or OpenAI-compatible) endpoint through the ``openai`` SDK.

Text requests go to ``images.generate``; reference-guided requests and edits
upload the reference pictures (the image being edited first) to
``images.edit``.  References without a picture (a character known only by its
description) are written into the prompt instead.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

import httpx
from openai import OpenAI, OpenAIError
from openai.types import ImagesResponse
from PIL import Image

from tools.generate.base import GeneratedMedia, GenerationError, ImageProvider, ImageRequest, ReferenceInput
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
    ) -> None:
        self.client = client
        self.model = model
        self.sizes = sizes
        self.name = name
        self.download_timeout_s = download_timeout_s

    def generate(self, request: ImageRequest) -> GeneratedMedia:
        """Generate, or edit with the uploaded pictures when the request has any."""
        uploads = _pictures(request)
        prompt = compose_prompt(request, uploaded=uploads)
        size = nearest_size(request.width, request.height, self.sizes)
        try:
            if uploads:
                files = [(Path(r.path).name, Path(r.path).read_bytes(), r.mime or "image/png") for r in uploads]  # type: ignore[arg-type]
                response = self.client.images.edit(model=self.model, image=files, prompt=prompt, size=size, n=1)
            else:
                response = self.client.images.generate(model=self.model, prompt=prompt, size=size, n=1)
        except OpenAIError as e:
            raise GenerationError(f"{self.name} image model {self.model} failed: {e}") from e
        data = self._first_image(response)
        width, height, mime = _inspect(data)
        return GeneratedMedia(
            data=data,
            mime=mime,
            provider=self.name,
            model=self.model,
            width=width,
            height=height,
            details={"mode": request.mode.value, "size": size, "uploads": len(uploads)},
        )

    def _first_image(self, response: ImagesResponse) -> bytes:
        item = (response.data or [None])[0]
        if item is not None and item.b64_json:
            return base64.b64decode(item.b64_json)
        if item is not None and item.url:
            try:
                reply = httpx.get(item.url, timeout=self.download_timeout_s, follow_redirects=True)
                reply.raise_for_status()
            except httpx.HTTPError as e:
                raise GenerationError(f"could not download the generated image from {item.url}: {e}") from e
            return reply.content
        raise GenerationError(f"{self.name} image model {self.model} returned no image")


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
    try:
        with Image.open(io.BytesIO(data)) as im:
            return im.width, im.height, Image.MIME.get(im.format or "", "application/octet-stream")
    except OSError as e:
        raise GenerationError(f"the image model returned bytes that are not an image: {e}") from e
