"""A server that echoes the key in the two newer formats (OpenAI Responses, Gemini): plain,
JSON-escaped, cut across stream events. The key reaches no file, screen or later request."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import clean_env
from tests.core.test_secrets_echoed import assert_nowhere, sent_bodies
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider

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


PROXIED = {
    "responses": ("/v1/responses", {"authorization": f"Bearer {DEFAULT_KEY}"}),
    "gemini": (
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
        {"x-goog-api-key": DEFAULT_KEY},
    ),
}


@pytest.mark.parametrize("escape", [False, True], ids=["plain", "json-escaped"])
@pytest.mark.parametrize("api", list(PROXIED))
def test_fc_proxy_masks_a_key_echoed_in_a_stream_of_the_newer_formats(
    tmp_path: Path, api: str, escape: bool
) -> None:
    import httpx

    from tests.support.proxy_harness import proxy

    path, headers = PROXIED[api]
    question = {"role": "user", "content": QUESTION}
    body: dict[str, object] = (
        {"model": "gpt-4.1", "input": [question], "stream": True, "tools": _responses_tools()}
        if api == "responses"
        else {"contents": [{"role": "user", "parts": [{"text": QUESTION}]}], **_gemini_tools()}
    )
    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        server.text_fragment_size = 7
        server.script = [{"echo_auth": ["content", "arguments"], "escape": escape}]
        answer = httpx.post(px.url + path, json=body, headers=headers, timeout=30)
        assert answer.status_code == 200, answer.text
    assert server.errors == []
    (trace,) = px.traces()
    assert_nowhere(DEFAULT_KEY, px.printed, trace=trace)
    assert any("***" in p.read_text(encoding="utf-8") for p in trace.glob("1-response*"))


def _responses_tools() -> list[dict[str, object]]:
    from tests.support.proxy_harness import wire_tools

    return wire_tools("responses")


def _gemini_tools() -> dict[str, object]:
    from tests.support.proxy_harness import wire_tools

    return {"tools": wire_tools("gemini")}
