"""The metric definitions, one text per metric, shared by the HTML report and the dataset card.

They restate docs/evaluation.md (the full definitions) in a sentence each, so a
reader of the report or of an exported dataset has them without the repository.
"""

from __future__ import annotations

METRICS: dict[str, str] = {
    "provider_calls": "Media-provider calls of the turn: the sum of the steps' provider_calls over every turn id the "
                      "scripted turn produced (a resumed crash included); cache hits are not calls.",
    "estimated_cost_usd": "Provider calls priced by the suite's reference price table per generation tool and media "
                          "type, plus model input priced per byte; offline runs are priced as if they were paid.",
    "model_calls": "Chat-model calls made while proposing the turn's steps (summed over its steps).",
    "context_bytes": "Model-visible bytes of the turn: the sum over its model calls of the bytes of the messages and "
                     "tool schemas sent (nodes/context_size.py).",
    "max_call_bytes": "The largest single model call of the turn, in model-visible bytes.",
    "tool_schema_bytes": "The part of context_bytes that is tool schemas.",
    "changed_outputs": "Deliverable outputs (identified by lineage position, not node id) with a node created or "
                       "newly versioned by the turn's commits.",
    "targeted_outputs": "Outputs the scenario says the turn targets, plus everything derived from them; null when the "
                        "turn declares no targets.",
    "untargeted_changed": "Changed outputs that were not targeted: |changed - targeted|.",
    "locality": "changed_outputs / targeted_outputs: 1.0 is exact, above 1 means collateral changes, below 1 means "
                "missed work; null when the turn declares no targets.",
    "rejections": "Steps whose verdict was reject (with a histogram of reasons in rejection_reasons).",
    "retries": "Malformed model outputs plus commit rebuilds.",
    "clarifications": "The turn ended in a clarification or asked one.",
    "approvals": "Approval interrupts answered during the turn.",
    "recovered": "For a crash turn: whether the resumed turn finished and the canvas verifies; null otherwise.",
    "wall_s": "Seconds from the trajectory's started_at to finished_at, summed over the scripted turn's turn ids.",
    "checks_passed": "Checks on the canvas after the turn that passed, out of checks_total.",
}
"""Metric name -> one-sentence definition (eval-design §5)."""
