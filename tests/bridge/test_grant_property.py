"""Property: no action changes the canvas outside its grant, for every argument form of every tool.

Actions are drawn by ``tests/bridge/grant_fuzz.py``: every tool of the manifest (canvas, generation, native
with ``run_code`` attacking the engine, recovery, skills, ``query_canvas`` with writing Cypher), arguments from
each tool's own JSON schema in every form it allows (ids alone, edge ids with and without endpoints, ids in
lists, dictionary keys and free-form objects, optional fields present or not), under random grants (tools,
skill-only tools, kinds, scopes of ids, groups and lineages, budgets, revocation).  Every action is submitted
in full through ``Bridge.submit``; an oracle that reads the whole canvas before and after (not the bridge's
own bookkeeping) finds every existing node the action wrote and every node it made, and each must lie inside
the grant.  The suite runs a bounded count; ``python bench/grant_property.py`` runs 10,000 and more.
"""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.bridge.grant_fuzz import Fuzz, seed_canvas
from tests.system_tools import missing_system_tool
from tools.native.code import sandbox_status

pytestmark = pytest.mark.long_file(45)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)

ACTIONS = int(os.environ.get("JARVISHUB_GRANT_PROPERTY_ACTIONS", "400"))
BATCH = 20


def test_no_action_changes_the_canvas_outside_its_grant(make_runtime, project):
    runtime = make_runtime()
    assert {"run_code", "query_canvas", "unlink_nodes"} <= set(runtime.manifest.tool_names()) \
        or not sandbox_status().available
    seed_canvas(runtime)
    fuzz = Fuzz.on(runtime, project)

    # A fixed sample (derandomized): the suite's run is the same every time; the bench draws fresh seeds.
    @settings(max_examples=max(1, ACTIONS // BATCH), deadline=None, suppress_health_check=list(HealthCheck),
              database=None, derandomize=True)
    @given(seed=st.integers(0, 2**64 - 1))
    def check(seed: int) -> None:
        rnd = random.Random(seed)
        for _ in range(BATCH):
            fuzz.one(rnd)
        assert fuzz.violations == [], fuzz.violations[:3]

    check()
    stats = fuzz.stats
    assert stats["actions"] >= ACTIONS and stats["out_of_grant_changes"] == 0, stats
    # The run did exercise both sides: refusals and real commits of many tools, unlinks and versions among them.
    assert stats["structurally_outside"] > ACTIONS // 5 and stats["executed"] > ACTIONS // 5, stats
    assert len(stats["committed_by_tool"]) >= 8, stats
    if "run_code" not in runtime.manifest.tool_names():  # without bubblewrap: skipped here, failed in CI
        missing_system_tool(f"run_code was left out of the property: {sandbox_status().reason}")
