"""JSON paths and values: a path as segments, written as `$.a[0].b`, and the value it leads to."""

from __future__ import annotations

import json
from typing import Any

from fccli.core.jsonpath import path_tail

Loc = tuple[str | int, ...]
"""A JSON path as its segments: keys and array indices."""

LONG_STRING = 40
"""Strings longer than this that changed are diffed inline, not shown whole twice."""


def path_str(loc: Loc) -> str:
    """Write a path as JSONPath: `('messages', 2, 'content')` -> `$.messages[2].content`."""
    return "$" + path_tail(loc)


def compact(value: Any, limit: int = 60) -> str:
    """Write a JSON value on one line, cut to `limit` characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def canon(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def value_at(doc: Any, loc: Loc) -> tuple[bool, Any]:
    """Follow `loc` into `doc`: whether it leads somewhere, and the value there."""
    node = doc
    for seg in loc:
        ok, node = child(node, seg)
        if not ok:
            return False, None
    return True, node


def child(node: Any, seg: str | int) -> tuple[bool, Any]:
    if isinstance(node, dict) and isinstance(seg, str) and seg in node:
        return True, node[seg]
    if isinstance(node, list) and isinstance(seg, int) and 0 <= seg < len(node):
        return True, node[seg]
    return False, None
