"""What the tool and skill floors need of a project: its folder, its settings, its canvas, its artifacts and state.

``jarvishub.project.Project`` (the top floor: it starts engines) satisfies
:class:`ProjectParts` as it is, so the tool catalog (``tools/catalog.py``) and
the skill loader (``skills/registry.py``) take a project without importing the
package that opens one.  Tests and scripts may pass any object with these
attributes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from store.artifacts import ArtifactStore
    from store.base import CanvasReader


class ProjectSettings(Protocol):
    """The settings a tool family reads: ``project`` is the parsed ``jarvishub.toml``.

    Tool families read their own fields with ``getattr`` (``media_provider``,
    ``openai_api_key``, ``chromium``, ...), each with an offline default.
    """

    project: dict[str, Any]


class ProjectParts(Protocol):
    """A project as tools and skills see it (never its engine)."""

    root: Path
    settings: ProjectSettings

    @property
    def state_dir(self) -> Path:
        """The project's private state folder (the spend ledger is kept there)."""
        ...

    @property
    def artifacts(self) -> ArtifactStore: ...

    @property
    def store(self) -> CanvasReader: ...


def project_config(project: ProjectParts) -> dict[str, Any]:
    """The parsed project file (``{}`` when the project has none)."""
    return dict(getattr(project.settings, "project", None) or {})


__all__ = ["ProjectParts", "ProjectSettings", "project_config"]
