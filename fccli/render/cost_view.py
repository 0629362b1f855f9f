"""What fc says of a step's and a trace's cost, in the run view, `fc show` and the HTML page."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fccli.cost.money import usd
from fccli.cost.price import StepCost
from fccli.i18n import _, localized

if TYPE_CHECKING:
    from fccli.core.models import Usage
    from fccli.cost.price import StepPrice
    from fccli.cost.trace import TraceCost


def step_cost_text(price: StepPrice | None) -> str | None:
    """Return `$0.000091` for a priced step; None otherwise (the trace's line says why)."""
    return usd(price.usd) if isinstance(price, StepCost) else None


def cache_text(usage: Usage | None, price: StepPrice | None) -> str | None:
    """Return `17 of 155 input tokens from the cache, saved $0.000040`, when the provider
    reported its cache; what it saved only when the step is priced."""
    cache = usage.cache_line() if usage is not None else None
    if cache is None:
        return None
    said = localized(cache)
    if not isinstance(price, StepCost) or not price.saved_usd:
        return str(said)
    if price.saved_usd < 0:
        return _(
            "{cache}, which cost {extra} more (writing to the cache is billed above the input "
            "price)",
            cache=said,
            extra=usd(-price.saved_usd),
        )
    return _("{cache}, saved {saved}", cache=said, saved=usd(price.saved_usd))


def trace_cost_parts(cost: TraceCost) -> list[str]:
    """Return what a trace cost, in parts: the total (or why there is none), the basis, the
    time-of-day prices that applied, what the cache saved."""
    why = cost.why_unpriced()
    if not cost.priced:
        return [str(localized(why.why))] if why is not None else []
    parts = [usd(cost.usd)]
    if why is not None:
        parts[0] = _(
            "{usd} for the steps priced; step {steps}: {why}",
            usd=usd(cost.usd),
            steps=", ".join(str(n) for n in cost.unpriced),
            why=localized(why.why),
        )
    if cost.basis is not None:
        parts.append(str(localized(cost.basis)))
    hours = sorted({p.hours for p in cost.steps.values() if isinstance(p, StepCost) and p.hours})
    if hours:
        parts.append(
            _(
                "at the prices of {hours} UTC (they change with the time of day)",
                hours=", ".join(hours),
            )
        )
    if cost.saved_usd is not None and cost.saved_usd != 0:
        if cost.saved_usd > 0:
            parts.append(_("the prompt cache saved {saved}", saved=usd(cost.saved_usd)))
        else:
            parts.append(_("the prompt cache cost {extra} more", extra=usd(-cost.saved_usd)))
    return parts
