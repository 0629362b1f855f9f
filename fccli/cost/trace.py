"""Every step of a trace priced from its manifest, and the total."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, overload

from fccli.cost.price import StepCost, StepPrice, Unpriced, price_usage
from fccli.cost.target import Target, price_target
from fccli.i18n import Msg

if TYPE_CHECKING:
    from fccli.core.manifest import Manifest, StepRecord
    from fccli.core.models import Usage


@dataclass(frozen=True)
class TraceCost:
    """What a trace cost: each step's price (or why it has none) and the sum of those priced."""

    steps: dict[int, StepPrice]
    """By step number; a step with no token counts at all (refused, cut) is left out."""
    usd: Decimal
    """The sum of the priced steps (a lower bound when some are unpriced)."""
    saved_usd: Decimal | None
    """What the prompt cache saved over the trace; None when no step reported a cache."""
    priced_as: str
    """The model name looked up in the table."""
    basis: Msg | None
    """Why the trace is priced as another model (the demo, --price-model); None otherwise."""

    @property
    def unpriced(self) -> list[int]:
        """Return the steps that have no price."""
        return [n for n, p in self.steps.items() if not isinstance(p, StepCost)]

    def why_unpriced(self) -> Unpriced | None:
        """Return why the first step without a price has none."""
        return next((p for p in self.steps.values() if isinstance(p, Unpriced)), None)

    @property
    def priced(self) -> bool:
        """Whether at least one step has a price."""
        return any(isinstance(p, StepCost) for p in self.steps.values())


def price_trace(
    manifest: Manifest, price_model: str | None = None, *, again: bool = False
) -> TraceCost:
    """Price every step of `manifest` with usage, as its model or as `price_model` (default: the
    run's --price-model, if it had one).

    Without `price_model`, a trace whose every step with usage has its price on record is read
    as recorded, without the price table (fc show starts fast); `again` prices it anew."""
    asked = price_model
    if price_model is None and manifest.options is not None:
        price_model = manifest.options.price_model
    target = price_target(manifest.provider, manifest.model, price_model)
    priced = [(record, usage_of(record.usage)) for record in manifest.steps]
    priced = [(record, usage) for record, usage in priced if usage is not None]
    steps: dict[int, StepPrice] = {}
    recorded = None if asked is not None or again else _as_recorded([r for r, _ in priced])
    if recorded is not None:
        steps = dict(recorded)
    else:
        for record, usage in priced:
            at = parse_time(record.started_at) or parse_time(manifest.started_at)
            steps[record.step] = price_usage(usage, target, at)
    costs = [p for p in steps.values() if isinstance(p, StepCost)]
    savings = [p.saved_usd for p in costs if p.saved_usd is not None]
    return TraceCost(
        steps=steps,
        usd=sum((p.usd for p in costs), Decimal(0)),
        saved_usd=sum(savings, Decimal(0)) if savings else None,
        priced_as=target.model,
        basis=target.basis if isinstance(target, Target) else None,
    )


def _as_recorded(records: list[StepRecord]) -> list[tuple[int, StepCost]] | None:
    """Return each step's price as its record keeps it; None unless every one has a price."""
    found = []
    for record in records:
        cost = record.cost
        if cost is None or not cost.model or not cost.provider:
            return None
        total, inputs, outputs = cost.usd, cost.input_usd, cost.output_usd
        if total is None or inputs is None or outputs is None:
            return None
        if min(total, inputs, outputs) < 0 or not all(map(math.isfinite, (total, inputs, outputs))):
            return None  # a hand-edited record: priced anew
        found.append(
            (
                record.step,
                StepCost(
                    usd=decimal_of(total),
                    input_usd=decimal_of(inputs),
                    output_usd=decimal_of(outputs),
                    saved_usd=_finite(cost.cache_saved_usd),
                    model=cost.model,
                    provider=cost.provider,
                    hours=cost.hours,
                ),
            )
        )
    return found


def _finite(amount: float | None) -> Decimal | None:
    """Return a recorded amount that is a number as a Decimal; None otherwise."""
    return decimal_of(amount) if amount is not None and math.isfinite(amount) else None


@overload
def decimal_of(amount: float) -> Decimal: ...
@overload
def decimal_of(amount: float | None) -> Decimal | None: ...
def decimal_of(amount: float | None) -> Decimal | None:
    """Return an amount as written (its shortest decimal form) as a Decimal."""
    return None if amount is None else Decimal(repr(amount))


def usage_of(recorded: Any) -> Usage | None:
    """Return a manifest's usage record as fc's Usage (its counts that are counts), or None."""
    from fccli.core.models import Usage

    if not isinstance(recorded, dict):
        return None
    counts = {
        k: v
        for k, v in recorded.items()
        if k in Usage.model_fields and isinstance(v, int) and not isinstance(v, bool) and v >= 0
    }
    return Usage(**counts) if counts else None


def parse_time(text: str | None) -> datetime | None:
    """Return an ISO 8601 time as written in a manifest, or None."""
    if not text:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None
