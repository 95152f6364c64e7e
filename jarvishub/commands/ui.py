"""``jarvishub ui``: serve the web canvas, with a clear word when the port is taken."""

from __future__ import annotations

import argparse
import errno
import os
import socket
from pathlib import Path
from typing import Any

from jarvishub.commands.common import EXIT_BAD_INPUT, EXIT_OK, bounded, command, print_error, project_path


def add_parser(sub: Any) -> None:
    """Register ui."""
    p = command(sub, "ui", cmd_ui, "serve the web canvas", "jarvishub ui my-film --port 0")
    p.add_argument("dir", nargs="?", help="the project (default: the one you stand in)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=bounded(int, 0, 65535), default=8765,
                   help="the port (default 8765; 0 picks a free one)")
    p.add_argument("--token-file", metavar="PATH",
                   help="read the token from this file (yours, mode 0600); default $JARVISHUB_UI_TOKEN, else a new one")
    # Refused with a word on why: a command line is readable by every local user.
    p.add_argument("--token", help=argparse.SUPPRESS)
    p.add_argument("--allow-remote", action="store_true",
                   help="allow a non-loopback --host (needs a token from --token-file or $JARVISHUB_UI_TOKEN)")
    p.add_argument("--person", help="the name your changes are recorded under (default: your user name)")
    p.add_argument("--open", action="store_true", help="open the page in a browser")


def port_taken(host: str, port: int) -> bool:
    """Whether something already listens on host:port (checked before the engine starts, to fail fast)."""
    if port == 0:
        return False
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return True
            raise
    return False


def _taken(args: argparse.Namespace) -> int:
    print_error(args, EXIT_BAD_INPUT, f"error: port {args.port} on {args.host} is taken (another `jarvishub ui`?); "
                                      "pass --port 0 to pick a free one, or --port N")
    return EXIT_BAD_INPUT


def cmd_ui(args: argparse.Namespace) -> int:
    """Serve the web canvas on 127.0.0.1 (another interface needs --allow-remote and a token)."""
    from jarvishub.web.token import TOKEN_ENV, TokenRefused, read_token_file

    if args.token is not None:
        print_error(args, EXIT_BAD_INPUT, "error: --token is refused: a command line is readable by every user of "
                                          f"this machine; put the token in a file only you can read and pass "
                                          f"--token-file PATH, or set ${TOKEN_ENV}")
        return EXIT_BAD_INPUT
    try:
        token = read_token_file(Path(args.token_file)) if args.token_file else os.environ.get(TOKEN_ENV) or None
    except TokenRefused as refused:
        print_error(args, EXIT_BAD_INPUT, f"error: {refused}")
        return EXIT_BAD_INPUT
    root = project_path(args)
    if port_taken(args.host, args.port):
        return _taken(args)
    from jarvishub.web import serve

    try:
        serve(root, host=args.host, port=args.port, token=token, allow_remote=args.allow_remote, person=args.person,
              open_browser=args.open)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:  # taken between the check and the bind
            return _taken(args)
        raise
    return EXIT_OK
