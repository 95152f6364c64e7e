"""Which servers the probe gate lets a user query reach, from what the cluster's servers say about themselves
(``store/probe_gate.py``); the gate against a real 3-server cluster is in tests/cluster/test_probe_gate.py."""

from __future__ import annotations

import pytest

from store.errors import NoProbedServer
from store.leader import ClusterMember, LeaderTracker, MemberView
from store.probe_gate import ProbeGate, incarnation

A, B, C = (ClusterMember(name=n, bolt_port=p, http_port=p + 1) for n, p in (("a", 10), ("b", 20), ("c", 30)))


def views(*, b_joined: str = "10:00:05", c_online: bool = True, b_started: str = "10:00:04") -> list[MemberView]:
    online = {"b": b_joined, **({"c": "10:00:06"} if c_online else {})}
    return [MemberView(A, "Leader", "a", frozenset(online), "DONE", "10:00:00", tuple(sorted(online.items()))),
            MemberView(B, "Replica", "a", frozenset(), "DONE", b_started),
            MemberView(C, "Replica", "a", frozenset(), "DONE", "10:00:06")]


def test_a_restart_or_a_rejoin_is_a_new_incarnation_and_a_server_outside_the_cluster_has_none():
    first = incarnation(B, views(), 3)
    assert first is not None and first == incarnation(B, views(), 3)
    assert incarnation(B, views(b_joined="10:07:00"), 3) != first  # rejoined its leader
    assert incarnation(B, views(b_started="10:07:00"), 3) != first  # started again
    assert incarnation(C, views(c_online=False), 3) is None  # its leader does not count it online
    assert incarnation(B, views()[1:], 3) is None  # no leader that a majority names answers


class Tracker(LeaderTracker):
    """The cluster's views as given (the servers' answers), for the gate's bookkeeping."""

    def __init__(self, seen: list[MemberView]) -> None:
        super().__init__([A, B, C], ("root", "x"))
        self.seen = seen

    def views(self) -> list[MemberView]:
        return self.seen


def test_the_gate_probes_once_per_incarnation_and_fails_closed_when_none_passes():
    probed: list[str] = []
    refusing = {"a": True, "b": True, "c": False}
    tracker = Tracker(views())
    gate = ProbeGate(tracker, lambda member, database: probed.append(member.name) or refusing[member.name])
    assert gate.admitted("canvas", [A, B, C]) == [A, B] and probed == ["a", "b", "c"]
    assert gate.admitted("canvas", [A, B, C]) == [A, B] and probed == ["a", "b", "c", "c"]  # c never passed
    tracker.seen = views(b_joined="10:09:00")  # b rejoined: probed again before it answers
    refusing["b"] = False
    assert gate.admitted("canvas", [A, B, C]) == [A]
    gate.forget("a")  # a starts again
    refusing["a"] = False
    with pytest.raises(NoProbedServer, match="a: it did not refuse"):
        gate.admitted("canvas", [A, B, C])
