"""One HTTP server on 127.0.0.1 that speaks every OpenAI API JarvisHub calls, and fails the way providers do.

Point a real client at it with ``OPENAI_BASE_URL=server.base_url`` (and any ``OPENAI_API_KEY``): the
``jarvishub`` CLI in a subprocess, the Python API, LangGraph's server.  It answers

* ``POST /v1/chat/completions``, plain or streamed (SSE, with ``stream_options.include_usage``), with tool
  calls, several at once (parallel tool calls) when its brain makes them, and a ``usage`` block;
  a request's ``model`` picks the brain (:class:`PlannerBrain` runs JarvisHub's own offline planner behind
  the wire, :class:`ScriptedBrain` plays a script, :class:`JsonJudge` and :class:`ProseJudge` judge images;
  any other model name is :class:`RoleBrain`: the planner when tools are bound, the JSON judge otherwise);
* ``POST /v1/images/generations`` and ``/v1/images/edits`` (multipart, with the reference pictures) with
  a real PNG drawn from the prompt (:func:`render_prompt`: the lighting, palette, characters, framing and
  weather the prompt spells out, by the offline renderer), and the ``usage`` gpt-image-1 reports;
* ``POST /v1/videos``, ``GET /v1/videos/{id}`` (a job that completes after some polls) and
  ``GET /v1/videos/{id}/content``: a real H.264 MP4 of the job's length, moving over the uploaded still;
* ``POST /v1/audio/speech``: a real WAV whose length follows the text.

Faults are injected per route (:meth:`LoopbackOpenAI.inject`): a status (429 with ``Retry-After``, 5xx,
a content-policy 400), a delay longer than the client's timeout, a truncated or invalid image, a slow or
stalled stream, a video job that fails.  Everything that came in is in :attr:`LoopbackOpenAI.seen`, and
what a real provider would have billed (answers with a 200) in :meth:`LoopbackOpenAI.billed`.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
import itertools
import json
import re
import socket
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Self

import numpy as np
import uvicorn
from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from PIL import Image
from starlette.datastructures import UploadFile

Route = Literal["chat", "images", "videos", "speech"]


# -- faults -------------------------------------------------------------------------------------------------
@dataclass
class Fault:
    """What a route does instead of (or before) answering, for the next ``times`` requests (None: all)."""

    status: int | None = None
    """Answer with this HTTP status and an OpenAI error body."""
    retry_after: float | None = None
    """The ``Retry-After`` header (seconds) of that answer."""
    code: str | None = None
    """The error's ``code`` (``content_policy_violation``); on ``videos`` without a status: the job fails so."""
    message: str = "injected by the loopback server"
    delay_s: float = 0.0
    """Wait this long before answering (longer than the client's timeout: a timeout)."""
    image: Literal["truncated", "garbage", "bad_base64"] | None = None
    """Answer 200 with an image that is cut short, not an image at all, or not base64."""
    chunk_delay_s: float = 0.0
    """Streamed chat: wait this long between chunks (a slow stream; a stall when longer than the timeout)."""
    times: int | None = 1


# -- chat brains -----------------------------------------------------------------------------------------------
Reply = dict[str, Any]
"""``{"content": str | None, "calls": [{"name": ..., "arguments": dict | str}, ...]}``, or ``{"status": 503}``."""
Brain = Callable[[dict[str, Any]], Reply]


def openai_to_langchain(messages: list[dict[str, Any]]) -> list[Any]:
    """The chat-completions messages of a request as LangChain messages (what a model's weights would read)."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    out: list[Any] = []
    for message in messages:
        role, content = message["role"], message.get("content")
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        content = content or ""
        if role in ("system", "developer"):
            out.append(SystemMessage(content=content))
        elif role == "user":
            out.append(HumanMessage(content=content))
        elif role == "assistant":
            calls = [{"name": c["function"]["name"], "args": _loads(c["function"]["arguments"]), "id": c["id"]}
                     for c in message.get("tool_calls") or []]
            out.append(AIMessage(content=content, tool_calls=calls))
        elif role == "tool":
            out.append(ToolMessage(content=content, tool_call_id=message["tool_call_id"]))
    return out


def _loads(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


class PlannerBrain:
    """JarvisHub's offline planner behind the wire: it reads the request's messages and bound tools, and its
    decision goes back as OpenAI tool calls.  A deterministic stand-in for a model that knows the tools."""

    def __init__(self) -> None:
        from nodes.models.offline import OfflinePlanner

        self.planner = OfflinePlanner()

    def __call__(self, body: dict[str, Any]) -> Reply:
        model = self.planner.bind_tools(body.get("tools") or [])
        message = model.invoke(openai_to_langchain(body["messages"]))
        return {"content": message.content or None,
                "calls": [{"name": c["name"], "arguments": c["args"]} for c in message.tool_calls]}


class ScriptedBrain:
    """Pops the next scripted reply for each request (``{"content": "done"}`` when the script is used up).

    A reply is ``{"content": ...}``, ``{"tool": NAME, "arguments": dict | raw str}`` or
    ``{"calls": [{"name": ..., "arguments": ...}, ...]}`` (parallel tool calls), or a function of the
    request's messages that returns one (to use an id an earlier call made: :func:`last_observation`).
    A request with no tools bound is a judge's, answered by ``judge`` (the script is the agent's).
    """

    def __init__(self, replies: list[Any], judge: Brain | None = None) -> None:
        self.replies = list(replies)
        self.judge = judge or JsonJudge()

    def __call__(self, body: dict[str, Any]) -> Reply:
        if not body.get("tools"):
            return self.judge(body)
        reply = self.replies.pop(0) if self.replies else {"content": "done"}
        if callable(reply):
            reply = reply(body["messages"])
        if "tool" in reply:
            return {"content": reply.get("content"), "calls": [{"name": reply["tool"], "arguments": reply["arguments"]}]}
        return {"content": reply.get("content"), "calls": list(reply.get("calls") or [])}


def last_observation(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The observation of the last tool result a request carries (what the model was told its call did)."""
    for message in reversed(messages):
        if message.get("role") == "tool":
            return dict(json.loads(message["content"]).get("observation") or {})
    return {}


def attached_picture(body: dict[str, Any]) -> Image.Image | None:
    """The image a request attached (an ``image_url`` data URL), decoded, or None."""
    for message in body.get("messages") or []:
        for part in message.get("content") if isinstance(message.get("content"), list) else []:
            url = ((part or {}).get("image_url") or {}).get("url", "") if isinstance(part, dict) else ""
            if url.startswith("data:"):
                data = base64.b64decode(url.split(",", 1)[1])
                with Image.open(io.BytesIO(data)) as im:
                    return im.convert("RGB")
    return None


class JsonJudge:
    """A judge that looks at the attached picture and answers the JSON verdict asked for.

    It passes a picture it can decode, and scores it by how far its mean brightness sits from the middle;
    a request without a picture fails (the judge saw nothing to judge).
    """

    def __call__(self, body: dict[str, Any]) -> Reply:
        picture = attached_picture(body)
        if picture is None:
            return {"content": json.dumps({"score": 0.0, "passed": False, "notes": "no picture was attached"})}
        luma = float(np.asarray(picture.convert("L")).mean())
        score = round(max(0.5, 1 - abs(luma - 128) / 256), 3)
        return {"content": json.dumps({"score": score, "passed": True,
                                       "notes": f"saw a {picture.width}x{picture.height} picture (luma {luma:.0f})"})}


class ProseJudge:
    """A judge that answers in prose, not the JSON it was asked for (models do)."""

    def __call__(self, body: dict[str, Any]) -> Reply:
        return {"content": "What a lovely picture! The lighting is moody and the composition works well."}


class RoleBrain:
    """One model for both roles, as a multimodal model is: requests with tools bound go to ``agent``, the others
    (a judge's question about a picture) to ``judge``."""

    def __init__(self, agent: Brain, judge: Brain) -> None:
        self.agent = agent
        self.judge = judge

    def __call__(self, body: dict[str, Any]) -> Reply:
        return (self.agent if body.get("tools") else self.judge)(body)


def _tokens(value: Any) -> int:
    """A stand-in token count: about four bytes a token, as English text averages."""
    return max(1, len(json.dumps(value, default=str)) // 4)


# -- images the prompt describes ----------------------------------------------------------------------------------
_REFERENCE = re.compile(r"^(character|scene|style|prop|source|clip) '([^']*)'(?:: (.*?))?\. Keep it consistent")


def render_prompt(prompt: str, width: int, height: int) -> bytes:
    """A PNG of what a prompt written by ``tools.generate.prompt_text.compose_prompt`` spells out.

    The offline renderer draws it: the lighting, palette, characters (their colours and shape), scene,
    framing, weather, outfit, exposure and temperature the prompt names, so the measured checks have
    something true to measure in a provider's picture.
    """
    from tools.generate.base import Framing, ImageRequest, Lighting, ReferenceInput, ReferenceRole, Weather
    from tools.generate.offline_image import png_bytes, render_image
    from tools.generate.prompt_text import _LIGHTING

    lines = prompt.splitlines() or ["an image"]
    fields: dict[str, Any] = {"prompt": lines[0][:4000] or "an image", "width": width, "height": height}
    references = []
    for line in lines[1:]:
        found = _REFERENCE.match(line)
        if found:
            inputs: dict[str, Any] = {"name": found.group(2)}
            for part in (found.group(3) or "").split("; "):
                key, _, value = part.partition(" ")
                if key and value:
                    inputs[key] = [v.strip() for v in value.split(",")] if key in ("colors", "colours") else value
            references.append(ReferenceInput(node_id=f"loopback-{len(references)}", role=ReferenceRole(found.group(1)),
                                             inputs=inputs))
        elif line.startswith("Lighting: "):
            described = line.removeprefix("Lighting: ").rstrip(".")
            for lighting in Lighting:
                if described == _LIGHTING.get(lighting, f"{lighting.value} lighting"):
                    fields["lighting"] = lighting
        elif line.startswith("Colour palette: "):
            fields["palette"] = re.findall(r"#[0-9a-fA-F]{6}", line)
        elif line.startswith("Framing: a "):
            fields["framing"] = Framing(line.removeprefix("Framing: a ").split(" shot")[0])
        elif line.startswith("Weather: "):
            fields["weather"] = Weather(line.removeprefix("Weather: ").rstrip("."))
        elif line.startswith("The characters wear an outfit of colour "):
            fields["outfit"] = re.findall(r"#[0-9a-fA-F]{6}", line)[0]
        elif line.startswith("Exposure: "):
            stops = float(line.split()[1])
            fields["exposure"] = stops if "brighter" in line else -stops
        elif line.startswith("Colour temperature: "):
            amount = float(line.rstrip(".").split()[-1])
            fields["temperature"] = amount if "warmer" in line else -amount
    return png_bytes(render_image(ImageRequest(**fields, references=references)))


def _broken(png: bytes, kind: str) -> str:
    if kind == "truncated":
        return base64.b64encode(png[: len(png) // 2]).decode()
    if kind == "garbage":
        return base64.b64encode(b"<html>502 Bad Gateway</html>" * 8).decode()
    return "!!not base64!!"


# -- the server ------------------------------------------------------------------------------------------------
class LoopbackOpenAI:
    """``with LoopbackOpenAI(brains={...}) as server:``; ``server.base_url`` is the ``/v1`` root."""

    def __init__(self, brains: dict[str, Brain] | None = None, *, default: Brain | None = None,
                 polls_until_done: int = 1, tls: tuple[Path, Path] | None = None) -> None:
        self.brains = dict(brains or {})
        self.default = default or RoleBrain(PlannerBrain(), JsonJudge())
        self.tls = tls
        """(certificate, key) files: serve HTTPS (see ``tests/providers/tls.py``)."""
        self.polls_until_done = polls_until_done
        self.seen: list[dict[str, Any]] = []
        self.jobs: dict[str, dict[str, Any]] = {}
        self._faults: dict[str, list[Fault]] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._folder = tempfile.TemporaryDirectory(prefix="jarvishub-loopback-")
        self.base_url = ""

    # -- what tests use ---------------------------------------------------------------
    def inject(self, route: Route, *faults: Fault) -> None:
        """Queue faults on a route, used in order by its next requests."""
        with self._lock:
            self._faults.setdefault(route, []).extend(faults)

    def requests(self, route: Route) -> list[dict[str, Any]]:
        """What came in on a route, in order."""
        return [r for r in self.seen if r["route"] == route]

    def billed(self, route: Route | None = None) -> int:
        """How many answers a provider would have billed: those with a 200 (broken bytes included)."""
        return sum(1 for r in self.seen if r.get("status") == 200 and r.get("billed") and route in (None, r["route"]))

    def __enter__(self) -> Self:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self.base_url = f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}/v1"
        tls = {"ssl_certfile": str(self.tls[0]), "ssl_keyfile": str(self.tls[1])} if self.tls else {}
        self._server = uvicorn.Server(uvicorn.Config(self._app(), log_level="warning", lifespan="on", **tls))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout=15):
            raise RuntimeError("the loopback OpenAI server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None and self._thread is not None
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._folder.cleanup()

    # -- internals ----------------------------------------------------------------------
    def _fault(self, route: Route) -> Fault | None:
        with self._lock:
            queue = self._faults.get(route) or []
            if not queue:
                return None
            fault = queue[0]
            if fault.times is not None:
                fault.times -= 1
                if fault.times <= 0:
                    queue.pop(0)
            return fault

    def _record(self, route: Route, request: Request, body: dict[str, Any], **extra: Any) -> dict[str, Any]:
        entry = {"route": route, "path": request.url.path, "auth": request.headers.get("authorization"),
                 "model": body.get("model"), "body": body, "at": time.monotonic(), **extra}
        with self._lock:
            self.seen.append(entry)
        return entry

    async def _arrive(self, route: Route, request: Request, body: dict[str, Any],
                      files: list[dict[str, Any]] | None = None) -> tuple[Fault | None, Response | None]:
        """Record a billable request and apply the route's next fault: (the fault, the failure answer or None)."""
        fault = self._fault(route)
        entry = self._record(route, request, body, billed=True,
                             files=[{k: v for k, v in f.items() if k != "data"} for f in files or []])
        return fault, await self._failure(fault, entry)

    async def _failure(self, fault: Fault | None, entry: dict[str, Any]) -> Response | None:
        if fault is None:
            entry["status"] = 200
            return None
        entry["fault"] = fault
        if fault.delay_s:
            await asyncio.sleep(fault.delay_s)
        if fault.status is None:
            entry["status"] = 200
            return None
        entry["status"] = fault.status
        headers = {"retry-after": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
        error = {"message": fault.message, "type": "invalid_request_error" if fault.status < 500 else "server_error",
                 "code": fault.code or {429: "rate_limit_exceeded"}.get(fault.status)}
        return JSONResponse({"error": error}, status_code=fault.status, headers=headers)

    def _app(self) -> FastAPI:
        @asynccontextmanager
        async def lifespan(_: FastAPI) -> AsyncIterator[None]:
            self._ready.set()
            yield

        app = FastAPI(lifespan=lifespan)

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> Response:
            body = await request.json()
            fault, failed = await self._arrive("chat", request, body)
            if failed is not None:
                return failed
            brain = self.brains.get(body.get("model", ""), self.default)
            reply = await asyncio.to_thread(brain, body)
            if "status" in reply:  # a brain that is down
                return JSONResponse({"error": {"message": "the model is overloaded", "type": "server_error"}},
                                    status_code=int(reply["status"]))
            return self._chat_reply(body, reply, fault)

        @app.post("/v1/images/generations")
        async def generations(request: Request) -> Response:
            body = await request.json()
            return await self._image(request, body, [])

        @app.post("/v1/images/edits")
        async def edits(request: Request) -> Response:
            fields, files = await _multipart(request)
            return await self._image(request, fields, files)

        @app.post("/v1/videos")
        async def create_video(request: Request) -> Response:
            fields, files = await _multipart(request)
            fault, failed = await self._arrive("videos", request, fields, files)
            if failed is not None:
                return failed
            job_id = f"video_{next(self._ids)}"
            still = None
            if files:
                still = Path(self._folder.name) / f"{job_id}.png"
                still.write_bytes(files[0]["data"])
            self.jobs[job_id] = {
                "id": job_id, "object": "video", "created_at": int(time.time()),
                "model": fields.get("model", "sora-2"), "prompt": fields.get("prompt") or "",
                "seconds": fields.get("seconds", "4"), "size": fields.get("size", "1280x720"),
                "status": "queued", "progress": 0, "_polls": 0, "_still": still,
                "_error": fault.code if fault is not None and fault.status is None and fault.code else None}
            return JSONResponse(_public(self.jobs[job_id]))

        @app.get("/v1/videos/{video_id}")
        async def retrieve_video(video_id: str, request: Request) -> Response:
            self._record("videos", request, {"id": video_id}, status=200)
            job = self.jobs[video_id]
            job["_polls"] += 1
            if job["_polls"] >= self.polls_until_done:
                job.update(status="failed" if job["_error"] else "completed", progress=100)
                if job["_error"]:
                    job["error"] = {"code": job["_error"], "message": "the job was blocked by moderation"}
            else:
                job.update(status="in_progress", progress=50)
            return JSONResponse(_public(job))

        @app.get("/v1/videos/{video_id}/content")
        async def download(video_id: str, request: Request) -> Response:
            self._record("videos", request, {"id": video_id, **request.query_params}, status=200)
            job = self.jobs[video_id]
            clip = await asyncio.to_thread(_clip, job)
            return Response(clip, media_type="video/mp4")

        @app.post("/v1/audio/speech")
        async def speech(request: Request) -> Response:
            body = await request.json()
            _, failed = await self._arrive("speech", request, body)
            if failed is not None:
                return failed
            from tools.generate.offline_audio import write_wav

            seconds = max(0.4, len(body.get("input") or "") / 14)
            t = np.arange(int(24000 * seconds)) / 24000
            return Response(write_wav(0.4 * np.sin(2 * np.pi * 220 * t), 24000), media_type="audio/wav")

        return app

    async def _image(self, request: Request, fields: dict[str, Any], files: list[dict[str, Any]]) -> Response:
        fault, failed = await self._arrive("images", request, fields, files)
        if failed is not None:
            return failed
        width, height = (int(v) for v in str(fields.get("size") or "1024x1024").split("x"))
        png = await asyncio.to_thread(render_prompt, str(fields.get("prompt") or ""), width, height)
        encoded = _broken(png, fault.image) if fault is not None and fault.image else base64.b64encode(png).decode()
        prompt_tokens = _tokens(fields.get("prompt"))
        image_tokens = 272 * len(files)
        usage = {"input_tokens": prompt_tokens + image_tokens, "output_tokens": 4160,
                 "total_tokens": prompt_tokens + image_tokens + 4160,
                 "input_tokens_details": {"text_tokens": prompt_tokens, "image_tokens": image_tokens}}
        return JSONResponse({"created": int(time.time()), "data": [{"b64_json": encoded}], "usage": usage})

    def _chat_reply(self, body: dict[str, Any], reply: Reply, fault: Fault | None) -> Response:
        created, model = int(time.time()), body.get("model", "loopback")
        call_id = f"chatcmpl-{next(self._ids)}"
        calls = [{"id": f"call_{next(self._ids)}", "type": "function",
                  "function": {"name": c["name"], "arguments": c["arguments"] if isinstance(c["arguments"], str)
                               else json.dumps(c["arguments"])}} for c in reply.get("calls") or []]
        usage = {"prompt_tokens": _tokens(body.get("messages")) + _tokens(body.get("tools") or []),
                 "completion_tokens": _tokens(reply)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        finish = "tool_calls" if calls else "stop"
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
            if calls:
                message["tool_calls"] = calls
            return JSONResponse({"id": call_id, "object": "chat.completion", "created": created, "model": model,
                                 "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                                 "usage": usage})
        delay = fault.chunk_delay_s if fault is not None else 0.0
        with_usage = bool((body.get("stream_options") or {}).get("include_usage"))

        def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
            return "data: " + json.dumps({"id": call_id, "object": "chat.completion.chunk", "created": created,
                                          "model": model, "choices": [{"index": 0, "delta": delta,
                                                                       "finish_reason": finish_reason}]}) + "\n\n"

        async def events() -> AsyncIterator[str]:
            yield chunk({"role": "assistant", "content": ""})
            text = reply.get("content") or ""
            for start in range(0, len(text), 12):
                await asyncio.sleep(delay)
                yield chunk({"content": text[start:start + 12]})
            for index, call in enumerate(calls):
                await asyncio.sleep(delay)
                yield chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                             "function": {"name": call["function"]["name"], "arguments": ""}}]})
                arguments = call["function"]["arguments"]
                for start in range(0, len(arguments), 16):
                    await asyncio.sleep(delay)
                    yield chunk({"tool_calls": [{"index": index,
                                                 "function": {"arguments": arguments[start:start + 16]}}]})
            yield chunk({}, finish)
            if with_usage:
                yield "data: " + json.dumps({"id": call_id, "object": "chat.completion.chunk", "created": created,
                                             "model": model, "choices": [], "usage": usage}) + "\n\n"
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")


def _clip(job: dict[str, Any]) -> bytes:
    """The job's MP4: its length, its size, moving over its still (or a still drawn from its prompt)."""
    from tools.generate.base import CameraMove, ReferenceInput, ReferenceRole, VideoRequest
    from tools.generate.offline_video import OfflineVideoProvider

    width, height = (int(v) for v in job["size"].split("x"))
    scale = max(1, max(width, height) // 640)  # a provider-shaped clip, small enough to make quickly
    camera = CameraMove.ZOOM if "zoom" in job["prompt"] else CameraMove.PAN if "pan" in job["prompt"] \
        else CameraMove.STATIC
    source = None
    if job["_still"] is not None:
        source = ReferenceInput(node_id="loopback", role=ReferenceRole.SOURCE, path=job["_still"], mime="image/png")
    request = VideoRequest(prompt=job["prompt"][:4000] or "a clip", source=source, camera=camera,
                           duration_s=float(job["seconds"]), fps=12, width=_even(width // scale),
                           height=_even(height // scale))
    return OfflineVideoProvider().generate(request).read_bytes()


def _even(side: int) -> int:
    return max(16, side - side % 2)


async def _multipart(request: Request) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    form = await request.form()
    fields: dict[str, Any] = {}
    files: list[dict[str, Any]] = []
    for key, value in form.multi_items():
        if isinstance(value, UploadFile):
            data = await value.read()
            with Image.open(io.BytesIO(data)) as im:
                size = im.size
            files.append({"field": key, "filename": value.filename, "sha256": hashlib.sha256(data).hexdigest(),
                          "size": size, "data": data})
        else:
            fields[key] = value
    return fields, files


def _public(job: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in job.items() if not k.startswith("_")}
