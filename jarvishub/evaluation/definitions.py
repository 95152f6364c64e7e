"""The metric definitions, one text per metric, shared by the HTML report and the dataset card.

They restate docs/evaluation.md (the full definitions, with the price table) in
a sentence each, so a reader of the report or of an exported dataset has them
without the repository; the computation is jarvishub/evaluation/metrics.py.
"""

from __future__ import annotations

METRICS: dict[str, str] = {
    "provider_calls": "Media-provider calls of the scripted turn: the sum of step provider_calls over every turn id "
                      "it produced (a resumed crash included); a signature-cache hit is not a call.",
    "estimated_cost_usd": "Provider calls priced per call by media type (image $0.04, video $0.25, audio $0.015, "
                          "page $0; a tool of mixed media at the image/video mean) plus model input at $2.50 per "
                          "million tokens of about 4 bytes; offline runs are priced as if they were paid.",
    "model_calls": "Chat-model calls made while proposing the turn's steps (summed over its steps).",
    "context_bytes": "Model-visible bytes of the turn: over its model calls, the sum of the bytes of the messages "
                     "and tool schemas sent (nodes/context_size.py).",
    "max_call_bytes": "The largest single model call of the turn, in model-visible bytes.",
    "call_bytes": "Bytes per model call: context_bytes / model_calls of the turn (none without a model call).",
    "tool_schema_bytes": "The part of context_bytes that is tool schemas.",
    "changed_outputs": "Outputs (deliverables identified by their place in the lineage, not by node id) that got a "
                       "new node from the turn: a first version, a new version or a candidate.",
    "targeted_outputs": "Outputs the scenario says the turn targets, plus everything made from them, as the canvas "
                        "stood before the turn; null when the turn declares no targets.",
    "untargeted_changed": "Changed outputs that were not targeted: |changed - targeted|.",
    "locality": "changed_outputs / targeted_outputs: 1.0 is exact, above 1 means collateral changes, below 1 means "
                "missed work; null when the turn declares no targets.",
    "rejections": "Steps the bridge refused: a reject verdict, or a skill step one of whose own actions the bridge "
                  "refused (with a histogram of reasons in rejection_reasons).",
    "retries": "Malformed model outputs plus commit rebuilds (attempts thrown away after a commit conflict).",
    "clarifications": "Turns that ended in a clarification, plus clarification questions the turn paused on.",
    "approvals": "Approval interrupts answered during the turn.",
    "recovered": "For a crash turn: whether the resumed turn finished and the canvas verifies; null otherwise.",
    "wall_s": "Seconds from the trajectory's started_at to finished_at, summed over the scripted turn's turn ids.",
    "checks_passed": "Checks on the canvas after the turn that passed, out of checks_total.",
}
"""Metric name -> one-sentence definition (eval-design §5; jarvishub/evaluation/metrics.py)."""
