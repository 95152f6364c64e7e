"""Settings of the native tools, read from ``JARVISHUB_*`` environment variables.

One object so a deployment tunes limits (run time, memory, output size) and
points at its Chromium in one place, and tests pass their own values instead of
patching module globals.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class NativeSettings(BaseSettings):
    """Limits and locations the native tools use; every field can be set as ``JARVISHUB_<NAME>``."""

    model_config = SettingsConfigDict(env_prefix="JARVISHUB_", extra="ignore")

    chromium: str | None = Field(
        default=None,
        description="Chromium binary for page renders (JARVISHUB_CHROMIUM); default: `chromium` on PATH, "
        "then /usr/bin/chromium.",
    )
    browser_timeout_s: float = Field(default=30.0, gt=0, description="Launch, load and screenshot time limit.")
    code_max_timeout_s: float = Field(default=600.0, gt=0, description="The most time any grant gives one run_code "
                                      "(the grant sets the limit: Grant.sandbox; a call may ask for less).")
    code_max_memory_mb: int = Field(default=8192, ge=64, description="The most memory any grant gives one run_code.")
    code_allow_processes: bool = Field(
        default=False, description="Let run_code snippets start subprocesses (which the write guard does not follow)."
    )
    code_guard: bool = Field(
        default=True,
        description="Install run_code's audit hook, a friendly first refusal inside the sandbox (the sandbox is the "
        "guarantee; tests switch the hook off to show it).",
    )
    code_output_limit: int = Field(default=64_000, ge=1024, description="Bytes of stdout and of stderr kept.")
    read_max_bytes: int = Field(default=256_000, ge=1, description="Most bytes read_file returns in one call.")


def native_settings(settings: Any) -> NativeSettings:
    """The native settings inside whatever ``ToolContext.settings`` holds (itself, a ``.native`` field, or env)."""
    if isinstance(settings, NativeSettings):
        return settings
    nested = getattr(settings, "native", None)
    if isinstance(nested, NativeSettings):
        return nested
    return NativeSettings()
