"""DeepSeek's prices without importing genai-prices: the few rows of its table the demo and
DeepSeek's models are priced by, copied from the installed version, and used only while that
version is the one installed.

Importing genai-prices costs `fc run` a good part of its start-up, and fc proxy's journal memory
(docs/performance.md): its whole table, and an HTTP client for its price updates. The demo runs
offline, and the models here have flat per-token prices, some by the hour of the day; priced here as
genai-prices prices them (the same Decimal operations, so the same amounts, written the same
way). tests/cost/test_snapshot.py holds these rows to the installed table, and the prices to
genai-prices' own over many usages and hours; a newer genai-prices is priced by itself until the
rows are copied again.
"""

from __future__ import annotations

import os
from datetime import datetime, time, timezone
from decimal import Decimal
from functools import cache
from typing import NamedTuple

PRICES_VERSION = "0.2.3"
"""The genai-prices version the rows were copied from."""


class Row(NamedTuple):
    """One of a model's prices, per million tokens, and the hours (UTC) it holds in (None: all
    day); the last row that holds wins, as in genai-prices."""

    hours: tuple[time, time] | None
    input_mtok: Decimal
    cache_read_mtok: Decimal
    output_mtok: Decimal


MODELS: dict[str, list[Row]] = {
    "deepseek/deepseek-flash": [
        Row(None, Decimal("0.15"), Decimal("0.003"), Decimal("0.6")),
        Row((time(1), time(4)), Decimal("0.3"), Decimal("0.006"), Decimal("1.2")),
        Row((time(6), time(10)), Decimal("0.3"), Decimal("0.006"), Decimal("1.2")),
    ],
    "deepseek/deepseek-chat": [
        Row(None, Decimal("0.135"), Decimal("0.035"), Decimal("0.55")),
        Row((time(0, 30), time(16, 30)), Decimal("0.27"), Decimal("0.07"), Decimal("1.1")),
    ],
    "deepseek/deepseek-reasoner": [
        Row(None, Decimal("0.135"), Decimal("0.035"), Decimal("0.55")),
        Row((time(0, 30), time(16, 30)), Decimal("0.55"), Decimal("0.14"), Decimal("2.19")),
    ],
}
"""`provider id/model id` → its price rows, as genai-prices' table holds them."""

FOUND_IN = {key.split("/")[1]: key.split("/")[0] for key in MODELS}
"""A model's name → the provider genai-prices finds it in when no provider is named (a proxy in
front of a URL, a provider fc has no profile of): the one its rows are under here."""

COUNTED = frozenset(
    {"input_tokens", "output_tokens", "cache_read_tokens", "output_reasoning_tokens"}
)
"""The token counts priced here; a usage with any other is left to genai-prices."""


class Priced(NamedTuple):
    provider_id: str
    input_usd: Decimal
    output_usd: Decimal
    usd: Decimal
    saved_usd: Decimal | None
    hours: str | None


@cache
def installed_version() -> str | None:
    """Return the installed genai-prices' version from its distribution's folder name, without
    importing it; None when it is not found so (not installed, or installed another way)."""
    from importlib.util import find_spec

    try:
        spec = find_spec("genai_prices")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    folder = os.path.dirname(os.path.dirname(spec.origin))
    name = f"genai_prices-{PRICES_VERSION}.dist-info"
    return PRICES_VERSION if os.path.isdir(os.path.join(folder, name)) else None


def price(
    provider_id: str | None, model: str, counts: dict[str, int], at: datetime | None
) -> Priced | None:
    """Price `counts` (genai-prices' names) of `model` at time `at` (None: now) as genai-prices
    would; None when the rows here do not cover it (genai-prices prices it then)."""
    provider_id = provider_id or FOUND_IN.get(model)
    rows = MODELS.get(f"{provider_id}/{model}")
    if rows is None or not set(counts) <= COUNTED or installed_version() is None:
        return None
    inputs, outputs = counts.get("input_tokens"), counts.get("output_tokens")
    cached = counts.get("cache_read_tokens")
    if inputs is None or outputs is None or (cached or 0) > inputs:
        return None  # genai-prices' own inference, or its error, decides
    if counts.get("output_reasoning_tokens", 0) > outputs:
        return None
    moment = (at or datetime.now(tz=timezone.utc)).astimezone(timezone.utc).timetz()
    row = next(r for r in reversed(rows) if r.hours is None or _within(r.hours, moment))
    paid = _price(row, inputs, cached or 0, outputs)
    saved = None
    if cached is not None:
        saved = _price(row, inputs, 0, outputs)[2] - paid[2]
    hours = None if row.hours is None else f"{row.hours[0]:%H:%M}-{row.hours[1]:%H:%M}"
    return Priced(provider_id or "", *paid, saved, hours)


def _within(hours: tuple[time, time], moment: time) -> bool:
    start, end = (t.replace(tzinfo=timezone.utc) for t in hours)
    if end < start:
        return moment >= start or moment < end
    return start <= moment < end


def _price(row: Row, inputs: int, cached: int, outputs: int) -> tuple[Decimal, Decimal, Decimal]:
    """Return input, output and total in genai-prices' order of operations: each priced unit's
    price times its count (0 when not given), over a million; summed from Decimal(0)."""
    per = 1_000_000
    units = [
        ("input", row.input_mtok * Decimal(inputs - cached) / per),
        ("input", row.cache_read_mtok * Decimal(cached) / per),
        ("output", row.output_mtok * Decimal(outputs) / per),
    ]
    input_usd, output_usd, total = Decimal(0), Decimal(0), Decimal(0)
    for direction, amount in units:
        total += amount
        if direction == "input":
            input_usd += amount
        else:
            output_usd += amount
    return input_usd, output_usd, total
