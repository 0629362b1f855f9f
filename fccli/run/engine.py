"""The round trip: ask with tools, read the stop reason, execute the calls, hand the results back.

    question + tools ──> model ──> stop_reason?
                                   ├── tool_use: validate + execute every call (the model only
                                   │             asked), ONE user message with all results, by id,
                                   │             then ask again
                                   ├── end_turn / stop_sequence / refusal: the answer; done
                                   ├── max_tokens: cut off; calls in it are NOT executed
                                   └── anything else: stop, rather than guess

The engine emits events and never prints; the CLI renders them. Every request and response is
written to the trace in both formats before the next thing happens.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from fccli.check.lint import OutgoingChecks
from fccli.core.body import FileBody
from fccli.core.errors import (
    FcError,
    FindingsError,
    Interrupted,
    ProtocolError,
    ProviderError,
    StreamCut,
)
from fccli.core.jsonio import parse_json
from fccli.core.manifest import Attempt, StepRecord, StreamRecord, ToolRunRecord
from fccli.core.models import (
    FINAL_STOPS,
    Message,
    Request,
    Response,
    TextBlock,
    ToolChoice,
    ToolSpec,
)
from fccli.cost.record import record_cost
from fccli.i18n import Joined, Msg
from fccli.providers.base import Provider, Reply
from fccli.run.buggy_harness import (
    drop_wire_reasoning,
    hand_back,
    identity_from_model,
    pack_wire_results,
    raise_on_error,
    text_only,
    without_reasoning,
)
from fccli.run.events import (
    Event,
    Note,
    ResponseReceived,
    RunResult,
    StepStarted,
    StreamProgress,
    ToolsExecuted,
)
from fccli.tools.execute import run_calls
from fccli.tools.json_tools import JsonTool
from fccli.tools.registry import ToolSet
from fccli.trace.recorder import StepRecorder
from fccli.trace.writer import TraceWriter
from fccli.wire.registry import WireFormat


class RunOptions(NamedTuple):
    """What one run asks: the question, the model and how to ask it.

    A NamedTuple, not a dataclass: start-up of `fc run` (docs/performance.md)."""

    question: str
    model: str
    system: str | None = None
    max_steps: int = 8
    thinking: bool | None = None
    effort: str | None = None
    """--effort, in the format's own field (chat: reasoning_effort)."""
    tool_choice: ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    max_tokens: int | None = None
    tool_specs: list[ToolSpec] | None = None
    """The tool definitions as sent (strict form with --strict); None: the tool set's own."""
    stream: bool = False
    """Ask for every answer as a stream of events, assembled as it arrives."""
    tool_timeout: float | None = 120.0
    """Seconds a tool may run before its call gets an error result (--tool-timeout); None: no
    limit (--ask, where a person answers for the tool)."""
    history: list[Message] | None = None
    """Start from these messages instead of the question alone (a replay: an earlier step's
    request, edited). The first request sends them as they are."""
    response_format: dict[str, Any] | None = None
    """JSON mode: `{"type": "json_object"}` or `{"type": "json_schema", "json_schema": {...}}`."""
    harness_bug: str | None = None
    """One classic harness mistake to commit on purpose (harness_bugs.py), or None."""


class RoundTrip:
    """Run the round trip with `provider` in `wire`'s format, `tools` executing the calls,
    every step written to `trace`, every event handed to `on_event`."""

    def __init__(
        self,
        provider: Provider,
        wire: WireFormat,
        tools: ToolSet,
        trace: TraceWriter,
        on_event: Callable[[Event], None] = lambda e: None,
        *,
        stream_deltas: bool = False,
    ) -> None:
        self.provider = provider
        self.stream_deltas = stream_deltas
        """Emit StreamProgress for every fragment of a streamed answer (a live view wants them;
        nobody else need pay for them)."""
        self.wire = wire
        self.tools = tools
        self.trace = trace
        self.emit = on_event
        self._phase: str = ""  # where the run is, for an interruption's message
        self.bug: str | None = None
        self._bug_notes: list[Msg] = []
        """What --harness-bug changed in the request about to go out: recorded on its step."""
        self._checks = OutgoingChecks()
        self._unread_stop = False
        """tool-request-as-reply carried a tool request on as a reply: no tool ran for the answer."""

    def run(self, options: RunOptions) -> RunResult:
        """Ask, execute the calls and ask again until an answer, --max-steps or an error; close
        the trace with how it ended."""
        messages = (
            list(options.history)
            if options.history is not None
            else [Message(role="user", content=[TextBlock(text=options.question)])]
        )
        strict = any(spec.strict for spec in options.tool_specs or [])
        self.bug = options.harness_bug
        step = 0
        self._phase = Msg("before the first request")
        try:
            while step < options.max_steps:
                step += 1
                request = Request(
                    model=options.model,
                    system=options.system,
                    messages=list(messages),
                    tools=options.tool_specs
                    if options.tool_specs is not None
                    else self.tools.specs(),
                    tool_choice=self._tool_choice(step, options.tool_choice),
                    parallel_tool_calls=options.parallel_tool_calls,
                    max_tokens=options.max_tokens,
                    thinking=options.thinking,
                    effort=options.effort,
                    stream=True if options.stream else None,
                    response_format=options.response_format,
                )
                response, record = self._exchange(step, request)
                messages.append(self._carried_back(step, response))
                if response.stop_reason == "tool_use":
                    calls = response.tool_uses()
                    if not calls:
                        raise ProtocolError(
                            Msg("the stop reason is tool_use but the answer holds no tool call"),
                            step=step,
                        )
                    if self.bug == "ignore-stop-reason":
                        return self._taken_as_final(step, response, record)
                    if self.bug == "tool-request-as-reply":
                        messages[-1] = self._carried_on(step, response, record)
                        continue
                    # The model only asked. Here the program decides, validates and executes.
                    self._phase = Msg("while the tools ran")
                    # A tool's print() goes to stderr: stdout is fc's (the transcript, --json).
                    with contextlib.redirect_stdout(sys.stderr):
                        runs = run_calls(
                            self.tools,
                            calls,
                            strict=strict,
                            timeout=options.tool_timeout,
                            validate=self.bug != "no-validation",
                        )
                    record.tool_runs = [
                        ToolRunRecord.model_validate(r.manifest_entry()) for r in runs
                    ]
                    unchecked = [
                        Joined((r.call.id, r.unchecked), ": ") for r in runs if r.unchecked
                    ]
                    if unchecked:
                        self._bug_on_step(
                            step,
                            record,
                            Msg(
                                "no-validation: ran with arguments that fail the schema: "
                                "{problems}",
                                problems=Joined(unchecked),
                            ),
                        )
                    if self.bug == "identity-from-args":
                        said = identity_from_model(runs, self._sessions())
                        if said is not None:
                            self._bug_on_step(step, record, said)
                    self.trace.save_manifest()
                    self.emit(ToolsExecuted(step, runs, self.bug))
                    if self.bug == "raise-on-error" and any(r.result.is_error for r in runs):
                        self._bug_on_step(
                            step,
                            record,
                            Msg(
                                "raise-on-error: a tool error was raised instead of handed "
                                "back; the loop stopped at step {step}",
                                step=step,
                            ),
                        )
                        raise_on_error(step, runs)
                    # ALL results of the turn in ONE user message, in call order, paired by id
                    # (unless --harness-bug says otherwise).
                    handed, bug_note = hand_back(self.bug, runs)
                    messages.extend(handed)
                    if bug_note is not None:
                        self._bug_notes.append(bug_note)
                    continue
                if response.stop_reason == "max_tokens" and not response.tool_uses():
                    # A final answer cut short is still the model's answer: keep it, say so.
                    note = Msg("step {step}: the answer was cut off at max_tokens", step=step)
                    self.trace.note(note)
                    self.emit(Note(step, note))
                    answer = response.text()
                    self.trace.manifest.final_answer = answer
                    self.trace.finish("ok")
                    return RunResult("ok", step, answer, [note])
                if response.stop_reason in FINAL_STOPS:
                    notes = self._unexecuted_calls(step, response)
                    if self._unread_stop:  # said with the answer: nothing in it was looked up
                        notes.append(
                            Msg(
                                "tool-request-as-reply: the answer of step {step} came after "
                                "calls that never ran",
                                step=step,
                            )
                        )
                    answer = response.text()
                    self.trace.manifest.final_answer = answer
                    self.trace.finish("ok")
                    return RunResult("ok", step, answer, notes)
                if response.stop_reason == "max_tokens":
                    raise ProtocolError(
                        Msg(
                            "the answer was cut off at max_tokens; its {n} tool call(s) were NOT "
                            "executed (their arguments may be cut too)",
                            n=len(response.tool_uses()),
                        ),
                        hint=Msg("raise --max-tokens, or ask for less"),
                        step=step,
                    )
                n = len(response.tool_uses())
                raise ProtocolError(
                    Msg(
                        "unknown stop reason {reason!r}; fc stops rather than guess; "
                        "its {n} tool call(s) were NOT executed",
                        reason=response.stop_reason,
                        n=n,
                    )
                    if n
                    else Msg(
                        "unknown stop reason {reason!r}; fc stops rather than guess",
                        reason=response.stop_reason,
                    ),
                    step=step,
                )
            self.trace.finish("max_steps")
            note = Msg(
                "stopped after --max-steps {max_steps}, before the model answered; "
                "the last tool results were not handed back",
                max_steps=options.max_steps,
            )
            return RunResult("max_steps", step, None, [note])
        except KeyboardInterrupt:
            interrupted = Interrupted(
                Msg("interrupted at step {step} {phase}", step=step, phase=self._phase)
            )
            self.trace.finish("interrupted", error=interrupted, step=step)
            raise interrupted from None
        except FcError as e:
            self.trace.finish("error", error=e, step=step)
            raise
        except BaseException as e:  # a bug in fc or in a tools file: the trace still says where
            self.trace.finish("error", error=e, step=step)
            raise

    def _carried_back(self, step: int, response: Response) -> Message:
        """Return the turn as it goes into the history: unchanged, unless the harness drops
        its reasoning."""
        message = response.as_message()
        if response.stop_reason != "tool_use":
            return message
        if self.bug == "drop-reasoning":
            carried, note = without_reasoning(step, message)
        elif self.bug == "text-only-turn":
            carried, note = text_only(step, message)
        else:
            return message
        self._bug_notes.append(note)
        return carried

    def _sessions(self) -> dict[str, dict[str, Any]]:
        """Each tool's session values (a JSON tools file's `session`), by tool name."""
        return {
            name: tool.session
            for name, tool in self.tools.tools.items()
            if isinstance(tool, JsonTool) and tool.session
        }

    def _taken_as_final(self, step: int, response: Response, record: StepRecord) -> RunResult:
        """Take a tool request as the answer (ignore-stop-reason, the course's opening story):
        its text is shown, the calls it asked for are never executed."""
        n = len(response.tool_uses())
        self._bug_on_step(
            step,
            record,
            Msg(
                "ignore-stop-reason: stop_reason tool_use was not read: the text was taken as the "
                "answer and {n} tool call(s) never executed",
                n=n,
            ),
        )
        answer = response.text()
        self.trace.manifest.final_answer = answer
        self.trace.finish("ok")
        return RunResult("ok", step, answer, [text for text in [record.harness_bug] if text])

    def _carried_on(self, step: int, response: Response, record: StepRecord) -> Message:
        """Carry a tool request on as an ordinary reply (tool-request-as-reply, the course's
        opening story): its calls are never executed, the turn goes back as its text, and the
        loop asks again, where the model, believing it looked, makes the result up."""
        self._unread_stop = True
        self._bug_on_step(
            step,
            record,
            Msg(
                "tool-request-as-reply: stop_reason tool_use was not read: the turn was taken as "
                "an ordinary reply, its {n} tool call(s) never executed, and the loop asked again",
                n=len(response.tool_uses()),
            ),
        )
        return text_only(step, response.as_message())[0]

    def _bug_on_step(self, step: int, record: StepRecord, text: str) -> None:
        """Put what --harness-bug did on the step's record, and say it."""
        record.harness_bug = text
        self.trace.save_manifest()
        self.emit(Note(step, Msg("harness bug {text}", text=text)))

    def _exchange(self, step: int, request: Request) -> tuple[Response, StepRecord]:
        """Write the request, send it, write and read the answer; every file before the next
        thing happens."""
        files = StepRecorder(self.trace, step, self.wire.name)
        wire_request = self.wire.to_wire_request(request)
        if self.bug == "drop-reasoning":
            drop_wire_reasoning(wire_request)
        if self.bug == "pack-results" and request.messages[-1].tool_results():
            packed = pack_wire_results(wire_request)
            self._bug_notes.append(
                Msg(
                    "pack-results: {n} result(s) packed into ONE role:tool message, its content "
                    "a list of tool_result blocks",
                    n=packed,
                )
                if packed
                else Msg(
                    "pack-results: the {format} format holds a turn's results in one message "
                    "already; nothing was packed",
                    format=self.wire.name,
                )
            )
        internal = files.internal(request)
        body = files.request(request, wire_request, internal)
        self._refuse_broken(step, internal, wire_request)
        # The history on the wire: `messages`, Responses' `input`, Gemini's `contents`.
        history = wire_request.get(self.wire.history_field)
        on_wire = len(history) if isinstance(history, list) else len(request.messages)
        self.emit(StepStarted(step, request, on_wire))
        if self._bug_notes:
            self.emit(Note(step, Msg("harness bug {text}", text=_joined(self._bug_notes))))
        # The wire body exactly as written is exactly what is sent, read from its file as it goes.
        sent = FileBody(body)
        self._phase = Msg("while waiting for the model")
        files.start()  # `fc export otel` places the step's span from here
        start = time.perf_counter()
        stream = (
            _StreamReceipt(self.wire, step, self.emit if self.stream_deltas else None)
            if request.stream
            else None
        )
        try:
            if stream is not None:
                reply = self.provider.send_stream(sent, step=step, on_bytes=stream.on_bytes)
            else:
                reply = self.provider.send(sent, step=step)
        except ProviderError as e:
            # An error body in JSON is the provider's answer, kept as a response file; an HTML
            # page from a proxy is not, and goes into the manifest's error instead.
            if e.body is not None and _is_json(e.body):
                files.answer(e.body.encode("utf-8"))
            if self._bug_notes:  # the provider refused the harness's mistake: on record too
                files.refused("; ".join(self._bug_notes))
                self._bug_notes = []
            raise
        except BaseException:
            if stream is not None and stream.pieces:  # Ctrl-C mid-stream: the bytes that came stay
                files.answer(b"".join(stream.pieces), stream=True)
            raise
        duration_ms = (time.perf_counter() - start) * 1000
        raw = reply.body
        # The trace keeps the bytes as received, a key the server echoed masked; fc reads them
        # masked too, so that the key reaches no later file, request, manifest or screen (and
        # is never sent back to the provider in the history).
        seen = reply.stored or raw
        files.answer(seen, stream=stream is not None)
        record = files.record
        files.timed(duration_ms, None if stream is None else stream.summary(len(raw), start))
        if reply.attempts:
            record.attempts = [Attempt.model_validate(a) for a in reply.attempts]
        if reply.stored is not None:
            files.masked()
        if reply.cut is not None and stream is None:
            record.truncated = reply.cut
        if self._bug_notes:
            record.harness_bug = "; ".join(self._bug_notes)
            self._bug_notes = []
        # On record before it is read: an answer that cannot be read still shows its attempts
        # (saved once it is read, or by the run's end, whichever stops it).
        files.add(save=False)
        if reply.interrupted:  # Ctrl-C mid-stream: the bytes that came are written above
            self._phase = Msg(
                "while the answer streamed in ({size} bytes kept)", size=format(len(raw), ",")
            )
            raise KeyboardInterrupt
        self._phase = Msg("after the answer came")
        if stream is not None:
            wire_response = self._assembled(files, reply, stream)
        else:
            if reply.cut is not None:  # past --max-response-mb or --timeout
                raise ProviderError(
                    reply.cut,
                    step=step,
                    hint=Msg(
                        "the {size} bytes that came are kept in {file}, cut short",
                        size=format(len(raw), ","),
                        file=files.name("response"),
                    ),
                )
            try:
                wire_response = parse_json(seen, files.name("response"))
            except FcError as e:
                raise ProtocolError(
                    Msg("the provider's answer cannot be read: {error}", error=_inner(e)),
                    step=step,
                ) from None
        try:
            response = self.wire.from_wire_response(wire_response)
        except FcError as e:  # not of the format's shape
            raise ProtocolError(
                Msg("the provider's answer cannot be read: {error}", error=_inner(e)), step=step
            ) from None
        files.response(response, self.wire.wire_stop_reason(wire_response))
        cost = record_cost(self.trace.manifest, record)
        _refuse_shared_ids(step, response)
        # Not saved here: the tools' runs are (after they ran), and a run stopped before that
        # (Ctrl-C while the tools run, a display that fails on a closed pipe) is saved by its
        # end; one killed outright leaves the step's files, which readers read.
        self.emit(
            ResponseReceived(
                step,
                response,
                duration_ms,
                record.wire_stop_reason,
                reply.attempts,
                record.stream.to_json_dict() if record.stream is not None else None,
                cost,
            )
        )
        return response, record

    def _assembled(
        self, files: StepRecorder, reply: Reply, stream: _StreamReceipt
    ) -> dict[str, Any]:
        """Assemble the streamed answer into the shape a non-streamed call returns, written
        beside the raw `.sse` so that diff, convert and check read it as any answer.

        A stream that ended early raises StreamCut: whatever calls it held are never run."""
        step = files.number
        mask = self.provider.mask  # these messages quote what the server sent
        if stream.failure is not None:  # an `error` event, or data that is not JSON
            failure = stream.failure
            context: dict[str, Any] = {"step": step, "message": _masked(mask, failure.message)}
            if isinstance(failure, ProviderError) and failure.body is not None:
                context["body"] = mask(failure.body)
            raise failure.at(**context) from failure
        try:
            wire_response = stream.folder.finish(cut=reply.cut)
        except ProviderError as e:  # cut short, or not an event stream at all
            if isinstance(e, StreamCut) and e.ended and e.partial is not None:
                self._write_partial(files, reply, e.partial)
            raise e.at(
                step=step,
                message=Msg(
                    "{message}; nothing in it was executed", message=_masked(mask, e.message)
                ),
                hint=e.hint
                or Msg(
                    "the bytes that arrived are in {file}", file=files.name("response", ext="sse")
                ),
            ) from e
        for text in stream.folder.notes:
            note = Msg("step {step}: {message}", step=step, message=text)
            self.trace.note(note)
            self.emit(Note(step, note))
        if reply.stored is not None:  # a key the server echoed: read, as kept, masked
            masked = self.wire.stream_folder()
            masked.feed(reply.stored)
            wire_response = masked.finish(cut=reply.cut)
        files.answer(wire_response)
        return wire_response

    def _write_partial(self, files: StepRecorder, reply: Reply, partial: dict[str, Any]) -> None:
        """Write the files of an answer that ended as a whole stream does but with a call cut
        inside it (out of tokens in a tool's input), the call's input as the text that came.
        Nothing in it runs (the StreamCut goes on)."""
        stored = partial
        if reply.stored is not None:  # a key the server echoed: the files have it masked
            masked = self.wire.stream_folder()
            masked.feed(reply.stored)
            try:
                stored = masked.finish(cut=reply.cut)
            except StreamCut as e:
                stored = e.partial if e.partial is not None else partial
        files.answer(stored)
        try:
            response = self.wire.from_wire_response(stored)
        except FcError:
            return  # the wire file is kept; an internal form it cannot have
        files.internal_response(response)

    def _tool_choice(self, step: int, asked: ToolChoice | None) -> ToolChoice | None:
        """Force a choice (`required`, a tool's name) on the first request only.

        Forced on every request, the model could never give its answer: each response would be
        another call, until --max-steps. So from step 2 fc sends `auto`, as the OpenAI Agents
        SDK does (its `reset_tool_choice`), and says so.
        """
        if asked is None or asked.type not in ("required", "tool") or step == 1:
            return asked
        if step == 2:
            forced = asked.name if asked.type == "tool" else asked.type
            text = Msg(
                "--tool-choice {forced} forced the call of step 1; from step 2 fc sends "
                "tool_choice auto, or the model could never answer",
                forced=forced,
            )
            self.trace.note(text)
            self.emit(Note(step, text))
        return ToolChoice(type="auto")

    def _refuse_broken(
        self, step: int, internal: dict[str, Any], wire_request: dict[str, Any]
    ) -> None:
        """Lint fc's own request with `fc check`'s rules before it goes out (the files are
        already written, so the request can be read). An error here is never sent."""
        # The wire body is the translator's own for a valid request, unless a bug is on purpose.
        found = self._checks(internal, wire_request, self.wire.name, self.bug is None)
        errors = [f for f in found if f.severity == "error"]
        if errors and self.bug is not None:
            # The mistake is on purpose: it goes out, as a buggy harness would send it.
            first = errors[0]
            text = Msg(
                "fc's own check would stop this request ({rule} at {path}); "
                "sent anyway because of --harness-bug {bug}",
                rule=first.rule,
                path=first.path,
                bug=self.bug,
            )
            self._bug_notes.append(text)
            return
        if errors:
            first = errors[0]
            finding = {"rule": first.rule, "path": first.path, "message": first.message}
            raise FindingsError(
                Msg(
                    "not sent: the request breaks {rule} at {path}: {message} (and {more} more)",
                    more=len(errors) - 1,
                    **finding,
                )
                if len(errors) > 1
                else Msg("not sent: the request breaks {rule} at {path}: {message}", **finding),
                step=step,
                hint=Msg(
                    "fc built this history itself, so this is a bug in fc (or the provider's "
                    "earlier answers broke the protocol); `fc check {trace}` shows it all",
                    trace=str(self.trace.path),
                ),
            )

    def _unexecuted_calls(self, step: int, response: Response) -> list[str]:
        """Note the calls of a final answer, which fc does not execute."""
        calls = response.tool_uses()
        if not calls:
            return []
        text = Msg(
            "step {step}: the stop reason is {reason} but the answer holds "
            "{n} tool call(s); fc follows the stop reason and did not execute them",
            step=step,
            reason=response.stop_reason,
            n=len(calls),
        )
        self.trace.note(text)
        self.trace.save_manifest()
        self.emit(Note(step, text))
        return [text]


class _StreamReceipt:
    """Receive one streamed answer: fold it as it arrives, keep its raw pieces (a trace keeps
    them even on Ctrl-C), the first error met, and when bytes started."""

    def __init__(self, wire: WireFormat, step: int, emit: Callable[[Event], None] | None) -> None:
        on_delta = None if emit is None else (lambda d: emit(StreamProgress(step, d)))
        self.folder = wire.stream_folder(on_delta)
        self.pieces: list[bytes] = []
        self.failure: FcError | None = None
        self.first_byte: float | None = None

    def on_bytes(self, piece: bytes) -> None:
        if self.first_byte is None:
            self.first_byte = time.perf_counter()
        self.pieces.append(piece)
        if self.failure is not None:
            return  # keep reading, so the trace gets every byte; fold no further
        try:
            self.folder.feed(piece)
        except FcError as e:
            self.failure = e

    def summary(self, size: int, start: float) -> StreamRecord:
        """Sum up the stream for the step's record: its size, pieces and first byte."""
        first = None if self.first_byte is None else round((self.first_byte - start) * 1000, 1)
        return StreamRecord(bytes=size, pieces=len(self.pieces), first_byte_ms=first)


def _refuse_shared_ids(step: int, response: Response) -> None:
    """Refuse two calls with one id before running anything (exit 3): results are paired with
    calls by id, so both cannot be answered."""
    seen: set[str] = set()
    for call in response.tool_uses():
        if call.id in seen:
            raise ProtocolError(
                Msg(
                    "the provider sent two tool calls with one id {id!r}; "
                    "results are paired with calls by id, so fc cannot answer them apart "
                    "(the provider broke the protocol; nothing was executed)",
                    id=call.id,
                ),
                step=step,
            )
        seen.add(call.id)


def _is_json(text: str) -> bool:
    try:
        parse_json(text.encode("utf-8"), "the error body")
    except FcError:
        return False
    return True


def _joined(items: list[Msg]) -> Msg:
    """Join several messages in one, `a; b`, each still said in the chosen language."""
    joined = items[0]
    for item in items[1:]:
        # i18n: two messages said one after the other
        joined = Msg("{first}; {then}", first=joined, then=item)
    return joined


def _inner(error: FcError) -> str:
    """Say `error` inside another message: its own message (a Msg, still translatable) when
    it has no context to add, else its text as it stands."""
    return error.message if error.step is None and error.hint is None else str(error)


def _masked(mask: Callable[[str], str], text: str) -> str:
    """Mask a secret in `text`; return `text` itself (a Msg stays a Msg) when it holds none."""
    masked = mask(text)
    return text if masked == text else masked
