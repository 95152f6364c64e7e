"""What the machine's engine cache (store/jvm.py) saves a person: prints JSON medians per arm.

A person's command after the engine's idle period starts the engine cold and then runs its turn on a JVM that has
run nothing yet.  Each run here does that on a copy of one prepared project (a 6-shot storyboard, its engine
stopped): it opens the project (``open_s``: the engine's start and the canvas's setup), then runs three small
turns, each timed (``turn_ms``: a note, a shot edit, a note).  Arms, interleaved ``--runs`` times:

* ``no_cache``: ``JARVISHUB_ENGINE_AOT_CACHE`` set but empty, as before the cache;
* ``cache``: the machine's cache (trained first if missing, not timed), what a person's command does.

Usage: ``python bench/engine_cache.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[0] = str(REPO)

from store import jvm  # noqa: E402
from store.jvm import AOT_CACHE_ENV  # noqa: E402
from store.lifecycle import stop_engine  # noqa: E402

TURNS = ("note: the keeper's lamp flickers", "make shot 3 night", "note: the bottle washes ashore")
STORY = "a 6-shot short drama about a lighthouse keeper and a message in a bottle"


def _offline_runtime(project):
    from jarvishub.runtime import Runtime
    from nodes.models.offline import OfflinePlanner

    return Runtime(project, model=OfflinePlanner(), evaluate_generations=False)


def prepare(folder: Path) -> Path:
    """The prepared project: a storyboard on its canvas, its engine stopped."""
    from jarvishub.project import Project

    root = folder / "prepared"
    project = Project.init(root)
    runtime = _offline_runtime(project)
    try:
        assert runtime.run(STORY).outcome == "replied"
    finally:
        runtime.close()
        project.close()
        stop_engine(root / ".jarvishub" / "engine")
    return root


def one_run(prepared: Path, folder: Path) -> dict[str, object]:
    """A cold command on a copy of the prepared project: its open and its turns, timed."""
    from jarvishub.project import Project

    root = folder / "run"
    shutil.copytree(prepared, root)
    started = time.perf_counter()
    project = Project.open(root)
    opened = time.perf_counter() - started
    runtime = _offline_runtime(project)
    turns = []
    try:
        thread = None
        for request in TURNS:
            began = time.perf_counter()
            out = runtime.run(request, thread_id=thread)
            turns.append(round((time.perf_counter() - began) * 1000, 1))
            assert out.outcome == "replied", out.reply
            thread = out.thread_id
    finally:
        runtime.close()
        project.close()
        stop_engine(root / ".jarvishub" / "engine")
        shutil.rmtree(root, ignore_errors=True)
    return {"open_s": round(opened, 3), "turn_ms": turns}


def _ratios(arm: dict, base: dict) -> dict[str, object]:
    """An arm's figures over the ``no_cache`` arm's."""
    return {"open": round(arm["open_s"] / base["open_s"], 2),
            "turns": [round(a / b, 2) for a, b in zip(arm["turn_ms"], base["turn_ms"])],
            "open_and_turns": round((arm["open_s"] * 1000 + sum(arm["turn_ms"]))
                                    / (base["open_s"] * 1000 + sum(base["turn_ms"])), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    cache = jvm.kept_cache()
    if cache is None:
        raise SystemExit("no cache folder of ours (or JARVISHUB_ENGINE_AOT_CACHE / _JAVA_OPTIONS set): nothing to measure")
    if not cache.is_file():  # trained as a cold start would, in a process of its own (not niced, waited for)
        subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; "
                        "from jarvishub.engine_training import train; train(Path(sys.argv[1]))", str(cache)],
                       check=True, cwd=REPO)
    folder = Path(tempfile.mkdtemp(prefix="jarvishub-engine-cache-"))
    arms = {"no_cache": "", "cache": str(cache)}
    try:
        os.environ[AOT_CACHE_ENV] = ""
        prepared = prepare(folder)
        runs: dict[str, list[dict[str, object]]] = {arm: [] for arm in arms}
        for index in range(args.runs):
            for arm in (list(arms) if index % 2 == 0 else list(reversed(arms))):
                os.environ[AOT_CACHE_ENV] = arms[arm]
                runs[arm].append(one_run(prepared, folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    summary = {}
    for arm, results in runs.items():
        summary[arm] = {
            "open_s": statistics.median(float(r["open_s"]) for r in results),
            "turn_ms": [statistics.median(float(r["turn_ms"][i]) for r in results) for i in range(len(TURNS))],
            "runs": results,
        }
    summary["ratios"] = _ratios(summary["cache"], summary["no_cache"])
    summary["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps({"turns": TURNS, **summary}, indent=2))


if __name__ == "__main__":
    main()
