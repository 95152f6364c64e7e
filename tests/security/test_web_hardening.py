"""The web canvas over real HTTP on loopback: queries need the token, bodies are capped, hosts compared exactly."""

from __future__ import annotations

import secrets
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from jarvishub.runtime import Runtime
from jarvishub.web import BackgroundServer, create_app
from jarvishub.web.guards import MAX_BODY_BYTES, WeakToken, check_remote_token, is_loopback, parse_host
from jarvishub.web.server import serve
from tests.security.canvas_state import fingerprint, seeded_runtime

TOKEN = secrets.token_urlsafe(32)
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def runtime(project) -> Iterator[Runtime]:
    yield from seeded_runtime(project)


@pytest.fixture(scope="module")
def server(runtime) -> Iterator[BackgroundServer]:
    with BackgroundServer(create_app(runtime, TOKEN, person="tester", watch=False)) as running:
        yield running


@pytest.fixture
def client(server) -> Iterator[httpx.Client]:
    """A client that reads as the page does: with the session cookie the token buys (writes send the header)."""
    with httpx.Client(base_url=server.base_url, timeout=30) as c:
        assert c.post("/api/session", headers=AUTH).status_code == 204
        yield c


def test_queries_need_the_token(client) -> None:
    body = {"cypher": "MATCH (n:CanvasNode) RETURN n.id AS id"}
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        refused = client.post("/api/query", json=body, headers=headers)
        assert refused.status_code == 401, refused.text
        assert "rows" not in refused.text
    ok = client.post("/api/query", json=body, headers=AUTH)
    assert ok.status_code == 200 and ok.json()["rows"]


def test_a_declared_oversized_body_is_refused_before_it_is_read(client, runtime) -> None:
    before = fingerprint(runtime.project.store)
    text = "note: " + "x" * (MAX_BODY_BYTES + 10)
    response = client.post("/api/requests", json={"text": text, "node_ids": []}, headers=AUTH)
    assert response.status_code == 413
    assert client.post("/api/query", json={"cypher": "RETURN '" + "y" * MAX_BODY_BYTES + "' AS y"},
                       headers=AUTH).status_code == 413
    assert fingerprint(runtime.project.store) == before
    assert client.get("/api/info").status_code == 200  # the server is still there


def test_a_chunked_body_is_cut_off_at_the_limit(server, runtime) -> None:
    before = fingerprint(runtime.project.store)
    status = _post_chunked(server, "/api/requests", chunk=b"x" * 65536, total=3 * MAX_BODY_BYTES)
    assert status == 413
    assert fingerprint(runtime.project.store) == before


def test_a_small_chunked_body_still_works(server) -> None:
    assert _post_chunked(server, "/api/query", chunk=b'{"cypher": "RETURN 1 AS one"}', total=29) == 200


def _post_chunked(server: BackgroundServer, path: str, *, chunk: bytes, total: int) -> int:
    """POST ``total`` bytes as chunks with no Content-Length; the HTTP status the server answers."""
    with socket.create_connection((server.host, server.port), timeout=30) as sock:
        sock.sendall((f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nAuthorization: Bearer {TOKEN}\r\n"
                      "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").encode())
        sent = 0
        try:
            while sent < total:
                piece = chunk[: total - sent]
                sock.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                sent += len(piece)
            sock.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed while we were still sending
        answer = b""
        while b"\r\n" not in answer:
            data = sock.recv(4096)
            if not data:
                break
            answer += data
    return int(answer.split(b" ", 2)[1])


@pytest.mark.parametrize("host, allowed", [
    ("127.0.0.1", True), ("127.0.0.1:8080", True), ("localhost:1234", True), ("LOCALHOST:1234", True),
    ("[::1]:80", True), ("[::1]", True),
    ("attacker.example", False), ("localhost.attacker.example", False), ("127.0.0.1.nip.io", False),
    ("localhost:80@attacker.example", False), ("localhost:1234:80", False), ("localhost:abc", False),
    ("localhost/evil", False), ("local host", False), ("", False), ("[::1", False), ("[::1]x", False),
    ("[::1]:80:80", False),
])
def test_the_host_header_is_compared_exactly(client, host: str, allowed: bool) -> None:
    response = client.get("/api/info", headers={"Host": host})
    assert (response.status_code == 200) is allowed, (host, response.status_code)


def test_parse_host_returns_the_exact_host() -> None:
    assert parse_host("Example.ORG:443") == "example.org"
    assert parse_host("[::1]:80") == "::1"
    assert parse_host("localhost:80@attacker.example") is None


def test_loopback_means_a_loopback_address_not_a_name_that_looks_like_one() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("127.3.4.5") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("127.attacker.example") and not is_loopback("0.0.0.0")


def test_tokens_for_remote_binds_have_at_least_128_bits(tmp_path: Any) -> None:
    check_remote_token(secrets.token_urlsafe(16))  # 22 characters of base64url: 132 bits
    check_remote_token(secrets.token_hex(16))  # 32 hex digits: 128 bits
    for weak in ("remote-token", "0123456789" * 3, secrets.token_hex(15), "a" * 21):
        with pytest.raises(WeakToken, match="128 bits"):
            check_remote_token(weak)
    # serve refuses before opening the project or binding anything.
    with pytest.raises(WeakToken):
        serve(tmp_path / "nowhere", host="0.0.0.0", port=0, token="short-token", allow_remote=True)
    with pytest.raises(ValueError, match="allow_remote"):
        serve(tmp_path / "nowhere", host="127.attacker.example", port=0, token=TOKEN)
    assert not (tmp_path / "nowhere").exists()
