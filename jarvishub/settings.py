"""All configuration in one object: environment variables, then the project's ``jarvishub.toml``.

The environment is read here rather than through pydantic-settings, whose import (its AWS, CLI and dotenv
sources) every command would pay for: the names are the aliases of each field, matched case-insensitively.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from jarvishub.locate import PROJECT_FILE, STATE_DIR

__all__ = ["PROJECT_FILE", "STATE_DIR", "Settings", "load_settings"]


class Settings(BaseModel):
    """What a JarvisHub process needs to know; every field has an embedded, offline default."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    neo4j_uri: str | None = Field(default=None, validation_alias=AliasChoices("NEO4J_URI", "neo4j_uri"))
    neo4j_user: str = Field(default="neo4j", validation_alias=AliasChoices("NEO4J_USER", "neo4j_user"))
    neo4j_password: str = Field(default="", validation_alias=AliasChoices("NEO4J_PASSWORD", "neo4j_password"))
    neo4j_database: str | None = Field(
        default=None, validation_alias=AliasChoices("NEO4J_DATABASE", "neo4j_database")
    )
    arcadedb_cluster: str | None = Field(
        default=None, validation_alias=AliasChoices("JARVISHUB_ARCADEDB_CLUSTER", "arcadedb_cluster"),
        description="An ArcadeDB HA cluster for the canvas: name@host:bolt_port:http_port, comma-separated",
    )
    openai_api_key: str | None = Field(default=None, validation_alias=AliasChoices("OPENAI_API_KEY", "openai_api_key"))
    openai_base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_BASE_URL", "openai_base_url")
    )
    model: str = Field(default="gpt-4o-mini", validation_alias=AliasChoices("JARVISHUB_MODEL", "model"))
    judge_model: str | None = Field(
        default=None, validation_alias=AliasChoices("JARVISHUB_JUDGE_MODEL", "judge_model"),
        description="The evaluator's (judge's) model; None: the agent's model, on a client of its own; "
                    "'offline': measured checks only, no model call")
    model_timeout_s: float = Field(
        default=120.0, gt=0, validation_alias=AliasChoices("JARVISHUB_MODEL_TIMEOUT_S", "model_timeout_s"),
        description="Seconds a chat-model request may take (between two chunks, when streaming)")
    model_max_retries: int = Field(
        default=2, ge=0, le=10, validation_alias=AliasChoices("JARVISHUB_MODEL_MAX_RETRIES", "model_max_retries"),
        description="Retries of a failed chat-model request (429, 5xx, timeouts), with backoff and Retry-After")
    model_streaming: bool = Field(
        default=False, validation_alias=AliasChoices("JARVISHUB_MODEL_STREAMING", "model_streaming"),
        description="Stream the agent model's replies (a slow answer then times out only when it stalls)")
    chat_window_tokens: int = Field(
        default=32_000, ge=1_000, validation_alias=AliasChoices("JARVISHUB_CHAT_WINDOW_TOKENS", "chat_window_tokens"),
        description="The context window (approximate tokens) of the trimmed and summarised chat baselines")
    budget_usd: float | None = Field(
        default=None, ge=0, validation_alias=AliasChoices("JARVISHUB_BUDGET_USD", "budget_usd"),
        description="The cost budget of a turn's grant when its grant sets none (tools.spend prices calls)")
    prices_file: str | None = Field(
        default=None, validation_alias=AliasChoices("JARVISHUB_PRICES", "prices_file"),
        description="A TOML file of [prices.\"MODEL\"] tables overriding the default price table")
    media_provider: str = Field(
        default="auto",
        validation_alias=AliasChoices("JARVISHUB_MEDIA_PROVIDER", "media_provider"),
        description="offline, openai, or auto (openai when an API key is set)",
    )
    image_model: str = Field(default="gpt-image-1", validation_alias=AliasChoices("JARVISHUB_IMAGE_MODEL", "image_model"))
    video_model: str = Field(default="sora-2", validation_alias=AliasChoices("JARVISHUB_VIDEO_MODEL", "video_model"))
    speech_model: str = Field(
        default="gpt-4o-mini-tts", validation_alias=AliasChoices("JARVISHUB_SPEECH_MODEL", "speech_model")
    )
    checkpoint_url: str | None = Field(
        default=None, validation_alias=AliasChoices("JARVISHUB_CHECKPOINT_URL", "checkpoint_url")
    )
    chromium: str | None = Field(default=None, validation_alias=AliasChoices("JARVISHUB_CHROMIUM", "chromium"))
    consent: bool = Field(
        default=False,
        validation_alias=AliasChoices("JARVISHUB_TRAJECTORY_CONSENT", "consent"),
        description="Whether exported trajectories may include prompt and feedback text.",
    )
    project: dict[str, Any] = Field(default_factory=dict, description="The parsed jarvishub.toml.")

    @property
    def uses_openai(self) -> bool:
        """Whether the agent proposes through an OpenAI(-compatible) chat model."""
        return bool(self.openai_api_key)


def from_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The fields the environment sets, by field name: each field's aliases, the first one set, any case."""
    by_name = {key.lower(): value for key, value in (os.environ if environ is None else environ).items()}
    found: dict[str, str] = {}
    for name, field in Settings.model_fields.items():
        choices = field.validation_alias.choices if isinstance(field.validation_alias, AliasChoices) else [name]
        for alias in choices:
            if isinstance(alias, str) and alias.lower() in by_name:
                found[name] = by_name[alias.lower()]
                break
    found.pop("project", None)  # the parsed project file, never the environment
    return found


def load_settings(project_dir: Path | None = None, **overrides: Any) -> Settings:
    """Arguments first, then the environment, then the project file for what those leave unset."""
    project: dict[str, Any] = {}
    if project_dir is not None and (Path(project_dir) / PROJECT_FILE).exists():
        project = tomllib.loads((Path(project_dir) / PROJECT_FILE).read_text())
    settings = Settings(**{**from_environment(), "project": project, **overrides})
    for key, value in project.get("settings", {}).items():
        if key in Settings.model_fields and key not in settings.model_fields_set and key not in overrides:
            setattr(settings, key, value)
    return settings
