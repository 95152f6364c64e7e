"""The graph factory for LangGraph's own server (``langgraph.json``); the server supplies the checkpointer.

The project folder comes from ``JARVISHUB_PROJECT`` (default: the working directory).  The runtime is built
once per server process; each graph the server asks for shares it.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from graphs.supervisor import build_supervisor


@lru_cache(maxsize=1)
def _runtime() -> Any:
    from jarvishub.project import Project
    from jarvishub.runtime import Runtime

    project = Project.init(Path(os.environ.get("JARVISHUB_PROJECT", ".")))
    return Runtime(project)


def make_supervisor(config: dict[str, Any] | None = None) -> Any:
    """The supervisor graph without a checkpointer, for ``langgraph dev`` / LangGraph Platform."""
    return build_supervisor(_runtime().deps, checkpointer=None)
