"""Encode a trace's files in fc's JSON style (core/jsonio.py), each history item once a run.

Request N+1 repeats request N's messages, and the manifest repeats its earlier steps: encoding
each file whole would make a run's work grow with the square of its steps. Here the items of a
file's history array (`messages`, `contents`, `input`, the manifest's `steps`) are encoded one by
one and their bytes kept until the next file of the same kind, which takes those of the items
that are the very same objects. The bytes are those `jsonio.encode` gives for the whole.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator
from typing import Any

from fccli.core.jsonio import dumps, encoded_pieces
from fccli.core.models import Message, Request

BIG = 1 << 16
"""A string this long or longer is not kept encoded: its item is encoded again, in pieces, in
each file (a large tool result is held once, as its string)."""
FEW = 8
"""A history this short is encoded with its file, whole, and nothing of it is kept: kept items
would cost more time than they save, and memory in each of fc proxy's open traces."""
HISTORY_KEYS = frozenset({"messages", "contents", "input", "steps"})


class HistoryEncoder:
    """Encode the files of one trace, keeping the last file's history items of each kind."""

    def __init__(self) -> None:
        self._kept: dict[str, _Kept] = {}
        self._messages: tuple[list[Message], list[dict[str, Any]]] = ([], [])

    def internal(self, request: Request) -> dict[str, Any]:
        """Return `request.to_json_dict()`, each message the same dict as last time when it is
        the same Message."""
        messages, dicts = self._messages
        new = request.messages
        same = 0
        for old, message in zip(messages, new, strict=False):
            if old is not message:
                break
            same += 1
        dicts = [*dicts[:same], *(m.to_json_dict() for m in new[same:])]
        self._messages = (list(new), dicts) if len(new) >= FEW else ([], [])
        rest = request.model_dump(mode="json", exclude_none=True, exclude={"messages"})
        return {
            name: dicts if name == "messages" else rest[name]
            for name in type(request).model_fields
            if name == "messages" or name in rest
        }

    def same_items(self, kind: str, doc: Any) -> None:
        """Put into `doc`'s history the last file's items where they are equal (a history built
        afresh from the same messages): the encoding and the checks take them as they are."""
        key = _history_key(doc)
        kept = self._kept.get(kind)
        if key is None or kept is None:
            return
        items = doc[key]
        for n, (old, item) in enumerate(zip(kept.items, items, strict=False)):
            if old is not item:
                if type(old) is not type(item) or old != item:
                    break
                items[n] = old

    def pieces(self, kind: str, doc: Any) -> Iterator[bytes]:
        """Return the bytes of `jsonio.encode(doc)`, in pieces; `kind` names the file's kind
        (`request.deepseek`): its history items are kept for the next file of that kind."""
        key = _history_key(doc)
        if key is None or len(doc[key]) < FEW:
            self._kept.pop(kind, None)
            yield from encoded_pieces(doc)
            return
        items: list[Any] = doc[key]
        old = self._kept.get(kind) or _Kept([], [], b"", 0)
        same = _leading(old.items, items)
        encoded = [*old.encoded[:same], *map(_item, items[same:])]
        if same >= old.count:
            joined, count = old.joined, old.count
        else:
            joined, count = b"", 0
        ready = count
        while ready < len(encoded) and encoded[ready] is not None:
            ready += 1
        if ready > count:
            parts = [b"    " + data for data in encoded[count:ready] if data is not None]
            joined = b",\n".join([joined, *parts] if count else parts)
            count = ready
        self._kept[kind] = _Kept(list(items), encoded, joined, count)
        yield b"{\n"
        last = len(doc) - 1
        for at, (name, value) in enumerate(doc.items()):
            yield b"  " + _text(name, "") + b": "
            if name == key:
                yield b"[\n" + joined
                for n in range(count, len(items)):
                    data = encoded[n]
                    yield b",\n    " if n else b"    "
                    yield from [data] if data is not None else _streamed(items[n], b"    ")
                yield b"\n  ]"
            elif _has_big(value):
                yield from _streamed(value, b"  ")
            else:
                yield _text(value, "  ")
            yield b",\n" if at < last else b"\n"
        yield b"}\n"


class _Kept:
    """A file's history items and the bytes of each (None: encoded again each time, it holds a
    big string); the first `count` of them joined as they stand in the file."""

    def __init__(
        self, items: list[Any], encoded: list[bytes | None], joined: bytes, count: int
    ) -> None:
        self.items, self.encoded, self.joined, self.count = items, encoded, joined, count


def _leading(old: list[Any], new: list[Any]) -> int:
    """Return how many of `new`'s first items are the very objects of `old`."""
    if len(old) <= len(new) and all(map(operator.is_, old, new)):
        return len(old)
    same = 0
    for a, b in zip(old, new, strict=False):
        if a is not b:
            break
        same += 1
    return same


def _item(item: Any) -> bytes | None:
    return None if _has_big(item) else _text(item, "    ")


def _history_key(doc: Any) -> str | None:
    if not isinstance(doc, dict):
        return None
    for key, value in doc.items():
        if key in HISTORY_KEYS and isinstance(value, list) and value:
            return str(key)
    return None


def _text(value: Any, indent: str) -> bytes:
    text = dumps(value)[:-1]
    return (text.replace("\n", "\n" + indent) if indent else text).encode("utf-8")


def _streamed(value: Any, indent: bytes) -> Iterable[bytes]:
    """Encode `value` in pieces, indented by `indent` (JSON's own newlines are only between
    tokens), without the final newline."""
    previous: bytes | None = None
    for piece in encoded_pieces(value):
        if previous is not None:
            yield previous.replace(b"\n", b"\n" + indent)
        previous = piece
    if previous is not None:
        yield previous[:-1].replace(b"\n", b"\n" + indent)


def _has_big(value: Any) -> bool:
    """Tell whether `value` holds a string of BIG characters or more."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if len(item) >= BIG:
                return True
        elif isinstance(item, dict):
            stack.extend(item.values())
            stack.extend(item)
        elif isinstance(item, list):
            stack.extend(item)
    return False
