"""The chat baseline's context policies: what a trimmed or summarised transcript still lets it do.

Hand-written transcripts (as the chat graph writes them), the real transcript planner, no engine: a window
small enough that a 3-shot story no longer fits, then an edit of shot 2.  Trimmed, the storyboard's ids are
gone and the edit is a ``not_found`` question; summarised, the planner's own summary carries them and the
edit goes to the current image, with the values the folded turns set.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage

from graphs.chat_baseline import SYSTEM_PROMPT
from graphs.chat_context import (
    Summarised,
    Trimmed,
    Untrimmed,
    approximate_tokens,
    current_turn_start,
    make_policy,
    newest_that_fit,
)
from nodes.models.transcript import SUMMARY_PREFIX, TranscriptPlanner, read_summary
from tests.evaluation.test_chat_baseline import IMAGES, STORY, _ids, _next, _transcript

SYSTEM = SystemMessage(content=SYSTEM_PROMPT)
NEW_IMAGE = _ids("NW", 1)[0]
EDIT = ("make shot 2 darker", [
    ("mark_stale", {"node_ids": [IMAGES[1]]}, {"observation": {"stale": [IMAGES[1]]}}),
    ("regenerate_stale", {"node_ids": [IMAGES[1]], "overrides": {IMAGES[1]: {"exposure": -0.6}}},
     {"observation": {"regenerated": [{"old": IMAGES[1], "new": NEW_IMAGE, "title": "shot 2 image"}]}}),
])
CHATTER = [(f"note {i}: keep the mood quiet and the colours muted throughout the film", []) for i in range(6)]


def _thread(*turns):
    messages = _transcript(*turns)[1:]  # the graph's state holds no system prompt: each call adds it
    for number, message in enumerate(messages):
        message.id = f"m{number}"
    return messages


def test_untrimmed_sends_everything_and_trimmed_keeps_the_newest_turns_whole():
    messages = _thread(STORY, EDIT, *CHATTER, ("make shot 2 darker", []))
    assert Untrimmed().window(SYSTEM, messages, "", [], TranscriptPlanner()).messages == [SYSTEM, *messages]
    small = approximate_tokens([SYSTEM, *messages]) // 3
    window = Trimmed(max_tokens=small).window(SYSTEM, messages, "", [], TranscriptPlanner())
    assert window.dropped > 0 and window.messages[0] is SYSTEM
    assert approximate_tokens(window.messages) <= small
    first = window.messages[1]
    assert isinstance(first, HumanMessage) and first.content.startswith("note")  # starts on a request
    kept_calls = {c["id"] for m in window.messages if isinstance(m, AIMessage) for c in m.tool_calls}
    kept_results = {m.tool_call_id for m in window.messages if isinstance(m, ToolMessage)}
    assert kept_calls == kept_results  # no call without its result, no result without its call


def test_the_turn_in_progress_is_sent_whole_even_over_the_window():
    messages = _thread(STORY, ("make shot 2 darker", []))
    assert newest_that_fit(messages, 1) == current_turn_start(messages) == len(messages) - 2


def test_trimmed_out_of_the_window_the_shot_is_a_question_not_a_guess():
    messages = _thread(STORY, EDIT, *CHATTER, ("make shot 2 darker", []))[:-1]
    full = _next([SYSTEM, *messages])
    assert (full.tool, full.args["node_ids"]) == ("mark_stale", [NEW_IMAGE])
    window = Trimmed(max_tokens=approximate_tokens([SYSTEM, *messages]) // 3).window(
        SYSTEM, messages, "", [], TranscriptPlanner())
    asked = _next(window.messages)
    assert asked.clarification["reason"] == "not_found" and "transcript" in asked.text


def test_summarised_folds_the_oldest_turns_into_a_summary_its_own_model_writes_and_reads():
    messages = _thread(STORY, EDIT, *CHATTER, ("make shot 2 darker", []))[:-1]
    budget = approximate_tokens([SYSTEM, *messages]) * 2 // 3
    policy = Summarised(max_tokens=budget)
    window = policy.window(SYSTEM, messages, "", [], TranscriptPlanner())
    summary = window.update["summary"]
    assert window.spent.calls == 1 and window.spent.bytes > 0  # the summariser's call is measured
    removed = [m.id for m in window.update["messages"] if isinstance(m, RemoveMessage)]
    assert removed == [m.id for m in messages[:window.dropped]] and window.dropped > 0
    assert window.messages[1].content == SUMMARY_PREFIX + summary
    nodes = {row["id"]: row for row in read_summary(summary)}
    assert NEW_IMAGE in nodes and IMAGES[1] not in nodes  # the current version kept, the replaced one forgotten
    assert nodes[NEW_IMAGE]["inputs"]["exposure"] == -0.6
    call = _next(window.messages)
    assert (call.tool, call.args["node_ids"]) == ("mark_stale", [NEW_IMAGE])
    # The next call under the window reuses the summary; a second fold keeps what the first one knew.
    kept = messages[window.dropped:]
    again = policy.window(SYSTEM, kept, summary, [], TranscriptPlanner())
    assert "summary" not in again.update and again.messages[1].content == SUMMARY_PREFIX + summary
    refold = Summarised(max_tokens=approximate_tokens(again.messages) // 2).window(
        SYSTEM, _thread(*CHATTER, ("make shot 2 darker", []))[:-1], summary, [], TranscriptPlanner())
    assert NEW_IMAGE in {row["id"] for row in read_summary(refold.update["summary"])}


def test_policies_by_name_with_the_window_of_the_settings():
    assert make_policy("trimmed", 8000) == Trimmed(max_tokens=8000)
    assert make_policy("summarised").max_tokens == 32_000
    assert isinstance(make_policy("untrimmed"), Untrimmed)
