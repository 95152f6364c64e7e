"""Which chat model proposes: an OpenAI(-compatible) model when configured, the offline planner otherwise."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel

from nodes.models.offline import OfflinePlanner


def chat_model(settings: Any) -> BaseChatModel:
    """``OPENAI_API_KEY`` (+ ``OPENAI_BASE_URL``, ``JARVISHUB_MODEL``) selects langchain-openai; else offline."""
    if getattr(settings, "openai_api_key", None):
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(
            model=settings.model,
            api_key=settings.openai_api_key,
            base_url=settings.openai_base_url,
            temperature=0,
            max_retries=2,
            timeout=120,
        )
    return OfflinePlanner()
