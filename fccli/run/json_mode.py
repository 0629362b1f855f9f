"""`fc run --response-format json_object | json_schema:FILE`: JSON mode, read from the command line.

JSON mode governs the answer (`content`), never the tool calls (`tool_calls`): two output
channels (the course's second text). Internally the field keeps chat's shape, so it reads the
same in the trace as on the wire.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fccli.core.errors import UsageError
from fccli.core.jsonio import parse_json
from fccli.i18n import Msg

FORMS = ("json_object", "json_schema:FILE")


def parse_response_format(value: str | None) -> dict[str, Any] | None:
    """Read --response-format into the request's field (chat's shape)."""
    if value is None:
        return None
    if value == "json_object":
        return {"type": "json_object"}
    kind, _, file = value.partition(":")
    if kind != "json_schema" or not file:
        raise UsageError(
            Msg(
                "--response-format {value!r} is neither json_object nor json_schema:FILE",
                value=value,
            ),
            hint=Msg("e.g. --response-format json_schema:answer.schema.json"),
        )
    path = Path(file)
    if not path.is_file():
        raise UsageError(Msg("--response-format: {file}: no such schema file", file=file))
    schema = parse_json(path.read_bytes(), file)
    if not isinstance(schema, dict):
        raise UsageError(Msg("--response-format: {file} holds no JSON Schema object", file=file))
    # The schema's name on the wire: a-z, 0-9, _ and - (OpenAI's rule), from the file's name.
    name = re.sub(r"[^a-zA-Z0-9_-]", "_", path.name.split(".")[0])[:64] or "answer"
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}
