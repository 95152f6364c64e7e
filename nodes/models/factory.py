"""Which chat models a project runs with: the agent's and the judge's, each on its own client.

With ``OPENAI_API_KEY`` (+ ``OPENAI_BASE_URL`` for any OpenAI-compatible endpoint) the agent is
``JARVISHUB_MODEL`` through langchain-openai; without a key it is the offline planner.  The judge (the
evaluator's model, ``skills.critique``) is ``JARVISHUB_JUDGE_MODEL``, the agent's model name when unset, but
always a client of its own: a judge never shares an agent's bound tools, scripted replies or retries, and
``JARVISHUB_JUDGE_MODEL=offline`` leaves judging to the measured checks.
"""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.language_models import BaseChatModel

from nodes.models.offline import OfflinePlanner

Role = Literal["agent", "judge"]
OFFLINE = "offline"


def uses_remote_model(settings: Any) -> bool:
    """Whether an API key is configured (the agent then proposes through a remote model)."""
    return bool(getattr(settings, "openai_api_key", None))


def model_name(settings: Any, role: Role = "agent") -> str:
    """The model name a role runs with: the judge's own, else the agent's."""
    if role == "judge" and getattr(settings, "judge_model", None):
        return str(settings.judge_model)
    return str(settings.model)


def openai_chat(settings: Any, model: str, *, streaming: bool = False) -> BaseChatModel:
    """A langchain-openai client for ``model`` at the configured endpoint, with the configured timeout and
    bounded retries (the SDK's: exponential backoff, ``Retry-After`` honoured)."""
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(
        model=model,
        api_key=settings.openai_api_key,
        base_url=settings.openai_base_url,
        temperature=0,
        max_retries=int(getattr(settings, "model_max_retries", 2)),
        timeout=float(getattr(settings, "model_timeout_s", 120.0)),
        streaming=streaming,
        # The provider's own token counts, streamed or not: the spend ledger charges them (tools.spend).
        stream_usage=True,
    )


def chat_model(settings: Any, role: Role = "agent") -> BaseChatModel:
    """The agent's model (``role="agent"``): langchain-openai with a key, else the offline planner.

    ``role="judge"`` asks for the judge's model; :func:`judge_model` is the way to get it (it may be None).
    """
    if role == "judge":
        judge = judge_model(settings)
        if judge is None:
            raise ValueError("no judge model is configured (no API key, or JARVISHUB_JUDGE_MODEL=offline)")
        return judge
    if uses_remote_model(settings):
        return openai_chat(settings, model_name(settings), streaming=bool(getattr(settings, "model_streaming", False)))
    return OfflinePlanner()


def judge_model(settings: Any) -> BaseChatModel | None:
    """The judge's model, or None when judging is left to the measured checks (no key, or ``offline``)."""
    if not uses_remote_model(settings) or model_name(settings, "judge") == OFFLINE:
        return None
    return openai_chat(settings, model_name(settings, "judge"))


def model_name_of(model: Any) -> str:
    """The model name a chat model calls (``gpt-4o-mini``), or its type for a local one."""
    inner = getattr(model, "inner", None)  # a wrapper (nodes.models.chaos) names the model it wraps
    if inner is not None:
        return model_name_of(inner)
    return str(getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__)


def provider_failure(error: Exception, model: Any) -> Exception:
    """The typed error (``tools.generate.errors``) for a chat model's SDK or transport error; others unchanged."""
    if not any(cls.__module__.startswith(("openai", "httpx")) for cls in type(error).__mro__):
        return error
    from tools.generate.errors import classify

    while getattr(model, "inner", None) is not None:
        model = model.inner
    retries = int(getattr(model, "max_retries", None) or 0)
    return classify(error, f"the model {model_name_of(model)}", max_retries=retries)
