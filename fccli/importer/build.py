"""A conversation written as `fc run` writes a trace: internal and wire files, and a manifest.

The wire files are made from the internal ones by the format's codec (the source kept no bytes
as sent): the format its spans name, `openai` (chat) when they name none. Whatever a step lacks
is said in the manifest's notes, one line each, and the step is written as far as it goes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from fccli.core.cities import cities
from fccli.core.errors import FcError
from fccli.core.manifest import ErrorRecord, Manifest, ToolRunRecord
from fccli.core.models import Block, Message, Response, TextBlock, ToolResultBlock, ToolUseBlock
from fccli.cost.record import record_cost
from fccli.i18n import Msg
from fccli.importer.model import Call, Conversation, Run
from fccli.importer.spans import fill_ids
from fccli.providers.otel_names import plain_chat, profile_of
from fccli.trace.names import TRACES_ROOT
from fccli.trace.recorder import StepRecorder
from fccli.trace.slug import slugify
from fccli.trace.writer import TraceWriter, default_dir, prepare_dir, release
from fccli.wire.registry import FORMATS

DEMO = "fc.demo"
"""fc's offline demo model, as fc's export names its provider."""


@dataclass
class Written:
    path: Path
    steps: int
    source: str
    notes: list[str] = field(default_factory=list)


def target(out: Path | None, index: int, count: int, conversation: Conversation) -> Path:
    """Where conversation `index` of `count` goes: `out` itself for one, `out/N` for several,
    `traces/DATE-slug` without `out`."""
    if out is not None:
        return out if count == 1 else out / str(index)
    return default_dir(TRACES_ROOT, "import-" + slugify(_question(conversation) or "", _cities()))


def write(
    conversation: Conversation, path: Path, origin: dict[str, Any], *, force: bool = False
) -> Written:
    fill_ids(conversation)
    _rebuild_missing(conversation)
    provider, fmt_name = _provider(conversation)
    first = next((c.request for c in conversation.calls if c.request is not None), None)
    manifest = Manifest(
        provider=provider,
        wire_format=fmt_name,
        model=(first.model if first is not None else None) or None,
        base_url=None,
        question=_question(conversation),
    )
    writer = TraceWriter(prepare_dir(path, force=force), manifest)
    notes = list(conversation.notes)
    try:
        for number, call in enumerate(conversation.calls, start=1):
            following = conversation.calls[number] if number < len(conversation.calls) else None
            _step(writer, number, fmt_name, call, following, conversation.runs, notes)
        runs = [r for s in writer.manifest.steps for r in s.tool_runs]
        if runs and all(r.duration_ms is None for r in runs):
            notes.append(Msg("the file does not say how long the tools ran"))
        _close(writer.manifest, conversation, origin, notes)
        writer.save_manifest()
    finally:
        release(path)
    return Written(path, len(conversation.calls), conversation.source, notes)


def _step(
    writer: TraceWriter,
    number: int,
    fmt_name: str,
    call: Call,
    following: Call | None,
    runs: list[Run],
    notes: list[str],
) -> None:
    fmt = FORMATS[fmt_name]
    started = call.start_ns / 1e9 if call.start_ns else None
    recorder = StepRecorder(writer, number, fmt_name, started)
    if call.request is not None:
        try:
            wire: Any = fmt.to_wire_request(call.request)
        except FcError as e:
            notes.append(_unwritable(number, "request", fmt_name, e))
            writer.write(recorder.name("request", wire=False), recorder.internal(call.request))
        else:
            recorder.request(call.request, wire)
    if call.response is not None:
        try:
            answer = fmt.to_wire_response(call.response)
        except FcError as e:
            notes.append(_unwritable(number, "response", fmt_name, e))
            recorder.response(call.response, call.wire_stop_reason)
        else:
            recorder.answer(answer)
            recorder.response(call.response, fmt.wire_stop_reason(answer))
        recorder.record.tool_runs = _tool_runs(number, call.response, following, runs, notes)
    if call.end_ns > call.start_ns:
        recorder.timed((call.end_ns - call.start_ns) / 1e6)
    if recorder.record.usage is not None:
        record_cost(writer.manifest, recorder.record)
    recorder.add(save=False)


def _unwritable(number: int, role: str, fmt: str, error: FcError) -> str:
    if role == "request":
        return Msg(
            "step {step}: the request cannot be written as {format} ({problem}): only fc's"
            " internal file",
            step=number,
            format=fmt,
            problem=error.said(),
        )
    return Msg(
        "step {step}: the answer cannot be written as {format} ({problem}): only fc's internal"
        " file",
        step=number,
        format=fmt,
        problem=error.said(),
    )


def _tool_runs(
    number: int,
    response: Response,
    following: Call | None,
    runs: list[Run],
    notes: list[str],
) -> list[ToolRunRecord]:
    """Each call of the answer, with its tool span's or log's run, and the result the next step
    sent back."""
    results: dict[str, ToolResultBlock] = {}
    if following is not None and following.request is not None:
        for message in following.request.messages:
            for block in message.content:
                if isinstance(block, ToolResultBlock):
                    results[block.tool_use_id] = block
    out = []
    for call in response.tool_uses():
        run = _take_run(runs, call)
        result = results.get(call.id)
        is_error = (run is not None and run.is_error) or (result is not None and result.is_error)
        error = None
        if is_error:
            error = (run.error if run is not None and run.error else None) or (
                result.content if result is not None else None
            )
        if run is None and result is None:
            notes.append(
                Msg(
                    "step {step}: no run or result of the call {name} ({id})",
                    step=number,
                    name=call.name,
                    id=call.id,
                )
            )
        out.append(
            ToolRunRecord(
                id=call.id,
                name=call.name,
                arguments=call.input,
                duration_ms=round(run.duration_ms, 3) if run and run.duration_ms else None,
                is_error=is_error,
                error=error,
                error_kind="tool_error" if is_error else None,
            )
        )
    return out


def _take_run(runs: list[Run], call: ToolUseBlock) -> Run | None:
    """Take the run of this call out of `runs`: by its id, else the first of its name without
    one."""
    run = next((r for r in runs if r.call_id and r.call_id == call.id), None)
    if run is None:
        run = next((r for r in runs if not r.call_id and r.name == call.name), None)
    if run is not None:
        runs.remove(run)
    return run


def _rebuild_missing(conversation: Conversation) -> None:
    """Give a call without its request the history the one before implies: its history, its
    answer, then the results its tool runs returned."""
    before: Call | None = None
    for number, call in enumerate(conversation.calls, start=1):
        if call.request is None and before is not None and before.request is not None:
            messages = list(before.request.messages)
            if before.response is not None:
                messages.append(Message(role="assistant", content=before.response.content))
                results: list[Block] = []
                for use in before.response.tool_uses():
                    run = next((r for r in conversation.runs if r.call_id == use.id), None)
                    if run is not None and run.result is not None:
                        results.append(
                            ToolResultBlock(
                                tool_use_id=use.id, content=run.result, is_error=run.is_error
                            )
                        )
                if results:
                    messages.append(Message(role="user", content=results))
            call.request = before.request.model_copy(update={"messages": messages})
            conversation.notes.append(
                Msg(
                    "step {step}: its request is rebuilt from step {before} and the tool runs",
                    step=number,
                    before=number - 1,
                )
            )
        before = call


def _close(
    manifest: Manifest, conversation: Conversation, origin: dict[str, Any], notes: list[str]
) -> None:
    last = conversation.calls[-1] if conversation.calls else None
    failed = last is not None and last.error is not None
    status = conversation.status or ("error" if failed else "ok")
    manifest.status = status
    if failed and last is not None:
        manifest.error = ErrorRecord(
            kind=last.error_kind, message=last.error, step=len(conversation.calls)
        )
    elif "error" in conversation.extra and status in ("error", "interrupted"):
        kind, message = conversation.extra["error"]
        manifest.error = ErrorRecord(kind=str(kind or status), message=message or None)
    if conversation.started_ns:
        manifest.started_at = _iso(conversation.started_ns)
    if conversation.finished_ns:
        manifest.finished_at = _iso(conversation.finished_ns)
        if conversation.started_ns:
            took = (conversation.finished_ns - conversation.started_ns) / 1e6
            manifest.duration_ms = round(max(0.0, took), 1)
    answer = last.response if last is not None else None
    if answer is not None and answer.stop_reason != "tool_use":
        manifest.final_answer = "".join(b.text for b in answer.content if isinstance(b, TextBlock))
    for note in notes:
        manifest.note(note)
    extra = dict(manifest.model_extra or {})
    extra["imported_from"] = {**origin, "source": conversation.source, "id": conversation.key}
    for key, value in extra.items():
        setattr(manifest, key, value)


def _provider(conversation: Conversation) -> tuple[str | None, str]:
    """Return fc's provider and the wire format: what fc's own export says, else the format of
    the provider the spans name, else chat's."""
    name = conversation.provider
    profile = profile_of(name)
    provider = "demo" if name == DEMO else profile.name if profile is not None else name
    if conversation.wire_format in FORMATS:
        return provider, str(conversation.wire_format)
    if profile is not None:
        return provider, profile.wire_format
    chat = plain_chat().wire_format
    conversation.notes.append(
        Msg(
            "the file names no provider fc knows ({name}): the wire files are written as {format}",
            name=name or "none",
            format=chat,
        )
    )
    return provider, chat


def _question(conversation: Conversation) -> str | None:
    for call in conversation.calls:
        if call.request is None:
            continue
        for message in call.request.messages:
            if message.role == "user":
                text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
                if text:
                    return text
        return None
    return None


def _cities() -> dict[str, str]:
    return {c["zh"]: c["en"] for c in cities()}


def _iso(ns: int) -> str:
    moment = datetime.fromtimestamp(ns / 1e9, timezone.utc)
    return moment.isoformat(timespec="milliseconds")
