"""A two-tool agent written against the openai SDK, traced by another project's instrumentation,
its spans kept in memory (the heavy imports are made here, by the tests that need them)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

QUESTION = "杭州和北京今天适合跑步吗？"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather of a city now.",
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
            "name": "get_time",
            "description": "The local time in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    },
]


def weather(city: str) -> str:
    return json.dumps({"city": city, "temp_c": 21}, ensure_ascii=False)


def run_agent(base_url: str, key: str, wrap: Callable[[], Any] | None = None) -> list[Any]:
    """Ask the question, run each call the model makes, send the results back, until it
    answers; return the messages sent last. `wrap`: a context the whole run is inside (an
    agent's own span)."""
    import openai

    client = openai.OpenAI(base_url=base_url, api_key=key, max_retries=0)
    messages: list[Any] = [
        {"role": "system", "content": "Answer briefly."},
        {"role": "user", "content": QUESTION},
    ]
    with wrap() if wrap is not None else _nothing():
        for _ in range(4):
            reply = client.chat.completions.create(
                model="gpt-4.1-mini", messages=messages, tools=TOOLS
            )
            message = reply.choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            if not message.tool_calls:
                break
            for call in message.tool_calls:
                city = json.loads(call.function.arguments)["city"]
                messages.append({"role": "tool", "tool_call_id": call.id, "content": weather(city)})
    client.close()
    return messages


@contextmanager
def _nothing() -> Iterator[None]:
    yield


@contextmanager
def traced(instrumentor: Any) -> Iterator[Any]:
    """Instrument the openai SDK with `instrumentor` into an in-memory exporter; yield the
    exporter; take the instrumentation off again."""
    from opentelemetry.instrumentation._semconv import _OpenTelemetrySemanticConventionStability
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    # the stability mode is read once per process, at the first instrumentation: read it anew
    _OpenTelemetrySemanticConventionStability._initialized = False
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor.instrument(tracer_provider=provider)
    try:
        yield exporter, provider
    finally:
        instrumentor.uninstrument()
        _OpenTelemetrySemanticConventionStability._initialized = False
        _unwrapped()


def _unwrapped() -> None:
    """Take off every wrapper an instrumentation left on the openai SDK's methods: OpenLLMetry's
    uninstrument() stops at the first beta API this SDK no longer has, and leaves the Responses
    API wrapped for every later test in the process."""
    import inspect
    import sys

    for name, module in list(sys.modules.items()):
        if not name.startswith("openai.resources") or module is None:
            continue
        for holder in list(vars(module).values()):
            if not inspect.isclass(holder) or holder.__module__ != name:
                continue
            for attribute, value in list(vars(holder).items()):
                # wrapt's FunctionWrapper (its C type is not wrapt.ObjectProxy in wrapt 2)
                while type(value).__name__ == "FunctionWrapper" and hasattr(value, "__wrapped__"):
                    value = value.__wrapped__
                    setattr(holder, attribute, value)
