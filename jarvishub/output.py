"""Printing results: readable tables for people, JSON for scripts.

``console`` and ``errors`` (rich consoles) are made on first use: a ``--json`` command prints without rich,
whose import costs a command about 20 ms of CPU.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def __getattr__(name: str) -> Any:
    """``console`` (stdout) and ``errors`` (stderr), rich consoles made on first use (PEP 562)."""
    if name not in ("console", "errors"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from rich.console import Console

    # soft_wrap: paths and commands stay on one line, copyable
    made = globals().setdefault(name, Console(stderr=name == "errors", soft_wrap=True))
    return made


def print_json(value: Any) -> None:
    """One JSON document on stdout."""
    sys.stdout.write(json.dumps(value, indent=2, default=str, ensure_ascii=False) + "\n")


def print_rows(columns: list[str], rows: list[dict[str, Any]], *, title: str | None = None) -> None:
    """A table of rows, values shortened so wide JSON properties stay readable."""
    from rich.table import Table

    table = Table(title=title, show_lines=False)
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*[_cell(row.get(c)) for c in columns])
    __getattr__("console").print(table)


def _cell(value: Any, width: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"
