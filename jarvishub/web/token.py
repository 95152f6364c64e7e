"""Where the web canvas's token comes from, and how a browser is handed it without a command line showing it.

The token is the only thing between another local user and the canvas: every read and every write needs it.
A command line is readable by every user of the machine (``ps``, ``/proc/PID/cmdline``), so the token never
rides on one: it comes from ``$JARVISHUB_UI_TOKEN``, from a file only its owner can read (``--token-file``),
or is made at start.  The page gets it from its address's ``#token=`` fragment (never sent to a server);
``--open`` opens a private file that forwards there, so the browser's command line carries a path, not the
token.
"""

from __future__ import annotations

import html
import json
import os
import secrets
import stat
from pathlib import Path

TOKEN_ENV = "JARVISHUB_UI_TOKEN"
MAX_TOKEN_BYTES = 4096


class TokenRefused(ValueError):
    """A token given in a way that would leak it (a command line, a file others can read) or a bad token file."""


def new_token() -> str:
    """A random 192-bit token."""
    return secrets.token_urlsafe(24)


def read_token_file(path: Path) -> str:
    """The token in ``path``: a regular file of yours that no one else can read or write (mode 0600 or 0400).

    Opened without following a symlink, and checked on the opened file, so a link or a swap after the check
    is refused rather than read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise TokenRefused(f"cannot read the token file {path}: {error.strerror or error}"
                           + (" (a symlink is refused)" if error.errno == 40 else "")) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise TokenRefused(f"the token file {path} is not a regular file")
        if info.st_uid != os.geteuid():
            raise TokenRefused(f"the token file {path} belongs to another user (uid {info.st_uid})")
        if info.st_mode & 0o077:
            raise TokenRefused(f"the token file {path} is readable or writable by others (mode "
                               f"{stat.S_IMODE(info.st_mode):04o}); run: chmod 600 {path}")
        data = os.read(fd, MAX_TOKEN_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_TOKEN_BYTES:
        raise TokenRefused(f"the token file {path} holds more than {MAX_TOKEN_BYTES} bytes; a token is one line")
    token = data.decode("utf-8", "replace").strip()
    if not token or any(c.isspace() for c in token):
        raise TokenRefused(f"the token file {path} must hold one token (one line, no spaces)")
    return token


def opener_file(folder: Path, url: str) -> Path:
    """A private HTML file (0600, in ``folder``) that forwards a browser to ``url``: what ``--open`` opens."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / f"ui-open-{secrets.token_hex(8)}.html"
    page = ("<!doctype html><meta charset=utf-8><meta name=referrer content=no-referrer>"
            f"<title>JarvisHub canvas</title><script>location.replace({json.dumps(url)})</script>"
            f"<a href=\"{html.escape(url)}\">Open the canvas</a>")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(page)
    return path


__all__ = ["TOKEN_ENV", "TokenRefused", "new_token", "opener_file", "read_token_file"]
