"""A server that echoes the key in the two newer formats (OpenAI Responses, Gemini): plain,
JSON-escaped, cut across stream events. The key reaches no file, screen or later request."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import clean_env
from tests.fake_provider import DEFAULT_KEY, FakeProvider
from tests.test_hostile_secrets import assert_nowhere, sent_bodies

QUESTION = "杭州今天适合跑步吗？"
PROVIDERS = {
    "responses": (["-p", "openai", "--api", "responses"], "OPENAI_API_KEY"),
    "gemini": (["-p", "gemini"], "GEMINI_API_KEY"),
}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("escape", [False, True], ids=["plain", "json-escaped"])
@pytest.mark.parametrize("api", list(PROVIDERS))
def test_a_key_echoed_by_the_server_is_masked(
    fc, fake_provider: FakeProvider, tmp_path: Path, api: str, escape: bool, stream: bool
) -> None:
    fake_provider.text_fragment_size = 7  # in a stream the key arrives in pieces
    fake_provider.script = [{"echo_auth": ["content", "reasoning", "arguments"], "escape": escape}]
    flags, variable = PROVIDERS[api]
    result = fc(
        "run", QUESTION, *flags, "--base-url", fake_provider.url, "-o", "t",
        *(["--stream"] if stream else []), env=clean_env(**{variable: DEFAULT_KEY}),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert fake_provider.errors == []
    trace = tmp_path / "t"
    assert_nowhere(DEFAULT_KEY, result.stdout, result.stderr, trace=trace)
    assert_nowhere(DEFAULT_KEY, *sent_bodies(fake_provider)[1:])
    # masked, not dropped: the echo reached the files
    assert any("***" in p.read_text(encoding="utf-8") for p in trace.glob("1-response*"))
    shown = fc("show", str(trace), env=clean_env())
    assert_nowhere(DEFAULT_KEY, shown.stdout, shown.stderr)
