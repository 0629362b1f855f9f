"""The engine's stop handling: check the stop reason first, never execute what should not run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fccli.core.errors import Interrupted, ProtocolError, ProviderError
from fccli.core.jsonio import encode
from fccli.core.models import ToolChoice
from fccli.providers.base import ProviderInfo, Reply
from fccli.run.engine import RoundTrip, RunOptions
from fccli.run.events import Note, ToolsExecuted
from fccli.tools.registry import ToolSet, tool_from_function
from fccli.trace.writer import TraceWriter
from fccli.wire.registry import get_format

executed: list[str] = []


def get_weather(city: str) -> dict[str, Any]:
    """Weather."""
    executed.append(city)
    return {"city": city, "temp_c": 20}


def call(call_id: str, arguments: str, name: str = "get_weather") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def reply(
    finish: str, content: str | None = None, calls: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, "reasoning_content": "r"}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": "x",
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }


class Scripted:
    """A provider that answers from a script and remembers what it was sent."""

    info = ProviderInfo("scripted", "deepseek", "m", None, None)

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.sent: list[dict[str, Any]] = []

    def send(self, body: bytes, *, step: int) -> Reply:
        self.sent.append(json.loads(bytes(body)))
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return Reply(answer if isinstance(answer, bytes) else encode(answer))


@pytest.fixture(autouse=True)
def _reset() -> None:
    executed.clear()


def run(tmp_path: Path, provider: Scripted, max_steps: int = 8, events: list[Any] | None = None):
    trace = TraceWriter(tmp_path, {"provider": "scripted"})
    engine = RoundTrip(
        provider,
        get_format("deepseek"),
        ToolSet("t", [tool_from_function(get_weather)]),
        trace,
        (events.append if events is not None else lambda e: None),
    )
    return engine.run(RunOptions(question="q", model="m", max_steps=max_steps)), trace


def manifest(tmp_path: Path) -> dict[str, Any]:
    return json.loads((tmp_path / "manifest.json").read_text())


def test_a_tool_stop_is_executed_and_all_results_go_back_in_one_turn(tmp_path: Path) -> None:
    provider = Scripted(
        reply("tool_calls", "checking", [call("c1", '{"city":"A"}'), call("c2", '{"city":"B"}')]),
        reply("stop", "done"),
    )
    result, _ = run(tmp_path, provider)
    assert result.status == "ok" and result.final_answer == "done"
    # both executed; they run at once, so in either order (the results' order is by id, below)
    assert sorted(executed) == ["A", "B"]
    second = provider.sent[1]["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "tool", "tool"]
    assert second[1]["tool_calls"] == [call("c1", '{"city":"A"}'), call("c2", '{"city":"B"}')]
    assert second[1]["reasoning_content"] == "r"  # carried back unchanged
    assert [m["tool_call_id"] for m in second[2:]] == ["c1", "c2"]
    internal = json.loads((tmp_path / "2-request.json").read_text())["messages"]
    assert len(internal) == 3
    assert [b["tool_use_id"] for b in internal[2]["content"]] == ["c1", "c2"]


def test_every_step_is_written_in_both_formats(tmp_path: Path) -> None:
    run(
        tmp_path,
        Scripted(reply("tool_calls", None, [call("c1", '{"city":"A"}')]), reply("stop", "ok")),
    )
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [
        "1-request.deepseek.json",
        "1-request.json",
        "1-response.deepseek.json",
        "1-response.json",
        "2-request.deepseek.json",
        "2-request.json",
        "2-response.deepseek.json",
        "2-response.json",
        "manifest.json",
    ]
    m = manifest(tmp_path)
    assert m["status"] == "ok"
    assert [s["stop_reason"] for s in m["steps"]] == ["tool_use", "end_turn"]
    assert m["steps"][0]["tool_runs"][0]["arguments"] == {"city": "A"}


def test_the_wire_file_is_exactly_what_was_sent(tmp_path: Path) -> None:
    provider = Scripted(reply("stop", "ok"))
    run(tmp_path, provider)
    assert json.loads((tmp_path / "1-request.deepseek.json").read_bytes()) == provider.sent[0]


def test_an_end_turn_holding_calls_is_not_executed(tmp_path: Path) -> None:
    events: list[Any] = []
    result, _ = run(
        tmp_path,
        Scripted(reply("stop", "it is sunny", [call("c1", '{"city":"A"}')])),
        events=events,
    )
    assert executed == []
    assert result.status == "ok"
    assert any(isinstance(e, Note) for e in events)
    assert "did not execute" in manifest(tmp_path)["notes"][0]


def test_a_tool_stop_without_calls_is_a_protocol_error(tmp_path: Path) -> None:
    with pytest.raises(ProtocolError, match="no tool call"):
        run(tmp_path, Scripted(reply("tool_calls", "hm")))
    assert manifest(tmp_path)["status"] == "error"


def test_a_cut_off_answer_never_executes_its_calls(tmp_path: Path) -> None:
    with pytest.raises(ProtocolError, match=r"max_tokens.*NOT executed"):
        run(tmp_path, Scripted(reply("length", None, [call("c1", '{"city": "A')])))
    assert executed == []
    m = manifest(tmp_path)
    assert m["status"] == "error" and m["error"]["step"] == 1


def test_an_unknown_stop_reason_stops_the_run(tmp_path: Path) -> None:
    with pytest.raises(ProtocolError, match="unknown stop reason 'paused'"):
        run(tmp_path, Scripted(reply("paused", "x")))


def test_bad_arguments_and_unknown_tools_come_back_as_error_results(tmp_path: Path) -> None:
    events: list[Any] = []
    provider = Scripted(
        reply("tool_calls", None, [call("c1", '{"city": "A'), call("c2", "{}", name="nope")]),
        reply("stop", "sorry"),
    )
    result, _ = run(tmp_path, provider, events=events)
    assert result.status == "ok"
    assert executed == []
    tool_messages = [m for m in provider.sent[1]["messages"] if m["role"] == "tool"]
    assert all(m["content"].startswith("[tool error] ") for m in tool_messages)
    runs = next(e for e in events if isinstance(e, ToolsExecuted)).runs
    assert [r.error_kind for r in runs] == ["invalid_json", "unknown_tool"]
    assert manifest(tmp_path)["steps"][0]["tool_runs"][0]["raw_arguments"] == '{"city": "A'
    # the history sent back holds a JSON object, never the broken text
    assert provider.sent[1]["messages"][1]["tool_calls"][0]["function"]["arguments"] == "{}"


def test_max_steps_ends_the_loop(tmp_path: Path) -> None:
    provider = Scripted(
        *[reply("tool_calls", None, [call(f"c{i}", '{"city":"A"}')]) for i in range(3)]
    )
    result, _ = run(tmp_path, provider, max_steps=2)
    assert result.status == "max_steps"
    assert len(provider.sent) == 2
    assert manifest(tmp_path)["status"] == "max_steps"


def test_a_provider_error_keeps_its_body_and_says_where(tmp_path: Path) -> None:
    error = ProviderError("HTTP 400", status=400, body='{"error": {"message": "bad"}}')
    with pytest.raises(ProviderError):
        run(tmp_path, Scripted(reply("tool_calls", None, [call("c1", '{"city":"A"}')]), error))
    m = manifest(tmp_path)
    assert m["status"] == "error"
    assert m["error"] == {
        "kind": "ProviderError",
        "message": "HTTP 400",
        "step": 2,
        "http_status": 400,
    }
    assert (
        json.loads((tmp_path / "2-response.deepseek.json").read_text())["error"]["message"] == "bad"
    )
    assert (tmp_path / "1-response.json").exists()


def test_an_answer_that_is_not_json_is_kept_raw(tmp_path: Path) -> None:
    with pytest.raises(ProtocolError, match="cannot be read"):
        run(tmp_path, Scripted(b"<html>bad gateway</html>"))
    assert (tmp_path / "1-response.deepseek.json").read_bytes() == b"<html>bad gateway</html>"


def test_ctrl_c_leaves_an_interrupted_trace(tmp_path: Path) -> None:
    with pytest.raises(Interrupted):
        run(
            tmp_path,
            Scripted(reply("tool_calls", None, [call("c1", '{"city":"A"}')]), KeyboardInterrupt()),
        )
    m = manifest(tmp_path)
    assert m["status"] == "interrupted"
    assert len(m["steps"]) == 1


def test_an_unexpected_failure_still_closes_the_trace(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError):
        run(tmp_path, Scripted(RuntimeError("bug")))
    m = manifest(tmp_path)
    assert m["status"] == "error"
    assert m["error"]["kind"] == "RuntimeError" and m["error"]["message"] == "bug"


def test_every_answered_step_is_on_record_even_when_the_run_fails(tmp_path: Path) -> None:
    with pytest.raises(ProtocolError):
        run(tmp_path, Scripted(reply("tool_calls", "hm")))
    assert [s["stop_reason"] for s in manifest(tmp_path)["steps"]] == ["tool_use"]
    assert manifest(tmp_path)["steps"][0]["wire_stop_reason"] == "tool_calls"


def test_two_calls_with_one_id_stop_the_run_as_the_providers_fault(tmp_path: Path) -> None:
    # A server that gives two calls the same id breaks the protocol: their results could not be
    # told apart (and the next history, two results for one id, would be refused). fc stops at
    # once, exit 3 as for any protocol break, and runs nothing (issue #13, item 13).
    provider = Scripted(
        reply("tool_calls", None, [call("dup", '{"city":"A"}'), call("dup", '{"city":"B"}')]),
        reply("stop", "never asked"),
    )
    with pytest.raises(ProtocolError) as caught:
        run(tmp_path, provider)
    assert caught.value.exit_code == 3
    assert "two tool calls with one id 'dup'" in str(caught.value)
    assert len(provider.sent) == 1
    assert not (tmp_path / "2-request.deepseek.json").exists()
    assert manifest(tmp_path)["status"] == "error"
    assert manifest(tmp_path)["steps"][0]["tool_runs"] == []


def test_fcs_own_requests_pass_its_own_check(tmp_path: Path) -> None:
    provider = Scripted(
        reply("tool_calls", None, [call("c1", '{"city"'), call("c2", '{"city":"B"}')]),
        reply("stop", "done"),
    )
    result, _ = run(tmp_path, provider)
    assert result.status == "ok" and len(provider.sent) == 2


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        (ToolChoice(type="required"), ["required", "auto"]),
        (
            ToolChoice(type="tool", name="get_weather"),
            [{"type": "function", "function": {"name": "get_weather"}}, "auto"],
        ),
        (ToolChoice(type="none"), ["none", "none"]),
        (ToolChoice(type="auto"), ["auto", "auto"]),
    ],
)
def test_a_forced_tool_choice_holds_for_the_first_request_only(
    tmp_path: Path, choice, wire
) -> None:
    provider = Scripted(
        reply("tool_calls", None, [call("c1", '{"city":"A"}')]), reply("stop", "done")
    )
    trace = TraceWriter(tmp_path, {"provider": "scripted"})
    events: list[Any] = []
    engine = RoundTrip(
        provider,
        get_format("openai"),
        ToolSet("t", [tool_from_function(get_weather)]),
        trace,
        events.append,
    )
    result = engine.run(RunOptions(question="q", model="m", tool_choice=choice))
    assert result.status == "ok"
    assert [body["tool_choice"] for body in provider.sent] == wire
    forced = choice.type in ("required", "tool")
    assert any(isinstance(e, Note) and "from step 2" in e.text for e in events) == forced


def test_an_answer_that_cannot_be_read_still_leaves_its_attempts_on_record(tmp_path: Path) -> None:
    attempts = [{"attempt": 1, "status": 503}, {"attempt": 2, "status": 200}]

    class Html(Scripted):
        def send(self, body: bytes, *, step: int) -> Reply:
            return Reply(b"<html>proxy page</html>", attempts)

    with pytest.raises(ProtocolError):
        run(tmp_path, Html())
    (step,) = manifest(tmp_path)["steps"]
    assert step["attempts"] == attempts and step["stop_reason"] is None
    assert (tmp_path / "1-response.deepseek.json").read_bytes() == b"<html>proxy page</html>"
