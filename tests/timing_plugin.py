"""Where the suite's time goes: ``pytest -p tests.timing_plugin`` with ``JARVISHUB_TEST_TIMING_LOG=FILE``.

Appends one JSON line per test (setup, call and teardown together): its file, wall seconds, this process's CPU
seconds and the CPU of the child processes it waited for (CLI subprocesses, Chromium).  It also points the
engines' event log (``store.lifecycle.EVENT_LOG_ENV``) at ``FILE.engines``, where every engine start names the
test that caused it and every engine exit its JVM's CPU seconds.  ``python -m tests.timing_plugin FILE``
sums both per file.  Without the variable the plugin does nothing.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Iterator

import pytest

LOG_ENV = "JARVISHUB_TEST_TIMING_LOG"


def pytest_configure(config: pytest.Config) -> None:
    log = os.environ.get(LOG_ENV)
    if log:
        os.environ.setdefault("JARVISHUB_ENGINE_EVENT_LOG", log + ".engines")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    log = os.environ.get(LOG_ENV)
    if not log:
        yield
        return
    before, wall = os.times(), time.monotonic()
    yield
    after = os.times()
    record = {
        "file": item.nodeid.split("::", 1)[0],
        "test": item.nodeid,
        "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
        "wall_s": round(time.monotonic() - wall, 3),
        "cpu_s": round(after.user + after.system - before.user - before.system, 3),
        "children_cpu_s": round(after.children_user + after.children_system
                                - before.children_user - before.children_system, 3),
        "end": time.time(),
    }
    with open(log, "a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")


def summarise(log: str, top: int = 40) -> str:
    """Per file: tests, wall, own CPU, children's CPU, engine starts (and their JVMs' CPU), sorted by wall."""
    files: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for line in open(log, encoding="utf-8"):
        record = json.loads(line)
        row = files[record["file"]]
        row["tests"] += 1
        for key in ("wall_s", "cpu_s", "children_cpu_s"):
            row[key] += record[key]
    starts: dict[str, dict] = {}
    try:
        for line in open(log + ".engines", encoding="utf-8"):
            event = json.loads(line)
            if event["event"] == "engine_start":
                starts[event["token"]] = event
            elif event["event"] == "engine_exit" and event["token"] in starts:
                starts[event["token"]]["cpu_s"] = event["cpu_s"]
    except FileNotFoundError:
        pass
    for event in starts.values():
        row = files[event["test"].split("::", 1)[0] or "(outside a test)"]
        row["engines"] += 1
        row["engine_wait_s"] += event["waited_s"]
        row["engine_cpu_s"] += event.get("cpu_s", 0.0)
    lines = [f"{'file':70} {'n':>4} {'wall':>7} {'cpu':>6} {'child':>6} {'eng':>4} {'wait':>6} {'jvmcpu':>7}"]
    ranked = sorted(files.items(), key=lambda kv: -kv[1]["wall_s"])
    for name, row in ranked[:top]:
        lines.append(f"{name[:70]:70} {int(row['tests']):4d} {row['wall_s']:7.1f} {row['cpu_s']:6.1f} "
                     f"{row['children_cpu_s']:6.1f} {int(row['engines']):4d} {row['engine_wait_s']:6.1f} "
                     f"{row['engine_cpu_s']:7.1f}")
    total = {key: sum(row[key] for row in files.values())
             for key in ("tests", "wall_s", "cpu_s", "children_cpu_s", "engines", "engine_wait_s", "engine_cpu_s")}
    lines.append(f"{'total':70} {int(total['tests']):4d} {total['wall_s']:7.1f} {total['cpu_s']:6.1f} "
                 f"{total['children_cpu_s']:6.1f} {int(total['engines']):4d} {total['engine_wait_s']:6.1f} "
                 f"{total['engine_cpu_s']:7.1f}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(summarise(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40))
