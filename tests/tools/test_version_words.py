"""How the version tools read times and change descriptions (pure functions: no engine)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from store.models import CanvasNode
from tools.history import (
    NoSuchVersion,
    OutputHistory,
    OutputVersion,
    UnknownTime,
    changes_between,
    parse_when,
    version_at,
    version_before_change,
)

ZONE = timezone(timedelta(hours=2))
AFTERNOON = datetime(2025, 3, 5, 15, 30, tzinfo=ZONE)
MORNING = datetime(2025, 3, 5, 9, 15, tzinfo=ZONE)


@pytest.mark.parametrize(("words", "now", "expected"), [
    ("yesterday", AFTERNOON, datetime(2025, 3, 4, 23, 59, 59, 999999, tzinfo=ZONE)),
    ("this morning", AFTERNOON, datetime(2025, 3, 5, 12, 0, tzinfo=ZONE)),
    ("this morning", MORNING, MORNING),  # the morning is not over: now
    ("yesterday afternoon", AFTERNOON, datetime(2025, 3, 4, 17, 0, tzinfo=ZONE)),
    ("last night", AFTERNOON, datetime(2025, 3, 5, 0, 0, tzinfo=ZONE)),
    ("2 hours ago", AFTERNOON, AFTERNOON - timedelta(hours=2)),
    ("an hour ago", AFTERNOON, AFTERNOON - timedelta(hours=1)),
    ("three days ago", AFTERNOON, AFTERNOON - timedelta(days=3)),
    ("at 2025-03-01T14:00", AFTERNOON, datetime(2025, 3, 1, 14, 0, tzinfo=ZONE)),
    ("2025-03-01T14:00+00:00", AFTERNOON, datetime(2025, 3, 1, 14, 0, tzinfo=timezone.utc)),
    ("2025-03-01", AFTERNOON, datetime(2025, 3, 1, 23, 59, 59, 999999, tzinfo=ZONE)),  # a date: its end
])
def test_times_in_words_and_iso(words, now, expected):
    assert parse_when(words, now=now) == expected


@pytest.mark.parametrize("words", ["next tuesday", "when the moon is blue", "soon", ""])
def test_a_time_it_cannot_read_is_a_typed_error(words):
    with pytest.raises(UnknownTime, match="ISO 8601"):
        parse_when(words, now=AFTERNOON)


def _state(number: int, lighting: str, framing: str = "medium") -> CanvasNode:
    return CanvasNode(id=f"n{number}", kind="image", title="shot 3 image",
                      inputs={"lighting": lighting, "framing": framing, "intent": {"lighting": lighting}})


def _history() -> OutputHistory:
    """1 neutral → 2 neon ('make it neon') → 3 close-up → 4 dusk (neon → dusk), made an hour apart."""
    states = [_state(1, "neutral"), _state(2, "neon"), _state(3, "neon", "close-up"), _state(4, "dusk", "close-up")]
    requests = [None, "make it neon", "a close-up please", "now dusk"]
    versions = [OutputVersion(number=i + 1, node_id=s.id, node_version=1, kind="image", title=s.title,
                              status="completed", current=i == 3, canvas_version=i + 1,
                              at=(AFTERNOON - timedelta(hours=4 - i)).isoformat(), replaced=i or None,
                              request=requests[i], changes=changes_between(states[i - 1] if i else None, s))
                for i, s in enumerate(states)]
    return OutputHistory(output="shot 3 image", root_id="n1", versions=versions,
                         states={i + 1: s for i, s in enumerate(states)})


def test_the_version_before_a_named_change():
    history = _history()
    assert history.versions[1].changes == {"inputs.lighting": {"before": "neutral", "after": "neon"}}
    assert version_before_change(history, "the neon change")[0].number == 1  # what made it neon, not what undid it
    assert version_before_change(history, "before the close-up")[0].number == 2
    assert version_before_change(history, "the dusk lighting")[0].number == 3
    assert version_before_change(history, "before we went close up")[0].number == 2
    with pytest.raises(NoSuchVersion, match="version 2: inputs.lighting"):
        version_before_change(history, "sepia")
    with pytest.raises(NoSuchVersion, match="does not say which change"):
        version_before_change(history, "the change")


def test_the_version_current_at_a_time():
    history = _history()
    assert version_at(history, AFTERNOON).number == 4
    assert version_at(history, AFTERNOON - timedelta(hours=2, minutes=30)).number == 2
    with pytest.raises(NoSuchVersion, match="did not exist yet"):
        version_at(history, AFTERNOON - timedelta(days=1))


@pytest.mark.parametrize(("description", "summary"), [
    ("the deletion of the summary slide", "deleted slide 6 'Summary'"),  # 'deletion' matched nothing: exit 1
    ("the removal of the gallery", "removed the gallery section"),
    ("the addition of the costs slide", "added slide 4 'Costs'"),
    ("the insertion of the costs slide", "inserted slide 4 'Costs'"),
])
def test_a_change_named_by_its_noun_is_the_change_its_verb_made(description, summary):
    from tools.history import describes, stems

    assert describes(description, stems(summary))
    assert not describes(description, stems("retitled slide 3 'Parts'"))
