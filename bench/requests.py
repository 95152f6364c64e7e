"""Interpretation time per request and the request suite's pass rates, as JSON.

    PYTHONPATH=. python bench/requests.py [--rounds 5]

Each request of tests/requests/suite.py and suite_versions.py is interpreted ``rounds`` times on its context's facts (no canvas
read: the facts are given, as ``read_facts`` returns them); p50/p95/max are over every interpretation, and
the pass rates are per category (pass, asked, wrong_success).  Goal: p95 under 20 ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

# This file is named like the `requests` package: its folder must not shadow it.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nodes.understanding import interpret  # noqa: E402
from tests.requests.suite import CASES, facts_for, judge  # noqa: E402
from tests.requests.suite_versions import VERSION_CASES  # noqa: E402
from tests.requests.suite_versions import facts_for as version_facts  # noqa: E402

ROWS = [(row, facts_for) for row in CASES] + [(row, version_facts) for row in VERSION_CASES]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    interpret("warm up the vocabulary", facts_for("story")[0])
    times: list[float] = []
    categories: dict[str, Counter] = defaultdict(Counter)
    for (category, request, expected, context), read in ROWS:
        facts, previous = read(context)
        for _ in range(args.rounds):
            start = time.perf_counter()
            intent = interpret(request, facts, previous=previous)
            times.append((time.perf_counter() - start) * 1000)
        categories[category][judge(expected, intent)] += 1
    times.sort()
    total = Counter()
    for counts in categories.values():
        total.update(counts)
    print(json.dumps({
        "requests": len(ROWS), "interpretations": len(times),
        "ms": {"p50": round(statistics.median(times), 3), "p95": round(times[int(0.95 * (len(times) - 1))], 3),
               "max": round(times[-1], 3)},
        "done_as_asked": round(total["pass"] / len(ROWS), 4), "asked": total["asked"],
        "wrong_successes": total["wrong_success"], "wrong_reasons": total["wrong_reason"],
        "by_category": {c: {**dict(v), "rate": round(v["pass"] / sum(v.values()), 3)} for c, v in sorted(categories.items())},
    }, indent=1))


if __name__ == "__main__":
    main()
