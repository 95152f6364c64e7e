"""Files you can open: every artifact on the canvas, under ``outputs/`` with a human name and extension.

The artifact store keeps bytes under their sha256 with no extension, which is
right for caching and wrong for a person looking for the film.  ``outputs/``
is a view of it, rebuilt from the canvas:

* the current version of each artifact node gets a stable name, e.g.
  ``outputs/narrative/shot-03-image.png`` and ``outputs/narrative/final-cut.mp4``,
  so a path printed once stays the path of the latest version;
* versions it superseded (``VERSION_OF``) and rejected candidates go to
  ``outputs/<folder>/versions/<name>-v<N>.<ext>``, N counting the lineage.

Files are copies of the content-addressed blobs (reflinks where the file system
shares blocks, so a copy costs no space there), never hard links: editing a file
in ``outputs/`` must not change the stored artifact.  ``outputs/`` is the user's
alone (0700, files 0600).  ``outputs/.index.json`` lists what this module placed
(hash, size and modification time), so a rebuild removes or replaces only files
it made itself and left as they were: a file you edited is kept, never
overwritten, and reported as edited (``OutputFile.edited``; ``status`` lists it).
The view is refreshed after every commit of the process (see
:func:`follow_commits`) and by ``status``, ``open`` and ``export``; every write
is a rename, so concurrent processes never leave a half-written file.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import mimetypes
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from jarvishub.locate import OUTPUTS_DIR

INDEX_FILE = ".index.json"
_PLACING = threading.Lock()  # parallel branches of one turn commit from several threads

# Which folder of outputs/ a node's files go to: the folder its tool named (metadata ``outputs_folder``: a page
# tool's preview is a page's file whoever called the tool), else by the skill that made it, then by its kind.
_FOLDER_BY_SKILL = {"design_to_web": "web", "web_render": "web", "web_revise": "web", "slides": "slides"}
_FOLDER_BY_KIND = {"image": "narrative", "video": "narrative", "audio": "narrative", "shot": "narrative",
                   "reference": "narrative", "web": "web", "code": "web", "slide": "slides", "deck": "slides"}


class OutputFile(BaseModel):
    """One file of ``outputs/`` and the canvas node it shows."""

    path: str
    node_id: str
    kind: str
    title: str
    sha256: str
    mime: str
    lineage: int
    current: bool
    final: bool
    edited: bool = False
    """The file in ``outputs/`` is not the artifact's bytes (someone changed it); it is kept as it is."""

    @property
    def headline(self) -> bool:
        """Whether this is what a person opens first: a film, a page or a deck (not its parts)."""
        return self.mime.startswith("video/") or self.mime == "text/html" or self.path.endswith((".pptx", ".pdf"))


def headlines(files: list[OutputFile]) -> list[OutputFile]:
    """The final outputs to point a person at: films, pages and decks when there are any, else every final one."""
    finals = [f for f in files if f.final]
    return [f for f in finals if f.headline] or finals


def slug(title: str) -> str:
    """A file-name form of a title: lower case, dashes, small numbers padded ("shot 3 image" → "shot-03-image")."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    parts = [w.zfill(2) if w.isdigit() and len(w) < 2 else w for w in words]
    return "-".join(parts)[:80].strip("-")


def _as_path(title: str, extension: str) -> str | None:
    """A title that is a relative file path (a site's ``site/x/index.html``) keeps its folders and name,
    so a page opened from outputs/ still finds its images."""
    parts = [re.sub(r"[^A-Za-z0-9._-]+", "-", part).strip("-.") for part in title.split("/")]
    if len(parts) < 2 or not all(parts) or not parts[-1].lower().endswith(extension):
        return None
    return "/".join(parts)[: -len(extension)]


def _extension(handle: dict[str, Any]) -> str:
    suffix = Path(str(handle.get("name") or "")).suffix
    if re.fullmatch(r"\.[A-Za-z0-9]{1,8}", suffix):
        return suffix.lower()
    return mimetypes.guess_extension(str(handle.get("mime") or "")) or ".bin"


def _folder(node: Any) -> str:
    named = str(node.metadata.get("outputs_folder") or "")
    if re.fullmatch(r"[a-z0-9][a-z0-9-]{0,30}", named):
        return named
    maker = str(node.metadata.get("created_by") or "").removeprefix("skill:")
    return _FOLDER_BY_SKILL.get(maker) or _FOLDER_BY_KIND.get(node.kind) or slug(node.kind) or "files"


def plan(nodes: Iterable[Any], edges: Iterable[Any]) -> list[OutputFile]:
    """Where each artifact of the canvas goes, from its nodes and edges (no files touched)."""
    with_files = [n for n in nodes if n.outputs and not n.deleted]
    ids = {n.id for n in with_files}
    older: dict[str, str] = {}          # newer id -> the version it replaced
    superseded: set[str] = set()
    generated: list[tuple[str, str]] = []  # (made, made from), between artifact nodes
    for edge in edges:
        if edge.type == "VERSION_OF":
            older[edge.source] = edge.target
            superseded.add(edge.target)
        elif edge.type == "GENERATED_FROM" and edge.source in ids:
            generated.append((edge.source, edge.target))
    rejected = {n.id for n in with_files if n.status.value == "rejected"}
    # What a current artifact was made from is not final (a clip's image); what only a rejected or replaced one
    # was made from is (the clips of a rejected cut are the film's last outputs again).
    derived_from = {source for made, source in generated if made not in rejected and made not in superseded}

    def lineage(node_id: str) -> int:
        depth, seen = 1, {node_id}
        while node_id in older and older[node_id] not in seen:
            node_id = older[node_id]
            seen.add(node_id)
            depth += 1
        return depth

    files: list[OutputFile] = []
    taken: set[str] = set()
    for node in sorted(with_files, key=lambda n: (n.created_at, n.id)):
        current = node.id not in superseded and node.status.value != "rejected"
        number = lineage(node.id)
        for index, handle in enumerate(node.outputs):
            data = handle.model_dump()
            base = (_as_path(node.title, _extension(data)) or slug(node.title)
                    or f"{node.kind}-{node.id[-6:].lower()}")
            stem = base if index == 0 else f"{base}-{index + 1}"
            if not current:
                stem = f"versions/{stem}-v{number}"
            relative = f"{_folder(node)}/{stem}"
            if relative in taken:  # two nodes with one title: the later one carries its id
                relative = f"{relative}-{node.id[-6:].lower()}"
            taken.add(relative)
            files.append(OutputFile(path=relative + _extension(data), node_id=node.id, kind=node.kind,
                                    title=node.title, sha256=data["sha256"], mime=str(data.get("mime") or ""),
                                    lineage=number, current=current,
                                    final=current and node.id not in derived_from))
    return files


def sync(root: Path, store: Any, artifacts: Any) -> list[OutputFile]:
    """Bring ``root/outputs`` in line with the canvas; returns every file placed there."""
    files = plan(*store.artifact_graph())
    place(root / OUTPUTS_DIR, files, artifacts)
    return files


def place(outputs: Path, files: list[OutputFile], artifacts: Any, *, trust_index: bool = False) -> None:
    """Copy each planned file into ``outputs``; remove files an earlier plan placed and this one dropped.

    A file that is no longer what was placed there (edited by a person) is neither replaced nor removed: the
    planned entry comes back with ``edited`` set.  With ``trust_index``, a file the index says holds the
    planned bytes already is not looked at (a refresh after a commit: only what the commit changed is); a
    person's edit of such a file is then found by the next full look (``status``).
    """
    with _PLACING:
        _place(outputs, files, artifacts, trust_index)


_STALE_TEMP_S = 600.0
"""A ``.tmp-`` file older than this was left by an interrupted refresh (no refresh takes that long)."""


def _stat_key(path: Path) -> dict[str, int] | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not os.path.isfile(path) or os.path.islink(path):
        return {"size": -1, "mtime_ns": -1}  # a folder or a link where a file was placed: never ours
    return {"size": info.st_size, "mtime_ns": info.st_mtime_ns}


def _shares_an_inode(path: Path) -> bool:
    """Whether ``path`` is a hard link (outputs/ was made of links into the artifact store before)."""
    try:
        return os.lstat(path).st_nlink > 1
    except OSError:
        return False


def _sha256(path: Path) -> str | None:
    if os.path.islink(path) or not os.path.isfile(path):
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _as_placed(entry: Any) -> dict[str, Any]:
    """An index entry: ``{"sha256", "size", "mtime_ns"}`` (an index written before sizes were kept is a hash)."""
    return {"sha256": entry} if isinstance(entry, str) else dict(entry or {})


def _on_disk(target: Path, placed: dict[str, Any]) -> str | None:
    """The hash of what ``target`` holds; the recorded one when its size and time are still what was placed."""
    key = _stat_key(target)
    if key is None:
        return None
    if placed.get("sha256") and key == {"size": placed.get("size"), "mtime_ns": placed.get("mtime_ns")}:
        return str(placed["sha256"])
    return _sha256(target)


def _place(outputs: Path, files: list[OutputFile], artifacts: Any, trust_index: bool = False) -> None:
    from store.private_files import ensure_private_dir

    outputs.parent.mkdir(parents=True, exist_ok=True)
    ensure_private_dir(outputs, follow=True)
    index_path = outputs / INDEX_FILE
    try:
        before = {path: _as_placed(entry) for path, entry in json.loads(index_path.read_text()).items()}
    except (OSError, ValueError, AttributeError):
        before = {}
    now: dict[str, dict[str, Any]] = {}
    for file in files:
        target = outputs / file.path
        placed = before.get(file.path, {})
        if trust_index and placed.get("sha256") == file.sha256:
            now[file.path] = placed
            continue
        held = _on_disk(target, placed)
        if held == file.sha256 and not _shares_an_inode(target):
            now[file.path] = {"sha256": file.sha256, **(_stat_key(target) or {})}
            continue
        if held is not None and held != placed.get("sha256"):
            # Not what this module put there: the person's edit (or their own file).  Keep it, say so.
            file.edited = True
            if placed:
                now[file.path] = placed
            continue
        _copy(artifacts.local_path(file.sha256), target)
        now[file.path] = {"sha256": file.sha256, **(_stat_key(target) or {})}
    for relative in set(before) - set(now):
        dropped = outputs / relative
        if outputs.resolve() not in dropped.resolve().parents:  # the index is a file on disk: never step outside
            continue
        if _on_disk(dropped, before[relative]) == before[relative].get("sha256"):
            dropped.unlink(missing_ok=True)  # ours and unchanged; an edited one stays, as the person's file
    if not trust_index:  # a refresh's own temporary files are renamed or removed before it returns
        _remove_stale_temps(outputs, {(outputs / f.path).parent for f in files})
    _write_atomically(index_path, json.dumps(now, indent=1, sort_keys=True).encode())


def _remove_stale_temps(outputs: Path, folders: set[Path]) -> None:
    """Remove the temporary files an interrupted refresh left (Ctrl-C, a full disk)."""
    now = time.time()
    for folder in {outputs, *folders}:
        with contextlib.suppress(OSError):
            for entry in os.scandir(folder):
                if entry.name.startswith(".tmp-") and entry.is_file(follow_symlinks=False) \
                        and now - entry.stat(follow_symlinks=False).st_mtime > _STALE_TEMP_S:
                    os.unlink(entry.path)


_FICLONE = 0x40049409
"""ioctl(2) FICLONE: share the source's blocks (btrfs, XFS); copy-on-write, so the copy is independent."""


def _copy(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` (0600) through a temporary file and a rename; a reflink when the file
    system offers one, else an in-kernel copy.  Never a hard link: the copy may be edited freely."""
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temp = target.parent / f".tmp-{uuid.uuid4().hex}{target.suffix}"  # unique: other processes copy too
    try:
        with open(source, "rb") as src:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "wb") as dst:
                try:
                    fcntl.ioctl(dst.fileno(), _FICLONE, src.fileno())
                except OSError:
                    shutil.copyfileobj(src, dst, 1 << 20)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _write_atomically(target: Path, data: bytes) -> None:
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(temp, target)


def export(files: list[OutputFile], outputs: Path, destination: Path) -> list[Path]:
    """Copy the current outputs (not superseded versions) to ``destination``, keeping their folders."""
    copied = []
    for file in files:
        if not file.current:
            continue
        target = destination / file.path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(outputs / file.path, target)
        copied.append(target)
    return copied


class ArtifactGraph:
    """What ``outputs/`` is planned from (the live nodes with files, the VERSION_OF and GENERATED_FROM edges),
    read once and then kept in step with this process's commits from what each one wrote.

    A history of hundreds of versions made every refresh read and parse all of them again, after every commit
    that touched a file.  The graph is read again whenever it may have missed a change: a commit it did not see
    came between (another process's: the canvas versions of the commits it follows are not consecutive), or a
    commit does not say what it wrote.
    """

    _PLANNED_FROM = ("VERSION_OF", "GENERATED_FROM")

    def __init__(self) -> None:
        self._nodes: dict[str, Any] = {}
        self._edges: dict[str, Any] = {}
        self._version: int | None = None  # the canvas version it is known to hold; None: read it again

    def follow(self, record: Any) -> bool:
        """Apply one commit's changes; False when the graph must be read again (it is then marked so)."""
        if self._version is not None and record.canvas_version <= self._version:
            return True  # already in: a commit read with the graph, its record arriving late
        if self._version is None or record.written is None or record.canvas_version != self._version + 1:
            self._version = None
            return False
        written = record.written
        for node in written.nodes:
            if node.outputs and not node.deleted:
                self._nodes[node.id] = node
            else:
                self._nodes.pop(node.id, None)
        gone = set(written.hard_deleted)
        for edge_id in [*written.unlinked, *(e.id for e in self._edges.values()
                                             if gone and (e.source in gone or e.target in gone))]:
            self._edges.pop(edge_id, None)
        for edge in written.links:
            if edge.type.value in self._PLANNED_FROM:
                self._edges[edge.id] = edge
        self._version = record.canvas_version
        return True

    def load(self, store: Any, version: int) -> None:
        """Read the whole graph; ``version``: a canvas version it holds at least (a commit already made)."""
        nodes, edges = store.artifact_graph()
        self._nodes = {n.id: n for n in nodes}
        self._edges = {e.id: e for e in edges}
        self._version = version

    def plan(self) -> list[OutputFile]:
        """Where each artifact goes (:func:`plan`), from what the graph holds."""
        return plan(self._nodes.values(),
                    sorted(self._edges.values(), key=lambda e: (e.canvas_version, e.id)))


def follow_commits(project: Any) -> None:
    """Refresh ``outputs/`` after each commit of this process that touched a node with files.

    Only what the commit changed is read (:class:`ArtifactGraph`) and only the files whose bytes or names it
    changed are written (``place(trust_index=True)``); an ``outputs/`` folder that is gone has no index, so it
    is rebuilt whole.  A failure here must never fail the commit it follows (the canvas is the truth,
    ``outputs/`` only a view that ``status`` rebuilds), so it is reported on stderr and dropped.
    """
    store = project.store
    graph = ArtifactGraph()
    following = threading.Lock()  # parallel branches of one turn commit, and so refresh, from several threads

    def refresh(record: Any) -> None:
        try:
            with following:
                known = graph.follow(record)
                if not record.with_outputs:  # the store knows which nodes it wrote: no read to find out
                    return
                if not known:
                    graph.load(store, record.canvas_version)
                # Placed under the same lock: a later commit's plan is never overwritten by an earlier one's.
                place(project.root / OUTPUTS_DIR, graph.plan(), project.artifacts, trust_index=True)
        except Exception as error:  # noqa: BLE001 - see the docstring
            print(f"jarvishub: outputs/ not refreshed after commit {record.canvas_version}: {error}",
                  file=sys.stderr)

    store.on_commit(refresh)
