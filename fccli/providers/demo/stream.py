"""The demo model's answer as DeepSeek streams it: server-sent events, fragment by fragment.

Cut the same way every time (so offline traces repeat byte for byte), and small, so a learner
sees a call's arguments arrive in pieces, as a real model writes them. The chunk shapes follow
DeepSeek's and OpenAI's streams (PROTOCOL.md, "Streaming"): the call's head carries `index`,
`id`, `type` and `name` with empty arguments; later fragments only `index` and `arguments`;
`finish_reason` on the last choice chunk; with `include_usage` a last chunk with no choices.
"""

from __future__ import annotations

import json
from typing import Any

TEXT_FRAGMENT = 6
"""Characters of text or reasoning per chunk."""
ARGUMENTS_FRAGMENT = 5
"""Characters of a call's arguments per chunk: small, so even `{"city": "杭州"}` comes in pieces."""


def sse_events(response: dict[str, Any], *, include_usage: bool) -> list[bytes]:
    """One `data:` event per chunk, ending in `data: [DONE]`."""
    envelope = {k: response[k] for k in ("id", "created", "model", "system_fingerprint")}
    choice = response["choices"][0]
    message = choice["message"]

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        body = {
            "id": envelope["id"],
            "object": "chat.completion.chunk",
            "created": envelope["created"],
            "model": envelope["model"],
            "system_fingerprint": envelope["system_fingerprint"],
            "choices": [
                {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
            ],
        }
        return _event(body)

    events = [chunk({"role": "assistant", "content": ""})]
    for key in ("reasoning_content", "content"):
        text = message.get(key) or ""
        events += [chunk({key: piece}) for piece in _pieces(text, TEXT_FRAGMENT)]
    for index, call in enumerate(message.get("tool_calls", [])):
        head = {"index": index, "id": call["id"], "type": "function"}
        head["function"] = {"name": call["function"]["name"], "arguments": ""}
        events.append(chunk({"tool_calls": [head]}))
        for piece in _pieces(call["function"]["arguments"], ARGUMENTS_FRAGMENT):
            fragment = {"index": index, "function": {"arguments": piece}}
            events.append(chunk({"tool_calls": [fragment]}))
    events.append(chunk({}, choice["finish_reason"]))
    if include_usage:
        usage = {k: v for k, v in envelope.items() if k != "system_fingerprint"}
        events.append(
            _event(
                {
                    "id": usage["id"],
                    "object": "chat.completion.chunk",
                    "created": usage["created"],
                    "model": usage["model"],
                    "system_fingerprint": envelope["system_fingerprint"],
                    "choices": [],
                    "usage": response["usage"],
                }
            )
        )
    events.append(b"data: [DONE]\n\n")
    return events


def cut_inside_first_call(events: list[bytes]) -> list[bytes]:
    """The events up to the middle of the first call's arguments (index 0, whatever calls
    follow): a connection that dropped while the model was writing them (`cut-stream`)."""
    # A fragment, not a head: the head's function starts with its name.
    fragments = [
        i
        for i, e in enumerate(events)
        if b'"function":{"arguments":' in e and b'"tool_calls":[{"index":0,' in e
    ]
    if len(fragments) < 2:
        return events[: max(1, len(events) // 2)]
    return events[: fragments[len(fragments) // 2]]


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _event(body: dict[str, Any]) -> bytes:
    data = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    return b"data: " + data.encode("utf-8") + b"\n\n"
