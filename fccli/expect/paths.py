"""Paths into a call's arguments, as a rules file writes them: `city`, `address.zip`,
`stops[0].name`, `["a key.with dots"]`, with or without a leading `$`."""

from __future__ import annotations

import json
import re
from typing import Any

from fccli.i18n import Msg

_STEP = re.compile(r'\.?([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')
MISSING = object()
"""What `lookup` returns where the arguments hold nothing."""


def parse(text: str) -> tuple[str | int, ...]:
    """Read a path into its keys and indexes; a ValueError (a Msg) saying where it goes wrong."""
    rest = text[1:] if text.startswith("$") else text
    out: list[str | int] = []
    at = 0
    while at < len(rest):
        m = _STEP.match(rest, at)
        if m is None or (m.group(1) is not None and at > 0 and rest[at] != "."):
            raise ValueError(
                Msg("cannot read the path {path} at {rest}", path=text, rest=rest[at:])
            )
        key, index, quoted = m.groups()
        out.append(
            key if key is not None else int(index) if index is not None else json.loads(quoted)
        )
        at = m.end()
    return tuple(out)


def lookup(value: Any, steps: tuple[str | int, ...]) -> Any:
    """Return the value at `steps` inside `value`, or MISSING."""
    for s in steps:
        if isinstance(s, int) and isinstance(value, list) and s < len(value):
            value = value[s]
            continue
        if not (isinstance(s, str) and isinstance(value, dict) and s in value):
            return MISSING
        value = value[s]
    return value
