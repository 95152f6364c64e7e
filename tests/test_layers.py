"""The house's floors: no import circle, and no lower floor importing a higher one (docs/architecture.md).

store < tools, content < nodes < skills, graphs < jarvishub.  Every import counts, wherever it is written: at the top of
a module, inside a function (a lazy import hides a circle from Python, not from a reader), or under
``TYPE_CHECKING``.  The modules are read with :mod:`ast`, never imported, so the check is the source's.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

from tests.cli_run import ROOT

FLOORS = {"store": 0, "content": 1, "tools": 1, "nodes": 2, "skills": 3, "graphs": 3, "jarvishub": 4}

KNOWN_UPWARD: set[tuple[str, str]] = set()
"""Upward imports that stand for now, each named; a new one fails, and so does one of these once it is gone
(take it off the list).  None stand: the content planners the page, deck and cut tools and the page readers
share with the skills live in ``content/``, on the tools' floor."""


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the seven packages, by dotted name."""
    found = {}
    for package in FLOORS:
        for path in (root / package).rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The project modules ``name`` imports, anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module → the project modules it imports."""
    known = modules(root)
    return {name: set(imported(name, path, known)) for name, path in known.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def upward(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(importer, imported) pairs where a lower floor imports a higher one."""
    def floor(name: str) -> int:
        return FLOORS[name.split(".")[0]]

    return {(a, b) for a, targets in graph.items() for b in targets if floor(b) > floor(a)}


@functools.cache
def this_checkout() -> dict[str, set[str]]:
    """The import graph of this checkout (read once for both tests)."""
    return import_graph()


def test_no_module_imports_itself_around_a_circle():
    assert circles(this_checkout()) == []


def test_no_lower_floor_imports_a_higher_one():
    found = upward(this_checkout())
    assert sorted(found - KNOWN_UPWARD) == []
    assert sorted(KNOWN_UPWARD - found) == [], "these upward imports are gone: take them off KNOWN_UPWARD"


def test_the_check_sees_lazy_and_type_checking_imports(tmp_path):
    """A circle through a function-level import, and an upward import under TYPE_CHECKING, are both found."""
    for package in FLOORS:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "tools" / "a.py").write_text("def f():\n    from tools.b import g\n")
    (tmp_path / "tools" / "b.py").write_text("from . import a\n\ndef g():\n    pass\n")
    (tmp_path / "store" / "low.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from nodes.high import X\n")
    (tmp_path / "nodes" / "high.py").write_text("X = 1\n")
    graph = import_graph(tmp_path)
    assert circles(graph) == [["tools.a", "tools.b"]]
    assert upward(graph) == {("store.low", "nodes.high")}
