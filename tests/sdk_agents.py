"""Agents written with the official `openai` and `anthropic` SDKs, as a user writes one: ask with
the weather tool, run the calls the model asks for, hand the results back, until it answers.

Each keeps the bytes of every answer it received (a transport that copies what the SDK
reads), so a test can compare them with what a provider sent.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from typing import Any

from fccli.tools.weather import get_weather

QUESTION = "杭州今天适合跑步吗？"
MODELS = {"openai": "gpt-4.1-mini", "anthropic": "claude-haiku-4-5"}
"""fc run's default models: the agents ask for the same."""
MAX_TOKENS = 4096
"""What fc run asks Anthropic for; Anthropic's SDK needs a value."""
TOOL = {
    "name": "get_weather",
    "description": "查询某个城市当前的天气。返回温度（摄氏度）、天气状况和空气质量指数。",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "城市名，例如：杭州"}},
        "required": ["city"],
        "additionalProperties": False,
    },
}
"""The weather tool, defined as fc's built-in one is."""


def copying_client(sdk: Any, bodies: list[bytearray]) -> Any:
    """The SDK's own HTTP client (httpx, or httpx2 in newer SDKs), with a transport that keeps
    each response body in `bodies` as the SDK reads it."""
    http = importlib.import_module(sdk.DefaultHttpxClient.__mro__[1].__module__.partition(".")[0])

    class Copied(http.SyncByteStream):  # type: ignore[misc,name-defined]
        def __init__(self, inner: Any, copy: bytearray) -> None:
            self._inner, self._copy = inner, copy

        def __iter__(self) -> Iterator[bytes]:
            for chunk in self._inner:
                self._copy.extend(chunk)
                yield chunk

        def close(self) -> None:
            self._inner.close()

    class Copying(http.BaseTransport):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            self._inner = http.HTTPTransport()

        def handle_request(self, request: Any) -> Any:
            response = self._inner.handle_request(request)
            bodies.append(bytearray())
            response.stream = Copied(response.stream, bodies[-1])
            return response

        def close(self) -> None:
            self._inner.close()

    return sdk.DefaultHttpxClient(transport=Copying())


def result_text(arguments: dict[str, Any]) -> str:
    return json.dumps(get_weather(**arguments), ensure_ascii=False)


def openai_agent(base_url: str, *, stream: bool, bodies: list[bytearray]) -> str:
    """The round trip with the OpenAI SDK; returns the model's answer."""
    import openai

    client = openai.OpenAI(
        base_url=base_url,
        api_key="sk-agent-key",
        max_retries=0,
        http_client=copying_client(openai, bodies),
    )
    tools: Any = [{"type": "function", "function": TOOL}]
    messages: list[Any] = [{"role": "user", "content": QUESTION}]
    for _ in range(4):
        if stream:
            with client.chat.completions.stream(
                model=MODELS["openai"], messages=messages, tools=tools
            ) as events:
                completion: Any = events.get_final_completion()
        else:
            completion = client.chat.completions.create(
                model=MODELS["openai"], messages=messages, tools=tools
            )
        message = completion.choices[0].message
        if not message.tool_calls:
            return str(message.content)
        calls = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.function.name, "arguments": c.function.arguments},
            }
            for c in message.tool_calls
        ]
        messages.append({"role": "assistant", "content": message.content, "tool_calls": calls})
        for c in message.tool_calls:
            result = result_text(json.loads(c.function.arguments))
            messages.append({"role": "tool", "tool_call_id": c.id, "content": result})
    raise AssertionError("the model never answered")


def anthropic_agent(base_url: str, *, stream: bool, bodies: list[bytearray]) -> str:
    """The round trip with the Anthropic SDK; returns the model's answer."""
    import anthropic

    client = anthropic.Anthropic(
        base_url=base_url,
        api_key="sk-ant-agent-key",
        max_retries=0,
        http_client=copying_client(anthropic, bodies),
    )
    tools: Any = [
        {
            "name": TOOL["name"],
            "description": TOOL["description"],
            "input_schema": TOOL["parameters"],
        }
    ]
    messages: list[Any] = [{"role": "user", "content": [{"type": "text", "text": QUESTION}]}]
    for _ in range(4):
        if stream:
            with client.messages.stream(
                model=MODELS["anthropic"], max_tokens=MAX_TOKENS, messages=messages, tools=tools
            ) as events:
                reply: Any = events.get_final_message()
        else:
            reply = client.messages.create(
                model=MODELS["anthropic"], max_tokens=MAX_TOKENS, messages=messages, tools=tools
            )
        calls = [b for b in reply.content if b.type == "tool_use"]
        if not calls:
            return "".join(b.text for b in reply.content if b.type == "text")
        messages.append(
            {
                "role": "assistant",
                "content": [b.model_dump(exclude_none=True) for b in reply.content],
            }
        )
        results = [
            {"type": "tool_result", "tool_use_id": c.id, "content": result_text(c.input)}
            for c in calls
        ]
        messages.append({"role": "user", "content": results})
    raise AssertionError("the model never answered")


AGENTS = {"openai": openai_agent, "anthropic": anthropic_agent}
