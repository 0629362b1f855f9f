"""Reading the request files of a trace, each of which repeats the history of the one before.

The API keeps no state, so request N+1 holds request N's messages again, then the new ones: read
naively, a trace's bytes and the work on them grow with the square of its steps. Here each file
is compared with the previous one first: when its text begins with the previous file's text up
to the end of that file's last message, those messages are the same JSON (the same parser read
the same characters from the same start), so the parsed messages are reused as they are, the
very same objects, and only what follows is parsed and checked for depth. The comparison is of
the exact text, so a message edited by hand (a space, a key order) is read afresh from there on:
`fc check` and `fc replay` see it.

A file the fast walk cannot read (not an object, a duplicate `messages` key, invalid JSON, too
deep) is read again by parse_json, so every error is worded as everywhere else.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from json.decoder import WHITESPACE, JSONDecoder, scanstring  # type: ignore[attr-defined]
from typing import Any

from pydantic import ValidationError

from fccli.core.jsonio import is_too_deep, parse_json, validate
from fccli.core.models import Message, Request

_BLANK = WHITESPACE  # json's own `[ \t\n\r]*`, compiled already: one compile less
_DECODER = JSONDecoder()


@contextmanager
def quiet_collector() -> Iterator[None]:
    """Python's cyclic garbage collector walks every live container each time enough new ones
    are made; a reader building a long trace's trees (parsed JSON, models: millions of objects,
    none of them in a cycle) spent about half its time there. So it is paused while they are
    built. (Not frozen after: in a process that lives on, `fc serve`, frozen garbage would never
    be freed; one walk when it resumes costs little.)"""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


HISTORY_KEYS = ("messages", "contents", "input")
"""The top-level array a request keeps its history in: `messages` (internal, chat, Anthropic),
`contents` (Gemini), `input` (OpenAI Responses). The first of them in a file is the one compared
with the previous file's; a format keeping its history under another key is read whole, rightly,
only slower."""


class _Slow(Exception):
    """The fast walk gives up; parse_json reads the file and says what is wrong."""


class Parsed:
    """One request file as read. A plain class, not a dataclass: start-up (docs/performance.md)."""

    def __init__(
        self,
        data: Any,
        reused: int = 0,
        text: str = "",
        ends: list[int] | None = None,
        key: str = "messages",
    ) -> None:
        self.data = data
        """The JSON, as json.loads gives it."""
        self.reused = reused
        """How many leading messages are the previous file's own objects (not read again)."""
        self.text = text
        self.ends: list[int] = [] if ends is None else ends
        """Where each message of the history (`key`) ends in `text`."""
        self.key = key
        """Which of HISTORY_KEYS holds the history."""
        self.value: Any = None
        """What the reader made of the file (a validated Request), for the next file to build
        on."""
        self.before: Any = None
        """The previous file's `value`, when this file reuses its messages."""

    @property
    def messages(self) -> list[Any]:
        messages = self.data.get(self.key) if isinstance(self.data, dict) else None
        return messages if isinstance(messages, list) else []


class RequestFiles:
    """The request files of one trace, read in step order, each against the one before."""

    def __init__(self) -> None:
        self._previous: Parsed | None = None

    def forget(self) -> None:
        """Compare the next file with nothing (a step is missing)."""
        self._previous = None

    def read(self, raw: bytes, source: str) -> Parsed:
        """Return the file's JSON; raise InputFileError as parse_json does."""
        previous, self._previous = self._previous, None
        try:
            parsed = _walk(raw, previous)
        except (_Slow, ValueError, IndexError, RecursionError):
            parsed = Parsed(parse_json(raw, source))
        if parsed.reused and previous is not None:
            parsed.before = previous.value
        self._previous = parsed if parsed.ends else None
        return parsed


def _walk(raw: bytes, previous: Parsed | None) -> Parsed:
    if json.detect_encoding(raw) != "utf-8":
        raise _Slow
    text = raw.decode("utf-8", "surrogatepass")  # as json.loads decodes bytes
    reused: list[Any] = []
    head: dict[str, Any] = {}
    if previous is not None and previous.ends and text.startswith(_shared(previous)):
        # Everything up to the end of the previous file's last message is the same text: the
        # keys before `messages` and the messages themselves are the same values.
        before = previous.data
        for key in before:
            if key == previous.key:
                break
            head[key] = before[key]
        reused = previous.messages
        at = previous.ends[-1]
        ends = list(previous.ends)
        found = [previous.key]
        data = _rest_of_object(text, head, reused, ends, at, found)
        return Parsed(data, len(reused), text, ends, found[0])
    at = _blank(text, 0)
    if text[at] != "{":
        raise _Slow
    ends = []
    found = []
    data = _object(text, at + 1, head, ends, found)
    return Parsed(data, 0, text, ends, found[0] if found else "messages")


def _shared(previous: Parsed) -> str:
    return previous.text[: previous.ends[-1]]


def _blank(text: str, at: int) -> int:
    match = _BLANK.match(text, at)
    return match.end() if match else at


def _object(
    text: str,
    at: int,
    out: dict[str, Any],
    ends: list[int],
    found: list[str],
    *,
    first: bool = True,
) -> dict[str, Any]:
    """Return the top-level object from `at` (past its `{`, or past a comma when not `first`),
    noting the history's key in `found` and where each of its messages ends in `ends`."""
    at = _blank(text, at)
    if first and text[at] == "}":
        return _end(text, at + 1, out)
    while True:
        if text[at] != '"':
            raise _Slow
        key, at = scanstring(text, at + 1)
        at = _blank(text, at)
        if text[at] != ":":
            raise _Slow
        at = _blank(text, at + 1)
        if key in out:
            raise _Slow  # a repeated key: the last one wins, as json.loads has it
        if key in HISTORY_KEYS and not found and text[at] == "[":
            found.append(key)
            messages: list[Any] = []
            out[key] = messages
            at = _array(text, at + 1, messages, ends)
        else:
            value, at = _DECODER.raw_decode(text, at)
            if is_too_deep(value, 1):
                raise _Slow
            out[key] = value
        at = _blank(text, at)
        if text[at] == "}":
            return _end(text, at + 1, out)
        if text[at] != ",":
            raise _Slow
        at = _blank(text, at + 1)


def _array(text: str, at: int, messages: list[Any], ends: list[int]) -> int:
    """Return the messages from `at` (past the `[`, or past the last message read); the end of
    `]`."""
    at = _blank(text, at)
    if text[at] == "]":
        return at + 1
    while True:
        value, at = _DECODER.raw_decode(text, at)
        if is_too_deep(value, 2):
            raise _Slow
        messages.append(value)
        ends.append(at)
        at = _blank(text, at)
        if text[at] == "]":
            return at + 1
        if text[at] != ",":
            raise _Slow
        at = _blank(text, at + 1)


def _rest_of_object(
    text: str, head: dict[str, Any], reused: list[Any], ends: list[int], at: int, found: list[str]
) -> dict[str, Any]:
    """Past the reused messages: the new ones, then the keys after the history's."""
    messages = list(reused)
    head[found[0]] = messages
    at = _blank(text, at)
    if text[at] == ",":
        at = _array(text, at + 1, messages, ends)
    elif text[at] == "]":
        at += 1
    else:
        raise _Slow
    at = _blank(text, at)
    if text[at] == "}":
        return _end(text, at + 1, head)
    if text[at] != ",":
        raise _Slow
    return _object(text, at + 1, head, ends, found, first=False)


def _end(text: str, at: int, out: dict[str, Any]) -> dict[str, Any]:
    if _blank(text, at) != len(text):
        raise _Slow  # something after the object: parse_json says what
    return out


def validate_request(parsed: Parsed, source: str) -> Request:
    """Return the file as an internal Request: only the messages the previous file did not have are
    validated, when that file's Request was; the rest are its very Message objects. Any problem is
    worded by validating the whole, as `validate` does."""
    reused = parsed.reused if parsed.key == "messages" else 0
    request = validate_after(parsed.data, parsed.before, reused, source)
    parsed.value = request
    return request


def validate_after(data: Any, before: Any, reused: int, source: str) -> Request:
    """Return `data` as a Request, taking its first `reused` messages from `before` (a Request whose
    messages are those, validated) when there is one."""
    if isinstance(before, Request) and reused and reused == len(before.messages):
        try:
            request = Request.model_validate({**data, "messages": []})
            new = [Message.model_validate(m) for m in data["messages"][reused:]]
        except ValidationError:
            pass
        else:
            request.messages = [*before.messages, *new]
            return request
    return validate(Request, data, source)
