"""The demo model: deterministic, offline, wire-level, and never inventing a result."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fccli.core.errors import ProviderError
from fccli.core.jsonio import encode
from fccli.providers.demo.model import DemoProvider, history_problem
from fccli.tools.weather import toolset
from fccli.wire.chat.codec import tool_to_wire

TOOLS = [tool_to_wire(t) for t in toolset().specs()]


def ask(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    body = {"model": "fc-demo", "messages": messages, "tools": TOOLS, **extra}
    return json.loads(DemoProvider().send(encode(body), step=1).body)


def first_turn(question: str, **extra: Any) -> dict[str, Any]:
    return ask([{"role": "user", "content": question}], **extra)["choices"][0]


def calls_of(choice: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(c["function"]["arguments"]) for c in choice["message"].get("tool_calls", [])]


def test_one_known_city_gives_one_call_and_a_tool_stop() -> None:
    choice = first_turn("杭州今天适合跑步吗？")
    assert choice["finish_reason"] == "tool_calls"
    assert calls_of(choice) == [{"city": "杭州"}]
    assert choice["message"]["tool_calls"][0]["function"]["name"] == "get_weather"


def test_several_cities_give_parallel_calls_in_order_of_appearance() -> None:
    assert calls_of(first_turn("深圳、北京和上海呢？")) == [
        {"city": "深圳"},
        {"city": "北京"},
        {"city": "上海"},
    ]


def test_english_names_are_recognised() -> None:
    assert calls_of(first_turn("Should I run in hangzhou or Xi'an today?")) == [
        {"city": "Hangzhou"},
        {"city": "Xi'an"},
    ]


def test_without_a_known_city_a_place_like_word_is_tried() -> None:
    assert calls_of(first_turn("巴黎今天适合跑步吗？")) == [{"city": "巴黎"}]


def test_without_any_city_the_whole_question_goes_into_the_argument_like_a_weak_model() -> None:
    assert calls_of(first_turn("今天适合跑步吗？")) == [{"city": "今天适合跑步吗？"}]


def test_no_parallel_asks_one_city_at_a_time() -> None:
    assert calls_of(first_turn("北京、上海？", parallel_tool_calls=False)) == [{"city": "北京"}]


def test_reasoning_follows_the_thinking_switch() -> None:
    assert "reasoning_content" in first_turn("杭州？")["message"]
    assert "reasoning_content" in first_turn("杭州？", thinking={"type": "enabled"})["message"]
    assert "reasoning_content" not in first_turn("杭州？", thinking={"type": "disabled"})["message"]


def test_tool_choice_none_means_no_call_and_no_invented_weather() -> None:
    choice = first_turn("杭州今天适合跑步吗？", tool_choice="none")
    assert choice["finish_reason"] == "stop"
    assert "tool_calls" not in choice["message"]
    assert "°C" not in choice["message"]["content"]


def _after_result(result: str, question: str = "杭州今天适合跑步吗？") -> dict[str, Any]:
    first = first_turn(question)
    call = first["message"]["tool_calls"][0]
    return ask(
        [
            {"role": "user", "content": question},
            first["message"],
            {"role": "tool", "tool_call_id": call["id"], "content": result},
        ]
    )["choices"][0]


def test_the_answer_is_built_from_the_result_only() -> None:
    answer = _after_result('{"city": "杭州", "temp_c": 21, "condition": "多云", "aqi": 38}')
    assert answer["finish_reason"] == "stop"
    assert "21°C" in answer["message"]["content"]
    assert "多云" in answer["message"]["content"]


def test_an_edited_result_changes_the_answer() -> None:
    hot = _after_result('{"temp_c": 39, "condition": "晴", "aqi": 38}')["message"]["content"]
    assert "39°C" in hot
    assert "不适合" in hot
    # the city comes from the call the result is paired with, by id
    assert hot.startswith("杭州")


def test_an_error_result_is_never_turned_into_weather() -> None:
    text = _after_result("[tool error] get_weather failed: unknown city 'x'. Known cities: ...")[
        "message"
    ]["content"]
    assert "没查到" in text
    assert "°C" not in text


def test_results_are_paired_by_id_not_by_position() -> None:
    question = "北京、上海今天适合跑步吗？"
    first = first_turn(question)
    beijing, shanghai = first["message"]["tool_calls"]
    # results handed back in the opposite order of the calls
    answer = ask(
        [
            {"role": "user", "content": question},
            first["message"],
            {
                "role": "tool",
                "tool_call_id": shanghai["id"],
                "content": '{"temp_c": 30, "condition": "晴", "aqi": 10}',
            },
            {
                "role": "tool",
                "tool_call_id": beijing["id"],
                "content": '{"temp_c": 5, "condition": "晴", "aqi": 10}',
            },
        ]
    )["choices"][0]["message"]["content"]
    assert "北京现在 5°C" in answer
    assert "上海现在 30°C" in answer


def test_same_request_same_bytes() -> None:
    body = encode(
        {"model": "fc-demo", "messages": [{"role": "user", "content": "杭州？"}], "tools": TOOLS}
    )
    assert DemoProvider().send(body, step=1).body == DemoProvider().send(body, step=1).body


def test_ids_differ_between_calls_and_look_like_chat_ids() -> None:
    ids = [c["id"] for c in first_turn("北京、上海、深圳？")["message"]["tool_calls"]]
    assert len(set(ids)) == 3
    assert all(i.startswith("call_") for i in ids)


def _asked(reasoning: bool = True) -> dict[str, Any]:
    """An assistant turn that called get_weather once, with id `a`."""
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if reasoning:
        message["reasoning_content"] = ""
    message["tool_calls"] = [
        {"id": "a", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
    ]
    return message


QUESTION = {"role": "user", "content": "q"}


@pytest.mark.parametrize(
    ("messages", "words"),
    [
        ([QUESTION, {"role": "tool", "tool_call_id": "x", "content": "1"}], "must be a response"),
        (
            [QUESTION, _asked(), {"role": "user", "content": "and?"}],
            "did not have response messages: a",
        ),
        (
            [
                QUESTION,
                _asked(reasoning=False),
                {"role": "tool", "tool_call_id": "a", "content": "1"},
            ],
            "reasoning_content",
        ),
        (
            [
                QUESTION,
                _asked(),
                {"role": "tool", "tool_call_id": "a", "content": [{"type": "text", "text": "1"}]},
            ],
            "invalid type: sequence, expected a string",
        ),
    ],
    ids=["orphan-result", "unanswered-call", "missing-reasoning", "content-array"],
)
def test_a_broken_history_is_answered_like_deepseek_would(
    messages: list[dict[str, Any]], words: str
) -> None:
    problem = history_problem({"messages": messages})
    assert problem is not None and words in problem
    with pytest.raises(ProviderError) as err:
        ask(messages)
    assert err.value.status == 400
    assert words in json.loads(err.value.body or "{}")["error"]["message"]


def test_a_good_history_has_no_problem() -> None:
    first = first_turn("杭州？")
    call = first["message"]["tool_calls"][0]
    messages = [
        {"role": "user", "content": "杭州？"},
        first["message"],
        {"role": "tool", "tool_call_id": call["id"], "content": "{}"},
    ]
    assert history_problem({"messages": messages}) is None


def test_max_tokens_cuts_the_answer_like_a_real_model() -> None:
    full = first_turn("杭州今天适合跑步吗？")
    assert full["finish_reason"] == "tool_calls"
    budget = len(full["message"]["reasoning_content"]) + len(full["message"]["content"]) + 5
    cut = first_turn("杭州今天适合跑步吗？", max_tokens=budget // 2)
    assert cut["finish_reason"] == "length"
    arguments = cut["message"]["tool_calls"][0]["function"]["arguments"]
    assert arguments == full["message"]["tool_calls"][0]["function"]["arguments"][: len(arguments)]
    assert len(arguments) < len(full["message"]["tool_calls"][0]["function"]["arguments"])
    # enough room: nothing changes
    roomy = first_turn("杭州今天适合跑步吗？", max_tokens=10_000)
    assert roomy["finish_reason"] == "tool_calls"
    assert calls_of(roomy) == calls_of(full)
    assert roomy["message"]["content"] == full["message"]["content"]


@pytest.mark.parametrize("max_tokens", [5, 20, 40])
def test_a_cut_answer_never_counts_more_tokens_than_allowed(max_tokens: int) -> None:
    body = ask([{"role": "user", "content": "北京、上海今天适合跑步吗？"}], max_tokens=max_tokens)
    assert body["usage"]["completion_tokens"] <= max_tokens
    if body["choices"][0]["finish_reason"] != "length":
        pytest.fail("this budget should cut the answer")


def test_the_demo_marks_errors_as_fcs_chat_translator_does() -> None:
    from fccli.providers.demo import model as demo
    from fccli.wire.chat import codec as chat

    # The demo, being a model, does not import the translator; the two must agree all the same.
    assert demo.ERROR_MARKER == chat.ERROR_MARKER


def test_a_strict_tool_gets_every_property_null_where_the_model_has_no_value() -> None:
    tool = json.loads(json.dumps(TOOLS[0]))
    tool["function"]["strict"] = True
    tool["function"]["parameters"]["properties"]["days"] = {"type": ["integer", "null"]}
    tool["function"]["parameters"]["required"] = ["city", "days"]
    body = {
        "model": "fc-demo",
        "messages": [{"role": "user", "content": "杭州？"}],
        "tools": [tool],
    }
    choice = json.loads(DemoProvider().send(encode(body), step=1).body)["choices"][0]
    assert calls_of(choice) == [{"city": "杭州", "days": None}]
