import time, cProfile, pstats
from tests.requests.canvas_checks import build_story, hashes, check_invariants

def test_smoke(make_runtime, project):
    build_story(make_runtime)
    rt = make_runtime()
    rt.run("shot five should be at sunset")
    pr = cProfile.Profile(); pr.enable()
    out = rt.run("make shot 6 warmer")
    pr.disable()
    print(out.reply)
    pstats.Stats(pr).sort_stats("cumulative").print_stats(45)
