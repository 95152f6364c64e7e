"""A worker process for the SIGKILL recovery test: runs (or resumes) one scripted multi-step turn."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from langchain_core.messages import ToolMessage

from jarvishub.project import Project
from jarvishub.runtime import Runtime
from nodes.models.scripted import ScriptedModel, tool_call


def _first_image(messages):
    for message in messages:
        if isinstance(message, ToolMessage):
            observation = json.loads(message.content).get("observation") or {}
            if observation.get("kind") == "image":
                return observation["node_id"]
    raise AssertionError("no image yet")


def script() -> list:
    """Three images, a clip from the first, a note, then a reply."""
    return [
        {"name": "generate_image", "args": {"prompt": "a lighthouse at dusk", "seed": 1, "width": 128, "height": 96}},
        {"name": "generate_image", "args": {"prompt": "a boat in fog", "seed": 2, "width": 128, "height": 96}},
        {"name": "generate_image", "args": {"prompt": "a harbour at night", "seed": 3, "lighting": "night",
                                            "width": 128, "height": 96}},
        lambda messages: tool_call("generate_video", {"source_node_id": _first_image(messages), "duration_s": 1.0,
                                                      "fps": 8, "camera": "pan"}),
        {"name": "create_node", "args": {"kind": "text", "title": "wrap note"}},
        "All made.",
    ]


def main() -> None:
    project_dir, thread_id, mode = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    with Project.open(project_dir) as project:
        runtime = Runtime(project, model=ScriptedModel(script=script()), evaluate_generations=False)
        try:
            if mode == "run":
                outcome = runtime.run("make the harbour set", thread_id=thread_id)
            else:
                outcome = runtime.resume(thread_id)
            made_here = sum(runtime.services["generation"].provider_calls.values())
            print(json.dumps({"outcome": outcome.outcome, "provider_calls": made_here}))
        finally:
            runtime.close()


if __name__ == "__main__":
    main()
