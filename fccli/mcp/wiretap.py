"""Keep every JSON-RPC message fc and one MCP server exchange, exactly as it went, in order.

One line of `mcp-<server>.jsonl` per message (trace/mcp_log.py reads it back):

    {"n": 3, "at": "...", "dir": "sent", "step": 1, "call": "call_ab12", "id": 2,
     "message": {...}}

`message` is the JSON-RPC message when its compact JSON is exactly the text that went over the
wire; otherwise `raw` holds that text as it was (a server's own spacing, a number written
another way, a line that is not JSON at all). `step` and `call` say which step of the run and
which tool call a `tools/call` request and its answer belong to (null for the handshake and
`tools/list`); `id` is the JSON-RPC id. What is not a message (a line cut at
--max-response-mb, the server's exit) is a line with `event` instead.

Lines wait in memory until the trace directory exists (the handshake comes before it), then
each is appended as it happens.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from fccli.core.secrets import Secrets

SENT, RECEIVED = "sent", "received"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def compact(value: Any) -> str:
    """Write `value` as the SDK writes a message: compact, UTF-8 as it is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def mask_parts(secrets: Secrets, result: Any) -> bool:
    """Mask, in place, the secrets of a tool result's text parts read as one text (a key cut
    across two parts), and likewise the strings of its structured content; returns whether any
    string changed."""
    if not isinstance(result, dict):
        return False
    content = result.get("content")
    texts: list[tuple[Any, Any]] = [
        (part, "text")
        for part in (content if isinstance(content, list) else [])
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    ]
    structured: list[tuple[Any, Any]] = []
    _strings(result.get("structuredContent"), structured)
    changed = False
    for leaves in (texts, structured):
        before = [container[key] for container, key in leaves]
        after = secrets.pieces(before)
        for (container, key), text in zip(leaves, after, strict=True):
            container[key] = text
        changed = changed or after != before
    return changed


def _strings(value: Any, into: list[tuple[Any, Any]]) -> None:
    """Collect where each string of a JSON value stands (its container and key), in order."""
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        if isinstance(item, str):
            into.append((value, key))
        else:
            _strings(item, into)


class Wiretap:
    """The ordered record of one server's JSON-RPC traffic; thread-safe."""

    def __init__(self, secrets: Secrets, step_of: Callable[[], int | None]) -> None:
        self._secrets = secrets
        self._step_of = step_of
        """The step whose calls are running now (None before the first step)."""
        self._lock = threading.Lock()
        self._lines: list[str] = []
        self._path: Path | None = None
        self._n = 0
        self._pending: dict[str, list[str]] = {}
        """tools/call requests about to go out, by their name and arguments: the call ids."""
        self._calls: dict[str, tuple[int | None, str]] = {}
        """JSON-RPC id (as JSON) → (step, call id) of each tools/call sent."""
        self.request_ids: dict[str, Any] = {}
        """call id → the JSON-RPC id of its tools/call."""
        self.messages: list[dict[str, Any]] = []
        """Every line as written, in order (for the run's own readers)."""
        self.session_id: str | None = None
        """The `Mcp-Session-Id` a streamable HTTP server gave."""

    def expect_call(self, call_id: str, name: str, arguments: dict[str, Any]) -> None:
        """Say that the next tools/call of `name` with `arguments` is call `call_id`."""
        with self._lock:
            self._pending.setdefault(compact([name, arguments]), []).append(call_id)

    def attach(self, path: Path) -> None:
        """Write the lines kept so far to `path`, and every later one as it comes."""
        with self._lock:
            self._path = path
            with path.open("a", encoding="utf-8") as f:
                f.writelines(self._lines)
            self._lines = []

    def move(self, path: Path) -> None:
        """Rename the file the lines are written to (a server named once it answered)."""
        with self._lock:
            if self._path is not None and path != self._path:
                self._path = self._path.replace(path)

    def sent(self, raw: str) -> None:
        self._message(SENT, raw)

    def received(self, raw: str) -> None:
        self._message(RECEIVED, raw)

    def event(self, event: str, **details: Any) -> None:
        """Note something that is not a message (an exit, a line cut short)."""
        with self._lock:
            self._write({"event": event, **details})

    def _message(self, direction: str, raw: str) -> None:
        shown = self._secrets.text(raw) if self._secrets else raw
        try:
            message = json.loads(shown)
        except (ValueError, RecursionError):  # nested too deep to read: kept as raw text
            message = None
        if (
            self._secrets
            and isinstance(message, dict)
            and mask_parts(self._secrets, message.get("result"))
        ):
            shown = compact(message)
        with self._lock:
            entry: dict[str, Any] = {"dir": direction, "step": None, "call": None}
            if isinstance(message, dict):
                self._tag(entry, direction, message)
            if message is not None and compact(message) == shown:
                entry["message"] = message
            else:
                entry["raw"] = shown
            self._write(entry)

    def _tag(self, entry: dict[str, Any], direction: str, message: dict[str, Any]) -> None:
        """Fill in the step and call a tools/call request, or its answer, belongs to."""
        if "id" in message:
            entry["id"] = message["id"]
        key = compact(message.get("id"))
        if direction == SENT and message.get("method") == "tools/call":
            params = message.get("params") or {}
            waiting = self._pending.get(compact([params.get("name"), params.get("arguments")]))
            if waiting:
                call = waiting.pop(0)
                self._calls[key] = (self._step_of(), call)
                self.request_ids[call] = message.get("id")
        tagged = self._calls.get(key) if "id" in message else None
        if tagged is not None:
            entry["step"], entry["call"] = tagged

    def _write(self, entry: dict[str, Any]) -> None:
        self._n += 1
        line = {"n": self._n, "at": _now(), **entry}
        self.messages.append(line)
        text = compact(line) + "\n"
        if self._path is None:
            self._lines.append(text)
            return
        with self._path.open("a", encoding="utf-8") as f:
            f.write(text)


KEPT_BYTES = 64 << 20
"""Bytes of one message (a line, an HTTP body) `fc mcp record` keeps at most in its log (fc
run's --max-response-mb default); a longer one still passes on whole, its cut noted."""
HEAD_KEPT = 200
"""Bytes kept of the start of a message past KEPT_BYTES, to show what it was."""


class BodyTap:
    """Keep the JSON-RPC messages of an HTTP body as it passes: a JSON body whole at its end,
    each SSE event's `data` once the event is whole."""

    def __init__(self, tap: Wiretap, sse: bool, limit: int | None = None) -> None:
        self.tap = tap
        self.sse = sse
        self.buffer = bytearray()
        self.size = 0
        self.limit = limit
        """Bytes of one body kept at most (None: no bound); past it the rest passes unkept."""
        self.cut = False

    def feed(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if self.cut:
            return
        if self.limit is not None and self.size > self.limit:
            self.cut, self.buffer = True, bytearray()
            self.tap.event("body_cut", bytes=self.size, max_bytes=self.limit)
            return
        start = max(0, len(self.buffer) - 3)
        self.buffer += chunk
        tail = self.buffer[start:]
        if self.sse and (b"\n\n" in tail or b"\n\r\n" in tail):  # an event ends in it
            self._events()

    def end(self) -> None:
        if not self.sse and not self.cut and self.buffer.strip():
            self.tap.received(self.buffer.decode("utf-8", errors="replace"))
        self.buffer = bytearray()

    def _events(self) -> None:
        normalized = bytes(self.buffer).replace(b"\r\n", b"\n")
        *events, rest = normalized.split(b"\n\n")
        self.buffer = bytearray(rest)
        for event in events:
            lines = event.decode("utf-8", errors="replace").split("\n")
            data = [line[5:].removeprefix(" ") for line in lines if line.startswith("data:")]
            name = next((line[6:].strip() for line in lines if line.startswith("event:")), "")
            if data and name in ("", "message"):
                self.tap.received("\n".join(data))
