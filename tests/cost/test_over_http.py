"""fc's cost of runs against the fake provider over HTTP (tests/support/fake_provider.py), in
its DeepSeek chat and Anthropic shapes, prompt cache included: the price each step has on record
is what genai-prices makes of the answer as it came over the wire."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import genai_prices
import pytest

from tests.conftest import clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.inprocess import run_in_process

pytestmark = pytest.mark.server

RUNS = {
    # the trace, fc's options, genai-prices' provider and reader of the answer's usage
    "deepseek": (["-p", "deepseek"], "deepseek", "chat"),
    "anthropic": (["-p", "anthropic"], "anthropic", "default"),
}


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    where = tmp_path_factory.mktemp("cost-http")
    with FakeProvider() as fake:
        env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY, ANTHROPIC_API_KEY=DEFAULT_KEY)
        for name, (options, _, _) in RUNS.items():
            args = ["run", "杭州今天适合跑步吗？", *options, "--base-url", fake.url, "-o", name]
            ran = run_in_process(args, cwd=where, env=env)
            assert ran.returncode == 0, ran.stderr
    return {name: where / name for name in RUNS}


def _load(path: Path) -> Any:
    return json.loads(path.read_bytes())


@pytest.mark.parametrize("name", sorted(RUNS))
def test_each_recorded_price_is_genai_prices_reading_of_the_wire_answer(
    traces: dict[str, Path], name: str
) -> None:
    _, price_id, flavor = RUNS[name]
    trace = traces[name]
    manifest = _load(trace / "manifest.json")
    fmt = manifest["wire_format"]
    cached = 0
    for record in manifest["steps"]:
        wire = _load(trace / f"{record['step']}-response.{fmt}.json")
        usage = genai_prices.extract_usage(wire, provider_id=price_id, api_flavor=flavor).usage
        hits = wire["usage"].get("prompt_cache_hit_tokens")
        if hits is not None:  # DeepSeek's own field, which genai-prices' reader leaves out
            usage.cache_read_tokens = hits
        cached += getattr(usage, "cache_read_tokens", 0) or 0
        expected = genai_prices.calc_price(
            usage,
            manifest["model"],
            provider_id=price_id,
            genai_request_timestamp=datetime.fromisoformat(record["started_at"]),
        )
        assert record["cost"]["usd"] == float(expected.total_price), record["step"]
        assert record["cost"]["provider"] == price_id
    assert manifest["cost"]["usd"] == pytest.approx(
        sum(s["cost"]["usd"] for s in manifest["steps"])
    )
    if name == "deepseek":  # step 2 repeats step 1: the fake's prompt cache hits, as DeepSeek's
        assert cached > 0 and manifest["cost"]["cache_saved_usd"] > 0
