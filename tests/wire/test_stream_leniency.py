"""Where real servers differ (issue #14, item 5), over real HTTP against the fake provider:
each case is a whole `fc run --stream` as a user runs it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.providers.test_providers_http import TWO_CITIES, load, run_fc
from tests.support.fake_provider import FakeProvider


def test_done_without_a_finish_reason_is_complete_with_a_note(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.stream_quirks = {"no_finish"}
    result = run_fc(fc, fake_provider, "openai", "--stream")
    assert result.returncode == 0, result.stderr
    trace = tmp_path / "t"
    manifest = load(trace / "manifest.json")
    assert manifest["status"] == "ok"
    assert manifest["steps"][0]["stop_reason"] == "tool_use"
    assert (
        "step 1: no finish_reason came before `data: [DONE]`; taken as tool_calls"
        in (manifest["notes"])
    )
    assembled = load(trace / "1-response.openai.json")
    assert assembled["choices"][0]["finish_reason"] == "tool_calls"


def test_null_arguments_stay_null_in_the_wire_file_and_run_as_an_empty_object(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.stream_quirks = {"null_arguments"}
    result = run_fc(fc, fake_provider, "openai", "--stream")
    trace = tmp_path / "t"
    assembled = load(trace / "1-response.openai.json")
    call = assembled["choices"][0]["message"]["tool_calls"][0]
    assert call["function"]["arguments"] is None
    internal = load(trace / "1-response.json")
    assert internal["content"][-1]["input"] == {}
    assert "raw_arguments" not in internal["content"][-1]
    # Run as `{}`: the tool says what is missing, and the model reads that in step 2.
    run = load(trace / "manifest.json")["steps"][0]["tool_runs"][0]
    assert run["error_kind"] == "invalid_arguments", run
    second = json.loads(fake_provider.received[1].body)
    assert second["messages"][1]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert result.returncode == 0, result.stderr


def test_calls_assemble_in_index_order_whatever_order_their_heads_arrive_in(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.stream_quirks = {"heads_reversed"}
    result = run_fc(fc, fake_provider, "openai", "--stream", question=TWO_CITIES)
    assert result.returncode == 0, result.stderr
    assembled = load(tmp_path / "t" / "1-response.openai.json")
    calls = assembled["choices"][0]["message"]["tool_calls"]
    assert [json.loads(c["function"]["arguments"])["city"] for c in calls] == ["北京", "上海"]
    # The same answer, not streamed, has the same calls in the same order.
    fake_provider.stream_quirks = set()
    plain = run_fc(fc, fake_provider, "openai", "--force", question=TWO_CITIES)
    assert plain.returncode == 0, plain.stderr
    answer = load(tmp_path / "t" / "1-response.openai.json")
    assert [c["id"] for c in answer["choices"][0]["message"]["tool_calls"]] == [
        c["id"] for c in calls
    ]


def test_out_of_tokens_inside_a_tools_input_writes_the_answer_then_exits_3(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.stream_quirks = {"max_tokens_in_input"}
    result = run_fc(fc, fake_provider, "anthropic", "--stream")
    assert result.returncode == 3, result.stderr
    assert "incomplete input" in result.stderr
    trace = tmp_path / "t"
    assembled = load(trace / "1-response.anthropic.json")
    assert assembled["stop_reason"] == "max_tokens"
    call = assembled["content"][-1]
    assert call["type"] == "tool_use" and call["input"] == {}
    assert call["partial_json"] and not call["partial_json"].endswith("}")
    internal = load(trace / "1-response.json")
    assert internal["content"][-1]["raw_arguments"] == call["partial_json"]
    manifest = load(trace / "manifest.json")
    assert manifest["status"] == "error"
    assert manifest["steps"][0]["tool_runs"] == []
    assert len(fake_provider.received) == 1
