"""Canvas agent vs chat-history baseline on one session: prints JSON per edit turn (model bytes, provider calls).

Each agent gets a fresh project: the 9-shot story of ``tests/requests/canvas_checks.py`` (scripted, small
media), then the same edits by shot number on the same thread, planned by its offline planner (the canvas
agent's ``OfflinePlanner``, the baseline's ``TranscriptPlanner``).  Both planners are wrapped only to measure
what each call sends (``nodes.context_size.model_input_size`` over the messages and bound tool schemas), so
the numbers do not depend on the trajectory keys being recorded.

Usage: ``python bench/chat_baseline.py [--edits N]``.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parents[1])

from pydantic import Field  # noqa: E402

from jarvishub.chat_runtime import ChatRuntime  # noqa: E402
from jarvishub.project import Project  # noqa: E402
from jarvishub.runtime import Runtime  # noqa: E402
from nodes.context_size import ModelInput, model_input_size  # noqa: E402
from nodes.models.offline import OfflinePlanner  # noqa: E402
from nodes.models.transcript import TranscriptPlanner  # noqa: E402
from tests.requests.canvas_checks import build_story, hashes  # noqa: E402

EDITS = ("make shot 3 darker", "redo shot 5 with a wider angle", "make shot 7 night", "shot 2 is too warm",
         "make shot 9 a close-up", "make shot 1 snowy at dusk", "make shot 3 darker", "make shot 4 golden hour",
         "redo shot 6 with warmer light", "make shot 8 less blue")
THREAD = "bench"


def measured(planner: type[OfflinePlanner]) -> OfflinePlanner:
    """The planner, logging the size of every call it receives."""

    class Measured(planner):  # type: ignore[valid-type, misc]
        sizes: list[ModelInput] = Field(default_factory=list)

        def bind_tools(self, tools: list[Any], **kwargs: Any) -> Any:
            return super().bind_tools(tools, **kwargs).model_copy(update={"sizes": self.sizes})

        def _generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> Any:
            self.sizes.append(model_input_size(messages, self.bound_tools))
            return super()._generate(messages, *args, **kwargs)

    return Measured()


def session(kind: str, root: Path, edits: tuple[str, ...]) -> list[dict[str, Any]]:
    """Build the story, then run the edits; one row per edit turn."""
    runtime_class = ChatRuntime if kind == "chat" else Runtime
    rows = []
    with Project.init(root / kind) as project:
        made: list[Runtime] = []

        def on_the_thread(**kwargs: Any) -> Runtime:
            runtime = runtime_class(project, **kwargs)
            runtime.run = functools.partial(runtime.run, thread_id=THREAD)  # type: ignore[method-assign]
            made.append(runtime)
            return runtime

        build_story(on_the_thread)
        planner = measured(TranscriptPlanner if kind == "chat" else OfflinePlanner)
        runtime = runtime_class(project, model=planner)
        made.append(runtime)
        for turn, request in enumerate(edits, start=1):
            before, calls_before = hashes(project.store), len(planner.sizes)
            started = time.perf_counter()
            outcome = runtime.run(request, thread_id=THREAD)
            wall = time.perf_counter() - started
            after = hashes(project.store)
            sent = functools.reduce(ModelInput.plus, planner.sizes[calls_before:], ModelInput())
            rows.append({"turn": turn, "request": request, "outcome": outcome.outcome,
                         "model_calls": sent.calls, "context_bytes": sent.bytes, "max_call_bytes": sent.max_call_bytes,
                         "tool_schema_bytes": sent.tool_schema_bytes, "provider_calls": outcome.provider_calls,
                         "changed_outputs": sorted(t for t in before if before[t] != after.get(t)),
                         "wall_s": round(wall, 2)})
        for runtime in made:
            runtime.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=len(EDITS))
    edits = EDITS[:parser.parse_args().edits]
    root = Path(tempfile.mkdtemp(prefix="jarvishub-baseline-"))
    result = {agent: session(agent, root, edits) for agent in ("canvas", "chat")}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
