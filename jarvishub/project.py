"""A JarvisHub project: one folder holding the canvas engine's data, artifacts, checkpoints and workspace.

``Project.open`` is what the CLI, the web canvas and tests call to get a
running canvas; it owns the engine and closes it (and so, for the embedded
engine, stops the server when no other process of the project uses it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jarvishub.settings import PROJECT_FILE, STATE_DIR, Settings, load_settings
from store.artifacts import LocalArtifactStore
from store.connect import EngineSettings, open_store, start_engine
from store.engine import Engine
from store.hosted import HostedDatabase, hosted_database_name, refuse_if_hosted
from store.kinds import KindRegistry
from store.neo4j import Neo4jCanvasStore
from store.private_files import UnsafeStateDir, check_project_folder, create_private_file, ensure_private_dir
from store.tickets import TicketAuthority

DEFAULT_PROJECT_FILE = """\
# JarvisHub project settings. Environment variables win over [settings].
[project]
name = "{name}"

[settings]
# model = "gpt-4o-mini"

# Extra node kinds for this project:  name = "what it is"
[kinds]

# Skills: every module in ./skills/ is loaded (`jarvishub skill new NAME` makes one there); `load` adds
# modules of this project ("my_skills" is ./my_skills.py) or installed ones, as "module:attribute" (one skill)
# or "module" (every skill in it). Installed packages add theirs through the entry point group jarvishub.skills.
# A module that fails to load is one line in `jarvishub skills` and `jarvishub status`; the others load.
[skills]
load = []
# load = ["my_skills:poster", "studio_skills.posters"]

# Named grant profiles for `jarvishub run --grant NAME`
[grants.read-only]
tools = ["read_node", "read_lineage", "query_canvas"]

# MCP servers whose tools join the manifest
# [[mcp]]
# name = "files"
# transport = "stdio"
# command = "python"
# args = ["server.py"]
"""


_PRIVATE_FILES = ("checkpoints.sqlite", "trajectories.sqlite", "grants.sqlite", "memory.sqlite",
                  "generation-cache.sqlite", "spend.sqlite")
_PRIVATE_DIRS = ("engine", "artifacts")


def prepare_state_dir(state: Path) -> None:
    """``.jarvishub/`` and what is in it are the current user's alone, never reached through a link.

    It holds the engine's passwords and the user's words, so (see :mod:`store.private_files`):

    * the project folder must be ours and writable by nobody else, and ``.jarvishub/`` and its folders
      real folders of ours, mode 0700: another user who made or swapped one gets a refusal, not our secrets;
    * its SQLite files are created empty, 0600, with ``O_NOFOLLOW`` before SQLite opens them (SQLite keeps
      an existing file's mode and gives it to its -wal/-shm files); a symlink among them is refused.
    """
    check_project_folder(state.parent)
    ensure_private_dir(state)
    for folder in _PRIVATE_DIRS:
        ensure_private_dir(state / folder)
    for name in _PRIVATE_FILES:
        for companion in ("-wal", "-shm", "-journal"):
            if (state / f"{name}{companion}").is_symlink():
                raise UnsafeStateDir(state / f"{name}{companion}", "is a symbolic link")
        create_private_file(state / name)


class Project:
    """A project folder and the running services behind it."""

    def __init__(self, root: Path, settings: Settings, engine: Engine, store: Neo4jCanvasStore) -> None:
        self.root = root
        self.settings = settings
        self.engine = engine
        self.store = store
        self.artifacts = LocalArtifactStore(self.state_dir / "artifacts")
        ensure_private_dir(self.workspace, follow=True)  # tools write here what the user's requests hold

    @property
    def state_dir(self) -> Path:
        """Where JarvisHub keeps its own files (engine data, artifacts, checkpoints)."""
        return self.root / STATE_DIR

    @property
    def workspace(self) -> Path:
        """The one folder tools may write files in."""
        return self.root / "workspace"

    @property
    def checkpoint_path(self) -> Path:
        """The SQLite checkpoint file of LangGraph threads."""
        return self.state_dir / "checkpoints.sqlite"

    @property
    def name(self) -> str:
        """The project's name from its file, or its folder's."""
        return str(self.settings.project.get("project", {}).get("name") or self.root.name)

    @classmethod
    def init(cls, root: Path, *, follow_outputs: bool = True, host: Engine | None = None, **overrides: Any) -> Project:
        """Create the project file if missing, then open the project."""
        root = Path(root).resolve()
        root.mkdir(parents=True, exist_ok=True)
        check_project_folder(root)  # before writing anything into a folder someone else controls
        if not (root / PROJECT_FILE).exists():
            (root / PROJECT_FILE).write_text(DEFAULT_PROJECT_FILE.format(name=root.name))
        return cls.open(root, follow_outputs=follow_outputs, host=host, **overrides)

    @classmethod
    def open(cls, root: Path, *, follow_outputs: bool = True, host: Engine | None = None,
             **overrides: Any) -> Project:
        """Open a project folder, starting (or reusing) its canvas engine.

        With ``follow_outputs`` every commit this process makes refreshes ``outputs/``
        (see :mod:`jarvishub.outputs`), whichever front end made it: CLI, web canvas or library.
        With ``host``, an engine the caller started and will stop, the canvas is a database of its own on that
        engine instead (:mod:`store.hosted`: one engine for the many projects of one process).  The folder
        remembers it: opening it without ``host`` (the CLI does) raises :class:`store.hosted.CanvasHostedElsewhere`
        rather than start the folder's own engine on an empty canvas.
        """
        root = Path(root).resolve()
        settings = load_settings(root, **overrides)
        prepare_state_dir(root / STATE_DIR)
        engine_dir = root / STATE_DIR / "engine"
        if host is not None:
            engine: Engine = HostedDatabase(host, hosted_database_name(root), engine_dir)
        else:
            refuse_if_hosted(engine_dir)
            engine = start_engine(
                EngineSettings(
                    data_dir=root / STATE_DIR,
                    neo4j_uri=settings.neo4j_uri,
                    neo4j_user=settings.neo4j_user,
                    neo4j_password=settings.neo4j_password,
                    neo4j_database=settings.neo4j_database,
                    arcadedb_cluster=settings.arcadedb_cluster,
                )
            )
        try:
            kinds = KindRegistry.default({k: str(v) for k, v in settings.project.get("kinds", {}).items()})
            store = open_store(engine, TicketAuthority(), kinds=kinds)
        except BaseException:
            engine.close()
            raise
        project = cls(root, settings, engine, store)
        if follow_outputs:
            from jarvishub.outputs import follow_commits

            follow_commits(project)
        if getattr(engine, "start_seconds", 0.0) > 0:  # this open started the engine: it ran cold
            from jarvishub.cold_start import train_in_background

            train_in_background()  # so that the next cold start, of any project here, starts from the JVM cache
        return project

    def close(self) -> None:
        """Release the store and the engine."""
        self.store.close()
        self.engine.close()

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
