"""The fake provider's Ollama: `POST /api/chat` in Ollama's native format (api/types.go).

No key (Ollama asks for none). The request is read into the Anthropic shape for the fake's
model and answered in Ollama's: calls with `arguments` as objects and no ids (as older servers
send them; `FakeProvider.ollama_ids` gives them ids as newer servers do), results paired by
`tool_call_id` or else by `tool_name` and order, usage as prompt_eval_count / eval_count with
durations in nanoseconds. With `stream` true or absent (Ollama's default) the answer is NDJSON:
text and thinking in fragments, each call whole on a line of its own, `done: true` last; the
stream quirks `cut`, `cut_clean`, `error_event` and `no_done` break it as a real one breaks.

Its 400s are Ollama's own (its Go JSON decoder's words, quoted in fccli/wire/ollama/format.py).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from tests.support import fake_provider as fp

PATH = "/api/chat"
CREATED_AT = "2026-01-01T00:00:00Z"
# aliasrobotics/cai#76: an OpenAI-style arguments string sent to /api/chat.
ARGUMENTS_NOT_OBJECT = (
    "json: cannot unmarshal {kind} into Go struct field "
    "ChatRequest.messages.tool_calls.function.arguments of type api.ToolCallFunctionArguments"
)
# BerriAI/litellm#11273: a content array (OpenAI's parts) where Ollama takes a string.
CONTENT_NOT_STRING = (
    "json: cannot unmarshal {kind} into Go struct field ChatRequest.messages.content of type string"
)
STREAM_ERROR = {"error": "an error was encountered while running the model: unexpected EOF"}


def _go_kind(value: Any) -> str:
    """The JSON kind as Go's decoder names it in an UnmarshalTypeError."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def problem(request: dict[str, Any]) -> str | None:
    """Ollama's 400 for a body its decoder refuses, or None."""
    if not request.get("model"):
        return "model is required"
    for message in request.get("messages") or []:
        if not isinstance(message, dict):
            continue
        content = message.get("content", "")
        if not isinstance(content, str):
            return CONTENT_NOT_STRING.format(kind=_go_kind(content))
        for call in message.get("tool_calls") or []:
            function = call.get("function") if isinstance(call, dict) else None
            arguments = function.get("arguments") if isinstance(function, dict) else None
            if arguments is not None and not isinstance(arguments, dict):
                return ARGUMENTS_NOT_OBJECT.format(kind=_go_kind(arguments))
    return None


def as_anthropic(request: dict[str, Any]) -> dict[str, Any]:
    """The request in the shape the fake's model reads: calls and results as blocks."""
    messages: list[dict[str, Any]] = []
    unanswered: list[tuple[str, str]] = []
    for i, message in enumerate(request.get("messages") or []):
        if not isinstance(message, dict):
            continue
        role, content = message.get("role"), str(message.get("content") or "")
        if role == "assistant":
            blocks: list[dict[str, Any]] = [{"type": "text", "text": content}] if content else []
            unanswered = []
            for k, call in enumerate(message.get("tool_calls") or []):
                function = call.get("function") or {}
                call_id = str(call.get("id") or f"c{i}-{k}")
                unanswered.append((call_id, str(function.get("name"))))
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call_id,
                        "name": function.get("name"),
                        "input": function.get("arguments"),
                    }
                )
            messages.append({"role": "assistant", "content": blocks})
        elif role == "tool":
            call_id = message.get("tool_call_id")
            if call_id is None:
                match = next((c for c in unanswered if c[1] == message.get("tool_name")), None)
                call_id = match[0] if match else "unpaired"
                if match:
                    unanswered.remove(match)
            result = {
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": content,
                "is_error": content.startswith(fp.ERROR_MARKER),
            }
            messages.append({"role": "user", "content": [result]})
        elif role == "user":
            messages.append({"role": "user", "content": [{"type": "text", "text": content}]})
    tools = []
    for tool in request.get("tools") or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict):
            tools.append(
                {
                    "name": function.get("name"),
                    "description": function.get("description") or "",
                    "input_schema": function.get("parameters") or {},
                }
            )
    think = request.get("think")
    thinking = {"type": "enabled" if think is True or isinstance(think, str) else "disabled"}
    return {
        "model": request.get("model"),
        "messages": messages,
        "tools": tools,
        "thinking": thinking,
    }


def response(request: dict[str, Any], reply: Any, ids: bool) -> dict[str, Any]:
    seed = fp._seed(request)
    think = request.get("think")
    message: dict[str, Any] = {
        "role": "assistant",
        "content": reply.text if not reply.calls else "",
    }
    if (think is True or isinstance(think, str)) and reply.reasoning:
        message["thinking"] = reply.reasoning
    calls = []
    for i, c in enumerate(reply.calls):
        call: dict[str, Any] = {"function": {"index": i, "name": c.name, "arguments": c.input}}
        if ids:
            call = {"id": "call_" + fp._hid(seed, f"call{i}", 8), **call}
        calls.append(call)
    if calls:
        message["tool_calls"] = calls
    prompt = max(1, fp._tokens(json.dumps(request.get("messages"), ensure_ascii=False)))
    answer = max(1, fp._tokens(message["content"] + json.dumps(calls, ensure_ascii=False)))
    spread = int(hashlib.sha256(seed.encode()).hexdigest()[:4], 16)
    return {
        "model": request.get("model"),
        "created_at": CREATED_AT,
        "message": message,
        "done": True,
        "done_reason": "stop",
        "total_duration": 1_000_000_000 + spread * 1000,
        "load_duration": 20_000_000,
        "prompt_eval_count": prompt,
        "prompt_eval_duration": prompt * 2_000_000,
        "eval_count": answer,
        "eval_duration": answer * 25_000_000,
    }


def lines(body: dict[str, Any], provider: Any) -> list[Any]:
    """The answer as `/api/chat` streams it: one JSON object a line."""
    head = {"model": body.get("model"), "created_at": body.get("created_at")}
    message = body["message"]
    out: list[Any] = []

    def line(piece: dict[str, Any]) -> str:
        return (
            fp._dumps(
                {**head, "message": {"role": "assistant", "content": "", **piece}, "done": False}
            )
            + "\n"
        )

    for piece in fp._pieces(message.get("thinking", ""), provider.text_fragment_size):
        out.append(line({"thinking": piece}))
    for piece in fp._pieces(message.get("content", ""), provider.text_fragment_size):
        out.append(line({"content": piece}))
    for call in message.get("tool_calls") or []:
        out.append(line({"tool_calls": [call]}))
    out.insert(max(1, len(out) // 2), fp._CUT)
    if "no_done" not in provider.stream_quirks:
        end = {k: v for k, v in body.items() if k != "message"}
        last = {**head, "message": {"role": "assistant", "content": ""}, **end}
        out.append(fp._dumps(last) + "\n")
    return out


def serve(provider: Any, h: Any, request: Any, entry: Any) -> None:
    """Answer one request to `/api/chat` (raises fp._HttpError for an error answer)."""
    fault: str | None = None
    if isinstance(entry, dict) and "hostile" in entry:
        provider._hostile(h, "ollama", {}, entry)
        return
    if isinstance(entry, dict) and "status" in entry:
        status = int(entry["status"])
        message = entry.get("message") or f"HTTP {status} (scripted by the fake provider)"
        raise fp._HttpError(status, {"error": message})
    if entry == "close":
        h.close_connection = True
        return
    if isinstance(entry, str) and entry in fp.FAULTS:
        fault = entry
    if request is fp._NOT_JSON or not isinstance(request, dict):
        raise fp._HttpError(400, {"error": "invalid character looking for beginning of value"})
    refused = problem(request)
    if refused is not None:
        raise fp._HttpError(400, {"error": refused})
    if isinstance(entry, dict) and "answer" in entry:
        body = entry["answer"]
    else:
        model = fp._Model(as_anthropic(request), "anthropic")
        reply = model.reply()
        if fault is not None:
            reply = fp._apply_fault(reply, fault, model.offered_names)
        if isinstance(entry, dict) and entry.get("echo_auth"):  # the key, as fp's other APIs
            reply = fp._echo_auth(reply, h.headers.get("authorization", ""), entry["echo_auth"])
        if isinstance(entry, dict) and entry.get("escape"):
            h.escape = h.headers.get("authorization", "")
        body = response(request, reply, getattr(provider, "ollama_ids", False))
    if request.get("stream", True) is not False and "ignore_stream" not in provider.stream_quirks:
        provider._write_stream(h, lines(body, provider), fp._dumps(STREAM_ERROR) + "\n", NDJSON)
    else:
        fp._send_json(h, 200, body)


NDJSON = "application/x-ndjson"
