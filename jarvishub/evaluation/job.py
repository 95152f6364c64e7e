"""One (agent, scenario) run of ``jarvishub eval --jobs N`` in a child process of its own.

``python -m jarvishub.evaluation.job AGENT MODEL OUT SCENARIO_FILE RESULT_FILE [--stash]``

The run is :func:`jarvishub.evaluation.runner.run_scenario`, as the sequential suite runs it: its project under
``OUT/runs/AGENT/NAME`` with its own engine; progress lines go to stderr (the parent prefixes them), and the
:class:`~jarvishub.evaluation.results.ScenarioResult` is written to ``RESULT_FILE`` (atomically) when the run
ends.  SIGINT (the parent's Ctrl-C, passed on) gives the run up as Ctrl-C does in the sequential suite: its
engine is sent its stop, nothing is written, exit 130.  An agent that cannot be made (``--model openai``
without a key) exits 2 with the message.
"""

from __future__ import annotations

import sys
from pathlib import Path

from jarvishub.evaluation.agents import AgentUnavailable
from jarvishub.evaluation.runner import run_scenario
from jarvishub.evaluation.scenario import load_scenario
from store.private_files import write_private

EXIT_UNAVAILABLE = 2
EXIT_INTERRUPTED = 130


def main(argv: list[str]) -> int:
    """Run the scenario; write its result; 0 when the result was written (whatever its checks said)."""
    stash = "--stash" in argv
    agent, model, out, scenario_file, result_file = [a for a in argv if a != "--stash"]

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        result = run_scenario(load_scenario(Path(scenario_file)), agent, model, Path(out),  # type: ignore[arg-type]
                              progress=say, stash_trajectories=stash)
    except AgentUnavailable as error:
        say(f"error: {error}")
        return EXIT_UNAVAILABLE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    write_private(Path(result_file), (result.model_dump_json(indent=1) + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
