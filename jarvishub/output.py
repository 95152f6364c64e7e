"""Printing results: readable tables for people, JSON for scripts."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console
from rich.table import Table

console = Console(stderr=False, soft_wrap=True)  # paths and commands stay on one line, copyable
errors = Console(stderr=True, soft_wrap=True)


def print_json(value: Any) -> None:
    """One JSON document on stdout."""
    sys.stdout.write(json.dumps(value, indent=2, default=str, ensure_ascii=False) + "\n")


def print_rows(columns: list[str], rows: list[dict[str, Any]], *, title: str | None = None) -> None:
    """A table of rows, values shortened so wide JSON properties stay readable."""
    table = Table(title=title, show_lines=False)
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*[_cell(row.get(c)) for c in columns])
    console.print(table)


def _cell(value: Any, width: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"
