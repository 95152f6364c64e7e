"""One project's canvas in its own database on an engine that another owner started and stops.

A process that opens many projects (a test session, a server hosting several canvases of one person) need not
start one engine per project: each project gets a database of its own on the one engine, with its own commit
lock and query slots in the project's folder, and closing the project leaves the engine running for the others.

What the projects share is the engine's accounts: its read-only account can read every database on it.  So no
outside tool is handed that account for a hosted project (``jarvishub.integrations.access`` refuses), and the
bridge, which writes through the host's own account, is the only writer of each project's database, as always.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from store.engine import Engine
from store.locks import ProjectLocks
from store.private_files import read_private, write_private

HOSTED_FILE = "hosted.json"
"""Left in the project's engine folder by a hosted open: the canvas is not in this folder's own engine."""


class CanvasHostedElsewhere(ValueError):
    """The folder's canvas is a database on another process's engine; opening the folder's own engine would show
    an empty canvas and let the person think their work is gone."""


def refuse_if_hosted(engine_dir: Path) -> None:
    """Raise :class:`CanvasHostedElsewhere` when a hosted open left its record in ``engine_dir``."""
    record = Path(engine_dir) / HOSTED_FILE
    if record.exists() or record.is_symlink():
        try:
            where = json.loads(read_private(record))  # refuses a planted link; the refusal stands either way
        except (OSError, ValueError):
            where = {}
        raise CanvasHostedElsewhere(
            f"the canvas of {Path(engine_dir).parent.parent} is database {where.get('database', '?')} on the engine "
            f"at {where.get('uri', '?')}, which the process that hosts it opens (Project.open(host=...)); this "
            f"folder's own engine would show an empty canvas, so it is not started")


def hosted_database_name(project_root: Path) -> str:
    """A database name for a project folder, the same each time it is opened on the same engine."""
    return "p" + hashlib.sha256(str(Path(project_root).resolve()).encode()).hexdigest()[:20]


class HostedDatabase(Engine):
    """A project's database on ``host``: the host's drivers, profile and limits; the project's locks."""

    def __init__(self, host: Engine, database: str, state_dir: Path) -> None:
        self.host = host
        self.profile = host.profile
        self.driver = host.driver
        self.reader_driver = host.reader_driver
        self.user_queries = host.user_queries
        self.reader_enforced_over_bolt = host.reader_enforced_over_bolt
        self.limits = host.limits
        self.locks = ProjectLocks(state_dir, query_slots=host.limits.query_slots,
                                  agent_query_slots=host.limits.agent_query_slots)
        self.default_database = database
        self._uri = host.uri
        write_private(Path(state_dir) / HOSTED_FILE, json.dumps({"database": database, "uri": host.uri}).encode())

    def ensure_database(self, database: str) -> None:
        self.host.ensure_database(database)

    def drop_database(self, database: str) -> None:
        self.host.drop_database(database)

    def close(self) -> None:
        """Nothing of the host closes: its owner stops it when every project on it is done."""

    def stop(self, *, wait: bool = True) -> None:
        """The host is not this project's to stop (as a Neo4j server is not)."""
