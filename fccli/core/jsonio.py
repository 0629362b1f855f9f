"""Reading and writing the JSON files people open and edit.

Every file fc writes is pretty-printed UTF-8 JSON (2-space indent, no ASCII escapes), so Chinese
text stays readable. Reading turns every failure into an InputFileError naming the file and,
for a shape error, the JSON path.
"""

from __future__ import annotations

import json
import re
import stat
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from fccli.core.controls import has_surrogates
from fccli.core.errors import InputFileError
from fccli.core.models import BLOCK_TYPES
from fccli.i18n import Msg

M = TypeVar("M", bound=BaseModel)


@cache
def _escaped() -> re.Pattern[str]:
    # Compiled only for a text that holds a surrogate: re maps the whole BMP for a class with the
    # surrogate range (docs/performance.md); DEL and C1 alone, next, cost far less.
    return re.compile("[\x7f-\x9f\ud800-\udfff]")


@cache
def _c1() -> re.Pattern[str]:
    return re.compile("[\x7f-\x9f]")


def _as_unicode_escape(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group()):04x}"


def dumps(obj: Any) -> str:
    """Dump `obj` in the one JSON style of fc's files.

    JSON escapes the C0 controls itself; DEL, the C1 controls (which some terminals obey) and
    lone surrogates (which UTF-8 cannot encode) are escaped here too, so that every file and
    every JSON output is valid UTF-8 and safe to print. They can stand only inside strings."""
    kind = type(obj)
    if kind is str:  # a lone value (a file's field): JSON's C encoder, not an indenting one
        text = _encode_string(obj) + "\n"
    elif kind is int or kind is bool or obj is None:
        return json.dumps(obj) + "\n"
    else:
        text = json.dumps(obj, ensure_ascii=False, indent=2) + "\n"
    return (_escaped() if has_surrogates(text) else _c1()).sub(_as_unicode_escape, text)


def encode(obj: Any) -> bytes:
    return dumps(obj).encode("utf-8")


_PIECE = 1 << 20


def encoded_pieces(obj: Any, big: int = _PIECE) -> Iterator[bytes]:
    """Return `encode(obj)`, the same bytes, in pieces of about a megabyte: a file written from them
    never holds the whole text at once, nor its UTF-8 copy. A string of `big` characters or more
    is escaped a slice at a time too: JSON's encoder would make one escaped copy of it whole."""
    bigs: list[str] = []

    def encoder(text: str) -> str:
        if len(text) >= big:
            bigs.append(text)
            return _BIG_MARK
        return _encode_string(text)

    pending: list[str] = []
    size = 0
    for chunk in _chunks(obj, encoder):
        if _BIG_MARK in chunk:
            before, *afters = chunk.split(_BIG_MARK)
            pending.append(before)
            for after in afters:
                yield from _encoded("".join(pending))
                yield from _big_string(bigs.pop(0))
                pending = [after]
            size = len(pending[0])
            continue
        if len(chunk) > _PIECE:
            yield from _encoded("".join(pending))
            pending, size = [], 0
            yield from _encoded(chunk)
            continue
        pending.append(chunk)
        size += len(chunk)
        if size >= _PIECE:
            yield from _encoded("".join(pending))
            pending, size = [], 0
    yield from _encoded("".join(pending) + "\n")


_BIG_MARK = "\x00"
"""Stands for the next big string in the encoder's output: JSON escapes every real NUL."""
_encode_string = json.encoder.encode_basestring  # the C one where there is one


def _chunks(obj: Any, encoder: Callable[[str], str]) -> Iterator[str]:
    """Return the pieces of `json.dumps(obj, ensure_ascii=False, indent=2)`, its strings encoded by
    `encoder`. Through the json module's own pure-Python encoder, the one `indent` uses anyway; its
    builder is not public, so a Python without it gets the public encoder (no big string is then set
    apart: the same bytes, more memory)."""
    make = getattr(json.encoder, "_make_iterencode", None)
    if make is not None:
        try:
            return make(  # type: ignore[no-any-return]
                {}, _not_json, encoder, 2, _float_text, ": ", ",", False, False, False
            )(obj, 0)
        except TypeError:  # another signature
            pass
    return json.JSONEncoder(ensure_ascii=False, indent=2).iterencode(obj)


def _not_json(value: Any) -> Any:
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def _float_text(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _big_string(text: str) -> Iterator[bytes]:
    yield b'"'
    for at in range(0, len(text), _PIECE):
        yield from _encoded(_encode_string(text[at : at + _PIECE])[1:-1])
    yield b'"'


def _encoded(text: str) -> Iterator[bytes]:
    for at in range(0, len(text), _PIECE):
        piece = text[at : at + _PIECE]
        try:  # without surrogates (UTF-8 encodes it), DEL and C1 are all there is to escape
            data = _c1().sub(_as_unicode_escape, piece).encode("utf-8")
        except UnicodeEncodeError:
            data = _escaped().sub(_as_unicode_escape, piece).encode("utf-8")
        yield data


MAX_DEPTH = 100
"""Arrays and objects nested deeper than this are refused when read. Real requests and responses
stay far below it (a tool schema is a handful of levels); past it every recursive reader fc has
(pydantic's serializer gives up near 255 levels, Python's own stack near 1000) is at risk."""


def parse_json(text: str | bytes, source: str) -> Any:
    if not text.strip():
        raise InputFileError(
            source, Msg("empty file") if not text else Msg("empty file (only blanks)")
        )
    try:
        value = json.loads(text)
    except UnicodeDecodeError:
        raise InputFileError(source, Msg("not UTF-8 text")) from None
    except RecursionError:
        raise InputFileError(source, too_deep()) from None
    except json.JSONDecodeError as e:
        raise InputFileError(
            source,
            Msg(
                "not valid JSON: {problem} at line {line}, column {column}",
                problem=_json_problem(e.msg),
                line=e.lineno,
                column=e.colno,
            ),
        ) from None
    except ValueError as e:  # Python's limit on the digits of an integer (4300 by default)
        raise InputFileError(source, too_long_number(e)) from None
    check_depth(value, source)
    return value


def check_depth(value: Any, source: str, base: str = "$") -> None:
    """Refuse a value nested deeper than MAX_DEPTH, naming the path where it goes too deep.

    Iterative, so that the check cannot itself run out of stack. The path is built only when
    the limit is hit, for speed."""
    if is_too_deep(value):
        raise InputFileError(source, too_deep(), json_path=base + _deep_path(value) + "…")


def is_too_deep(value: Any, depth: int = 0) -> bool:
    """Return whether `value`, itself at `depth`, holds an array or object deeper than MAX_DEPTH."""
    if not isinstance(value, (dict, list)):
        return False
    stack: list[tuple[Any, int]] = [(value, depth)]
    pop, push = stack.pop, stack.append
    while stack:
        node, at = pop()
        if at >= MAX_DEPTH:
            return True
        at += 1
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, (dict, list)):
                push((child, at))
    return False


def _deep_path(value: Any) -> str:
    """Return where a value too deep starts to go deep: its first 8 keys, in the order check_depth
    has always walked (the last child first)."""
    Trail = tuple[Any, int | str] | None  # (the parent's trail, the key or index), or None
    stack: list[tuple[Any, int, Trail]] = [(value, 0, None)]
    while stack:
        node, depth, trail = stack.pop()
        if isinstance(node, dict):
            items: Any = node.items()
        elif isinstance(node, list):
            items = enumerate(node)
        else:
            continue
        if depth == MAX_DEPTH:
            keys: list[int | str] = []
            while trail is not None:
                trail, key = trail
                keys.append(key)
            return "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in keys[::-1][:8])
        stack.extend((v, depth + 1, (trail, k)) for k, v in items)
    return ""


def _json_problem(message: str) -> str:
    """Return Python's own words for a JSON syntax error, as a Msg where fc has them translated.

    A message that ends in " at" (the position follows in Python's own text) loses it: fc says
    "at line L, column C" itself."""
    message = message.removesuffix(" at")
    for known in (
        Msg("Expecting value"),
        Msg("Expecting ',' delimiter"),
        Msg("Expecting ':' delimiter"),
        Msg("Expecting property name enclosed in double quotes"),
        Msg("Extra data"),
        Msg("Unterminated string starting"),
        Msg("Invalid control character"),
        Msg("Invalid \\escape"),
        Msg("Illegal trailing comma before end of object"),
        Msg("Illegal trailing comma before end of array"),
    ):
        if message == known:
            return known
    return message


def _pydantic_problem(error: Any) -> str:
    """pydantic's words for the first problem of a file's shape, as a Msg where fc has them
    translated; the English is pydantic's, unchanged."""
    message = error["msg"]
    kind = error.get("type")
    ctx = error.get("ctx") or {}
    if kind == "literal_error" and "expected" in ctx:
        known: Msg | None = Msg("Input should be {expected}", expected=str(ctx["expected"]))
    elif kind == "model_type" and "class_name" in ctx:
        known = Msg(
            "Input should be a valid dictionary or instance of {class_name}",
            class_name=str(ctx["class_name"]),
        )
    else:
        known = {
            "missing": Msg("Field required"),
            "string_type": Msg("Input should be a valid string"),
            "int_type": Msg("Input should be a valid integer"),
            "int_parsing": Msg(
                "Input should be a valid integer, unable to parse string as an integer"
            ),
            "bool_type": Msg("Input should be a valid boolean"),
            "dict_type": Msg("Input should be a valid dictionary"),
            "list_type": Msg("Input should be a valid list"),
            "extra_forbidden": Msg("Extra inputs are not permitted"),
        }.get(kind)
    return known if known is not None and known == message else message


def too_long_number(error: ValueError) -> str:
    limit = getattr(sys, "get_int_max_str_digits", lambda: 4300)()
    if "digits" not in str(error):
        message = error.args[0] if len(error.args) == 1 and isinstance(error.args[0], Msg) else None
        return Msg("not valid JSON: {problem}", problem=message or str(error))
    return Msg("a number with more than {limit} digits, which fc does not read", limit=limit)


def too_deep() -> str:
    return Msg(
        "nested too deeply (more than {limit} levels of arrays and objects)", limit=MAX_DEPTH
    )


def reject_constant(name: str) -> Any:
    """`parse_constant` for json.loads: Python reads NaN and Infinity, which JSON does not have,
    and a provider would refuse them when the history goes back."""
    raise ValueError(Msg("{name} is not JSON", name=name))  # e.args[0]: a Msg to say


READ_LIMIT = 128 << 20
"""The most bytes of one file fc reads: past it a file is refused, not loaded (parsed, a JSON
document takes several times its size in memory)."""


def read_bytes(path: str | Path, limit: int | None = None) -> bytes:
    """Read a file's bytes, or raise an InputFileError naming it. Only a regular file is read: a
    FIFO, a device or a socket would block fc, or never end; one above `limit` bytes (default
    READ_LIMIT) is not."""
    limit = READ_LIMIT if limit is None else limit
    size = _regular_size(path)
    if size > limit:
        raise InputFileError(
            str(path),
            Msg(
                "is {size} bytes, above the {limit} fc reads of one file",
                size=format(size, ","),
                limit=format(limit, ","),
            ),
        )
    return read_head(path, limit)[0]


def read_head(path: str | Path, limit: int) -> tuple[bytes, int]:
    """Read at most `limit` bytes of a regular file; return them and the file's size."""
    size = _regular_size(path)
    try:
        with open(path, "rb") as file:
            return file.read(limit), size
    except OSError as e:
        raise InputFileError(
            str(path), Msg("cannot be read ({reason})", reason=e.strerror)
        ) from None


def _regular_size(path: str | Path) -> int:
    """Return the size of a regular file, or raise an InputFileError saying what it is."""
    p = Path(path)
    try:
        stats = p.stat()
    except FileNotFoundError:
        raise InputFileError(str(path), Msg("no such file")) from None
    except OSError as e:
        raise InputFileError(
            str(path), Msg("cannot be read ({reason})", reason=e.strerror)
        ) from None
    if stat.S_ISDIR(stats.st_mode):
        raise InputFileError(str(path), Msg("is a directory, not a JSON file"))
    if not stat.S_ISREG(stats.st_mode):
        raise InputFileError(
            str(path),
            Msg("is not a regular file (a pipe, a device or a socket); fc reads files"),
        )
    return stats.st_size


def read_json(path: str | Path) -> Any:
    return parse_json(read_bytes(path), str(path))


def json_path(loc: tuple[int | str, ...]) -> str:
    """Write a location as a JSON path: `('messages', 2, 'content', 0, 'tool_result',
    'tool_use_id')` -> `$.messages[2].content[0].tool_use_id`.

    pydantic puts the union's tag into the location; a person editing the file never sees it.
    """
    out = "$"
    prev: int | str | None = None
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not (isinstance(prev, int) and part in BLOCK_TYPES):
            out += f".{part}"
        prev = part
    return out


def validate(model: type[M], data: Any, source: str) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        more = e.error_count() - 1
        problem = _pydantic_problem(first)
        if more == 1:
            problem = Msg("{problem} (and 1 more problem)", problem=problem)
        elif more:
            problem = Msg("{problem} (and {n} more problems)", problem=problem, n=more)
        raise InputFileError(source, problem, json_path=json_path(tuple(first["loc"]))) from None
