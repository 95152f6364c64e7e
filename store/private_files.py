"""Project state that another local user cannot read or subvert.

A project's ``.jarvishub/`` holds the engine's passwords, the checkpoints and the user's words.  Another
account on the machine must neither read them nor make JarvisHub write them somewhere it can read, so:

* a state folder is used only when it is a real folder (never a symlink), owned by the current user, and
  writable by nobody else (:func:`ensure_private_dir`); the project folder above it must be ours and not
  writable by others either (:func:`check_project_folder`);
* secret and state files are written as git writes its lock files: a fresh temporary file created with
  ``O_CREAT | O_EXCL | O_NOFOLLOW`` (mode 0600) in the same folder, then renamed over the target
  (:func:`write_private`); a rename replaces a planted symlink, it never writes through it;
* files opened in place (SQLite databases, lock files, leases) are opened with ``O_NOFOLLOW`` and checked
  to be regular files of ours before use (:func:`create_private_file`).

Only the standard library is imported: the engine's supervisor (:mod:`store.lifecycle`) uses this too.
"""

from __future__ import annotations

import grp
import os
import pwd
import secrets
import stat
from pathlib import Path


class UnsafeStateDir(PermissionError):
    """A project or state folder another local user could write to, or that is not the current user's.

    JarvisHub refuses to use it rather than write secrets where someone else can read or redirect them.
    """

    def __init__(self, path: Path, why: str) -> None:
        self.path = Path(path)
        self.why = why
        super().__init__(f"{path} {why}; another local user could read or redirect the project's secrets "
                         f"there, so JarvisHub will not use it")

    def __str__(self) -> str:
        return str(self.args[0])


def _group_has_others(gid: int, uid: int) -> bool:
    """Whether any account other than ``uid`` is in group ``gid`` (as a member or as its primary group).

    A user private group (Debian and Ubuntu give each user one, with umask 002) holds only its user, so
    its write bit lets nobody else in.
    """
    try:
        members = set(grp.getgrgid(gid).gr_mem)
    except KeyError:
        return True  # a group with no entry: we cannot say who is in it
    me = _user_name(uid)
    if members - {me}:
        return True
    return any(entry.pw_gid == gid and entry.pw_uid != uid for entry in pwd.getpwall())


def _user_name(uid: int) -> str | None:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return None


def writable_by_others(info: os.stat_result, uid: int | None = None) -> bool:
    """Whether an account other than ``uid`` (default: us) may create, rename or remove entries here."""
    uid = os.geteuid() if uid is None else uid
    if info.st_mode & stat.S_IWOTH:
        return True
    return bool(info.st_mode & stat.S_IWGRP) and _group_has_others(info.st_gid, uid)


def _owner_note(info: os.stat_result) -> str:
    name = _user_name(info.st_uid)
    return f"uid {info.st_uid}" + (f" ({name})" if name else "")


def check_owned_dir(path: Path, info: os.stat_result | None = None) -> os.stat_result:
    """``path`` is a real folder of the current user that nobody else can write to; else :class:`UnsafeStateDir`."""
    path = Path(path)
    info = os.lstat(path) if info is None else info
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeStateDir(path, "is a symbolic link")
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafeStateDir(path, "is not a folder")
    if info.st_uid != os.geteuid():
        raise UnsafeStateDir(path, f"belongs to {_owner_note(info)}, not to you (uid {os.geteuid()})")
    if writable_by_others(info):
        raise UnsafeStateDir(path, f"can be written by other users (mode {stat.S_IMODE(info.st_mode):o}): "
                                   f"`chmod go-w {path}` if that is safe")
    return info


def check_project_folder(root: Path) -> None:
    """The project folder is ours and only ours to write (so nobody else can swap its ``.jarvishub/``).

    Folders above the project are not checked: one that others may write without the sticky bit would let them
    rename the whole project away, but what they put in its place is then refused by this same check.
    """
    check_owned_dir(Path(root), os.stat(root))


def ensure_private_dir(path: Path, *, follow: bool = False) -> Path:
    """Create ``path`` (one level, mode 0700) if missing, and check it is ours alone; returns it.

    An existing folder of ours that others may only read is narrowed to 0700.  With ``follow`` a symlink to
    such a folder is accepted (``outputs/`` or ``workspace/`` kept on another disk); inside ``.jarvishub/``
    nothing is followed.
    """
    path = Path(path)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    info = check_owned_dir(path, os.stat(path) if follow else None)
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(path, 0o700)
    return path


def ensure_private_tree(base: Path, *parts: str) -> Path:
    """:func:`ensure_private_dir` for ``base`` and each folder below it named by ``parts``; returns the last."""
    folder = ensure_private_dir(base)
    for part in parts:
        folder = ensure_private_dir(folder / part)
    return folder


def _check_file(path: Path, info: os.stat_result) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeStateDir(path, "is not a regular file")
    if info.st_uid != os.geteuid():
        raise UnsafeStateDir(path, f"belongs to {_owner_note(info)}, not to you (uid {os.geteuid()})")


def create_private_file(path: Path) -> None:
    """Make sure ``path`` is a regular file of ours, mode 0600 (created empty if missing), never via a symlink."""
    fd = open_private(path, os.O_WRONLY | os.O_CREAT)
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)


def open_private(path: Path, flags: int = os.O_RDWR | os.O_CREAT) -> int:
    """An fd on ``path`` (created 0600 when ``O_CREAT`` is in ``flags``), never through a symlink; checked to be
    a regular file of ours.  For lock files and leases."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as error:
        if os.path.islink(path):
            raise UnsafeStateDir(Path(path), "is a symbolic link") from error
        raise
    try:
        _check_file(Path(path), os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_private(path: Path) -> bytes:
    """The bytes of a state file, refusing a symlink (``OSError`` when it is missing)."""
    fd = open_private(path, os.O_RDONLY)
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def write_private(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``, mode 0600, the way git writes through its lock files.

    The bytes go to a new file in the same folder, created with ``O_EXCL | O_NOFOLLOW`` under a random name
    (so nothing planted in advance is opened), then renamed over ``path``: the rename replaces whatever
    ``path`` was, a symlink included, and never writes through it.  Folder operations go through one fd
    opened with ``O_NOFOLLOW``, so the folder cannot be swapped for a link between the steps.
    """
    path = Path(path)
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        temp = f".{path.name}.{secrets.token_hex(6)}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                     dir_fd=folder)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(temp, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            try:
                os.unlink(temp, dir_fd=folder)
            except OSError:
                pass
            raise
    finally:
        os.close(folder)
