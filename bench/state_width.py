"""What the width of a graph's state costs LangGraph per turn: prints JSON medians.

A graph of one no-op node looped ``--supersteps`` times (a note turn has 19) with a plain ``SqliteSaver``, in
three shapes run alternately ``--runs`` times, each on a new thread:

* ``narrow_edge``: a 2-channel state routed by a conditional edge (``bench/turn.py``'s bare graph);
* ``turn_state_edge``: the supervisor's ``TurnState`` (about 40 channels), routed by a conditional edge;
* ``turn_state_command``: ``TurnState``, routed by the node's ``Command(goto=...)``.

Why: LangGraph's conditional edges read the state through a fresh copy of every channel, with the node's writes
applied, so a routing decision costs in proportion to the state's width; ``Command`` routing reads nothing.
Usage: ``python bench/state_width.py [--runs N] [--supersteps N]``.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TypedDict

sys.path[0] = str(Path(__file__).resolve().parents[1])

from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.types import Command  # noqa: E402

from nodes.state import TurnState  # noqa: E402


class NarrowState(TypedDict, total=False):
    step_index: int
    supersteps: int


class WideState(TurnState, total=False):
    supersteps: int


def looped(path: Path, schema: type, by_command: bool) -> Any:
    """One no-op node run ``supersteps`` times, checkpointed to a SQLite file at ``path``."""
    graph = StateGraph(schema)
    if by_command:
        def tick(state: dict[str, Any]) -> Command:
            done = state.get("step_index", 0) + 1
            return Command(update={"step_index": done}, goto=END if done >= state["supersteps"] else "tick")

        graph.add_node("tick", tick, destinations=("tick", END))
    else:
        graph.add_node("tick", lambda state: {"step_index": state.get("step_index", 0) + 1})
        graph.add_conditional_edges("tick", lambda state: END if state["step_index"] >= state["supersteps"]
                                    else "tick", ["tick", END])
    graph.add_edge(START, "tick")
    return graph.compile(checkpointer=SqliteSaver(sqlite3.connect(str(path), check_same_thread=False)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--supersteps", type=int, default=19)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="state-width-"))
    shapes = {"narrow_edge": looped(folder / "narrow.db", NarrowState, False),
              "turn_state_edge": looped(folder / "wide.db", WideState, False),
              "turn_state_command": looped(folder / "command.db", WideState, True)}
    # A turn's first input: its ids, request and empty per-turn lists (the wide shapes carry them all along).
    wide_input = {"step_index": 0, "supersteps": args.supersteps, "request": "note: the keeper's lamp flickers",
                  "thread_id": "t", "turn_id": "u", "grant_id": "g", "selected_ids": [], "usage": {"created_ids": []},
                  "done": False, "steps": [], "touched_ids": []}
    times: dict[str, list[float]] = {name: [] for name in shapes}
    for run in range(args.runs + 3):  # the first three warm up
        for name, graph in shapes.items():
            given = wide_input if name.startswith("turn_state") else {"step_index": 0, "supersteps": args.supersteps}
            started = time.perf_counter()
            graph.invoke(given, {"configurable": {"thread_id": f"{name}-{run}"}, "recursion_limit": 1000})
            if run >= 3:
                times[name].append((time.perf_counter() - started) * 1000)
    medians = {name: round(statistics.median(values), 1) for name, values in times.items()}
    print(json.dumps({"supersteps": args.supersteps, "runs": args.runs, "median_ms": medians,
                      "channels": {"narrow": len(NarrowState.__annotations__),
                                   "turn_state": len(WideState.__annotations__)},
                      "wide_over_narrow": round(medians["turn_state_edge"] / medians["narrow_edge"], 2),
                      "command_over_edge": round(medians["turn_state_command"] / medians["turn_state_edge"], 2)},
                     indent=1))


if __name__ == "__main__":
    main()
