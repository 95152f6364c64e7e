"""Interpretation time per request and the request suite's pass rates, as JSON.

    PYTHONPATH=. python bench/requests.py [--rounds 5]
    PYTHONPATH=. python bench/requests.py --effects [--only story,deck,page,both,empty] [--part K/N]
        [--categories C,...] [--resume LOGS]
    PYTHONPATH=. python bench/requests.py --tally LOGS

With ``--effects``, every row of the effect run (tests/requests/effect_rows.py) is carried out on a real project
(one per premise, the offline planner through ``Runtime.run``) and its effect judged on the canvas
(tests/requests/effects.py): pass rate per category, the wrong successes (exit 0 with another effect: must be
0), the seconds per turn, and what the rows that did not pass got.  Each row's verdict is also a line on stderr:
``--resume`` runs only the rows that logs of an earlier run have no verdict for (a part that stopped), and
``--tally`` gives the figures of the rows the logs hold (the parts of one run together).

Each request of tests/requests/suite.py and suite_versions.py is interpreted ``rounds`` times on its context's facts (no canvas
read: the facts are given, as ``read_facts`` returns them); p50/p95/max are over every interpretation, and
the pass rates are per category (pass, asked, wrong_success).  Goal: p95 under 20 ms.
"""

from __future__ import annotations

import argparse
import json
import re
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


LOG_LINE = re.compile(r"^(?P<verdict>\S+)\s+(?P<seconds>[\d.]+)s (?P<category>\S+)\s+\[(?P<context>[^\]]*)\] "
                      r"(?P<request>.*?)  (?P<why>.*)$")
"""A row's line in the effect run's log (stderr): verdict, seconds, category, [context] request, then why."""


def logged(logs: list[str]) -> list[dict[str, str]]:
    """The rows the effect run's logs hold a verdict for: a row a later log ran again counts that log's line (two
    rows with the same words and context, one log's two lines).  Logs joined by "+" are the parts of one run."""
    found: dict[tuple[str, str, str], list[dict[str, str]]] = {}
    for group in logs:  # "a+b": the parts of one run, together
        here: dict[tuple[str, str, str], list[dict[str, str]]] = defaultdict(list)
        for log in group.split("+"):
            for line in Path(log).read_text().splitlines():
                if match := LOG_LINE.match(line):
                    here[(match["category"], match["context"], match["request"])].append(match.groupdict())
        found.update(here)
    return [line for lines in found.values() for line in lines]


def _key(row: object) -> tuple[str, str, str]:
    return row.category, row.context, row.request  # type: ignore[attr-defined]


def _take(have: Counter, key: tuple[str, str, str]) -> bool:
    """Whether a verdict for ``key`` is left in ``have`` (taking it: two rows with one key need two lines)."""
    if have[key] <= 0:
        return False
    have[key] -= 1
    return True


def tally_logs(logs: list[str]) -> None:
    """The effect run's figures from its logs (the parts of one run, a resumed run's rows), as JSON."""
    from tests.requests.effect_rows import ROWS as EFFECT_ROWS

    lines = logged(logs)
    per: dict[str, Counter] = defaultdict(Counter)
    for line in lines:
        per[line["category"]]["rows"] += 1
        per[line["category"]][line["verdict"]] += 1
    seconds = sorted(float(line["seconds"]) for line in lines)
    have = Counter((line["category"], line["context"], line["request"]) for line in lines)
    print(json.dumps({
        "rows": len(lines), "of": len(EFFECT_ROWS), "pass": sum(line["verdict"] == "pass" for line in lines),
        "wrong_successes": [(x["request"], x["context"], x["why"]) for x in lines if x["verdict"] == "wrong_success"],
        "per_category": {c: {**dict(n), "pass_rate": round(n["pass"] / n["rows"], 3)} for c, n in sorted(per.items())},
        "turn_seconds_median": round(statistics.median(seconds), 2) if seconds else None,
        "turn_seconds_p95": round(seconds[int(0.95 * (len(seconds) - 1))], 2) if seconds else None,
        "not_passed": [(x["request"], x["context"], x["verdict"], x["why"][:200]) for x in lines if x["verdict"] != "pass"],
        "not_run": [(r.request, r.context) for r in EFFECT_ROWS if not _take(have, _key(r))],
    }, indent=1))


def effects(only: list[str] | None, part: str | None = None, resume: list[str] | None = None,
            categories: list[str] | None = None) -> None:
    """The effect run: every row on the canvas, as JSON."""
    import tempfile

    from tests.requests.effect_rows import ROWS as EFFECT_ROWS
    from tests.requests.effect_rows import left_out_rows
    from tests.requests.effects import EffectRunner, tally

    rows = [r for r in EFFECT_ROWS if (only is None or r.premise in only)
            and (categories is None or r.category in categories or "selected" in categories and "sel" in r.context)]
    if only:  # the premises in the order named
        rows.sort(key=lambda r: only.index(r.premise))
    if part:
        k, n = (int(x) for x in part.split("/"))
        rows = [r for i, r in enumerate(rows) if i % n == k]
    if resume:  # the rows (of this part) these logs have no verdict for: a part that stopped, started again
        have = Counter((x["category"], x["context"], x["request"]) for x in logged(["+".join(resume)]))
        rows = [r for r in rows if not _take(have, _key(r))]
    started = time.perf_counter()
    verdicts = []
    with tempfile.TemporaryDirectory(prefix="effects-") as folder:
        runner = EffectRunner(Path(folder))
        try:
            for verdict in runner.run_all(rows):
                verdicts.append(verdict)
                print(f"{verdict.verdict:13} {verdict.seconds:6.2f}s {verdict.row.category:11} "
                      f"[{verdict.row.context}] {verdict.row.request}  {verdict.why[:240]}", file=sys.stderr, flush=True)
        finally:
            runner.close()
    wall = time.perf_counter() - started
    print(json.dumps({
        **tally(verdicts), "wall_seconds": round(wall, 1), "seconds_per_row": round(wall / max(len(rows), 1), 3),
        "premise_build_seconds": {k: round(v, 1) for k, v in runner.build_seconds.items()},
        "not_passed": [(v.row.request, v.row.context, v.verdict, v.why[:200]) for v in verdicts if v.verdict != "pass"],
        "left_out": left_out_rows(),
    }, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--effects", action="store_true", help="carry out every row and judge it on the canvas")
    parser.add_argument("--only", help="premises of the effect run, comma-separated (story, deck, page, both, empty, "
                                       "cut, mixed), run in that order")
    parser.add_argument("--part", help="K/N: only every N-th row from the K-th (to run the effect run in parallel)")
    parser.add_argument("--categories", help="only the rows of these categories, comma-separated (to run again the "
                                             "rows a fix touches; 'selected': every row with a selection)")
    parser.add_argument("--resume", help="logs of an effect run (its stderr), comma-separated: run only the rows "
                                         "they have no verdict for")
    parser.add_argument("--tally", help="logs of an effect run, comma-separated: its figures from them, nothing run "
                                        "(a+b: the parts of one run; a later log's rows replace an earlier one's)")
    args = parser.parse_args()
    if args.tally:
        tally_logs(args.tally.split(","))
        return
    if args.effects:
        effects(args.only.split(",") if args.only else None, args.part, args.resume.split(",") if args.resume else None,
                args.categories.split(",") if args.categories else None)
        return
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
