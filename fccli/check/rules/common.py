"""Small helpers the rule modules share: how calls and tools are named in a finding."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from fccli.check.history import Call


def shown(value: Any, limit: int = 80) -> str:
    """Return a JSON value as a person would write it, cut to `limit` characters."""
    try:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def call_label(call: Call) -> str:
    name = call.name if isinstance(call.name, str) else "?"
    return f"{call.id} ({name})"


def ids_of(calls: Iterable[Call]) -> str:
    """Return the ids as a provider lists them: comma-separated."""
    return ", ".join(str(c.id) for c in calls)
