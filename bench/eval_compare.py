"""Compare the canvas agent with each chat baseline, turn by turn, from one or more results.json files.

    python bench/eval_compare.py RESULTS.json [RESULTS.json ...] [--merged OUT_DIR] [--turns-md FILE]

A thin command line over :mod:`jarvishub.evaluation.comparison` (what ``jarvishub eval`` writes into
results.json's ``comparison`` and report.html) and :mod:`jarvishub.evaluation.merging`.  The runs of one
comparison may come from separate processes (``jarvishub eval SCENARIO --agent AGENT``): their scenarios are
merged into one results.json (``--merged``: with its report.html).  Printed as JSON, per scenario: the checks
each agent passed, and for the canvas agent against each baseline the turns where it sent more bytes per model
call, the edit turns where it made more model calls, the wall time of both, and, apart, the turns where the
baseline failed its checks (not losses).  ``--turns-md``: every turn's bytes per call, model calls and wall time
for every agent, as markdown tables.

``--partial AGENT:SCENARIO:LOG:PROJECT``: a run stopped before its end writes no results.json; its turns are
rebuilt from its progress log and its project's trajectories, and marked as partial (``error``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[0] = str(REPO)  # bench/store.py would shadow the store package

from jarvishub.evaluation.comparison import comparison  # noqa: E402
from jarvishub.evaluation.merging import merge, partial, turn_tables  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", nargs="*", type=Path)
    parser.add_argument("--partial", action="append", default=[], metavar="AGENT:SCENARIO:LOG:PROJECT",
                        help="a stopped run, rebuilt from its progress log and its project")
    parser.add_argument("--merged", type=Path, help="write the merged results.json and report.html here")
    parser.add_argument("--turns-md", type=Path, help="write every turn's figures as markdown tables here")
    args = parser.parse_args(argv)
    partials = []
    for spec in args.partial:
        agent, name, log, project = spec.split(":", 3)
        partials.append(partial(agent, name, Path(log), Path(project)))
    results = merge(args.results, partials)
    if args.merged:
        path = results.write(args.merged / "results.json")
        from jarvishub.evaluation.report import write_report

        write_report(path, args.merged / "report.html")
    if args.turns_md:
        args.turns_md.write_text(turn_tables(results) + "\n")
    json.dump(comparison(results.scenarios), sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
