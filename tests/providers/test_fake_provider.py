"""The fake provider itself (tests/support/fake_provider.py), spoken to over real HTTP with httpx."""

from __future__ import annotations

import json
import re
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.support.fake_provider import CITIES, DEFAULT_KEY, FakeProvider, find_cities
from tests.support.local_http import get, post

CHAT_HEADERS = {"Authorization": f"Bearer {DEFAULT_KEY}"}
ANTHROPIC_HEADERS = {"x-api-key": DEFAULT_KEY, "anthropic-version": "2023-06-01"}
WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "城市名，例如：杭州"}},
    "required": ["city"],
}
TIME_SCHEMA = {"type": "object", "properties": {"tz": {"type": "string"}}, "required": ["tz"]}
CHAT_TOOLS = [
    {
        "type": "function",
        "function": {"name": "get_time", "description": "Current time", "parameters": TIME_SCHEMA},
    },
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "查询某个城市当前的天气。",
            "parameters": WEATHER_SCHEMA,
        },
    },
]
ANTHROPIC_TOOLS = [
    {"name": "get_time", "description": "Current time", "input_schema": TIME_SCHEMA},
    {
        "name": "get_weather",
        "description": "Current weather of a city",
        "input_schema": WEATHER_SCHEMA,
    },
]
QUESTION = "杭州和北京今天天气怎么样？"
CHAT_ID = re.compile(r"^call_\d\d_[0-9a-f]{24}$")
ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]+$")


# ---------------------------------------------------------------------------------------------
# helpers: a tiny harness


def weather(city: str) -> str:
    for row in CITIES:
        if city.casefold() in (row["zh"], row["en"].casefold()):
            lang = "zh" if city == row["zh"] else "en"
            return json.dumps(
                {"city": row[lang], "temp_c": row["temp_c"], "aqi": row["aqi"]}, ensure_ascii=False
            )
    raise KeyError(city)


def chat(
    fp: FakeProvider,
    body: Any,
    *,
    path: str = "/chat/completions",
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    return post(fp.url + path, json=body, headers=CHAT_HEADERS if headers is None else headers)


def anthropic(
    fp: FakeProvider, body: Any, *, headers: dict[str, str] | None = None
) -> httpx.Response:
    return post(
        fp.url + "/v1/messages",
        json=body,
        headers=ANTHROPIC_HEADERS if headers is None else headers,
    )


def chat_request(question: str = QUESTION, **extra: Any) -> dict[str, Any]:
    return {
        "model": "deepseek-v4-flash",
        "messages": [{"role": "user", "content": question}],
        "tools": CHAT_TOOLS,
        **extra,
    }


def anthropic_request(question: str = QUESTION, **extra: Any) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": question}],
        "tools": ANTHROPIC_TOOLS,
        **extra,
    }


def chat_message(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    return response.json()["choices"][0]["message"]


def chat_results(message: dict[str, Any], errors: dict[int, str] | None = None) -> list[dict]:
    """One tool message per call: the weather, or `errors[i]` marked as fc marks errors."""
    out = []
    for i, call in enumerate(message["tool_calls"]):
        if errors and i in errors:
            content = f"[tool error] {errors[i]}"
        else:
            content = weather(json.loads(call["function"]["arguments"])["city"])
        out.append({"role": "tool", "tool_call_id": call["id"], "content": content})
    return out


def anthropic_results(content: list[dict], errors: dict[int, str] | None = None) -> dict:
    blocks = []
    for i, b in enumerate(x for x in content if x["type"] == "tool_use"):
        if errors and i in errors:
            blocks.append(
                {
                    "type": "tool_result",
                    "tool_use_id": b["id"],
                    "content": errors[i],
                    "is_error": True,
                }
            )
        else:
            blocks.append(
                {
                    "type": "tool_result",
                    "tool_use_id": b["id"],
                    "content": weather(b["input"]["city"]),
                }
            )
    return {"role": "user", "content": blocks}


def tool_uses(response: httpx.Response) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.text
    return [b for b in response.json()["content"] if b["type"] == "tool_use"]


def chat_400(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert set(error) == {"message", "type", "param", "code"}
    return error["message"]


def anthropic_400(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["type"] == "error"
    assert body["error"]["type"] == "invalid_request_error"
    return body["error"]["message"]


# ---------------------------------------------------------------------------------------------
# the server


def test_starts_on_a_free_port_and_stops() -> None:
    fp = FakeProvider().start()
    url = fp.url
    try:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", url)
        with httpx.Client(
            verify=False
        ) as client:  # keeps its connection open: stop() must end it anyway
            assert (
                client.post(
                    url + "/chat/completions", json=chat_request(), headers=CHAT_HEADERS
                ).status_code
                == 200
            )
            fp.stop()
            with pytest.raises(httpx.TransportError):
                client.post(url + "/chat/completions", json=chat_request(), headers=CHAT_HEADERS)
    finally:
        fp.stop()
    with pytest.raises(httpx.ConnectError):
        post(url + "/chat/completions", json={})


def test_records_each_request_exactly(fake_provider: FakeProvider) -> None:
    raw = b'{"model":"deepseek-v4-flash",  "messages":[{"role":"user","content":"hi"}]}'
    headers = {**CHAT_HEADERS, "Content-Type": "application/json", "X-Custom": "Yes"}
    post(fake_provider.url + "/v1/chat/completions", content=raw, headers=headers)
    post(fake_provider.url + "/chat/completions", content=b"not json", headers=headers)
    post(
        fake_provider.url + "/chat/completions", content=iter([raw[:10], raw[10:]]), headers=headers
    )
    first, second, chunked = fake_provider.received
    assert chunked.body == raw and chunked.headers["transfer-encoding"] == "chunked"
    assert first.path == "/v1/chat/completions"
    assert first.body == raw
    assert first.json == json.loads(raw)
    assert first.headers["x-custom"] == "Yes"
    assert first.headers["authorization"] == f"Bearer {DEFAULT_KEY}"
    assert second.json is None and second.body == b"not json"


def test_unknown_route_is_a_404_with_a_json_body(fake_provider: FakeProvider) -> None:
    r = chat(fake_provider, chat_request(), path="/v1/completions")
    assert r.status_code == 404
    assert "Invalid URL" in r.json()["error"]["message"]
    assert get(fake_provider.url + "/chat/completions").status_code == 404


def test_concurrent_requests_are_all_answered_and_recorded(fake_provider: FakeProvider) -> None:
    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(lambda _: chat(fake_provider, chat_request()).status_code, range(16)))
    assert codes == [200] * 16
    assert len(fake_provider.received) == 16
    assert fake_provider.errors == []


def test_finds_cities_by_chinese_or_english_name_in_question_order() -> None:
    assert find_cities("北京和杭州呢") == ["北京", "杭州"]
    assert find_cities("Weather in hangzhou and Xi'an, then SHANGHAI?") == [
        "hangzhou",
        "Xi'an",
        "SHANGHAI",
    ]
    assert find_cities("Xian and xiangtan") == ["Xian"]
    assert find_cities("Paris?") == []


# ---------------------------------------------------------------------------------------------
# chat: the normal exchange


@pytest.mark.parametrize(
    "path", ["/chat/completions", "/v1/chat/completions", "/beta/chat/completions"]
)
def test_chat_two_step_exchange(fake_provider: FakeProvider, path: str) -> None:
    request = chat_request()
    r = chat(fake_provider, request, path=path)
    body = r.json()
    assert body["object"] == "chat.completion"
    assert body["id"].startswith("chatcmpl-")
    assert body["model"] == "deepseek-v4-flash"
    assert isinstance(body["created"], int)
    choice = body["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["logprobs"] is None
    message = choice["message"]
    assert message["content"] == ""
    assert message["reasoning_content"]
    calls = message["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["get_weather", "get_weather"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [
        {"city": "杭州"},
        {"city": "北京"},
    ]
    assert all(CHAT_ID.match(c["id"]) and c["type"] == "function" for c in calls)
    assert calls[0]["id"].startswith("call_00_") and calls[1]["id"].startswith("call_01_")
    usage = body["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert usage["completion_tokens_details"]["reasoning_tokens"] > 0

    request["messages"] += [message, *chat_results(message)]
    final = chat(fake_provider, request, path=path).json()["choices"][0]
    assert final["finish_reason"] == "stop"
    assert "tool_calls" not in final["message"]
    text = final["message"]["content"]
    assert f"杭州: {weather('杭州')}" in text
    assert f"北京: {weather('北京')}" in text


def test_chat_answers_are_deterministic(fake_provider: FakeProvider) -> None:
    first = chat(fake_provider, chat_request()).json()
    again = chat(fake_provider, chat_request()).json()
    # The same answer; only the usage says that this time the prompt came from the cache.
    assert first.pop("usage")["prompt_cache_hit_tokens"] == 0
    assert again.pop("usage")["prompt_cache_hit_tokens"] > 0
    assert again == first
    assert chat(fake_provider, chat_request("上海呢？天气")).json()["id"] != first["id"]


def test_chat_without_a_known_city_answers_in_text(fake_provider: FakeProvider) -> None:
    r = chat(fake_provider, chat_request("巴黎今天天气怎么样？"))
    body = r.json()
    assert body["choices"][0]["finish_reason"] == "stop"
    assert "tool_calls" not in body["choices"][0]["message"]
    assert body["choices"][0]["message"]["content"]


def test_chat_one_call_at_a_time(fake_provider: FakeProvider) -> None:
    request = chat_request(parallel_tool_calls=False)
    seen = []
    for _ in range(2):
        message = chat_message(chat(fake_provider, request))
        assert len(message["tool_calls"]) == 1
        seen.append(json.loads(message["tool_calls"][0]["function"]["arguments"])["city"])
        request["messages"] += [message, *chat_results(message)]
    assert seen == ["杭州", "北京"]
    assert chat_message(chat(fake_provider, request))["content"].startswith("杭州: ")


def test_chat_without_thinking_or_for_other_models(fake_provider: FakeProvider) -> None:
    off = chat_message(chat(fake_provider, chat_request(thinking={"type": "disabled"})))
    assert "reasoning_content" not in off
    assert off["content"] == ""  # DeepSeek's empty string beside calls
    openai = chat(fake_provider, chat_request(model="gpt-4o-mini")).json()
    message = openai["choices"][0]["message"]
    assert "reasoning_content" not in message and message["content"] is None
    assert "completion_tokens_details" not in openai["usage"]
    # The retired deepseek-chat maps to flash without thinking (PROTOCOL.md).
    assert "reasoning_content" not in chat_message(
        chat(fake_provider, chat_request(model="deepseek-chat"))
    )


def test_chat_picks_the_weather_tool_else_the_first_and_its_string_parameter(
    fake_provider: FakeProvider,
) -> None:
    lookup = {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Look something up",
            "parameters": {
                "type": "object",
                "properties": {"units": {"type": "integer"}, "place": {"type": "string"}},
                "required": ["place"],
            },
        },
    }
    message = chat_message(chat(fake_provider, chat_request("杭州?", tools=[lookup])))
    call = message["tool_calls"][0]["function"]
    assert call["name"] == "lookup"
    assert json.loads(call["arguments"]) == {"place": "杭州"}


def test_chat_tool_choice(fake_provider: FakeProvider) -> None:
    none = chat_message(chat(fake_provider, chat_request(tool_choice="none")))
    assert "tool_calls" not in none and none["content"]
    # Forced (a non-thinking model: DeepSeek's thinking mode refuses it): a call even without a city.
    forced = chat_message(
        chat(fake_provider, chat_request("hello", model="gpt-4o", tool_choice="required"))
    )
    assert len(forced["tool_calls"]) == 1
    named = {"type": "function", "function": {"name": "get_time"}}
    message = chat_message(
        chat(fake_provider, chat_request("杭州", model="gpt-4o", tool_choice=named))
    )
    assert message["tool_calls"][0]["function"]["name"] == "get_time"


def test_chat_error_result_of_a_correct_call_is_quoted_not_repeated(
    fake_provider: FakeProvider,
) -> None:
    request = chat_request()
    message = chat_message(chat(fake_provider, request))
    request["messages"] += [message, *chat_results(message, {0: "service down"})]
    final = chat_message(chat(fake_provider, request))
    assert "tool_calls" not in final
    assert "杭州: [tool error] service down" in final["content"]


def test_chat_without_auth_when_key_is_none(fake_provider: FakeProvider) -> None:
    fake_provider.key = None
    assert chat(fake_provider, chat_request(), headers={}).status_code == 200


# ---------------------------------------------------------------------------------------------
# chat: auth


def test_chat_wrong_key_is_a_401_with_the_key_masked(fake_provider: FakeProvider) -> None:
    r = chat(fake_provider, chat_request(), headers={"Authorization": "Bearer sk-wrong-key-456789"})
    assert r.status_code == 401
    error = r.json()["error"]
    assert error == {
        "message": "Incorrect API key provided: sk-wr****789. You can find your API key at "
        "https://platform.openai.com/account/api-keys.",
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_api_key",
    }


def test_chat_missing_key_is_a_401(fake_provider: FakeProvider) -> None:
    r = chat(fake_provider, chat_request(), headers={})
    assert r.status_code == 401
    assert "You didn't provide an API key" in r.json()["error"]["message"]


def test_chat_401_can_echo_the_full_key(fake_provider: FakeProvider) -> None:
    fake_provider.echo_key_in_401 = True
    r = chat(
        fake_provider, chat_request(), headers={"Authorization": "Bearer sk-secret-0123456789"}
    )
    assert r.status_code == 401
    assert "sk-secret-0123456789" in r.json()["error"]["message"]


# ---------------------------------------------------------------------------------------------
# chat: the 400 rules, each tripped and not


def _history(**assistant_extra: Any) -> list[dict[str, Any]]:
    call = {
        "id": "call_00_a",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "杭州"}'},
    }
    assistant = {"role": "assistant", "content": "", "tool_calls": [call], **assistant_extra}
    return [{"role": "user", "content": "杭州天气"}, assistant]


def test_chat_400_tool_message_without_a_call(fake_provider: FakeProvider) -> None:
    messages = [
        {"role": "user", "content": "杭州天气"},
        {"role": "tool", "tool_call_id": "call_00_a", "content": "{}"},
    ]
    message = chat_400(chat(fake_provider, chat_request(messages=messages)))
    assert (
        message
        == "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'"
    )
    ok = [
        *_history(reasoning_content=""),
        {"role": "tool", "tool_call_id": "call_00_a", "content": "{}"},
    ]
    assert chat(fake_provider, chat_request(messages=ok)).status_code == 200


def test_chat_400_call_without_a_result(fake_provider: FakeProvider) -> None:
    messages = [*_history(reasoning_content=""), {"role": "user", "content": "and?"}]
    message = chat_400(chat(fake_provider, chat_request(messages=messages)))
    assert message == (
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: call_00_a"
    )
    # Also when the history simply ends with the call.
    assert "call_00_a" in chat_400(
        chat(fake_provider, chat_request(messages=_history(reasoning_content="")))
    )


def test_chat_400_reasoning_not_passed_back_in_thinking_mode(fake_provider: FakeProvider) -> None:
    messages = [*_history(), {"role": "tool", "tool_call_id": "call_00_a", "content": "{}"}]
    message = chat_400(chat(fake_provider, chat_request(messages=messages)))
    assert message == "The `reasoning_content` in the thinking mode must be passed back to the API."
    # Not tripped: thinking disabled, another model, or the key sent (even empty).
    assert (
        chat(
            fake_provider, chat_request(messages=messages, thinking={"type": "disabled"})
        ).status_code
        == 200
    )
    assert chat(fake_provider, chat_request(messages=messages, model="gpt-4o")).status_code == 200
    messages[1]["reasoning_content"] = ""
    assert chat(fake_provider, chat_request(messages=messages)).status_code == 200


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        ([{"type": "text", "text": "{}"}], "sequence"),
        ({"a": 1}, "map"),
        (42, "integer `42`"),
        (None, "null"),
    ],
)
def test_chat_400_tool_content_not_a_string(
    fake_provider: FakeProvider, content: Any, kind: str
) -> None:
    messages = [
        *_history(reasoning_content=""),
        {"role": "tool", "tool_call_id": "call_00_a", "content": content},
    ]
    message = chat_400(chat(fake_provider, chat_request(messages=messages)))
    assert message == (
        "Failed to deserialize the JSON body into the target type: "
        f"messages[2]: invalid type: {kind}, expected a string"
    )


@pytest.mark.parametrize("arguments", ['{"city": "杭', '["杭州"]', "null"])
def test_chat_400_arguments_not_a_json_object_string(
    fake_provider: FakeProvider, arguments: str
) -> None:
    messages = _history(reasoning_content="")
    second = {
        "id": "call_01_b",
        "type": "function",
        "function": {"name": "get_weather", "arguments": arguments},
    }
    messages[1]["tool_calls"].append(second)
    messages += [
        {"role": "tool", "tool_call_id": "call_00_a", "content": "{}"},
        {"role": "tool", "tool_call_id": "call_01_b", "content": "{}"},
    ]
    message = chat_400(chat(fake_provider, chat_request(messages=messages)))
    assert (
        message
        == "messages.1.tool_calls.1.function.arguments: arguments must be a valid JSON object string"
    )


def test_chat_400_forced_tool_choice_in_thinking_mode(fake_provider: FakeProvider) -> None:
    assert "thinking mode" in chat_400(chat(fake_provider, chat_request(tool_choice="required")))
    assert chat(fake_provider, chat_request(tool_choice="auto")).status_code == 200
    assert (
        chat(
            fake_provider, chat_request(tool_choice="required", thinking={"type": "disabled"})
        ).status_code
        == 200
    )


def test_chat_400_body_not_json(fake_provider: FakeProvider) -> None:
    r = post(fake_provider.url + "/chat/completions", content=b"{oops", headers=CHAT_HEADERS)
    assert "could not parse the JSON body" in chat_400(r)


# ---------------------------------------------------------------------------------------------
# Anthropic: the normal exchange


def test_anthropic_two_step_exchange(fake_provider: FakeProvider) -> None:
    request = anthropic_request()
    r = anthropic(fake_provider, request)
    body = r.json()
    assert body["type"] == "message" and body["role"] == "assistant"
    assert body["id"].startswith("msg_") and body["model"] == "claude-sonnet-4-5"
    assert body["stop_reason"] == "tool_use" and body["stop_sequence"] is None
    assert body["content"][0]["type"] == "text"
    uses = tool_uses(r)
    assert [u["input"] for u in uses] == [{"city": "杭州"}, {"city": "北京"}]
    assert all(u["name"] == "get_weather" and ANTHROPIC_ID.match(u["id"]) for u in uses)
    assert all(u["id"].startswith("toolu_") for u in uses)
    # As Anthropic does, the input in three parts; nothing cached without a cache_control.
    assert set(body["usage"]) == {
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "output_tokens",
    }
    assert body["usage"]["cache_read_input_tokens"] == 0

    request["messages"] += [
        {"role": "assistant", "content": body["content"]},
        anthropic_results(body["content"]),
    ]
    final = anthropic(fake_provider, request).json()
    assert final["stop_reason"] == "end_turn"
    assert [b["type"] for b in final["content"]] == ["text"]
    assert f"杭州: {weather('杭州')}" in final["content"][0]["text"]


def test_anthropic_thinking_block_comes_first(fake_provider: FakeProvider) -> None:
    request = anthropic_request(thinking={"type": "enabled", "budget_tokens": 2048})
    content = anthropic(fake_provider, request).json()["content"]
    assert [b["type"] for b in content] == ["thinking", "text", "tool_use", "tool_use"]
    assert content[0]["thinking"] and re.fullmatch(r"[A-Za-z0-9+/=]+", content[0]["signature"])


def test_anthropic_one_call_at_a_time(fake_provider: FakeProvider) -> None:
    request = anthropic_request(tool_choice={"type": "auto", "disable_parallel_tool_use": True})
    for city in ("杭州", "北京"):
        r = anthropic(fake_provider, request)
        assert [u["input"] for u in tool_uses(r)] == [{"city": city}]
        content = r.json()["content"]
        request["messages"] += [
            {"role": "assistant", "content": content},
            anthropic_results(content),
        ]
    assert anthropic(fake_provider, request).json()["stop_reason"] == "end_turn"


def test_anthropic_tool_choice(fake_provider: FakeProvider) -> None:
    none = anthropic(fake_provider, anthropic_request(tool_choice={"type": "none"})).json()
    assert none["stop_reason"] == "end_turn"
    anyone = anthropic(fake_provider, anthropic_request("hi", tool_choice={"type": "any"}))
    assert len(tool_uses(anyone)) == 1
    named = anthropic(
        fake_provider, anthropic_request("杭州", tool_choice={"type": "tool", "name": "get_time"})
    )
    assert tool_uses(named)[0]["name"] == "get_time"
    plain = anthropic(fake_provider, anthropic_request("Paris?")).json()
    assert plain["stop_reason"] == "end_turn" and plain["content"][0]["text"]


# ---------------------------------------------------------------------------------------------
# Anthropic: auth and the 400 rules


def test_anthropic_auth(fake_provider: FakeProvider) -> None:
    wrong = anthropic(
        fake_provider, anthropic_request(), headers={**ANTHROPIC_HEADERS, "x-api-key": "nope"}
    )
    assert wrong.status_code == 401
    assert wrong.json() == {
        "type": "error",
        "error": {"type": "authentication_error", "message": "invalid x-api-key"},
    }
    no_version = anthropic(fake_provider, anthropic_request(), headers={"x-api-key": DEFAULT_KEY})
    assert "anthropic-version" in anthropic_400(no_version)
    fake_provider.echo_key_in_401 = True
    echoed = anthropic(
        fake_provider,
        anthropic_request(),
        headers={**ANTHROPIC_HEADERS, "x-api-key": "sk-ant-full"},
    )
    assert "sk-ant-full" in echoed.json()["error"]["message"]


def test_anthropic_400_max_tokens_required(fake_provider: FakeProvider) -> None:
    request = anthropic_request()
    del request["max_tokens"]
    assert anthropic_400(anthropic(fake_provider, request)) == "max_tokens: Field required"


def _anthropic_history(tool_id: str = "toolu_01A") -> list[dict[str, Any]]:
    use = {"type": "tool_use", "id": tool_id, "name": "get_weather", "input": {"city": "杭州"}}
    return [{"role": "user", "content": "杭州天气"}, {"role": "assistant", "content": [use]}]


def _result(tool_id: str = "toolu_01A") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": "{}"}


def test_anthropic_400_tool_use_without_result(fake_provider: FakeProvider) -> None:
    messages = [*_anthropic_history(), {"role": "user", "content": "and?"}]
    message = anthropic_400(anthropic(fake_provider, anthropic_request(messages=messages)))
    assert message == (
        "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_01A. Each `tool_use` block must have a corresponding `tool_result` block in the "
        "next message."
    )
    # Results that do not LEAD the message count as missing.
    late = [
        *_anthropic_history(),
        {"role": "user", "content": [{"type": "text", "text": "here"}, _result()]},
    ]
    assert "toolu_01A" in anthropic_400(anthropic(fake_provider, anthropic_request(messages=late)))
    ok = [
        *_anthropic_history(),
        {"role": "user", "content": [_result(), {"type": "text", "text": "here"}]},
    ]
    assert anthropic(fake_provider, anthropic_request(messages=ok)).status_code == 200


def test_anthropic_400_result_without_tool_use(fake_provider: FakeProvider) -> None:
    messages = [
        *_anthropic_history(),
        {"role": "user", "content": [_result(), _result("toolu_XYZ")]},
    ]
    message = anthropic_400(anthropic(fake_provider, anthropic_request(messages=messages)))
    assert message == (
        "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_XYZ. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
    )


def test_anthropic_400_id_pattern(fake_provider: FakeProvider) -> None:
    messages = [*_anthropic_history("call:1"), {"role": "user", "content": [_result("call:1")]}]
    message = anthropic_400(anthropic(fake_provider, anthropic_request(messages=messages)))
    assert (
        message
        == "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
    )
    fine = [*_anthropic_history("call_00-x"), {"role": "user", "content": [_result("call_00-x")]}]
    assert anthropic(fake_provider, anthropic_request(messages=fine)).status_code == 200


def test_anthropic_400_thinking_with_forced_tool_choice(fake_provider: FakeProvider) -> None:
    thinking = {"type": "enabled", "budget_tokens": 2048}
    forced = anthropic_request(thinking=thinking, tool_choice={"type": "any"})
    assert anthropic_400(anthropic(fake_provider, forced)) == (
        "Thinking may not be enabled when tool_choice forces tool use."
    )
    auto = anthropic_request(thinking=thinking, tool_choice={"type": "auto"})
    assert anthropic(fake_provider, auto).status_code == 200


# ---------------------------------------------------------------------------------------------
# the script


@pytest.mark.parametrize("fmt", ["chat", "anthropic"])
def test_script_429_with_retry_after_then_normal(fake_provider: FakeProvider, fmt: str) -> None:
    fake_provider.script = [{"status": 429, "retry_after": "0"}]
    send = chat if fmt == "chat" else anthropic
    request = chat_request() if fmt == "chat" else anthropic_request()
    r = send(fake_provider, request)
    assert r.status_code == 429
    assert r.headers["retry-after"] == "0"
    if fmt == "chat":
        assert r.json()["error"]["code"] == "rate_limit_exceeded"
    else:
        assert r.json()["error"]["type"] == "rate_limit_error"
    assert send(fake_provider, request).status_code == 200
    assert fake_provider.script == []


def test_script_entries_are_consumed_in_order(fake_provider: FakeProvider) -> None:
    fake_provider.script = [
        {"status": 500},
        {"status": 503},
        {"status": 401},
        {"status": 400, "message": "nope"},
    ]
    codes = [chat(fake_provider, chat_request()) for _ in range(5)]
    assert [r.status_code for r in codes] == [500, 503, 401, 400, 200]
    assert codes[0].json()["error"]["type"] == "server_error"
    assert codes[2].json()["error"]["code"] == "invalid_api_key"
    assert codes[3].json()["error"]["message"] == "nope"
    fake_provider.script = [{"status": 500}, {"status": 503}]
    assert anthropic(fake_provider, anthropic_request()).json()["error"]["type"] == "api_error"
    assert (
        anthropic(fake_provider, anthropic_request()).json()["error"]["type"] == "overloaded_error"
    )


def test_script_close_drops_the_connection(fake_provider: FakeProvider) -> None:
    fake_provider.script = ["close"]
    with pytest.raises(httpx.RemoteProtocolError):
        chat(fake_provider, chat_request())
    assert chat(fake_provider, chat_request()).status_code == 200


def test_script_delay(fake_provider: FakeProvider) -> None:
    fake_provider.script = [{"delay": 0.3}]
    start = time.monotonic()
    assert chat(fake_provider, chat_request()).status_code == 200
    assert time.monotonic() - start >= 0.3


def test_script_bad_json_args_chat_then_recovery(fake_provider: FakeProvider) -> None:
    fake_provider.script = ["bad_json_args"]
    request = chat_request()
    message = chat_message(chat(fake_provider, request))
    assert message["tool_calls"][0]["function"]["arguments"] == '{"city": "杭'
    assert message["tool_calls"][1]["function"]["arguments"] == '{"city": "北京"}'
    # The broken arguments cannot go back verbatim (that is a 400 of its own): a harness sends
    # an object in their place, and the error as the result.
    sent = json.loads(json.dumps(message))
    sent["tool_calls"][0]["function"]["arguments"] = "{}"
    request["messages"] += [sent, *chat_results(message, {0: "arguments are not valid JSON"})]
    again = chat_message(chat(fake_provider, request))
    assert [json.loads(c["function"]["arguments"]) for c in again["tool_calls"]] == [
        {"city": "杭州"}
    ]
    request["messages"] += [again, *chat_results(again)]
    final = chat_message(chat(fake_provider, request))
    assert f"杭州: {weather('杭州')}" in final["content"] and "北京: " in final["content"]


def test_script_bad_json_args_anthropic_then_recovery(fake_provider: FakeProvider) -> None:
    fake_provider.script = ["bad_json_args"]
    request = anthropic_request("Weather in Hangzhou?")
    r = anthropic(fake_provider, request)
    assert [u["input"] for u in tool_uses(r)] == [{}]
    content = r.json()["content"]
    request["messages"] += [
        {"role": "assistant", "content": content},
        anthropic_results(content, {0: "city: Field required"}),
    ]
    again = anthropic(fake_provider, request)
    assert [u["input"] for u in tool_uses(again)] == [{"city": "Hangzhou"}]


@pytest.mark.parametrize(
    ("fault", "name", "arguments"),
    [("unknown_tool", "get_wether", {"city": "杭州"}), ("wrong_type", "get_weather", {"city": 42})],
)
def test_script_faulty_calls_then_recovery(
    fake_provider: FakeProvider, fault: str, name: str, arguments: dict[str, Any]
) -> None:
    fake_provider.script = [fault, fault]
    request = chat_request("杭州天气")
    message = chat_message(chat(fake_provider, request))
    call = message["tool_calls"][0]["function"]
    assert (call["name"], json.loads(call["arguments"])) == (name, arguments)
    results = [
        {
            "role": "tool",
            "tool_call_id": message["tool_calls"][0]["id"],
            "content": "[tool error] no",
        }
    ]
    request["messages"] += [message, *results]
    fake_provider.script.clear()
    again = chat_message(chat(fake_provider, request))["tool_calls"][0]["function"]
    assert (again["name"], json.loads(again["arguments"])) == ("get_weather", {"city": "杭州"})
    uses = tool_uses(anthropic(fake_provider, anthropic_request("杭州")))
    fake_provider.script = [fault]
    spoiled = tool_uses(anthropic(fake_provider, anthropic_request("杭州")))
    assert (spoiled[0]["name"], spoiled[0]["input"]) == (name, arguments)
    assert spoiled[0]["id"] == uses[0]["id"]


def test_script_unknown_entry_is_a_loud_500(fake_provider: FakeProvider) -> None:
    fake_provider.script = ["typo"]
    assert chat(fake_provider, chat_request()).status_code == 500
    assert "unknown script entry" in fake_provider.errors[0]
    fake_provider.errors.clear()


# ---------------------------------------------------------------------------------------------
# streams


def sse(text: str) -> list[tuple[str | None, str]]:
    """(event name, data) per event; comment lines dropped."""
    out = []
    for block in text.split("\n\n"):
        name, data = None, []
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
        if data:
            out.append((name, "\n".join(data)))
    return out


def assemble_chat(text: str) -> tuple[dict[str, Any], str | None, Any, bool]:
    """(message, finish_reason, usage, [DONE] seen), routing call deltas by id, then index."""
    message: dict[str, Any] = {"role": None, "content": None}
    calls: list[dict[str, Any]] = []
    by_index: dict[int, dict[str, Any]] = {}
    finish, usage, done = None, None, False
    for _, data in sse(text):
        if data == "[DONE]":
            done = True
            continue
        chunk = json.loads(data)
        assert chunk["object"] == "chat.completion.chunk"
        if chunk.get("usage"):
            usage = chunk["usage"]
        for choice in chunk["choices"]:
            delta = choice["delta"]
            if "role" in delta:
                message["role"] = delta["role"]
            for key in ("content", "reasoning_content"):
                if delta.get(key) is not None:
                    message[key] = (message.get(key) or "") + delta[key]
            for d in delta.get("tool_calls") or []:
                if d.get("id"):
                    call = {
                        "id": d["id"],
                        "type": d["type"],
                        "function": {"name": d["function"]["name"], "arguments": ""},
                    }
                    calls.append(call)
                    by_index[d["index"]] = call
                by_index[d["index"]]["function"]["arguments"] += d["function"].get("arguments", "")
            finish = choice["finish_reason"] or finish
    if calls:
        message["tool_calls"] = calls
    return message, finish, usage, done


def assemble_anthropic(text: str) -> dict[str, Any]:
    message: dict[str, Any] = {}
    partial: dict[int, str] = {}
    for name, data in sse(text):
        event = json.loads(data)
        assert event["type"] == name
        if name == "message_start":
            message = event["message"]
        elif name == "content_block_start":
            message["content"].append(dict(event["content_block"]))
        elif name == "content_block_delta":
            block, delta = message["content"][event["index"]], event["delta"]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            elif delta["type"] == "thinking_delta":
                block["thinking"] += delta["thinking"]
            elif delta["type"] == "signature_delta":
                block["signature"] = delta["signature"]
            else:
                partial[event["index"]] = partial.get(event["index"], "") + delta["partial_json"]
        elif name == "content_block_stop" and event["index"] in partial:
            message["content"][event["index"]]["input"] = json.loads(partial[event["index"]])
        elif name == "message_delta":
            message.update(event["delta"])
            message["usage"].update(event["usage"])
    return message


def _stream(fp: FakeProvider, request: dict[str, Any]) -> httpx.Response:
    r = chat(fp, {**request, "stream": True, "stream_options": {"include_usage": True}})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/event-stream")
    return r


@pytest.mark.parametrize("model", ["deepseek-v4-flash", "gpt-4o"])
def test_chat_stream_assembles_to_the_json_answer(fake_provider: FakeProvider, model: str) -> None:
    request = chat_request(model=model)
    for _ in range(2):  # the calls, then the final answer
        fake_provider.cache.clear()  # both answers come from an empty cache, so usage is alike
        plain = chat(fake_provider, request).json()
        fake_provider.cache.clear()
        r = _stream(fake_provider, request)
        message, finish, usage, done = assemble_chat(r.text)
        assert message == plain["choices"][0]["message"]
        assert finish == plain["choices"][0]["finish_reason"]
        assert usage == plain["usage"] and done
        chunks = [json.loads(d) for _, d in sse(r.text) if d != "[DONE]"]
        assert {c["id"] for c in chunks} == {plain["id"]}
        assert chunks[-1]["choices"] == []
        request["messages"] += [message, *chat_results(message)] if "tool_calls" in message else []
    assert finish == "stop"


def test_chat_stream_call_deltas(fake_provider: FakeProvider) -> None:
    fake_provider.fragment_size = 3
    r = _stream(fake_provider, chat_request())
    deltas = [
        d
        for _, data in sse(r.text)
        if data != "[DONE]"
        for c in json.loads(data)["choices"]
        for d in c["delta"].get("tool_calls", [])
    ]
    first = deltas[0]
    assert (
        first["index"] == 0 and first["type"] == "function" and first["function"]["arguments"] == ""
    )
    assert CHAT_ID.match(first["id"]) and first["function"]["name"] == "get_weather"
    rest = [d for d in deltas[1:] if "id" not in d]
    assert all(
        set(d) == {"index", "function"} and len(d["function"]["arguments"]) <= 3 for d in rest
    )
    assert {d["index"] for d in deltas} == {0, 1}
    no_usage = chat(fake_provider, {**chat_request(), "stream": True}).text
    assert all(json.loads(d)["choices"] for _, d in sse(no_usage) if d != "[DONE]")


def test_chat_stream_quirks_still_assemble(fake_provider: FakeProvider) -> None:
    plain = chat_message(chat(fake_provider, chat_request()))
    fake_provider.stream_quirks = {"keep_alive", "empty_id", "reuse_index0"}
    r = _stream(fake_provider, chat_request())
    assert ": keep-alive\n\n" in r.text
    message, finish, _, _ = assemble_chat(r.text)
    assert message == plain and finish == "tool_calls"
    deltas = [
        d
        for _, data in sse(r.text)
        if data != "[DONE]"
        for c in json.loads(data)["choices"]
        for d in c["delta"].get("tool_calls", [])
    ]
    assert {d["index"] for d in deltas} == {0}
    assert any(d.get("id") == "" and d.get("type") == "" for d in deltas)


def test_chat_stream_no_done(fake_provider: FakeProvider) -> None:
    fake_provider.stream_quirks = {"no_done"}
    _, finish, _, done = assemble_chat(_stream(fake_provider, chat_request()).text)
    assert finish == "tool_calls" and not done


def test_chat_stream_cut_mid_arguments(fake_provider: FakeProvider) -> None:
    fake_provider.stream_quirks = {"cut"}
    with pytest.raises(httpx.RemoteProtocolError):
        chat(fake_provider, {**chat_request(), "stream": True})
    fake_provider.stream_quirks = {"cut_clean"}
    message, finish, _, done = assemble_chat(_stream(fake_provider, chat_request()).text)
    assert finish is None and not done
    arguments = message["tool_calls"][0]["function"]["arguments"]
    assert arguments and not arguments.endswith("}")
    assert chat(fake_provider, chat_request()).status_code == 200


def test_chat_stream_errors_are_plain_json(fake_provider: FakeProvider) -> None:
    fake_provider.script = [{"status": 429, "retry_after": "0"}]
    r = chat(fake_provider, {**chat_request(), "stream": True})
    assert r.status_code == 429 and r.json()["error"]


@pytest.mark.parametrize("thinking", [None, {"type": "enabled", "budget_tokens": 2048}])
def test_anthropic_stream_assembles_to_the_json_answer(
    fake_provider: FakeProvider, thinking: dict[str, Any] | None
) -> None:
    request = anthropic_request(**({"thinking": thinking} if thinking else {}))
    for _ in range(2):
        plain = anthropic(fake_provider, request).json()
        r = anthropic(fake_provider, {**request, "stream": True})
        assert r.headers["content-type"].startswith("text/event-stream")
        assert assemble_anthropic(r.text) == plain
        names = [n for n, _ in sse(r.text)]
        assert names[0] == "message_start" and names[-1] == "message_stop" and "ping" in names
        request["messages"] += [
            {"role": "assistant", "content": plain["content"]},
            anthropic_results(plain["content"]),
        ]
    assert plain["stop_reason"] == "end_turn"


def test_anthropic_stream_quirks(fake_provider: FakeProvider) -> None:
    fake_provider.stream_quirks = {"no_done", "keep_alive"}
    r = anthropic(fake_provider, {**anthropic_request(), "stream": True})
    assert [n for n, _ in sse(r.text)][-1] == "message_delta"
    assert ": keep-alive" in r.text
    fake_provider.stream_quirks = {"cut"}
    with pytest.raises(httpx.RemoteProtocolError):
        anthropic(fake_provider, {**anthropic_request(), "stream": True})
