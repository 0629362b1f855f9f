"""The chat-completions wire format (OpenAI, DeepSeek), both directions, and the length cap each
model family takes (OpenAI's reasoning models refuse `max_tokens`).

The rules come from PROTOCOL.md ("The same turn in each format", "DeepSeek specifics") and the
internal format of CLI.md. Each expected wire body below is written from those rules by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fccli.core.errors import ConversionError, UsageError
from fccli.core.models import (
    Block,
    Message,
    Request,
    Response,
    TextBlock,
    ThinkingBlock,
    ToolChoice,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)
from fccli.wire.chat import codec as chat
from fccli.wire.chat.codec import (
    ERROR_MARKER,
    STOP_FROM_CHAT,
    STOP_TO_CHAT,
    dump_arguments,
    from_wire_request,
    from_wire_response,
    to_wire_request,
    to_wire_response,
)
from fccli.wire.chat.dialects import DEEPSEEK as DEEPSEEK_DIALECT
from fccli.wire.chat.dialects import OPENAI, ChatDialect
from fccli.wire.registry import get_format
from fccli.wire.shape import parse_arguments
from tests.conftest import clean_env
from tests.support.builders import (
    WEATHER,
    WEATHER_SCHEMA,
    assistant,
    call,
    call_ids,
    json_objects,
    result,
    tool_specs,
    user,
)
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider

DS = DEEPSEEK_DIALECT
MODEL = "deepseek-v4-flash"

# ---------------------------------------------------------------------------------------------
# helpers: build internal messages the way a reader of CLI.md would write them


def request(*messages: Message, **fields: Any) -> Request:
    return Request(model=MODEL, messages=list(messages), **fields)


def wire_call(call_id: str, arguments: str, name: str = "get_weather") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def wire_response(message: dict[str, Any], finish_reason: str = "stop", **extra: Any) -> Any:
    return {
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", **message},
                "finish_reason": finish_reason,
            }
        ],
        **extra,
    }


def assistant_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body["messages"] if m["role"] == "assistant"]


# ---------------------------------------------------------------------------------------------
# one whole turn, spelled out in both formats


def test_a_whole_deepseek_tool_turn_maps_field_by_field_as_protocol_md_says() -> None:
    internal = request(
        user("杭州和北京今天天气怎么样？"),
        assistant(
            ThinkingBlock(thinking="需要查两个城市。"),
            TextBlock(text="我来查一下。"),
            call("call_00_a", "杭州"),
            call("call_01_b", "北京"),
        ),
        user(
            result("call_00_a", '{"temp_c":21}'),
            result("call_01_b", "unknown city", is_error=True),
            "用摄氏度。",
        ),
        system="You are a weather assistant.",
        tools=[WEATHER],
        tool_choice=ToolChoice(type="auto"),
        thinking=True,
    )
    wire = {
        "model": MODEL,
        "messages": [
            {"role": "system", "content": "You are a weather assistant."},
            {"role": "user", "content": "杭州和北京今天天气怎么样？"},
            {
                "role": "assistant",
                "content": "我来查一下。",
                "reasoning_content": "需要查两个城市。",
                "tool_calls": [
                    wire_call("call_00_a", '{"city":"杭州"}'),
                    wire_call("call_01_b", '{"city":"北京"}'),
                ],
            },
            {"role": "tool", "tool_call_id": "call_00_a", "content": '{"temp_c":21}'},
            {"role": "tool", "tool_call_id": "call_01_b", "content": ERROR_MARKER + "unknown city"},
            {"role": "user", "content": "用摄氏度。"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Current weather for a city.",
                    "parameters": WEATHER_SCHEMA,
                },
            }
        ],
        "tool_choice": "auto",
        "thinking": {"type": "enabled"},
    }
    assert to_wire_request(internal, DS) == wire
    assert from_wire_request(wire, DS) == internal


def test_a_deepseek_tool_call_response_maps_to_thinking_and_tool_use_blocks() -> None:
    body = {
        "id": "8d1f-resp",
        "object": "chat.completion",
        "created": 1767225600,
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "",
                    "reasoning_content": "查杭州。",
                    "tool_calls": [wire_call("call_00_x", '{"city":"杭州"}')],
                },
                "logprobs": None,
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {
            "prompt_tokens": 120,
            "completion_tokens": 45,
            "total_tokens": 165,
            "completion_tokens_details": {"reasoning_tokens": 30},
        },
    }
    assert from_wire_response(body, DS) == Response(
        id="8d1f-resp",
        model=MODEL,
        content=[ThinkingBlock(thinking="查杭州。"), call("call_00_x", "杭州")],
        stop_reason="tool_use",
        usage=Usage(input_tokens=120, output_tokens=45, reasoning_tokens=30),
    )


def test_a_response_goes_to_the_wire_as_one_choice_with_finish_reason_and_usage() -> None:
    response = Response(
        id="r1",
        model=MODEL,
        content=[ThinkingBlock(thinking="查一下。"), call("call_00_x", "杭州")],
        stop_reason="tool_use",
        usage=Usage(input_tokens=10, output_tokens=5),
    )
    assert to_wire_response(response, DS) == {
        "id": "r1",
        "object": "chat.completion",
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "reasoning_content": "查一下。",
                    "tool_calls": [wire_call("call_00_x", '{"city":"杭州"}')],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def test_a_minimal_request_carries_only_model_and_messages() -> None:
    assert to_wire_request(request(user("hi")), OPENAI) == {
        "model": MODEL,
        "messages": [{"role": "user", "content": "hi"}],
    }


# ---------------------------------------------------------------------------------------------
# input object <-> arguments string


def test_dump_arguments_is_compact_json_with_non_ascii_kept() -> None:
    assert dump_arguments({"city": "杭州"}) == '{"city":"杭州"}'
    assert dump_arguments({"a": [1, 2], "b": {"c": None, "d": True}}) == (
        '{"a":[1,2],"b":{"c":null,"d":true}}'
    )


def test_a_call_input_object_travels_as_an_arguments_string() -> None:
    body = to_wire_request(request(user("q"), assistant(call("c1", "杭州"))), OPENAI)
    arguments = body["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert isinstance(arguments, str)
    assert arguments == '{"city":"杭州"}'


def test_an_arguments_string_comes_back_as_the_input_object_whatever_its_spacing() -> None:
    body = wire_response({"content": None, "tool_calls": [wire_call("c1", '{ "city" : "杭州" }')]})
    (block,) = from_wire_response(body).content
    assert block == ToolUseBlock(id="c1", name="get_weather", input={"city": "杭州"})
    assert block.raw_arguments is None


def test_ascii_escaped_arguments_are_read_as_the_same_text() -> None:
    body = wire_response({"tool_calls": [wire_call("c1", '{"city":"\\u676d\\u5dde"}')]})
    assert from_wire_response(body).tool_uses()[0].input == {"city": "杭州"}


def test_parse_arguments_returns_the_object_and_no_raw_text_for_a_json_object() -> None:
    assert parse_arguments('{"city":"杭州","days":3}') == ({"city": "杭州", "days": 3}, None)
    assert parse_arguments("{}") == ({}, None)


@pytest.mark.parametrize(
    "raw",
    [
        '{"city": "杭',  # cut off mid-string, as a stream cut short leaves it
        "[1,2]",  # JSON, but not an object
        "",  # nothing at all
        '"杭州"',
        "null",
        "42",
        "{city: 杭州}",  # not JSON
        '{"city": "杭州"} trailing',
        "[" * 100_000,  # nested past the parser's recursion limit
        '{"n": ' + "1" * 5000 + "}",  # an integer past Python's digit limit
    ],
    ids=[
        "cut-off",
        "array",
        "empty",
        "string",
        "null",
        "number",
        "not-json",
        "trailing",
        "deep",
        "huge-int",
    ],
)
def test_arguments_that_are_not_a_json_object_give_empty_input_and_the_raw_text(raw: str) -> None:
    assert parse_arguments(raw) == ({}, raw)


@pytest.mark.parametrize("raw", ['{"city": "杭', "[1,2]", ""])
def test_a_wire_call_with_bad_arguments_keeps_them_raw_and_does_not_raise(raw: str) -> None:
    body = wire_response({"tool_calls": [wire_call("c1", raw)]}, "tool_calls")
    (block,) = from_wire_response(body).content
    assert block == ToolUseBlock(id="c1", name="get_weather", input={}, raw_arguments=raw)


def test_a_wire_call_without_arguments_reads_as_empty_raw_arguments() -> None:
    body = wire_response({"tool_calls": [{"id": "c1", "function": {"name": "now"}}]})
    (block,) = from_wire_response(body).content
    assert block.input == {}
    assert block.raw_arguments == ""


def test_arguments_sent_as_an_object_instead_of_a_string_are_taken_as_meant() -> None:
    call_ = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}
    (block,) = from_wire_response(wire_response({"tool_calls": [call_]})).content
    assert block == ToolUseBlock(id="c1", name="f", input={"a": 1})


@given(st.text())
def test_parse_arguments_never_raises_and_keeps_raw_exactly_when_it_is_not_an_object(
    text: str,
) -> None:
    value, raw = parse_arguments(text)
    assert isinstance(value, dict)
    if raw is None:
        assert value == json.loads(text)
    else:
        assert (value, raw) == ({}, text)


# ---------------------------------------------------------------------------------------------
# tool results: one internal user message <-> one tool message per result


def test_n_results_in_one_user_message_become_n_tool_messages_in_the_given_order() -> None:
    internal = request(
        user("q"),
        assistant(call("c1", "A"), call("c2", "B"), call("c3", "C")),
        # Deliberately not the call order: the order given is kept, not repaired.
        user(result("c2", "rB"), result("c1", "rA"), result("c3", "rC")),
    )
    messages = to_wire_request(internal, OPENAI)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "tool"]
    assert messages[2:] == [
        {"role": "tool", "tool_call_id": "c2", "content": "rB"},
        {"role": "tool", "tool_call_id": "c1", "content": "rA"},
        {"role": "tool", "tool_call_id": "c3", "content": "rC"},
    ]


def test_consecutive_tool_messages_come_back_as_one_user_message_in_order() -> None:
    wire = {
        "model": MODEL,
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": None, "tool_calls": [wire_call("c1", "{}")]},
            {"role": "tool", "tool_call_id": "c2", "content": "rB"},
            {"role": "tool", "tool_call_id": "c1", "content": "rA"},
        ],
    }
    messages = from_wire_request(wire).messages
    assert len(messages) == 3
    assert messages[2] == user(result("c2", "rB"), result("c1", "rA"))


def test_text_after_the_results_becomes_a_user_message_after_the_tool_messages() -> None:
    internal = request(
        user("q"),
        assistant(call("c1", "A"), call("c2", "B")),
        user(result("c1", "rA"), result("c2", "rB"), "now compare them"),
    )
    messages = to_wire_request(internal, OPENAI)["messages"]
    assert messages[2:] == [
        {"role": "tool", "tool_call_id": "c1", "content": "rA"},
        {"role": "tool", "tool_call_id": "c2", "content": "rB"},
        {"role": "user", "content": "now compare them"},
    ]


def test_a_user_message_after_tool_messages_merges_back_into_the_results_message() -> None:
    internal = request(
        user("q"),
        assistant(call("c1", "A"), call("c2", "B")),
        user(result("c1", "rA"), result("c2", "rB"), "now compare them", "in a table"),
    )
    wire = to_wire_request(internal, OPENAI)
    assert wire["messages"][-1] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "now compare them"},
            {"type": "text", "text": "in a table"},
        ],
    }
    back = from_wire_request(wire)
    assert len(back.messages) == 3
    assert back == internal


def test_text_before_results_is_sent_in_that_order_not_repaired() -> None:
    internal = request(user("q"), assistant(call("c1", "A")), user("too early", result("c1", "r")))
    messages = to_wire_request(internal, OPENAI)["messages"]
    assert messages[2:] == [
        {"role": "user", "content": "too early"},
        {"role": "tool", "tool_call_id": "c1", "content": "r"},
    ]


def test_two_user_text_messages_stay_two_messages() -> None:
    wire = {
        "model": MODEL,
        "messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}],
    }
    assert from_wire_request(wire).messages == [user("a"), user("b")]


def test_several_user_texts_travel_as_text_parts_and_come_back_as_blocks() -> None:
    internal = request(user("first", "second"))
    wire = to_wire_request(internal, OPENAI)
    assert wire["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "first"}, {"type": "text", "text": "second"}],
        }
    ]
    assert from_wire_request(wire) == internal


def test_an_empty_user_message_still_appears_on_the_wire() -> None:
    internal = request(user("q"), assistant("a"), user())
    messages = to_wire_request(internal, OPENAI)["messages"]
    assert messages[-1] == {"role": "user", "content": ""}
    assert from_wire_request(to_wire_request(internal, OPENAI)) == internal


def test_tool_message_content_sent_as_text_parts_is_joined() -> None:
    wire = {
        "model": MODEL,
        "messages": [
            {"role": "assistant", "content": None, "tool_calls": [wire_call("c1", "{}")]},
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": [{"type": "text", "text": "21"}, {"type": "text", "text": "°C"}],
            },
        ],
    }
    assert from_wire_request(wire).messages[1] == user(result("c1", "21°C"))


# ---------------------------------------------------------------------------------------------
# assistant turns: text and calls together, content null when only calls


def test_text_and_calls_travel_in_one_assistant_message() -> None:
    internal = request(user("q"), assistant("Let me check.", call("c1", "杭州")))
    messages = to_wire_request(internal, OPENAI)["messages"]
    assert len(messages) == 2
    assert messages[1] == {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [wire_call("c1", '{"city":"杭州"}')],
    }


def test_content_is_null_when_the_assistant_only_makes_calls() -> None:
    internal = request(user("q"), assistant(call("c1", "A")))
    message = to_wire_request(internal, OPENAI)["messages"][1]
    assert "content" in message
    assert message["content"] is None


def test_an_assistant_turn_without_calls_always_has_string_content() -> None:
    internal = request(user("q"), assistant("hello"), user("q2"), assistant())
    first, second = assistant_messages(to_wire_request(internal, OPENAI))
    assert first == {"role": "assistant", "content": "hello"}
    assert second == {"role": "assistant", "content": ""}


def test_an_assistant_message_with_text_and_calls_comes_back_as_text_then_calls() -> None:
    wire = {
        "model": MODEL,
        "messages": [
            {
                "role": "assistant",
                "content": "Let me check.",
                "tool_calls": [wire_call("c1", '{"city":"A"}'), wire_call("c2", '{"city":"B"}')],
            }
        ],
    }
    assert from_wire_request(wire).messages == [
        assistant("Let me check.", call("c1", "A"), call("c2", "B"))
    ]


def test_null_or_empty_content_beside_calls_adds_no_text_block() -> None:
    for content in (None, ""):
        body = wire_response({"content": content, "tool_calls": [wire_call("c1", '{"city":"A"}')]})
        assert from_wire_response(body).content == [call("c1", "A")]


# ---------------------------------------------------------------------------------------------
# thinking <-> reasoning_content (DeepSeek)


def test_thinking_travels_as_reasoning_content_beside_content_for_deepseek() -> None:
    internal = request(
        user("q"), assistant(ThinkingBlock(thinking="想一想"), "答案", call("c1", "A"))
    )
    message = to_wire_request(internal, DS)["messages"][1]
    assert message["reasoning_content"] == "想一想"
    assert message["content"] == "答案"


def test_reasoning_content_comes_back_as_a_thinking_block_first() -> None:
    body = wire_response({"content": "答案", "reasoning_content": "想一想"})
    assert from_wire_response(body, DS).content == [
        ThinkingBlock(thinking="想一想"),
        TextBlock(text="答案"),
    ]


def test_empty_reasoning_content_does_not_become_a_thinking_block() -> None:
    body = wire_response({"content": "hi", "reasoning_content": ""})
    assert from_wire_response(body, DS).content == [TextBlock(text="hi")]


@pytest.mark.parametrize("thinking", [True, None], ids=["thinking-on", "deepseek-default-on"])
def test_with_thinking_on_every_tool_calling_turn_carries_reasoning_content_even_empty(
    thinking: bool | None,
) -> None:
    internal = request(
        user("q"),
        assistant(call("c1", "A")),
        user(result("c1", "r1")),
        assistant("and B:", call("c2", "B")),
        user(result("c2", "r2")),
        assistant("done"),
        thinking=thinking,
    )
    calling_1, calling_2, answer = assistant_messages(to_wire_request(internal, DS))
    assert calling_1["reasoning_content"] == ""
    assert calling_2["reasoning_content"] == ""
    # The rule is about turns that made calls; a plain answer needs no empty key.
    assert "reasoning_content" not in answer


def test_with_thinking_off_no_empty_reasoning_content_is_added() -> None:
    internal = request(user("q"), assistant(call("c1", "A")), thinking=False)
    (message,) = assistant_messages(to_wire_request(internal, DS))
    assert "reasoning_content" not in message


def test_the_openai_dialect_never_emits_reasoning_content() -> None:
    internal = request(
        user("q"),
        assistant(ThinkingBlock(thinking="hmm"), call("c1", "A")),
        user(result("c1", "r")),
        assistant(call("c2", "B")),
        thinking=True,
    )
    body = to_wire_request(internal, OPENAI)
    assert all("reasoning_content" not in m for m in body["messages"])
    # ... so its thinking is lost on the way back, as the chat module's docstring says.
    assert from_wire_request(body).messages[1] == assistant(call("c1", "A"))


def test_the_openai_dialect_ignores_reasoning_content_in_a_response() -> None:
    body = wire_response({"content": "hi", "reasoning_content": "hmm"})
    assert from_wire_response(body, OPENAI).content == [TextBlock(text="hi")]


@pytest.mark.parametrize(
    ("thinking", "param"),
    [(True, {"type": "enabled"}), (False, {"type": "disabled"})],
)
def test_the_thinking_param_is_sent_when_the_request_sets_thinking(
    thinking: bool, param: dict[str, str]
) -> None:
    body = to_wire_request(request(user("q"), thinking=thinking), DS)
    assert body["thinking"] == param
    assert from_wire_request(body, DS).thinking is thinking


def test_no_thinking_param_when_the_request_leaves_thinking_unset() -> None:
    body = to_wire_request(request(user("q")), DS)
    assert "thinking" not in body
    assert from_wire_request(body, DS).thinking is None


@pytest.mark.parametrize("thinking", [True, False])
def test_no_thinking_param_for_a_dialect_without_one(thinking: bool) -> None:
    body = to_wire_request(request(user("q"), thinking=thinking), OPENAI)
    assert "thinking" not in body


def test_an_unknown_thinking_type_on_the_wire_leaves_thinking_unset() -> None:
    wire = {"model": MODEL, "messages": [], "thinking": {"type": "auto"}}
    assert from_wire_request(wire, DS).thinking is None


# ---------------------------------------------------------------------------------------------
# is_error <-> ERROR_MARKER


def test_an_error_result_is_marked_with_the_error_marker_prefix() -> None:
    internal = request(
        user("q"), assistant(call("c1", "X")), user(result("c1", "unknown city", is_error=True))
    )
    tool = to_wire_request(internal, OPENAI)["messages"][2]
    assert tool == {"role": "tool", "tool_call_id": "c1", "content": ERROR_MARKER + "unknown city"}


def test_a_successful_result_is_sent_unchanged() -> None:
    internal = request(user("q"), assistant(call("c1", "X")), user(result("c1", "21°C")))
    assert to_wire_request(internal, OPENAI)["messages"][2]["content"] == "21°C"


def test_the_error_marker_prefix_comes_back_as_is_error_with_the_prefix_removed() -> None:
    wire = {
        "model": MODEL,
        "messages": [{"role": "tool", "tool_call_id": "c1", "content": ERROR_MARKER + "boom"}],
    }
    assert from_wire_request(wire).messages == [user(result("c1", "boom", is_error=True))]


def test_the_marker_anywhere_but_the_start_is_not_an_error() -> None:
    text = "see " + ERROR_MARKER + "x"
    wire = {"model": MODEL, "messages": [{"role": "tool", "tool_call_id": "c1", "content": text}]}
    assert from_wire_request(wire).messages == [user(result("c1", text))]


# ---------------------------------------------------------------------------------------------
# stop reasons


@pytest.mark.parametrize(
    ("finish_reason", "stop_reason"),
    [
        ("stop", "end_turn"),
        ("length", "max_tokens"),
        ("tool_calls", "tool_use"),
        ("content_filter", "refusal"),
        ("function_call", "tool_use"),  # the pre-2023 single-function API
    ],
)
def test_finish_reason_maps_to_the_internal_stop_reason(
    finish_reason: str, stop_reason: str
) -> None:
    body = wire_response({"content": "x"}, finish_reason)
    assert from_wire_response(body).stop_reason == stop_reason


@pytest.mark.parametrize(
    ("stop_reason", "finish_reason"),
    [
        ("end_turn", "stop"),
        ("max_tokens", "length"),
        ("tool_use", "tool_calls"),
        ("refusal", "content_filter"),
        ("stop_sequence", "stop"),  # chat has no name of its own for it
    ],
)
def test_internal_stop_reason_maps_to_the_finish_reason(
    stop_reason: str, finish_reason: str
) -> None:
    response = Response(content=[TextBlock(text="x")], stop_reason=stop_reason)
    assert to_wire_response(response)["choices"][0]["finish_reason"] == finish_reason


def test_an_unknown_finish_reason_is_kept_as_it_came_both_ways() -> None:
    body = wire_response({"content": "x"}, "insufficient_system_resource")
    response = from_wire_response(body)
    assert response.stop_reason == "insufficient_system_resource"
    assert to_wire_response(response)["choices"][0]["finish_reason"] == (
        "insufficient_system_resource"
    )


# ---------------------------------------------------------------------------------------------
# usage


def test_usage_maps_prompt_completion_and_reasoning_tokens() -> None:
    usage = {
        "prompt_tokens": 120,
        "completion_tokens": 45,
        "total_tokens": 165,
        "completion_tokens_details": {"reasoning_tokens": 30},
        "prompt_cache_hit_tokens": 64,
    }
    assert from_wire_response(wire_response({"content": "x"}, usage=usage)).usage == Usage(
        input_tokens=120, output_tokens=45, reasoning_tokens=30, cache_read_tokens=64
    )


def test_usage_without_details_has_no_reasoning_tokens() -> None:
    usage = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    assert from_wire_response(wire_response({"content": "x"}, usage=usage)).usage == Usage(
        input_tokens=7, output_tokens=3
    )


def test_a_response_without_usage_has_none() -> None:
    assert from_wire_response(wire_response({"content": "x"})).usage is None


def test_usage_goes_to_the_wire_with_its_total_and_reasoning_details() -> None:
    response = Response(
        content=[],
        stop_reason="end_turn",
        usage=Usage(input_tokens=120, output_tokens=45, reasoning_tokens=30),
    )
    assert to_wire_response(response)["usage"] == {
        "prompt_tokens": 120,
        "completion_tokens": 45,
        "total_tokens": 165,
        "completion_tokens_details": {"reasoning_tokens": 30},
    }


def test_a_response_without_usage_id_or_model_sends_none_of_them() -> None:
    body = to_wire_response(Response(content=[TextBlock(text="x")], stop_reason="end_turn"))
    assert "usage" not in body
    assert "id" not in body
    assert "model" not in body


# ---------------------------------------------------------------------------------------------
# tools, tool_choice and the other request fields


def test_a_tool_spec_travels_as_a_function_with_parameters() -> None:
    body = to_wire_request(request(user("q"), tools=[WEATHER]), OPENAI)
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Current weather for a city.",
                "parameters": WEATHER_SCHEMA,
            },
        }
    ]
    assert from_wire_request(body).tools == [WEATHER]


def test_a_wire_tool_without_description_or_parameters_gets_empty_ones() -> None:
    wire = {
        "model": MODEL,
        "messages": [],
        "tools": [{"type": "function", "function": {"name": "now"}}],
    }
    assert from_wire_request(wire).tools == [
        ToolSpec(name="now", description="", input_schema={"type": "object", "properties": {}})
    ]


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        (ToolChoice(type="auto"), "auto"),
        (ToolChoice(type="none"), "none"),
        (ToolChoice(type="required"), "required"),
        (
            ToolChoice(type="tool", name="get_weather"),
            {"type": "function", "function": {"name": "get_weather"}},
        ),
    ],
    ids=["auto", "none", "required", "named"],
)
def test_tool_choice_has_the_chat_shape_both_ways(choice: ToolChoice, wire: Any) -> None:
    body = to_wire_request(request(user("q"), tools=[WEATHER], tool_choice=choice), OPENAI)
    assert body["tool_choice"] == wire
    assert from_wire_request(body).tool_choice == choice


def test_an_unset_tool_choice_is_not_sent() -> None:
    body = to_wire_request(request(user("q"), tools=[WEATHER]), OPENAI)
    assert "tool_choice" not in body
    assert from_wire_request(body).tool_choice is None


def test_an_unknown_tool_choice_is_a_conversion_error_at_its_path() -> None:
    wire = {"model": MODEL, "messages": [], "tool_choice": "any"}
    with pytest.raises(ConversionError) as caught:
        from_wire_request(wire)
    assert caught.value.json_path == "$.tool_choice"


@pytest.mark.parametrize("parallel", [True, False])
def test_parallel_tool_calls_is_sent_when_set(parallel: bool) -> None:
    body = to_wire_request(request(user("q"), parallel_tool_calls=parallel), OPENAI)
    assert body["parallel_tool_calls"] is parallel
    assert from_wire_request(body).parallel_tool_calls is parallel


def test_parallel_tool_calls_unset_is_not_sent() -> None:
    body = to_wire_request(request(user("q")), OPENAI)
    assert "parallel_tool_calls" not in body
    assert from_wire_request(body).parallel_tool_calls is None


def test_max_tokens_is_sent_and_read_back() -> None:
    body = to_wire_request(request(user("q"), max_tokens=512), OPENAI)
    assert body["max_tokens"] == 512
    assert from_wire_request(body).max_tokens == 512


def test_max_completion_tokens_is_read_as_max_tokens() -> None:
    wire = {"model": MODEL, "messages": [], "max_completion_tokens": 256}
    assert from_wire_request(wire).max_tokens == 256


def test_stream_is_sent_when_set() -> None:
    body = to_wire_request(request(user("q"), stream=True), OPENAI)
    assert body["stream"] is True
    assert from_wire_request(body).stream is True


def test_the_system_prompt_is_the_first_message() -> None:
    body = to_wire_request(request(user("q"), system="Be brief."), OPENAI)
    assert body["messages"][0] == {"role": "system", "content": "Be brief."}
    assert from_wire_request(body).system == "Be brief."


def test_no_system_prompt_means_no_system_message() -> None:
    body = to_wire_request(request(user("q")), OPENAI)
    assert [m["role"] for m in body["messages"]] == ["user"]
    assert from_wire_request(body).system is None


def test_a_developer_message_is_read_as_the_system_prompt() -> None:
    wire = {
        "model": MODEL,
        "messages": [
            {"role": "developer", "content": "Be brief."},
            {"role": "user", "content": "q"},
        ],
    }
    back = from_wire_request(wire)
    assert back.system == "Be brief."
    assert back.messages == [user("q")]


# ---------------------------------------------------------------------------------------------
# ids are never rewritten


ODD_IDS = ["call_00_Xy-9", "toolu_01ABC", "0", "fc_123-abc_DEF", "call_00_a"]


def test_call_and_result_ids_go_to_the_wire_unchanged() -> None:
    internal = request(
        user("q"),
        assistant(*[call(i, "A") for i in ODD_IDS]),
        user(*[result(i, "r") for i in ODD_IDS]),
    )
    messages = to_wire_request(internal, OPENAI)["messages"]
    assert [c["id"] for c in messages[1]["tool_calls"]] == ODD_IDS
    assert [m["tool_call_id"] for m in messages[2:]] == ODD_IDS
    assert from_wire_request(to_wire_request(internal, OPENAI)) == internal


def test_a_result_id_that_matches_no_call_is_not_repaired() -> None:
    internal = request(user("q"), assistant(call("c1", "A")), user(result("ghost", "r")))
    assert to_wire_request(internal, OPENAI)["messages"][2]["tool_call_id"] == "ghost"


def test_duplicate_call_ids_are_kept_as_they_came() -> None:
    body = wire_response({"tool_calls": [wire_call("dup", "{}"), wire_call("dup", "{}")]})
    assert [b.id for b in from_wire_response(body).tool_uses()] == ["dup", "dup"]


def test_response_and_call_ids_come_back_unchanged() -> None:
    body = wire_response(
        {"tool_calls": [wire_call("call_00_Xy-9", "{}")]}, "tool_calls", id="chatcmpl-9Zz"
    )
    response = from_wire_response(body)
    assert response.id == "chatcmpl-9Zz"
    assert response.tool_uses()[0].id == "call_00_Xy-9"
    assert to_wire_response(response)["id"] == "chatcmpl-9Zz"


# ---------------------------------------------------------------------------------------------
# what chat cannot hold (the chat module's docstring lists it)


def test_several_text_blocks_in_one_assistant_turn_are_joined() -> None:
    internal = request(user("q"), assistant("one ", "two"))
    back = from_wire_request(to_wire_request(internal, OPENAI))
    assert back.messages[1] == assistant("one two")


def test_a_thinking_signature_is_dropped() -> None:
    internal = request(user("q"), assistant(ThinkingBlock(thinking="t", signature="sig"), "a"))
    back = from_wire_request(to_wire_request(internal, DS), DS)
    assert back.messages[1] == assistant(ThinkingBlock(thinking="t"), "a")


def test_raw_arguments_are_dropped_and_the_input_object_sent() -> None:
    bad = ToolUseBlock(id="c1", name="f", input={}, raw_arguments='{"city": "杭')
    internal = request(user("q"), assistant(bad))
    wire = to_wire_request(internal, OPENAI)
    assert wire["messages"][1]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert from_wire_request(wire).messages[1] == assistant(
        ToolUseBlock(id="c1", name="f", input={})
    )


def test_a_success_whose_text_starts_with_the_marker_comes_back_as_an_error() -> None:
    internal = request(user(result("c1", ERROR_MARKER + "looks bad")))
    back = from_wire_request(to_wire_request(internal, OPENAI))
    assert back.messages[0] == user(result("c1", "looks bad", is_error=True))


def test_stop_sequence_comes_back_as_end_turn() -> None:
    response = Response(content=[TextBlock(text="x")], stop_reason="stop_sequence")
    assert from_wire_response(to_wire_response(response)).stop_reason == "end_turn"


# ---------------------------------------------------------------------------------------------
# content a format cannot express, wire bodies of the wrong shape


def test_a_tool_use_block_in_a_user_message_cannot_be_sent() -> None:
    internal = request(user("q"), user(call("c1", "A")))
    with pytest.raises(ConversionError) as caught:
        to_wire_request(internal, OPENAI)
    assert caught.value.json_path == "$.messages[1].content[0]"


def test_a_tool_result_block_in_an_assistant_message_cannot_be_sent() -> None:
    internal = request(user("q"), assistant("a", result("c1", "r")))
    with pytest.raises(ConversionError) as caught:
        to_wire_request(internal, OPENAI)
    assert caught.value.json_path == "$.messages[1].content[1]"


Q = {"role": "user", "content": "q"}


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"messages": []}, "$.model"),
        ({"model": MODEL, "messages": {"role": "user"}}, "$.messages"),
        ({"model": MODEL}, "$.messages"),
        ({"model": MODEL, "messages": [Q, "hi"]}, "$.messages[1]"),
        (
            {"model": MODEL, "messages": [Q, {"role": "robot", "content": "x"}]},
            "$.messages[1].role",
        ),
        ({"model": MODEL, "messages": [Q, {"content": "x"}]}, "$.messages[1].role"),
        (
            {
                "model": MODEL,
                "messages": [
                    Q,
                    {
                        "role": "assistant",
                        "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}],
                    },
                ],
            },
            "$.messages[1].tool_calls[0].id",
        ),
        (
            {"model": MODEL, "messages": [Q, {"role": "assistant", "tool_calls": [{"id": "c1"}]}]},
            "$.messages[1].tool_calls[0].function",
        ),
        (
            {"model": MODEL, "messages": [Q, {"role": "assistant", "tool_calls": {"id": "c1"}}]},
            "$.messages[1].tool_calls",
        ),
        (
            {"model": MODEL, "messages": [Q, {"role": "tool", "content": "r"}]},
            "$.messages[1].tool_call_id",
        ),
        (
            {"model": MODEL, "messages": [Q, {"role": "user", "content": [{"type": "image_url"}]}]},
            "$.messages[1].content[0]",
        ),
        (
            {"model": MODEL, "messages": [Q, {"role": "user", "content": 42}]},
            "$.messages[1].content",
        ),
        ({"model": MODEL, "messages": [], "tools": [{"type": "function"}]}, "$.tools[0].function"),
    ],
    ids=[
        "missing-model",
        "messages-not-list",
        "missing-messages",
        "message-not-object",
        "unknown-role",
        "missing-role",
        "call-without-id",
        "call-without-function",
        "tool-calls-not-list",
        "tool-message-without-id",
        "image-part",
        "content-number",
        "tool-without-function",
    ],
)
def test_a_malformed_request_body_is_a_conversion_error_naming_the_json_path(
    body: Any, path: str
) -> None:
    with pytest.raises(ConversionError) as caught:
        from_wire_request(body)
    assert caught.value.json_path == path
    assert str(caught.value).startswith(path + ": ")


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"id": "r"}, "$.choices"),
        ({"choices": []}, "$.choices"),
        ({"choices": ["x"]}, "$.choices[0]"),
        ({"choices": [{"finish_reason": "stop"}]}, "$.choices[0].message"),
        ({"choices": [{"message": {"content": "x"}}]}, "$.choices[0].finish_reason"),
        (
            wire_response({"tool_calls": [{"function": {"name": "f"}}]}, "tool_calls"),
            "$.choices[0].message.tool_calls[0].id",
        ),
        (
            wire_response({"tool_calls": [{"id": "c1", "function": {"arguments": "{}"}}]}),
            "$.choices[0].message.tool_calls[0].function.name",
        ),
    ],
    ids=[
        "no-choices",
        "empty-choices",
        "choice-not-object",
        "no-message",
        "no-finish-reason",
        "call-without-id",
        "call-without-name",
    ],
)
def test_a_malformed_response_body_is_a_conversion_error_naming_the_json_path(
    body: Any, path: str
) -> None:
    with pytest.raises(ConversionError) as caught:
        from_wire_response(body)
    assert caught.value.json_path == path
    assert path in str(caught.value)


# ---------------------------------------------------------------------------------------------
# the formats by name


def test_the_deepseek_dialect_is_reasoning_content_with_a_thinking_switch_on_by_default() -> None:
    expected = ChatDialect(
        name="deepseek",
        reasoning_field="reasoning_content",
        thinking_param=True,
        thinking_default=True,
        thinking_tool_choices=("auto", "none"),
        cache_hit_fields=True,
        model_prefixes=("deepseek",),
        json_word_modes=("json_object", "json_schema"),
    )
    assert expected == DEEPSEEK_DIALECT


def test_the_openai_dialect_has_no_reasoning_and_no_thinking_switch() -> None:
    assert OPENAI.name == "openai"
    assert OPENAI.reasoning_field is None
    assert OPENAI.thinking_param is False
    assert OPENAI.thinking_default is False


def test_a_format_translates_with_its_dialect() -> None:
    internal = request(user("q"), assistant(ThinkingBlock(thinking="t"), call("c1", "A")))
    assert get_format("openai").dialect == OPENAI
    fmt = get_format("deepseek")
    assert fmt.dialect == DEEPSEEK_DIALECT
    wire = fmt.to_wire_request(internal)
    assert wire == to_wire_request(internal, DS)
    assert wire["messages"][1]["reasoning_content"] == "t"
    assert fmt.from_wire_request(wire) == internal
    response = Response(
        content=[ThinkingBlock(thinking="t"), TextBlock(text="a")], stop_reason="end_turn"
    )
    assert fmt.from_wire_response(fmt.to_wire_response(response)) == response


def test_an_unknown_format_is_a_usage_error_listing_the_known_ones() -> None:
    with pytest.raises(UsageError) as caught:
        get_format("cohere")
    assert "cohere" in caught.value.message
    assert caught.value.hint is not None
    assert "deepseek" in caught.value.hint
    assert "openai" in caught.value.hint


# ---------------------------------------------------------------------------------------------
# properties: a round trip keeps everything chat can hold

texts = st.text(min_size=1, max_size=24)
tool_contents = st.text(max_size=24).filter(lambda s: not s.startswith(ERROR_MARKER))


@st.composite
def assistant_blocks(draw: st.DrawFn, with_thinking: bool) -> list[Block]:
    """What one chat assistant message can hold: reasoning, one text, calls (in that order)."""
    blocks: list[Block] = []
    if with_thinking and draw(st.booleans()):
        blocks.append(ThinkingBlock(thinking=draw(texts)))
    if draw(st.booleans()):
        blocks.append(TextBlock(text=draw(texts)))
    for _ in range(draw(st.integers(min_value=0, max_value=3))):
        name = draw(st.text(min_size=1, max_size=12))
        blocks.append(ToolUseBlock(id=draw(call_ids), name=name, input=draw(json_objects)))
    return blocks


@st.composite
def conversations(draw: st.DrawFn, with_thinking: bool) -> list[Message]:
    """User text, then rounds of an assistant turn and the user turn answering it."""
    messages = [
        Message(
            role="user",
            content=[TextBlock(text=t) for t in draw(st.lists(texts, min_size=1, max_size=2))],
        )
    ]
    for _ in range(draw(st.integers(min_value=0, max_value=3))):
        turn = Message(role="assistant", content=draw(assistant_blocks(with_thinking)))
        messages.append(turn)
        answer: list[Block] = [
            ToolResultBlock(
                tool_use_id=c.id, content=draw(tool_contents), is_error=draw(st.booleans())
            )
            for c in turn.tool_uses()
        ]
        # After results the user may add words (min 0); without results, at least one.
        min_texts = 0 if answer else 1
        answer += [TextBlock(text=t) for t in draw(st.lists(texts, min_size=min_texts, max_size=2))]
        messages.append(Message(role="user", content=answer))
    if draw(st.booleans()):
        messages.append(Message(role="assistant", content=draw(assistant_blocks(with_thinking))))
    return messages


tool_choices = st.sampled_from(
    [ToolChoice(type="auto"), ToolChoice(type="none"), ToolChoice(type="required")]
) | st.builds(ToolChoice, type=st.just("tool"), name=st.text(min_size=1, max_size=12))


@st.composite
def requests(draw: st.DrawFn, dialect: ChatDialect) -> Request:
    return Request(
        model=draw(texts),
        system=draw(st.none() | texts),
        messages=draw(conversations(dialect.reasoning_field is not None)),
        tools=draw(st.lists(tool_specs, max_size=2)),
        tool_choice=draw(st.none() | tool_choices),
        parallel_tool_calls=draw(st.none() | st.booleans()),
        max_tokens=draw(st.none() | st.integers(min_value=1, max_value=1_000_000)),
        stream=draw(st.none() | st.booleans()),
        thinking=draw(st.sampled_from([True, False, None])) if dialect.thinking_param else None,
    )


KNOWN_REASONS = set(STOP_TO_CHAT) | set(STOP_FROM_CHAT)
stop_reasons = st.sampled_from(["end_turn", "tool_use", "max_tokens", "refusal"]) | st.text(
    min_size=1, max_size=16
).filter(lambda s: s not in KNOWN_REASONS)
counts = st.none() | st.integers(min_value=0, max_value=10**7)


@st.composite
def responses(draw: st.DrawFn, dialect: ChatDialect) -> Response:
    return Response(
        id=draw(st.none() | st.text(max_size=16)),
        model=draw(st.none() | st.text(max_size=16)),
        content=draw(assistant_blocks(dialect.reasoning_field is not None)),
        stop_reason=draw(stop_reasons),
        usage=draw(
            st.none()
            | st.builds(Usage, input_tokens=counts, output_tokens=counts, reasoning_tokens=counts)
        ),
    )


@pytest.mark.parametrize("dialect", [DEEPSEEK_DIALECT, OPENAI], ids=["deepseek", "openai"])
@given(data=st.data())
def test_a_request_survives_the_round_trip_through_json_text(
    dialect: ChatDialect, data: st.DataObject
) -> None:
    internal = data.draw(requests(dialect))
    wire = to_wire_request(internal, dialect)
    # The wire body is plain JSON: it goes through a trace file unchanged.
    sent = json.loads(json.dumps(wire, ensure_ascii=False))
    assert sent == wire
    assert from_wire_request(sent, dialect) == internal


@pytest.mark.parametrize("dialect", [DEEPSEEK_DIALECT, OPENAI], ids=["deepseek", "openai"])
@given(data=st.data())
def test_a_response_survives_the_round_trip_through_json_text(
    dialect: ChatDialect, data: st.DataObject
) -> None:
    response = data.draw(responses(dialect))
    wire = json.loads(json.dumps(to_wire_response(response, dialect), ensure_ascii=False))
    assert from_wire_response(wire, dialect) == response


@given(json_objects)
def test_dumped_arguments_parse_back_to_the_same_object(value: dict[str, Any]) -> None:
    text = dump_arguments(value)
    assert parse_arguments(text) == (value, None)


@given(data=st.data())
def test_with_thinking_on_no_tool_calling_turn_lacks_reasoning_content(
    data: st.DataObject,
) -> None:
    internal = data.draw(requests(DEEPSEEK_DIALECT))
    internal.thinking = data.draw(st.sampled_from([True, None]))
    for message in assistant_messages(to_wire_request(internal, DEEPSEEK_DIALECT)):
        if message.get("tool_calls"):
            assert isinstance(message.get("reasoning_content"), str)


def test_nan_and_infinity_are_not_json_arguments() -> None:
    assert parse_arguments('{"a": NaN}') == ({}, '{"a": NaN}')
    assert parse_arguments('{"a": -Infinity}') == ({}, '{"a": -Infinity}')


@pytest.mark.parametrize(
    ("choice", "thinking", "refused"),
    [
        (ToolChoice(type="required"), None, True),  # thinking on by default
        (ToolChoice(type="tool", name="get_weather"), True, True),
        (ToolChoice(type="auto"), None, False),
        (ToolChoice(type="none"), True, False),
        (ToolChoice(type="required"), False, False),  # thinking off: any choice
        (None, None, False),
    ],
)
def test_deepseek_thinking_mode_accepts_only_auto_or_none(
    choice: ToolChoice | None, thinking: bool | None, refused: bool
) -> None:
    from fccli.wire.chat.codec import tool_choice_problem

    request = Request(model="m", messages=[], tool_choice=choice, thinking=thinking)
    problem = tool_choice_problem(request, DEEPSEEK_DIALECT)
    assert (problem is not None) == refused
    assert tool_choice_problem(request, OPENAI) is None  # OpenAI has no such rule


def test_odd_usage_counts_are_dropped_not_fatal() -> None:
    body = {
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 1.5, "completion_tokens": "abc"},
    }
    assert from_wire_response(body).usage == Usage()


@pytest.mark.parametrize(
    ("function", "path"),
    [
        ({"name": "t", "parameters": [1]}, "$.tools[0].function.parameters"),
        ({"name": "t", "description": 7}, "$.tools[0].function.description"),
    ],
)
def test_a_tool_of_the_wrong_shape_names_its_path(function: dict[str, Any], path: str) -> None:
    body = {"model": "m", "messages": [], "tools": [{"type": "function", "function": function}]}
    with pytest.raises(ConversionError) as err:
        from_wire_request(body)
    assert err.value.json_path == path


def test_no_pydantic_error_escapes_a_translator() -> None:
    from fccli.wire.shape import shape_errors as _shape_errors

    with pytest.raises(ConversionError, match="internal form"), _shape_errors():
        Usage.model_validate({"input_tokens": "many"})


def test_an_openai_refusal_is_kept_as_text_with_the_refusal_stop_reason() -> None:
    from fccli.wire.chat.codec import from_wire_response

    body = {
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "refusal": "I can't help."},
                "finish_reason": "stop",
            }
        ]
    }
    response = from_wire_response(body)
    assert response.stop_reason == "refusal"
    assert response.text() == "I can't help."


@pytest.mark.parametrize(
    ("model", "field"),
    [
        ("o3-mini", "max_completion_tokens"),
        ("o4-mini", "max_completion_tokens"),
        ("gpt-5-mini", "max_completion_tokens"),
        ("gpt-4.1-mini", "max_tokens"),
        ("gpt-4o", "max_tokens"),
    ],
)
def test_the_length_cap_goes_in_the_field_the_model_takes(model: str, field: str) -> None:
    request = Request(
        model=model, messages=[Message(role="user", content=[TextBlock(text="hi")])], max_tokens=99
    )
    body = chat.to_wire_request(request, chat.OPENAI)
    assert body[field] == 99
    assert {"max_tokens", "max_completion_tokens"} & set(body) == {field}
    assert chat.from_wire_request(body, chat.OPENAI).max_tokens == 99


def test_deepseek_keeps_max_tokens() -> None:
    from fccli.wire.chat.dialects import DEEPSEEK as DEEPSEEK_DIALECT

    request = Request(
        model="o1-like",
        messages=[Message(role="user", content=[TextBlock(text="hi")])],
        max_tokens=9,
    )
    assert "max_tokens" in chat.to_wire_request(request, DEEPSEEK_DIALECT)


def test_an_openai_reasoning_model_with_max_tokens_runs(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    result = fc(
        "run",
        "杭州今天适合跑步吗？",
        "-p",
        "openai",
        "-m",
        "o4-mini",
        "--max-tokens",
        "800",
        "--base-url",
        fake_provider.url,
        "-o",
        "t",
        env=clean_env(OPENAI_API_KEY=DEFAULT_KEY),
    )
    assert result.returncode == 0, result.stderr
    sent = json.loads((tmp_path / "t" / "1-request.openai.json").read_text(encoding="utf-8"))
    assert sent["max_completion_tokens"] == 800 and "max_tokens" not in sent
