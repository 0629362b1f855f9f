"""`fc curl` and `fc send`: a wire-format request file posted as it is. The curl command is run in
bash against the fake provider, as printed; the key's value is in no output."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.commands.test_cli_run import assert_clean_error
from tests.conftest import clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider

SECRET = "sk-recognisable-SECRET-0123456789"
QUESTION = "杭州今天适合跑步吗？"


@pytest.fixture
def step2(fc, tmp_path: Path) -> Path:
    """The demo's second request of the Hangzhou run: a DeepSeek-format body with a tool result,
    its model made DeepSeek's, as in a DeepSeek trace (a demo file's model is swapped on the
    way: tests/providers/test_deepseek.py)."""
    assert fc("run", QUESTION, "-o", "t").returncode == 0
    path = tmp_path / "t/2-request.deepseek.json"
    path.write_bytes(path.read_bytes().replace(b'"fc-demo"', b'"deepseek-flash"', 1))
    return path


def anthropic_body(tmp_path: Path, fc) -> Path:
    out = tmp_path / "body.anthropic.json"
    converted = fc("convert", "t/2-request.json", "--to", "anthropic", "-o", str(out))
    assert converted.returncode == 0, converted.stderr
    return out


def bash(command: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=60,
    )


needs_curl = pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")


# --- fc curl -----------------------------------------------------------------------------------


@needs_curl
def test_curl_runs_as_printed_and_never_shows_the_key(fc, step2: Path, tmp_path: Path) -> None:
    with FakeProvider(key=SECRET) as server:
        env = clean_env(DEEPSEEK_API_KEY=SECRET)
        printed = fc("curl", "t/2-request.deepseek.json", "--base-url", server.url, env=env)
        assert printed.returncode == 0, printed.stderr
        assert SECRET not in printed.stdout + printed.stderr
        command = printed.stdout
        assert '"authorization: Bearer $DEEPSEEK_API_KEY"' in command
        assert "--data-binary @t/2-request.deepseek.json" in command
        assert f"{server.url}/chat/completions" in command
        ran = bash(command, tmp_path, DEEPSEEK_API_KEY=SECRET)
        assert ran.returncode == 0, ran.stderr
        answer = json.loads(ran.stdout)
        assert answer["choices"][0]["finish_reason"] == "stop"
        assert "21" in answer["choices"][0]["message"]["content"]
        (received,) = server.received
        assert received.body == step2.read_bytes()  # the file's bytes, exactly
        assert received.headers["authorization"] == f"Bearer {SECRET}"


@needs_curl
def test_curl_sends_anthropic_headers_as_fc_does(fc, step2: Path, tmp_path: Path) -> None:
    body = anthropic_body(tmp_path, fc)
    with FakeProvider(key=SECRET) as server:
        printed = fc("curl", str(body), "--base-url", server.url)
        assert printed.returncode == 0, printed.stderr
        assert "-H 'anthropic-version: 2023-06-01'" in printed.stdout
        assert '"x-api-key: $ANTHROPIC_API_KEY"' in printed.stdout
        assert "ANTHROPIC_API_KEY is not set" in printed.stderr
        ran = bash(printed.stdout, tmp_path, ANTHROPIC_API_KEY=SECRET)
        assert ran.returncode == 0, ran.stderr
        assert json.loads(ran.stdout)["type"] == "message"
        assert server.received[0].path == "/v1/messages"


@needs_curl
def test_curl_quotes_a_path_with_spaces_and_quotes(fc, step2: Path, tmp_path: Path) -> None:
    odd = tmp_path / "my 'odd' $dir"
    odd.mkdir()
    target = odd / "body.deepseek.json"
    shutil.copy(step2, target)
    with FakeProvider() as server:
        printed = fc("curl", str(target), "--base-url", server.url)
        assert printed.returncode == 0, printed.stderr
        ran = bash(printed.stdout, tmp_path, DEEPSEEK_API_KEY=DEFAULT_KEY)
        assert ran.returncode == 0, ran.stderr
        assert server.received[0].body == target.read_bytes()


def test_curl_for_a_stream_asks_for_events(fc, step2: Path, tmp_path: Path) -> None:
    data = json.loads(step2.read_text(encoding="utf-8"))
    streamed = tmp_path / "s.deepseek.json"
    streamed.write_text(json.dumps({**data, "stream": True}, ensure_ascii=False), encoding="utf-8")
    printed = fc("curl", str(streamed))
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout.startswith("curl -N https://api.deepseek.com/chat/completions")
    assert "-H 'accept: text/event-stream'" in printed.stdout


def test_curl_chooses_the_provider_by_format_and_p_changes_it(fc, step2: Path) -> None:
    ollama = fc("curl", "t/2-request.deepseek.json", "-p", "ollama")
    assert ollama.returncode == 0, ollama.stderr
    assert "http://localhost:11434/v1/chat/completions" in ollama.stdout
    assert "authorization" not in ollama.stdout  # no key
    assert_clean_error(fc("curl", "t/2-request.deepseek.json", "-p", "anthropic"), 2, "convert")
    assert_clean_error(fc("curl", "t/2-request.deepseek.json", "-p", "demo"), 2, "fc send")
    assert_clean_error(fc("curl", "t/2-request.deepseek.json", "-p", "nobody"), 2, "nobody")


def test_curl_and_send_refuse_what_is_not_a_wire_request(fc, step2: Path, tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text('{"model": ', encoding="utf-8")
    for command in ("curl", "send"):
        assert_clean_error(fc(command, "t/2-request.json"), 2, "internal format", "convert")
        assert_clean_error(fc(command, "t/2-response.deepseek.json"), 2, "not a request")
        assert_clean_error(fc(command, "t/manifest.json"), 2, "manifest")
        assert_clean_error(fc(command, "broken.json"), 2, "not valid JSON")
        assert_clean_error(fc(command, "missing.json"), 2, "no such file")
        assert_clean_error(fc(command, "t"), 2, "directory")


# --- fc send -----------------------------------------------------------------------------------


def test_send_prints_the_raw_response(fc, step2: Path, fake_provider: FakeProvider) -> None:
    env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY)
    result = fc("send", "t/2-request.deepseek.json", "--base-url", fake_provider.url, env=env)
    assert result.returncode == 0, result.stderr
    (received,) = fake_provider.received
    assert received.body == step2.read_bytes()
    assert result.stdout.encode() == fake_provider.sent[-1]  # the body as received, unchanged
    assert result.stderr == ""
    assert DEFAULT_KEY not in result.stdout


def test_send_o_saves_the_response_and_says_where(
    fc, step2: Path, tmp_path: Path, fake_provider: FakeProvider
) -> None:
    env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY)
    result = fc(
        "send", "t/2-request.deepseek.json", "--base-url", fake_provider.url, "-o", "r.json",
        env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert "r.json" in result.stderr
    assert (tmp_path / "r.json").read_bytes() == fake_provider.sent[-1]
    assert_clean_error(
        fc("send", "t/2-request.deepseek.json", "-o", "t/2-request.deepseek.json"), 2
    )


def test_send_on_the_demo_is_offline(fc, step2: Path) -> None:
    result = fc("send", "t/2-request.deepseek.json", "-p", "demo")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["choices"][0]["message"]["content"].startswith("杭州现在 21°C")


def test_send_an_http_error_is_exit_3_with_the_provider_s_sentence(
    fc, step2: Path, tmp_path: Path, fake_provider: FakeProvider
) -> None:
    # A history the provider refuses: the tool message without the call before it.
    data = json.loads(step2.read_text(encoding="utf-8"))
    del data["messages"][1]
    broken = tmp_path / "broken.deepseek.json"
    broken.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY)
    result = fc("send", str(broken), "--base-url", fake_provider.url, env=env)
    assert_clean_error(result, 3, "HTTP 400", "must be a response to a preceding message")
    assert "step 1" not in result.stderr
    assert result.stdout == ""
    # the demo model answers the same history with DeepSeek's words too
    offline = fc("send", str(broken), "-p", "demo")
    assert_clean_error(offline, 3, "HTTP 400", "preceding message")


def test_send_never_shows_a_key_the_server_echoes(fc, step2: Path) -> None:
    with FakeProvider(key=DEFAULT_KEY) as server:
        server.echo_key_in_401 = True
        env = clean_env(DEEPSEEK_API_KEY=SECRET)
        result = fc("send", "t/2-request.deepseek.json", "--base-url", server.url, env=env)
    assert_clean_error(result, 3, "HTTP 401", "DEEPSEEK_API_KEY")
    assert SECRET not in result.stdout + result.stderr


def test_send_without_the_key_is_exit_2(fc, step2: Path, fake_provider: FakeProvider) -> None:
    result = fc("send", "t/2-request.deepseek.json", "--base-url", fake_provider.url)
    assert_clean_error(result, 2, "DEEPSEEK_API_KEY")
    assert fake_provider.received == []


# --- in-process --------------------------------------------------------------------------------


def test_the_masker_catches_a_secret_cut_across_pieces_and_events() -> None:
    """Fed five bytes at a time: a key whole in a line that is no JSON; a key cut across two
    events (one field's text in two pieces) of SSE and of NDJSON, masked as `fc run` masks it.
    The event before the key goes out before the stream's end; the key's start does not."""
    from fccli.core.secrets import Secrets
    from fccli.send.post import StreamMasker
    from fccli.wire.registry import FORMATS

    cut = len(SECRET) // 2
    texts = ("ok ", SECRET[:cut], SECRET[cut:])
    masked = ("ok ", "***", "")
    sse = 'data: {{"delta":{{"text":"{}"}}}}\n\n'
    ndjson = '{{"message":{{"content":"{}"}},"done":false}}\n'
    cases = [
        ("openai", f"data: {{'echo': '{SECRET}'}}\n\n", "data: {'echo': '***'}\n\n"),
        ("openai", "".join(map(sse.format, texts)), "".join(map(sse.format, masked))),
        ("ollama-native", "".join(map(ndjson.format, texts)), "".join(map(ndjson.format, masked))),
    ]
    for fmt, body, expected in cases:
        out: list[bytes] = []
        masker = StreamMasker(Secrets([SECRET]), FORMATS[fmt], out.append)
        data = body.encode()
        for i in range(0, len(data) - 3, 5):
            masker.feed(data[i : min(i + 5, len(data) - 3)])
        early = b"".join(out).decode()
        masker.feed(data[-3:])
        masker.close()
        assert b"".join(out).decode() == expected
        assert SECRET[:3] not in early
        if expected.count("\n") > 2:
            assert early.startswith(expected.split("\n")[0]), early


def streamed_copy(step2: Path, tmp_path: Path) -> Path:
    data = json.loads(step2.read_text(encoding="utf-8"))
    out = tmp_path / "s.deepseek.json"
    out.write_text(json.dumps({**data, "stream": True}, ensure_ascii=False), encoding="utf-8")
    return out


def test_send_prints_a_stream_as_it_comes(
    fc, step2: Path, tmp_path: Path, fake_provider: FakeProvider
) -> None:
    body = streamed_copy(step2, tmp_path)
    env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY)
    result = fc("send", str(body), "--base-url", fake_provider.url, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("data: {")
    assert result.stdout.endswith("data: [DONE]\n\n")
    assert fake_provider.received[0].headers["accept"] == "text/event-stream"
    # the demo streams too, offline
    offline = fc("send", str(body), "-p", "demo", "-o", "demo.sse")
    assert offline.returncode == 0, offline.stderr
    assert (tmp_path / "demo.sse").read_text(encoding="utf-8").endswith("data: [DONE]\n\n")


def test_send_a_stream_cut_short_is_exit_3_and_keeps_what_came(
    fc, step2: Path, tmp_path: Path, fake_provider: FakeProvider
) -> None:
    body = streamed_copy(step2, tmp_path)
    fake_provider.stream_quirks = {"cut"}
    env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY)
    result = fc("send", str(body), "--base-url", fake_provider.url, env=env)
    assert_clean_error(result, 3, "cut short")
    assert result.stdout.startswith("data: {") and "[DONE]" not in result.stdout
    saved = fc("send", str(body), "--base-url", fake_provider.url, "-o", "cut.sse", env=env)
    assert saved.returncode == 3
    assert (tmp_path / "cut.sse").read_text(encoding="utf-8").startswith("data: {")


# --- review of issue 6 -------------------------------------------------------------------------


@pytest.mark.parametrize("out", ["no-such-dir/r.json", ".", "t/2-request.deepseek.json/r"])
def test_send_o_that_cannot_be_written_is_refused_before_sending(
    fc, step2: Path, fake_provider: FakeProvider, out: str
) -> None:
    env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY)
    result = fc(
        "send", "t/2-request.deepseek.json", "--base-url", fake_provider.url, "-o", out, env=env
    )
    assert_clean_error(result, 2, "cannot write")
    assert fake_provider.received == []  # nothing sent, nothing billed


def test_send_o_the_request_itself_is_refused(fc, step2: Path, fake_provider: FakeProvider) -> None:
    before = step2.read_bytes()
    env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY)
    for out in ("t/2-request.deepseek.json", "t/../t/2-request.deepseek.json"):
        result = fc(
            "send", "t/2-request.deepseek.json", "--base-url", fake_provider.url, "-o", out,
            env=env,
        )  # fmt: skip
        assert_clean_error(result, 2, "is the request being sent")
    assert fake_provider.received == []
    assert step2.read_bytes() == before


def test_send_across_families_says_an_anthropic_request(fc, step2: Path, tmp_path: Path) -> None:
    body = anthropic_body(tmp_path, fc)
    result = fc("send", str(body), "-p", "openai")
    assert_clean_error(result, 2, "is an anthropic request")


def test_send_masks_a_key_the_stream_carries(fc, step2: Path, tmp_path: Path) -> None:
    # The tool result holds the key; the fake model says it back in its streamed answer.
    data = json.loads(step2.read_text(encoding="utf-8"))
    data["messages"][2]["content"] = json.dumps(
        {"temp_c": 21, "condition": SECRET, "aqi": 38}, ensure_ascii=False
    )
    body = tmp_path / "leak.deepseek.json"
    body.write_text(json.dumps({**data, "stream": True}, ensure_ascii=False), encoding="utf-8")
    with FakeProvider(key=DEFAULT_KEY) as server:  # a key the stream does not carry: shown
        server.text_fragment_size = 10_000  # the answer in one event, the value in one piece
        env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY)
        shown = fc("send", str(body), "--base-url", server.url, env=env)
    assert shown.returncode == 0, shown.stderr
    assert SECRET in shown.stdout
    with FakeProvider(key=SECRET) as server:
        server.text_fragment_size = 10_000
        env = clean_env(DEEPSEEK_API_KEY=SECRET)
        result = fc("send", str(body), "--base-url", server.url, env=env)
        saved = fc("send", str(body), "--base-url", server.url, "-o", "s.sse", env=env)
    assert result.returncode == 0, result.stderr
    assert SECRET not in result.stdout + result.stderr
    assert "***" in result.stdout and result.stdout.endswith("data: [DONE]\n\n")
    assert saved.returncode == 0, saved.stderr
    assert SECRET not in (tmp_path / "s.sse").read_text(encoding="utf-8")
