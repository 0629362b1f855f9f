"""The OpenAI Responses format (issue 15): its codec both ways, its stream folder, and what
`fc convert` says when a history goes between it and the other formats."""

from __future__ import annotations

from typing import Any

import pytest

from fccli.convert.translate import convert
from fccli.core.errors import ConversionError
from fccli.core.models import (
    Message,
    ProviderBlock,
    Request,
    TextBlock,
    ToolChoice,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)
from fccli.trace.reader import Document
from fccli.wire.registry import FORMATS

RESPONSES = FORMATS["responses"]
REASONING = {
    "type": "reasoning",
    "id": "rs_01",
    "summary": [{"type": "summary_text", "text": "Two cities: two calls."}],
    "encrypted_content": "gAAAAB-opaque",
}
TOOL = ToolSpec(
    name="get_weather",
    description="The weather in a city.",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}},
)


def _history(*, is_error: bool = False) -> Request:
    return Request(
        model="gpt-5-mini",
        system="Answer briefly.",
        messages=[
            Message(role="user", content=[TextBlock(text="北京、上海今天适合跑步吗？")]),
            Message(
                role="assistant",
                content=[
                    ProviderBlock(format="responses", block=REASONING),
                    ToolUseBlock(
                        id="call_a", item_id="fc_a", name="get_weather", input={"city": "北京"}
                    ),
                    ToolUseBlock(
                        id="call_b", item_id="fc_b", name="get_weather", input={"city": "上海"}
                    ),
                ],
            ),
            Message(
                role="user",
                content=[
                    ToolResultBlock(tool_use_id="call_a", content="晴", is_error=is_error),
                    ToolResultBlock(tool_use_id="call_b", content="小雨"),
                ],
            ),
        ],
        tools=[TOOL],
    )


def test_a_history_is_one_flat_list_of_items_paired_by_call_id() -> None:
    body = RESPONSES.to_wire_request(_history())
    assert body["instructions"] == "Answer briefly."
    assert [i.get("type", "message") for i in body["input"]] == [
        "message",
        "reasoning",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
    ]
    # The reasoning item goes back exactly as received, before the calls it led to.
    assert body["input"][1] == REASONING
    call = body["input"][2]
    assert call == {
        "type": "function_call",
        "id": "fc_a",
        "call_id": "call_a",
        "name": "get_weather",
        "arguments": '{"city": "北京"}',
    }
    assert body["input"][4] == {"type": "function_call_output", "call_id": "call_a", "output": "晴"}
    assert body["tools"] == [
        {
            "type": "function",
            "name": "get_weather",
            "description": "The weather in a city.",
            "parameters": TOOL.input_schema,
            "strict": False,
        }
    ]
    # Stateless: nothing kept at OpenAI; a reasoning model's reasoning comes back encrypted.
    assert body["store"] is False
    assert body["include"] == ["reasoning.encrypted_content"]
    assert RESPONSES.from_wire_request(body) == _history()


def test_include_is_asked_of_reasoning_models_only() -> None:
    plain = _history().model_copy(update={"model": "gpt-4.1-mini"})
    assert "include" not in RESPONSES.to_wire_request(plain)
    off = _history().model_copy(update={"thinking": False})
    body = RESPONSES.to_wire_request(off)
    assert "include" not in body and body["reasoning"] == {"effort": "none"}
    assert RESPONSES.from_wire_request(body).thinking is False


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        (ToolChoice(type="auto"), "auto"),
        (ToolChoice(type="none"), "none"),
        (ToolChoice(type="required"), "required"),
        (ToolChoice(type="tool", name="get_weather"), {"type": "function", "name": "get_weather"}),
    ],
)
def test_tool_choice_shapes(choice: ToolChoice, wire: Any) -> None:
    request = _history().model_copy(update={"tool_choice": choice, "parallel_tool_calls": False})
    body = RESPONSES.to_wire_request(request)
    assert body["tool_choice"] == wire and body["parallel_tool_calls"] is False
    assert RESPONSES.from_wire_request(body).tool_choice == choice


def test_allowed_tools_is_read_as_its_mode() -> None:
    body = RESPONSES.to_wire_request(_history())
    body["tool_choice"] = {"type": "allowed_tools", "mode": "required", "tools": []}
    assert RESPONSES.from_wire_request(body).tool_choice == ToolChoice(type="required")


def test_an_error_result_is_marked_in_the_output_and_read_back() -> None:
    body = RESPONSES.to_wire_request(_history(is_error=True))
    assert body["input"][4]["output"] == "[tool error] 晴"
    back = RESPONSES.from_wire_request(body)
    assert back.messages[2].content[0] == ToolResultBlock(
        tool_use_id="call_a", content="晴", is_error=True
    )


def _answer(**extra: Any) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1767225600,
        "status": "completed",
        "model": "gpt-5-mini",
        "output": [
            {**REASONING, "status": "completed"},
            {
                "type": "function_call",
                "id": "fc_a",
                "call_id": "call_a",
                "name": "get_weather",
                "arguments": '{"city": "北京"}',
                "status": "completed",
            },
        ],
        "usage": {
            "input_tokens": 100,
            "input_tokens_details": {"cached_tokens": 64},
            "output_tokens": 30,
            "output_tokens_details": {"reasoning_tokens": 20},
            "total_tokens": 130,
        },
        **extra,
    }


def test_a_response_with_calls_is_tool_use_and_keeps_the_reasoning_item() -> None:
    response = RESPONSES.from_wire_response(_answer())
    assert response.stop_reason == "tool_use"
    assert isinstance(response.content[0], ProviderBlock)
    assert response.content[0].block["encrypted_content"] == "gAAAAB-opaque"
    call = response.tool_uses()[0]
    assert (call.id, call.item_id, call.input) == ("call_a", "fc_a", {"city": "北京"})
    usage = response.usage
    assert usage is not None
    assert (usage.input_tokens, usage.cache_read_tokens, usage.reasoning_tokens) == (100, 64, 20)


def test_incomplete_at_max_output_tokens_is_max_tokens() -> None:
    body = _answer(status="incomplete", incomplete_details={"reason": "max_output_tokens"})
    assert RESPONSES.from_wire_response(body).stop_reason == "max_tokens"
    assert RESPONSES.wire_stop_reason(body) == "incomplete (max_output_tokens)"


def test_a_failed_response_is_a_conversion_error() -> None:
    body = _answer(status="failed", error={"code": "server_error", "message": "boom"})
    with pytest.raises(ConversionError, match="boom"):
        RESPONSES.from_wire_response(body)


def test_detected_from_its_content() -> None:
    from fccli.wire.detect import detect

    assert detect(_answer()).format == "responses"
    assert detect(RESPONSES.to_wire_request(_history())).kind == "request"


# ---- convert: every call, id, argument, result and error flag kept; losses said


def _doc(data: Any, fmt: str, kind: str, internal: Any) -> Document:
    return Document("r.json", data, fmt, kind, "test", internal)


@pytest.mark.parametrize("other", ["openai", "deepseek", "anthropic"])
def test_convert_keeps_calls_ids_arguments_results_and_error_flags(other: str) -> None:
    history = _history(is_error=True)
    body = RESPONSES.to_wire_request(history)
    out = convert(_doc(body, "responses", "request", history), other)
    there = FORMATS[other].from_wire_request(out.output)
    assert [(c.id, c.name, c.input) for m in there.messages for c in m.tool_uses()] == [
        ("call_a", "get_weather", {"city": "北京"}),
        ("call_b", "get_weather", {"city": "上海"}),
    ]
    assert [(r.tool_use_id, r.content, r.is_error) for r in there.messages[2].tool_results()] == [
        ("call_a", "晴", True),
        ("call_b", "小雨", False),
    ]
    # The reasoning item and the fc_ item ids have no place there: said, not dropped in silence.
    assert any("reasoning block dropped" in loss for loss in out.losses)
    assert any("item_id" in loss for loss in out.losses)
    # ... and back: the calls and results as they were.
    back = convert(_doc(out.output, other, "request", there), "responses")
    again = RESPONSES.from_wire_request(back.output)
    assert [m.tool_results() for m in again.messages] == [m.tool_results() for m in there.messages]


def test_convert_to_responses_says_how_is_error_travels() -> None:
    history = _history(is_error=True)
    out = convert(_doc(history.to_json_dict(), "internal", "request", history), "responses")
    assert any("is_error has no field in Responses" in note for note in out.notes)


def test_a_call_cut_at_max_output_tokens_keeps_its_text_and_is_never_whole() -> None:
    answer = _answer(status="incomplete", incomplete_details={"reason": "max_output_tokens"})
    answer["output"][1] = {
        **answer["output"][1],
        "arguments": '{"city": "北',
        "status": "incomplete",
    }
    response = RESPONSES.from_wire_response(answer)
    assert response.stop_reason == "max_tokens"
    (call,) = response.tool_uses()
    assert (call.input, call.raw_arguments) == ({}, '{"city": "北')


@pytest.mark.parametrize(
    ("model", "asked"),
    [("gpt-5-mini", True), ("o4-mini", True), ("gpt-5-chat-latest", False), ("gpt-4.1", False)],
)
def test_encrypted_reasoning_is_asked_of_the_models_that_reason(model: str, asked: bool) -> None:
    body = RESPONSES.to_wire_request(_history().model_copy(update={"model": model}))
    assert ("include" in body) is asked
