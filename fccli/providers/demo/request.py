"""The request body as the demo model reads it: JSON, each very long string kept by its start.

A model reads a 20 MB tool result as a summary would: its beginning, its length. The demo reads
the body a piece at a time and never holds such a string whole (nor the body), so the offline
model costs no more memory than the request fc already holds.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from fccli.core.body import PIECE, Body

LONG = 1 << 20
"""Bytes of a JSON string literal beyond which only its start is kept."""
HEAD = 4096
"""Bytes of a long string's literal kept as its text."""

_QUOTE_OR_ESCAPE = re.compile(rb'["\\]')
_MARK = "\x00fc-demo-long-string:"


class LongText(str):
    """The start of a string too long to keep, with its length and a digest of all of it."""

    chars: int
    """Characters in the whole string."""
    digest: str
    """sha256 of the string's JSON literal, as the body carries it."""


def read_request(body: Body) -> dict[str, Any]:
    """Parse a request body, each string longer than `LONG` bytes as a `LongText`."""
    if len(body) <= LONG:
        return dict(json.loads(bytes(body)))
    pieces: Iterable[bytes] = body.pieces() if not isinstance(body, bytes) else _split(body)
    longs: list[LongText] = []
    text = b"".join(_shortened(pieces, longs))
    request = json.loads(text)
    return dict(_restored(request, longs))


def long_texts(value: Any) -> Iterator[LongText]:
    """Every `LongText` in a parsed request, in the order of the body."""
    if isinstance(value, LongText):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from long_texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from long_texts(item)


def _split(body: bytes) -> Iterator[bytes]:
    view = memoryview(body)
    for start in range(0, len(body), PIECE):
        yield bytes(view[start : start + PIECE])


class _Literal:
    """A string literal being read: whole while short; past `LONG`, its start and a count."""

    def __init__(self) -> None:
        self.kept = bytearray(b'"')
        self.long = False
        self.hash = hashlib.sha256()
        self.chars = 0
        self.escaped = 0  # characters the escapes add to the literal: `\n` 1, `\u00e9` 5
        self.escape: bytearray | None = None  # an escape begun and not yet whole
        self.high = False  # the last escape was the first half of a surrogate pair
        self.decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")

    def add(self, data: bytes) -> None:
        if not self.long and len(self.kept) + len(data) <= LONG:
            self.kept += data
            return
        if not self.long:
            self.long = True
            self.hash.update(self.kept)
            self.chars = len(self.decoder.decode(bytes(self.kept[1:])))
            self.kept = self.kept[:HEAD]
        self.hash.update(data)
        self.chars += len(self.decoder.decode(data))
        if len(self.kept) < HEAD:
            self.kept += data[: HEAD - len(self.kept)]

    def add_escaped(self, byte: bytes) -> None:
        """Add one byte of an escape (the backslash first), counting it when it is whole."""
        self.add(byte)
        escape = self.escape = (self.escape or bytearray()) + byte
        if len(escape) < 2 or (escape[1:2] == b"u" and len(escape) < 6):
            return
        self.escape = None
        if escape[1:2] != b"u":
            self.escaped, self.high = self.escaped + 1, False
            return
        unit = int(escape[2:], 16) if all(c in b"0123456789abcdefABCDEF" for c in escape[2:]) else 0
        # `\ud83d\ude00` is one character: its second half adds all six of its own.
        self.escaped += 6 if self.high and 0xDC00 <= unit <= 0xDFFF else 5
        self.high = 0xD800 <= unit <= 0xDBFF

    def end(self, longs: list[LongText]) -> bytes:
        """The literal to parse: itself, or a mark that `_restored` replaces by a LongText."""
        if not self.long:
            return bytes(self.kept) + b'"'
        self.hash.update(b'"')
        text = LongText(_head(bytes(self.kept[1:])))
        text.chars = self.chars - self.escaped
        text.digest = self.hash.hexdigest()
        longs.append(text)
        return json.dumps(f"{_MARK}{len(longs) - 1}").encode()


def _head(literal: bytes) -> str:
    """The text of the start of a literal, cut where a character or an escape is whole."""
    for cut in range(len(literal), max(0, len(literal) - 12), -1):
        try:
            text = str(json.loads(b'"' + literal[:cut] + b'"'))
        except ValueError:
            continue
        return text[:-1] if text and "\ud800" <= text[-1] <= "\udbff" else text
    return ""


def _shortened(pieces: Iterable[bytes], longs: list[LongText]) -> Iterator[bytes]:
    """The body's bytes, each long string literal replaced by a mark."""
    literal: _Literal | None = None
    for piece in pieces:
        at = 0
        while at < len(piece):
            if literal is None:
                quote = piece.find(b'"', at)
                if quote < 0:
                    yield piece[at:]
                    break
                yield piece[at:quote]
                literal, at = _Literal(), quote + 1
            elif literal.escape is not None:
                literal.add_escaped(piece[at : at + 1])
                at += 1
            else:
                found = _QUOTE_OR_ESCAPE.search(piece, at)
                end = len(piece) if found is None else found.start()
                if end > at:
                    literal.add(piece[at:end])
                    literal.high = False
                if found is None:
                    break
                at = found.end()
                if found.group() == b"\\":
                    literal.add_escaped(b"\\")
                else:
                    yield literal.end(longs)
                    literal = None


def _restored(value: Any, longs: list[LongText]) -> Any:
    if isinstance(value, str) and value.startswith(_MARK):
        return longs[int(value[len(_MARK) :])]
    if isinstance(value, dict):
        return {_restored(k, longs): _restored(v, longs) for k, v in value.items()}
    if isinstance(value, list):
        return [_restored(item, longs) for item in value]
    return value
