"""What the configured-provider path costs a turn: the same note turn with the offline planner and through an
OpenAI-compatible endpoint on loopback (the offline planner behind the wire: the difference is the client,
HTTP, the spend ledger and the judge's client), plus the spend ledger's per-step read.

    python bench/providers.py [--turns 8]

Prints JSON: medians in milliseconds and their ratio, measured in one run (this machine is shared).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jarvishub.project import Project  # noqa: E402
from jarvishub.runtime import Runtime  # noqa: E402
from nodes.bridge import Usage  # noqa: E402
from tests.providers.loopback import LoopbackOpenAI  # noqa: E402
from tools.spend import Spend, SpendLedger  # noqa: E402


def turns(folder: Path, count: int, label: str) -> list[float]:
    """Wall times (ms) of ``count`` note turns on a runtime built from the current environment."""
    with Project.open(folder) as project:
        runtime = Runtime(project)
        try:
            times = []
            for n in range(count):
                start = time.perf_counter()
                outcome = runtime.run(f"note: {label} {n}")
                times.append((time.perf_counter() - start) * 1000)
                assert outcome.outcome == "replied", outcome
            return times
        finally:
            runtime.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=8)
    args = parser.parse_args()
    for name in [n for n in os.environ if n.startswith(("OPENAI_", "JARVISHUB_MODEL", "JARVISHUB_MEDIA"))]:
        del os.environ[name]
    with tempfile.TemporaryDirectory(prefix="bench-providers-") as tmp, LoopbackOpenAI() as server:
        folder = Path(tmp) / "p"
        Project.init(folder).close()
        turns(folder, 1, "warm-up")
        offline = turns(folder, args.turns, "offline")
        os.environ.update({"OPENAI_API_KEY": "sk-bench", "OPENAI_BASE_URL": server.base_url})
        remote = turns(folder, args.turns, "remote")
        ledger = SpendLedger(Path(tmp) / "ledger.sqlite")
        for n in range(2000):
            ledger.record(Spend(calls=1, tokens_in=100, cost_usd=0.001), source="agent", model="gpt-4o-mini",
                          thread_id="t", turn_id=f"turn-{n % 200}")
        sync = []
        for _ in range(200):
            start = time.perf_counter()
            ledger.sync(Usage(), "turn-7")
            sync.append((time.perf_counter() - start) * 1000)
        chat_calls = len(server.requests("chat"))
    print(json.dumps({
        "turns": args.turns,
        "note_turn_offline_ms_median": round(median(offline), 1),
        "note_turn_remote_ms_median": round(median(remote), 1),
        "remote_over_offline": round(median(remote) / median(offline), 2),
        "remote_model_calls": chat_calls,
        "ledger_sync_ms_median": round(median(sync), 3),
        "load_average": os.getloadavg()[0],
    }, indent=2))


if __name__ == "__main__":
    main()
