"""A step's cost put on the manifest's record as the step is written, and the trace's total."""

from __future__ import annotations

from decimal import Decimal

from fccli.core.manifest import CostRecord, Manifest, StepRecord, TraceCostRecord
from fccli.cost.money import as_number
from fccli.cost.price import StepCost, StepPrice, price_usage
from fccli.cost.snapshot import installed_version
from fccli.cost.target import NoTarget, price_target
from fccli.cost.trace import TraceCost, decimal_of, parse_time, usage_of


def record_cost(manifest: Manifest, record: StepRecord) -> StepPrice | None:
    """Price step `record` of `manifest` (as --price-model asks, if it did), put its price and the
    trace's new total on record, and return the price; None when the step has no token counts."""
    usage = usage_of(record.usage)
    if usage is None:
        return None
    price_model = manifest.options.price_model if manifest.options is not None else None
    target = price_target(manifest.provider, manifest.model, price_model)
    at = parse_time(record.started_at) or parse_time(manifest.started_at)
    price = price_usage(usage, target, at)
    record.cost = step_record(price)
    steps = list(manifest.steps)
    if not any(s is record for s in steps):
        steps.append(record)
    costs = [s.cost for s in steps if s.cost is not None]
    priced = [c.usd for c in costs if c.usd is not None]
    saved = [c.cache_saved_usd for c in costs if c.cache_saved_usd is not None]
    total = trace_record(
        _sum(priced) if priced else None,
        _sum(saved) if saved else None,
        target.model,
        None if isinstance(target, NoTarget) else target.basis,
        [s.step for s in steps if s.cost is not None and s.cost.usd is None],
    )
    manifest.cost = total
    return price


def step_record(price: StepPrice) -> CostRecord:
    """Return a step's price as the manifest keeps it."""
    if not isinstance(price, StepCost):
        return CostRecord(usd=None, model=price.model, unknown=str(price.why))
    record = CostRecord(
        usd=as_number(price.usd),
        input_usd=as_number(price.input_usd),
        output_usd=as_number(price.output_usd),
    )
    if price.saved_usd is not None:
        record.cache_saved_usd = as_number(price.saved_usd)
    record.model, record.provider = price.model, price.provider
    if price.hours is not None:
        record.hours = price.hours
    return record


def trace_cost_record(cost: TraceCost) -> TraceCostRecord:
    """Return a trace's cost as the manifest keeps it (and `fc show --json` gives it)."""
    return trace_record(
        cost.usd if cost.priced else None, cost.saved_usd, cost.priced_as, cost.basis, cost.unpriced
    )


def trace_record(
    usd: Decimal | None,
    saved: Decimal | None,
    priced_as: str,
    basis: str | None,
    unpriced: list[int],
) -> TraceCostRecord:
    """Return the manifest's record of a trace's cost: a field that does not apply left out."""
    record = TraceCostRecord(
        usd=None if usd is None else as_number(usd), priced_as=priced_as, prices=_table()
    )
    if saved is not None:
        record.cache_saved_usd = as_number(saved)
    if basis is not None:
        record.basis = str(basis)
    if unpriced:
        record.unpriced_steps = unpriced
    return record


def _sum(amounts: list[float]) -> Decimal:
    """Add amounts as written (each its shortest decimal form), without float's dust."""
    return sum((decimal_of(a) for a in amounts), Decimal(0))


def _table() -> str:
    """Name the price table and its version (read without importing it when it can be)."""
    version = installed_version()
    if version is not None:
        return f"genai-prices {version}"
    try:
        import genai_prices
    except ImportError:
        return "genai-prices (not installed)"
    return f"genai-prices {genai_prices.__version__}"
