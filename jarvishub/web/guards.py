"""HTTP guards of the web canvas: the Host header, the size of request bodies, and the strength of tokens.

Each is enforced before a route runs (ASGI middleware) or before the server
binds (token strength), so no route can forget it.
"""

from __future__ import annotations

import ipaddress
import math
import re
from typing import Any

from fastapi.responses import PlainTextResponse

MAX_BODY_BYTES = 1024 * 1024
"""The largest request body the canvas reads (a request text, a query, a move): 1 MiB."""
MIN_REMOTE_TOKEN_BITS = 128
"""A server reachable from other machines needs a token at least this hard to guess."""
_NAME = re.compile(r"^[a-z0-9](?:[a-z0-9.\-]{0,251}[a-z0-9])?$")
_PORT = re.compile(r"^[0-9]{1,5}$")


class WeakToken(ValueError):
    """A token too short or too plain for a server reachable from other machines."""


def is_loopback(host: str) -> bool:
    """Whether a bind address is only reachable from this machine (``localhost`` or a loopback IP, exactly)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name like 127.attacker.example resolves wherever its owner wants


def parse_host(header: str) -> str | None:
    """The host of a ``Host`` header (lower case, IPv6 without brackets), or None when it is malformed.

    Only ``name``, ``name:port``, ``[v6]`` and ``[v6]:port`` are accepted: anything else (user info, a
    path, two ports, spaces) is refused rather than guessed at, so the comparison with the allowed hosts
    is exact.
    """
    if header.startswith("["):
        end = header.find("]")
        if end < 0:
            return None
        name, rest = header[1:end], header[end + 1:]
        try:
            ipaddress.IPv6Address(name)
        except ValueError:
            return None
    else:
        name, _, port = header.partition(":")
        rest = f":{port}" if _ else ""
        name = name.lower()
        if not _NAME.match(name):
            return None
    if rest and not (rest.startswith(":") and _PORT.match(rest[1:])):
        return None
    return name.lower()


def token_bits(token: str) -> float:
    """An upper estimate of a token's entropy: its length times the bits of the smallest alphabet it fits."""
    if not token:
        return 0.0
    for alphabet in ("0123456789", "0123456789abcdef", "0123456789ABCDEF",
                     "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"):
        if all(c in alphabet for c in token):
            return len(token) * math.log2(len(alphabet))
    return len(token) * math.log2(94)


def check_remote_token(token: str) -> None:
    """Raise :class:`WeakToken` unless ``token`` has at least :data:`MIN_REMOTE_TOKEN_BITS` bits."""
    bits = token_bits(token)
    if bits < MIN_REMOTE_TOKEN_BITS:
        raise WeakToken(
            f"a token for a server reachable from other machines needs at least {MIN_REMOTE_TOKEN_BITS} bits; "
            f"this one has at most {bits:.0f}. Make one with: python -c \"import secrets; "
            "print(secrets.token_urlsafe(32))\"")


class HostGuard:
    """Refuse requests whose Host header is not exactly one of ours (a DNS-rebinding page would name its own)."""

    def __init__(self, app: Any, hosts: frozenset[str]) -> None:
        self.app = app
        self.hosts = frozenset(h.lower() for h in hosts)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            raw = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
            if parse_host(raw) not in self.hosts:
                await PlainTextResponse("unexpected Host header", status_code=400)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413, before the app reads them.

    A declared ``Content-Length`` over the limit is refused at once.  A body sent
    without one (chunked) is counted as it arrives; past the limit the client gets
    413 and the app sees a disconnect, so it never holds more than the limit.
    """

    def __init__(self, app: Any, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._refuse(scope, receive, send)
            return
        received = 0
        refused = False
        started = False

        async def counted_receive() -> dict[str, Any]:
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    refused = True
                    if not started:
                        await self._refuse(scope, receive, send)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: dict[str, Any]) -> None:
            nonlocal started
            if refused:
                return  # the 413 went out; whatever the app says after the disconnect is dropped
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        await self.app(scope, counted_receive, guarded_send)

    async def _refuse(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        response = PlainTextResponse(f"request body over {self.limit} bytes", status_code=413)
        await response(scope, receive, send)
