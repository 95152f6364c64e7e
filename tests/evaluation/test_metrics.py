"""Process metrics on small hand-built trajectories and commits, with answers worked out by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from jarvishub.evaluation import metrics
from jarvishub.evaluation.outputs import Canvas, current_outputs, invariants
from jarvishub.evaluation.results import Results, ScenarioResult, TurnResult, load_results
from store.models import CanvasEdge, CanvasNode, CommitRecord, EdgeType, NodeStatus


def _step(index, tool=None, *, calls=0, hits=0, verdict=None, model=(1, 1000, 600, 1000), rebuilds=0, raw=None):
    action = {"kind": "tool_call", "tool": tool, "args": {}} if tool else {"kind": "reply", "text": "done"}
    if raw:
        action = {"kind": "malformed", "raw_error": raw}
    step = {"index": index, "action": action, "verdict": verdict, "provider_calls": calls, "cache_hits": hits,
            "rebuilds": rebuilds, "model_calls": model[0], "model_input_bytes": model[1],
            "tool_schema_bytes": model[2], "max_call_bytes": model[3]}
    if raw:
        step["raw_error"] = raw
    return step


EDIT_TURN = {
    "turn_id": "T2", "outcome": "replied",
    "started_at": "2026-11-30T21:00:00.000000+00:00", "finished_at": "2026-11-30T21:00:02.500000+00:00",
    "steps": [
        _step(0, "query_canvas", model=(1, 1000, 600, 1000)),
        _step(1, "mark_stale", model=(1, 1400, 600, 1400)),
        _step(2, "regenerate_stale", calls=3, hits=1, model=(1, 1800, 600, 1800), rebuilds=2),
        _step(3, "generate_image", verdict={"verdict": "reject", "reason": "out_of_scope", "message": "no"},
              model=(2, 4000, 1200, 2100)),
        _step(4, None, raw="tool call 'x' could not be parsed", model=(1, 900, 600, 900)),
        _step(5, None, model=(1, 2000, 600, 2000)),
    ],
}

# Turn T1 made shot 1 and shot 2 (image, clip) and the cut; T2 made a new version of shot 2's image, its clip and
# the cut, and marked (touched, but did not make) shot 1's image.
COMMITS = [
    CommitRecord(id="c1", canvas_version=1, action_id="T1-s0", node_ids=["i1", "i2"]),
    CommitRecord(id="c2", canvas_version=2, action_id="T1-s1", node_ids=["v1", "v2", "cut"]),
    CommitRecord(id="c3", canvas_version=3, action_id="T1-record", node_ids=["i1", "i2", "v1", "v2", "cut"]),
    CommitRecord(id="c4", canvas_version=4, action_id="T2-s1", node_ids=["i1", "i2", "v2", "cut"]),
    CommitRecord(id="c5", canvas_version=5, action_id="T2-s2", node_ids=["i2b", "v2b", "cutb", "i2", "v2", "cut"]),
    CommitRecord(id="c6", canvas_version=6, action_id="OTHER-s0", node_ids=["note"]),
]
OUTPUT_OF = {"i1": "shot 1 image", "i2": "shot 2 image", "i2b": "shot 2 image", "v1": "shot 1 clip",
             "v2": "shot 2 clip", "v2b": "shot 2 clip", "cut": "final cut", "cutb": "final cut"}


def test_counts_of_an_edit_turn():
    steps = EDIT_TURN["steps"]
    assert metrics.provider_calls(steps) == 3  # the cache hit is not a provider call
    assert metrics.context(steps) == (7, 11100, 4200, 2100)
    assert metrics.rejections(steps) == (1, {"out_of_scope": 1})
    inside_a_skill = {**_step(0, "skill__web_revise"), "observation": {"error": "...", "refused": "kind_not_granted"}}
    assert metrics.rejections([*steps, inside_a_skill]) == (2, {"kind_not_granted": 1, "out_of_scope": 1})
    assert metrics.retries(steps) == 3  # one malformed output + two rebuilds
    assert metrics.wall_s([EDIT_TURN]) == 2.5
    assert metrics.clarifications([EDIT_TURN]) == 0
    assert metrics.clarifications([{**EDIT_TURN, "outcome": "clarification"}], questions_asked=1) == 2


def test_what_a_turn_made_is_read_from_commits_not_from_what_it_touched():
    assert metrics.created_nodes(COMMITS, ["T2"]) == {"i2b", "v2b", "cutb"}
    assert metrics.created_nodes(COMMITS, ["T1"]) == {"i1", "i2", "v1", "v2", "cut"}
    assert metrics.created_nodes(COMMITS, []) == set()
    assert [c["id"] for c in metrics.commits_of(COMMITS, ["T2"])] == ["c4", "c5"]
    changed = metrics.changed_outputs(metrics.created_nodes(COMMITS, ["T2"]), OUTPUT_OF)
    assert changed == {"shot 2 image", "shot 2 clip", "final cut"}


@pytest.mark.parametrize("targeted, expected", [
    (None, (None, 0, None)),  # no targets declared: nothing to compare with
    ({"shot 2 image", "shot 2 clip", "final cut"}, (3, 0, 1.0)),  # exact
    ({"shot 2 image"}, (1, 2, 3.0)),  # collateral changes
    ({"shot 2 image", "shot 2 clip", "final cut", "shot 1 image", "shot 1 clip"}, (5, 0, 0.6)),  # missed work
    (set(), (0, 3, None)),
])
def test_locality(targeted, expected):
    assert metrics.locality({"shot 2 image", "shot 2 clip", "final cut"}, targeted) == expected


def test_cost_prices_provider_calls_by_media_and_model_input_by_byte():
    steps = [_step(0, "skill__reference_images", calls=6, model=(1, 0, 0, 0)),
             _step(1, "skill__video_clips", calls=6, model=(1, 0, 0, 0)),
             _step(2, "regenerate_stale", calls=2, model=(1, 4_000_000, 0, 4_000_000))]
    expected = 6 * 0.04 + 6 * 0.25 + 2 * (0.04 + 0.25) / 2 + 4_000_000 * 2.5e-6 / 4
    assert metrics.estimated_cost_usd(steps) == pytest.approx(expected)


def test_turn_metrics_put_together():
    m = metrics.turn_metrics([EDIT_TURN], COMMITS, OUTPUT_OF, targeted={"shot 2 image", "shot 2 clip", "final cut"},
                             approvals=1)
    assert (m.provider_calls, m.model_calls, m.context_bytes, m.max_call_bytes, m.tool_schema_bytes) == \
        (3, 7, 11100, 2100, 4200)
    assert (m.targeted_outputs, m.changed_outputs, m.untargeted_changed, m.locality) == (3, 3, 0, 1.0)
    assert (m.rejections, m.rejection_reasons, m.retries, m.approvals, m.recovered, m.wall_s) == \
        (1, {"out_of_scope": 1}, 3, 1, None, 2.5)
    assert m.changed == ["final cut", "shot 2 clip", "shot 2 image"]


def _node(id_, kind, title, tool, status=NodeStatus.COMPLETED, v=1, **inputs):
    return CanvasNode(id=id_, kind=kind, title=title, status=status, canvas_version=v, inputs=inputs,
                      metadata={"provenance": {"tool": tool}})


def _edge(type_, source, target):
    return CanvasEdge(type=type_, source=source, target=target)


def test_output_keys_follow_lineage_not_ids():
    shot1, shot3, shot3b = (_node("s1", "shot", "shot 1", "create_node"), _node("s3", "shot", "shot 3", "create_node"),
                            _node("s3b", "shot", "shot 3", "create_node"))
    old = _node("img-old", "image", "shot 1 image", "generate_image", NodeStatus.REJECTED)
    new = _node("img-new", "image", "shot 1 image", "generate_image", v=2)
    cand = _node("cand", "image", "shot 1 image · warm", "generate_image", NodeStatus.REJECTED, v=3)
    a, b = _node("a", "image", "shot 3 image", "generate_image"), _node("b", "image", "shot 3 image", "generate_image")
    page = _node("p1", "code", "Studio page", "create_node")
    page2 = _node("p2", "code", "Studio page (hero: full-bleed)", "branch", v=2)
    prev1 = _node("pv1", "image", "preview of site/index.html", "render_page")
    prev2 = _node("pv2", "image", "preview of site/revision-1.html", "render_page", v=2)
    edges = [_edge(EdgeType.GENERATED_FROM, "img-old", "s1"), _edge(EdgeType.GENERATED_FROM, "img-new", "s1"),
             _edge(EdgeType.VERSION_OF, "img-new", "img-old"), _edge(EdgeType.VERSION_OF, "cand", "img-old"),
             _edge(EdgeType.GENERATED_FROM, "a", "s3"), _edge(EdgeType.GENERATED_FROM, "b", "s3b"),
             _edge(EdgeType.VERSION_OF, "p2", "p1"), _edge(EdgeType.GENERATED_FROM, "pv1", "p1"),
             _edge(EdgeType.GENERATED_FROM, "pv2", "p2")]
    canvas = Canvas([shot1, shot3, shot3b, old, new, cand, a, b, page, page2, prev1, prev2], edges)
    keys = canvas.output_keys()
    assert keys["img-old"] == keys["img-new"] == keys["cand"] == "shot 1 image"
    assert {keys["a"], keys["b"]} == {"shot 3 image #s3", "shot 3 image #s3b"}  # two storyboards, two outputs
    assert keys["p1"] == keys["p2"] == "Studio page"
    assert keys["pv1"] == keys["pv2"] == "preview of Studio page"
    current, problems = current_outputs(canvas)
    assert current["shot 1 image"].id == "img-new" and current["Studio page"].id == "p2" and problems == []
    assert invariants(canvas) == []
    broken = Canvas([shot1, old.model_copy(update={"status": NodeStatus.COMPLETED}), new],
                    edges[:3])
    assert any("two current versions" in p for p in invariants(broken))


def test_results_round_trip(tmp_path):
    turn = TurnResult(index=0, kind="edit", request="make shot 2 night",
                      metrics=metrics.turn_metrics([EDIT_TURN], COMMITS, OUTPUT_OF, targeted={"shot 2 image"}))
    scenario = ScenarioResult(name="s", workflow="narrative", agent="canvas", project_dir="runs/canvas/s",
                              turns=[turn]).finish()
    assert scenario.passed and scenario.totals.provider_calls == 3 and scenario.totals.untargeted_changed == 2
    results = Results(started_at="2026-11-30T21:00:00Z", agents=["canvas"], scenarios=[scenario])
    path = results.write(tmp_path / "results.json")
    again = load_results(path)
    assert again.schema_ == "jarvishub-eval/1" and '"schema": "jarvishub-eval/1"' in path.read_text()
    summary = again.summary["narrative"]["canvas"]
    assert summary.edit_turn_provider_calls_median == 3 and summary.locality_mean == 3.0
    assert summary.context_bytes_at_turn == {"1": 11100, "5": None, "10": None}
    assert summary.call_bytes_at_turn == {"1": round(11100 / 7), "5": None, "10": None}  # 7 model calls


def _story(extra_nodes=(), extra_edges=()):
    """Two storyboards with a shot 3 each (one image apiece), a clip and a cut made from the lighthouse image."""
    plans = [_node("pl1", "plan", "Storyboard: a lighthouse keeper", "create_node"),
             _node("pl2", "plan", "Storyboard: a fisherman at sea", "create_node")]
    shots = [_node("s3", "shot", "shot 3", "create_node"), _node("s3b", "shot", "shot 3", "create_node")]
    media = [_node("i3", "image", "shot 3 image", "generate_image"), _node("i3b", "image", "shot 3 image",
                                                                         "generate_image"),
             _node("c3", "video", "shot 3 clip", "generate_video", source_node_id="i3"),
             _node("cut", "video", "final cut", "assemble_cut", clip_node_ids=["c3"])]
    edges = [_edge(EdgeType.GENERATED_FROM, "s3", "pl1"), _edge(EdgeType.GENERATED_FROM, "s3b", "pl2"),
             _edge(EdgeType.GENERATED_FROM, "i3", "s3"), _edge(EdgeType.GENERATED_FROM, "i3b", "s3b"),
             _edge(EdgeType.GENERATED_FROM, "c3", "i3"), _edge(EdgeType.GENERATED_FROM, "cut", "c3")]
    return Canvas([*plans, *shots, *media, *extra_nodes], [*edges, *extra_edges])


def _evidence(before, after, *, changed=(), targeted=None, steps=(), outcome="replied", asked=()):
    from jarvishub.evaluation.checks import TurnEvidence
    from jarvishub.evaluation.results import TurnMetrics

    return TurnEvidence(before=before, after=after, outcome=outcome, steps=list(steps),
                        metrics=TurnMetrics(changed=sorted(changed)), targeted=targeted, project_root=Path("."),
                        read_bytes=lambda handle: b"", find_nodes=lambda **kw: [], asked=list(asked))


def test_references_name_outputs_on_the_canvas():
    from jarvishub.evaluation.checks import ReferenceNotFound, resolve_nodes, targeted_nodes

    canvas = _story()
    assert sorted(n.id for n in resolve_nodes(canvas, "shot 3")) == ["i3", "i3b"]  # two storyboards: two outputs
    assert [n.id for n in resolve_nodes(canvas, "shot 3 of fisherman")] == ["i3b"]
    assert [n.id for n in resolve_nodes(canvas, "Final Cut")] == ["cut"]
    assert targeted_nodes(canvas, ["shot 3 of lighthouse"]) == {"i3", "c3", "cut"}
    with pytest.raises(ReferenceNotFound):
        resolve_nodes(canvas, "shot 9")


def test_checks_fail_when_the_canvas_says_so():
    from jarvishub.evaluation.checks import run_check
    from jarvishub.evaluation.scenario import (ChangedOnlyCheck, ClarificationCheck, RefusedCheck, UnchangedCheck,
                                               VerifyCheck)

    before = _story()
    new = _node("i3n", "image", "shot 3 image", "generate_image", v=5)
    after = _story([new], [_edge(EdgeType.VERSION_OF, "i3n", "i3"), _edge(EdgeType.GENERATED_FROM, "i3n", "s3")])
    targeted = {"shot 3 image #s3", "shot 3 clip", "final cut"}
    exact = _evidence(before, after, changed=targeted, targeted=targeted)
    assert run_check(ChangedOnlyCheck(type="changed_only"), exact).passed
    missed = run_check(ChangedOnlyCheck(type="changed_only"), _evidence(before, after, changed={"shot 3 image #s3"},
                                                                        targeted=targeted))
    assert not missed.passed and "missed: final cut, shot 3 clip" in missed.detail
    assert run_check(UnchangedCheck(type="unchanged", refs=["shot 3 of fisherman"]), exact).passed
    moved = run_check(UnchangedCheck(type="unchanged", refs=["shot 3 of lighthouse"]), exact)
    assert not moved.passed and moved.detail == "changed: shot 3 image #s3"
    # The old image is still live under its new version: the invariant catches it.
    broken = run_check(VerifyCheck(type="verify"), exact)
    assert not broken.passed and "has a newer live version i3n" in broken.detail
    refused_steps = [{"verdict": {"verdict": "reject", "reason": "kind_not_granted"}}]
    assert run_check(RefusedCheck(type="refused", reason="kind_not_granted"),
                     _evidence(before, before, steps=refused_steps)).passed
    assert not run_check(RefusedCheck(type="refused"), _evidence(before, after, steps=refused_steps,
                                                                 changed={"shot 3 image #s3"})).passed
    assert not run_check(RefusedCheck(type="refused"), _evidence(before, before)).passed
    asked = _evidence(before, before, outcome="interrupted", asked=[{"type": "clarification", "reason": "ambiguous"}])
    assert run_check(ClarificationCheck(type="clarification", reason="ambiguous"), asked).passed
    assert not run_check(ClarificationCheck(type="clarification", reason="not_found"), asked).passed
