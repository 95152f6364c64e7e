"""The judge with a fallback: a model's verdict when it gives a usable one, the measured checks when not.

A judge model is a provider like any other: it may answer prose instead of the JSON it was asked for, a
score out of range, or nothing at all (rate limited, down, timed out).  None of that says anything about
the image being judged, so it must never fail a turn by itself.  :class:`JudgeWithFallback` asks the
model and, when its answer cannot be used, scores the node with the measured checks instead
(:class:`~skills.critique.OfflineEvaluator`, the same checks a project without a key runs), and says so:
``checks["judge_fallback"]`` holds the model and why its answer was set aside, ``notes`` start with it and
``evaluator`` names both, so the step's feedback in the trajectory and the evaluation node on the canvas
show which one decided.
"""

from __future__ import annotations

from typing import Any

from nodes.evaluation import EvaluationReplyError, EvaluationResult
from store.models import CanvasNode
from tools.generate.errors import ProviderUnavailable


class JudgeWithFallback:
    """Ask ``judge`` (a model evaluator); on an unusable answer, score with ``measured`` and note why."""

    def __init__(self, judge: Any, measured: Any) -> None:
        self.judge = judge
        self.measured = measured
        self.name = getattr(judge, "name", "judge")

    def evaluate(self, request: str, node: CanvasNode, context: Any = None) -> EvaluationResult:
        """The judge's verdict, or the measured one with a note when the judge's answer is unusable."""
        try:
            return self.judge.evaluate(request, node, context)
        except EvaluationReplyError as error:
            reason, judge = f"its reply was not usable: {error}", getattr(error, "judge", None)
        except ProviderUnavailable as error:
            reason, judge = f"it could not be asked: {error}", None
        except Exception as error:  # the SDK's own errors (bad key, bad request): a judge is never a turn's failure
            if not _is_provider_error(error):
                raise
            reason, judge = f"it could not be asked: {type(error).__name__}: {error}", None
        measured = self.measured.evaluate(request, node, context)
        model = getattr(self.judge, "model_name", self.name)
        note = f"judge {model} set aside ({reason[:300]}); scored by the measured checks"
        checks = {**measured.checks, "judge_fallback": {"model": model, "reason": reason[:1000]}}
        if judge is not None:
            checks["judge"] = judge  # the unusable reply was billed all the same
        return measured.model_copy(update={
            "checks": checks, "notes": f"{note}. {measured.notes}".strip(),
            "evaluator": f"{measured.evaluator} (fallback from {self.name})"})


def _is_provider_error(error: Exception) -> bool:
    """Whether an exception came from a model provider's client (the ``openai`` SDK or ``httpx``)."""
    return any(cls.__module__.startswith(("openai", "httpx", "langchain_openai")) for cls in type(error).__mro__)
