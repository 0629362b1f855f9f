"""A small agent, as a developer writes one with the openai SDK: two tools, one call at a time,
until the model answers. It reads OPENAI_BASE_URL and OPENAI_API_KEY from the environment."""

from __future__ import annotations

import json
from typing import Any

from openai import OpenAI

TODAY = {
    "Beijing": {"temp_c": 12, "condition": "sunny"},
    "Shanghai": {"temp_c": 17, "condition": "cloudy"},
}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Today's weather in a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "pack_for",
            "description": "What to wear at a temperature in °C",
            "parameters": {
                "type": "object",
                "properties": {"temp_c": {"type": "number"}},
                "required": ["temp_c"],
            },
        },
    },
]


def get_weather(city: str) -> dict[str, Any]:
    return TODAY.get(city, {"error": f"no weather for {city}"})


def pack_for(temp_c: float) -> str:
    return "a coat" if temp_c < 15 else "a jacket"


def run(question: str, model: str = "gpt-4.1-mini", max_steps: int = 5) -> str:
    """Ask, run the calls the model makes, send the results back; the model's last words."""
    client = OpenAI()
    messages: list[Any] = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        reply = client.chat.completions.create(
            model=model, messages=messages, tools=TOOLS, parallel_tool_calls=False
        )
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content or ""
        for call in message.tool_calls:
            tool = {"get_weather": get_weather, "pack_for": pack_for}[call.function.name]
            result = tool(**json.loads(call.function.arguments))
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}
            )
    return ""
