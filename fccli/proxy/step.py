"""One forwarded model request, recorded as a step with the files `fc run` writes
(trace/recorder.py): the client's body byte for byte as it was forwarded, the answer as it came.

A key the answer echoes is masked in every file (keys.py). The bytes the client gets are never
changed: masking is for what is written.
"""

from __future__ import annotations

import contextlib
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fccli.check.lint import check_request
from fccli.core.errors import FcError, Interrupted, ProviderError
from fccli.core.jsonio import parse_json
from fccli.core.manifest import StreamRecord, ToolRunRecord
from fccli.core.models import Message, Request
from fccli.core.secrets import Secrets
from fccli.cost.record import record_cost
from fccli.i18n import Msg
from fccli.proxy.conversations import Conversation, calls_of, paired
from fccli.run.events import Note, ResponseReceived, StepStarted
from fccli.trace.recorder import StepRecorder
from fccli.wire.registry import WireFormat

UNSEEN_END = Msg(
    "the client closed its connection at the stream's last event, before the end of the "
    "upstream's body reached fc proxy: fc proxy did not see that end"
)
"""The note of a step whose client left once it had the whole stream (Step.left)."""


class Decoder:
    """Decode a response body compressed as the client's `Accept-Encoding` asked, for the
    record (the client gets the bytes as they came).

    gzip and deflate; another encoding is recorded as nothing, and said."""

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


@dataclass(eq=False)
class Step:
    """Record one step, from the request's arrival to its answer's last byte, in the journal
    (journal.py) from what the event loop saw (facts.py): `opened`, then one of `done`, `left`,
    `cut`, `failed`, `blocked`, each of which hands the outcome to `settle`."""

    conversation: Conversation
    number: int
    fmt: WireFormat
    request: Request
    body: bytes
    """The request as the client sent it, byte for byte."""
    wire: dict[str, Any]
    stream: bool
    checks: list[str] | None
    """What `fc check` found in the request, as said on the terminal and in the manifest; None
    until it is read (in the journal, unless --strict-check read it before forwarding)."""
    secrets: Secrets
    settle: Callable[[Conversation, Message | None, bool], None]
    """Hands the step's outcome on to the matching of requests (its answer; whether it closed)."""
    start: float = field(default_factory=time.perf_counter)
    """When the request came (the event loop's clock, as `first_byte` and `end`)."""
    wall: float = field(default_factory=time.time)
    pieces: list[bytes] = field(default_factory=list)
    max_bytes: int = 16 * 1024 * 1024
    """An answer above this is forwarded whole, not kept nor held in memory (--max-record-mb)."""
    unkept: bool = False
    """The answer's pieces never reached the journal, which had fallen behind (journal.py)."""
    size: int = 0
    first_byte: float | None = None
    end: float | None = None
    status: int = 0
    encoding: str = ""
    files: StepRecorder | None = field(init=False)
    """Writes the step's files and record; None when its trace cannot be written."""

    def __post_init__(self) -> None:
        writer = self.conversation.writer
        self.files = (
            None if writer is None else StepRecorder(writer, self.number, self.fmt.name, self.wall)
        )

    def answered(
        self, status: int, encoding: str, pieces: list[bytes], size: int, first: float | None
    ) -> None:
        """Keep what came back: its status, how its body is compressed, the body's pieces as
        they came (none when above the limit), its size, when its first byte came."""
        self.status, self.encoding = status, encoding
        self.pieces, self.size, self.first_byte = pieces, size, first

    def opened(self, view: Any) -> None:
        """Write the request's files and record, and show the step on the terminal."""
        c = self.conversation
        files = self.files
        if files is None:
            return
        if self.checks is None:
            self.checks = [text for _, text in checks_of(self.wire, self.fmt)]
        if self.checks:
            files.record.checks = self.checks
        files.request(self.request, self.body)
        self._results_of_last_step()
        # Saved with the answer: the files above already say a request went out.
        files.add(save=False)
        messages = self.wire.get("messages")
        shown = len(messages) if isinstance(messages, list) else len(self.request.messages)
        view.event(c, StepStarted(self.number, self.request, shown))
        for text in self.checks:
            view.event(c, Note(self.number, Msg("fc check: {finding}", finding=text)))

    def _results_of_last_step(self) -> None:
        """Put the results of the last step's calls, read from this request, on that step's
        record as `fc run` writes its own tool runs (without durations: the agent ran them)."""
        assert self.conversation.writer is not None
        calls = paired(self.conversation.calls)
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
                        id=result.tool_use_id,
                        name=call[0],
                        arguments=call[1],
                        is_error=result.is_error,
                        error=result.content if result.is_error else None,
                    )
                )
        steps[-1].tool_runs = runs

    def done(self, view: Any, note: str | None = None) -> None:
        """Write, show and settle an answer whose last byte went to the client.

        `note`: what the trace should say about how it ended."""
        c = self.conversation
        files = self.files
        if c.writer is None or files is None:
            self.settle(c, None, True)
            return
        if note is not None:
            c.writer.note(_at_step(self.number, note))
        if self.size > self.max_bytes or self.unkept:
            self.failed(view, self._not_kept())
            return
        decoder = Decoder(self.encoding)
        try:
            raw = b"".join(decoder.feed(piece) for piece in self.pieces)
        except zlib.error as e:
            raw, decoder.unknown = b"", True
            c.writer.note(
                _at_step(
                    self.number, Msg("the answer cannot be decompressed ({error})", error=str(e))
                )
            )
        streamed = self.stream and self.status < 400
        self._timing(files, raw, streamed)
        if decoder.unknown:
            self.failed(view, ProviderError(Msg("the answer's content encoding cannot be read")))
            return
        stored = self._masked(raw, streamed)
        if stored != raw:
            files.masked()
        try:
            wire = self._wire_answer(files, stored, streamed)
            if self.status >= 400:
                raise self._http_error(stored)
            response = self.fmt.from_wire_response(wire)
        except FcError as e:
            self.failed(view, e)
            return
        files.response(response, self.fmt.wire_stop_reason(wire))
        record = files.record
        cost = record_cost(c.writer.manifest, record)
        if response.stop_reason == "tool_use":  # otherwise finish() below saves it
            c.writer.save_manifest()
        view.event(
            c,
            ResponseReceived(
                self.number,
                response,
                record.duration_ms or 0.0,
                record.wire_stop_reason,
                [],
                record.stream.to_json_dict() if record.stream else None,
                cost,
            ),
        )
        answer = response.as_message()
        if response.stop_reason == "tool_use" and response.tool_uses():
            c.calls = calls_of(response.tool_uses())
            self.settle(c, answer, False)
            return
        # Any other answer ends the conversation, as it ends `fc run`'s loop.
        c.writer.manifest.final_answer = response.text()
        c.finish("ok")  # which saves the manifest
        view.closed(c)
        self.settle(c, answer, True)

    def _timing(self, files: StepRecorder, raw: bytes, streamed: bool) -> None:
        """Put how long the answer took on record (a stream: its size and first byte too)."""
        end = self.end or time.perf_counter()
        stream = None
        if streamed:
            first = None
            if self.first_byte is not None:
                first = round((self.first_byte - self.start) * 1000, 1)
            stream = StreamRecord(bytes=len(raw), pieces=len(self.pieces), first_byte_ms=first)
        files.timed((end - self.start) * 1000, stream)

    def _not_kept(self) -> ProviderError:
        """Say why the answer's bytes are not in the record."""
        if self.unkept:
            return ProviderError(
                Msg(
                    "the answer was forwarded, not recorded: fc proxy's journal had fallen "
                    "behind (was its terminal paused, or its output not read?)"
                )
            )
        return ProviderError(
            Msg(
                "the answer was forwarded, not recorded: above {limit} bytes (--max-record-mb)",
                limit=format(self.max_bytes, ","),
            )
        )

    def failed(self, view: Any, error: FcError) -> None:
        """Close the trace with `error` (the upstream could not be reached, the answer cannot
        be read), say it, settle the step."""
        c = self.conversation
        if c.writer is not None:
            c.finish("error", error.at(step=self.number))
            view.failed(c, self.number, error_message(error))
        self.settle(c, None, True)

    def _wire_answer(self, files: StepRecorder, stored: bytes, streamed: bool) -> Any:
        """Write the answer as it came and return it in the non-streamed shape (a stream:
        assembled, beside its raw bytes)."""
        if not streamed:
            if self.status < 400 or _looks_json(stored):
                files.answer(stored)
            return parse_json(stored, files.name("response")) if self.status < 400 else None
        files.answer(stored, stream=True)
        folder = self.fmt.stream_folder()
        folder.feed(stored)
        wire = folder.finish()
        files.answer(wire)
        for text in folder.notes:
            files.trace.note(_at_step(self.number, text))
        return wire

    def _http_error(self, stored: bytes) -> ProviderError:
        """Read an HTTP error answer as fc run reads one: the provider's own sentence."""
        from fccli.providers.transport import provider_message  # httpx: for an error only

        text = stored.decode("utf-8", errors="replace")
        message = provider_message(text) or " ".join(text.split())[:200]
        return ProviderError(
            Msg(
                "the provider answered HTTP {status}: {message}",
                status=self.status,
                message=message,
            ),
            status=self.status,
            body=text,
        )

    def left(self, view: Any, why: str) -> None:
        """Record a step whose client went away before the upstream's answer ended.

        An SDK stops reading a stream at its last event (chat's `data: [DONE]`, ...), and the
        openai SDK then closes its connection at once, often before the end of the body has
        reached fc proxy: a stream that came whole is recorded as any, with a note that fc
        proxy did not see its end (`fc run`, which reads to the end, records the same bytes the
        same way when that end comes). Any other answer was cut."""
        if self._came_whole():
            self.done(view, UNSEEN_END)
        else:
            self.cut(view, why)

    def _came_whole(self) -> bool:
        """Tell whether the stream's last event came (what its format says ends it)."""
        if not (self.stream and self.status < 400 and self.pieces and self.size <= self.max_bytes):
            return False
        folder = self.fmt.stream_folder()
        try:
            decoder = Decoder(self.encoding)
            for piece in self.pieces:
                folder.feed(decoder.feed(piece))
        except (zlib.error, FcError):  # cut, or done's to say: not whole
            return False
        return folder.ended

    def cut(self, view: Any, why: str) -> None:
        """Keep what came of an answer cut short (the client went away, fc proxy stopped); the
        trace says `interrupted`."""
        c = self.conversation
        files = self.files
        if c.writer is None or files is None:
            self.settle(c, None, True)
            return
        streamed = self.stream and self.status < 400
        if self.size > self.max_bytes or self.unkept:
            c.writer.note(_at_step(self.number, error_message(self._not_kept())))
        raw = b"".join(self.pieces)
        if raw:
            decoder = Decoder(self.encoding)
            with contextlib.suppress(zlib.error):
                raw = b"".join(decoder.feed(piece) for piece in self.pieces)
            stored = self._masked(raw, streamed)
            files.answer(stored, stream=streamed)
        self._timing(files, raw, streamed and bool(raw))
        c.finish("interrupted", Interrupted(why, step=self.number))
        view.failed(c, self.number, why)
        self.settle(c, None, True)

    def _masked(self, raw: bytes, streamed: bool) -> bytes:
        """Return the answer with the client's key masked, for the files: a stream framed its
        format's own way (Bedrock's binary frames) by its format, each frame it changes framed
        anew, so the recorded stream still reads."""
        if not self.secrets:
            return raw
        if not streamed:
            return self.secrets.raw(raw)
        own = self.fmt.mask_stream(raw, self.secrets)
        return self.secrets.stream(raw) if own is None else own

    def blocked(self, view: Any, error: FcError) -> None:
        """Close the trace of a request --strict-check stopped: on record, not sent."""
        c = self.conversation
        if c.writer is not None:
            c.finish("error", error.at(step=self.number))
            view.closed(c)
        self.settle(c, None, True)


def checks_of(wire: dict[str, Any], fmt: WireFormat) -> list[tuple[str, str]]:
    """Check the request as `fc check` does: (severity, text) of its errors and warnings."""
    try:
        findings = check_request(wire, fmt.name)
    except FcError:
        return []
    out: list[tuple[str, str]] = []
    for f in findings:
        if f.severity not in ("error", "warning"):
            continue
        out.append(
            (
                f.severity,
                _finding(f.rule, f.severity, f.path, f.message, f.provider, f.provider_message),
            )
        )
    return out


def _finding(
    rule: str, severity: str, path: str, message: str, provider: Any, provider_message: Any
) -> Msg:
    """Say one finding as the terminal and the manifest's `checks` do; the provider's own 400
    sentence quoted as it is."""
    where = {"rule": rule, "path": path, "message": message}
    if provider_message:
        where |= {"provider": provider, "answer": provider_message}
        if severity == "error":
            return Msg(
                "{rule} error at {path}: {message} ({provider} answers HTTP 400: {answer})", **where
            )
        return Msg(
            "{rule} warning at {path}: {message} ({provider} answers HTTP 400: {answer})", **where
        )
    if severity == "error":
        return Msg("{rule} error at {path}: {message}", **where)
    return Msg("{rule} warning at {path}: {message}", **where)


def error_message(error: FcError) -> Msg | str:
    """Say `error` as `error.said()` does (`step N: ` before its message), kept a Msg so that
    the terminal says it in the chosen language and a trace keeps it in English."""
    if error.step is None:
        return error.message
    return _at_step(error.step, error.message)


def _at_step(step: int, text: str) -> Msg:
    return Msg("step {step}: {message}", step=step, message=text)


def _looks_json(data: bytes) -> bool:
    return data.lstrip()[:1] in (b"{", b"[")


def question_of(messages: list[Message]) -> str | None:
    """Find the conversation's first user text: the trace's question, as `fc run` names it."""
    for message in messages:
        if message.role == "user" and message.text():
            return message.text()
    return None
