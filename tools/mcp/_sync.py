"""Run MCP's async client from the bridge's sync code, whether or not an event loop is already running."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run the coroutine ``make()`` to completion and return its result.

    Without a running loop in this thread it gets a fresh one here.  Inside a
    running loop (a sync tool called from async code) ``asyncio.run`` would
    refuse, so the coroutine gets a fresh loop in a worker thread and this
    thread waits for it; that blocks the calling loop for the call's duration,
    which is what a sync API means.  ``make`` is a factory so the coroutine is
    created in the thread that runs it.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-call") as pool:
        return pool.submit(lambda: asyncio.run(make())).result()
