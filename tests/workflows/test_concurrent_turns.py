"""Turns that compose: four `jarvishub run` processes repair four shots of one project at once.

Each turn marks its own shot stale and rebuilds it, its clip and the shared cut. The cut is one lineage that
every turn supersedes: the commit of a new cut carries the version of the head it replaces, so a turn that
lost the race is refused as stale and rebuilds on the then-current clips. The test checks what a person
would: every run says it did what was asked, only the four shots (and the cut) changed, there is exactly
one current cut and it plays the current clips in shot order, and nothing was paid for twice.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from jarvishub.project import Project
from store.models import EdgeType, NodeStatus

pytestmark = pytest.mark.long_file(60)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
N_SHOTS = 6
REDONE = (1, 2, 3, 4)


def _cli(*args: str, cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(cwd)}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.Popen([sys.executable, "-m", "jarvishub.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)


def _finish(process: subprocess.Popen) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=300)
    return process.returncode, out, err


def _cache_entries(folder: Path) -> int:
    with sqlite3.connect(folder / ".jarvishub" / "generation-cache.sqlite") as db:
        return int(db.execute("SELECT COUNT(*) FROM generation_cache").fetchone()[0])


def _current(store, kind: str) -> dict[str, list]:
    """Title → the live (not rejected, so not superseded) versions of that title."""
    found: dict[str, list] = {}
    for node in store.find_nodes(kind=kind):
        if node.status != NodeStatus.REJECTED:
            found.setdefault(node.title, []).append(node)
    return found


def _hashes(store) -> dict[str, str]:
    nodes = {**_current(store, "image"), **_current(store, "video")}
    return {title: versions[0].outputs[0].sha256 for title, versions in nodes.items()}


@pytest.fixture(scope="module")
def concurrent(tmp_path_factory):
    """A 6-shot film, then four concurrent lighting redos; the engine stays up for the inspection."""
    folder = tmp_path_factory.mktemp("concurrent") / "film"
    code, _, err = _finish(_cli("init", str(folder), "--json", cwd=folder.parent))
    assert code == 0, err
    with Project.open(folder) as project:
        code, out, err = _finish(_cli("-C", str(folder), "run", "--json",
                                      f"a {N_SHOTS}-shot short drama about a lighthouse keeper", cwd=folder))
        assert code == 0 and json.loads(out)["outcome"] == "replied", err or out
        before = _hashes(project.store)
        entries_before = _cache_entries(folder)
        runs = [_cli("-C", str(folder), "run", "--json", f"redo the lighting on shot {n}", cwd=folder) for n in REDONE]
        finished = [_finish(run) for run in runs]
        yield project, before, entries_before, finished, folder


def test_four_concurrent_turns_all_succeed(concurrent):
    _, _, _, finished, _ = concurrent
    for n, (code, out, err) in zip(REDONE, finished):
        assert code == 0, f"shot {n}: exit {code}\n{out[-2000:]}\n{err[-2000:]}"
        outcome = json.loads(out)
        assert outcome["outcome"] == "replied", f"shot {n}: {outcome['reply']}"
        assert f"shot {n}" in outcome["reply"]


def test_each_turn_changed_only_its_shot_its_clip_and_the_cut(concurrent):
    project, before, _, _, _ = concurrent
    after = _hashes(project.store)
    assert set(after) == set(before)
    changed = sorted(title for title in before if before[title] != after[title])
    assert changed == sorted(["final cut", *(f"shot {n} image" for n in REDONE), *(f"shot {n} clip" for n in REDONE)])


def test_exactly_one_current_cut_of_the_current_clips_in_shot_order(concurrent):
    project, _, _, _, _ = concurrent
    store = project.store
    videos = _current(store, "video")
    cuts = videos.pop("final cut")
    assert len(cuts) == 1, [(c.id, c.status.value) for c in cuts]
    cut = cuts[0]
    assert cut.status == NodeStatus.COMPLETED
    assert all(len(versions) == 1 for versions in videos.values()), videos
    clips_in_order = [videos[f"shot {i} clip"][0].id for i in range(1, N_SHOTS + 1)]
    assert cut.inputs["clip_node_ids"] == clips_in_order
    assert {n.node.id for n in store.neighbours(cut.id, [EdgeType.GENERATED_FROM])} == set(clips_in_order)
    # Every earlier cut is superseded, each by exactly one newer version: the lineage never forked.
    all_cuts = [n for n in store.find_nodes(kind="video") if n.title == "final cut"]
    newer: dict[str, int] = {}
    for node in all_cuts:
        for edge in store.neighbours(node.id, [EdgeType.VERSION_OF]):
            newer[edge.node.id] = newer.get(edge.node.id, 0) + 1
    assert all(count == 1 for count in newer.values()), newer
    assert sum(1 for n in all_cuts if n.id not in newer) == 1


def test_no_signature_was_generated_twice(concurrent):
    _, _, entries_before, finished, folder = concurrent
    paid = sum(int(step.get("provider_calls") or 0) for _, out, _ in finished for step in json.loads(out)["steps"])
    made = _cache_entries(folder) - entries_before
    # Every provider call stores its signature; a signature paid twice would be one entry for two calls.
    assert paid == made
    # At least the four images and four clips; the cuts are one per distinct set of clips.
    assert paid >= 2 * len(REDONE) + 1
