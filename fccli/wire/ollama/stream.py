"""A streamed answer of Ollama's `/api/chat`, assembled: NDJSON, not server-sent events.

Each line is a whole ChatResponse (api/types.go) holding the new piece of the message: a
fragment of `content` or `thinking`, or whole `tool_calls` (Ollama parses a call out of the
model's output before sending it: no argument fragments). The last line says `done: true` with
`done_reason` and the metrics (durations in nanoseconds, prompt_eval_count, eval_count). The
pieces are joined into the one answer a call with `stream: false` gets (server/routes.go,
writeChatResponse, joins them the same way).

The end marker is `done: true`: without it the stream ended early (StreamCut). A line
`{"error": "..."}` is Ollama's error inside the stream (server/routes.go sends one when the
model fails mid-answer).
"""

from __future__ import annotations

import json
from typing import Any

from fccli.core.errors import ProtocolError, ProviderError, StreamCut
from fccli.core.stream import OnDelta, StreamDelta
from fccli.i18n import N_, Msg
from fccli.wire.sse import ListenerFailed, ended_early, guarded

SHOWN = 80
"""Characters of a bad line shown in an error message."""


class OllamaStreamFolder:
    """Feed it the raw bytes of an `/api/chat` stream; `finish()` gives the answer."""

    after_end_note = N_("{count} line(s) after `done: true` ignored")

    def __init__(self, on_delta: OnDelta | None = None) -> None:
        self.notes: list[str] = []
        self._on_delta = None if on_delta is None else guarded(on_delta)
        self._pending: list[bytes] = []
        self._received = 0
        self._lines = 0
        self._after_end = 0
        self._content: list[str] = []
        self._thinking: list[str] = []
        self._calls: list[Any] = []
        self._top: dict[str, Any] = {}
        self._message: dict[str, Any] = {}
        self._done = False

    @property
    def bytes_received(self) -> int:
        return self._received

    @property
    def ended(self) -> bool:
        return self._done

    def feed(self, chunk: bytes) -> None:
        self._received += len(chunk)
        end = chunk.rfind(b"\n")
        if end < 0:
            # Pieces of one line are kept apart until it ends: a long line costs no copy per piece.
            self._pending.append(chunk)
            return
        data = b"".join([*self._pending, chunk[:end]])
        self._pending = [chunk[end + 1 :]]
        for line in data.split(b"\n"):
            self._line(line)

    def _line(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace").strip()
        if not text:
            return
        self._lines += 1
        if self._done:
            self._after_end += 1
            return
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):
            raise ProtocolError(
                Msg(
                    "line {number} of the stream is not JSON: {data}",
                    number=self._lines,
                    data=_show(text),
                ),
                body=text,
            ) from None
        if not isinstance(obj, dict):
            raise ProtocolError(
                Msg(
                    "line {number} of the stream is not a JSON object: {data}",
                    number=self._lines,
                    data=_show(text),
                ),
                body=text,
            )
        if "error" in obj and "message" not in obj:
            error = obj["error"]
            message = error if isinstance(error, str) else json.dumps(error, ensure_ascii=False)
            raise ProviderError(
                Msg(
                    "the provider reported an error in the stream: {kind}: {message}",
                    kind="error",
                    message=message,
                ),
                body=text,
            )
        try:
            self._fold(obj)
        except ListenerFailed as e:
            raise e.error from None
        except (TypeError, AttributeError, KeyError, IndexError, ValueError) as e:
            raise ProtocolError(
                Msg(
                    "line {number} of the stream has an unexpected shape ({kind}: {error})",
                    number=self._lines,
                    kind=type(e).__name__,
                    error=str(e),
                )
            ) from None

    def _fold(self, obj: dict[str, Any]) -> None:
        for key, value in obj.items():
            if key != "message":
                self._top[key] = value  # model, created_at; done_reason and metrics last
        message = obj.get("message") or {}
        for key, value in message.items():
            if key not in ("content", "thinking", "tool_calls"):
                self._message[key] = value
        emit = self._on_delta
        thinking, content = message.get("thinking"), message.get("content")
        if isinstance(thinking, str) and thinking:
            self._thinking.append(thinking)
            if emit is not None:
                emit(StreamDelta("thinking", thinking))
        if isinstance(content, str) and content:
            self._content.append(content)
            if emit is not None:
                emit(StreamDelta("text", content))
        for call in message.get("tool_calls") or []:
            if emit is not None:
                function = call.get("function") or {}
                arguments = json.dumps(function.get("arguments", {}), ensure_ascii=False)
                emit(
                    StreamDelta(
                        "call", arguments, len(self._calls), call.get("id"), function.get("name")
                    )
                )
            self._calls.append(call)
        if obj.get("done") is True:
            self._done = True

    def finish(self, cut: str | None = None) -> dict[str, Any]:
        reasons = [cut] if cut else []
        last = b"".join(self._pending)
        self._pending = []
        if last.strip():
            before = self._done
            try:
                self._line(last)
            except ProtocolError:
                reasons.append(Msg("the last line was cut off"))
            else:
                if not before:
                    self.notes.append(Msg("the last line had no line end"))
        if self._after_end:
            self.notes.append(Msg.__new__(Msg, self.after_end_note, count=self._after_end))
        body = self._body()
        if self._lines == 0:
            reasons.append(Msg("no line"))
        elif not self._done:
            reasons.append(Msg("no line with done: true"))
        if reasons:
            raise StreamCut(
                ended_early(self.bytes_received, reasons),
                bytes_received=self.bytes_received,
                partial=body,
            )
        return body

    def _body(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", **self._message}
        message["content"] = "".join(self._content)
        if self._thinking:
            message["thinking"] = "".join(self._thinking)
        if self._calls:
            message["tool_calls"] = self._calls
        body = dict(self._top)
        # The keys in Ollama's own order: model, created_at, message, then the end's.
        head: dict[str, Any] = {k: body.pop(k) for k in ("model", "created_at") if k in body}
        return {**head, "message": message, **body}


def _show(data: str) -> str:
    return repr(data[:SHOWN]) + ("…" if len(data) > SHOWN else "")
