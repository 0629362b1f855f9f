"""A JSON path written out: `$.messages[2].content`, a key that is no name as `["x-unit"]`."""

from __future__ import annotations

import json
import re

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""A key written after a dot; anything else (a hyphen: `.x-unit` is a subtraction to jq, and
RFC 9535 allows no hyphen there) is written in brackets, as JSON."""


def path_tail(steps: tuple[str | int, ...]) -> str:
    """Write keys and indexes as a JSON path's tail: `.city`, `[0]`, `["x-unit"]` (after `$` or
    a place)."""
    out = ""
    for step in steps:
        if isinstance(step, int):
            out += f"[{step}]"
        elif _NAME.fullmatch(step):
            out += f".{step}"
        else:
            out += f"[{json.dumps(step, ensure_ascii=False)}]"
    return out
