"""What a remote provider's failure means for a turn, in types: wait and resume, or a refusal the agent sees.

A provider call (a chat model, the Images, Videos or Audio API) fails in a few ways that call for different
answers, and the SDK's exception names do not say which:

* **unavailable for now** (:class:`ProviderUnavailable`): rate limited (429, with the ``Retry-After`` the
  provider asked for), a server error (5xx), a timeout, a dropped connection, or output that cannot be used
  (a truncated or invalid image) after the bounded retries.  Nothing is wrong with the request: the turn
  stops where it is, with nothing written for the failed call, and ``jarvishub resume THREAD`` runs that call
  again.  It is deliberately *not* a :class:`~tools.generate.base.GenerationError`, which tools turn into an
  observation: an outage is not something the agent can plan around, and a turn that went on without the
  call's result would end in a reply that hides it.
* **refused by the content policy** (:class:`ContentRefused`): the same request will be refused again, so
  retrying is pointless; it is a :class:`GenerationError`, so the agent sees it as the step's error and may
  ask differently, and a turn that ends on it is reported as refused.
* anything else (a bad key, a bad request): a plain :class:`GenerationError` with the provider's message.

The SDK already retries what is worth retrying (429, 408, 409, 5xx, timeouts, connection errors) with
exponential backoff, honouring ``Retry-After`` up to two minutes, at most ``max_retries`` times; these types
classify what is left when it gives up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from tools.generate.base import GenerationError

if TYPE_CHECKING:
    import openai

UnavailableKind = Literal["rate_limited", "server_error", "timeout", "connection", "invalid_output"]
_POLICY_CODES = ("content_policy_violation", "moderation_blocked", "content_filter", "safety")


class ProviderUnavailable(Exception):
    """A provider could not serve a call for now (after its bounded retries); the turn can resume later.

    ``what`` names the call ("the image model gpt-image-1 at openai"), ``attempts`` how many requests were
    made, ``retry_after_s`` what the provider asked for (429/503), ``paid_calls`` how many of the attempts
    returned output that was billed but unusable.
    """

    def __init__(self, kind: UnavailableKind, what: str, detail: str, *, attempts: int = 1,
                 retry_after_s: float | None = None, status: int | None = None, paid_calls: int = 0,
                 billed: dict[str, float] | None = None) -> None:
        self.kind = kind
        self.what = what
        self.detail = detail
        self.attempts = attempts
        self.retry_after_s = retry_after_s
        self.status = status
        self.paid_calls = paid_calls
        self.billed = billed or {}
        """The units the billed answers are charged by (``GeneratedMedia.billed``'s)."""
        self.spend: Any = None  # what the paid calls cost (tools.spend.Spend), set by the generation service
        super().__init__(self.line())

    def line(self) -> str:
        """One line a person can act on (without the resume hint, which the CLI adds with the thread)."""
        said = {"rate_limited": "is rate limiting", "server_error": "had a server error",
                "timeout": "did not answer in time", "connection": "could not be reached",
                "invalid_output": "returned output that could not be used"}[self.kind]
        status = f" ({self.status})" if self.status else ""
        after = f"; it asks to retry after {self.retry_after_s:g} s" if self.retry_after_s else ""
        tries = f" after {self.attempts} attempts" if self.attempts > 1 else ""
        detail = " ".join(self.detail.split())[:200]
        return f"{self.what} {said}{status}{tries}{after}: {detail}"

    @property
    def busy(self) -> bool:
        """Whether the same command run again later is all it takes (a rate limit)."""
        return self.kind == "rate_limited"


class ContentRefused(GenerationError):
    """The provider's content policy refused the request; the same request will be refused again."""


def _retry_after(error: openai.APIStatusError) -> float | None:
    headers = error.response.headers if error.response is not None else {}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value:
            try:
                return float(value) * scale
            except ValueError:
                return None
    return None


def _policy_refusal(error: openai.APIStatusError) -> bool:
    body = error.body if isinstance(error.body, dict) else {}
    inner = body.get("error") if isinstance(body.get("error"), dict) else body
    code = str(inner.get("code") or getattr(error, "code", "") or "")
    return error.status_code == 400 and any(marker in code for marker in _POLICY_CODES)


def classify(error: Exception, what: str, *, max_retries: int) -> Exception:
    """The typed error for an SDK exception raised by a call to ``what`` (made with ``max_retries``)."""
    import openai  # only once a remote call failed: the SDK is a third of a second to import

    attempts = max_retries + 1
    if isinstance(error, openai.APITimeoutError):
        return ProviderUnavailable("timeout", what, str(error) or "request timed out", attempts=attempts)
    if isinstance(error, openai.APIConnectionError):
        return ProviderUnavailable("connection", what, str(error.__cause__ or error), attempts=attempts)
    if isinstance(error, openai.APIStatusError):
        message = _message(error)
        if error.status_code == 429:
            return ProviderUnavailable("rate_limited", what, message, attempts=attempts,
                                       retry_after_s=_retry_after(error), status=429)
        if error.status_code >= 500 or error.status_code in (408, 409):
            return ProviderUnavailable("server_error", what, message, attempts=attempts,
                                       retry_after_s=_retry_after(error), status=error.status_code)
        if _policy_refusal(error):
            return ContentRefused(f"{what} refused the request under its content policy: {message}")
        return GenerationError(f"{what} failed ({error.status_code}): {message}")
    if any(cls.__module__.startswith("httpx") for cls in type(error).__mro__):  # a stream that broke off mid-answer: the SDK cannot retry it
        kind: UnavailableKind = "timeout" if "Timeout" in type(error).__name__ else "connection"
        return ProviderUnavailable(kind, what, f"{type(error).__name__}: {error}" if str(error) else type(error).__name__)
    return GenerationError(f"{what} failed: {error}")


def _message(error: openai.APIStatusError) -> str:
    body = error.body if isinstance(error.body, dict) else {}
    inner = body.get("error") if isinstance(body.get("error"), dict) else body
    return str(inner.get("message") or error.message or error.status_code)


__all__ = ["ContentRefused", "ProviderUnavailable", "classify"]
