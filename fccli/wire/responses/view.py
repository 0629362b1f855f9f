"""The Responses format read leniently for `fc check` (wire/view.py): one flat list of items,
each call, result, reasoning item and message its own; consecutive items of one role are read
as one turn (the calls and reasoning the assistant's, the results the user's)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fccli.i18n import Msg
from fccli.wire.responses.codec import ERROR_MARKER
from fccli.wire.view import (
    Call,
    Choice,
    Problem,
    Turn,
    marked_result,
    string_call,
    texts,
    word_choice,
)


def _item_role(item: Any) -> Any:
    """Return whose turn an item is: the user's (its messages, the results), the assistant's (its
    messages, calls, reasoning and other output items), or a system message's."""
    if not isinstance(item, dict):
        return None
    kind = item.get("type", "message")
    if kind == "message":
        return item.get("role")
    return "user" if kind == "function_call_output" else "assistant"


def item_turns(items: list[Any], root: str) -> list[Turn]:
    """Items read as turns; a turn's path is its first item's, each call and result keeps its
    own."""
    turns: list[Turn] = []
    for k, item in enumerate(items):
        path = f"{root}[{k}]"
        role = _item_role(item)
        if not turns or role is None or turns[-1].role != role or role not in ("user", "assistant"):
            turns.append(Turn(len(turns), role, path, raw=item if isinstance(item, dict) else {}))
        if isinstance(item, dict):
            _add_item(turns[-1], item, path)
    return turns


def _add_item(turn: Turn, item: dict[str, Any], path: str) -> None:
    kind = item.get("type", "message")
    position = len(turn.kinds)
    if kind == "message":
        turn.kinds.append("text")
        turn.text += texts(item.get("content"))
    elif kind == "function_call_output":
        turn.kinds.append("result")
        turn.results.append(
            marked_result(
                item.get("call_id"),
                item.get("output"),
                ERROR_MARKER,
                turn.index,
                position,
                path,
                "call_id",
                "output",
            )
        )
    elif kind == "function_call":
        turn.kinds.append("call")
        turn.calls.append(
            string_call(
                item.get("call_id"),
                item.get("name"),
                item.get("arguments"),
                turn.index,
                position,
                path,
                f"{path}.arguments",
                id_key="call_id",
            )
        )
    else:
        turn.kinds.append("thinking" if kind == "reasoning" else "other")


def items_choice(doc: dict[str, Any]) -> Choice | None:
    choice = doc.get("tool_choice")
    if not isinstance(choice, dict):
        return word_choice(choice)
    kind = choice.get("type")
    if kind == "function" and isinstance(choice.get("name"), str):
        return ("tool", choice["name"])
    mode = choice.get("mode")
    return (mode, None) if kind == "allowed_tools" and isinstance(mode, str) else None


def reasoning_problems(
    doc: dict[str, Any], root: str, calls: list[Call], thinking: bool
) -> Iterator[Problem]:
    """FC123 and FC124, stateless (store false): a reasoning model's calls go back with the
    reasoning item they came with, right before them, and a reasoning item goes back with what
    follows it. A call without an item id (made elsewhere, converted) is not paired by the API:
    not said."""
    raw = doc.get(root.removeprefix("$."))
    items = [i if isinstance(i, dict) else {} for i in raw] if isinstance(raw, list) else []
    if not (thinking or any(i.get("type") == "reasoning" for i in items)):
        return  # a model that does not reason (a reasoning item in the history says it does)
    by_path = {c.path: c for c in calls}
    for k, item in enumerate(items):
        path = f"{root}[{k}]"
        kind = item.get("type")
        if kind == "reasoning":
            after = items[k + 1] if k + 1 < len(items) else {}
            if after.get("type", "message") in ("function_call_output", "message") and (
                after.get("role") != "assistant"
            ):
                rid = item.get("id")
                yield Problem(
                    "FC124",
                    path,
                    Msg(
                        "reasoning item {id} is not followed by the item it led to (a call or a "
                        "message): send it back together with that item, or leave both out",
                        id=rid,
                    ),
                    {"ids": rid},
                )
            continue
        item_id = item.get("id")
        if kind != "function_call" or not isinstance(item_id, str):
            continue
        before = k - 1
        while before >= 0 and items[before].get("type") == "function_call":
            before -= 1
        if before >= 0 and items[before].get("type") == "reasoning":
            continue
        call = by_path.get(path)
        name = call.name if call is not None and isinstance(call.name, str) else "?"
        label = "?" if call is None else f"{call.id} ({name})"
        yield Problem(
            "FC123",
            path,
            Msg(
                "function_call {id} ({call}) has no reasoning item before it: a reasoning "
                "model's calls go back with the reasoning item they came with (encrypted; with "
                "store false OpenAI keeps no copy)",
                id=item_id,
                call=label,
            ),
            {"ids": item_id, "reasoning": "rs_…"},
        )
