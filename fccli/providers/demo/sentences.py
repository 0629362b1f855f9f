"""A result said as a model says it: a sentence built from the fields it knows, in the
question's language, the fields it does not know repeated after it (a model repeats what it
reads: that is why results are slimmed).

The known fields are few and common: `status` (an order's, a refund's, a filing's), `logistics`,
`amount`; a list is said item by item. Anything else falls back to naming the fields.
"""

from __future__ import annotations

import json
from typing import Any

DONE = frozenset({"success", "succeeded", "ok", "done", "completed"})
"""Statuses that say an action went through."""
FILED = frozenset({"recorded", "received", "filed", "created", "submitted", "accepted"})
"""Statuses (or whole text results) that say a filing was taken."""
USED = frozenset({"status", "logistics", "amount", "order_id"})
"""The fields a sentence says itself."""
LOOKUPS = ("get", "list", "search", "query", "lookup", "find", "fetch", "read")
"""How the name of a tool that looks something up begins."""


def is_lookup(tool: str) -> bool:
    """Whether a tool looks something up (get_order), rather than does something (refund_order)."""
    return tool.split("_", 1)[0].casefold() in LOOKUPS


def said_of(
    subject: str, tool: str, args: dict[str, Any], data: Any, say: dict[str, str]
) -> str | None:
    """The answer's sentence for a JSON result, or None when nothing in it is known."""
    if isinstance(data, list):
        return _listed(tool, data, say)
    if not isinstance(data, dict):
        return None
    status = data.get("status")
    if not isinstance(status, str):
        return None
    amount = data.get("amount", args.get("amount"))
    amount_said = say["amount"].format(amount=amount) if isinstance(amount, (int, float)) else ""
    word = status.casefold()
    used = USED
    if word in DONE:
        line = say["done_success"].format(subject=subject, action=_action(tool, say))
    elif "refund" in tool.casefold() or word.startswith("refund"):
        key = "refund_accepted" if "accept" in word or word in FILED else "refund_status"
        line = say[key].format(subject=subject, amount=amount_said, status=status)
    elif word in FILED:
        line = filed(tool, args, status, say)
        number = next((k for k in data if k.casefold().endswith("id") and k not in USED), None)
        if number is not None:  # a ticket's number is what the person needs
            line = line.rstrip("。.") + say["filed_number"].format(number=_value(data[number]))
            used = USED | {number}
    elif isinstance(data.get("logistics"), str):
        line = say["order_logistics"].format(
            subject=subject, status=status, logistics=data["logistics"].rstrip("。.")
        )
    else:
        line = say["order_status"].format(subject=subject, status=status)
    rest = [say["field"].format(key=k, value=_value(v)) for k, v in data.items() if k not in used]
    if rest:
        line += say["also_fields"].format(fields=say["reason_sep"].join(rest))
    return line


def filed(tool: str, args: dict[str, Any], status: str, say: dict[str, str]) -> str:
    """A filing taken (a ticket, a classification): what was filed, and the tool's word."""
    what = say["reason_sep"].join(f"{k}={_value(v)}" for k, v in args.items()) or tool
    said = say.get(f"status_{status.casefold()}", status)
    return say["filed"].format(what=what, tool=tool, status=said)


def _listed(tool: str, items: list[Any], say: dict[str, str]) -> str:
    if not items:
        return say["listed_none"].format(tool=tool)
    said = []
    for item in items:
        if isinstance(item, dict) and item:
            values = [_value(v) for v in item.values()]
            head, rest = values[0], values[1:]
            said.append(
                say["item"].format(head=head, rest=say["list_sep"].join(rest)) if rest else head
            )
        else:
            said.append(_value(item))
    return say["listed"].format(tool=tool, n=len(items), items=say["list_sep"].join(said))


def _action(tool: str, say: dict[str, str]) -> str:
    for word in ("refund", "cancel", "create", "submit"):
        if word in tool.casefold():
            return say[f"action_{word}"]
    return tool


def _value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:40] + "…"
