"""Agents written as a developer would, with the official SDKs: each takes a base URL, so the
same code runs against the provider directly, through `fc proxy`, and against `fc serve`.

Each returns what the SDK received, byte for byte, per request (a transport that tees the bytes
as the SDK reads them), and the conversation's final messages.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

RunTool = Callable[[str, dict[str, Any]], str]


@dataclass
class Received:
    """What one agent's SDK got: each answer's body as it arrived, in order."""

    bodies: list[bytes] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)


def tee_client(received: Received, http: Any = httpx) -> Any:
    """A client of the `http` module (httpx; the anthropic SDK has moved to httpx2) whose
    transport keeps a copy of each answer's bytes as the SDK reads them."""

    class Tee(http.SyncByteStream):  # type: ignore[misc,name-defined]
        def __init__(self, inner: Any, index: int) -> None:
            self.inner = inner
            self.index = index

        def __iter__(self) -> Iterator[bytes]:
            for chunk in self.inner:
                received.bodies[self.index] += chunk
                yield chunk

        def close(self) -> None:
            self.inner.close()

    class TeeTransport(http.HTTPTransport):  # type: ignore[misc,name-defined]
        def handle_request(self, request: Any) -> Any:
            response = super().handle_request(request)
            received.statuses.append(response.status_code)
            received.bodies.append(b"")
            response.stream = Tee(response.stream, len(received.bodies) - 1)
            return response

    # verify=False: the agents talk plain HTTP to 127.0.0.1; no CA bundle to load
    return http.Client(transport=TeeTransport(verify=False), timeout=30)


def openai_agent(
    base_url: str,
    api_key: str,
    question: str,
    tools: list[dict[str, Any]],
    run_tool: RunTool,
    *,
    model: str = "gpt-4.1-mini",
    stream: bool = False,
    max_steps: int = 4,
) -> tuple[Received, list[dict[str, Any]]]:
    """A chat-completions tool loop with the `openai` SDK: ask, run the calls, send the results."""
    import openai

    received = Received()
    client = openai.OpenAI(base_url=base_url, api_key=api_key, http_client=tee_client(received))
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        extra: dict[str, Any] = {"stream_options": {"include_usage": True}} if stream else {}
        if stream:
            chunks = client.chat.completions.create(
                model=model, messages=messages, tools=tools, stream=True, **extra
            )
            message = _assembled(chunks)
        else:
            answer = client.chat.completions.create(model=model, messages=messages, tools=tools)
            choice = answer.choices[0].message
            message = {
                "role": "assistant",
                "content": choice.content,
                "tool_calls": [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.function.name, "arguments": c.function.arguments},
                    }
                    for c in choice.tool_calls or []
                ],
            }
        if not message["tool_calls"]:
            messages.append({"role": "assistant", "content": message["content"]})
            break
        for call in message["tool_calls"]:
            # Handed back as fc's own harness does (compact JSON of what it parsed), so that
            # the history, and with it the whole trace, can be compared with `fc run`'s.
            parsed = json.loads(call["function"]["arguments"])
            call["function"]["arguments"] = json.dumps(
                parsed, ensure_ascii=False, separators=(",", ":")
            )
        messages.append(message)
        for call in message["tool_calls"]:
            args = json.loads(call["function"]["arguments"])
            result = run_tool(call["function"]["name"], args)
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    client.close()
    return received, messages


def _assembled(chunks: Any) -> dict[str, Any]:
    """A streamed chat answer put together as agents do: text pieces joined, calls by index."""
    text: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        for choice in chunk.choices:
            delta = choice.delta
            if delta.content:
                text.append(delta.content)
            for part in delta.tool_calls or []:
                call = calls.setdefault(
                    part.index,
                    {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
                )
                if part.id:
                    call["id"] = part.id
                if part.function and part.function.name:
                    call["function"]["name"] += part.function.name
                if part.function and part.function.arguments:
                    call["function"]["arguments"] += part.function.arguments
    return {
        "role": "assistant",
        "content": "".join(text) or None,
        "tool_calls": [calls[i] for i in sorted(calls)],
    }


def anthropic_agent(
    base_url: str,
    api_key: str,
    question: str,
    tools: list[dict[str, Any]],
    run_tool: RunTool,
    *,
    model: str = "claude-haiku-4-5",
    stream: bool = False,
    max_steps: int = 4,
    max_tokens: int = 4096,
) -> tuple[Received, list[dict[str, Any]]]:
    """A Messages tool loop with the `anthropic` SDK: all results in one user message."""
    import anthropic

    received = Received()
    http = __import__("httpx2") if _uses_httpx2() else httpx
    client = anthropic.Anthropic(
        base_url=base_url, api_key=api_key, http_client=tee_client(received, http)
    )
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": question}]}
    ]
    for _ in range(max_steps):
        ask = {"model": model, "max_tokens": max_tokens, "messages": messages, "tools": tools}
        if stream:
            with client.messages.stream(**ask) as events:
                answer = events.get_final_message()
        else:
            answer = client.messages.create(**ask)
        content = [block.model_dump(exclude_none=True) for block in answer.content]
        messages.append({"role": "assistant", "content": content})
        calls = [block for block in answer.content if block.type == "tool_use"]
        if answer.stop_reason != "tool_use" or not calls:
            break
        results = [
            {"type": "tool_result", "tool_use_id": c.id, "content": run_tool(c.name, dict(c.input))}
            for c in calls
        ]
        messages.append({"role": "user", "content": results})
    client.close()
    return received, messages


def _uses_httpx2() -> bool:
    from importlib.util import find_spec

    return find_spec("httpx2") is not None


def responses_agent(
    base_url: str,
    api_key: str,
    question: str,
    tools: list[dict[str, Any]],
    run_tool: RunTool,
    *,
    model: str = "gpt-5-mini",
    stream: bool = False,
    max_steps: int = 4,
) -> tuple[Received, list[Any]]:
    """A Responses API tool loop with the `openai` SDK: the output items go back as they came,
    one function_call_output per call."""
    import openai

    received = Received()
    client = openai.OpenAI(base_url=base_url, api_key=api_key, http_client=tee_client(received))
    items: list[Any] = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        if stream:
            with client.responses.stream(model=model, input=items, tools=tools) as events:
                answer = events.get_final_response()
        else:
            answer = client.responses.create(model=model, input=items, tools=tools)
        output = [item.model_dump(exclude_none=True) for item in answer.output]
        items += output
        calls = [item for item in output if item["type"] == "function_call"]
        if not calls:
            break
        for call in calls:
            result = run_tool(call["name"], json.loads(call["arguments"]))
            items.append(
                {"type": "function_call_output", "call_id": call["call_id"], "output": result}
            )
    client.close()
    return received, items
