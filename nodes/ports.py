"""The bridge as skills and tools see it: submit actions under a grant, nothing else.

A :class:`BridgePort` is bound to one *root* grant (the grant the tool or skill
was invoked under).  It submits actions under that grant or under grants
narrowed from it, re-reading each grant from the project's grant store by id, so
a grant object built or edited in memory counts for nothing.  It cannot approve
its own actions (an action needing a person raises
:class:`~nodes.verdicts.ApprovalRequired`).

It does not refer to the bridge, the store, the grant store or the ticket
authority in any way Python can follow (attribute, slot, closure, a method's
``__globals__``, the garbage collector's referents): it holds a
:class:`~tools.sealed.Handle` to the bridge's port desk and a token, and the
bridge keeps which root grant each token stands for.  A port forged with
another token stands for nothing.

Skill and subagent graphs depend on this port and on
:class:`~tools.reader.ReadOnlyCanvas`, never on the application runtime.
"""

from __future__ import annotations

from typing import Any

from nodes.grant import Budget, Grant, Scope
from nodes.usage import SubmitResult, Usage
from tools.reader import ReadOnlyCanvas
from tools.sealed import Handle


class BridgePort:
    """Submit actions through the bridge under one grant (or grants narrowed from it); read the canvas."""

    __slots__ = ("__weakref__", "_bridge", "_canvas", "_token")

    def __init__(self, bridge: Handle, token: str, canvas: ReadOnlyCanvas) -> None:
        self._bridge = bridge
        self._token = token
        self._canvas = canvas

    def __repr__(self) -> str:
        return f"BridgePort(root_grant={self.root_grant_id!r})"

    def __reduce__(self) -> Any:
        raise TypeError("a BridgePort cannot be pickled or copied")

    @property
    def canvas(self) -> ReadOnlyCanvas:
        """Read access to the canvas (the write side is the bridge's)."""
        return self._canvas

    @property
    def root_grant_id(self) -> str | None:
        """The grant this port acts under; every grant it accepts is this one or narrowed from it."""
        return self._bridge.call("root", self._token)

    def grant(self, grant_id: str) -> Grant:
        """The stored grant ``grant_id``; :class:`GrantDenied` unless it is the root grant or narrowed from it."""
        return self._bridge.call("grant", self._token, grant_id)

    def narrow(self, grant: Grant | str, *, actor: str, tools: list[str] | None = None,
               node_kinds: list[str] | None = None, scope: Scope | None = None, budget: Budget | None = None) -> Grant:
        """Store and return a child of a held grant that can only take away from it (a subagent's grant)."""
        return self._bridge.call("narrow", self._token, grant if isinstance(grant, str) else grant.id, actor=actor,
                                 tools=tools, node_kinds=node_kinds, scope=scope, budget=budget)

    def has_tool(self, name: str) -> bool:
        """Whether the project has a tool of this name (granted or not)."""
        return self._bridge.call("has_tool", name)

    def submit(self, action: Any, grant: Grant | str, usage: Usage, *, thread_id: str,
               turn_id: str | None = None) -> SubmitResult:
        """Validate, run and commit ``action`` under a held grant (re-read from the grant store).

        A grant this port does not hold is a rejection, like any other grant failure.
        """
        return self._bridge.call("submit", self._token, action, grant if isinstance(grant, str) else grant.id,
                                 usage, thread_id=thread_id, turn_id=turn_id)


__all__ = ["BridgePort"]
