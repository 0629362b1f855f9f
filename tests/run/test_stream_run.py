"""`fc run --stream`: real SSE over real HTTP (the fake provider on 127.0.0.1), and offline.

What must hold whatever the stream looks like: the assembled answer is exactly the answer a
non-streamed call gets (same question, same ids: the fake and the demo hash the request without
its stream switches), the raw bytes are kept as `.sse`, and a stream that ends early exits 3 with
nothing executed and nothing sent after it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.providers.test_providers_http import QUESTION, TWO_CITIES, env_for, interrupt_run, run_fc
from tests.support.fake_provider import FakeProvider

THREE_CITIES = "北京、上海、深圳今天适合跑步吗？"


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def answers(trace: Path) -> list[Any]:
    """Every step's internal response, in order."""
    return [load(p) for p in sorted(trace.glob("*-response.json"))]


def run_both(fc, server: FakeProvider, provider: str, tmp_path: Path, question: str, *args: str):
    plain = run_fc(fc, server, provider, *args, question=question)
    assert plain.returncode == 0, plain.stderr
    (tmp_path / "t").rename(tmp_path / "plain")
    server.cache.clear()  # the streamed run starts from an empty prompt cache too: usage compares
    streamed = run_fc(fc, server, provider, "--stream", *args, question=question)
    assert streamed.returncode == 0, streamed.stderr
    return tmp_path / "plain", tmp_path / "t", streamed


# --- offline -----------------------------------------------------------------------------------


def test_demo_stream_assembles_to_the_plain_answer_and_keeps_the_sse(fc, tmp_path: Path) -> None:
    assert fc("run", QUESTION, "-o", "plain").returncode == 0
    result = fc("run", QUESTION, "--stream", "-o", "t")
    assert result.returncode == 0, result.stderr
    trace = tmp_path / "t"
    assert answers(trace) == answers(tmp_path / "plain")
    for step in (1, 2):
        raw = (trace / f"{step}-response.deepseek.sse").read_bytes()
        assert raw.endswith(b"data: [DONE]\n\n")
        # the assembled wire answer is the plain call's, field for field
        assert load(trace / f"{step}-response.deepseek.json") == load(
            tmp_path / "plain" / f"{step}-response.deepseek.json"
        )
    request = load(trace / "1-request.deepseek.json")
    assert request["stream"] is True
    assert request["stream_options"] == {"include_usage": True}
    manifest = load(trace / "manifest.json")
    assert manifest["status"] == "ok"
    assert manifest["options"]["stream"] is True
    assert manifest["steps"][0]["stream"]["bytes"] == len(
        (trace / "1-response.deepseek.sse").read_bytes()
    )
    # the arguments really came in fragments
    assert (trace / "1-response.deepseek.sse").read_bytes().count(b'"arguments":"') > 2
    assert "streamed:" in result.stdout
    # readers take a streamed trace like any other
    assert fc("check", "t").returncode == 0
    assert fc("show", "t").returncode == 0


def test_demo_stream_is_the_same_every_time(fc, tmp_path: Path) -> None:
    for out in ("a", "b"):
        assert fc("run", THREE_CITIES, "--stream", "-o", out).returncode == 0
    names = sorted(p.name for p in (tmp_path / "a").iterdir() if p.name != "manifest.json")
    assert any(name.endswith(".sse") for name in names)
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_stream_with_json_prints_only_json(fc, tmp_path: Path) -> None:
    result = fc("run", QUESTION, "--stream", "--json", "-o", "t")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["status"] == "ok"
    assert summary["steps"][0]["stream"]["pieces"] > 10


# --- over HTTP: the traps of PROTOCOL.md, "Streaming" --------------------------------------------


@pytest.mark.parametrize(
    ("provider", "question", "quirks"),
    [
        ("deepseek", QUESTION, set()),
        ("deepseek", TWO_CITIES, {"keep_alive"}),
        ("deepseek", THREE_CITIES, {"interleave"}),
        ("deepseek", THREE_CITIES, {"empty_id", "interleave"}),
        ("deepseek", TWO_CITIES, {"reuse_index0"}),
        ("deepseek", TWO_CITIES, {"reuse_index0", "empty_id", "keep_alive"}),
        ("openai", TWO_CITIES, {"keep_alive"}),
        ("anthropic", QUESTION, set()),
        ("anthropic", THREE_CITIES, {"keep_alive"}),
    ],
)
def test_streamed_answers_assemble_to_exactly_the_plain_ones(
    fc, fake_provider, tmp_path: Path, provider: str, question: str, quirks: set[str]
) -> None:
    fake_provider.stream_quirks = quirks
    fake_provider.fragment_size = 3
    plain, streamed, _ = run_both(fc, fake_provider, provider, tmp_path, question)
    assert answers(streamed) == answers(plain)
    fmt = provider
    for sse in sorted(streamed.glob(f"*-response.{fmt}.sse")):
        twin = sse.with_suffix(".json").name
        assert load(streamed / twin) == load(plain / twin), twin
    # what went over the wire is what the trace says was sent
    for received in fake_provider.received[-len(answers(streamed)) * 2 :]:
        assert json.loads(received.body).get("stream") in (True, None)


# 8 examples, not the profile's count: each one is two whole `fc run`s over HTTP.
@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    fragment=st.integers(min_value=1, max_value=17),
    text_fragment=st.integers(min_value=1, max_value=23),
)
def test_any_fragmentation_assembles_the_same(
    fc, fake_provider, tmp_path_factory, fragment: int, text_fragment: int
) -> None:
    tmp = tmp_path_factory.mktemp("frag")
    fake_provider.fragment_size = fragment
    fake_provider.text_fragment_size = text_fragment
    fake_provider.stream_quirks = {"interleave", "empty_id"}
    common = ("-p", "deepseek", "--base-url", fake_provider.url)
    env = env_for("deepseek")
    fake_provider.cache.clear()  # each example's two runs start from an empty prompt cache
    plain = fc("run", THREE_CITIES, *common, "-o", "p", cwd=tmp, env=env)
    fake_provider.cache.clear()
    streamed = fc("run", THREE_CITIES, *common, "-o", "s", "--stream", cwd=tmp, env=env)
    assert plain.returncode == 0 and streamed.returncode == 0, streamed.stderr
    assert answers(tmp / "s") == answers(tmp / "p")


# --- streams that end early --------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["deepseek", "anthropic"])
@pytest.mark.parametrize("quirk", ["cut", "cut_clean"])
def test_a_cut_stream_exits_3_executes_nothing_and_sends_nothing_more(
    fc, fake_provider, tmp_path: Path, provider: str, quirk: str
) -> None:
    fake_provider.stream_quirks = {quirk}
    fake_provider.fragment_size = 2
    result = run_fc(fc, fake_provider, provider, "--stream")
    assert result.returncode == 3, result.stderr
    assert "Traceback" not in result.stderr
    trace = tmp_path / "t"
    raw = (trace / f"1-response.{provider}.sse").read_bytes()
    assert raw  # the bytes that came are kept
    assert f"after {len(raw):,} bytes" in result.stderr
    # which call, and the fragment it got to (Anthropic says input, chat says arguments)
    assert re.search(
        r"call \S+ \(get_weather\) has incomplete (arguments|input): '\{", result.stderr
    )
    assert "nothing in it was executed" in result.stderr
    assert len(fake_provider.received) == 1  # no further request
    manifest = load(trace / "manifest.json")
    assert manifest["status"] == "error"
    assert manifest["steps"][0]["tool_runs"] == []
    assert not (trace / "1-response.json").exists()
    assert not (trace / "2-request.json").exists()


def test_a_stream_without_done_after_finish_reason_is_noted(
    fc, fake_provider, tmp_path: Path
) -> None:
    fake_provider.stream_quirks = {"no_done"}
    result = run_fc(fc, fake_provider, "deepseek", "--stream")
    # finish_reason is the real end of the answer (some servers never send [DONE]); fc notes it
    assert result.returncode == 0, result.stderr
    notes = load(tmp_path / "t" / "manifest.json")["notes"]
    assert any("[DONE]" in note for note in notes)


@pytest.mark.parametrize(
    ("provider", "said"),
    [
        ("deepseek", "server_error: The server had an error"),
        ("anthropic", "overloaded_error: Overloaded"),
    ],
)
def test_an_error_event_in_the_stream_is_reported_in_the_providers_words(
    fc, fake_provider, tmp_path: Path, provider: str, said: str
) -> None:
    fake_provider.stream_quirks = {"error_event"}
    result = run_fc(fc, fake_provider, provider, "--stream")
    assert result.returncode == 3, result.stderr
    assert said in result.stderr
    assert "Traceback" not in result.stderr
    trace = tmp_path / "t"
    assert b"error" in (trace / f"1-response.{provider}.sse").read_bytes()
    assert load(trace / "manifest.json")["status"] == "error"
    assert len(fake_provider.received) == 1


def test_an_http_error_before_the_stream_is_an_ordinary_error(
    fc, fake_provider, tmp_path: Path
) -> None:
    fake_provider.script = [{"status": 429, "retry_after": 0}, {"status": 400}]
    result = run_fc(fc, fake_provider, "deepseek", "--stream", "--retries", "1")
    assert result.returncode == 3
    assert "HTTP 400" in result.stderr
    attempts = load(tmp_path / "t" / "manifest.json")["error"]["attempts"]
    assert [a.get("status") for a in attempts] == [429, 400]


def test_ctrl_c_mid_stream_keeps_the_bytes_that_came(fake_provider, tmp_path: Path) -> None:
    fake_provider.stream_pause = 20  # the first half of the stream goes out, then it stalls
    returncode, stderr = interrupt_run(
        fake_provider, tmp_path, "--stream", settle=0.5, ready=fake_provider.stalled.is_set
    )
    assert returncode == 130, stderr
    assert "Traceback" not in stderr
    trace = tmp_path / "t"
    manifest = load(trace / "manifest.json")
    assert manifest["status"] == "interrupted"
    assert "while the answer streamed in" in manifest["error"]["message"]
    raw = (trace / "1-response.deepseek.sse").read_bytes()
    assert raw.startswith(b"data: ") and b"[DONE]" not in raw
    assert not (trace / "1-response.json").exists()


def test_a_json_answer_to_a_stream_request_is_said_to_be_no_stream(
    fc, fake_provider, tmp_path: Path
) -> None:
    fake_provider.stream_quirks = {"ignore_stream"}
    result = run_fc(fc, fake_provider, "deepseek", "--stream")
    assert result.returncode == 3, result.stderr
    assert "step 1: the answer is not an event stream" in result.stderr
    assert "nothing in it was executed" in result.stderr
    assert "Traceback" not in result.stderr
    # what came is kept as it came
    assert (tmp_path / "t" / "1-response.deepseek.sse").read_bytes().startswith(b"{")


def test_a_key_quoted_by_an_error_event_is_masked_everywhere(
    fc, fake_provider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support import fake_provider as fake_module

    said = f"Incorrect API key provided: {fake_provider.key}"
    event = {"error": {"message": said, "type": "invalid_request_error"}}
    monkeypatch.setitem(fake_module._STREAM_ERRORS, "chat", f"data: {json.dumps(event)}\n\n")
    fake_provider.stream_quirks = {"error_event"}
    result = run_fc(fc, fake_provider, "deepseek", "--stream")
    assert result.returncode == 3, result.stderr
    assert "Incorrect API key provided: ***" in result.stderr
    for path in (tmp_path / "t").iterdir():
        assert fake_provider.key.encode() not in path.read_bytes(), path.name
    assert fake_provider.key not in result.stdout + result.stderr


def test_the_demo_cuts_inside_the_first_call_of_several(fc, tmp_path: Path) -> None:
    result = fc("run", TWO_CITIES, "--stream", "--demo-fault", "cut-stream", "-o", "t")
    assert result.returncode == 3
    assert "has incomplete arguments: '{\"cit'" in result.stderr
