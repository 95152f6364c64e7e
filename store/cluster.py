"""A replicated canvas engine: N ArcadeDB servers with ArcadeDB's own HA replication, on loopback.

Each server gets its own folder (databases, users file, replication log) and
free loopback ports for HTTP, Bolt and replication; they find each other
through ``arcadedb.ha.serverList`` and elect a leader.  The leader replicates
every transaction to a quorum (``arcadedb.ha.quorum``, majority by default:
2 of 3) before it commits it and answers, so a commit the store was told about
survives the leader's death.  Schema changes and database creation need every
server online (ArcadeDB replicates them with a quorum of all servers).

As for the embedded engine, the users file (root and the read-only account,
hashed) is written into each server's folder before it starts: no password on
a command line or in an environment.  The store writes and reads through
:class:`store.leader.LeaderDriver`, which follows the leader across failovers.

The servers are children of the process that starts them and die with it
(``PR_SET_PDEATHSIG``), so a crashed test run leaves no JVM behind.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import re
import secrets
import signal
import shutil
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from store.arcadedb_security import write_security_files
from store.cluster_client import ArcadeClusterClient
from store.embedded import _child_env, _port_open
from store.engine import EngineLimits
from store.errors import EngineUnavailable
from store.ha_runtime import HaRuntime, require_ha_runtime
from store.leader import ClusterMember, MemberView
from store.process import free_ports

_log = logging.getLogger(__name__)
_START_TIMEOUT_S = 120.0
_SETTLE_S = 30.0
"""The longest a (re)started server is left alone before it may be judged stuck: a JVM under load can take that
long to answer at all."""
_SETTLED_AFTER_S = 10.0
"""How long after its start a server that answers its HTTP status is left alone: by then it has tried to join the
leader (one connection, bounded by the socket timeout) or called an election."""
_STALL_S = 12.0
"""How long without a usable leader before a stuck server is restarted.  A clean failover has a leader with its
majority within about 7 s here; the paths 26.3 heals by itself take about that much too (a replica retries its
old leader 3 times 2 s apart before it calls an election; a deadlocked election ends after two socket timeouts,
10 s).  A restart costs a few seconds, and a server restarted early is harmless: the quorum holds every
acknowledged commit, and it catches up from the leader."""
_DIVERGED = re.compile(r"Cannot apply changes to the database|"
                       r"Exception during execution of request \d+ .*ConcurrentModificationException|"
                       r"Found a jump \(\d+\) in message numbers")
"""What a replica logs when it cannot apply a transaction the leader replicated: its pages diverged, or it
missed a message (after a transaction that timed out waiting for its quorum, 26.3's leader keeps numbering
but no longer logs what it sends, so a replica that reconnects can never catch up message by message)."""
_WEDGED = re.compile(r"Found a jump \(\d+\) in message numbers|"
                     r"Timeout waiting for quorum \(\d+\) to be reached for request \d+")
"""What a leader logs once its replication log has a gap: the quorum timeout itself (26.3's
``HAServer.sendCommandToReplicasWithQuorum`` has already taken the message's number, and logs the message only
once the quorum answered), or a later refusal to log.  Seen here: the leader logged only the timeouts, never a
jump, while each replica given a full copy skipped every later message."""
_PR_SET_PDEATHSIG = 1
_SOCKET_TIMEOUT_MS = 5_000
"""``arcadedb.network.socketTimeout`` (26.3's default: 30 s).  It bounds every read on a socket a server opened
to another: the election deadlock (two survivors voting for each other, each one's replication listener waiting
to be answered by the other's, docs/scaling.md) lasts two of these, 60 s with the default, 10 s with this.  What
else waits on it, all on loopback: a replica reading the next message from its leader (a timeout is ignored and
it reads again), a replica's join (a few small requests, then the database files 10 pages, at most 640 KB, per
round trip), a vote, and the HTTP server's read of a request (the store sends each request whole on a new
connection).  5 s is 10 to 100 times what any of these takes here under load; the leader's own reads of its
replicas' acknowledgements are not bounded by it (sockets it accepted), and its quorum wait is
``arcadedb.ha.quorumTimeout`` (10 s, kept: a commit that times out waiting wedges 26.3's replication log)."""


def _die_with_parent() -> None:
    """Runs in the child before exec: the kernel kills it when the starting thread's process dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


@dataclass
class ClusterServer:
    """One server of the cluster as started here: where it listens and its process."""

    member: ClusterMember
    ha_port: int
    root: Path
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    """When its process was last started (``time.monotonic``)."""
    log_read: int = 0
    """How much of its ``server.log`` :meth:`ArcadeClusterEngine._resync_diverged` has read."""
    killed: bool = False
    """Stopped on purpose (:meth:`ArcadeClusterEngine.kill`), so its exit is not a start failure."""

    @property
    def running(self) -> bool:
        """Whether its process is alive."""
        return self.process is not None and self.process.poll() is None

    def settling(self, answering: bool) -> bool:
        """Started too recently to be judged: a JVM under load takes seconds to start and join.  ``answering``:
        whether it answered its HTTP status just now (one that does not is given longer)."""
        age = time.monotonic() - self.started_at
        return age < _SETTLED_AFTER_S or (age < _SETTLE_S and not answering)


class ArcadeClusterEngine(ArcadeClusterClient):
    """N ArcadeDB servers replicating each other, started here; the store talks to whichever leads."""

    def __init__(
        self,
        data_dir: Path,
        *,
        servers: int = 3,
        heap: str = "256m",
        quorum: str = "majority",
        default_database: str = "canvas",
        limits: EngineLimits | None = None,
        runtime: HaRuntime | None = None,
        election_timeout_s: float = 120.0,
    ) -> None:
        if servers < 1:
            raise ValueError("a cluster needs at least one server")
        self.data_dir = Path(data_dir).resolve()
        self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.data_dir, 0o700)
        self.runtime = runtime or require_ha_runtime()
        self._heap = heap
        self._quorum = quorum
        self._cluster_name = "jarvishub-" + secrets.token_hex(4)
        self._password = secrets.token_urlsafe(24)
        self._reader_password = secrets.token_urlsafe(24)
        ports = free_ports(3 * servers)
        self.servers = [
            ClusterServer(
                member=ClusterMember(name=f"node{i}", bolt_port=ports[3 * i], http_port=ports[3 * i + 1]),
                ha_port=ports[3 * i + 2],
                root=self.data_dir / f"node{i}",
            )
            for i in range(servers)
        ]
        self.rejoins: list[str] = []
        """Servers restarted because they failed to rejoin the leader (see :meth:`_rejoin_stuck`)."""
        self.resyncs: list[str] = []
        """Replicas given a fresh copy of the databases because they diverged (see :meth:`_resync_diverged`)."""
        self._stall_restarts: dict[str, float] = {}
        """When :meth:`_rejoin_stuck` last restarted each server (``time.monotonic``)."""
        self._offline_restarts: dict[str, float] = {}
        """When :meth:`_rejoin_stuck` last restarted each server the leader did not count online."""
        self._resync_lock = threading.Lock()
        self._launcher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arcadedb-launcher")
        super().__init__(
            [s.member for s in self.servers],
            password=self._password,
            reader_password=self._reader_password,
            state_dir=self.data_dir,
            default_database=default_database,
            limits=limits,
            election_timeout_s=election_timeout_s,
            on_stall=self._rejoin_stuck,
            on_quorum_loss=self._repair_after_lost_commit,
            stall_after_s=_STALL_S,
        )
        try:
            self._start_staggered()
        except BaseException:
            self.stop()
            raise

    # -- servers -----------------------------------------------------------------
    def _command(self, server: ClusterServer) -> list[str]:
        server_list = ",".join(f"127.0.0.1:{s.ha_port}" for s in self.servers)
        member = server.member
        return [
            str(self.runtime.java),
            f"-Xmx{self._heap}",
            "-XX:+UseSerialGC",
            "-Djava.awt.headless=true",
            "-Dfile.encoding=UTF8",
            "-cp",
            self.runtime.classpath,
            f"-Darcadedb.server.rootPath={server.root}",
            f"-Darcadedb.server.databaseDirectory={server.root / 'databases'}",
            f"-Darcadedb.server.name={member.name}",
            "-Darcadedb.server.httpIncomingHost=127.0.0.1",
            f"-Darcadedb.server.httpIncomingPort={member.http_port}",
            "-Darcadedb.server.plugins=Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
            "-Darcadedb.bolt.host=127.0.0.1",
            f"-Darcadedb.bolt.port={member.bolt_port}",
            "-Darcadedb.server.mode=development",
            "-Darcadedb.serverMetrics=false",
            "-Darcadedb.opencypher.loadCsv.allowFileUrls=false",
            f"-Darcadedb.command.timeout={int(self.limits.statement_timeout_s * 1000)}",
            # Replication: every member is listed; each listens on its own loopback port.
            # Background index compaction and page defragmentation rewrite pages outside any transaction the
            # leader replicates; off, as a precaution (they are not what breaks deletes, see docs/scaling.md).
            "-Darcadedb.bucketReuseSpaceMode=low",
            "-Darcadedb.indexCompactionMinPagesSchedule=0",
            "-Darcadedb.ha.enabled=true",
            f"-Darcadedb.ha.clusterName={self._cluster_name}",
            f"-Darcadedb.ha.serverList={server_list}",
            "-Darcadedb.ha.replicationIncomingHost=127.0.0.1",
            f"-Darcadedb.ha.replicationIncomingPorts={server.ha_port}",
            f"-Darcadedb.ha.quorum={self._quorum}",
            f"-Darcadedb.network.socketTimeout={_SOCKET_TIMEOUT_MS}",
            "com.arcadedb.server.ArcadeDBServer",
        ]

    def _launch(self, server: ClusterServer) -> None:
        write_security_files(
            server.root / "config",
            root_password=self._password,
            reader_password=self._reader_password,
            reader_row_limit=self.limits.user_row_limit,
            reader_timeout_ms=int(self.limits.statement_timeout_s * 1000),
        )
        # A server that starts again has passed no probe yet: no user query goes to it until one passes.
        self.user_queries.gate.forget(server.member.name)
        log = os.open(server.root / "server.log", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        server.log_read = os.fstat(log).st_size
        try:
            server.started_at = time.monotonic()
            # Spawned from the engine's own launcher thread: the kernel's parent-death signal follows the thread
            # that forks, and a server restarted from a short-lived thread (a writer's commit that found the
            # cluster stuck) was killed the moment that thread ended (seen here).
            server.process = self._launcher.submit(
                subprocess.Popen, self._command(server), stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, cwd=server.root, env=_child_env(), preexec_fn=_die_with_parent,
            ).result()
        finally:
            os.close(log)

    def _start_staggered(self) -> None:
        """Start the servers one after another, each once the ones before it agree on a leader.

        ArcadeDB 26.3 elects by votes over its replication ports; servers started at the same instant run
        competing elections, and one can give up its HA service for good ("Error starting HA service").
        Started in turn, the first two elect a leader and every later one joins it as a replica.
        """
        first = self.servers[0]
        self._launch(first)
        deadline = time.monotonic() + _START_TIMEOUT_S
        while not _port_open(first.member.http_port):
            self._check_alive()
            if time.monotonic() > deadline:
                raise EngineUnavailable(f"ArcadeDB server {first.member.name} did not open its HTTP port; "
                                        f"see {first.root / 'server.log'}")
            time.sleep(0.05)
        majority = len(self.servers) // 2 + 1
        for count, server in enumerate(self.servers[1:], start=2):
            self._launch(server)
            if count >= majority:
                self.wait_until_replicated(count)

    def _check_alive(self) -> None:
        for server in self.servers:
            if server.process is not None and server.process.poll() is not None and not server.killed:
                raise EngineUnavailable(
                    f"ArcadeDB server {server.member.name} exited while starting; see {server.root / 'server.log'}"
                )

    def wait_until_replicated(self, online: int, *, timeout_s: float = _START_TIMEOUT_S) -> ClusterMember:
        """Wait until ``online`` servers (leader included) are up and replicating; return the leader."""
        deadline = time.monotonic() + timeout_s
        stalled_at = time.monotonic() + _STALL_S
        while True:
            self._check_alive()
            views = self.tracker.views()
            found = self.tracker.find_leader(views)
            if found is not None and not self._resync_diverged(found.member) \
                    and len(found.online_replicas) + 1 >= online:
                return found.member
            if time.monotonic() > stalled_at:
                self._rejoin_stuck(views)
                stalled_at = time.monotonic() + _STALL_S
            if time.monotonic() > deadline:
                raise EngineUnavailable(
                    f"the ArcadeDB cluster did not reach {online} replicating servers within {timeout_s:.0f} s; "
                    f"see the server.log files under {self.data_dir}"
                )
            time.sleep(0.1)

    def wait_until_all_online(self, *, timeout_s: float = _START_TIMEOUT_S) -> ClusterMember:
        """Wait until every server not killed on purpose replicates from an agreed leader (restarting one that
        dropped out, see :meth:`_rejoin_stuck`); return the leader.  Database creation and schema changes need
        every server, and a failover drill needs the majority that is left after the kill."""
        return self.wait_until_replicated(sum(1 for server in self.servers if not server.killed), timeout_s=timeout_s)

    def _rejoin_stuck(self, views: list[MemberView]) -> None:
        """Restart the servers that keep the cluster from having a leader with a majority online.

        ArcadeDB 26.3 gives up a replica's HA service for good when its join to a new leader fails
        ("Error starting HA service", seen here after a failover); the server keeps running outside the
        cluster, and a leader without a majority cannot commit.  A restarted server joins again.

        Its election can also deadlock: when the leader dies, two survivors may call elections at the same
        instant and vote for each other; each then waits for the other (a socket timeout, twice: 60 s with 26.3's
        default, 10 s with ours) while both call themselves leader, and the one a peer could not reach can stay
        stuck after that (seen here).  ArcadeDB reports that state as an election that never ended
        (``electionStatus`` ``LEADER_WAITING_FOR_QUORUM``) on a server calling itself leader, which the other one
        cannot connect to: that server is restarted, and the two elect again.  Nothing is restarted while a
        server may still be joining: started less than 10 s ago, or less than 30 s ago and not yet answering.
        """
        majority = len(self.servers) // 2 + 1
        summary = "; ".join(f"{v.member.name}: role {v.role or '-'}, leader {v.leader}, election "
                            f"{v.election_status or '-'}, online replicas {sorted(v.online_replicas)}" for v in views)
        running = [s for s in self.servers if s.running]
        answering = {v.member.name for v in views}
        if any(server.settling(server.member.name in answering) for server in running):
            return  # one was (re)started moments ago: give it time to join before judging again
        # A server this restarted for the stall, with still no usable leader, was the wrong one: its peer is the
        # stuck one (seen here: a survivor whose replication listener no longer answers, while the other one was
        # restarted five times in a row, 66 s without a leader).  The next restart goes to another server.
        again = {name for name, at in self._stall_restarts.items() if time.monotonic() - at < 3 * _STALL_S}
        by_status = {v.member.name: v.election_status for v in views}
        for leader in views:
            if leader.role != "Leader" or sum(1 for v in views if v.leader == leader.member.name) < majority:
                continue
            if leader.election_status not in ("", "DONE"):
                # Elected, but still waiting for the replicas it cannot accept while its own election is open.
                name = leader.member.name
                if name in again:
                    name = next((s.member.name for s in reversed(running)
                                 if s.member.name != name and by_status.get(s.member.name) not in ("", "DONE")),
                                None) or next((s.member.name for s in reversed(running) if s.member.name != name), name)
                _log.warning("restarting ArcadeDB server %s: %s leads but its election never ended (%s)",
                             name, leader.member.name, summary)
                self._stall_restart(name)
                return
            for server in running:
                name = server.member.name
                if name == leader.member.name or name in leader.online_replicas:
                    continue
                restarted = self._offline_restarts.get(name)
                self._offline_restarts[name] = time.monotonic()
                if restarted is not None and time.monotonic() - restarted < 3 * _STALL_S and \
                        len(leader.online_replicas) + 1 >= majority:
                    # A restart did not bring it back: the leader cannot send it what it missed (seen here after
                    # a replica given a full copy came to lead: its replication log starts after the position the
                    # other asks for, "Invalid position (-1) in replication log", and every restart asks again).
                    # The leader has its majority without it, so a full copy loses nothing acknowledged.
                    _log.warning("giving ArcadeDB server %s a full copy: leader %s still does not count it online "
                                 "after a restart (%s)", name, leader.member.name, summary)
                    with self._resync_lock:
                        self.resyncs.append(name)
                        self._wipe(server)
                        self.restart(name)
                    continue
                _log.warning("restarting ArcadeDB server %s: leader %s does not count it online (%s)",
                             name, leader.member.name, summary)
                self._restart_server(name)
            return
        # No leader that a majority names.  The one elected but waiting for a quorum it cannot get (it accepts
        # no replica while its election is open) is the one its peer waits for; restarted, the two elect again.
        named = {v.leader for v in views if v.leader and v.leader != v.member.name}
        pool = [s for s in running if s.member.name not in again] or running
        # First a server that calls itself leader while voting for another: it took the other's election result
        # and could not join it; most often (three stalls of four here) it is the one whose replication listener
        # stopped answering, and restarting its peer did not help.  When it is not, the rotation above picks
        # the peer at the next stall.
        stuck = {v.member.name for v in views if v.role == "Leader" and v.election_status == "VOTING_FOR_OTHERS"}
        choice = next((s for s in reversed(pool) if s.member.name in stuck), None) \
            or next((s for s in reversed(pool) if by_status.get(s.member.name) == "LEADER_WAITING_FOR_QUORUM"),
                    None) \
            or next((s for s in reversed(pool) if by_status.get(s.member.name) not in (None, "", "DONE")), None) \
            or next((s for s in reversed(pool) if s.member.name not in named), None)
        if choice is not None:
            _log.warning("restarting ArcadeDB server %s: no leader that a majority names (%s)",
                         choice.member.name, summary)
            self._stall_restart(choice.member.name)

    def _new_log(self, server: ClusterServer) -> str:
        """What ``server`` logged since this was last asked (or since it started)."""
        try:
            with open(server.root / "server.log", "rb") as handle:
                handle.seek(server.log_read)
                text = handle.read().decode(errors="replace")
                server.log_read = handle.tell()
        except OSError:
            return ""
        return text

    def _repair_after_lost_commit(self, member: ClusterMember) -> None:
        """A commit on ``member`` failed for want of its replicas: repair the replicas of whoever leads now.

        After a quorum timeout ``member`` still leads; when its replicas refused the transaction and elected
        another meanwhile, the new leader is the one whose replicas are checked (checking against ``member`` would
        take the new leader for a diverged replica and wipe it).  With no leader yet, this waits for one with its
        majority, which checks its replicas the same way."""
        current = self.tracker.find_leader()
        if current is None:
            self.wait_until_replicated(len(self.servers) // 2 + 1)
        else:
            self._resync_diverged(current.member)

    def _resync_diverged(self, leader: ClusterMember) -> bool:
        """Give each replica that cannot apply what the leader sends a fresh copy of the databases, and restart
        a leader whose replication log stopped taking messages.

        ArcadeDB 26.3's replicas fall behind the leader's page versions after some deletes (docs/scaling.md);
        such a replica refuses the transaction ("Cannot apply changes to the database because modified page …
        version … does not match"), reconnects, is counted online again, and refuses every later one, so the
        leader's commits time out waiting for a quorum.  ALIGN DATABASE after each deleting commit prevents
        most of it, not all (it compares the files on disk, while the leader's newest pages may still be in
        memory).  Killed, emptied and restarted, the replica joins with no database and the leader sends it a
        full copy; it holds nothing the leader lacks (it could apply nothing since it diverged).

        A transaction that timed out waiting for its quorum leaves a gap in the leader's message numbers, and
        26.3's leader then logs no later message ("Found a jump" in its own log): every replica that
        reconnects is resent nothing and skips all that follows, a full copy included (it names the leader's
        last logged message).  Such a leader is stopped cleanly and started again (it reads its numbering back
        from its log); the cluster elects again meanwhile, as in a failover.  Returns whether anything was done.
        """
        with self._resync_lock:
            diverged = [s for s in self.servers if s.member != leader and s.running and _DIVERGED.search(self._new_log(s))]
            lead = self.server(leader.name)
            wedged = lead.running and _WEDGED.search(self._new_log(lead)) is not None
            if not diverged and not wedged:
                return False
            if wedged:
                _log.warning("restarting ArcadeDB server %s: it leads but its replication log stopped taking messages "
                             "after a quorum timeout", leader.name)
                self.rejoins.append(leader.name)
                self.stop_server(leader.name)
            for server in diverged:
                _log.warning("ArcadeDB server %s cannot apply what leader %s replicates (its pages diverged or it "
                             "missed a message); replacing its databases with a full copy", server.member.name,
                             leader.name)
                self.resyncs.append(server.member.name)
                self._wipe(server)
            if wedged:
                self.restart(leader.name)
            for server in diverged:
                self.restart(server.member.name)
            return True

    @staticmethod
    def _wipe(server: ClusterServer) -> None:
        """Kill a replica and throw away its databases, so that it joins again with nothing and the leader sends it
        a full copy.  Its replication log goes too: a replica that still names its last message is sent only what
        followed (a hot resync), which it cannot apply either."""
        assert server.process is not None
        server.process.kill()  # killed, not stopped: whatever it holds is thrown away next
        server.process.wait(timeout=30)
        for folder in ("databases", "replication"):
            shutil.rmtree(server.root / folder, ignore_errors=True)

    def _stall_restart(self, name: str) -> None:
        self._stall_restarts[name] = time.monotonic()
        self._restart_server(name)

    def _restart_server(self, name: str) -> None:
        self.rejoins.append(name)
        self.stop_server(name)
        self.restart(name)

    def stop_server(self, name: str) -> None:
        """Stop one server cleanly (SIGTERM, SIGKILL after 10 s: a stuck one may never finish shutting down)
        without marking it as killed on purpose."""
        server = self.server(name)
        if server.process is None or server.process.poll() is not None:
            return
        server.process.terminate()
        try:
            server.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait(timeout=30)

    def server(self, name: str) -> ClusterServer:
        """The server called ``name``."""
        for server in self.servers:
            if server.member.name == name:
                return server
        raise KeyError(f"no server {name!r} in this cluster")

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        """Signal one server (SIGKILL by default: a crash, no clean shutdown) and reap it."""
        server = self.server(name)
        if server.process is None:
            return
        server.killed = True
        with contextlib.suppress(ProcessLookupError):
            server.process.send_signal(sig)
        server.process.wait(timeout=60)

    def restart(self, name: str) -> None:
        """Start a stopped server again; it rejoins the cluster and catches up from the leader."""
        server = self.server(name)
        if server.running:
            return
        server.killed = False
        self._launch(server)

    # -- shutdown ----------------------------------------------------------------
    def close(self) -> None:
        """Close the drivers and stop every server (SIGTERM, then SIGKILL after 20 s)."""
        if self._closed:
            return
        super().close()
        self.stop()

    def stop(self, *, wait: bool = True) -> None:
        """Stop every server process this engine started (waiting for them whatever ``wait`` says: a cluster's
        members are this process's children, which it must reap)."""
        for server in self.servers:
            if server.running:
                assert server.process is not None
                server.process.terminate()
        deadline = time.monotonic() + 20
        for server in self.servers:
            if server.process is None:
                continue
            try:
                server.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                server.process.kill()
                server.process.wait(timeout=30)
        self._launcher.shutdown(wait=False)
