"""One step's usage priced by genai-prices, and what its prompt cache saved."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from fccli.cost import snapshot
from fccli.cost.target import NoTarget, Target
from fccli.i18n import Msg

if TYPE_CHECKING:
    from fccli.core.models import Usage


@dataclass(frozen=True)
class StepCost:
    """What one step cost, in US dollars, as genai-prices prices its usage."""

    usd: Decimal
    """The whole step: input (cache reads and writes at their own prices) and output."""
    input_usd: Decimal
    output_usd: Decimal
    saved_usd: Decimal | None
    """What the prompt cache saved: the step's price with every input token at the full input
    price, less its price; negative when writing to the cache cost more than reading saved.
    None when the provider reported no cache."""
    model: str
    """The model's id in genai-prices' table (`deepseek-flash`, `claude-haiku-4-5`)."""
    provider: str
    """The provider's id in the table (`deepseek`, `google`)."""
    hours: str | None = None
    """The hours (UTC) of a time-of-day price that applied (`01:00-04:00`); None otherwise."""


@dataclass(frozen=True)
class Unpriced:
    """A step fc cannot price, and why: never a price of 0."""

    model: str
    why: Msg

    def __str__(self) -> str:
        return str(self.why)


StepPrice = StepCost | Unpriced


def unknown(model: str) -> Unpriced:
    """Return the price of a model the table does not know."""
    return Unpriced(model, Msg("price unknown for {model}", model=model))


def price_usage(usage: Usage | None, target: Target | NoTarget, at: datetime | None) -> StepPrice:
    """Price `usage` as `target` at time `at` (a time-of-day price; None: now)."""
    if isinstance(target, NoTarget):
        return Unpriced(target.model, target.why)
    if usage is None or (usage.input_tokens is None and usage.output_tokens is None):
        return Unpriced(target.model, Msg("price unknown: the step reports no token counts"))
    when = at if at is None or at.tzinfo is not None else at.replace(tzinfo=timezone.utc)
    counts = _counts(usage)
    known = snapshot.price(target.provider_id, target.model, counts, when)
    if known is not None:  # DeepSeek's models, without importing the table (start-up, memory)
        return StepCost(
            usd=known.usd,
            input_usd=known.input_usd,
            output_usd=known.output_usd,
            saved_usd=known.saved_usd,
            model=target.model,
            provider=known.provider_id,
            hours=known.hours,
        )
    try:
        import genai_prices
    except ImportError:  # Python 3.10: genai-prices needs 3.11
        return Unpriced(
            target.model, Msg("price unknown: fc's prices need genai-prices (Python 3.11+)")
        )
    try:
        # a warning of the table's about its own data is no line for fc's reader
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            paid = genai_prices.calc_price(
                genai_prices.Usage(**counts),
                target.model,
                provider_id=target.provider_id,
                genai_request_timestamp=when,
            )
    except LookupError:
        return unknown(target.model)
    except ValueError as e:  # counts that do not add up (more cached tokens than input)
        return Unpriced(
            target.model, Msg("price unknown: the token counts do not add up ({why})", why=str(e))
        )
    saved = None
    if usage.cache_read_tokens is not None or usage.cache_write_tokens is not None:
        uncached = {k: v for k, v in counts.items() if not k.startswith("cache_")}
        full = paid.model.calc_price(
            genai_prices.Usage(**uncached), paid.provider, genai_request_timestamp=when
        )
        saved = full.total_price - paid.total_price
    return StepCost(
        usd=paid.total_price,
        input_usd=paid.input_price,
        output_usd=paid.output_price,
        saved_usd=saved,
        model=paid.model.id,
        provider=paid.provider.id,
        hours=_hours(paid.model, when),
    )


def _counts(usage: Usage) -> dict[str, int]:
    """Return fc's usage under genai-prices' names: input counts the cache's tokens in both."""
    named = {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_tokens": usage.cache_read_tokens,
        "cache_write_tokens": usage.cache_write_tokens,
        "cache_write_1h_tokens": usage.cache_write_1h_tokens,
        "output_reasoning_tokens": usage.reasoning_tokens,
    }
    return {k: v for k, v in named.items() if v is not None}


def _hours(model: Any, when: datetime | None) -> str | None:
    """Return the hours of the time-of-day price that applied at `when`, if one did."""
    from genai_prices.types import TimeOfDateConstraint

    if not isinstance(model.prices, list):
        return None
    moment = when or datetime.now(tz=timezone.utc)
    for conditional in reversed(model.prices):  # the last that holds wins (genai-prices' rule)
        constraint = conditional.constraint
        if constraint is None or constraint.active(moment):
            if isinstance(constraint, TimeOfDateConstraint):
                start, end = constraint.start_time, constraint.end_time
                return f"{start:%H:%M}-{end:%H:%M}"
            return None
    return None
