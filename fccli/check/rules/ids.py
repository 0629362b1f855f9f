"""Ids: each call's id unique, and (Anthropic) of the characters Anthropic accepts.

FC106 the same id on two calls, or two results for one call · FC107 an id outside Anthropic's
`^[a-zA-Z0-9_-]+$` (ids made by another provider, like `functions.get_weather:0`, break there).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from fccli.check.findings import Finding, finding
from fccli.check.history import Call, History, Result
from fccli.check.rules.common import call_label
from fccli.wire.anthropic.codec import ID_PATTERN

_ID = re.compile(ID_PATTERN)
T = TypeVar("T", Call, Result)


def _repeats(items: Iterable[T], key: Callable[[T], str | None]) -> Iterator[tuple[T, int]]:
    """Each item whose key an earlier item had, with the earlier one's message index."""
    first: dict[str, int] = {}
    for item in items:
        k = key(item)
        if k is not None and k in first:
            yield item, first[k]
        elif k is not None:
            first[k] = item.message


def duplicate_ids(h: History) -> Iterator[Finding]:
    for call, first in _repeats(h.calls(), lambda c: c.id):
        yield finding(
            "FC106",
            h.format,
            f"{call.path}.id",
            f"call {call_label(call)} has the same id as an earlier call (in message {first}): "
            "a result names its call by id, so ids must be unique in the whole history",
            # Anthropic's message is about tool_use ids; chat's about tool messages.
            quote=not h.chat,
            n=call.message,
            k=call.position,
        )
    for result, first in _repeats(h.results(), lambda r: r.call_id):
        yield finding(
            "FC106",
            h.format,
            result.path,
            f"a second result for {result.call_id} (the first is in message {first}): each call "
            "gets exactly one result",
            quote=h.chat,
            ids=result.call_id,
            first=first,
            n=result.message,
        )


def anthropic_id_pattern(h: History) -> Iterator[Finding]:
    if h.format != "anthropic":
        return
    for call in h.calls():
        if call.id is not None and not _ID.fullmatch(call.id):
            yield _bad_id(h, call.id, f"{call.path}.id", call.message, call.position, "tool_use.id")
    for result in h.results():
        if result.call_id is not None and not _ID.fullmatch(result.call_id):
            yield _bad_id(
                h,
                result.call_id,
                f"{result.path}.tool_use_id",
                result.message,
                result.position,
                "tool_result.tool_use_id",
            )


def _bad_id(h: History, value: str, path: str, n: int, k: int, field: str) -> Finding:
    return finding(
        "FC107",
        h.format,
        path,
        f"the id {value!r} has characters Anthropic refuses: only letters, digits, _ and - "
        "(an id made by another provider must be rewritten, the same way in call and result)",
        n=n,
        k=k,
        field=field,
    )


RULES = (duplicate_ids, anthropic_id_pattern)
