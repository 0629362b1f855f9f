"""fc's cost against genai-prices' own calculation: on the example traces, and on usages as each
provider reports them (its own fields for the prompt cache), read by fc's codecs.

The reference side never goes through fc: genai-prices reads the wire body's usage with its own
extractor (`extract_usage`) and prices it with `calc_price`. Where its extractor misses a field
fc reads (DeepSeek's `prompt_cache_hit_tokens`), the test says so and compares with the counts
given by hand.
"""

from __future__ import annotations

import copy
import json
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

import genai_prices
import pytest

from fccli.core.manifest import read_manifest
from fccli.core.models import Usage
from fccli.cost.money import usd
from fccli.cost.price import StepCost, Unpriced, price_usage
from fccli.cost.target import NoTarget, Target, price_target
from fccli.cost.trace import price_trace, usage_of
from fccli.wire.registry import get_format
from tests.conftest import REPO

EXAMPLES = REPO / "traces" / "examples"
AT = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
"""A time outside DeepSeek's time-of-day prices."""

ANSWER: dict[str, dict[str, Any]] = {
    # The smallest answer each format has, its usage replaced below.
    "deepseek": json.loads((EXAMPLES / "hangzhou" / "2-response.deepseek.json").read_bytes()),
    "responses": json.loads(
        (EXAMPLES / "hangzhou-responses" / "2-response.responses.json").read_bytes()
    ),
    "gemini": json.loads((EXAMPLES / "hangzhou-gemini" / "2-response.gemini.json").read_bytes()),
    "anthropic": {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "usage": {},
    },
}
ANSWER["openai"] = ANSWER["deepseek"]

# (case, wire format, fc's provider, model, genai-prices' provider and api flavor, usage as sent).
# The usages are in each provider's own fields, as their SDKs type them: openai-python's
# CompletionUsage and ResponseUsage, anthropic's Usage, google-genai's
# GenerateContentResponseUsageMetadata, and DeepSeek's guides (kv_cache).
RECORDED: list[tuple[str, str, str, str, str, str, dict[str, Any]]] = [
    (
        "deepseek: hits inside prompt_tokens, in both its fields",
        "deepseek",
        "deepseek",
        "deepseek-flash",
        "deepseek",
        "chat",
        {
            "prompt_tokens": 155,
            "completion_tokens": 40,
            "total_tokens": 195,
            "prompt_tokens_details": {"cached_tokens": 17},
            "prompt_cache_hit_tokens": 17,
            "prompt_cache_miss_tokens": 138,
            "completion_tokens_details": {"reasoning_tokens": 21},
        },
    ),
    (
        "openai chat: cached_tokens inside prompt_tokens, reasoning inside completion",
        "openai",
        "openai",
        "gpt-4.1-mini",
        "openai",
        "chat",
        {
            "prompt_tokens": 2006,
            "completion_tokens": 300,
            "total_tokens": 2306,
            "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 192, "audio_tokens": 0},
        },
    ),
    (
        "openai chat: a newer model's cache writes inside prompt_tokens",
        "openai",
        "openai",
        "gpt-5.6-terra",
        "openai",
        "chat",
        {
            "prompt_tokens": 5000,
            "completion_tokens": 120,
            "total_tokens": 5120,
            "prompt_tokens_details": {"cached_tokens": 1024, "cache_write_tokens": 3500},
        },
    ),
    (
        "anthropic: input_tokens leaves out the cache's reads and writes",
        "anthropic",
        "anthropic",
        "claude-haiku-4-5",
        "anthropic",
        "default",
        {
            "input_tokens": 21,
            "cache_creation_input_tokens": 1200,
            "cache_read_input_tokens": 2048,
            "output_tokens": 95,
        },
    ),
    (
        "anthropic: a read from the cache only",
        "anthropic",
        "anthropic",
        "claude-sonnet-4-5",
        "anthropic",
        "default",
        {
            "input_tokens": 3,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 4096,
            "output_tokens": 12,
        },
    ),
    (
        "anthropic: writes kept an hour, billed above those of five minutes",
        "anthropic",
        "anthropic",
        "claude-sonnet-4-5",
        "anthropic",
        "default",
        {
            "input_tokens": 50,
            "cache_creation_input_tokens": 3000,
            "cache_read_input_tokens": 1000,
            "cache_creation": {
                "ephemeral_5m_input_tokens": 1000,
                "ephemeral_1h_input_tokens": 2000,
            },
            "output_tokens": 200,
        },
    ),
    (
        "responses: cached_tokens inside input_tokens, reasoning inside output",
        "responses",
        "openai",
        "gpt-5-mini",
        "openai",
        "responses",
        {
            "input_tokens": 1500,
            "input_tokens_details": {"cached_tokens": 1280},
            "output_tokens": 300,
            "output_tokens_details": {"reasoning_tokens": 256},
            "total_tokens": 1800,
        },
    ),
    (
        "responses: a newer model's cache writes inside input_tokens",
        "responses",
        "openai",
        "gpt-5.6-terra",
        "openai",
        "responses",
        {
            "input_tokens": 5000,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 4800},
            "output_tokens": 64,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 5064,
        },
    ),
    (
        "gemini: cachedContentTokenCount inside promptTokenCount, thoughts beside candidates",
        "gemini",
        "gemini",
        "gemini-2.5-flash",
        "google",
        "default",
        {
            "promptTokenCount": 1200,
            "candidatesTokenCount": 80,
            "thoughtsTokenCount": 40,
            "cachedContentTokenCount": 1024,
            "totalTokenCount": 1320,
        },
    ),
    (
        "gemini: the prompts of its own tools billed as input",
        "gemini",
        "gemini",
        "gemini-2.5-flash",
        "google",
        "default",
        {
            "promptTokenCount": 900,
            "toolUsePromptTokenCount": 300,
            "candidatesTokenCount": 60,
            "totalTokenCount": 1260,
        },
    ),
    (
        "gemini 3: past the 200k tier",
        "gemini",
        "gemini",
        "gemini-3-pro-preview",
        "google",
        "default",
        {
            "promptTokenCount": 250_000,
            "candidatesTokenCount": 800,
            "cachedContentTokenCount": 200_000,
            "totalTokenCount": 250_800,
        },
    ),
]


def _with_usage(fmt: str, usage: dict[str, Any], model: str) -> dict[str, Any]:
    body = copy.deepcopy(ANSWER[fmt])
    body["usageMetadata" if fmt == "gemini" else "usage"] = usage
    body["modelVersion" if fmt == "gemini" else "model"] = model
    return body


def _fc_price(fmt: str, provider: str, model: str, body: dict[str, Any]) -> StepCost:
    response = get_format(fmt).from_wire_response(body)
    price = price_usage(response.usage, price_target(provider, model), AT)
    assert isinstance(price, StepCost), price
    return price


@pytest.mark.parametrize("case", RECORDED, ids=[c[0] for c in RECORDED])
def test_each_format_costs_what_genai_prices_says(case: tuple[Any, ...]) -> None:
    _, fmt, provider, model, price_id, flavor, usage = case
    body = _with_usage(fmt, usage, model)
    ours = _fc_price(fmt, provider, model, body)
    extracted = genai_prices.extract_usage(body, provider_id=price_id, api_flavor=flavor)
    theirs = genai_prices.calc_price(
        extracted.usage, model, provider_id=price_id, genai_request_timestamp=AT
    )
    assert (ours.usd, ours.input_usd, ours.output_usd) == (
        theirs.total_price,
        theirs.input_price,
        theirs.output_price,
    )
    assert ours.usd > 0
    # what the cache saved: the same usage with no cache, less what was paid (nothing said
    # when the provider said nothing of its cache)
    counts = extracted.usage.__dict__
    uncached = {k: v for k, v in counts.items() if not k.startswith("cache_")}
    full = genai_prices.calc_price(
        genai_prices.Usage(**uncached), model, provider_id=price_id, genai_request_timestamp=AT
    )
    cached = len(uncached) < len(counts)
    assert ours.saved_usd == (full.total_price - theirs.total_price if cached else None)


def test_deepseek_hits_read_where_genai_prices_extractor_misses_them() -> None:
    """DeepSeek's own field alone (as its API answered before it added OpenAI's): fc reads it;
    genai-prices' extractor reads only `prompt_tokens_details.cached_tokens` and would bill
    every hit as a miss."""
    usage = {
        "prompt_tokens": 155,
        "completion_tokens": 40,
        "prompt_cache_hit_tokens": 128,
        "prompt_cache_miss_tokens": 27,
    }
    body = _with_usage("deepseek", usage, "deepseek-flash")
    ours = _fc_price("deepseek", "deepseek", "deepseek-flash", body)
    by_hand = genai_prices.calc_price(
        genai_prices.Usage(input_tokens=155, cache_read_tokens=128, output_tokens=40),
        "deepseek-flash",
        provider_id="deepseek",
        genai_request_timestamp=AT,
    )
    assert ours.usd == by_hand.total_price
    extracted = genai_prices.extract_usage(body, provider_id="deepseek", api_flavor="chat")
    missed = extracted.calc_price(genai_request_timestamp=AT)
    assert missed.total_price > ours.usd  # every hit billed as a miss
    assert ours.saved_usd == missed.total_price - ours.usd


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir()))
def test_example_traces_cost_what_genai_prices_says(name: str) -> None:
    trace = EXAMPLES / name
    manifest = read_manifest(json.loads((trace / "manifest.json").read_bytes()))
    cost = price_trace(manifest, again=True)
    assert price_trace(manifest) == cost  # as the manifest keeps it
    fmt = manifest.wire_format
    assert fmt is not None
    price_id, flavor = {
        "deepseek": ("deepseek", "chat"),
        "responses": ("openai", "responses"),
        "gemini": ("google", "default"),
    }[fmt]
    model = "deepseek-flash" if manifest.provider == "demo" else manifest.model
    assert model is not None
    total = Decimal(0)
    for record in manifest.steps:
        body = json.loads((trace / f"{record.step}-response.{fmt}.json").read_bytes())
        body.pop("model", None)  # the demo's own name: genai-prices would look it up
        at = datetime.fromisoformat(record.started_at or manifest.started_at or "")
        theirs = genai_prices.extract_usage(body, provider_id=price_id, api_flavor=flavor).usage
        expected = genai_prices.calc_price(
            theirs, model, provider_id=price_id, genai_request_timestamp=at
        ).total_price
        step = cost.steps[record.step]
        assert isinstance(step, StepCost) and step.usd == expected, record.step
        total += expected
    assert cost.usd == total > 0


def test_the_demo_is_priced_as_the_model_it_stands_in_for() -> None:
    target = price_target("demo", "fc-demo")
    assert isinstance(target, Target)
    assert (target.model, target.provider_id) == ("deepseek-flash", "deepseek")
    assert target.basis == "the demo model priced as deepseek-flash, the model it stands in for"


def test_an_unknown_model_has_no_price_never_zero() -> None:
    usage = Usage(input_tokens=100, output_tokens=10)
    for target in (price_target("openai", "my-finetune-7"), price_target(None, "my-finetune-7")):
        price = price_usage(usage, target, AT)
        assert isinstance(price, Unpriced)
        assert str(price) == "price unknown for my-finetune-7"
    local = price_usage(usage, price_target("ollama", "qwen3"), AT)
    assert isinstance(local, Unpriced) and "qwen3" in str(local)
    assert isinstance(price_target("deepseek", None), NoTarget)


def test_price_model_prices_a_trace_as_another_model() -> None:
    manifest = read_manifest(json.loads((EXAMPLES / "hangzhou" / "manifest.json").read_bytes()))
    own = price_trace(manifest)
    haiku = price_trace(manifest, "claude-haiku-4-5")
    assert haiku.basis == "priced as claude-haiku-4-5 (--price-model)"
    step = haiku.steps[1]
    assert isinstance(step, StepCost) and (step.model, step.provider) == (
        "claude-haiku-4-5",
        "anthropic",
    )
    assert haiku.usd > own.usd
    nothing = price_trace(manifest, "no-such-model-9")
    assert not nothing.priced and nothing.unpriced == [1, 2]


def test_time_of_day_prices_follow_the_step_time() -> None:
    usage = Usage(input_tokens=1000, output_tokens=100)
    target = price_target("deepseek", "deepseek-flash")
    night = price_usage(usage, target, datetime(2026, 12, 1, 2, 0, tzinfo=timezone.utc))
    noon = price_usage(usage, target, AT)
    assert isinstance(night, StepCost) and isinstance(noon, StepCost)
    assert night.hours == "01:00-04:00" and noon.hours is None
    assert night.usd != noon.usd
    # a time written without its zone is UTC, as fc writes them
    naive = price_usage(usage, target, datetime(2026, 12, 1, 2, 0))
    assert isinstance(naive, StepCost) and naive.usd == night.usd


def test_counts_that_do_not_add_up_are_unpriced_not_an_error() -> None:
    bad = Usage(input_tokens=10, output_tokens=1, cache_read_tokens=50)
    price = price_usage(bad, price_target("deepseek", "deepseek-flash"), AT)
    assert isinstance(price, Unpriced) and "do not add up" in str(price)
    # a manifest's odd counts are left out, not believed
    assert usage_of({"input_tokens": -3, "output_tokens": True, "x": 1}) is None
    assert usage_of({"input_tokens": 5, "output_tokens": "7"}) == Usage(input_tokens=5)
    assert usage_of(None) is None


@pytest.mark.parametrize(
    ("amount", "said"),
    [
        ("0", "$0"),
        ("0.0000705", "$0.000071"),
        ("0.00004", "$0.000040"),
        ("0.0123", "$0.012"),
        ("0.5", "$0.50"),
        ("1.234", "$1.23"),
        ("-0.0000234", "-$0.000023"),
    ],
)
def test_money_is_said_to_two_significant_digits_below_a_dollar(amount: str, said: str) -> None:
    assert usd(Decimal(amount)) == said


def test_a_trace_without_usage_prices_no_step(tmp_path: Path) -> None:
    manifest = read_manifest(
        {"provider": "deepseek", "model": "deepseek-flash", "steps": [{"step": 1}]}
    )
    cost = price_trace(manifest)
    assert cost.steps == {} and not cost.priced and cost.saved_usd is None
