"""`fc replay` across providers, through the test suite's fake provider on 127.0.0.1: a demo trace
replayed on DeepSeek (and Anthropic), a DeepSeek trace replayed on the demo, and a trace made
against a local server replayed there again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import clean_env
from tests.providers.test_providers_http import KEY_ENV
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider

QUESTION = "杭州今天适合跑步吗？"
HOT = '{"temp_c": 39, "condition": "晴", "aqi": 38}'


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def call_id(trace: Path) -> str:
    (found,) = [
        b["id"] for b in load(trace / "1-response.json")["content"] if b["type"] == "tool_use"
    ]
    return found


def assert_key_nowhere(result: Any, *traces: Path) -> None:
    assert DEFAULT_KEY not in result.stdout + result.stderr
    for trace in traces:
        for path in trace.iterdir():
            assert DEFAULT_KEY.encode() not in path.read_bytes(), path


def replay_demo_trace_on(
    fc, provider: str, server: FakeProvider, tmp_path: Path
) -> tuple[Any, str]:
    """Run the demo's Hangzhou trace, then replay it with the hot result on `provider`."""
    assert fc("run", QUESTION, "-o", "t").returncode == 0
    cid = call_id(tmp_path / "t")
    env = clean_env(**{KEY_ENV[provider]: DEFAULT_KEY})
    args = ["--set", f"{cid}={HOT}", "-p", provider, "--base-url", server.url]
    return fc("replay", "t", *args, env=env), cid


def test_a_demo_trace_replayed_on_deepseek_reaches_it_with_the_edit(
    fc, fake_provider, tmp_path: Path
) -> None:
    result, cid = replay_demo_trace_on(fc, "deepseek", fake_provider, tmp_path)
    assert result.returncode == 0, result.stderr
    new = tmp_path / "t.replay-1"
    # the first request the server saw is the new trace's step 1, byte for byte, edit included
    first = fake_provider.received[0]
    assert first.body == (new / "1-request.deepseek.json").read_bytes()
    assert first.json["model"] == "deepseek-flash"  # deepseek's default, not fc-demo
    (tool,) = [m for m in first.json["messages"] if m["role"] == "tool"]
    assert tool == {"role": "tool", "tool_call_id": cid, "content": HOT}
    manifest = load(new / "manifest.json")
    assert manifest["provider"] == "deepseek" and manifest["base_url"] == fake_provider.url
    assert manifest["replayed_from"]["trace"] == "t"
    assert "39" in manifest["final_answer"]  # the fake quotes the result it was handed
    assert "the trace was made on demo" in result.stdout
    assert "model deepseek-flash: deepseek's default" in result.stdout
    assert_key_nowhere(result, new)


def test_a_deepseek_trace_replayed_on_the_demo_and_back(fc, fake_provider, tmp_path: Path) -> None:
    env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY)
    made = fc(
        "run", QUESTION, "-p", "deepseek", "--base-url", fake_provider.url, "-o", "t", env=env
    )
    assert made.returncode == 0, made.stderr
    cid = call_id(tmp_path / "t")
    sent_before = len(fake_provider.received)

    offline = fc("replay", "t", "-p", "demo", "--set", f"{cid}={HOT}", env=clean_env())
    assert offline.returncode == 0, offline.stderr
    assert len(fake_provider.received) == sent_before  # the demo is offline
    manifest = load(tmp_path / "t.replay-1/manifest.json")
    assert manifest["provider"] == "demo" and manifest["model"] == "fc-demo"
    assert "39°C" in manifest["final_answer"]

    # and back: the demo's replay replayed on DeepSeek, its own base URL given again
    back = fc("replay", "t.replay-1", "-p", "deepseek", "--base-url", fake_provider.url, env=env)
    assert back.returncode == 0, back.stderr
    assert len(fake_provider.received) == sent_before + 1
    tools = [m for m in fake_provider.received[-1].json["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tools] == [HOT]


def test_the_same_provider_is_replayed_at_the_trace_s_base_url(
    fc, fake_provider, tmp_path: Path
) -> None:
    env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY)
    made = fc(
        "run", QUESTION, "-p", "deepseek", "--base-url", fake_provider.url, "-o", "t", env=env
    )
    assert made.returncode == 0, made.stderr
    sent_before = len(fake_provider.received)
    result = fc("replay", "t", "--error", call_id(tmp_path / "t"), env=env)
    assert result.returncode == 0, result.stderr
    assert len(fake_provider.received) == sent_before + 1
    assert f"sent to {fake_provider.url}, the trace's base URL" in result.stdout
    (tool,) = [m for m in fake_provider.received[-1].json["messages"] if m["role"] == "tool"]
    assert tool["content"].startswith("[tool error] ")
    assert_key_nowhere(result, tmp_path / "t", tmp_path / "t.replay-1")


def test_a_missing_key_is_exit_2_before_anything_is_written(fc, fake_provider, tmp_path) -> None:
    assert fc("run", QUESTION, "-o", "t").returncode == 0
    result = fc("replay", "t", "-p", "deepseek", "--base-url", fake_provider.url)
    assert result.returncode == 2, result.stderr
    assert "DEEPSEEK_API_KEY" in result.stderr
    assert not (tmp_path / "t.replay-1").exists()
    assert fake_provider.received == []


def test_a_demo_trace_replayed_on_anthropic_leaves_unsigned_reasoning_behind(
    fc, fake_provider, tmp_path: Path
) -> None:
    result, cid = replay_demo_trace_on(fc, "anthropic", fake_provider, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "thinking block(s) without Anthropic's signature left out" in result.stdout
    body = fake_provider.received[0].json
    assert fake_provider.received[0].path == "/v1/messages"
    blocks = [b for m in body["messages"] for b in m["content"] if isinstance(b, dict)]
    assert not [b for b in blocks if b["type"] == "thinking"]
    (res,) = [b for b in blocks if b["type"] == "tool_result"]
    assert res["tool_use_id"] == cid and res["content"] == HOT
    assert "39" in load(tmp_path / "t.replay-1/manifest.json")["final_answer"]
    assert (tmp_path / "t.replay-1/1-request.anthropic.json").is_file()


def test_a_streamed_trace_is_replayed_streamed_unless_no_stream(
    fc, fake_provider, tmp_path: Path
) -> None:
    env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY)
    made = fc(
        "run", QUESTION, "--stream", "-p", "deepseek", "--base-url", fake_provider.url, "-o", "t",
        env=env,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    cid = call_id(tmp_path / "t")
    streamed = fc("replay", "t", "--set", f"{cid}={HOT}", env=env)
    assert streamed.returncode == 0, streamed.stderr
    new = tmp_path / "t.replay-1"
    assert (new / "1-response.deepseek.sse").is_file()
    assert load(new / "manifest.json")["options"]["stream"] is True
    assert "39" in load(new / "manifest.json")["final_answer"]
    plain = fc("replay", "t", "--set", f"{cid}={HOT}", "--no-stream", env=env)
    assert plain.returncode == 0, plain.stderr
    assert not (tmp_path / "t.replay-2/1-response.deepseek.sse").exists()
    assert fake_provider.received[-1].json.get("stream") is None
