"""The read-only account: what the engine refuses it, what the engine cannot, and why model text never gets there.

#23 found the reader able to ``LOCK TYPE``, run ``CHECK DATABASE FIX`` and write to the redis key space.  ArcadeDB's
group permissions (``store/arcadedb_security.py``) name record access per type and three database-wide rights
(schema, security, settings); none of those three statements checks any of them (``LockStatement``,
``CheckDatabaseStatement``, the redis query engine), so no group file can refuse them.  What holds instead:

* model-written text reaches the engine only as Cypher (Bolt, or the cluster's HTTP *query* endpoint with the
  language fixed to ``cypher``): none of the three is a Cypher statement, so each is refused, with the lexical
  check switched off, and leaves no lock and no key behind;
* the reader's password is the only key to the HTTP command endpoint where they run, and it lives in
  ``.jarvishub/engine/engine.json`` (0600) and in the environment of outside tools a person starts
  (docs/grants.md, "What is not enforced").

The last test pins the engine's behaviour: when an ArcadeDB release starts refusing one of them, it fails, and
docs/grants.md should say the engine refuses it.
"""

from __future__ import annotations

import base64
import json
import time
import urllib.error
import urllib.request
import uuid
from typing import Any

import pytest

import store.bolt.user_queries as store_module  # where query() looks up check_read_only
from store.errors import CypherError
from store.mutations import CreateNode

def statements(key: str) -> dict[str, tuple[str, str]]:
    """The three statements, the redis one writing ``key`` (each test its own: the key space is the server's)."""
    return {"lock": ("sql", "LOCK TYPE CanvasNode"), "check and fix": ("sql", "CHECK DATABASE FIX"),
            "redis write": ("redis", f"SET {key} 1")}


def _http(engine: Any, user: str, password: str, database: str, language: str, command: str,
          endpoint: str = "command") -> tuple[int, dict[str, Any]]:
    port = engine._info["http_port"]
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/v1/{endpoint}/{database}", method="POST",
        data=json.dumps({"language": language, "command": command}).encode(),
        headers={"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode(),
                 "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


@pytest.fixture
def arcadedb(engine):
    if engine.profile.name != "arcadedb":
        pytest.skip("the embedded engine's reader account and HTTP API")
    return engine


def test_model_written_statements_of_other_languages_never_run(arcadedb, canvas, write, monkeypatch):
    monkeypatch.setattr(store_module, "check_read_only", lambda cypher: None)  # only the engine stands
    key = f"jarvishub_model_{uuid.uuid4().hex}"
    for name, (_, statement) in statements(key).items():
        with pytest.raises(CypherError):
            canvas.query(statement)
    # No lock stayed behind: a commit goes through at once.  No key was written.
    started = time.monotonic()
    write(CreateNode(kind="text", title="after the attempts"))
    assert time.monotonic() - started < 5
    status, body = _http(arcadedb, "root", arcadedb._info["password"], canvas.database, "redis", f"GET {key}",
                         endpoint="query")
    assert status == 200 and [r.get("value") for r in body.get("result") or []] in ([], [None]), body


def test_the_reader_is_refused_records_and_schema(arcadedb, canvas):
    reader = ("jarvishub_reader", arcadedb._info["reader_password"])
    for command in ("INSERT INTO CanvasMeta SET key = 'x'", "CREATE VERTEX TYPE Evil", "DROP TYPE Commit UNSAFE",
                    "ALTER DATABASE `arcadedb.dateFormat` 'yyyy'"):
        status, body = _http(arcadedb, *reader, canvas.database, "sql", command)
        assert status == 403 and "SecurityException" in str(body.get("exception")), (command, status, body)


def test_known_limit_the_engine_lets_the_reader_lock_check_and_write_redis_over_http(arcadedb, canvas):
    """Not a guarantee but its absence, pinned: see the module docstring and docs/grants.md."""
    reader = ("jarvishub_reader", arcadedb._info["reader_password"])
    attempts = statements(f"jarvishub_reader_{uuid.uuid4().hex}")
    answered = {name: _http(arcadedb, *reader, canvas.database, language, command)[0]
                for name, (language, command) in attempts.items()}
    assert answered == {name: 200 for name in attempts}, answered
    # The idempotent query endpoint refuses all three (a parser's check, not a permission).
    for name, (language, command) in attempts.items():
        assert _http(arcadedb, *reader, canvas.database, language, command, endpoint="query")[0] == 400, name
