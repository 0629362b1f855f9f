"""A server that sends the key back, in every format: in the model's words, its reasoning, a
call's arguments, JSON-escaped, cut across the events of a stream, in a 401. The key reaches no
file, no later request, no manifest and no screen, and a key in a base URL's query string
neither. In-process against the fake provider on 127.0.0.1."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from tests.conftest import clean_env
from tests.support import local_http
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.inprocess import deepseek_env, deepseek_run

pytestmark = pytest.mark.server

QUESTION = "杭州今天适合跑步吗？"
ESCAPED = "".join(f"\\u{ord(c):04x}" for c in DEFAULT_KEY)


@pytest.fixture(autouse=True, params=["en", "zh"])
def language(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test twice: fc's Chinese messages are built from the same values as its English
    ones (fccli/i18n), and a key must reach neither."""
    from fccli import i18n

    monkeypatch.setattr(i18n, "language_from_environment", lambda environ: request.param)
    return str(request.param)


def assert_nowhere(secret: str, *texts: str | bytes, trace: Path | None = None) -> None:
    escaped = "".join(f"\\u{ord(c):04x}" for c in secret)
    places: list[tuple[str, bytes]] = [(f"text {i}", _b(t)) for i, t in enumerate(texts)]
    if trace is not None:
        places += [(p.name, p.read_bytes()) for p in sorted(trace.iterdir())]
    for name, data in places:
        assert secret.encode() not in data, name
        assert escaped.encode() not in data.lower(), name


def _b(text: str | bytes) -> bytes:
    return text if isinstance(text, bytes) else text.encode()


def sent_bodies(server: FakeProvider) -> list[bytes]:
    return [r.body for r in server.received]


@pytest.mark.parametrize("escape", [False, True], ids=["plain", "json-escaped"])
def test_a_key_echoed_in_content_reasoning_and_arguments_is_masked_everywhere(
    fc, fake_provider: FakeProvider, tmp_path: Path, escape: bool
) -> None:
    fake_provider.script = [{"echo_auth": ["content", "reasoning", "arguments"], "escape": escape}]
    result = fc(*deepseek_run(fake_provider.url), env=deepseek_env())
    assert result.returncode == 0, result.stderr
    trace = tmp_path / "t"
    assert_nowhere(DEFAULT_KEY, result.stdout, result.stderr, trace=trace)
    # never sent back to the provider in the history
    assert_nowhere(DEFAULT_KEY, *sent_bodies(fake_provider)[1:])
    # ... and masked, not dropped: the reader still sees that something was there
    assert "***" in (trace / "1-response.json").read_text(encoding="utf-8")
    manifest = json.loads((trace / "manifest.json").read_text(encoding="utf-8"))
    assert "masked" in manifest["steps"][0]


def test_a_key_cut_across_two_stream_events_is_masked_in_the_sse_and_the_json(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.text_fragment_size = 7  # the key arrives in pieces, never whole in one event
    fake_provider.script = [{"echo_auth": ["content", "reasoning", "arguments"]}]
    result = fc(*deepseek_run(fake_provider.url, "--stream"), env=deepseek_env())
    assert result.returncode == 0, result.stderr
    trace = tmp_path / "t"
    assert_nowhere(DEFAULT_KEY, result.stdout, result.stderr, trace=trace)
    assert_nowhere(DEFAULT_KEY, *sent_bodies(fake_provider)[1:])
    # the pieces, folded, say *** where the key was
    answer = json.loads((trace / "1-response.deepseek.json").read_text(encoding="utf-8"))
    assert "Bearer ***" in answer["choices"][0]["message"]["reasoning_content"]


@pytest.mark.parametrize("command", ["run", "send"])
def test_a_401_that_quotes_the_key_json_escaped_is_masked(
    fc, fake_provider: FakeProvider, tmp_path: Path, command: str
) -> None:
    fake_provider.key = "sk-the-right-key-000"
    fake_provider.echo_key_in_401 = True
    fake_provider.escape_401 = True
    env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY)
    if command == "run":
        args = ["run", QUESTION, "-p", "deepseek", "-o", "t"]
    else:
        assert fc("run", QUESTION, "-o", "demo").returncode == 0
        args = ["send", "demo/1-request.deepseek.json", "-p", "deepseek"]
    result = fc(*args, "--base-url", fake_provider.url, env=env)
    assert result.returncode == 3
    assert "Incorrect API key provided: ***" in result.stderr
    trace = tmp_path / "t" if command == "run" else None
    assert_nowhere(DEFAULT_KEY, result.stdout, result.stderr, trace=trace)


def test_basic_auth_from_the_url_is_masked_also_as_base64(fc, tmp_path: Path) -> None:
    password = "hunter2-very-secret"
    with FakeProvider(key=None) as server:
        server.script = [{"echo_auth": ["content", "reasoning", "arguments"]}]
        url = server.url.replace("http://", f"http://learner:{password}@")
        result = fc("run", QUESTION, "-p", "ollama", "--base-url", url, "-o", "t")
        sent = server.received[0].headers["authorization"]
    assert result.returncode == 0, result.stderr
    encoded = base64.b64encode(f"learner:{password}".encode()).decode()
    assert sent == f"Basic {encoded}"  # what the server saw, and echoed
    trace = tmp_path / "t"
    for secret in (password, encoded):
        assert_nowhere(secret, result.stdout, result.stderr, trace=trace)
    assert "Basic ***" in (trace / "1-response.json").read_text(encoding="utf-8")


def test_a_key_in_the_base_url_query_string_is_kept_after_the_path_and_never_shown(
    fc, tmp_path: Path
) -> None:
    secret = "query-secret-value-42"
    with FakeProvider(key=None) as server:
        result = fc(
            "run",
            QUESTION,
            "-p",
            "ollama",
            "--base-url",
            f"{server.url}/v1?api_key={secret}",
            "-o",
            "t",
        )
        paths = [r.path for r in server.received]
    assert result.returncode == 0, result.stderr
    assert (
        paths[0] == f"/v1/chat/completions?api_key={secret}"
    )  # item 17: the path before the query
    assert_nowhere(secret, result.stdout, result.stderr, trace=tmp_path / "t")
    manifest = json.loads((tmp_path / "t" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["base_url"].endswith("/v1?api_key=***")


def test_fc_curl_refuses_to_print_a_key_in_the_query_string(fc, tmp_path: Path) -> None:
    assert fc("run", QUESTION, "-o", "t").returncode == 0
    result = fc(
        "curl",
        "t/1-request.deepseek.json",
        "-p",
        "ollama",
        "--base-url",
        "http://127.0.0.1:9/v1?key=abcdefghijkl",
    )
    assert result.returncode == 2
    assert "abcdefghijkl" not in result.stdout + result.stderr


def test_the_live_view_masks_a_key_whose_pieces_arrive_apart() -> None:
    import io

    from rich.console import Console

    from fccli.core.stream import StreamDelta
    from fccli.render.stream_view import LiveStream

    console = Console(file=io.StringIO(), width=200, force_terminal=True)
    live = LiveStream(console, mask=lambda text: text.replace(DEFAULT_KEY, "***"))
    try:
        for piece in ("key ", DEFAULT_KEY[:7], DEFAULT_KEY[7:], " end"):
            live.add(StreamDelta(kind="text", text=piece))
        rendered = io.StringIO()
        Console(file=rendered, width=200).print(live._render())
    finally:
        live.stop()
    assert DEFAULT_KEY not in rendered.getvalue() + console.file.getvalue()
    assert "key *** end" in rendered.getvalue()


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
    "ollama-native": ("/api/chat", {"authorization": f"Bearer {DEFAULT_KEY}"}),
}


@pytest.mark.parametrize("escape", [False, True], ids=["plain", "json-escaped"])
@pytest.mark.parametrize("api", list(PROXIED))
def test_fc_proxy_masks_a_key_echoed_in_a_stream_of_the_newer_formats(
    tmp_path: Path, api: str, escape: bool
) -> None:

    from tests.support.proxy_harness import proxy

    path, headers = PROXIED[api]
    question = {"role": "user", "content": QUESTION}
    body: dict[str, object] = (
        {"model": "gpt-4.1", "input": [question], "stream": True, "tools": _responses_tools()}
        if api == "responses"
        else {"model": "qwen3", "messages": [question], "think": True, "tools": _wire_tools(api)}
        if api == "ollama-native"  # NDJSON, streamed unless told not to; the key in its thinking
        else {"contents": [{"role": "user", "parts": [{"text": QUESTION}]}], **_gemini_tools()}
    )
    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        server.text_fragment_size = 7
        server.script = [{"echo_auth": ["content", "arguments", "reasoning"], "escape": escape}]
        answer = local_http.post(px.url + path, json=body, headers=headers, timeout=30)
        assert answer.status_code == 200, answer.text
    assert server.errors == []
    (trace,) = px.traces()
    assert_nowhere(DEFAULT_KEY, px.printed, trace=trace)
    # the stream, masked, still folds: the key cut across its events is *** in the answer
    assert "***" in (trace / "1-response.json").read_text(encoding="utf-8")


def _responses_tools() -> list[dict[str, object]]:
    from tests.support.proxy_harness import wire_tools

    return wire_tools("responses")


def _wire_tools(fmt: str) -> list[dict[str, object]]:
    from tests.support.proxy_harness import wire_tools

    return wire_tools(fmt)


def _gemini_tools() -> dict[str, object]:
    from tests.support.proxy_harness import wire_tools

    return {"tools": wire_tools("gemini")}
