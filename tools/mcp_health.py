"""Which of a project's MCP servers are unavailable, and why, readable without loading the MCP stack.

A server that cannot be started, reached or listed disables its own tools only (the rest of the manifest
and every other server stay); the runtime that found it records the reason in
``.jarvishub/mcp-unavailable.json``, and ``status``, ``tools`` and ``run`` show one line per such server.
``status`` must not start servers or import the MCP client (it loads no agent stack), so it adds only what
it can see for itself: a stdio server whose command does not exist.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

RECORD = "mcp-unavailable.json"


def record(state_dir: Path, failures: dict[str, str]) -> None:
    """Remember which servers the last listing could not use (forget the record when all were fine)."""
    from store.private_files import write_private

    path = Path(state_dir) / RECORD
    if failures:
        write_private(path, json.dumps(failures, indent=1, sort_keys=True).encode())
    else:
        path.unlink(missing_ok=True)


def recorded(state_dir: Path) -> dict[str, str]:
    """The servers the last listing could not use, with the reason."""
    from store.private_files import read_private

    try:
        found = json.loads(read_private(Path(state_dir) / RECORD))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def missing_command(entry: dict[str, Any], cwd: Path) -> str | None:
    """Why a stdio server's command cannot start (it does not exist or is not executable), else None."""
    if entry.get("transport", "stdio") != "stdio" or not entry.get("command"):
        return None
    command = str(entry["command"])
    if os.sep in command:
        path = Path(command) if Path(command).is_absolute() else Path(entry.get("cwd") or cwd) / command
        return None if os.access(path, os.X_OK) and path.is_file() else f"its command {command} does not exist"
    return None if shutil.which(command) else f"its command {command!r} is not on PATH"


def unavailable(state_dir: Path, entries: list[dict[str, Any]], cwd: Path) -> dict[str, str]:
    """The configured servers known to be unavailable: recorded by the last listing, or with a missing command."""
    names = {str(entry.get("name")) for entry in entries}
    found = {name: reason for name, reason in recorded(state_dir).items() if name in names}
    for entry in entries:
        reason = missing_command(entry, cwd)
        if reason and str(entry.get("name")) not in found:
            found[str(entry.get("name"))] = reason
    return found


def lines(unavailable_servers: dict[str, str]) -> list[str]:
    """One line per unavailable server."""
    return [f"MCP server {name!r} is unavailable, its tools are disabled: {reason}"
            for name, reason in sorted(unavailable_servers.items())]
