"""Reading a wire body of unknown shape: checks that name the JSON path of what is wrong.

Shared by the wire modules so each reports a bad body the same way; it knows no format.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pydantic import ValidationError

from fccli.core.errors import ConversionError
from fccli.core.jsonio import reject_constant
from fccli.i18n import Msg


def expect(value: Any, kind: type | tuple[type, ...], path: str, what: str) -> Any:
    """`value`, when it is of `kind`; else a ConversionError saying what was found where.

    `what` is marked where it is written (`N_("a request object")`: a Msg is made only when the
    value is wrong, for the checks are on every path a wire body is read by), and said in the
    chosen language with the message."""
    if not isinstance(value, kind):
        raise ConversionError(
            Msg("expected {what}, found {found}", what=phrase(what), found=describe(value)),
            json_path=path,
        )
    return value


def phrase(msgid: str) -> Msg:
    """Return a phrase marked with `N_` where it is written, as a Msg to say in a message."""
    return msgid if isinstance(msgid, Msg) else Msg.__new__(Msg, msgid)


def describe(value: Any) -> str:
    """Return a JSON value's type in words, for error messages."""
    if value is None:
        return Msg("null")
    if isinstance(value, bool):
        return Msg("a boolean")
    if isinstance(value, (int, float)):
        return Msg("a number")
    if isinstance(value, str):
        return Msg("a string")
    if isinstance(value, list):
        return Msg("an array")
    return Msg("an object")


def count(value: Any) -> int | None:
    """Return a token count, or None: usage is informative, and a server's odd count is dropped
    rather than failing the answer."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


@contextmanager
def shape_errors() -> Iterator[None]:
    """Turn a pydantic error into a ConversionError.

    The checks in the wire modules name the JSON path of what is wrong; a value of the right
    JSON type but not of the internal format's shape (a fractional token count) is caught
    here, so no pydantic error ever escapes a translator.
    """
    try:
        yield
    except ValidationError as e:
        first = e.errors()[0]
        raise ConversionError(
            Msg(
                "{problem} (at {place} of the internal form)",
                problem=first["msg"],
                place=".".join(str(p) for p in first["loc"]),
            )
        ) from None


def parse_arguments(arguments: str) -> tuple[dict[str, Any], str | None]:
    """`(input, raw)`: the parsed object, or `{}` and the raw text when it is not a JSON object.

    Never raise: the model's bad JSON is the model's mistake, to be answered with an error
    result it can read, not a crash of the harness.
    """
    try:
        value = json.loads(arguments, parse_constant=reject_constant)
    except (ValueError, TypeError, RecursionError):
        # ValueError covers JSONDecodeError and integers past the digit limit; deep nesting
        # raises RecursionError.
        return {}, arguments
    return (value, None) if isinstance(value, dict) else ({}, arguments)


def stable_id(prefix: str, name: str, arguments: Any, position: int) -> str:
    """Return an id for a call its provider sent without one: `prefix` and a hash of its name,
    arguments and place among its turn's calls, so the same call gets the same id in the
    response and in every later request."""
    text = json.dumps([name, arguments, position], sort_keys=True, ensure_ascii=False)
    return f"{prefix}{hashlib.sha256(text.encode()).hexdigest()[:12]}_{position}"
