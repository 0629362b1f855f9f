"""The example traces in traces/examples/ are course material; rebuilding them must change only times.

To rebuild them on purpose (after a deliberate change to the demo model, the formats or the
manifest): `FC_UPDATE_EXAMPLES=1 python -m pytest tests/trace/test_examples.py`, then review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO, clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.rebuilt import assert_rebuilt_identically

EXAMPLES = {
    "hangzhou": ("杭州今天适合跑步吗？",),
    "three-cities": ("北京、上海、深圳今天适合跑步吗？",),
    "unknown-city": ("巴黎今天适合跑步吗？",),
    "no-city": ("今天适合跑步吗？",),
    # The same round trip streamed: the raw events beside each assembled answer.
    "hangzhou-stream": ("杭州今天适合跑步吗？", "--stream"),
}
EXAMPLES_DIR = REPO / "traces" / "examples"
FAKE_EXAMPLES = {
    # OpenAI's Responses format, made against the fake provider (tests/support/fake_responses.py) with
    # its reasoning model: the reasoning item goes back before the call it led to.
    "hangzhou-responses": ("杭州今天适合跑步吗？", "-p", "openai", "--api", "responses"),
    # The same question in the Gemini format, against the fake provider (tests/support/fake_provider.py)
    # as Gemini 3 answers: call ids, a thoughtSignature carried back, thought summaries.
    "hangzhou-gemini": (
        "杭州今天适合跑步吗？",
        "-p",
        "gemini",
        "-m",
        "gemini-3-pro-preview",
        "--thinking",
    ),
}
FAKE_URL = "http://127.0.0.1:PORT"
"""The fake provider's address as the committed manifest says it: its port changes every run."""


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_trace_rebuilds_identically(fc, tmp_path: Path, name: str) -> None:
    rebuilt = tmp_path / name
    result = fc("run", *EXAMPLES[name], "--out", str(rebuilt))
    assert result.returncode == 0, result.stderr
    _compare(rebuilt, name)


@pytest.mark.parametrize("name", sorted(FAKE_EXAMPLES))
def test_example_trace_against_the_fake_provider_rebuilds_identically(
    fc, tmp_path: Path, name: str
) -> None:
    rebuilt = tmp_path / name
    with FakeProvider() as fake:  # a fresh one: its prompt cache starts empty, as it did
        env = clean_env(GEMINI_API_KEY=DEFAULT_KEY, OPENAI_API_KEY=DEFAULT_KEY)
        args = ("run", *FAKE_EXAMPLES[name], "--base-url", fake.url, "--out", str(rebuilt))
        result = fc(*args, env=env)
        url = fake.url
    assert result.returncode == 0, result.stderr
    manifest = rebuilt / "manifest.json"
    manifest.write_text(manifest.read_text("utf-8").replace(url, FAKE_URL), encoding="utf-8")
    _compare(rebuilt, name)


def _compare(rebuilt: Path, name: str) -> None:
    assert_rebuilt_identically(rebuilt, EXAMPLES_DIR / name)
