"""A real MCP server for the MCP loader tests, written with the ``mcp`` SDK's FastMCP.

It exists so the tests exercise the same wire protocol a user's server speaks:
text and structured results, image content, tool annotations, a tool error,
progress reports and a richer argument schema.  Run it over stdio (the
default) or over streamable HTTP on loopback::

    python tests/mcp/server_fixture.py
    python tests/mcp/server_fixture.py --http 8765
"""

from __future__ import annotations

import argparse
import asyncio
import struct
import zlib
from typing import Literal

from mcp.server.fastmcp import Context, FastMCP, Image
from mcp.types import ToolAnnotations

PALETTES: dict[str, list[str]] = {
    "calm": ["#a8dadc", "#457b9d", "#1d3557"],
    "warm": ["#e63946", "#f4a261", "#e9c46a"],
}

server = FastMCP("jarvishub-fixture", log_level="WARNING")


@server.tool()
def word_count(text: str) -> int:
    """Count the whitespace-separated words in a text."""
    return len(text.split())


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def palette_for(mood: str) -> list[str]:
    """A three-colour palette (hex strings) for a mood: calm or warm."""
    if mood not in PALETTES:
        raise ValueError(f"no palette for mood {mood!r}; known moods: {sorted(PALETTES)}")
    return PALETTES[mood]


@server.tool()
def make_swatch(color: str) -> Image:
    """An 8x8 PNG filled with one colour given as #rrggbb."""
    return Image(data=solid_png(color), format="png")


@server.tool(annotations=ToolAnnotations(destructiveHint=True))
def fail() -> str:
    """Always fails, so callers can see how a tool error reaches them."""
    raise RuntimeError("the fixture failed on purpose")


@server.tool()
async def slow(seconds: float, ctx: Context) -> str:
    """Report progress, then wait; exists to test progress forwarding and call timeouts."""
    await ctx.report_progress(0.5, 1.0, "halfway")
    await asyncio.sleep(seconds)
    return "done"


@server.tool()
def arrange(
    items: list[str],
    columns: int = 3,
    gap: float = 8.0,
    mode: Literal["grid", "row"] = "grid",
    labels: dict[str, str] | None = None,
    snap: bool = False,
) -> dict[str, object]:
    """Lay out items on a grid; exists to exercise every JSON-schema type in arguments."""
    cols = 1 if mode == "row" else columns
    return {
        "cells": [[i // cols, i % cols] for i in range(len(items))],
        "gap": gap,
        "labels": labels or {},
        "snap": snap,
    }


def solid_png(color: str, size: int = 8) -> bytes:
    """A size x size RGB PNG of one colour, built by hand so the fixture needs no imaging library."""
    if len(color) != 7 or not color.startswith("#"):
        raise ValueError(f"colour must look like #rrggbb, got {color!r}")
    rgb = bytes.fromhex(color[1:])
    raw = b"".join(b"\x00" + rgb * size for _ in range(size))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def main() -> None:
    """Serve over stdio, or over streamable HTTP on 127.0.0.1 with ``--http PORT``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT")
    options = parser.parse_args()
    if options.http is None:
        server.run("stdio")
        return
    server.settings.host = "127.0.0.1"
    server.settings.port = options.http
    server.run("streamable-http")


if __name__ == "__main__":
    main()
