"""Every step of a trace priced from its manifest, and the total."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from fccli.cost.price import StepCost, StepPrice, price_usage
from fccli.cost.target import Target, price_target
from fccli.i18n import Msg

if TYPE_CHECKING:
    from fccli.core.manifest import Manifest
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
    basis: Msg | None
    """Why the trace is priced as another model (the demo, --price-model); None otherwise."""

    @property
    def unpriced(self) -> list[int]:
        """Return the steps that have no price."""
        return [n for n, p in self.steps.items() if not isinstance(p, StepCost)]

    @property
    def priced(self) -> bool:
        """Whether at least one step has a price."""
        return any(isinstance(p, StepCost) for p in self.steps.values())


def price_trace(manifest: Manifest, price_model: str | None = None) -> TraceCost:
    """Price every step of `manifest` with usage, as its model or as `price_model`."""
    target = price_target(manifest.provider, manifest.model, price_model)
    steps: dict[int, StepPrice] = {}
    for record in manifest.steps:
        usage = usage_of(record.usage)
        if usage is None:
            continue
        at = parse_time(record.started_at) or parse_time(manifest.started_at)
        steps[record.step] = price_usage(usage, target, at)
    costs = [p for p in steps.values() if isinstance(p, StepCost)]
    savings = [p.saved_usd for p in costs if p.saved_usd is not None]
    return TraceCost(
        steps=steps,
        usd=sum((p.usd for p in costs), Decimal(0)),
        saved_usd=sum(savings, Decimal(0)) if savings else None,
        basis=target.basis if isinstance(target, Target) else None,
    )


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
