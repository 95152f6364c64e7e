"""How long a person waits for the CLI: prints JSON medians (seconds) of real ``jarvishub`` processes.

* ``floor``: ``python -c pass``, what any Python command costs;
* ``help``: ``jarvishub --help`` (must not load LangGraph, the driver or Pillow);
* ``cold``: ``status`` and a ``query`` on a 200-node project with no engine running (each starts one);
* ``warm``: the same with the project's engine already running (held by this script, as the engine
  lingering after the last command, or another open command, would);
* ``warm_cpu``: the CPU seconds (user + system) of the warm commands, which a loaded machine inflates far
  less than their wall time.

The measured processes read compiled bytecode, as an installed ``jarvishub`` does (pip compiles it, and an
editable checkout writes ``__pycache__`` on first use): this script compiles the packages into a cache of its
own (``PYTHONPYCACHEPREFIX``) first, because a shell with ``PYTHONDONTWRITEBYTECODE`` set would otherwise
have every command compile the project's modules again (about 0.1 s of CPU each time).  ``--no-bytecode``
measures that case instead.

``--checkout DIR`` measures the commands of another checkout of JarvisHub (e.g. main) with this script, so
that two versions are compared the same way in the same window.

Usage: ``python bench/cli.py [--runs N] [--warm-only] [--no-bytecode] [--checkout DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[0] = str(REPO)

from jarvishub.project import Project  # noqa: E402
from jarvishub.runtime import Runtime  # noqa: E402
from nodes.actions import CanvasMutation  # noqa: E402
from nodes.bridge import Usage  # noqa: E402
from nodes.grant import Grant  # noqa: E402
from store.lifecycle import stop_engine  # noqa: E402
from store.mutations import CreateNode  # noqa: E402

NODES = 200
QUERY = "MATCH (n:CanvasNode) WHERE n.kind = 'image' RETURN n.title AS title ORDER BY title LIMIT 20"


PACKAGES = ("jarvishub", "store", "nodes", "graphs", "skills", "tools")
"""The project's packages (pyproject's ``packages.find``), compiled before measuring."""

ENV: dict[str, str] = {**os.environ, "PYTHONPATH": str(REPO)}
"""The measured processes' environment (see :func:`use_bytecode_cache`)."""


def use_bytecode_cache(cache: Path, checkout: Path) -> None:
    """Compile the packages of ``checkout`` into ``cache`` and have every measured process read them from there."""
    ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    ENV["PYTHONPYCACHEPREFIX"] = str(cache)
    done = subprocess.run([sys.executable, "-m", "compileall", "-q", *(str(checkout / p) for p in PACKAGES)],
                          env=ENV, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"compiling the packages failed: {done.stdout}{done.stderr}")


CPU: dict[str, list[float]] = {}
"""CPU seconds (user + system) of each measured process, by command: on a loaded machine the wall time
mostly measures the queue for a core, the CPU time what the command itself costs."""


def wall(command: list[str], cwd: Path, before: list[str] | None = None) -> float:
    """Seconds one process takes (after running ``before``, untimed), failing loudly when it does not succeed."""
    env = dict(ENV)
    if before:
        subprocess.run(before, cwd=cwd, env=env, capture_output=True, timeout=120, check=True)
    env.pop("OPENAI_API_KEY", None)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.setdefault(" ".join(command[3:]) or command[-1], []).append(
        after.ru_utime - used.ru_utime + after.ru_stime - used.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {done.stderr}")
    return elapsed


def median(command: list[str], cwd: Path, runs: int, before: list[str] | None = None) -> float:
    return round(statistics.median(wall(command, cwd, before) for _ in range(runs)), 3)


def cpu_median(command: list[str]) -> float:
    """The median CPU seconds of the runs of ``command`` measured so far (cold and warm runs together)."""
    return round(statistics.median(CPU[" ".join(command[3:]) or command[-1]]), 3)


def build_project(root: Path) -> Path:
    """A project with NODES canvas nodes, written in one batch through the bridge."""
    folder = root / "bench-cli"
    with Project.init(folder) as project:
        runtime = Runtime(project)
        try:
            batch = [CreateNode(kind="image" if i % 2 else "text", title=f"node {i}", status="completed")
                     for i in range(NODES)]
            result = runtime.bridge.submit(CanvasMutation(action_id=uuid.uuid4().hex, mutations=batch),
                                           runtime.grants.save(Grant(actor="system")), Usage(), thread_id="bench")
            if result.verdict != "allow":
                raise SystemExit(f"the bench canvas was refused: {result.message}")
        finally:
            runtime.close()
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warm-only", action="store_true", help="skip --help and the cold runs")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="leave PYTHONDONTWRITEBYTECODE as it is (each command may compile the modules again)")
    parser.add_argument("--checkout", type=Path, default=REPO, help="the JarvisHub checkout whose commands to time")
    options = parser.parse_args()
    checkout = options.checkout.resolve()
    ENV["PYTHONPATH"] = str(checkout)
    with tempfile.TemporaryDirectory(prefix="jarvishub-bench-cli-") as tmp:
        try:
            result = measure(options, checkout, Path(tmp))
        finally:
            # Whatever ended the run, no engine outlives the folder (its supervisor would stop it once the folder
            # is gone, but a folder removed under a running engine may not be removable at all).
            stop_engine(Path(tmp) / "bench-cli" / ".jarvishub" / "engine")
    print(json.dumps(result, indent=2))


def measure(options: argparse.Namespace, checkout: Path, tmp: Path) -> dict[str, object]:
    """Build the bench project in ``tmp`` and time the commands; the measurements as one JSON-ready dict."""
    runs = options.runs
    cli = [sys.executable, "-m", "jarvishub.cli"]
    if not options.no_bytecode:
        use_bytecode_cache(tmp / "pycache", checkout)
    folder = build_project(tmp)
    result: dict[str, object] = {"runs": runs, "nodes": NODES, "cpus": os.cpu_count(),
                                 "load_1m": round(os.getloadavg()[0], 2),
                                 "bytecode_cached": not options.no_bytecode, "checkout": str(checkout)}
    result["floor"] = median([sys.executable, "-c", "pass"], folder, runs)
    stop = [*cli, "engine", "stop"]  # the engine lingers after a command: stop it before each cold run
    if not options.warm_only:
        result["help"] = median([*cli, "--help"], folder, runs)
        result["cold"] = {"status": median([*cli, "status"], folder, runs, stop),
                          "query": median([*cli, "query", QUERY], folder, runs, stop)}
        result["help_above_floor"] = round(float(result["help"]) - float(result["floor"]), 3)  # type: ignore[arg-type]
    CPU.clear()  # the CPU of the warm runs only (a cold run also pays for the JVM it starts)
    with Project.open(folder):
        result["warm"] = {"status": median([*cli, "status"], folder, runs),
                          "query": median([*cli, "query", QUERY], folder, runs)}
    result["warm_cpu"] = {"status": cpu_median([*cli, "status"]), "query": cpu_median([*cli, "query", QUERY])}
    return result


if __name__ == "__main__":
    main()
