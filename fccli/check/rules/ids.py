"""Ids: each call's id unique, and of the characters the format's providers accept.

FC106 the same id on two calls, or two results for one call · FC107 an id outside the format's
`id_pattern` (Anthropic's `^[a-zA-Z0-9_-]+$`: ids made by another provider, like
`functions.get_weather:0`, break there; Bedrock's: at most 64 characters).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from fccli.check.findings import Finding, finding
from fccli.check.history import History
from fccli.check.rules.common import call_label
from fccli.i18n import Msg
from fccli.wire.registry import refusals


def duplicate_ids(h: History) -> Iterator[Finding]:
    for _, f in duplicates_window(h, 0)[0]:
        yield f


def duplicates_window(h: History, start: int) -> tuple[list[tuple[int, Finding]], int]:
    """Return the findings about messages from `start` on, each with its message. A repeat is told
    by what came before it only, so nothing is left to read again (the cut is the end)."""
    calls = [c for turn in h.turns[start:] for c in turn.calls]
    results = [r for turn in h.turns[start:] for r in turn.results]
    found = []
    for call in calls:
        first_call = h.ids.first_calls.get(call.id) if call.id is not None else None
        if first_call is None or first_call is call:
            continue
        found.append(
            (
                call.message,
                finding(
                    "FC106",
                    h.format,
                    call.id_path,
                    Msg(
                        "call {call} has the same id as an earlier call (in message {first}): a "
                        "result names its call by id, so ids must be unique in the whole history",
                        call=call_label(call),
                        first=first_call.message,
                    ),
                    quote=h.layout.duplicate_quote == "call",
                    n=call.message,
                    k=call.position,
                ),
            )
        )
    for result in results:
        same = h.ids.results.get(result.call_id, []) if result.call_id is not None else []
        if not same or same[0] is result:
            continue
        first = same[0].message
        found.append(
            (
                result.message,
                finding(
                    "FC106",
                    h.format,
                    result.path,
                    Msg(
                        "a second result for {id} (the first is in message {first}): each call "
                        "gets exactly one result",
                        id=result.call_id,
                        first=first,
                    ),
                    quote=h.layout.duplicate_quote == "result",
                    ids=result.call_id,
                    first=first,
                    n=result.message,
                ),
            )
        )
    return found, len(h.turns)


def anthropic_id_pattern(h: History) -> Iterator[Finding]:
    pattern = h.layout.id_pattern
    if pattern is None or not h.refuses("FC107"):
        return
    for call in h.calls():
        if call.id is not None and not re.fullmatch(pattern, call.id):
            yield _bad_id(h, call.id, call.id_path, call.message, call.position, "tool_use.id")
    for result in h.results():
        if result.call_id is not None and not re.fullmatch(pattern, result.call_id):
            yield _bad_id(
                h,
                result.call_id,
                result.id_path,
                result.message,
                result.position,
                "tool_result.tool_use_id",
            )


def _bad_id(h: History, value: str, path: str, n: int, k: int, field: str) -> Finding:
    if h.layout.id_rule:
        message = Msg(
            "the id {value!r} is not what {who} accepts: {rule} (an id made by another "
            "provider must be rewritten, the same way in call and result)",
            value=value,
            who=refusals(h.format)["FC107"][0],
            rule=Msg.__new__(Msg, h.layout.id_rule),
        )
    else:
        message = Msg(
            "the id {value!r} is not one {format} takes ({pattern}): an id made by another "
            "provider must be rewritten, the same way in call and result",
            value=value,
            format=h.format,
            pattern=h.layout.id_pattern,
        )
    # The providers' sentences name the id as {value} (Bedrock) or {ids} (Mistral).
    return finding("FC107", h.format, path, message, n=n, k=k, field=field, value=value, ids=value)


RULES = (duplicate_ids, anthropic_id_pattern)
