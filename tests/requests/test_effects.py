"""A representative slice of the request suite carried out on real projects, its effects read on the canvas.

Every category of the suite (shot edits by number, position, description, selection and the previous turn;
several clauses; negations; typos; questions; undo and revert at several depths; the cut; the page; slides;
routing; asks and refusals) is run through ``Runtime.run`` with the offline planner, on fresh premises (a ferry
pilot's story, a deck on community solar gardens, a bicycle repair café's page), and judged on the canvas by
``tests/requests/effects.py``: hashes and pixels of the shots, the cut's order, the page's CSS tokens and
sections, the slides' titles and previews, and for asks nothing written and the exit code.  The whole run (every
row) is ``bench/requests.py --effects``; its figures are in docs/requests.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from jarvishub.commands.outcomes import exit_code
from jarvishub.runtime import Runtime
from nodes.models.scripted import ScriptedModel
from store.models import new_id
from tests.requests.effect_rows import NOT_DONE, ROWS, sample
from tests.requests.effects import EffectRunner, Verdict
from tests.system_tools import require_system_tool
from tools.deck.canvas import find_deck, read_deck

pytestmark = pytest.mark.long_file(120)

_ORDER = ["cut", "versions", "story", "mixed", "deck", "both", "page", "empty"]
SAMPLE = sorted(sample(), key=lambda r: _ORDER.index(r.premise))
"""Grouped by premise, so each premise's project is opened once."""

VERDICTS: list[Verdict] = []


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory, engines: dict[str, Any]) -> Any:
    """The premises' projects, each a database on the worker's engine (a premise is rebuilt after a failed reset)."""
    made = EffectRunner(tmp_path_factory.mktemp("effects"), host=engines["arcadedb"])
    yield made
    made.close()


@pytest.mark.parametrize("row", SAMPLE, ids=[f"{r.category}:{r.request}:{r.context}" for r in SAMPLE])
def test_a_request_does_on_the_canvas_what_it_asks(runner: EffectRunner, row: Any) -> None:
    if row.premise in ("page", "both"):  # every page operation renders the new version's preview in Chromium
        require_system_tool("chromium", apt="chromium")
    verdict = runner.run(row)
    VERDICTS.append(verdict)
    assert verdict.verdict != "wrong_success", verdict.why
    assert verdict.verdict == "pass" or row.request in NOT_DONE, (verdict.verdict, verdict.why)


def test_the_slice_covers_every_category_and_no_turn_was_a_wrong_success() -> None:
    assert VERDICTS, "the rows above ran first"
    assert {r.category for r in SAMPLE} == {r.category for r in ROWS}
    assert {r.premise for r in SAMPLE} >= {"story", "deck", "page"}
    verdicts = Counter(v.verdict for v in VERDICTS)
    assert verdicts["wrong_success"] == 0, [(v.row.request, v.why) for v in VERDICTS if v.verdict == "wrong_success"]


def test_a_slide_and_a_shot_in_one_request_get_both_grants_and_a_measured_report(runner: EffectRunner) -> None:
    """Two families in one request: the union of their smallest grants, both carried out, the report checked;
    a model that does one half is not done."""
    premise = runner.premise("mixed")
    runtime, thread = premise.runtime, new_id()
    assert exit_code(runtime.run("make shot 2 night", thread_id=thread)) == 0
    night = premise.state()
    out = runtime.run("delete the last slide and undo the last change to shot 2", thread_id=thread)
    assert exit_code(out) == 0 and out.measured["checked"] and out.measured["matches"], out.reply
    after = premise.state()
    assert after.titles == night.titles[:-1] and after.previews == night.previews[:-1]
    assert after.hashes == premise.base.hashes  # shot 2, its clip and the cut as before the night; nothing else
    grant = runtime.grants.get(out.grant_id)
    assert not grant.scope.all_nodes and {"deck_delete_slide", "undo_change"} <= set(grant.tools), grant

    assert exit_code(runtime.run("make shot 2 night", thread_id=thread)) == 0
    half = Runtime(premise.project, model=ScriptedModel(script=[
        {"name": "deck_delete_slide", "args": {"slide": 1}}, "Deleted the first slide and undid shot 2's change."]))
    try:
        out = half.run("delete the first slide and undo the last change to shot 2")
    finally:
        half.close()
    assert out.outcome == "failed" and exit_code(out) == 1, out.reply
    assert out.measured["checked"] and out.measured["missing"], out.measured


def attack_outside_the_grant(runner: EffectRunner, monkeypatch: pytest.MonkeyPatch, request: str, granted: set[str],
                             tool: str, args: dict[str, Any], *, same_thread: bool = False) -> Any:
    """Shots 2 and 5 made night on the mixed premise, then ``request`` asked of a model that calls ``tool`` on shot
    5's image (``args`` given the node id as ``node_id``), a tool the request's grant holds (``granted``) on an
    output outside its scope.  With validate's argument check switched off, only the bridge's commit check (every
    node the batch writes, read from the canvas, against the grant's scope) stands: the step is refused and
    nothing changes.  With that check off too, the same call under the same grant commits: the refusal is the
    check's doing.  The premise is put back after; returns it."""
    import nodes.bridge
    from nodes.actions import ToolCall
    from nodes.bridge import Bridge, Usage
    from tests.security.canvas_state import fingerprint

    premise = runner.premise("mixed")
    runtime, thread = premise.runtime, new_id()
    turns = [runtime.run(request, thread_id=thread) for request in ("make shot 2 night", "make shot 5 night")]
    assert all(exit_code(t) == 0 for t in turns), [t.reply for t in turns]
    shot5 = premise.outputs()["shot 5 image"].id
    call = {**args, "node_id": shot5}
    monkeypatch.setattr(Bridge, "_check_scope", lambda self, node_ids, grant, usage, reading_ok=False: None)
    attacker = Runtime(premise.project, model=ScriptedModel(script=[{"name": tool, "args": call}, "Done as asked."]))
    before = fingerprint(premise.store)
    try:
        out = attacker.run(request, thread_id=thread if same_thread else new_id())
        grant = attacker.grants.get(out.grant_id)
        after = fingerprint(premise.store)
        assert not grant.scope.all_nodes and granted <= set(grant.tools), grant
        refused = [s for s in out.steps if (s.get("verdict") or {}).get("reason") == "out_of_scope"
                   or "outside this grant's scope" in str((s.get("observation") or {}).get("error", ""))]
        assert refused, out.steps
        assert exit_code(out) == 3, out.reply  # refused: the grant's no, whatever "Done as asked." says
        assert (after["nodes"], after["edges"]) == (before["nodes"], before["edges"])

        monkeypatch.setattr(nodes.bridge, "written_node_ids", lambda reader, mutations: [])
        done = attacker.bridge.submit(ToolCall(action_id=new_id(), tool=tool, args=call), grant, Usage(),
                                      thread_id="attack")
        assert done.verdict == "allow" and done.commit is not None, done
        assert premise.outputs()["shot 5 image"].id != shot5
    finally:
        attacker.close()
        monkeypatch.undo()
        premise.reset([t.turn_id for t in turns], premise.state())
    return premise


def test_a_mixed_request_s_grant_refuses_a_write_outside_its_union_with_the_checks_above_it_off(
        runner: EffectRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    """The attack on the mixed-family grant: a model given "delete the last slide and undo the last change to
    shot 2" undoes shot 5's change instead (a tool the grant holds, on an output outside its union)."""
    attack_outside_the_grant(runner, monkeypatch, "delete the last slide and undo the last change to shot 2",
                             {"deck_delete_slide", "undo_change"}, "undo_change", {})


def test_a_rejection_s_grant_refuses_a_write_outside_what_it_brings_back_with_the_checks_above_it_off(
        runner: EffectRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    """The attack on a rejection's grant, which holds the earlier versions the rejection makes current again: a
    model given "mark shot 2 as rejected" rejects shot 5's image instead (``set_status``, a tool the grant holds)."""
    premise = attack_outside_the_grant(runner, monkeypatch, "mark shot 2 as rejected", {"set_status"}, "set_status",
                                       {"status": "rejected"}, same_thread=True)
    assert premise.clean, "the premise is its base again for the rows after"


def done_turns(premise: Any, turns: list[str]) -> Any:
    """A function that runs a request on one thread of ``premise`` and asserts it was done as measured (exit 0,
    the change set as the intent asked), keeping its turn id in ``turns`` (to put the canvas back after)."""
    thread = new_id()

    def turn(request: str) -> Any:
        out = premise.runtime.run(request, thread_id=thread)
        turns.append(out.turn_id)
        assert exit_code(out) == 0 and (out.measured or {}).get("matches", True), (request, out.reply, out.measured)
        return out

    return turn


def test_a_deck_turn_undone_whole_and_a_deck_reverted_keep_their_slides(runner: EffectRunner) -> None:
    """"Undo the whole last turn" after a deck edit is the turn's undo (not the deck's last change), and brings
    the deck back with its slides; "revert the deck to the original" after a slide was deleted is granted the
    slide it brings back; a slide's picture regenerates after a revert, also one past an earlier regeneration."""
    premise = runner.premise("mixed")
    base, turns = premise.state(), []
    turn = done_turns(premise, turns)
    try:
        turn("delete the last slide")
        undone = turn("undo the whole last turn")
        assert [c["operation"] for c in undone.intent["clauses"]] == ["undo_turn"], undone.intent
        after = premise.state()
        assert (after.titles, after.previews) == (base.titles, base.previews)
        deck = find_deck(premise.store, None)
        assert {s.node.group_id for s in read_deck(premise.store, deck).slides} == {deck.id}  # its slides, grouped
        turn("delete the last slide")
        turn("revert the deck to the original")
        assert (premise.state().titles, premise.state().previews) == (base.titles, base.previews)
        turn("regenerate the picture on slide 2")
        after = premise.state()
        assert after.titles == base.titles and [i for i, (a, b) in enumerate(zip(after.previews, base.previews))
                                                if a != b] == [1]
        turn("revert the deck to the original")  # slide 2 shows its first picture again, made current again
        assert (premise.state().titles, premise.state().previews) == (base.titles, base.previews)
        turn("regenerate the picture on slide 2")
        assert premise.state().previews[1] != base.previews[1]
    finally:
        premise.reset(turns, premise.state())


def test_a_long_lineage_is_measured_and_a_clip_reverted_is_made_from_the_current_image(runner: EffectRunner) -> None:
    """After more than a dozen versions of shot 6's image (its clip and the cut with it), an undo is measured as
    done (the report walks a lineage of any length); a clip reverted to its original after its image was
    reverted by a restored copy is made from that copy, the image now current (one current version each)."""
    premise = runner.premise("mixed")
    base, turns = premise.state(), []
    turn = done_turns(premise, turns)
    try:
        turn("make shot 6 night")
        image = premise.outputs()["shot 6 image"].id
        for _ in range(13):  # each a restored copy: image, clip and cut get a version each (from the cache)
            premise.call("undo_change", node_id=image)
        turn("undo the last change to shot 6")
        turn("make shot 3 night")
        turn("make shot 3's clip 3 seconds long")
        turn("revert shot 3 to the original")
        turn("revert shot 3's clip to the original")
        after = premise.state()
        assert after.problems == [], after.problems
        assert after.hashes["shot 3 clip"] == base.hashes["shot 3 clip"]
    finally:
        premise.reset(turns, premise.state())


@contextmanager
def history_on(runner: EffectRunner, kind: str) -> Iterator[tuple[Any, Any, Any]]:
    """A premise, its state now, and :func:`done_turns` on it; the canvas is put back after."""
    premise = runner.premise(kind)
    base, turns = premise.state(), []
    try:
        yield premise, base, done_turns(premise, turns)
    finally:
        premise.reset(turns, premise.state())


def test_a_deck_reverted_past_a_deleted_slide_s_new_picture_is_granted_that_picture(runner: EffectRunner) -> None:
    """A slide's picture regenerated, then the slide deleted: the deck's original shows the slide's first picture,
    whose output's current version (the later take) is now on no slide of the deck.  Reverting the deck makes the
    first picture current again by superseding that take, so its grant must cover it."""
    with history_on(runner, "deck") as (premise, base, turn):
        turn("regenerate the picture on slide 2")
        turn("delete slide 2")
        turn("revert the deck to the original")
        after = premise.state()
        assert (after.titles, after.previews, after.decks) == (base.titles, base.previews, base.decks)
        turn("regenerate the picture on slide 2")  # from the picture made current again
        assert premise.state().previews[1] != base.previews[1]


def test_a_shot_s_new_image_marked_rejected_brings_its_previous_one_back(runner: EffectRunner) -> None:
    """"Mark shot 2 as rejected" after shot 2 was made night: the night image, its clip and the cuts made from it are
    set aside and the versions before them are current again, so the grant covers those earlier versions (none of
    them derives from the rejected image).  The cut before the night was made from shot 5's clip as it was then,
    replaced since (shot 5 made rainy): it comes back stale and is rebuilt from the current clips in the same turn."""
    with history_on(runner, "mixed") as (premise, base, turn):
        turn("make shot 2 night")
        turn("make shot 5 rainy")
        rainy = premise.state()
        turn("mark shot 2 as rejected")
        after = premise.state()
        assert after.problems == [] and not after.stale, (after.problems, after.stale)
        assert {t: after.hashes[t] for t in ("shot 2 image", "shot 2 clip")} == \
            {t: base.hashes[t] for t in ("shot 2 image", "shot 2 clip")}
        assert {t: after.hashes[t] for t in ("shot 5 image", "shot 5 clip")} == \
            {t: rainy.hashes[t] for t in ("shot 5 image", "shot 5 clip")}
        assert after.changed(base) == {"shot 5 image", "shot 5 clip", "final cut"}, after.changed(base)


def test_a_look_copied_from_another_shot_is_what_that_shot_has_on_the_canvas(runner: EffectRunner) -> None:
    """"the same lighting as shot 2", after shot 2 was made night: shot 4 is rendered at night, and only shot 4's
    image, its clip and the cut change (it was refused as a comparison)."""
    with history_on(runner, "story") as (premise, base, turn):
        turn("make shot 2 night")
        night = premise.state()
        turn("make shot 4 the same lighting as shot 2")
        after = premise.state()
        assert after.inputs["shot 4 image"].get("lighting") == night.inputs["shot 2 image"]["lighting"] == "night"
        assert after.changed(night) == {"shot 4 image", "shot 4 clip", "final cut"}, after.changed(night)
