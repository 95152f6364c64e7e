"""What a page or deck operation costs against building the page or deck again; prints one JSON object.

    python bench/operations.py [--rounds 5]

Opens a scratch project (embedded ArcadeDB, offline providers, the system
Chromium). It makes a 6-slide deck with the ``slides`` skill and a page with
``design_to_web``, then times, through the bridge, each deck operation (retitle,
add, move, delete, undo: one new version of the same deck) and each page
operation (a style token, a text edit, an undo that reuses an earlier preview)
``--rounds`` times; then a page edit on a runtime that keeps its Chromium
against one that launches one per render, alternating. Reported: medians in
seconds, how many slide previews or page renders each operation made, and the
ratios, all measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Run as `python bench/operations.py`, this folder comes first on sys.path; keep packages visible.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from jarvishub.project import Project
from jarvishub.runtime import Runtime
from store.lifecycle import stop_engine
from nodes.actions import ToolCall
from nodes.bridge import Usage
from nodes.grant import Grant

DECK = "a 6-slide deck on how heat pumps warm a house"
BRIEF = "a website for a bicycle repair shop: friendly, bright, lots of white space"


def timed(runtime: Runtime, tool: str, **args: Any) -> tuple[float, dict[str, Any]]:
    """One tool call through the bridge: its wall time and observation."""
    grant = runtime.grant_for("bench", grant=Grant())
    start = time.perf_counter()
    result = runtime.bridge.submit(ToolCall(action_id=f"bench-{tool}-{time.monotonic_ns()}", tool=tool, args=args),
                                   grant, Usage(), thread_id="bench-operations")
    seconds = time.perf_counter() - start
    assert result.verdict == "allow" and "error" not in result.observation, result
    return seconds, result.observation


def median(values: list[float]) -> float:
    return round(statistics.median(values), 3)


def deck_rows(runtime: Runtime, rounds: int) -> dict[str, Any]:
    """The deck built once, then each operation ``rounds`` times."""
    build, _ = timed(runtime, "skill__slides", topic=DECK)
    times: dict[str, list[float]] = {}
    drawn: dict[str, list[int]] = {}
    for number in range(rounds):
        for tool, args in (("deck_edit_slide", {"slide": 2, "title": f"Why heat pumps, take {number}"}),
                           ("deck_add_slide", {"after": 3, "about": "running costs"}),
                           ("deck_move_slide", {"slide": 4, "to": 2}),
                           ("deck_delete_slide", {"slide": 2}),
                           ("deck_undo", {})):
            seconds, observation = timed(runtime, tool, **args)
            times.setdefault(tool, []).append(seconds)
            drawn.setdefault(tool, []).append(int(observation["previews_drawn"]))
    rebuild = [timed(runtime, "skill__slides", topic=f"{DECK} ({n})")[0] for n in range(2)]
    operations = {tool: {"median_s": median(t), "previews_drawn": max(drawn[tool])} for tool, t in times.items()}
    all_ops = [s for t in times.values() for s in t]
    return {"build_s": round(build, 3), "rebuild_median_s": median(rebuild), "operations": operations,
            "operation_median_s": median(all_ops),
            "operation_vs_rebuild": round(statistics.median(all_ops) / statistics.median(rebuild), 3)}


def page_rows(runtime: Runtime, rounds: int) -> dict[str, Any]:
    """The page designed once, then a token change, a text edit and an undo ``rounds`` times each."""
    design, _ = timed(runtime, "skill__design_to_web", brief=BRIEF, n_layouts=1)
    times: dict[str, list[float]] = {}
    reused: list[bool] = []
    for number in range(rounds):
        for tool, args in (("page_set_style", {"token": "headline-size", "value": f"{60 + number}px"}),
                           ("page_set_text", {"element": "tagline", "text": f"Flat tyres fixed while you wait ({number})."}),
                           ("page_undo", {})):
            seconds, observation = timed(runtime, tool, **args)
            times.setdefault(tool, []).append(seconds)
            if tool == "page_undo":
                reused.append(bool(observation["preview_reused"]))
    edits = times["page_set_style"] + times["page_set_text"]
    return {"design_s": round(design, 3), "operations": {t: {"median_s": median(s)} for t, s in times.items()},
            "undo_preview_reused": f"{sum(reused)}/{len(reused)}",
            "edit_vs_design": round(statistics.median(edits) / design, 3)}


def kept_against_per_call(project: Project, rounds: int) -> dict[str, Any]:
    """A page edit on a runtime keeping its Chromium (the web canvas's) against one launching a Chromium per
    render (a command's), alternating, on the same page."""
    runtimes = {"kept": Runtime(project, keep_browser=True), "per_call": Runtime(project)}
    times: dict[str, list[float]] = {name: [] for name in runtimes}
    try:
        for number in range(rounds):
            for name, runtime in (runtimes.items() if number % 2 == 0 else reversed(runtimes.items())):
                size = 70 + 2 * number + (name == "per_call")  # a new value each call: an edit, never a no-op
                seconds, _ = timed(runtime, "page_set_style", token="headline-size", value=f"{size}px")
                times[name].append(seconds)
    finally:
        for runtime in runtimes.values():
            runtime.close()
    kept, per_call = median(times["kept"]), median(times["per_call"])
    return {"page_set_style_kept_s": kept, "page_set_style_per_call_s": per_call,
            "per_call_vs_kept": round(per_call / kept, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-operations-") as folder:
        project = Project.init(Path(folder) / "p", media_provider="offline", openai_api_key=None)
        runtime = Runtime(project)
        try:
            report = {"rounds": args.rounds, "deck": deck_rows(runtime, args.rounds),
                      "page": page_rows(runtime, args.rounds),
                      "browser": kept_against_per_call(project, args.rounds + 1)}
        finally:
            runtime.close()
            project.close()
            stop_engine(Path(folder) / "p" / ".jarvishub" / "engine")  # it would linger after its folder is gone
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
