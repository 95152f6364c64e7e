"""The default grant policy: derive this turn's grant from the manifest, the canvas and the request.

* Destructive tools are left out unless the request asks to delete or remove,
  and then they need a person's approval.
* A local edit of named nodes ("redo the lighting on shot 7") is scoped to those
  nodes and what was derived from them, so nothing else can change.
* Everything else may use every tool on the whole canvas.
"""

from __future__ import annotations

import re

from nodes.grant import Grant, Scope
from nodes.manifest import Manifest
from nodes.view import find_focus
from store.base import CanvasReader
from tools.base import Effect

_DESTRUCTIVE_WORDS = re.compile(r"\b(delete|remove|erase|purge|wipe)\b", re.IGNORECASE)
_LOCAL_EDIT = re.compile(r"\b(redo|re-do|change|fix|adjust|tweak|make|keep|regenerate|relight|recolou?r)\b",
                         re.IGNORECASE)


def default_grant(manifest: Manifest, canvas: CanvasReader, request: str, selected: list[str]) -> Grant:
    """The grant a turn gets when the caller names none."""
    wants_destruction = bool(_DESTRUCTIVE_WORDS.search(request))
    tools = [t.name for t in manifest.tools if wants_destruction or Effect.DESTRUCTIVE not in t.effects]
    scope = Scope()
    focus = find_focus(canvas, request, selected, [])
    if focus and _LOCAL_EDIT.search(request):
        scope = Scope(all_nodes=False, node_ids=focus, descendants_of=focus)
    return Grant(tools=tools, scope=scope, approval_effects=[Effect.DESTRUCTIVE])
