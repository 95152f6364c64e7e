"""ArcadeDB's security files, written before the server starts.

The server reads ``config/server-users.jsonl`` (users with PBKDF2 password
hashes) and ``config/server-groups.json`` (what each group may do per database)
at start.  Writing them ourselves means no password is ever passed on the java
command line or in its environment, and the read-only account exists before
the first query (DESIGN.md §4).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from pathlib import Path

from store.private_files import write_private

ROOT_USER = "root"
READER_USER = "jarvishub_reader"
READER_GROUP = "jarvishub_reader"
_ALGORITHM = "PBKDF2WithHmacSHA256"
_ITERATIONS = 65536


def hash_password(password: str, *, iterations: int = _ITERATIONS) -> str:
    """ArcadeDB's stored form: ``ALGORITHM$ITERATIONS$SALT$HASH``, the salt's base64 text being the PBKDF2 salt."""
    salt = base64.b64encode(secrets.token_bytes(32)).decode()
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), iterations, 32)
    return f"{_ALGORITHM}${iterations}${salt}${base64.b64encode(digest).decode()}"


def _write_private(path: Path, text: str) -> None:
    # O_EXCL | O_NOFOLLOW under a random name, then a rename: never written through a planted link.
    write_private(path, text.encode())


def write_security_files(
    config_dir: Path, *, root_password: str, reader_password: str, reader_row_limit: int, reader_timeout_ms: int
) -> None:
    """Write the users and groups files (0600): root is admin; the reader may read records and nothing else.

    The reader's group has no ``updateSchema``/``updateSecurity``/``updateDatabaseSettings`` and only
    ``readRecord`` on every type, so ArcadeDB refuses its writes, its DDL (which is not transactional and
    would survive a rollback) and its ``LOAD CSV`` of local files (gated on ``updateSecurity``).
    """
    config_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    users = [
        {"name": ROOT_USER, "password": hash_password(root_password), "databases": {"*": ["admin"]}},
        {"name": READER_USER, "password": hash_password(reader_password), "databases": {"*": [READER_GROUP]}},
    ]
    _write_private(config_dir / "server-users.jsonl", "".join(json.dumps(user) + "\n" for user in users))
    groups = {
        "databases": {
            "*": {
                "groups": {
                    "admin": {
                        "access": ["updateSecurity", "updateSchema", "updateDatabaseSettings"],
                        "resultSetLimit": -1,
                        "readTimeout": -1,
                        "types": {"*": {"access": ["createRecord", "readRecord", "updateRecord", "deleteRecord"]}},
                    },
                    READER_GROUP: {
                        "access": [],
                        "resultSetLimit": reader_row_limit,
                        "readTimeout": reader_timeout_ms,
                        "types": {"*": {"access": ["readRecord"]}},
                    },
                    "*": {"access": [], "resultSetLimit": -1, "readTimeout": -1, "types": {"*": {"access": []}}},
                }
            }
        },
        "version": 2,
    }
    _write_private(config_dir / "server-groups.json", json.dumps(groups, indent=2))
