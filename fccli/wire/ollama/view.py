"""Ollama's native chat read leniently for `fc check` (wire/view.py): calls in an assistant
message's `tool_calls` with their arguments as an object, each result its own `role: "tool"`
message, paired by `tool_call_id` or else by `tool_name` and order."""

from __future__ import annotations

from typing import Any

from fccli.wire.ollama.codec import ERROR_MARKER, invented_id, turn_key
from fccli.wire.view import Call, Turn, as_id, as_object, marked_result, texts


def native_turn(message: dict[str, Any], index: int, path: str) -> Turn:
    """One message; a call without an id gets the one the codec gives it (pair_results pairs
    the results that name no call)."""
    role = message.get("role")
    turn = Turn(index, role, path, raw=message)
    if role == "tool":
        turn.kinds.append("result")
        result = marked_result(
            message.get("tool_call_id"),
            message.get("content"),
            ERROR_MARKER,
            index,
            0,
            path,
            "tool_call_id",
            "content",
        )
        if "tool_call_id" not in message:
            result.name = message.get("tool_name")
        turn.results.append(result)
        return turn
    if message.get("thinking"):
        turn.kinds.append("thinking")
    turn.text = texts(message.get("content"))
    if turn.text:
        turn.kinds.append("text")
    calls = message.get("tool_calls")
    turn_text = turn_key(message)
    for k, call in enumerate(calls if isinstance(calls, list) else []):
        if not isinstance(call, dict):
            continue
        where = f"{path}.tool_calls[{k}]"
        function = as_object(call.get("function"))
        name, arguments = function.get("name"), function.get("arguments", {})
        call_id = as_id(call.get("id"))
        if not call.get("id") and isinstance(name, str):
            call_id = invented_id(name, arguments, k, turn_text)
        turn.kinds.append("call")
        turn.calls.append(
            Call(
                call_id,
                name,
                arguments,
                arguments,
                True,
                index,
                k,
                where,
                f"{where}.function.arguments",
                f"{where}.function.name",
            )
        )
    return turn


def pair_results(turns: list[Turn]) -> None:
    """Give each result without a `tool_call_id` the id of the first call of the assistant turn
    before it that has its `tool_name` and no result yet (its first unanswered call when it
    names none), as Ollama pairs them."""
    unanswered: list[Call] = []
    for turn in turns:
        if turn.role == "assistant":
            unanswered = list(turn.calls)
            continue
        for result in turn.results:
            if result.call_id is None and "tool_call_id" not in turn.raw:
                match = next((c for c in unanswered if c.name == result.name), None)
                if match is None and not result.name and unanswered:
                    match = unanswered[0]
                # No call to pair with: the id the codec gives it, which no call has (FC102).
                name = result.name if isinstance(result.name, str) else ""
                result.call_id = match.id if match is not None else invented_id(name, None, -1)
            match = next((c for c in unanswered if c.id == result.call_id), None)
            if match is not None:
                unanswered.remove(match)
