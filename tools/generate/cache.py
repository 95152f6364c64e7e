"""The signature cache: the same generation asked twice is made once, as ComfyUI does for its nodes.

A signature is the sha256 of canonical JSON over everything that decides the
output: the tool, the provider and model, the request's parameters, the seed
and the hashes of the artifacts it is made from.  Canonical means keys sorted
and no whitespace; **lists keep their order**, because in every request we
have order is content (clips in a cut play in order, characters stand left to
right in reference order, the first palette colour is the sky).  A caller with
a true set sorts it before signing.

Entries live in a SQLite file in the project folder, so a hit survives a
restart and is shared by every process that works on the project.  An entry
only counts while its artifact is still in the artifact store.

Single flight across processes: :meth:`SignatureCache.flight` holds an
``flock`` on a file named by the signature next to the cache file, so two
processes asking for one signature at once pay once; the second waits, then
finds the first one's entry.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from store.artifacts import ArtifactStore
from store.models import ArtifactHandle, utc_now

SIGNATURE_VERSION = 1
"""Bump when the meaning of a signature changes, so old entries stop matching."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS generation_cache (
    signature  TEXT PRIMARY KEY,
    entry_json TEXT NOT NULL,
    sha256     TEXT NOT NULL,
    created_at TEXT NOT NULL
)
"""


def signature(
    tool: str, provider: str, model: str, params: dict[str, Any], seed: int | None, upstream_hashes: list[str]
) -> str:
    """The cache key of one generation: sha256 of the canonical JSON of its inputs (see the module docstring)."""
    payload = {
        "v": SIGNATURE_VERSION,
        "tool": tool,
        "provider": provider,
        "model": model,
        "params": params,
        "seed": seed,
        "upstream": list(upstream_hashes),
    }
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class CacheEntry(BaseModel):
    """What a signature maps to: the artifact and the facts needed to describe it without re-reading it."""

    handle: ArtifactHandle
    tool: str
    provider: str
    model: str
    media: dict[str, Any] = Field(default_factory=dict, description="GeneratedMedia.describe() of the original run.")
    created_at: str = Field(default_factory=utc_now)


class SignatureCache:
    """Signature → :class:`CacheEntry`, kept in a SQLite file that several processes may share."""

    def __init__(self, path: Path, busy_timeout_s: float = 30.0) -> None:
        self.path = Path(path)
        self.busy_timeout_s = busy_timeout_s
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            # WAL lets readers in other processes go on while one process writes.
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(_SCHEMA)

    def get(self, signature: str, artifacts: ArtifactStore) -> CacheEntry | None:
        """The entry for ``signature`` if its artifact still exists in ``artifacts``; a stale entry is dropped."""
        with self._connect() as db:
            row = db.execute("SELECT entry_json FROM generation_cache WHERE signature = ?", (signature,)).fetchone()
        if row is None:
            return None
        entry = CacheEntry.model_validate_json(row[0])
        if artifacts.exists(entry.handle.sha256):
            return entry
        with self._connect() as db:
            # Only this exact stale row: another process may already have put a fresh one.
            db.execute("DELETE FROM generation_cache WHERE signature = ? AND entry_json = ?", (signature, row[0]))
        return None

    def put(self, signature: str, entry: CacheEntry) -> CacheEntry:
        """Record ``entry`` unless another writer got there first; return whichever entry is stored.

        First writer wins, so every process converges on one artifact per signature.
        """
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            db.execute(
                "INSERT OR IGNORE INTO generation_cache (signature, entry_json, sha256, created_at)"
                " VALUES (?, ?, ?, ?)",
                (signature, entry.model_dump_json(), entry.handle.sha256, entry.created_at),
            )
            row = db.execute("SELECT entry_json FROM generation_cache WHERE signature = ?", (signature,)).fetchone()
            db.execute("COMMIT")
        return CacheEntry.model_validate_json(row[0])

    @contextmanager
    def flight(self, signature: str) -> Iterator[None]:
        """Hold the cross-process claim on ``signature``: look up, generate and put inside it.

        The lock file stays (an empty file per signature generated); removing it while another
        process waits on it would let a third one claim a fresh file and generate again.
        """
        folder = self.path.parent / "flights"
        folder.mkdir(exist_ok=True, mode=0o700)
        fd = os.open(folder / f"{signature}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def forget(self, signature: str) -> bool:
        """Drop one entry (e.g. a person rejected the result and wants a fresh take); whether it existed."""
        with self._connect() as db:
            return db.execute("DELETE FROM generation_cache WHERE signature = ?", (signature,)).rowcount > 0

    def __len__(self) -> int:
        with self._connect() as db:
            return int(db.execute("SELECT COUNT(*) FROM generation_cache").fetchone()[0])

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        # A connection per operation: sqlite3 connections must not cross threads,
        # and the service is called from many.  Autocommit; put() opens its own
        # transaction.
        db = sqlite3.connect(self.path, timeout=self.busy_timeout_s, isolation_level=None)
        try:
            yield db
        finally:
            db.close()
