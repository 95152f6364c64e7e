"""Durable trajectories: one row per step and one per finished turn, in the project's SQLite file.

A turn's tuple is (request, canvas-before, manifest, grant, actions, observations,
feedback, repair, canvas-after).  Steps are appended as they happen, so a
crashed turn still has the steps it took; a resumed step replaces its own row
instead of adding a second one.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from store.models import utc_now
from store.sqlite_files import SqliteFile


class TrajectoryStore:
    """Turns and their steps, keyed by thread and turn."""

    def __init__(self, path: Path) -> None:
        self._path = Path(path)
        self._path.parent.mkdir(parents=True, exist_ok=True)
        self._file = SqliteFile(self._path)
        self._manifest: tuple[BaseModel, str, str] | None = None  # the object, its hash, its JSON
        with self._file.transaction() as db:
            db.executescript(
                """
                CREATE TABLE IF NOT EXISTS steps (
                    thread_id TEXT, turn_id TEXT, step INTEGER, body TEXT, at TEXT,
                    PRIMARY KEY (thread_id, turn_id, step));
                CREATE TABLE IF NOT EXISTS turns (
                    thread_id TEXT, turn_id TEXT PRIMARY KEY, seq INTEGER, body TEXT, at TEXT);
                CREATE TABLE IF NOT EXISTS starts (
                    thread_id TEXT, turn_id TEXT PRIMARY KEY, body TEXT, at TEXT);
                -- A turn's manifest (~90 KB, the same for every turn of a runtime) is stored once, by its hash;
                -- the turn's tuple names it (manifest_sha256) and turns() puts it back.
                CREATE TABLE IF NOT EXISTS manifests (sha256 TEXT PRIMARY KEY, body TEXT);
                -- The last turns, read before every turn and model call: without these, SQLite sorted every
                -- turn's row, reading each tuple's ~90 KB (its manifest) to find the newest.
                CREATE INDEX IF NOT EXISTS turns_by_seq ON turns (seq);
                CREATE INDEX IF NOT EXISTS turns_by_thread ON turns (thread_id, seq);
                CREATE INDEX IF NOT EXISTS starts_by_thread ON starts (thread_id, at);
                """
            )

    def close(self) -> None:
        """Close the file's connection (a later call opens it again)."""
        self._file.close()

    def record_step(self, thread_id: str, turn_id: str, step: int, body: dict[str, Any]) -> None:
        """Store one step (idempotent per (thread, turn, step))."""
        with self._file.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO steps VALUES (?, ?, ?, ?, ?)",
                (thread_id, turn_id, step, json.dumps(body, default=str), utc_now()),
            )

    def record_turn(self, thread_id: str, turn_id: str, body: dict[str, Any], *,
                    manifest: BaseModel | None = None) -> None:
        """Store a finished turn's tuple (idempotent per turn); ``manifest``: the tuple's manifest, stored once
        by its hash (it does not change while a runtime lives, and at about 90 KB in every row it made the
        file grow by that much a turn) and named in the tuple as ``manifest_sha256``; :meth:`turns` gives
        it back under ``manifest``."""
        if manifest is not None:
            digest, text = self._manifest_json(manifest)
            body = {"manifest_sha256": digest, **body}
        with self._file.transaction() as db:
            if manifest is not None:
                db.execute("INSERT OR IGNORE INTO manifests VALUES (?, ?)", (digest, text))
            seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM turns").fetchone()[0]
            existing = db.execute("SELECT seq FROM turns WHERE turn_id = ?", (turn_id,)).fetchone()
            db.execute(
                "INSERT OR REPLACE INTO turns VALUES (?, ?, ?, ?, ?)",
                (thread_id, turn_id, existing[0] if existing else seq, json.dumps(body, default=str), utc_now()),
            )

    def _manifest_json(self, manifest: BaseModel) -> tuple[str, str]:
        cached = self._manifest
        if cached is None or cached[0] is not manifest:
            text = json.dumps(manifest.model_dump(mode="json"), default=str)
            cached = self._manifest = (manifest, hashlib.sha256(text.encode()).hexdigest(), text)
        return cached[1], cached[2]

    def record_start(self, thread_id: str, turn_id: str, initial_state: dict[str, Any]) -> None:
        """Remember how a turn began, so a crash before its first checkpoint can still be resumed."""
        with self._file.transaction() as db:
            db.execute("INSERT OR REPLACE INTO starts VALUES (?, ?, ?, ?)",
                       (thread_id, turn_id, json.dumps(initial_state, default=str), utc_now()))

    def last_start(self, thread_id: str) -> dict[str, Any] | None:
        """The initial state of the latest turn started on a thread."""
        with self._file.transaction() as db:
            row = db.execute("SELECT body FROM starts WHERE thread_id = ? ORDER BY at DESC LIMIT 1",
                             (thread_id,)).fetchone()
        return json.loads(row[0]) if row else None

    def started_at(self, turn_id: str) -> str | None:
        """When a turn was started (its ``starts`` row), or None for a turn never recorded as started."""
        with self._file.transaction() as db:
            row = db.execute("SELECT at FROM starts WHERE turn_id = ?", (turn_id,)).fetchone()
        return row[0] if row else None

    def started_turns(self, thread_id: str) -> list[str]:
        """Ids of every turn started on a thread (finished, paused or crashed), oldest first."""
        with self._file.transaction() as db:
            rows = db.execute("SELECT turn_id FROM starts WHERE thread_id = ? ORDER BY at, rowid",
                              (thread_id,)).fetchall()
        return [r[0] for r in rows]

    def unfinished(self) -> list[dict[str, Any]]:
        """Turns that started and have no finished tuple (crashed, or paused for a person), oldest first."""
        with self._file.transaction() as db:
            rows = db.execute(
                "SELECT s.thread_id, s.turn_id, s.body, s.at FROM starts s "
                "LEFT JOIN turns t ON t.turn_id = s.turn_id WHERE t.turn_id IS NULL ORDER BY s.at"
            ).fetchall()
        return [{"thread_id": thread, "turn_id": turn, "request": json.loads(body).get("request", ""),
                 "started_at": at} for thread, turn, body, at in rows]

    def steps(self, thread_id: str, turn_id: str) -> list[dict[str, Any]]:
        """The steps of one turn, in order."""
        with self._file.transaction() as db:
            rows = db.execute(
                "SELECT body FROM steps WHERE thread_id = ? AND turn_id = ? ORDER BY step", (thread_id, turn_id)
            ).fetchall()
        return [json.loads(r[0]) for r in rows]

    def turns(self, thread_id: str | None = None) -> list[dict[str, Any]]:
        """Finished turns, oldest first, each with its steps and its manifest."""
        with self._file.transaction() as db:
            if thread_id:
                rows = db.execute(
                    "SELECT thread_id, turn_id, body FROM turns WHERE thread_id = ? ORDER BY seq", (thread_id,)
                ).fetchall()
            else:
                rows = db.execute("SELECT thread_id, turn_id, body FROM turns ORDER BY seq").fetchall()
            manifests: dict[str, Any] = {}
            turns = []
            for thread, turn, body in rows:
                tuple_ = json.loads(body)
                digest = tuple_.pop("manifest_sha256", None)
                if digest is not None:  # a row written before manifests were stored apart holds its own
                    if digest not in manifests:
                        found = db.execute("SELECT body FROM manifests WHERE sha256 = ?", (digest,)).fetchone()
                        manifests[digest] = json.loads(found[0]) if found else {}
                    tuple_ = {"manifest": manifests[digest], **tuple_}
                turns.append((thread, turn, tuple_))
        return [{**tuple_, "steps": self.steps(thread, turn)} for thread, turn, tuple_ in turns]

    def last_turn(self, thread_id: str | None = None) -> dict[str, Any] | None:
        """The latest finished turn (of a thread, or of the project), without its steps and its manifest (read at
        the start of every turn: SQLite drops the manifest, most of the tuple's bytes, before Python parses it)."""
        with self._file.transaction() as db:
            row = (db.execute("SELECT json_remove(body, '$.manifest', '$.manifest_sha256') FROM turns "
                              "WHERE thread_id = ? ORDER BY seq DESC LIMIT 1", (thread_id,))
                   if thread_id else db.execute("SELECT json_remove(body, '$.manifest', '$.manifest_sha256') "
                                                "FROM turns ORDER BY seq DESC LIMIT 1")).fetchone()
        return json.loads(row[0]) if row else None

    def recent_turns(self, thread_id: str, limit: int, *, besides: str | None = None) -> list[dict[str, Any]]:
        """The last ``limit`` finished turns of a thread (other than ``besides``), oldest first, each as its
        ``turn_id``, ``request``, ``outcome``, ``reply`` and ``touched_ids`` only: what a model call's view
        summarises, read before every model call, so neither the steps nor the rest of the tuple is read."""
        with self._file.transaction() as db:
            rows = db.execute(
                "SELECT turn_id, json_extract(body, '$.request'), json_extract(body, '$.outcome'), "
                "json_extract(body, '$.reply'), json_extract(body, '$.touched_ids') FROM turns "
                "WHERE thread_id = ? AND turn_id IS NOT ? ORDER BY seq DESC LIMIT ?",
                (thread_id, besides, int(limit))).fetchall()
        return [{"turn_id": turn, "request": request, "outcome": outcome, "reply": reply,
                 "touched_ids": json.loads(touched) if touched else []}
                for turn, request, outcome, reply, touched in reversed(rows)]

    def threads(self) -> list[str]:
        """Every thread with a finished turn."""
        with self._file.transaction() as db:
            return [r[0] for r in db.execute("SELECT DISTINCT thread_id FROM turns ORDER BY seq")]
