"""Two processes asking for one signature at once pay the provider once (issue #11)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli_run import ROOT

WORKER = Path(__file__).with_name("flight_worker.py")
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout, whatever the installed package points at


def test_two_processes_pay_for_one_signature_once(tmp_path):
    first = subprocess.Popen([sys.executable, str(WORKER), str(tmp_path), "first"], stdout=subprocess.PIPE, text=True,
                             env=ENV)
    second = subprocess.Popen([sys.executable, str(WORKER), str(tmp_path), "second"], stdout=subprocess.PIPE, text=True,
                              env=ENV)
    out_first, _ = first.communicate(timeout=120)
    out_second, _ = second.communicate(timeout=120)
    assert first.returncode == 0 and second.returncode == 0
    a, b = json.loads(out_first.splitlines()[-1]), json.loads(out_second.splitlines()[-1])
    assert (tmp_path / "calls.txt").read_text().split() == ["first"], "the provider was paid twice"
    assert (a["hit"], b["hit"]) == (False, True)
    assert a["sha"] == b["sha"]
