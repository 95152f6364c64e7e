"""Version and cut requests end to end: words typed as people type them, through ``Runtime.run`` (the offline
planner), on a real 3-shot narrative.

Each effect is read on the canvas: the current outputs' hashes back to earlier ones (an undo, a revert), only
what the words name and what derives from it changed, 0 provider calls for a restore (the stored artifact and
the signature cache), the cut's clip order.  Every turn is counted: a turn that exits 0 without its effect is
a wrong success, and there must be none.  One story for the module (its media from the signature cache after
the first); the words → tool-call rows without an engine are tests/requests/suite_versions.py.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from jarvishub.commands.outcomes import exit_code, result_of
from jarvishub.runtime import Runtime
from tests.tools.story_ops import assert_invariants, cut_titles, hashes, make_story, provider_calls

pytestmark = pytest.mark.long_file(40)

LEDGER: list[tuple[str, str, str]] = []
"""(request, the result it should have, the result it had): every turn of the module."""


@pytest.fixture(scope="module")
def story(runtime: Runtime) -> dict[str, Any]:
    return make_story(runtime, "a lighthouse keeper's cat waits out a storm")


def turn(runtime: Runtime, request: str, expect: str = "done") -> Any:
    outcome = runtime.run(request)
    LEDGER.append((request, expect, result_of(outcome)))
    return outcome


def changed(before: dict[str, str], after: dict[str, str]) -> set[str]:
    return {title for title in after if before.get(title) != after[title]}


def test_an_edit_undone_and_the_undo_undone(runtime: Runtime, story: dict[str, Any]) -> None:
    store = runtime.project.store
    original = hashes(store, story)

    out = turn(runtime, "make shot 2 night")
    assert exit_code(out) == 0, out.reply
    night = hashes(store, story)
    assert changed(original, night) == {"shot 2 image", "shot 2 clip", "final cut"}

    calls = provider_calls(runtime)
    out = turn(runtime, "undo the last change to shot 2")
    assert exit_code(out) == 0 and out.measured["checked"] and out.measured["matches"], out.reply
    assert hashes(store, story) == original and provider_calls(runtime) == calls  # stored artifacts, the cache

    out = turn(runtime, "undo that")
    assert exit_code(out) == 0, out.reply
    assert hashes(store, story) == night and provider_calls(runtime) == calls
    assert_invariants(store)


def test_revert_after_two_edits_and_before_a_named_change(runtime: Runtime, story: dict[str, Any]) -> None:
    store = runtime.project.store
    start = hashes(store, story)
    out = turn(runtime, "make shot 3 rainy")
    assert exit_code(out) == 0, out.reply
    rain = hashes(store, story)
    out = turn(runtime, "make shot 3 a close-up")
    assert exit_code(out) == 0, out.reply
    assert changed(rain, hashes(store, story)) == {"shot 3 image", "shot 3 clip", "final cut"}

    calls = provider_calls(runtime)
    out = turn(runtime, "put shot 3 back to before the rain change")
    assert exit_code(out) == 0 and out.measured["matches"], out.reply
    assert hashes(store, story) == start and provider_calls(runtime) == calls

    out = turn(runtime, "revert shot 3 to the original")  # it is the original again: nothing to change
    assert exit_code(out) == 0 and hashes(store, story) == start, out.reply
    assert_invariants(store)


def test_the_cut_reordered_trimmed_and_put_back(runtime: Runtime, story: dict[str, Any]) -> None:
    store = runtime.project.store
    before = hashes(store, story)
    order = cut_titles(store, story["cut"])

    out = turn(runtime, "swap shots 2 and 3 in the cut")
    assert exit_code(out) == 0 and out.measured["matches"], out.reply
    assert cut_titles(store, story["cut"]) == [order[0], order[2], order[1]]
    assert changed(before, hashes(store, story)) == {"final cut"}

    out = turn(runtime, "remove the last shot from the final cut")
    assert exit_code(out) == 0, out.reply
    assert cut_titles(store, story["cut"]) == [order[0], order[2]]

    out = turn(runtime, "put shot 2 back in the cut")
    assert exit_code(out) == 0, out.reply
    assert sorted(cut_titles(store, story["cut"])) == sorted(order)
    assert changed(before, hashes(store, story)) <= {"final cut"}
    assert_invariants(store)


def test_questions_and_what_the_canvas_does_not_hold_change_nothing(runtime: Runtime,
                                                                    story: dict[str, Any]) -> None:
    store = runtime.project.store
    before = hashes(store, story)
    out = turn(runtime, "how many versions of shot 3 are there?")
    assert exit_code(out) == 0 and hashes(store, story) == before, out.reply
    # What it read: every version of shot 3's image, the original the one in use again after the revert.
    assert re.search(r"shot 3 has [3-9] versions", out.reply) and "v1 (completed)" in out.reply, out.reply

    for request, reason in (("undo the last change to shot 9", "not_found"),
                            ("revert shot 1 to version 7", "not_found"),
                            ("swap shots 2 and 14 in the cut", "not_found")):
        out = turn(runtime, request, expect=reason)
        assert out.outcome == "clarification" and out.clarification["reason"] == reason, (request, out.reply)
        assert hashes(store, story) == before


def test_no_turn_exited_0_without_its_effect() -> None:
    """The count of wrong successes over every turn above: a turn reported done where it should not be."""
    assert LEDGER, "the turns above ran first"
    wrong = [(r, want, got) for r, want, got in LEDGER if got == "done" and want != "done"]
    assert wrong == [] and [(r, want, got) for r, want, got in LEDGER if want != got] == []
