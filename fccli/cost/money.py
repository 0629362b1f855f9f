"""A price in US dollars as fc writes it: on screen, and as a JSON number."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal


def usd(amount: Decimal) -> str:
    """Return `amount` for a person: `$0.000071`, `$0.0123`, `$1.25` (two significant digits
    below a cent, where a step's price usually is; cents above)."""
    sign = "-" if amount < 0 else ""
    amount = abs(amount)
    if amount == 0:
        return "$0"
    if amount >= 1:
        shown = amount.quantize(Decimal("0.01"), ROUND_HALF_UP)
    else:
        # two significant digits: the exponent of the first one, one place further
        places = Decimal(1).scaleb(amount.adjusted() - 1)
        shown = amount.quantize(places, ROUND_HALF_UP)
    return f"{sign}${shown:f}"


def as_number(amount: Decimal) -> float:
    """Return `amount` as the number JSON holds (a manifest, --json, an export)."""
    return float(amount)
