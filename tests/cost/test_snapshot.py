"""DeepSeek's prices without genai-prices (fccli/cost/snapshot.py) is genai-prices' own: its rows
are the installed table's, and every usage and hour is priced to the same Decimal, written the
same way, as `calc_price` prices it."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone
from typing import Any

import genai_prices
import genai_prices.data
import pytest
from genai_prices.types import TimeOfDateConstraint

from fccli.core.models import Usage
from fccli.cost import snapshot
from fccli.cost.price import price_usage
from fccli.cost.record import trace_record
from fccli.cost.target import DEMO, Target, price_target

copied_from_this_version = pytest.mark.skipif(
    genai_prices.__version__ != snapshot.PRICES_VERSION,
    reason="another genai-prices: fc prices with it (test_another_version_is_priced_by_itself)",
)


def _model(provider_id: str, model_id: str) -> Any:
    provider = next(p for p in genai_prices.data.providers if p.id == provider_id)
    return next(m for m in provider.models if m.id == model_id)


@copied_from_this_version
def test_the_rows_are_the_installed_tables() -> None:
    assert snapshot.installed_version() == genai_prices.__version__
    for key, rows in snapshot.MODELS.items():
        provider_id, model_id = key.split("/")
        theirs = _model(provider_id, model_id).prices
        assert len(rows) == len(theirs)
        for row, conditional in zip(rows, theirs, strict=True):
            constraint = conditional.constraint
            if row.hours is None:
                assert constraint is None
            else:
                assert isinstance(constraint, TimeOfDateConstraint)
                hours = (constraint.start_time, constraint.end_time)
                assert tuple(t.replace(tzinfo=None) for t in hours) == row.hours
                assert all(t.utcoffset() in (None, timedelta(0)) for t in hours)
            kept = {k: v for k, v in vars(conditional.prices).items() if v is not None}
            assert kept == {k: v for k, v in row._asdict().items() if k != "hours"}


@copied_from_this_version
def test_a_name_without_a_provider_is_found_where_genai_prices_finds_it() -> None:
    named = {key.split("/")[1] for key in snapshot.MODELS}
    assert set(snapshot.FOUND_IN) == named
    for model, provider_id in snapshot.FOUND_IN.items():
        found = genai_prices.calc_price(genai_prices.Usage(input_tokens=1), model)
        assert (found.provider.id, found.model.id) == (provider_id, model)


TARGETS = [
    price_target(DEMO, "fc-demo"),
    *(price_target("deepseek", key.split("/")[1]) for key in snapshot.MODELS),
    *(Target(key.split("/")[1], None) for key in snapshot.MODELS),
]


@copied_from_this_version
@pytest.mark.parametrize("target", TARGETS, ids=lambda t: f"{t.provider_id}/{t.model}")
def test_every_usage_and_hour_is_priced_as_genai_prices_prices_it(
    target: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    day = datetime(2026, 12, 2, tzinfo=timezone.utc)
    minutes = (0, 29, 30, 59, 60, 239, 240, 359, 360, 599, 600, 989, 990, 1439)
    moments = [day + timedelta(minutes=m) for m in minutes]
    moments.append(datetime(2026, 12, 2, 9, 30, tzinfo=timezone(timedelta(hours=8))))  # 01:30 UTC
    usages = [
        (Usage(input_tokens=i, output_tokens=o, cache_read_tokens=c, reasoning_tokens=r), at)
        for (i, o), c, r, at in itertools.product(
            [(0, 0), (158, 36), (368, 59), (10**9, 10**6)],
            [None, 0, 24, 158],
            [None, 0, 24],
            moments,
        )
    ]
    ours = [price_usage(usage, target, at) for usage, at in usages]
    monkeypatch.setattr(snapshot, "price", lambda *args: None)  # genai-prices itself
    theirs = [price_usage(usage, target, at) for usage, at in usages]
    assert [repr(p) for p in ours] == [repr(p) for p in theirs]  # Decimals as written, too
    hours = {
        f"{r.hours[0]:%H:%M}-{r.hours[1]:%H:%M}"
        for r in snapshot.MODELS[f"deepseek/{target.model}"]
        if r.hours is not None
    }
    assert {getattr(p, "hours", None) for p in ours} == {None, *hours}


@copied_from_this_version
def test_the_record_names_the_installed_table() -> None:
    assert (
        trace_record(None, None, "m", None, []).prices == f"genai-prices {genai_prices.__version__}"
    )


def test_another_version_is_priced_by_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshot, "PRICES_VERSION", "0.0.0")
    snapshot.installed_version.cache_clear()
    try:
        assert snapshot.installed_version() is None
        counts = {"input_tokens": 1, "output_tokens": 1}
        assert snapshot.price(*next(iter(snapshot.MODELS)).split("/"), counts, None) is None
    finally:
        snapshot.installed_version.cache_clear()
