"""What code holding some objects can reach without importing anything: the garbage collector's referents.

``reachable(roots, targets)`` walks every reference Python keeps (``gc.get_referents``): attributes, slots,
``__dict__``, container items, closures and their cells, defaults, a function's ``__globals__`` (so every
module-level name of the module a method was defined in, and on from there), a class's namespace, bound
methods' ``__self__``, frames (locals, globals, the caller's frame), tracebacks, generators.  It does not enter
modules (reaching a module object is importing it, which any installed code can do: docs/grants.md), and it
cannot follow a weak reference (that takes a call).  Used by the skill that walks its own context in a real
run (``tests/security/walker_skill.py``) and by the tests that show the walk finds what is there.
"""

from __future__ import annotations

import gc
import types
from collections.abc import Iterable
from typing import Any

_LEAVES = (str, bytes, bytearray, int, float, complex, bool, type(None), types.ModuleType)
_TEST_RUNNER = ("_pytest", "pytest", "pluggy", "xdist", "execnet")
"""Packages whose objects the walk does not enter: the test runner holds every fixture (a runtime, a project)
behind its module-level import hook, which a real run does not have (tests/security/test_skill_reach.py walks
a real run)."""


def reachable(roots: dict[str, Any], targets: tuple[type, ...], *, limit: int = 3_000_000,
              skip: Iterable[int] = (), max_depth: int | None = None) -> tuple[list[str], int]:
    """(paths from ``roots`` to objects of the ``targets`` types, how many objects the walk visited).

    ``skip``: ids of objects not to enter (the walker's own bookkeeping); ``max_depth``: how many references
    deep to go (all the way when None).  Each path names the types on the
    way, with the dictionary key where there is one, so a finding says how it was reached.
    """
    parent: dict[int, int] = {}
    objects: dict[int, Any] = {}
    seen: set[int] = set(skip)
    found: list[str] = []
    frontier: list[Any] = []
    names = {id(root): name for name, root in roots.items()}
    for root in roots.values():
        parent[id(root)] = 0
        objects[id(root)] = root  # ids stay valid only while the objects live: hold what the walk passes
        frontier.append(root)
    visited = depth = 0
    while frontier and visited < limit and (max_depth is None or depth <= max_depth):
        depth += 1
        following: list[Any] = []
        for obj in frontier:
            if id(obj) in seen or isinstance(obj, _LEAVES) or _of_test_runner(obj):
                continue
            seen.add(id(obj))
            visited += 1
            if isinstance(obj, targets):
                found.append(_path(parent, objects, names, id(obj)))
                continue
            for child in gc.get_referents(obj):
                if id(child) in seen or isinstance(child, _LEAVES):
                    continue
                if id(child) not in parent:
                    parent[id(child)] = id(obj)
                    objects[id(child)] = child
                following.append(child)
        frontier = following
    return found, visited


def _of_test_runner(obj: Any) -> bool:
    module = getattr(type(obj), "__module__", None)
    if not isinstance(module, str):  # a type whose metaclass makes __module__ a descriptor
        return False
    return module.split(".", 1)[0] in _TEST_RUNNER


def _label(holder: Any, child: Any) -> str:
    if isinstance(holder, dict):
        for key, value in holder.items():
            if value is child:
                return f"[{key!r}]" if isinstance(key, (str, int)) else "[...]"
    return f".{type(child).__name__}"


def _path(parent: dict[int, int], objects: dict[int, Any], names: dict[int, str], node: int) -> str:
    """How the walk reached ``node``: the root's name, then a label per step (computed only for findings)."""
    parts: list[str] = []
    while parent.get(node, 0) != 0 and len(parts) < 80:
        up = parent[node]
        parts.append(_label(objects[up], objects[node]))
        node = up
    return names.get(node, "?") + "".join(reversed(parts))
