"""The Anthropic Messages wire format, both directions.

The rules come from PROTOCOL.md ("The same turn in each format"), the internal format of CLI.md
and the losses listed in `fccli/wire/anthropic/codec.py`'s docstring. Each expected wire body below is
written by hand from those rules (anthropic-sdk-python `types/`: message_create_params.py,
tool_choice_*_param.py, thinking_config_*_param.py, tool_result_block_param.py).
"""

from __future__ import annotations

import copy
import json
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fccli.core.errors import ConversionError
from fccli.core.models import (
    Block,
    Message,
    ProviderBlock,
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
from fccli.wire.anthropic import codec as anthropic_module
from fccli.wire.anthropic.codec import (
    DEFAULT_MAX_TOKENS,
    MIN_THINKING_BUDGET,
    THINKING_BUDGET,
    from_wire_request,
    from_wire_response,
    request_problem,
    to_wire_request,
    to_wire_response,
)
from fccli.wire.registry import get_format
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

MODEL = "claude-haiku-4-5"
EXAMPLES = Path(__file__).resolve().parent.parent.parent / "traces" / "examples"

# ---------------------------------------------------------------------------------------------
# helpers


def request(*messages: Message, **fields: Any) -> Request:
    fields.setdefault("max_tokens", 1000)
    return Request(model=MODEL, messages=list(messages), **fields)


def wire_request(*messages: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"model": MODEL, "max_tokens": 1000, "messages": list(messages), **fields}


def wire_response(content: list[dict[str, Any]], stop_reason: str = "end_turn", **extra: Any):
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        **extra,
    }


# ---------------------------------------------------------------------------------------------
# one whole turn, spelled out in both formats


def test_a_whole_tool_turn_maps_block_for_block_as_protocol_md_says() -> None:
    internal = Request(
        model=MODEL,
        system="You are a weather assistant.",
        messages=[
            user("杭州和北京今天天气怎么样？"),
            assistant(
                ThinkingBlock(thinking="需要查两个城市。", signature="sig-abc=="),
                TextBlock(text="我来查一下。"),
                call("toolu_01", "杭州"),
                call("toolu_02", "北京"),
            ),
            user(
                result("toolu_01", '{"temp_c":21}'),
                result("toolu_02", "unknown city", is_error=True),
                "用摄氏度。",
            ),
        ],
        tools=[WEATHER],
        tool_choice=ToolChoice(type="auto"),
        max_tokens=8000,
        thinking=True,
    )
    wire = {
        "model": MODEL,
        "max_tokens": 8000,
        "system": "You are a weather assistant.",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "杭州和北京今天天气怎么样？"}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "需要查两个城市。", "signature": "sig-abc=="},
                    {"type": "text", "text": "我来查一下。"},
                    {
                        "type": "tool_use",
                        "id": "toolu_01",
                        "name": "get_weather",
                        "input": {"city": "杭州"},
                    },
                    {
                        "type": "tool_use",
                        "id": "toolu_02",
                        "name": "get_weather",
                        "input": {"city": "北京"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_01", "content": '{"temp_c":21}'},
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_02",
                        "content": "unknown city",
                        "is_error": True,
                    },
                    {"type": "text", "text": "用摄氏度。"},
                ],
            },
        ],
        "tools": [
            {
                "name": "get_weather",
                "description": "Current weather for a city.",
                "input_schema": WEATHER_SCHEMA,
            }
        ],
        "tool_choice": {"type": "auto"},
        "thinking": {"type": "enabled", "budget_tokens": THINKING_BUDGET},
    }
    assert to_wire_request(internal) == wire
    assert from_wire_request(wire) == internal


def test_a_minimal_request_carries_model_max_tokens_and_messages_only() -> None:
    assert to_wire_request(Request(model=MODEL, messages=[user("hi")])) == {
        "model": MODEL,
        "max_tokens": DEFAULT_MAX_TOKENS,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }


# ---------------------------------------------------------------------------------------------
# blocks, each way


def test_a_text_block_is_the_same_block_both_ways() -> None:
    wire = to_wire_request(request(user("hello")))
    assert wire["messages"][0]["content"] == [{"type": "text", "text": "hello"}]
    assert from_wire_request(wire).messages[0] == user("hello")


def test_string_content_is_the_short_form_of_one_text_block() -> None:
    wire = wire_request(
        {"role": "user", "content": "杭州天气？"}, {"role": "assistant", "content": "晴。"}
    )
    assert from_wire_request(wire).messages == [user("杭州天气？"), assistant("晴。")]


def test_a_thinking_block_keeps_its_signature_both_ways() -> None:
    block = ThinkingBlock(thinking="let me think", signature="EqoBCkgIARABGAIiQ==")
    wire = to_wire_request(request(user("q"), assistant(block, "a")))
    assert wire["messages"][1]["content"][0] == {
        "type": "thinking",
        "thinking": "let me think",
        "signature": "EqoBCkgIARABGAIiQ==",
    }
    assert from_wire_request(wire).messages[1].content[0] == block


def test_a_thinking_block_without_signature_is_sent_without_one_not_with_an_invented_one() -> None:
    wire = to_wire_request(request(user("q"), assistant(ThinkingBlock(thinking="t"))))
    assert wire["messages"][1]["content"] == [{"type": "thinking", "thinking": "t"}]
    assert from_wire_request(wire).messages[1].content == [ThinkingBlock(thinking="t")]


def test_a_tool_use_block_carries_input_as_an_object_not_a_string() -> None:
    wire = to_wire_request(request(user("q"), assistant(call("toolu_9", "杭州"))))
    block = wire["messages"][1]["content"][0]
    assert block == {
        "type": "tool_use",
        "id": "toolu_9",
        "name": "get_weather",
        "input": {"city": "杭州"},
    }
    assert isinstance(block["input"], dict)
    assert from_wire_request(wire).messages[1].content == [call("toolu_9", "杭州")]


def test_is_error_is_sent_only_when_true() -> None:
    wire = to_wire_request(
        request(
            user("q"),
            assistant(call("a", "x"), call("b", "y")),
            user(result("a", "ok"), result("b", "boom", is_error=True)),
        )
    )
    ok, failed = wire["messages"][2]["content"]
    assert ok == {"type": "tool_result", "tool_use_id": "a", "content": "ok"}
    assert "is_error" not in ok
    assert failed == {
        "type": "tool_result",
        "tool_use_id": "b",
        "content": "boom",
        "is_error": True,
    }


def test_all_results_of_a_turn_stay_in_one_user_message_in_the_given_order() -> None:
    internal = request(
        user("q"),
        assistant(call("c1", "A"), call("c2", "B")),
        # Not the call order: the order given is kept, not repaired.
        user(result("c2", "rB"), result("c1", "rA")),
    )
    messages = to_wire_request(internal)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert [b["tool_use_id"] for b in messages[2]["content"]] == ["c2", "c1"]
    assert from_wire_request(to_wire_request(internal)) == internal


@pytest.mark.parametrize(
    ("wire_result", "internal"),
    [
        (
            {"type": "tool_result", "tool_use_id": "a", "content": "ok", "is_error": False},
            result("a", "ok"),
        ),
        ({"type": "tool_result", "tool_use_id": "a", "content": "ok"}, result("a", "ok")),
        ({"type": "tool_result", "tool_use_id": "a"}, result("a", "")),
        (
            {
                "type": "tool_result",
                "tool_use_id": "a",
                "content": [{"type": "text", "text": "12"}, {"type": "text", "text": "°C"}],
                "is_error": True,
            },
            result("a", "12°C", is_error=True),
        ),
    ],
    ids=["is_error-false", "no-is_error", "no-content", "text-block-array"],
)
def test_a_wire_tool_result_reads_as_one_text_result(
    wire_result: dict[str, Any], internal: ToolResultBlock
) -> None:
    body = wire_request({"role": "user", "content": [wire_result]})
    assert from_wire_request(body).messages[0].content == [internal]


@pytest.mark.parametrize(
    ("message", "path"),
    [
        (user(ThinkingBlock(thinking="t")), "$.messages[0].content[0]"),
        (user("q", call("c1", "A")), "$.messages[0].content[1]"),
        (assistant("a", result("c1", "r")), "$.messages[0].content[1]"),
    ],
    ids=["thinking-in-user", "tool_use-in-user", "tool_result-in-assistant"],
)
def test_a_block_in_the_wrong_role_cannot_be_sent_and_the_error_names_its_path(
    message: Message, path: str
) -> None:
    with pytest.raises(ConversionError) as caught:
        to_wire_request(request(message))
    assert caught.value.json_path == path


@pytest.mark.parametrize(
    "block",
    [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}},
        {"text": "no type"},
    ],
    ids=["image", "document", "no-type"],
)
def test_a_block_fc_cannot_hold_is_a_conversion_error_not_a_silent_drop(
    block: dict[str, Any],
) -> None:
    # In the user's turn: fc's format has no place for it. (In an assistant turn, a typed block
    # fc has no equivalent for is kept verbatim: tests/wire/test_provider_blocks.py.)
    body = wire_request({"role": "user", "content": [{**block}]})
    with pytest.raises(ConversionError) as caught:
        from_wire_request(body)
    assert caught.value.json_path == "$.messages[0].content[0]"
    assert repr(block.get("type")) in caught.value.problem


def test_a_block_without_a_type_in_an_answer_is_a_conversion_error() -> None:
    with pytest.raises(ConversionError) as caught:
        from_wire_response(wire_response([{"type": "text", "text": "a"}, {"text": "no type"}]))
    assert caught.value.json_path == "$.content[1]"


def test_an_image_inside_a_tool_result_is_refused_too() -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "x"}}
    body = wire_request(
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "a", "content": [image]}],
        }
    )
    with pytest.raises(ConversionError):
        from_wire_request(body)


def test_an_image_inside_a_tool_result_is_reported_at_the_results_content_path() -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "x"}}
    body = wire_request(
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "a", "content": [image]}],
        }
    )
    with pytest.raises(ConversionError) as caught:
        from_wire_request(body)
    assert caught.value.json_path == "$.messages[0].content[0].content[0]"


def test_raw_arguments_are_a_listed_loss_the_input_object_travels_alone() -> None:
    broken = ToolUseBlock(id="c1", name="f", input={}, raw_arguments='{"city": "杭')
    wire = to_wire_request(request(user("q"), assistant(broken)))
    assert wire["messages"][1]["content"][0] == {
        "type": "tool_use",
        "id": "c1",
        "name": "f",
        "input": {},
    }
    back = from_wire_request(wire).messages[1].content[0]
    assert isinstance(back, ToolUseBlock)
    assert back.raw_arguments is None


# ---------------------------------------------------------------------------------------------
# system, max_tokens, tools, stream


def test_the_system_prompt_is_a_top_level_string_not_a_message() -> None:
    wire = to_wire_request(request(user("q"), system="Be brief."))
    assert wire["system"] == "Be brief."
    assert [m["role"] for m in wire["messages"]] == ["user"]
    assert from_wire_request(wire).system == "Be brief."


def test_no_system_prompt_means_no_system_key() -> None:
    assert "system" not in to_wire_request(request(user("q")))
    assert from_wire_request(wire_request({"role": "user", "content": "q"})).system is None


def test_a_system_array_of_text_blocks_is_read_as_one_prompt() -> None:
    body = wire_request(
        {"role": "user", "content": "q"},
        system=[
            {"type": "text", "text": "Be brief."},
            {"type": "text", "text": "Answer in Chinese.", "cache_control": {"type": "ephemeral"}},
        ],
    )
    assert from_wire_request(body).system == "Be brief.\n\nAnswer in Chinese."


@pytest.mark.parametrize(
    ("system", "path"),
    [
        (42, "$.system"),
        ({"type": "text", "text": "x"}, "$.system"),
        (["just a string"], "$.system[0]"),
        ([{"type": "image", "source": {}}], "$.system[0]"),
        ([{"type": "text", "text": 1}], "$.system[0]"),
    ],
    ids=["number", "object", "array-of-strings", "image", "text-not-string"],
)
def test_a_system_of_another_shape_is_a_conversion_error_at_its_path(
    system: Any, path: str
) -> None:
    with pytest.raises(ConversionError) as caught:
        from_wire_request(wire_request({"role": "user", "content": "q"}, system=system))
    assert caught.value.json_path == path


def test_an_unset_max_tokens_is_sent_as_the_default_and_a_set_one_as_it_is() -> None:
    assert to_wire_request(Request(model=MODEL, messages=[]))["max_tokens"] == DEFAULT_MAX_TOKENS
    assert to_wire_request(request(max_tokens=321))["max_tokens"] == 321


def test_a_wire_request_without_max_tokens_reads_as_unset() -> None:
    body = {"model": MODEL, "messages": [{"role": "user", "content": "q"}]}
    assert from_wire_request(body).max_tokens is None


def test_a_tool_spec_is_name_description_input_schema_and_strict_only_when_set() -> None:
    wire = to_wire_request(request(tools=[WEATHER, WEATHER.model_copy(update={"strict": True})]))
    assert wire["tools"] == [
        {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "input_schema": WEATHER_SCHEMA,
        },
        {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "input_schema": WEATHER_SCHEMA,
            "strict": True,
        },
    ]
    assert from_wire_request(wire).tools[1].strict is True


def test_a_wire_tool_without_description_gets_an_empty_one() -> None:
    body = wire_request(tools=[{"name": "now", "input_schema": {"type": "object"}}])
    assert from_wire_request(body).tools == [
        ToolSpec(name="now", description="", input_schema={"type": "object"})
    ]


@pytest.mark.parametrize("stream", [True, False])
def test_stream_is_sent_when_set_and_read_back(stream: bool) -> None:
    wire = to_wire_request(request(stream=stream))
    assert wire["stream"] is stream
    assert from_wire_request(wire).stream is stream


# ---------------------------------------------------------------------------------------------
# tool_choice and one call at a time


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        (ToolChoice(type="auto"), {"type": "auto"}),
        (ToolChoice(type="none"), {"type": "none"}),
        (ToolChoice(type="required"), {"type": "any"}),
        (ToolChoice(type="tool", name="get_weather"), {"type": "tool", "name": "get_weather"}),
    ],
    ids=["auto", "none", "required-is-any", "tool"],
)
def test_tool_choice_has_the_anthropic_shape_both_ways(
    choice: ToolChoice, wire: dict[str, Any]
) -> None:
    body = to_wire_request(request(tool_choice=choice))
    assert body["tool_choice"] == wire
    back = from_wire_request(body)
    assert back.tool_choice == choice
    assert back.parallel_tool_calls is None


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        (ToolChoice(type="auto"), {"type": "auto", "disable_parallel_tool_use": True}),
        (ToolChoice(type="required"), {"type": "any", "disable_parallel_tool_use": True}),
        (
            ToolChoice(type="tool", name="f"),
            {"type": "tool", "name": "f", "disable_parallel_tool_use": True},
        ),
    ],
    ids=["auto", "any", "tool"],
)
def test_parallel_off_is_a_flag_inside_tool_choice_not_a_request_field(
    choice: ToolChoice, wire: dict[str, Any]
) -> None:
    body = to_wire_request(request(tool_choice=choice, parallel_tool_calls=False))
    assert body["tool_choice"] == wire
    assert "parallel_tool_calls" not in body
    back = from_wire_request(body)
    assert (back.tool_choice, back.parallel_tool_calls) == (choice, False)


def test_parallel_off_without_a_tool_choice_is_sent_as_auto_with_the_flag() -> None:
    body = to_wire_request(request(parallel_tool_calls=False))
    assert body["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}
    # a listed loss: the unset choice comes back as auto
    back = from_wire_request(body)
    assert (back.tool_choice, back.parallel_tool_calls) == (ToolChoice(type="auto"), False)


def test_tool_choice_none_with_parallel_off_sends_no_flag() -> None:
    # ToolChoiceNoneParam has no disable_parallel_tool_use field; a listed loss.
    body = to_wire_request(request(tool_choice=ToolChoice(type="none"), parallel_tool_calls=False))
    assert body["tool_choice"] == {"type": "none"}
    assert from_wire_request(body).parallel_tool_calls is None


def test_no_tool_choice_and_parallel_unset_sends_no_tool_choice() -> None:
    assert "tool_choice" not in to_wire_request(request(user("q")))
    back = from_wire_request(wire_request({"role": "user", "content": "q"}))
    assert (back.tool_choice, back.parallel_tool_calls) == (None, None)


def test_disable_parallel_tool_use_false_reads_as_parallel_unset() -> None:
    body = wire_request(tool_choice={"type": "auto", "disable_parallel_tool_use": False})
    back = from_wire_request(body)
    assert (back.tool_choice, back.parallel_tool_calls) == (ToolChoice(type="auto"), None)


def test_parallel_on_is_anthropics_default_and_comes_back_unset_a_listed_loss() -> None:
    internal = request(tool_choice=ToolChoice(type="auto"), parallel_tool_calls=True)
    wire = to_wire_request(internal)
    assert wire["tool_choice"] == {"type": "auto"}
    back = from_wire_request(wire)
    assert back.parallel_tool_calls is None
    assert back == internal.model_copy(update={"parallel_tool_calls": None})
    assert "parallel_tool_calls: true" in anthropic_module.__doc__


@pytest.mark.parametrize(
    "choice",
    ["auto", None, {"type": "tool"}, {"type": "tool", "name": 3}, {"type": "sometimes"}, {}],
    ids=["string", "null", "tool-without-name", "name-not-string", "unknown-type", "empty"],
)
def test_a_tool_choice_of_another_shape_is_a_conversion_error_at_its_path(choice: Any) -> None:
    with pytest.raises(ConversionError) as caught:
        from_wire_request(wire_request(tool_choice=choice))
    assert caught.value.json_path == "$.tool_choice"


# ---------------------------------------------------------------------------------------------
# thinking


def test_thinking_on_is_enabled_with_the_budget_and_default_max_tokens() -> None:
    body = to_wire_request(Request(model=MODEL, messages=[], thinking=True))
    assert body["max_tokens"] == DEFAULT_MAX_TOKENS
    assert body["thinking"] == {"type": "enabled", "budget_tokens": THINKING_BUDGET}
    assert MIN_THINKING_BUDGET <= THINKING_BUDGET < DEFAULT_MAX_TOKENS


@pytest.mark.parametrize(
    ("max_tokens", "budget"),
    [(1025, 1024), (2048, 2047), (2049, 2048), (64000, THINKING_BUDGET)],
)
def test_the_thinking_budget_stays_below_max_tokens(max_tokens: int, budget: int) -> None:
    body = to_wire_request(request(max_tokens=max_tokens, thinking=True))
    assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert body["thinking"]["budget_tokens"] < body["max_tokens"]


@given(st.integers(min_value=MIN_THINKING_BUDGET + 1, max_value=10**6))
def test_whenever_request_problem_passes_the_budget_is_legal(max_tokens: int) -> None:
    internal = request(max_tokens=max_tokens, thinking=True)
    assert request_problem(internal) is None
    budget = to_wire_request(internal)["thinking"]["budget_tokens"]
    assert MIN_THINKING_BUDGET <= budget < max_tokens


def test_thinking_off_is_sent_as_disabled_and_unset_sends_nothing() -> None:
    assert to_wire_request(request(thinking=False))["thinking"] == {"type": "disabled"}
    assert "thinking" not in to_wire_request(request(thinking=None))


@pytest.mark.parametrize(
    ("thinking", "expected"),
    [
        ({"type": "enabled", "budget_tokens": 5000}, True),
        ({"type": "adaptive"}, True),
        ({"type": "disabled"}, False),
        ({"type": "sometimes"}, None),
    ],
    ids=["enabled", "adaptive", "disabled", "unknown"],
)
def test_the_wire_thinking_config_reads_as_on_or_off_and_the_budget_is_dropped(
    thinking: dict[str, Any], expected: bool | None
) -> None:
    assert from_wire_request(wire_request(thinking=thinking)).thinking is expected


# ---------------------------------------------------------------------------------------------
# request_problem: what Anthropic would refuse, known before sending


@pytest.mark.parametrize("thinking", [False, None])
@pytest.mark.parametrize(
    "choice", [ToolChoice(type="required"), ToolChoice(type="tool", name="f"), None]
)
def test_without_thinking_any_tool_choice_and_max_tokens_is_fine(
    thinking: bool | None, choice: ToolChoice | None
) -> None:
    assert request_problem(request(tool_choice=choice, thinking=thinking, max_tokens=5)) is None


@pytest.mark.parametrize(
    ("choice", "named"),
    [(ToolChoice(type="required"), "'required'"), (ToolChoice(type="tool", name="f"), "'f'")],
)
def test_thinking_with_a_forced_tool_is_refused_before_sending(
    choice: ToolChoice, named: str
) -> None:
    problem = request_problem(request(tool_choice=choice, thinking=True, max_tokens=8000))
    assert problem is not None
    assert named in problem
    assert "auto or none" in problem


@pytest.mark.parametrize("choice", [ToolChoice(type="auto"), ToolChoice(type="none"), None])
def test_thinking_with_auto_none_or_no_choice_is_fine(choice: ToolChoice | None) -> None:
    assert request_problem(request(tool_choice=choice, thinking=True, max_tokens=8000)) is None


def test_thinking_with_the_default_max_tokens_is_fine() -> None:
    assert request_problem(Request(model=MODEL, messages=[], thinking=True)) is None


@pytest.mark.parametrize("max_tokens", [1, 500, MIN_THINKING_BUDGET])
def test_thinking_with_max_tokens_at_or_below_the_budget_floor_is_refused(max_tokens: int) -> None:
    problem = request_problem(request(thinking=True, max_tokens=max_tokens))
    assert problem is not None
    assert str(max_tokens) in problem
    assert str(MIN_THINKING_BUDGET) in problem


def test_thinking_with_max_tokens_just_above_the_floor_is_fine() -> None:
    assert request_problem(request(thinking=True, max_tokens=MIN_THINKING_BUDGET + 1)) is None


def test_thinking_with_max_tokens_zero_is_refused() -> None:
    assert request_problem(request(thinking=True, max_tokens=0)) is not None


# ---------------------------------------------------------------------------------------------
# responses


def test_a_tool_use_response_maps_to_thinking_text_and_tool_use_blocks() -> None:
    body = wire_response(
        [
            {"type": "thinking", "thinking": "查杭州。", "signature": "sig1"},
            {"type": "text", "text": "我查一下。"},
            {
                "type": "tool_use",
                "id": "toolu_01A",
                "name": "get_weather",
                "input": {"city": "杭州"},
            },
        ],
        "tool_use",
        usage={
            "input_tokens": 120,
            "output_tokens": 45,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    )
    assert from_wire_response(body) == Response(
        id="msg_01",
        model=MODEL,
        content=[
            ThinkingBlock(thinking="查杭州。", signature="sig1"),
            TextBlock(text="我查一下。"),
            call("toolu_01A", "杭州"),
        ],
        stop_reason="tool_use",
        usage=Usage(input_tokens=120, output_tokens=45, cache_read_tokens=0, cache_write_tokens=0),
    )


def test_a_response_goes_to_the_wire_as_a_message_with_stop_reason_and_usage() -> None:
    response = Response(
        id="msg_9",
        model=MODEL,
        content=[ThinkingBlock(thinking="t", signature="s"), call("toolu_1", "杭州")],
        stop_reason="tool_use",
        usage=Usage(input_tokens=10, output_tokens=5),
    )
    assert to_wire_response(response) == {
        "id": "msg_9",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [
            {"type": "thinking", "thinking": "t", "signature": "s"},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "杭州"}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def test_a_response_without_id_model_or_usage_sends_none_of_them() -> None:
    body = to_wire_response(Response(content=[TextBlock(text="a")], stop_reason="end_turn"))
    assert set(body) == {"type", "role", "content", "stop_reason", "stop_sequence"}
    assert from_wire_response(body) == Response(
        content=[TextBlock(text="a")], stop_reason="end_turn"
    )


@pytest.mark.parametrize(
    "reason", ["end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal"]
)
def test_each_stop_reason_is_the_same_word_both_ways(reason: str) -> None:
    response = Response(content=[TextBlock(text="a")], stop_reason=reason)
    assert to_wire_response(response)["stop_reason"] == reason
    assert from_wire_response(to_wire_response(response)).stop_reason == reason


@pytest.mark.parametrize("reason", ["pause_turn", "model_context_window_exceeded", "weird"])
def test_an_unknown_stop_reason_is_kept_as_it_came_both_ways(reason: str) -> None:
    response = from_wire_response(wire_response([{"type": "text", "text": "a"}], reason))
    assert response.stop_reason == reason
    assert to_wire_response(response)["stop_reason"] == reason
    assert get_format("anthropic").wire_stop_reason(wire_response([], reason)) == reason


def test_wire_stop_reason_is_none_when_there_is_none() -> None:
    for fmt in ("anthropic", "openai", "gemini", "responses"):
        assert get_format(fmt).wire_stop_reason({"stop_reason": None}) is None
        assert get_format(fmt).wire_stop_reason([]) is None


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({"input_tokens": 7}, Usage(input_tokens=7)),
        ({"input_tokens": 1.5, "output_tokens": "3"}, Usage()),
        ({"input_tokens": True, "output_tokens": 2}, Usage(output_tokens=2)),
        ("lots", None),
    ],
    ids=["partial", "not-integers", "boolean", "not-an-object"],
)
def test_odd_usage_counts_are_dropped_not_fatal(usage: Any, expected: Usage | None) -> None:
    body = wire_response([{"type": "text", "text": "a"}], usage=usage)
    assert from_wire_response(body).usage == expected


def test_a_usage_with_missing_counts_goes_to_the_wire_without_them() -> None:
    response = Response(content=[], stop_reason="end_turn", usage=Usage(output_tokens=3))
    assert to_wire_response(response)["usage"] == {"output_tokens": 3}


def test_a_block_a_response_cannot_hold_is_reported_at_the_responses_own_path() -> None:
    bad = Response(content=[TextBlock(text="a"), result("c1", "r")], stop_reason="end_turn")
    with pytest.raises(ConversionError) as caught:
        to_wire_response(bad)
    assert caught.value.json_path == "$.content[1]"


def test_a_block_a_response_cannot_hold_is_a_conversion_error() -> None:
    bad = Response(content=[result("c1", "r")], stop_reason="end_turn")
    with pytest.raises(ConversionError):
        to_wire_response(bad)


# ---------------------------------------------------------------------------------------------
# bad shapes: a ConversionError naming the JSON path, never a KeyError or a pydantic error


def _with(body: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(body)
    target: Any = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return out


GOOD_REQUEST = wire_request(
    {"role": "user", "content": [{"type": "text", "text": "q"}]},
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "t", "signature": "s"},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "A"}},
        ],
    },
    {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "r"}],
    },
    tools=[{"name": "get_weather", "description": "d", "input_schema": WEATHER_SCHEMA}],
)


def test_the_good_request_used_below_reads_without_error() -> None:
    assert len(from_wire_request(GOOD_REQUEST).messages) == 3


@pytest.mark.parametrize(
    ("where", "value", "path"),
    [
        (["model"], None, "$.model"),
        (["model"], 7, "$.model"),
        (["messages"], {}, "$.messages"),
        (["messages", 0], "hi", "$.messages[0]"),
        (["messages", 0, "role"], "system", "$.messages[0].role"),
        (["messages", 0, "role"], "tool", "$.messages[0].role"),
        (["messages", 0, "role"], ["user"], "$.messages[0].role"),
        (["messages", 0, "content"], None, "$.messages[0].content"),
        (["messages", 0, "content"], {"type": "text", "text": "q"}, "$.messages[0].content"),
        (["messages", 0, "content", 0], "q", "$.messages[0].content[0]"),
        (["messages", 0, "content", 0, "text"], None, "$.messages[0].content[0].text"),
        (["messages", 1, "content", 0, "thinking"], 3, "$.messages[1].content[0].thinking"),
        (["messages", 1, "content", 1, "id"], None, "$.messages[1].content[1].id"),
        (["messages", 1, "content", 1, "name"], 1, "$.messages[1].content[1].name"),
        (["messages", 1, "content", 1, "input"], '{"city":"A"}', "$.messages[1].content[1].input"),
        (["messages", 1, "content", 1, "input"], None, "$.messages[1].content[1].input"),
        (
            ["messages", 2, "content", 0, "tool_use_id"],
            None,
            "$.messages[2].content[0].tool_use_id",
        ),
        (["messages", 2, "content", 0, "is_error"], "yes", "$.messages[2].content[0].is_error"),
        (["tools"], {"name": "x"}, "$.tools"),
        (["tools", 0], "get_weather", "$.tools[0]"),
        (["tools", 0, "name"], None, "$.tools[0].name"),
        (["tools", 0, "description"], 5, "$.tools[0].description"),
        (["tools", 0, "input_schema"], None, "$.tools[0].input_schema"),
        (["tool_choice"], None, "$.tool_choice"),
    ],
)
def test_a_malformed_request_body_is_a_conversion_error_naming_the_json_path(
    where: list[Any], value: Any, path: str
) -> None:
    with pytest.raises(ConversionError) as caught:
        from_wire_request(_with(GOOD_REQUEST, where, value))
    assert caught.value.json_path == path
    assert str(caught.value).startswith(path)


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"type": "error", "error": {"type": "overloaded_error", "message": "x"}}, "$.type"),
        ({**wire_response([]), "stop_reason": None}, "$.stop_reason"),
        ({k: v for k, v in wire_response([]).items() if k != "stop_reason"}, "$.stop_reason"),
        ({**wire_response([]), "content": None}, "$.content"),
        ({**wire_response([]), "content": [3]}, "$.content[0]"),
        (wire_response([{"type": "tool_use", "id": "t", "name": "f"}]), "$.content[0].input"),
    ],
    ids=[
        "error-body",
        "stop_reason-null",
        "stop_reason-missing",
        "content-null",
        "block-not-object",
        "tool_use-without-input",
    ],
)
def test_a_malformed_response_body_is_a_conversion_error_naming_the_json_path(
    body: Any, path: str
) -> None:
    with pytest.raises(ConversionError) as caught:
        from_wire_response(body)
    assert caught.value.json_path == path


# ---------------------------------------------------------------------------------------------
# properties: a round trip keeps everything Anthropic can hold

texts = st.text(max_size=24)
signatures = st.none() | st.text(alphabet=string.ascii_letters + string.digits + "+/=", max_size=16)


@st.composite
def assistant_blocks(draw: st.DrawFn) -> list[Block]:
    """What an Anthropic assistant turn holds, in any order: thinking, text, calls."""
    kinds = draw(st.lists(st.sampled_from(["thinking", "text", "tool_use"]), max_size=5))
    blocks: list[Block] = []
    for kind in kinds:
        if kind == "thinking":
            blocks.append(ThinkingBlock(thinking=draw(texts), signature=draw(signatures)))
        elif kind == "text":
            blocks.append(TextBlock(text=draw(texts)))
        else:
            blocks.append(
                ToolUseBlock(
                    id=draw(call_ids),
                    name=draw(st.text(min_size=1, max_size=12)),
                    input=draw(json_objects),
                )
            )
    return blocks


@st.composite
def conversations(draw: st.DrawFn) -> list[Message]:
    messages = [Message(role="user", content=[TextBlock(text=draw(texts))])]
    for _ in range(draw(st.integers(min_value=0, max_value=3))):
        turn = Message(role="assistant", content=draw(assistant_blocks()))
        messages.append(turn)
        answer: list[Block] = [
            ToolResultBlock(tool_use_id=c.id, content=draw(texts), is_error=draw(st.booleans()))
            for c in turn.tool_uses()
        ]
        answer += [TextBlock(text=t) for t in draw(st.lists(texts, max_size=2))]
        messages.append(Message(role="user", content=answer))
    return messages


tool_choices = st.sampled_from(
    [ToolChoice(type="auto"), ToolChoice(type="none"), ToolChoice(type="required")]
) | st.builds(ToolChoice, type=st.just("tool"), name=st.text(min_size=1, max_size=12))


@st.composite
def requests(draw: st.DrawFn) -> Request:
    """Internal requests restricted to what Anthropic holds: max_tokens set, no raw_arguments,
    parallel calls off only beside a tool_choice other than none, never parallel True."""
    choice = draw(st.none() | tool_choices)
    parallel = (
        draw(st.sampled_from([None, False]))
        if choice is not None and choice.type != "none"
        else None
    )
    return Request(
        model=draw(st.text(min_size=1, max_size=16)),
        system=draw(st.none() | texts),
        messages=draw(conversations()),
        tools=draw(st.lists(tool_specs, max_size=2)),
        tool_choice=choice,
        parallel_tool_calls=parallel,
        max_tokens=draw(st.integers(min_value=1, max_value=1_000_000)),
        stream=draw(st.none() | st.booleans()),
        thinking=draw(st.sampled_from([True, False, None])),
    )


counts = st.none() | st.integers(min_value=0, max_value=10**7)
stop_reasons = st.sampled_from(
    ["end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "pause_turn"]
) | st.text(min_size=1, max_size=16)


@st.composite
def responses(draw: st.DrawFn) -> Response:
    return Response(
        id=draw(st.none() | st.text(max_size=16)),
        model=draw(st.none() | st.text(max_size=16)),
        content=draw(assistant_blocks()),
        stop_reason=draw(stop_reasons),
        usage=draw(st.none() | st.builds(Usage, input_tokens=counts, output_tokens=counts)),
    )


@given(requests())
def test_a_request_survives_the_round_trip_through_json_text(internal: Request) -> None:
    wire = to_wire_request(internal)
    # The wire body is plain JSON: it goes through a trace file unchanged.
    sent = json.loads(json.dumps(wire, ensure_ascii=False))
    assert sent == wire
    assert from_wire_request(sent) == internal


@given(requests())
def test_a_request_with_max_tokens_unset_comes_back_with_the_default_and_nothing_else_lost(
    internal: Request,
) -> None:
    internal.max_tokens = None
    back = from_wire_request(to_wire_request(internal))
    assert back == internal.model_copy(update={"max_tokens": DEFAULT_MAX_TOKENS})


@given(responses())
def test_a_response_survives_the_round_trip_through_json_text(response: Response) -> None:
    wire = json.loads(json.dumps(to_wire_response(response), ensure_ascii=False))
    assert from_wire_response(wire) == response


@given(requests())
def test_a_wire_request_reads_back_to_the_same_wire_request(internal: Request) -> None:
    wire = to_wire_request(internal)
    assert to_wire_request(from_wire_request(wire)) == wire


# ---------------------------------------------------------------------------------------------
# the committed example traces: internal -> anthropic -> internal

# The demo's traces; hangzhou-responses keeps a Responses reasoning item Anthropic has no place
# for (tests/wire/test_responses.py says what converting it loses).
EXAMPLE_STEPS = sorted(
    p
    for p in EXAMPLES.glob("*/[0-9]-request.json")
    if (p.parent / "1-request.deepseek.json").exists()
)


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _without_foreign_blocks(message: Any) -> Any:
    """The turn as Anthropic keeps it: another format's provider blocks (the Gemini example's
    thoughtSignature) go back only to their own format, a listed loss."""
    kept = [
        b for b in message.content if not (isinstance(b, ProviderBlock) and b.format != "anthropic")
    ]
    return message.model_copy(update={"content": kept})


def test_there_are_example_traces_to_check() -> None:
    assert len(EXAMPLE_STEPS) >= 4


@pytest.mark.parametrize("path", EXAMPLE_STEPS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_an_example_request_survives_anthropic_but_for_the_listed_max_tokens(path: Path) -> None:
    internal = Request.model_validate(_load(path))
    wire = json.loads(json.dumps(to_wire_request(internal), ensure_ascii=False))
    back = from_wire_request(wire)
    if internal.max_tokens is None:  # the listed loss
        internal.max_tokens = DEFAULT_MAX_TOKENS
    internal.messages = [_without_foreign_blocks(m) for m in internal.messages]
    assert back == internal


@pytest.mark.parametrize("path", EXAMPLE_STEPS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_an_example_response_survives_anthropic_but_for_reasoning_tokens(path: Path) -> None:
    response = Response.model_validate(
        _load(path.with_name(path.name.replace("request", "response")))
    )
    wire = json.loads(json.dumps(to_wire_response(response), ensure_ascii=False))
    back = from_wire_response(wire)
    assert response.usage is not None
    expected = _without_foreign_blocks(response).model_copy(
        update={"usage": response.usage.model_copy(update={"reasoning_tokens": None})}
    )
    assert back == expected


def test_every_example_response_survives_anthropic_but_for_reasoning_tokens() -> None:
    assert "reasoning_tokens" in anthropic_module.__doc__
    for path in EXAMPLE_STEPS:
        response = Response.model_validate(
            _load(path.with_name(path.name.replace("request", "response")))
        )
        assert response.usage is not None and response.usage.reasoning_tokens is not None
        expected = _without_foreign_blocks(response).model_copy(
            update={"usage": response.usage.model_copy(update={"reasoning_tokens": None})}
        )
        assert from_wire_response(to_wire_response(response)) == expected, path


# ---------------------------------------------------------------------------------------------
# the format by name


def test_the_registered_format_translates_with_this_module() -> None:
    fmt = get_format("anthropic")
    internal = request(user("q"), assistant(ThinkingBlock(thinking="t", signature="s")))
    assert fmt.to_wire_request(internal) == to_wire_request(internal)
    assert fmt.from_wire_request(to_wire_request(internal)) == internal
    assert fmt.request_problem(request(thinking=True, tool_choice=ToolChoice(type="required")))
    assert fmt.wire_stop_reason(wire_response([], "tool_use")) == "tool_use"


def test_effort_and_a_json_schema_share_output_config_and_both_come_back() -> None:
    # --effort (issue #21) and JSON mode (issue #12) both live in output_config: neither
    # replaces the other.
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    request = Request(
        model="m",
        messages=[user("hi")],
        effort="high",
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "output", "schema": schema},
        },
    )
    body = to_wire_request(request)
    assert body["output_config"] == {
        "effort": "high",
        "format": {"type": "json_schema", "schema": schema},
    }
    back = from_wire_request(body)
    assert back.effort == "high"
    assert back.response_format == request.response_format
