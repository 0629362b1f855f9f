"""AWS's binary event-stream framing (`application/vnd.amazon.eventstream`), decoded
incrementally: bytes split anywhere in, whole messages out, every checksum checked.

A message (AWS SDKs' "Event Stream Encoding"; botocore `eventstream.py` reads the same):

    total length (4 bytes) · headers length (4) · prelude CRC (4, CRC-32 of the 8 bytes before)
    headers · payload · message CRC (4, CRC-32 of everything before it)

all integers big-endian, unsigned. A header is its name's length (1 byte), the name (UTF-8), a
type (1 byte) and a value: 0 true, 1 false (no bytes), 2 byte, 3 short, 4 integer, 5 long, 6
byte array and 7 string (a 2-byte length first), 8 timestamp (8 bytes, milliseconds), 9 UUID
(16). Bedrock's events carry `:message-type` (`event`, `exception`, `error`), `:event-type`
(`contentBlockDelta`...) or `:exception-type`, and `:content-type`; the payload is JSON.

The decoder never trusts a length before its checksum is known good, and bounds both lengths
(botocore's limits: 128 KiB of headers, 24 MiB of payload), so a corrupt or hostile stream is a
ProtocolError naming the message, never a huge allocation.
"""

from __future__ import annotations

import json
import struct
import uuid
import zlib
from typing import TYPE_CHECKING, Any, NamedTuple

from fccli.core.errors import ProtocolError
from fccli.i18n import Msg

if TYPE_CHECKING:
    from fccli.core.secrets import Secrets

PRELUDE = 12
"""Bytes before the headers: two lengths and the prelude's CRC."""
TRAILER = 4
"""The message CRC after the payload."""
MAX_HEADERS = 128 * 1024
MAX_PAYLOAD = 24 * 1024 * 1024
HEAD_SHOWN = 80
"""Bytes of the body kept to show what came when it was no event stream."""

_FIXED = {2: ">b", 3: ">h", 4: ">i", 5: ">q", 8: ">q"}
"""Header value types of a fixed size: their struct format (8, a timestamp, as milliseconds)."""


class Frame(NamedTuple):
    """One message of the stream."""

    headers: dict[str, Any]
    payload: bytes
    size: int
    """Its length on the wire, prelude to CRC."""


class EventStreamDecoder:
    """Feed it the body's bytes as they arrive; it hands back the messages they complete."""

    def __init__(self) -> None:
        self.bytes_received = 0
        self.frames = 0
        """Messages decoded so far (numbered from 1 in error messages)."""
        self.head = b""
        self._buffer = bytearray()

    @property
    def pending(self) -> int:
        """Bytes of a message begun but not complete."""
        return len(self._buffer)

    def feed(self, chunk: bytes) -> list[Frame]:
        if len(self.head) < HEAD_SHOWN:
            self.head += chunk[: HEAD_SHOWN - len(self.head)]
        self.bytes_received += len(chunk)
        self._buffer += chunk
        frames: list[Frame] = []
        while True:
            frame = self._next()
            if frame is None:
                return frames
            frames.append(frame)

    def _next(self) -> Frame | None:
        buffer = self._buffer
        if len(buffer) < PRELUDE:
            return None
        total, headers_length, prelude_crc = struct.unpack_from(">III", buffer)
        number = self.frames + 1
        if zlib.crc32(bytes(buffer[:8])) != prelude_crc:
            raise ProtocolError(
                Msg(
                    "message {number} of the event stream has a bad prelude checksum: {problem}",
                    number=number,
                    problem=self._looks_like(),
                )
            )
        payload_length = total - PRELUDE - headers_length - TRAILER
        if headers_length > MAX_HEADERS or payload_length < 0 or payload_length > MAX_PAYLOAD:
            raise ProtocolError(
                Msg(
                    "message {number} of the event stream declares impossible lengths "
                    "({total:,} bytes in all, {headers:,} of headers)",
                    number=number,
                    total=total,
                    headers=headers_length,
                )
            )
        if len(buffer) < total:
            return None
        body = bytes(buffer[:total])
        del buffer[:total]
        (message_crc,) = struct.unpack_from(">I", body, total - TRAILER)
        if zlib.crc32(body[: total - TRAILER]) != message_crc:
            raise ProtocolError(
                Msg(
                    "message {number} of the event stream has a bad message checksum: its "
                    "bytes changed on the way",
                    number=number,
                )
            )
        headers = _headers(body[PRELUDE : PRELUDE + headers_length], number)
        self.frames += 1
        return Frame(headers, body[PRELUDE + headers_length : total - TRAILER], total)

    def _looks_like(self) -> str:
        """Return what the bytes look like when they are no event-stream message at all."""
        if self.frames == 0:
            start = self.head[:20].decode("utf-8", errors="replace")
            return Msg("the answer starts {start!r}, not an event-stream message", start=start)
        return Msg("its bytes changed on the way, or a message before it was cut")


def _headers(data: bytes, number: int) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    at = 0
    try:
        while at < len(data):
            size = data[at]
            name = data[at + 1 : at + 1 + size].decode("utf-8")
            at += 1 + size
            kind = data[at]
            at += 1
            value: Any
            if kind in (0, 1):
                value = kind == 0
            elif kind in _FIXED:
                fmt = _FIXED[kind]
                (value,) = struct.unpack_from(fmt, data, at)
                at += struct.calcsize(fmt)
            elif kind in (6, 7):
                (length,) = struct.unpack_from(">H", data, at)
                raw = data[at + 2 : at + 2 + length]
                if len(raw) != length:
                    raise ValueError("value cut")
                value = raw.decode("utf-8") if kind == 7 else raw
                at += 2 + length
            elif kind == 9:
                raw = data[at : at + 16]
                if len(raw) != 16:
                    raise ValueError("value cut")
                value = str(uuid.UUID(bytes=raw))
                at += 16
            else:
                raise ValueError(f"type {kind}")
            headers[name] = value
    except (IndexError, struct.error, ValueError) as e:  # UnicodeDecodeError is a ValueError
        raise ProtocolError(
            Msg(
                "message {number} of the event stream has headers fc cannot read ({error})",
                number=number,
                error=str(e) or type(e).__name__,
            )
        ) from None
    return headers


def is_event_stream(raw: bytes) -> bool:
    """Tell whether bytes begin as an event-stream message: a prelude whose checksum holds."""
    if len(raw) < PRELUDE:
        return False
    (prelude_crc,) = struct.unpack_from(">I", raw, 8)
    return bool(zlib.crc32(raw[:8]) == prelude_crc)


def frames_text(raw: bytes) -> str | None:
    """Return a stream's messages as lines of text, `:event-type` (or `:exception-type`) then
    the payload; None when the bytes are no event stream. Bytes after the last whole message
    are said, not shown: a message cut off, or one that is corrupt (a checksum that fails, a
    length no message can have), named at its place."""
    if not is_event_stream(raw):
        return None
    decoder = EventStreamDecoder()
    decoder._buffer += raw  # message by message: those before a corrupt one are shown
    lines: list[str] = []
    while True:
        left = decoder.pending
        try:
            frame = decoder._next()
        except ProtocolError as e:
            lines.append(
                Msg(
                    "(corrupt: {problem}; the {count} bytes from there are not shown)",
                    problem=e.message,
                    count=format(left, ","),
                )
            )
            break
        if frame is None:
            if decoder.pending:
                lines.append(Msg("({count} bytes of a message cut off)", count=decoder.pending))
            break
        kind = frame.headers.get(":event-type") or frame.headers.get(":exception-type", "?")
        payload = frame.payload.decode("utf-8", errors="replace")
        lines.append(f"{kind} {payload}")
    return "\n".join(lines)


def masked(raw: bytes, secrets: Secrets) -> bytes:
    """Return a stream with every secret masked in its messages' payloads, those cut across
    messages too (`Secrets.stream`, one block's pieces known by `contentBlockIndex`), and each
    message whose payload changed framed anew (its lengths, its checksums): masked, the stream
    still reads. Bytes past the last whole message, or from a corrupt one on, are masked as
    bytes."""
    decoder = EventStreamDecoder()
    decoder._buffer += raw
    frames: list[Frame] = []
    while True:
        try:
            frame = decoder._next()
        except ProtocolError:
            frame = None
        if frame is None:
            break
        frames.append(frame)
    views = [_view(frame.payload) for frame in frames]
    events = b"".join(b"data: " + (view[0] if view else b"-") + b"\n\n" for view in views)
    lines = secrets.stream(events).split(b"\n\n")
    out, at = [], 0
    for frame, view, line in zip(frames, views, lines, strict=False):
        original = raw[at : at + frame.size]
        at += frame.size
        if view is None:
            payload = secrets.raw(frame.payload)
        elif line[6:] == view[0]:
            payload = frame.payload
        else:
            value = json.loads(line[6:])
            if view[1]:
                value.pop(_INDEX, None)
            payload = _compact(value)
        if payload == frame.payload:
            out.append(original)
            continue
        (headers_length,) = struct.unpack_from(">I", original, 4)
        headers = original[PRELUDE : PRELUDE + headers_length]
        total = PRELUDE + headers_length + len(payload) + TRAILER
        prelude = struct.pack(">II", total, headers_length)
        message = prelude + struct.pack(">I", zlib.crc32(prelude)) + headers + payload
        out.append(message + struct.pack(">I", zlib.crc32(message)))
    return b"".join(out) + secrets.raw(raw[at:])


_INDEX = "index"
"""The key `Secrets.stream` knows a block's pieces by (Bedrock's is `contentBlockIndex`)."""


def _view(payload: bytes) -> tuple[bytes, bool] | None:
    """Return a payload as one line of JSON for `Secrets.stream`, and whether its block's index
    was added where that looks for it; None for a payload that is no JSON object."""
    try:
        value = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    added = _INDEX not in value and isinstance(value.get("contentBlockIndex"), int)
    if added:
        value[_INDEX] = value["contentBlockIndex"]
    return _compact(value), added


def _compact(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "surrogatepass"
    )
