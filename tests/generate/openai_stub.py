"""A local HTTP server on 127.0.0.1 that speaks the OpenAI images, videos and audio-speech APIs.

The real ``openai`` client is pointed at it with ``base_url``; the server
answers with real media (a PNG as ``b64_json``, an MP4 download, a WAV) and
records every request so tests can assert what the providers sent.
"""

from __future__ import annotations

import base64
import hashlib
import io
import itertools
import socket
import threading
import time
from contextlib import asynccontextmanager
from typing import Any, Self

import numpy as np
import uvicorn
from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse
from PIL import Image
from starlette.datastructures import UploadFile

from tools.generate.offline_audio import write_wav


class OpenAIStub:
    """Run with ``with OpenAIStub(mp4) as stub:``; ``stub.base_url`` is the ``/v1`` root, ``stub.seen`` what came in."""

    def __init__(self, mp4: bytes, polls_until_done: int = 2) -> None:
        self.mp4 = mp4
        self.polls_until_done = polls_until_done
        self.seen: list[dict[str, Any]] = []
        self.jobs: dict[str, dict[str, Any]] = {}
        self._ids = itertools.count(1)
        self._ready = threading.Event()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.base_url = ""

    def requests(self, path: str) -> list[dict[str, Any]]:
        """The recorded requests to one path (method and path, e.g. ``POST /v1/images/generations``)."""
        return [r for r in self.seen if r["route"] == path]

    def __enter__(self) -> Self:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        self.base_url = f"http://127.0.0.1:{port}/v1"
        self._server = uvicorn.Server(uvicorn.Config(self._app(), log_level="warning", lifespan="on"))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout=10):
            raise RuntimeError("the OpenAI stub server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None and self._thread is not None
        self._server.should_exit = True
        self._thread.join(timeout=10)

    def _app(self) -> FastAPI:
        @asynccontextmanager
        async def lifespan(_: FastAPI):
            self._ready.set()
            yield

        app = FastAPI(lifespan=lifespan)

        @app.post("/v1/images/generations")
        async def generations(request: Request) -> JSONResponse:
            body = await request.json()
            self._record("POST /v1/images/generations", request, body)
            return _image_response(body.get("size"))

        @app.post("/v1/images/edits")
        async def edits(request: Request) -> JSONResponse:
            fields, files = await _multipart(request)
            self._record("POST /v1/images/edits", request, fields, files)
            return _image_response(fields.get("size"))

        @app.post("/v1/videos")
        async def create_video(request: Request) -> JSONResponse:
            fields, files = await _multipart(request)
            self._record("POST /v1/videos", request, fields, files)
            job = {
                "id": f"video_{next(self._ids)}",
                "object": "video",
                "created_at": int(time.time()),
                "model": fields.get("model", "sora-2"),
                "prompt": fields.get("prompt"),
                "seconds": fields.get("seconds", "4"),
                "size": fields.get("size", "720x1280"),
                "status": "queued",
                "progress": 0,
                "polls": 0,
                "fail": "FAIL" in (fields.get("prompt") or ""),
            }
            self.jobs[job["id"]] = job
            return JSONResponse(_public(job))

        @app.get("/v1/videos/{video_id}")
        async def retrieve_video(video_id: str, request: Request) -> JSONResponse:
            self._record("GET /v1/videos/{id}", request, {"id": video_id})
            job = self.jobs[video_id]
            job["polls"] += 1
            if job["polls"] >= self.polls_until_done:
                job.update(status="failed" if job["fail"] else "completed", progress=100)
                if job["fail"]:
                    job["error"] = {"code": "moderation_blocked", "message": "the stub was told to fail"}
            else:
                job.update(status="in_progress", progress=50)
            return JSONResponse(_public(job))

        @app.get("/v1/videos/{video_id}/content")
        async def download(video_id: str, request: Request) -> Response:
            self._record("GET /v1/videos/{id}/content", request, {"id": video_id, **request.query_params})
            return Response(self.mp4, media_type="video/mp4")

        @app.post("/v1/audio/speech")
        async def speech(request: Request) -> Response:
            body = await request.json()
            self._record("POST /v1/audio/speech", request, body)
            t = np.arange(24000) / 24000
            return Response(write_wav(0.5 * np.sin(2 * np.pi * 220 * t), 24000), media_type="audio/wav")

        return app

    def _record(
        self, route: str, request: Request, fields: dict[str, Any], files: list[dict[str, Any]] | None = None
    ) -> None:
        self.seen.append(
            {"route": route, "auth": request.headers.get("authorization"), "fields": fields, "files": files or []}
        )


async def _multipart(request: Request) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    form = await request.form()
    fields: dict[str, Any] = {}
    files: list[dict[str, Any]] = []
    for key, value in form.multi_items():
        if isinstance(value, UploadFile):
            data = await value.read()
            with Image.open(io.BytesIO(data)) as im:
                size = im.size
            files.append(
                {"field": key, "filename": value.filename, "sha256": hashlib.sha256(data).hexdigest(), "size": size}
            )
        else:
            fields[key] = value
    return fields, files


def _image_response(size: str | None) -> JSONResponse:
    w, h = (int(v) for v in (size or "1024x1024").split("x"))
    buf = io.BytesIO()
    Image.new("RGB", (w, h), "#3366aa").save(buf, format="PNG")
    return JSONResponse(
        {"created": int(time.time()), "data": [{"b64_json": base64.b64encode(buf.getvalue()).decode()}]}
    )


def _public(job: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in job.items() if k not in ("polls", "fail")}
