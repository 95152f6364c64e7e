"""What the bubblewrap sandbox costs run_code: prints JSON (median seconds of a trivial snippet, sandboxed vs not).

The unsandboxed figure is a plain ``python -I -c pass`` child, the floor any child interpreter pays; the
sandboxed one is ``run_python("pass")`` end to end (namespaces, mounts, the bootstrap, collecting files).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])

from store.artifacts import LocalArtifactStore  # noqa: E402
from tools.native.code import run_python, sandbox_status  # noqa: E402

RUNS = 10


def median_s(action) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return round(statistics.median(times), 4)


def main() -> None:
    status = sandbox_status()
    if not status.available:
        print(json.dumps({"available": False, "reason": status.reason}))
        return
    root = Path(tempfile.mkdtemp(prefix="jarvishub-sandbox-bench-"))
    (root / "workspace").mkdir()
    artifacts = LocalArtifactStore(root / "artifacts")
    plain = median_s(lambda: subprocess.run([sys.executable, "-I", "-c", "pass"], check=True))
    sandboxed = median_s(lambda: run_python("pass", root / "workspace", artifacts))
    print(json.dumps({"available": True, "runs": RUNS, "plain_child_s": plain, "sandboxed_run_s": sandboxed,
                      "overhead_s": round(sandboxed - plain, 4)}))


if __name__ == "__main__":
    main()
