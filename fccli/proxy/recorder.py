"""One forwarded model request, recorded as a step: the files `fc run` writes, in the same names.

    N-request.<format>.json   the client's body, byte for byte (as it was forwarded)
    N-request.json            the same in fc's internal format
    N-response.<format>.json  the answer as it came (a stream: assembled from the .sse)
    N-response.<format>.sse   a stream's raw bytes
    N-response.json           the answer in fc's internal format

The client's key travels in its headers, which are never written; a server that echoes it back
gets it masked in every file, as `fc run` does. The bytes the client gets are never changed:
masking is for what is written.
"""

from __future__ import annotations

import time
import zlib
from datetime import datetime, timezone
from typing import Any

from fccli.core.errors import FcError, Interrupted, ProviderError
from fccli.core.jsonio import parse_json
from fccli.core.manifest import StepRecord, StreamRecord, ToolRunRecord
from fccli.core.models import FINAL_STOPS, Message, Request, Response
from fccli.core.secrets import Secrets
from fccli.proxy.conversations import Conversation
from fccli.run.events import Note, ResponseReceived, StepStarted
from fccli.trace.names import step_file
from fccli.wire.registry import WireFormat

KEY_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "x-goog-api-key"})
"""Request headers that carry a key: their values are masked wherever an answer echoes them."""


def header_secrets(headers: list[tuple[bytes, bytes]], query_values: list[str]) -> Secrets:
    """The client's key (as sent, and without its `Bearer `), and the values of its query
    string (Gemini's `?key=`): what no file may hold."""
    values = list(query_values)
    for name, value in headers:
        if name.decode("latin-1").lower() in KEY_HEADERS:
            text = value.decode("latin-1")
            values += [text, text.partition(" ")[2]]
    return Secrets(values)


class Decoder:
    """A response body as the client's `Accept-Encoding` had it compressed, decoded for the
    record (the client gets the bytes as they came). gzip and deflate; another encoding is
    recorded as nothing, and said."""

    def __init__(self, encoding: str) -> None:
        encoding = encoding.strip().lower()
        self.unknown = encoding not in ("", "identity", "gzip", "deflate")
        # wbits 47: gzip or zlib, by the header; raw deflate is retried below.
        self._z = zlib.decompressobj(47) if encoding in ("gzip", "deflate") else None
        self._encoding = encoding

    def feed(self, chunk: bytes) -> bytes:
        if self._z is None:
            return b"" if self.unknown else chunk
        try:
            return self._z.decompress(chunk)
        except zlib.error:
            if self._encoding == "deflate" and not self._z.unused_data:
                self._z = zlib.decompressobj(-15)  # deflate sent raw, as some servers do
                return self._z.decompress(chunk)
            raise


class Step:
    """A step from the request's arrival to its answer's last byte."""

    def __init__(
        self,
        conversation: Conversation,
        number: int,
        fmt: WireFormat,
        request: Request,
        body: bytes,
        wire: dict[str, Any],
        *,
        stream: bool,
        checks: list[str],
        view: Any,
        secrets: Secrets,
    ) -> None:
        self.conversation = conversation
        self.number = number
        self.fmt = fmt
        self.request = request
        self.stream = stream
        self.view = view
        self.secrets = secrets
        self.pieces: list[bytes] = []
        self.size = 0
        self.first_byte: float | None = None
        self.status = 0
        self.decoder = Decoder("")
        self.folder = fmt.stream_folder() if stream else None
        self.failure: FcError | None = None
        writer = conversation.writer
        writer.write_bytes(step_file(number, "request", fmt.name), body)
        writer.write_json(step_file(number, "request"), request.to_json_dict())
        self._results_of_last_step()
        self.record = StepRecord(
            step=number,
            started_at=datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
            stop_reason=None,
            wire_stop_reason=None,
            duration_ms=None,
            usage=None,
            tool_runs=[],
        )
        if checks:
            self.record.checks = checks
        writer.add_step(self.record)
        messages = wire.get("messages")
        shown = len(messages) if isinstance(messages, list) else len(request.messages)
        view.event(conversation, StepStarted(number, request, shown))
        for text in checks:
            view.event(conversation, Note(number, "fc check: " + text))
        self.start = time.perf_counter()

    def _results_of_last_step(self) -> None:
        """The agent ran the last step's calls: their results, read from this request, go on
        that step's record as `fc run` writes its own tool runs (without durations: the agent
        timed them, not fc)."""
        calls = self.conversation.calls
        steps = self.conversation.writer.manifest.steps
        if not calls or not steps:
            return
        runs = []
        for message in self.request.messages[-2:]:
            for result in message.tool_results():
                call = calls.get(result.tool_use_id)
                if call is None:
                    continue
                runs.append(
                    ToolRunRecord(
                        id=call.id,
                        name=call.name,
                        arguments=call.input,
                        is_error=result.is_error,
                        error=result.content if result.is_error else None,
                    )
                )
        steps[-1].tool_runs = runs

    def answered(self, status: int, encoding: str) -> None:
        """The answer's head came: its status, and how its body is compressed."""
        self.status = status
        self.decoder = Decoder(encoding)
        if status >= 400:
            self.folder = None  # an error is a JSON body, streamed or not

    def on_bytes(self, chunk: bytes) -> None:
        """A piece of the answer, after it went on to the client."""
        if self.first_byte is None:
            self.first_byte = time.perf_counter()
        piece = self.decoder.feed(chunk)
        self.pieces.append(piece)
        self.size += len(piece)
        if self.folder is not None and self.failure is None:
            try:
                self.folder.feed(piece)
            except FcError as e:  # a bad event: the bytes are still kept, folding stops
                self.failure = e

    def done(self) -> None:
        """The answer's last byte went to the client: write it, and show it."""
        c = self.conversation
        raw = b"".join(self.pieces)
        duration_ms = (time.perf_counter() - self.start) * 1000
        self.record.duration_ms = round(duration_ms, 1)
        if self.stream and self.status < 400:
            self.record.stream = StreamRecord(
                bytes=self.size, pieces=len(self.pieces), first_byte_ms=self._first_byte_ms()
            )
        if self.decoder.unknown:
            c.writer.note(f"step {self.number}: the answer's encoding is not one fc reads")
            c.close("error", ProviderError("the answer's content encoding cannot be read"))
            return
        stored = self.secrets.stream(raw) if self.folder is not None else self.secrets.raw(raw)
        if stored != raw:
            self.record.masked = "the response echoed a secret; fc keeps and reads it as ***"
        fmt = self.fmt.name
        if self.folder is not None:
            c.writer.write_bytes(step_file(self.number, "response", fmt, "sse"), stored)
        try:
            wire = self._wire_answer(stored)
            if self.status >= 400:
                raise self._http_error(stored)
            response = self.fmt.from_wire_response(wire)
        except FcError as e:
            c.writer.save_manifest()
            c.close("error", e.at(step=self.number))
            self.view.failed(c, self.number, e.said())
            return
        c.writer.write_json(step_file(self.number, "response"), response.to_json_dict())
        self.record.stop_reason = response.stop_reason
        self.record.wire_stop_reason = self.fmt.wire_stop_reason(wire)
        self.record.usage = response.usage.to_json_dict() if response.usage else None
        c.writer.save_manifest()
        self.view.event(
            c,
            ResponseReceived(
                self.number,
                response,
                duration_ms,
                self.record.wire_stop_reason,
                [],
                self.record.stream.to_json_dict() if self.record.stream else None,
            ),
        )
        self._after(response)

    def _after(self, response: Response) -> None:
        """A tool_use answer waits for the agent's next step; any other ends the trace."""
        c = self.conversation
        if response.stop_reason == "tool_use" and response.tool_uses():
            c.answered(response.as_message())
            return
        if response.stop_reason in FINAL_STOPS or response.stop_reason == "max_tokens":
            c.writer.manifest.final_answer = response.text()
        c.answered(response.as_message())
        c.close("ok")
        self.view.closed(c)

    def _wire_answer(self, stored: bytes) -> Any:
        """The answer in the non-streamed shape (a stream: assembled), written beside the raw."""
        fmt = self.fmt.name
        if self.folder is None:
            json_file = step_file(self.number, "response", fmt)
            if self.status < 400 or _looks_json(stored):
                self.conversation.writer.write_bytes(json_file, stored)
            return parse_json(stored, json_file) if self.status < 400 else None
        if self.failure is not None:
            raise self.failure
        folder = self.folder
        if stored != b"".join(self.pieces):  # a key the server echoed: read as kept, masked
            folder = self.fmt.stream_folder()
            folder.feed(stored)
        wire = folder.finish()
        self.conversation.writer.write_json(step_file(self.number, "response", fmt), wire)
        for text in folder.notes:
            self.conversation.writer.note(f"step {self.number}: {text}")
        return wire

    def _http_error(self, stored: bytes) -> ProviderError:
        from fccli.transport import provider_message

        text = stored.decode("utf-8", errors="replace")
        said = provider_message(text) or " ".join(text.split())[:200]
        return ProviderError(
            f"the provider answered HTTP {self.status}: {said}", status=self.status, body=text
        )

    def _first_byte_ms(self) -> float | None:
        if self.first_byte is None:
            return None
        return round((self.first_byte - self.start) * 1000, 1)

    def cut(self, why: str) -> None:
        """The exchange ended before the answer did (the client went away, fc proxy stopped):
        what came is kept, and the trace says `interrupted`."""
        c = self.conversation
        if self.pieces:
            ext = "sse" if self.folder is not None else "json"
            raw = b"".join(self.pieces)
            stored = self.secrets.stream(raw) if ext == "sse" else self.secrets.raw(raw)
            c.writer.write_bytes(step_file(self.number, "response", self.fmt.name, ext), stored)
        self.record.duration_ms = round((time.perf_counter() - self.start) * 1000, 1)
        if self.stream and self.pieces:
            self.record.stream = StreamRecord(
                bytes=self.size, pieces=len(self.pieces), first_byte_ms=self._first_byte_ms()
            )
        c.writer.save_manifest()
        c.close("interrupted", Interrupted(why, step=self.number))
        self.view.failed(c, self.number, why)

    def unreachable(self, error: ProviderError) -> None:
        """No answer at all: the upstream could not be reached."""
        c = self.conversation
        c.writer.save_manifest()
        c.close("error", error.at(step=self.number))


def _looks_json(data: bytes) -> bool:
    return data.lstrip()[:1] in (b"{", b"[")


def question_of(messages: list[Message]) -> str | None:
    """The conversation's first user text: the trace's question, as `fc run` names it."""
    for message in messages:
        if message.role == "user" and message.text():
            return message.text()
    return None
