"""Server-sent events, decoded incrementally: bytes split anywhere in, events out.

The rules are the WHATWG HTML standard's ("Server-sent events", "Interpreting an event
stream"): a line ends in `\\n`, `\\r\\n` or `\\r`; `field: value` (one space after the colon
dropped); a line starting with `:` is a comment (servers send `: keep-alive` to hold the
connection open); a blank line dispatches the event; several `data:` lines join with `\\n`;
`event:` names it ("message" when unnamed); a leading byte-order mark is skipped.

Linear in the input: bytes after the last event boundary wait in a list of pieces and are
joined once, when the boundary that ends them arrives; every byte is decoded once, as part of
whole events, so a UTF-8 character split across two network reads is never cut.

Two ways out: `feed` gives SSEEvent objects; `feed_json` gives each event's data parsed as a
JSON object, with a fast path for the shape every JSON streaming API sends
(`[event: NAME\\n]data: {...}\\n\\n`, parsed in place, no per-line strings), for the stream folders.
Format-neutral, like shape.py: shared by the chat and Anthropic folders, with the few helpers
both use (`joined`, `tail`, `guarded`).
"""

from __future__ import annotations

import json
import json.scanner
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple, cast

from fccli.core.errors import ProtocolError
from fccli.i18n import Joined, Msg

SHOWN = 80
"""Characters of a bad event's data shown in an error message."""
SLICE = 16 * 1024
"""Bytes decoded at a time by feed_json_slices. The objects parsed from one slice are folded
(and freed) before the next slice is parsed, so a long body never holds all its chunks alive."""


class SSEEvent(NamedTuple):
    event: str
    """The event's name: its `event:` field, or "message"."""
    data: str
    """Its `data:` lines joined with "\\n"."""


def _show(data: str) -> str:
    return repr(data[:SHOWN]) + ("…" if len(data) > SHOWN else "")


class SSEDecoder:
    """Feed it the body's bytes as they arrive; it hands back the events they complete.

    `literals`: data texts that `feed_json` passes through as strings instead of parsing
    (chat's `[DONE]`).
    """

    __slots__ = (
        "_literals",
        "_pending",
        "_pending_nl",
        "_scan",
        "_skip_lf",
        "_started",
        "bytes_received",
        "comments",
        "events",
        "head",
        "last_text",
        "unfinished",
    )

    def __init__(self, literals: frozenset[str] = frozenset()) -> None:
        self.bytes_received = 0
        """Bytes fed so far."""
        self.events = 0
        """Events dispatched so far (numbered from 1 in error messages)."""
        self.comments = 0
        """Comment lines seen (`: keep-alive`, `: OPENROUTER PROCESSING`, ...)."""
        self.head = b""
        """The body's first bytes, to show what came when it was no event stream at all."""
        self.unfinished = ""
        """After finish(): the last line when the stream ended in the middle of it, else ""."""
        self.last_text = ""
        """The text of the events last decoded, for a caller that wants an event's raw data."""
        self._literals = literals
        self._pending: list[bytes] = []
        """Bytes after the last event boundary, in the pieces they came in."""
        self._pending_nl = False
        """Whether the pending bytes end with a line end (a blank line may be half there)."""
        self._skip_lf = False
        """The last chunk ended with `\\r`: a `\\n` starting the next one belongs to that line end."""
        self._started = False
        # The C scanner behind json.loads, called at a position in the text: no substring per
        # event, no Python-level wrapper around the parse.
        self._scan: Callable[[str, int], tuple[Any, int]] = json.scanner.make_scanner(
            cast(Any, json.JSONDecoder())
        )

    # -- bytes -> text of whole events

    def feed_text(self, chunk: bytes) -> str:
        """Return the events that `chunk` completes, as text: it starts at an event boundary, ends
        with a blank line, line ends made `\\n`; "" when `chunk` completes none. For `events_in`."""
        if not chunk:
            return ""
        if len(self.head) < SHOWN:
            self.head += chunk[: SHOWN - len(self.head)]
        self.bytes_received += len(chunk)
        if self._skip_lf or b"\r" in chunk:
            chunk = self._normalise(chunk)
        end = chunk.rfind(b"\n\n") + 2
        if end < 2:
            if chunk[:1] == b"\n" and self._pending_nl and self._pending:
                end = 1  # the blank line is the pending line end plus this one
            else:
                if chunk:
                    self._pending.append(chunk)
                    self._pending_nl = chunk[-1:] == b"\n"
                return ""
        if self._pending:
            self._pending.append(chunk[:end])
            region = b"".join(self._pending)
            self._pending = []
        else:
            region = chunk if end == len(chunk) else chunk[:end]
        if end < len(chunk):
            rest = chunk[end:]
            self._pending.append(rest)
            self._pending_nl = rest[-1:] == b"\n"
        else:
            self._pending_nl = True
        return self._decode(region)

    def _normalise(self, chunk: bytes) -> bytes:
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        if chunk[-1:] == b"\r":
            # A line end now (no waiting for the next read); a `\n` that follows is its second half.
            self._skip_lf = True
        return chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")

    def _decode(self, region: bytes) -> str:
        # Undecodable bytes become U+FFFD, as the standard says; a JSON parser then sees them.
        text = region.decode("utf-8", "replace")
        if not self._started:
            self._started = True
            if text[:1] == "\ufeff":
                text = text[1:]
        self.last_text = text
        return text

    def finish_text(self) -> str:
        """At the end of the body: the complete lines of the event still open, closed as if its
        blank line had come ("" when none), and `unfinished` set to a line cut off mid-way.

        The standard discards an event the stream ends inside; a caller here decides (a chat
        stream whose last event lacks only its blank line still said everything it had to)."""
        pending = self._pending
        self._pending = []
        if not pending:
            return ""
        text = self._decode(b"".join(pending))
        cut = text.rfind("\n") + 1
        self.unfinished = text[cut:]
        self.last_text = text = text[:cut] + "\n" if cut else ""
        return text

    # -- text -> events

    def events_in(self, text: str) -> list[SSEEvent]:
        """Return the events in a text from feed_text / finish_text (comments counted)."""
        events, comments = parse_events(text)
        self.events += len(events)
        self.comments += comments
        return events

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        text = self.feed_text(chunk)
        return self.events_in(text) if text else []

    def finish(self) -> list[SSEEvent]:
        """Return the event left open when the body ended, if it has complete lines (see
        finish_text)."""
        text = self.finish_text()
        return self.events_in(text) if text else []

    # -- text -> JSON objects, for the stream folders

    def feed_json(self, chunk: bytes) -> list[Any]:
        """Each completed event's data as a parsed JSON object (event names dropped: the JSON
        formats repeat them as the data's `type`, or send none); a data text among `literals`
        as that string. ProtocolError for data that is not a JSON object."""
        text = self.feed_text(chunk)
        return self.json_in(text) if text else []

    def feed_json_slices(self, chunk: bytes) -> Iterator[list[Any]]:
        """feed_json over `chunk` in slices of at most SLICE bytes, one list per slice."""
        if len(chunk) <= SLICE:
            objs = self.feed_json(chunk)
            if objs:
                yield objs
            return
        for start in range(0, len(chunk), SLICE):
            objs = self.feed_json(chunk[start : start + SLICE])
            if objs:
                yield objs

    def finish_json(self) -> list[Any]:
        text = self.finish_text()
        return self.json_in(text) if text else []

    def json_in(self, text: str) -> list[Any]:
        out: list[Any] = []
        append = out.append
        scan = self._scan
        startswith = text.startswith
        find = text.find
        size = len(text)
        pos = 0
        count = 0
        while pos < size:
            # Fast path: `data: {...}\n\n`, optionally after one `event: NAME` line.
            at = pos
            if startswith("event: ", at):
                at = find("\n", at) + 1
            if startswith("data: {", at):
                try:
                    obj, end = scan(text, at + 6)
                except (StopIteration, ValueError, RecursionError):
                    pass  # the slow path below names the event
                else:
                    if startswith("\n\n", end):
                        append(obj)
                        count += 1
                        pos = end + 2
                        continue
            # Anything else (comments, several data lines, `data:{` without the space, other
            # fields): the general parser, for this one event.
            stop = find("\n\n", pos)
            stop = size if stop < 0 else stop + 2
            self.events += count
            count = 0
            base = self.events
            for number, event in enumerate(self.events_in(text[pos:stop]), base + 1):
                append(self._parse_data(event.data, number))
            pos = stop
        self.events += count
        return out

    def _parse_data(self, data: str, number: int) -> Any:
        if data.strip() in self._literals:
            return data.strip()
        try:
            value = json.loads(data)
        except (ValueError, RecursionError):
            raise ProtocolError(
                Msg(
                    "event {number} of the stream is not JSON: {data}",
                    number=number,
                    data=_show(data),
                ),
                body=data,
            ) from None
        if not isinstance(value, dict):
            raise ProtocolError(
                Msg(
                    "event {number} of the stream is not a JSON object: {data}",
                    number=number,
                    data=_show(data),
                ),
                body=data,
            )
        return value

    def raw_data(self, obj: Any) -> str | None:
        """Return the data text of the event in the last decoded text that parses to `obj` (for an
        error body as received; only called when something went wrong)."""
        for event in parse_events(self.last_text)[0]:
            try:
                if json.loads(event.data) == obj:
                    return event.data
            except (ValueError, RecursionError):
                continue
        return None


# ---------------------------------------------------------------------------------------------
# shared by the stream folders (chat/stream.py, anthropic/stream.py)

TAIL = 60
"""Characters shown of an incomplete fragment in a message: its end, where it stopped."""


_FIELDS = (b"data", b"event", b"id", b"retry", b":")


def ended_early(bytes_received: int, reasons: list[str]) -> Msg:
    """Return the message of a stream that ended early, for `reasons` (Msgs)."""
    return Msg(
        "the stream ended early after {count:,} bytes: {reasons}",
        count=bytes_received,
        reasons=Joined(reasons, ", ", zh_sep="，"),
    )


def note_once(notes: list[str], noted: set[str], key: str, text: str) -> None:
    """Add a note once per stream, however many events call for it."""
    if key not in noted:
        noted.add(key)
        notes.append(text)


def not_a_stream(decoder: SSEDecoder) -> ProtocolError | None:
    """Return the error for a body that is no event stream at all (a server that ignored
    `stream: true` and sent one JSON answer, an HTML error page, ...), else None. A body
    that starts like one, however short, is a stream cut early instead."""
    if decoder.events or decoder.comments or not decoder.bytes_received:
        return None
    first = decoder.head.lstrip(b"\xef\xbb\xbf\r\n")
    if not first or any(first.startswith(f) or f.startswith(first) for f in _FIELDS):
        return None
    start = decoder.head.decode("utf-8", "replace")
    return ProtocolError(
        Msg(
            "the answer is not an event stream: {bytes_received:,} bytes without a `data:` line, starting {start}",
            bytes_received=decoder.bytes_received,
            start=_show(start),
        )
    )


def call_label(call_id: Any, name: Any) -> Msg:
    """Return a call as a stream's message names it: `call <id> (<name>)`."""
    return Msg("call {who} ({name})", who=call_id, name=name or Msg("no name"))


def tail(text: str) -> str:
    """Return the end of an incomplete fragment, repr-quoted, for a message."""
    return ("…" if len(text) > TAIL else "") + repr(text[-TAIL:])


def with_incomplete(message: Msg, calls: list[tuple[str, str]]) -> Msg:
    """Return `message` followed by each (call, arguments so far) whose arguments were cut off."""
    if not calls:
        return message
    said = [
        Msg("{call} has incomplete arguments: {tail}", call=call, tail=tail(text))
        for call, text in calls
    ]
    return Msg("{message}; {calls}", message=message, calls=Joined(said, "; "))


def joined(parts: list[Any]) -> str:
    """Return the fragments of one text, joined once. A server that sent a non-string fragment (an
    object where the format says string) gets it as JSON text rather than a crash."""
    try:
        return "".join(parts)
    except TypeError:
        return "".join(
            p if isinstance(p, str) else json.dumps(p, ensure_ascii=False) for p in parts
        )


class ListenerFailed(Exception):
    """An exception raised by a folder's on_delta, carried past the folder's shape checks (which
    turn a TypeError or KeyError into "an event of the wrong shape") to be re-raised as is."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


def guarded(on_delta: Callable[[Any], None]) -> Callable[[Any], None]:
    """`on_delta`, its exceptions wrapped in ListenerFailed."""

    def emit(delta: Any) -> None:
        try:
            on_delta(delta)
        except Exception as e:
            raise ListenerFailed(e) from e

    return emit


def parse_events(text: str) -> tuple[list[SSEEvent], int]:
    """Return `(events, comments)` of a text of whole lines ending in `\\n`.

    An event still open at the end of the text is not dispatched (the text from feed_text
    always ends with a blank line).
    """
    events: list[SSEEvent] = []
    comments = 0
    data: list[str] = []
    name = ""
    lines = text.split("\n")
    lines.pop()  # what follows the last line end: nothing
    for line in lines:
        if not line:
            if data:
                events.append(SSEEvent(name or "message", "\n".join(data)))
                data = []
            name = ""
        elif line[0] == ":":
            comments += 1
        else:
            field, colon, value = line.partition(":")
            if colon and value[:1] == " ":
                value = value[1:]
            if field == "data":
                data.append(value)
            elif field == "event":
                name = value
            # Any other field (`id`, `retry`: fc does not reconnect) is ignored.
    return events, comments
