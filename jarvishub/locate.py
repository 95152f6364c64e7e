"""Where a project is: its file names and a git-like search from the current folder upwards.

Kept free of heavy imports so the command line can refuse "not a project"
(and print ``--help``) without loading the engine driver or LangGraph.  There is
deliberately no machine-wide "last opened project": a command acts on the
project you stand in, the one ``-C`` names, or ``$JARVISHUB_PROJECT``.
"""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_FILE = "jarvishub.toml"
STATE_DIR = ".jarvishub"
OUTPUTS_DIR = "outputs"


class NotAProject(FileNotFoundError):
    """No project where a command was asked to act; says how to make or name one."""

    def __init__(self, where: Path, *, searched_parents: bool) -> None:
        self.where = where
        if searched_parents:
            message = (f"not a JarvisHub project (or any parent): {where}; "
                       "run `jarvishub init` or pass -C")
        else:
            message = (f"not a JarvisHub project: {where} has no {PROJECT_FILE}; "
                       f"run `jarvishub init {where}` or pass -C")
        super().__init__(message)

    def __str__(self) -> str:
        return str(self.args[0])


def is_project(path: Path) -> bool:
    """Whether the folder holds a project file."""
    return (path / PROJECT_FILE).is_file()


def enclosing_project(start: Path) -> Path | None:
    """The nearest folder from ``start`` upwards that is a project, like git's search for ``.git``."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if is_project(folder):
            return folder
    return None


def find_project(explicit: str | os.PathLike[str] | None = None, *, cwd: Path | None = None) -> Path:
    """The project a command acts on: ``explicit`` (-C), then ``$JARVISHUB_PROJECT``, then the search upwards."""
    named = explicit or os.environ.get("JARVISHUB_PROJECT")
    if named:
        path = Path(named).expanduser().resolve()
        if not is_project(path):
            raise NotAProject(path, searched_parents=False)
        return path
    here = (cwd or Path.cwd()).resolve()
    found = enclosing_project(here)
    if found is None:
        raise NotAProject(here, searched_parents=True)
    return found
