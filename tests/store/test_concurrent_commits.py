"""Eight writing processes on one project: every commit succeeds (issue #11, D7).

Real processes, one engine: each makes 50 commits that all bump the canvas
counter and update one shared node.  The project's commit lock queues them, so
none runs out of retries.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.long_file(25)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)

WORKER = Path(__file__).resolve().parents[2] / "bench" / "commit_worker.py"


def test_eight_processes_times_fifty_commits_without_a_failure(tmp_path):
    out = subprocess.run(
        [sys.executable, str(WORKER), "fleet", str(tmp_path / "engine"), "canvas", "8", "50"],
        capture_output=True, text=True, timeout=600, check=True,
    )
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["failed"] == 0, summary["first_error"]
    assert summary["ok"] == 400
    assert summary["canvas_versions_made"] == 400
