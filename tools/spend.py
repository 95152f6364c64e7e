"""What a turn spent at its providers: tokens and calls from the providers' own ``usage`` fields, priced.

Every paid call (the agent's model, the judge, an image, a clip, speech) is charged here once, when its
answer arrives, as a row of the project's spend ledger (``.jarvishub/spend.sqlite``): which turn, which
step, which model, the tokens or units the provider reported, and their cost under the price table.  A row
is written whether or not the call's result was then usable (a truncated image was still billed), and
before anything else happens to the turn, so a turn that stops (a provider outage, Ctrl-C) keeps what it
spent, and a resumed turn's budget starts from it.

Prices are USD, per model name, from :data:`DEFAULT_PRICES` (list prices of OpenAI's models as published
when this table was written: check your provider's page), overridden by a ``[prices."MODEL"]`` table in
``jarvishub.toml`` or a TOML file named by ``JARVISHUB_PRICES``.  A model with no price costs 0 and is named
in the spend's ``unpriced`` list, so a report can say the cost is unknown rather than zero.
"""

from __future__ import annotations

import json
import threading
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from store.models import utc_now
from store.sqlite_files import SqliteFile


class Price(BaseModel):
    """What one model charges, in USD; the units a model is not billed in stay 0."""

    model_config = ConfigDict(extra="forbid")

    input_per_mtok: float = Field(default=0.0, ge=0, description="Per million input (text) tokens.")
    image_input_per_mtok: float = Field(default=0.0, ge=0, description="Per million image input tokens.")
    output_per_mtok: float = Field(default=0.0, ge=0, description="Per million output tokens.")
    per_image: float = Field(default=0.0, ge=0, description="Per image when the provider reports no tokens; also the "
                             "most one image may cost, which the budget checks before asking for one.")
    per_second: float = Field(default=0.0, ge=0, description="Per second of video made.")
    per_minute: float = Field(default=0.0, ge=0, description="Per minute of audio made.")
    per_mchar: float = Field(default=0.0, ge=0, description="Per million characters of text spoken.")


DEFAULT_PRICES: dict[str, Price] = {
    "gpt-4o-mini": Price(input_per_mtok=0.15, output_per_mtok=0.60),
    "gpt-4o": Price(input_per_mtok=2.50, output_per_mtok=10.0),
    "gpt-4.1": Price(input_per_mtok=2.00, output_per_mtok=8.00),
    "gpt-4.1-mini": Price(input_per_mtok=0.40, output_per_mtok=1.60),
    "gpt-4.1-nano": Price(input_per_mtok=0.10, output_per_mtok=0.40),
    "gpt-5": Price(input_per_mtok=1.25, output_per_mtok=10.0),
    "gpt-5-mini": Price(input_per_mtok=0.25, output_per_mtok=2.00),
    "gpt-5-nano": Price(input_per_mtok=0.05, output_per_mtok=0.40),
    # per_image: a high-quality 1536x1024 image, the most one costs.
    "gpt-image-1": Price(input_per_mtok=5.0, image_input_per_mtok=10.0, output_per_mtok=40.0, per_image=0.25),
    "gpt-image-1-mini": Price(input_per_mtok=2.0, image_input_per_mtok=2.5, output_per_mtok=8.0, per_image=0.052),
    "sora-2": Price(per_second=0.10),
    "sora-2-pro": Price(per_second=0.30),
    "gpt-4o-mini-tts": Price(per_minute=0.015),
    "tts-1": Price(per_mchar=15.0),
    "tts-1-hd": Price(per_mchar=30.0),
}
"""Defaults (USD); see the module docstring for how to override them."""

class Spend(BaseModel):
    """Calls, tokens and cost, added up; ``unpriced`` names models whose cost is unknown."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    unpriced: list[str] = Field(default_factory=list)

    def plus(self, other: Spend) -> Spend:
        """The sum of two spends."""
        return Spend(calls=self.calls + other.calls, tokens_in=self.tokens_in + other.tokens_in,
                     tokens_out=self.tokens_out + other.tokens_out,
                     cost_usd=round(self.cost_usd + other.cost_usd, 8),
                     unpriced=sorted(set(self.unpriced) | set(other.unpriced)))

    def text(self) -> str:
        """``12,345 tokens · $0.0123`` (``cost unknown for X`` when a model has no price)."""
        tokens = self.tokens_in + self.tokens_out
        cost = f"${self.cost_usd:.4f}" + (f" + unpriced {', '.join(self.unpriced)}" if self.unpriced else "")
        return f"{tokens:,} tokens · {cost}"


class PriceTable:
    """Prices by model name: the defaults, then the project's ``[prices]``, then the ``JARVISHUB_PRICES`` file."""

    def __init__(self, overrides: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.prices: dict[str, Price] = dict(DEFAULT_PRICES)
        for model, fields in (overrides or {}).items():
            base = self.prices.get(model, Price()).model_dump()
            self.prices[model] = Price.model_validate({**base, **dict(fields)})

    @classmethod
    def for_project(cls, project_config: Mapping[str, Any], prices_file: str | Path | None = None) -> PriceTable:
        """The table a project runs with: its ``[prices]``, then those of ``prices_file`` (``JARVISHUB_PRICES``)."""
        overrides: dict[str, Any] = dict(project_config.get("prices") or {})
        if prices_file:
            overrides.update(tomllib.loads(Path(prices_file).read_text()).get("prices", {}))
        return cls(overrides)

    def price(self, model: str) -> Price | None:
        """The price of ``model``; a dated snapshot (``gpt-4o-mini-2024-07-18``) falls back to its family."""
        if model in self.prices:
            return self.prices[model]
        family = max((name for name in self.prices if model.startswith(name + "-")), key=len, default=None)
        return self.prices.get(family) if family else None

    def chat(self, model: str, usage: Mapping[str, Any] | None) -> Spend:
        """One chat completion's spend from its usage (``input_tokens``/``prompt_tokens`` and outputs)."""
        usage = usage or {}
        tokens_in = int(usage.get("input_tokens") or usage.get("prompt_tokens") or 0)
        tokens_out = int(usage.get("output_tokens") or usage.get("completion_tokens") or 0)
        price = self.price(model)
        if price is None:
            return Spend(calls=1, tokens_in=tokens_in, tokens_out=tokens_out, unpriced=[model])
        cost = (tokens_in * price.input_per_mtok + tokens_out * price.output_per_mtok) / 1e6
        return Spend(calls=1, tokens_in=tokens_in, tokens_out=tokens_out, cost_usd=round(cost, 8))

    def media(self, model: str, *, usage: Mapping[str, Any] | None = None, images: int = 0,
              seconds: float = 0.0, audio_seconds: float = 0.0, characters: int = 0) -> Spend:
        """One media call's spend: by the tokens it reported when it did, else by its units."""
        usage = usage or {}
        details = usage.get("input_tokens_details") or {}
        tokens_in = int(usage.get("input_tokens") or 0)
        tokens_out = int(usage.get("output_tokens") or 0)
        price = self.price(model)
        if price is None:
            return Spend(calls=1, tokens_in=tokens_in, tokens_out=tokens_out, unpriced=[model])
        if tokens_in or tokens_out:
            image_in = int(details.get("image_tokens") or 0)
            text_in = int(details.get("text_tokens") or (tokens_in - image_in))
            cost = (text_in * price.input_per_mtok + image_in * (price.image_input_per_mtok or price.input_per_mtok)
                    + tokens_out * price.output_per_mtok) / 1e6
            # The usage is the answer that was kept; unusable ones asked for before it are charged per image.
            cost += max(0, images - 1) * price.per_image
        else:
            cost = (images * price.per_image + seconds * price.per_second + audio_seconds / 60 * price.per_minute
                    + characters / 1e6 * price.per_mchar)
        return Spend(calls=1, tokens_in=tokens_in, tokens_out=tokens_out, cost_usd=round(cost, 8))


class SpendLedger:
    """The project's record of every paid call, by thread, turn and step (SQLite, shared by processes)."""

    def __init__(self, path: Path, prices: PriceTable | None = None) -> None:
        self._path = Path(path)
        self._path.parent.mkdir(parents=True, exist_ok=True)
        from store.private_files import create_private_file

        create_private_file(self._path)  # what was paid, by whom: the owner's alone (0600), never via a link
        self.prices = prices or PriceTable()
        self.estimates: dict[str, float] = {}
        """What one call of each generation tool may cost at most (``GenerationService.estimates``)."""
        # One connection kept open (store/sqlite_files.py): a connection per call closed the last connection to
        # the WAL file each time, which checkpoints, syncs and deletes the log, and a turn reads its spend at
        # every model call and every step.  Synced at each commit still: what was paid is not taken back.
        self._file = SqliteFile(self._path, synchronous="FULL")
        with self._file.transaction() as db:
            db.execute("CREATE TABLE IF NOT EXISTS spend (thread_id TEXT, turn_id TEXT, action_id TEXT, "
                       "source TEXT, model TEXT, body TEXT NOT NULL, at TEXT NOT NULL)")
            db.execute("CREATE INDEX IF NOT EXISTS spend_turn ON spend (turn_id)")

    def record(self, spend: Spend, *, source: str, model: str, thread_id: str | None, turn_id: str | None,
               action_id: str | None = None) -> Spend:
        """Append one paid call (``source``: agent, judge, image, video, audio); returns it."""
        with self._file.transaction() as db:
            db.execute("INSERT INTO spend VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (thread_id, turn_id, action_id, source, model, spend.model_dump_json(), utc_now()))
        return spend

    def sync(self, usage: Any, turn_id: str) -> None:
        """Bring a turn's usage up to what the ledger says it was billed, and give it the generation estimates.

        The ledger is written at each paid call, before anything else can fail; a turn's state is
        checkpointed only after its step, so a step that stopped (an outage) left its billed calls in the
        ledger alone.  A resumed turn's budget counts them.
        """
        spent = self.turn(turn_id)
        usage.paid_calls = max(usage.paid_calls, spent.calls)
        usage.tokens_in = max(usage.tokens_in, spent.tokens_in)
        usage.tokens_out = max(usage.tokens_out, spent.tokens_out)
        usage.cost_usd = max(usage.cost_usd, spent.cost_usd)
        usage.generation_estimates = dict(self.estimates)

    def turn(self, turn_id: str) -> Spend:
        """What one turn spent so far (finished or not)."""
        with self._file.transaction() as db:
            rows = db.execute("SELECT body FROM spend WHERE turn_id = ?", (turn_id,)).fetchall()
        return _total(row[0] for row in rows)

    def by_turn(self) -> dict[str, Spend]:
        """Every turn's spend, by turn id."""
        with self._file.transaction() as db:
            rows = db.execute("SELECT turn_id, body FROM spend").fetchall()
        found: dict[str, Spend] = {}
        for turn_id, body in rows:
            found[turn_id or ""] = found.get(turn_id or "", Spend()).plus(Spend.model_validate_json(body))
        return found

    def by_source(self) -> dict[str, Spend]:
        """The project's spend by source (agent, judge, image, video, audio)."""
        with self._file.transaction() as db:
            rows = db.execute("SELECT source, body FROM spend").fetchall()
        found: dict[str, Spend] = {}
        for source, body in rows:
            found[source] = found.get(source, Spend()).plus(Spend.model_validate_json(body))
        return found


def _total(bodies: Any) -> Spend:
    total = Spend()
    for body in bodies:
        total = total.plus(Spend.model_validate_json(body))
    return total


_CHARGING = threading.Lock()


def charge(usage: Any, spend: Spend) -> None:
    """Add a spend to a turn's :class:`~nodes.bridge.Usage` (the budget's running totals).

    A skill's parallel branches share one usage object and charge it from their threads.
    """
    with _CHARGING:
        usage.paid_calls += spend.calls
        usage.tokens_in += spend.tokens_in
        usage.tokens_out += spend.tokens_out
        usage.cost_usd = round(usage.cost_usd + spend.cost_usd, 8)


def read_project_spend(state_dir: Path) -> SpendLedger | None:
    """The project's ledger for reading (None when nothing was ever charged)."""
    path = Path(state_dir) / "spend.sqlite"
    return SpendLedger(path) if path.exists() else None


def spend_json(spend: Spend) -> dict[str, Any]:
    """A spend as ``--json`` shows it."""
    return json.loads(spend.model_dump_json())


def charge_judges(ledger: SpendLedger | None, usage: Any, evaluations: list[dict[str, Any]], *,
                  thread_id: str | None, turn_id: str | None, action_id: str | None = None) -> Spend:
    """Charge the judge-model calls behind some evaluations (``checks["judge"]``: model and usage)."""
    total = Spend()
    for evaluation in evaluations:
        judge = (evaluation.get("checks") or {}).get("judge")
        if not isinstance(judge, dict) or not judge.get("model"):
            continue
        prices = ledger.prices if ledger is not None else PriceTable()
        spend = prices.chat(str(judge["model"]), judge.get("usage"))
        total = total.plus(spend)
        if ledger is not None:
            ledger.record(spend, source="judge", model=str(judge["model"]), thread_id=thread_id, turn_id=turn_id,
                          action_id=action_id)
    if usage is not None and total.calls:
        charge(usage, total)
    return total


def charge_model(ledger: SpendLedger | None, usage: Any, message: Any, *, model: str, thread_id: str | None,
                 turn_id: str | None, action_id: str | None = None) -> Spend:
    """Charge one chat-model reply by the usage the provider reported with it (nothing for a local model)."""
    reported = getattr(message, "usage_metadata", None)
    metadata = getattr(message, "response_metadata", None) or {}
    if not reported and not metadata.get("token_usage"):
        return Spend()  # the offline planner and other local models report no usage: nothing was billed
    name = str(metadata.get("model_name") or model)
    prices = ledger.prices if ledger is not None else PriceTable()
    spend = prices.chat(name, reported or metadata.get("token_usage"))
    if ledger is not None:
        ledger.record(spend, source="agent", model=name, thread_id=thread_id, turn_id=turn_id, action_id=action_id)
    if usage is not None:
        charge(usage, spend)
    return spend


def estimate_chat_usd(prices: PriceTable, model: str, input_bytes: int, max_output_tokens: int = 4096) -> float:
    """What one chat call may cost at most: its input (about 3 bytes a token, rounded up) and a full reply."""
    price = prices.price(model)
    if price is None:
        return 0.0
    return (input_bytes / 3 * price.input_per_mtok + max_output_tokens * price.output_per_mtok) / 1e6
