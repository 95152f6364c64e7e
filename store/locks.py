"""Cross-process locks of one project: commits one at a time, queries within budgets (people's, the agent's).

Both are ``flock`` locks on files in the project's engine folder, so they hold
across every process of the project and vanish with a process that dies.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from store.errors import QueryBusy
from store.private_files import open_private


@contextlib.contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created 0600 if missing, never through a symlink) for the block."""
    fd = open_private(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


QueryBudget = Literal["user", "agent"]
"""Whose queries a slot is for: people's ad-hoc Cypher (``jarvishub query``, the web's ``/api/query``), or the
agent's own reads (the ``query_canvas`` tool).  Each has slots of its own, so neither starves the other."""

AGENT_QUERY_WAIT_S = 120.0
"""How long an agent's read waits in line for a slot: it queues (a turn must not fail because other turns are
reading), and gives up only when the engine has been stuck far past any statement timeout."""


class ProjectLocks:
    """The commit lock and the query slots (people's and the agent's) of one project folder."""

    def __init__(self, folder: Path, *, query_slots: int = 2, agent_query_slots: int = 2) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.query_slots = query_slots
        self.agent_query_slots = max(1, agent_query_slots)

    @contextlib.contextmanager
    def commit(self) -> Iterator[None]:
        """Serialise commit transactions across processes: every commit bumps one counter, so they would only
        conflict and retry (and, under load, run out of retries)."""
        with exclusive(self.folder / "commit.lock"):
            yield

    @contextlib.contextmanager
    def query_slot(self, wait_s: float | None = None, budget: QueryBudget = "user") -> Iterator[int]:
        """Take one of the project's query slots of ``budget``, or raise :class:`QueryBusy` if none frees up in
        ``wait_s`` (people: 0.5 s; the agent: :data:`AGENT_QUERY_WAIT_S`).

        A person's query waits only briefly: a slot held by a slow query is not given back within it, so the
        caller hears "busy" at once and may try again.  The agent's reads queue behind each other instead:
        a turn does not fail because other turns of the project are reading.
        """
        wait_s = (0.5 if budget == "user" else AGENT_QUERY_WAIT_S) if wait_s is None else wait_s
        deadline = time.monotonic() + wait_s
        pause = 0.005
        while True:
            fd = self._try_slots(budget)
            if fd is not None or time.monotonic() >= deadline:
                break
            time.sleep(pause)
            pause = min(0.05, pause * 2)
        if fd is not None:
            try:
                yield fd
            finally:
                os.close(fd)
            return
        if budget == "agent":
            raise QueryBusy(f"the agent's {self.agent_query_slots} query slots stayed taken for {wait_s:g} s; "
                            "the engine may be stuck: try the turn again")
        raise QueryBusy(
            f"{self.query_slots} user queries are already running on this project (the budget that keeps the "
            "engine free for commits); wait for one to finish or narrow the query, then try again"
        )

    def _try_slots(self, budget: QueryBudget = "user") -> int | None:
        count, prefix = ((self.query_slots, "query-slot") if budget == "user"
                         else (self.agent_query_slots, "agent-query-slot"))
        for slot in range(count):
            fd = open_private(self.folder / f"{prefix}-{slot}.lock")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return fd
        return None
