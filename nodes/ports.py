"""The bridge as skills and tools see it: submit actions under a grant, nothing else.

A :class:`BridgePort` is bound to one *root* grant (the grant the tool or skill
was invoked under).  It submits actions under that grant or under grants
narrowed from it, re-reading each grant from the project's grant store by id, so
a grant object built or edited in memory counts for nothing.  It cannot approve
its own actions (an action needing a person raises
:class:`~nodes.verdicts.ApprovalRequired`), and it has no attribute that leads
to the bridge, the store, the grant store or the ticket authority: the bridge it
forwards to sits in a module-private weak map keyed by the port.

Skill and subagent graphs depend on this port and on
:class:`~tools.reader.ReadOnlyCanvas`, never on the application runtime.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from nodes.grant import Budget, Grant, Scope
from nodes.verdicts import GrantDenied
from tools.reader import ReadOnlyCanvas

if TYPE_CHECKING:
    from nodes.bridge import Bridge, SubmitResult, Usage

_BRIDGES: weakref.WeakKeyDictionary[BridgePort, tuple[Bridge, str | None]] = weakref.WeakKeyDictionary()
_MAX_GRANT_DEPTH = 64


class BridgePort:
    """Submit actions through the bridge under one grant (or grants narrowed from it); read the canvas."""

    __slots__ = ("__weakref__", "_canvas")

    def __init__(self, bridge: Bridge, root_grant_id: str | None) -> None:
        _BRIDGES[self] = (bridge, root_grant_id)
        self._canvas = ReadOnlyCanvas(bridge.store)

    def __repr__(self) -> str:
        return f"BridgePort(root_grant={_BRIDGES[self][1]!r})"

    def __reduce__(self) -> Any:
        raise TypeError("a BridgePort cannot be pickled or copied")

    @property
    def canvas(self) -> ReadOnlyCanvas:
        """Read access to the canvas (the write side is the bridge's)."""
        return self._canvas

    @property
    def root_grant_id(self) -> str | None:
        """The grant this port acts under; every grant it accepts is this one or narrowed from it."""
        return _BRIDGES[self][1]

    def grant(self, grant_id: str) -> Grant:
        """The stored grant ``grant_id``; :class:`GrantDenied` unless it is the root grant or narrowed from it."""
        bridge, root = _BRIDGES[self]
        try:
            stored = bridge.grants.get(grant_id)
        except KeyError:
            raise GrantDenied("unknown_grant", f"there is no stored grant {grant_id}") from None
        chain, current = 0, stored
        while current.id != root:
            if current.parent_id is None or chain >= _MAX_GRANT_DEPTH:
                raise GrantDenied("grant_not_held", f"grant {grant_id} is not held by this {self!r}")
            current = bridge.grants.get(current.parent_id)
            chain += 1
        return stored

    def narrow(self, grant: Grant | str, *, actor: str, tools: list[str] | None = None,
               node_kinds: list[str] | None = None, scope: Scope | None = None, budget: Budget | None = None) -> Grant:
        """Store and return a child of a held grant that can only take away from it (a subagent's grant)."""
        parent = self.grant(grant if isinstance(grant, str) else grant.id)
        child = parent.narrow(actor=actor, tools=tools, node_kinds=node_kinds, scope=scope, budget=budget)
        return _BRIDGES[self][0].grants.save(child)

    def has_tool(self, name: str) -> bool:
        """Whether the project has a tool of this name (granted or not)."""
        bridge = _BRIDGES[self][0]
        return bridge.registry.get(name) is not None and bridge.manifest.tool(name) is not None

    def submit(self, action: Any, grant: Grant | str, usage: Usage, *, thread_id: str,
               turn_id: str | None = None) -> SubmitResult:
        """Validate, run and commit ``action`` under a held grant (re-read from the grant store).

        A grant this port does not hold is a rejection, like any other grant failure.
        """
        from nodes.bridge import SubmitResult

        try:
            held = self.grant(grant if isinstance(grant, str) else grant.id)
        except GrantDenied as denied:
            return SubmitResult(action_id=action.action_id, verdict="reject", message=str(denied))
        return _BRIDGES[self][0].submit(action, held, usage, thread_id=thread_id, turn_id=turn_id)


__all__ = ["BridgePort"]
