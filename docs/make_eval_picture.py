"""The README's picture of the evaluation report: ``python docs/make_eval_picture.py RESULTS.json``.

Renders ``report.html`` of a suite run (``jarvishub eval --out DIR`` writes
``DIR/results.json``) and photographs its first screen in Chromium — the summary
table and the first workflow's plots — into ``docs/eval-report.png``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path[0] = str(DOCS.parent)

from jarvishub.evaluation.report import write_report  # noqa: E402
from jarvishub.evaluation.screenshot import screenshot_report  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="a results.json written by `jarvishub eval`")
    parser.add_argument("--out", type=Path, default=DOCS / "eval-report.png", help="where the PNG goes")
    parser.add_argument("--full-page", action="store_true", help="the whole page, not its first screen")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jarvishub-eval-report-") as tmp:
        html = write_report(args.results, Path(tmp) / "report.html")
        target = screenshot_report(html, args.out, full_page=args.full_page)
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
