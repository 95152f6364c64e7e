"""Which ports a process itself listens on: what tells a command that the running engine is ours."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from store import process


def _listener(family: socket.AddressFamily, host: str) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.bind((host, 0))
    sock.listen()
    return sock


def test_listens_on_finds_our_ipv4_and_ipv6_listeners_and_agrees_with_the_full_tables():
    with _listener(socket.AF_INET, "127.0.0.1") as v4, _listener(socket.AF_INET6, "::1") as v6:
        ports = (v4.getsockname()[1], v6.getsockname()[1])
        assert process.listens_on(os.getpid(), ports)
        assert set(ports) <= process.listening_ports(os.getpid())
        # Connections in other states follow the listening rows in the tables: they never count.
        with socket.create_connection(("127.0.0.1", ports[0])) as client:
            assert not process.listens_on(os.getpid(), (client.getsockname()[1],))
            assert process.listens_on(os.getpid(), ports)


def test_a_port_someone_else_listens_on_or_nobody_does_is_not_ours():
    other = subprocess.Popen(
        [sys.executable, "-c", "import socket, sys\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\ns.listen()\n"
                               "print(s.getsockname()[1], flush=True)\nsys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        theirs = int(other.stdout.readline())  # type: ignore[union-attr]
        assert process.listens_on(other.pid, (theirs,))
        with _listener(socket.AF_INET, "127.0.0.1") as mine:
            assert not process.listens_on(os.getpid(), (theirs,))
            assert not process.listens_on(other.pid, (theirs, mine.getsockname()[1]))
        with socket.socket() as bound_only:  # bound but not listening
            bound_only.bind(("127.0.0.1", 0))
            assert not process.listens_on(os.getpid(), (bound_only.getsockname()[1],))
    finally:
        other.communicate("")
    assert not process.listens_on(other.pid, (theirs,))  # the process is gone
