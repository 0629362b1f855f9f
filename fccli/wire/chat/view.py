"""The chat format read leniently for `fc check` (wire/view.py): calls in an assistant message's
`tool_calls`, each result its own `role: "tool"` message."""

from __future__ import annotations

from typing import Any

from fccli.wire.chat.codec import ERROR_MARKER
from fccli.wire.view import Choice, Turn, as_object, marked_result, string_call, texts, word_choice


def chat_turn(message: dict[str, Any], index: int, path: str) -> Turn:
    role = message.get("role")
    turn = Turn(index, role, path, raw=message)
    if role == "tool":
        turn.kinds.append("result")
        turn.results.append(
            marked_result(
                message.get("tool_call_id"),
                message.get("content"),
                ERROR_MARKER,
                index,
                0,
                path,
                "tool_call_id",
                "content",
            )
        )
        return turn
    if message.get("reasoning_content"):
        turn.kinds.append("thinking")
    turn.text = texts(message.get("content"))
    if turn.text:
        turn.kinds.append("text")
    calls = message.get("tool_calls")
    for k, call in enumerate(calls if isinstance(calls, list) else []):
        if not isinstance(call, dict):
            continue
        where = f"{path}.tool_calls[{k}]"
        function = as_object(call.get("function"))
        turn.kinds.append("call")
        turn.calls.append(
            string_call(
                call.get("id"),
                function.get("name"),
                function.get("arguments"),
                index,
                k,
                where,
                f"{where}.function.arguments",
                f"{where}.function.name",
            )
        )
    return turn


def chat_choice(doc: dict[str, Any]) -> Choice | None:
    choice = doc.get("tool_choice")
    function = choice.get("function") if isinstance(choice, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    return ("tool", name) if isinstance(name, str) else word_choice(choice)
