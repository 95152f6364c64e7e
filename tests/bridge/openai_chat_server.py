"""A local HTTP server that speaks the OpenAI chat-completions API and answers from a script."""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any

import uvicorn
from fastapi import FastAPI, Request


class ScriptedChatServer:
    """Serves /v1/chat/completions on 127.0.0.1; each request pops the next scripted reply."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        app = FastAPI()

        @app.post("/v1/chat/completions")
        async def completions(request: Request) -> dict[str, Any]:
            body = await request.json()
            self.requests.append(body)
            reply = self.replies.pop(0) if self.replies else {"content": "done"}
            message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
            if "tool" in reply:
                arguments = reply["arguments"] if isinstance(reply["arguments"], str) else json.dumps(reply["arguments"])
                message["tool_calls"] = [{"id": f"call_{len(self.requests)}", "type": "function",
                                          "function": {"name": reply["tool"], "arguments": arguments}}]
            return {"id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": int(time.time()),
                    "model": body.get("model", "test"), "choices": [{"index": 0, "message": message,
                    "finish_reason": "tool_calls" if "tool" in reply else "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self._server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    @property
    def base_url(self) -> str:
        """The OpenAI base URL of this server."""
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> ScriptedChatServer:
        self._thread.start()
        while not self._server.started:
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)
