"""A turn's measured report: what its commits changed, against what its request asked (one model for every
kind of measurement, so the reply, the exit code and the trajectory read the same fields)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Measured(BaseModel):
    """What the turn changed, against what it was asked."""

    changed: list[str] = Field(default_factory=list, description="Titles of the live outputs the turn wrote.")
    expected: list[str] = Field(default_factory=list, description="Titles that had to change.")
    missing: list[str] = Field(default_factory=list, description="Targets that should have changed and did not.")
    unexpected: list[str] = Field(default_factory=list, description="Outputs changed outside the intent.")
    checked: bool = Field(default=False, description="Whether the intent gave an expectation to check.")

    @property
    def matches(self) -> bool:
        return not self.missing and not self.unexpected

    def explain(self) -> str:
        """What differs, in words."""
        parts = []
        if self.missing:
            parts.append(f"no change to {', '.join(self.missing)}")
        if self.unexpected:
            parts.append(f"{', '.join(self.unexpected)} changed although the request did not ask for it")
        return "Measured on the canvas: " + "; ".join(parts) + "." if parts else ""
