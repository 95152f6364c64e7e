"""What one edit of a shot costs on a built film, media included; prints one JSON object.

    python bench/film_edits.py [--shots 6] [--turns 12]

Builds a film with the narrative demo's premise on a scratch project (embedded ArcadeDB, offline providers),
then runs ``--turns`` edits through ``Runtime.run``, each giving a shot a look it has not had in this run
("make shot 3 night", ...), so that every turn makes a new image, clip and cut (no generation-cache hit).
Reported: the median and quartiles of the turns' wall time, and the ffmpeg processes a turn ran (encodes,
the cut's format read, its join, the probes), counted by wrapping ``run_ffmpeg``.  Run it on two trees, one
after the other, to compare them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

# Run as `python bench/film_edits.py`, this folder comes first on sys.path; keep packages visible.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import tools.generate.ffmpeg as ffmpeg_module  # noqa: E402
from jarvishub.project import Project  # noqa: E402
from jarvishub.runtime import Runtime  # noqa: E402

PREMISE = "a {shots}-shot short drama about a lighthouse keeper who finds a message in a bottle"
LOOKS = ["night", "dawn", "noon", "overcast", "sunset", "rainy", "foggy", "moonlit"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shots", type=int, default=6)
    parser.add_argument("--turns", type=int, default=12)
    args = parser.parse_args()
    runs: list[int] = []
    counted = ffmpeg_module.run_ffmpeg

    def counting(*call_args, **call_kwargs):  # type: ignore[no-untyped-def]
        runs.append(1)
        return counted(*call_args, **call_kwargs)

    for module in [m for m in list(sys.modules.values()) if getattr(m, "run_ffmpeg", None) is counted]:
        module.run_ffmpeg = counting  # every module that imported it by name
    root = Path(tempfile.mkdtemp(prefix="jarvishub-film-edits-"))
    with Project.init(root / "film") as project:
        runtime = Runtime(project)
        built = runtime.run(PREMISE.format(shots=args.shots))
        assert built.outcome == "replied", built.reply
        seconds: list[float] = []
        per_turn: list[int] = []
        for turn in range(args.turns):
            shot = 1 + turn % args.shots
            look = LOOKS[(turn // args.shots) % len(LOOKS)]
            before = len(runs)
            started = time.perf_counter()
            out = runtime.run(f"make shot {shot} {look}")
            seconds.append(time.perf_counter() - started)
            per_turn.append(len(runs) - before)
            assert out.outcome == "replied", out.reply
        runtime.close()
    quartiles = statistics.quantiles(seconds, n=4)
    print(json.dumps({
        "shots": args.shots,
        "turns": args.turns,
        "median_s": round(statistics.median(seconds), 3),
        "quartiles_s": [round(q, 3) for q in quartiles],
        "ffmpeg_runs_per_turn": statistics.median(per_turn),
    }, indent=2))


if __name__ == "__main__":
    main()
