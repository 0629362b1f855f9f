"""Whether a step's wire request is what its internal request translates to (FC120), read
along a trace: at each step only the new messages are translated and compared.

A format that makes its wire body message by message (`appends_messages`, wire/base.py) gives
request N+1, which repeats request N's messages and adds some, the wire messages of request N
followed by those of the new ones. When request N agreed with its wire file, and both files of
step N+1 repeat step N's messages as the same objects (fccli/core/request_files.py), step N+1 agrees
when its new wire messages and everything besides the messages do. Anything else (a first step,
an edit, a format that does not say so) is translated and compared whole, as before.
"""

from __future__ import annotations

import json
import operator
from dataclasses import dataclass
from typing import Any

from fccli.core.errors import ConversionError
from fccli.core.models import Request
from fccli.wire.base import WireFormat


@dataclass
class Agreed:
    """A step whose wire request was found to be what its internal request translates to."""

    request: Request
    expected: dict[str, Any]
    wire_messages: list[Any]
    """The wire file's messages (the objects the next step's file repeats)."""


@dataclass
class Agreement:
    expected: dict[str, Any] | ConversionError
    """What the internal request translates to, or why it cannot be."""
    same: bool
    """The wire file is exactly that (first_difference finds nothing)."""
    agreed: Agreed | None
    """For the next step to build on."""


def agree(fmt: WireFormat, request: Request, doc: Any, before: Agreed | None) -> Agreement:
    if before is not None and fmt.appends_messages:
        expected = _appended(fmt, request, before)
        if expected is not None and _repeats(doc, expected, before):
            return Agreement(expected, True, Agreed(request, expected, doc["messages"]))
    try:
        whole = fmt.to_wire_request(request)
    except ConversionError as e:
        return Agreement(e, False, None)
    same = same_json(whole, doc)
    messages = doc.get("messages") if isinstance(doc, dict) else None
    agreed = Agreed(request, whole, messages) if same and isinstance(messages, list) else None
    return Agreement(whole, same, agreed)


def _appended(fmt: WireFormat, request: Request, before: Agreed) -> dict[str, Any] | None:
    """Return the wire body of `request`, from the one before's and its new messages alone; None
    when it does not repeat the request before (the same Message objects, the same rest)."""
    old = before.request.messages
    if len(request.messages) < len(old) or not all(
        map(operator.is_, old, request.messages[: len(old)])
    ):
        return None
    rest = request.model_dump_json(exclude={"messages"})
    if rest != before.request.model_dump_json(exclude={"messages"}):
        return None
    try:
        empty = fmt.to_wire_request(request.model_copy(update={"messages": []}))
        new = fmt.to_wire_request(
            request.model_copy(update={"messages": request.messages[len(old) :]})
        )
    except ConversionError:
        return None  # translated whole, the error names its place
    added = new["messages"][len(empty["messages"]) :]
    return {**new, "messages": [*before.expected["messages"], *added]}


def _repeats(doc: Any, expected: dict[str, Any], before: Agreed) -> bool:
    """Return whether the wire file repeats the one before's messages (the same objects, which
    agreed) and its new messages and the rest are exactly those expected."""
    if not isinstance(doc, dict) or not isinstance(doc.get("messages"), list):
        return False
    messages, old = doc["messages"], before.wire_messages
    if len(messages) < len(old) or not all(map(operator.is_, old, messages[: len(old)])):
        return False
    rest = {k: v for k, v in doc.items() if k != "messages"}
    rest_expected = {k: v for k, v in expected.items() if k != "messages"}
    return same_json(rest, rest_expected) and same_json(
        messages[len(old) :], expected["messages"][len(old) :]
    )


def same_json(a: Any, b: Any) -> bool:
    """Return whether first_difference would find nothing, told in C: the same JSON text, keys
    sorted (so 1, 1.0 and true stay apart, as there); a NaN (unequal to itself) says no."""
    try:
        return json.dumps(a, sort_keys=True, allow_nan=False) == json.dumps(
            b, sort_keys=True, allow_nan=False
        )
    except (TypeError, ValueError, RecursionError):
        return False
