"""The child process of a crash turn: opens the project, runs one turn, and is SIGKILLed by the runner mid-way.

``python -m jarvishub.evaluation.child PROJECT AGENT MODEL THREAD REQUEST SELECTED_JSON PROFILE``
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from jarvishub.evaluation.agents import make_agent
from jarvishub.project import Project


def main(argv: list[str]) -> int:
    """Run the turn; print its outcome (only seen when the runner did not kill it in time)."""
    project_dir, kind, model, thread, request, selected, profile = argv
    with Project.open(Path(project_dir), follow_outputs=False) as project:
        agent = make_agent(kind, project, model)  # type: ignore[arg-type]
        try:
            outcome = agent.run(request, thread_id=thread, selected=json.loads(selected), profile=profile or None)
            print(json.dumps({"outcome": outcome.outcome}))
        finally:
            agent.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
