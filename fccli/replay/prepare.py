"""Everything `fc replay` does before the round trip starts again: read the trace, choose the
step and its request file, apply the edits, find the provider and tools, open the new trace.

The replayed request is the step's request, edited: its messages become the history the engine
starts from (RunOptions.history), and its model, system prompt, tools, tool_choice, parallel
switch, max_tokens and thinking are sent as they were, unless --provider or --model change them.
The new trace is numbered from 1 (= the replayed request) and never shares a file with the old.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fccli.convert.translate import convert
from fccli.core.errors import FindingsError, UsageError
from fccli.core.manifest import Manifest, Options, ReplayedFrom
from fccli.core.models import Message, ProviderBlock, Request, ThinkingBlock, ToolChoice
from fccli.core.secrets import MASK
from fccli.i18n import Msg
from fccli.options.declared import Settings
from fccli.options.manifest import kept_options, replayed_settings
from fccli.providers.base import Provider
from fccli.providers.demo.faults import DEMO_FAULTS
from fccli.providers.profiles import PROFILES, profile_for
from fccli.providers.registry import KNOWN
from fccli.replay.changes import ReplayPlan, ResultChange
from fccli.replay.edits import Editor, EditsAsked, apply_edits, run_editor
from fccli.replay.source import StepSource, choose_step, read_step_request
from fccli.run.engine import RunOptions
from fccli.run.events import Event, RunResult
from fccli.run.prepare import (
    PreparedRun,
    attach_mcp,
    close_provider,
    connection,
    connection_notes,
    kept_note,
    open_provider,
    open_trace,
    refuse_demo_base_url,
    refuse_effort,
    request_problem,
    spoken_profile,
    start_mcp,
    trace_manifest,
)
from fccli.tools.loader import NO_TOOLS, load_toolset, tools_file_entry, tools_file_in
from fccli.tools.registry import ToolSet
from fccli.trace.mcp_log import read_mcp_logs
from fccli.trace.reader import Document, Trace, read_trace
from fccli.trace.writer import TraceWriter
from fccli.wire.registry import WireFormat, get_format


@dataclass
class PreparedReplay:
    """A replay checked and ready: the run it starts, and what is said before it."""

    run: PreparedRun
    plan: ReplayPlan

    def execute(
        self, on_event: Callable[[Event], None] | None = None, *, stream_deltas: bool = False
    ) -> RunResult:
        try:
            return self.run.execute(on_event, stream_deltas=stream_deltas)
        except FindingsError as e:
            if e.step != 1:
                raise
            # The engine's hint blames fc; the first request of a replay is the user's edit.
            raise e.at(
                hint=Msg(
                    "the history comes from {file} of {origin}, as edited; to send it anyway "
                    "and read the provider's answer: fc send {request}",
                    file=self.plan.request_file,
                    origin=self.plan.origin,
                    request=str(
                        self.run.trace.path / ("1-request." + self.plan.wire_format + ".json")
                    ),
                )
            ) from e


@dataclass
class _Origin:
    """What the replay takes from the trace, read once."""

    trace: Trace
    manifest: Manifest
    step: int
    source: StepSource
    provider: str | None
    """The provider the trace was made with."""
    tools: str


def prepare_replay(settings: Settings, editor: Editor = run_editor) -> PreparedReplay:
    """Check everything that can be checked before anything is written or sent."""
    if settings.once and settings.max_steps is not None:
        raise UsageError(Msg("--once and --max-steps: choose one (--once is --max-steps 1)"))
    trace = read_trace(settings.trace)
    manifest = trace.record
    if trace.wire_format is None:
        raise UsageError(
            Msg(
                "{trace}: neither its manifest nor its files name a wire format",
                trace=str(trace.path),
            )
        )
    if settings.out is not None:
        _refuse_out_in_trace(settings.out, trace.path)
    step = choose_step(trace, settings.step)
    source = read_step_request(
        trace.path,
        step,
        get_format(trace.wire_format),
        settings.source,
        bug=manifest.harness_bugs().get(step),
    )
    origin = _Origin(
        trace,
        manifest,
        step,
        source,
        provider=manifest.provider,
        tools=settings.tools or _trace_tools(manifest.options, trace.path),
    )
    name = settings.provider or origin.provider
    carried = replayed_settings(settings, manifest, same_provider=name == origin.provider)
    if name is None or name not in KNOWN:
        raise UsageError(
            Msg("unknown provider {name}", name=repr(name))
            if name
            else Msg("{trace}: its manifest names no provider", trace=str(trace.path)),
            hint=Msg("give one with -p: {providers}", providers=", ".join(KNOWN)),
        )
    refuse_demo_base_url(name, settings.base_url)
    tools = _load_tools(origin.tools, from_trace=settings.tools is None)
    opened: list[TraceWriter] = []
    if manifest.mcp_servers:
        tools = _mcp_tools(settings, trace.path, manifest.mcp_servers, tools, opened)
    try:
        return _opened(settings, trace, origin, carried, name, tools, source, opened, editor)
    except BaseException:
        tools.close()
        raise


def _mcp_tools(
    settings: Settings,
    path: Path,
    servers: list[dict[str, Any]],
    tools: ToolSet,
    opened: list[TraceWriter],
) -> ToolSet:
    """Offer the trace's MCP tools: answered from its recorded results, or (--live-mcp) by its
    servers, started again."""
    base = ToolSet(NO_TOOLS, []) if tools.name == "weather" else tools
    if not settings.live_mcp:
        from fccli.mcp.recorded import recorded_tools

        return recorded_tools(path, read_mcp_logs(path), base)
    given = [str(s.get("server")) for s in servers]
    masked = [g for g in given if MASK in g]
    if masked:
        raise UsageError(
            Msg(
                "--live-mcp: the trace keeps {server!r} with its secret masked, so fc cannot "
                "start it again",
                server=masked[0],
            ),
            hint=Msg("run it again with fc run --mcp"),
        )
    return start_mcp(given, base, settings, opened)


def _opened(
    settings: Settings,
    trace: Trace,
    origin: _Origin,
    carried: Settings,
    name: str,
    tools: ToolSet,
    source: Any,
    opened: list[TraceWriter],
    editor: Editor,
) -> PreparedReplay:
    """Open the replay's provider and prepare it, once its tools are there."""
    manifest = trace.record
    strict = any(spec.strict for spec in source.request.tools)
    notes: list[str] = [n for n in (source.note, *source.notes) if n]
    base_url = settings.base_url or _trace_url(name, origin.provider, manifest, strict, notes)
    fault = carried.demo_fault if name == "demo" else None
    provider, wire = open_provider(
        name,
        connection(
            carried.but(
                base_url=base_url,
                strict=strict,
                # The model _prepare chooses, for a provider that names it in the URL (Gemini).
                model=settings.model or (source.request.model if name == origin.provider else None),
            )
        ),
        # The demo model's mistake in the first run is not an answer it stands by: in the
        # replay too it must know which error results were of its own making.
        demo_fault=fault if fault in DEMO_FAULTS and fault != "cut-stream" else None,
        # The same model as before, unless the replay goes elsewhere.
        demo_skill="weak" if carried.demo_skill == "weak" else "strong",
    )
    try:
        prepared = _prepare(settings, carried, origin, name, tools, provider, wire, editor, notes)
    except BaseException:
        close_provider(provider)
        raise
    for note in attach_mcp(tools, prepared.run.trace, opened):
        prepared.run.notes.append(note)
        prepared.run.trace.note(note)
    prepared.run.trace.save_manifest()
    return prepared


def _prepare(
    settings: Settings,
    carried: Settings,
    origin: _Origin,
    name: str,
    tools: ToolSet,
    provider: Provider,
    wire: WireFormat,
    editor: Editor,
    notes: list[str],
) -> PreparedReplay:
    manifest, step = origin.manifest, origin.step
    edits = EditsAsked(
        sets=settings.set_, errors=settings.error, oks=settings.ok, editor=settings.edit
    )
    applied = apply_edits(origin.source.request, step, edits, editor)
    notes += applied.notes
    request = applied.request
    hand = origin.source.hand_edit
    records = ([hand] if hand else []) + applied.records
    if not records:
        notes.append(Msg("no edits: step {step} goes out again as it was", step=step))
    model = settings.model or (
        request.model if name == origin.provider else provider.info.default_model
    )
    if name != origin.provider and not settings.model:
        notes.append(
            Msg(
                "model {model}: {name}'s default (the trace asked {asked}; -m to choose)",
                model=model,
                name=name,
                asked=request.model,
            )
        )
    messages, thinking = _for_provider(request, name, wire.name, notes)
    max_steps = 1 if settings.once else carried.max_steps
    run_options = RunOptions(
        question=manifest.question or "",
        model=model,
        system=request.system,
        max_steps=max_steps,
        thinking=thinking,
        effort=request.effort,
        tool_choice=request.tool_choice,
        parallel_tool_calls=request.parallel_tool_calls,
        max_tokens=request.max_tokens,
        tool_specs=list(request.tools),
        stream=carried.stream,
        history=messages,
        tool_timeout=settings.tool_timeout,
    )
    notes += _losses(run_options, origin.source.file, wire.name)
    refuse_effort(name, spoken_profile(name, carried.api), request.effort, thinking)
    problem = request_problem(wire, run_options)
    if problem is not None:
        raise UsageError(
            problem,
            hint=Msg(
                "the step's request asks for it: edit it in {file}, or replay on another provider",
                file=origin.source.file,
            ),
        )
    out = settings.out or next_replay_dir(origin.trace.path)
    tools_file = tools_file_entry(origin.tools, out)
    run_settings = carried.but(
        system=request.system,
        thinking=thinking,
        effort=request.effort,
        tool_choice=_choice_text(request.tool_choice),
        no_parallel=request.parallel_tool_calls is False,
        strict=any(spec.strict for spec in request.tools),
        max_steps=max_steps,
        max_tokens=request.max_tokens,
        # what the provider took of the trace's (a cut stream is not cut again)
        demo_fault=getattr(provider, "fault", None),
        demo_skill="weak" if getattr(provider, "skill", None) == "weak" else None,
    )
    fields = trace_manifest(
        name,
        provider,
        run_options,
        kept_options(
            run_settings,
            tools_offered=[spec.name for spec in request.tools],
            tools_file=tools_file,
        ),
    )
    fields.replayed_from = ReplayedFrom(
        trace=str(origin.trace.path),
        step=step,
        file=origin.source.file,
        status=manifest.status,
        final_answer=manifest.final_answer,
    )
    fields.edits = records
    notes += connection_notes(
        name, settings.provider or origin.provider, settings.base_url, provider
    )
    trace = open_trace(
        provider,
        out,
        force=settings.force and settings.out is not None,
        manifest=fields,
    )
    notes += kept_note(trace.path)
    if notes:
        for note in notes:
            trace.note(note)
        trace.save_manifest()
    plan = ReplayPlan(
        origin=str(origin.trace.path),
        step=step,
        request_file=origin.source.file,
        provider=name,
        wire_format=wire.name,
        model=model,
        out=str(trace.path),
        changes=result_changes(origin.source.original, request, records),
        original_provider=origin.provider if origin.provider != name else None,
        original_answer=manifest.final_answer,
        original_status=manifest.status,
    )
    run = PreparedRun(name, provider, wire, tools, trace, run_options, notes, settings=run_settings)
    return PreparedReplay(run, plan)


def _refuse_out_in_trace(out: Path, trace: Path) -> None:
    """Refuse an --out that is the original trace, inside it, or a directory holding it: the
    original is never touched (and --force would delete it)."""
    where, original = out.resolve(), trace.resolve()
    names = {"out": str(out), "trace": str(trace)}
    if where == original:
        problem = Msg(
            "--out {out} is the original trace {trace}; the replay is written to a new trace, "
            "never into the old one",
            **names,
        )
    elif original in where.parents:
        problem = Msg(
            "--out {out} is inside the original trace {trace}; the replay is written to a new "
            "trace, never into the old one",
            **names,
        )
    elif where in original.parents:
        problem = Msg(
            "--out {out} holds the original trace {trace}; the replay needs a directory of its own",
            **names,
        )
    else:
        return
    raise UsageError(problem, hint=Msg("choose another --out, or leave it out for TRACE.replay-N"))


def next_replay_dir(trace: Path) -> Path:
    """Find the first free `<trace>.replay-N` beside the original. The resolved path names it:
    the name of `..` or `.` is not the trace's, and its parent is not the trace's parent."""
    base = trace if trace.name and ".." not in trace.parts else trace.resolve()
    n = 1
    while (candidate := base.with_name(f"{base.name}.replay-{n}")).exists():
        n += 1
    return candidate


def result_changes(
    before: Request, after: Request, records: list[dict[str, Any]]
) -> list[ResultChange]:
    """List each result that goes out different from what the run handed back, and what made
    it so."""
    how: dict[str, list[str]] = {}
    for record in records:
        for call_id in record.get("ids") or [record.get("id")]:
            if isinstance(call_id, str):
                how.setdefault(call_id, []).append(record["kind"])
    old = {b.tool_use_id: b for m in before.messages for b in m.tool_results()}
    calls = {c.id: c for m in after.messages for c in m.tool_uses()}
    out = []
    for message in after.messages:
        for block in message.tool_results():
            was = old.get(block.tool_use_id)
            if was is not None and (was.content, was.is_error) == (block.content, block.is_error):
                continue
            call = calls.get(block.tool_use_id)
            out.append(
                ResultChange(
                    id=block.tool_use_id,
                    tool=call.name if call else None,
                    input=call.input if call else None,
                    before=was.content if was else None,
                    before_error=was.is_error if was else False,
                    after=block.content,
                    after_error=block.is_error,
                    how=how.get(block.tool_use_id, []),
                )
            )
    return out


def _for_provider(
    request: Request, name: str, fmt: str, notes: list[str]
) -> tuple[list[Message], bool | None]:
    """Fit the history and thinking switch to what the replay's provider can take."""
    thinking = request.thinking
    profile = PROFILES.get(name)
    if thinking is not None and profile is not None and not profile.thinking:
        notes.append(
            Msg(
                "{name} has no thinking switch: the request's thinking={thinking} is not sent",
                name=name,
                thinking=thinking,
            )
        )
        thinking = None
    messages = list(request.messages)
    if get_format(fmt).signed_thinking:
        # Anthropic refuses a thinking block sent back without the signature it gave it
        # (FC121); reasoning written by another provider has none, so it stays behind.
        unsigned = sum(
            1
            for m in messages
            for b in m.content
            if isinstance(b, ThinkingBlock) and b.signature is None
        )
        if unsigned:
            messages = [
                m.model_copy(
                    update={
                        "content": [
                            b
                            for b in m.content
                            if not (isinstance(b, ThinkingBlock) and b.signature is None)
                        ]
                    }
                )
                for m in messages
            ]
            notes.append(
                Msg(
                    "{n} thinking block(s) without Anthropic's signature left out: "
                    "Anthropic refuses reasoning it did not sign",
                    n=unsigned,
                )
            )
    foreign = sorted(
        {
            f"{b.format} {b.kind()}"
            for m in messages
            for b in m.content
            if isinstance(b, ProviderBlock) and b.format != fmt
        }
    )
    if foreign:
        notes.append(
            Msg(
                "provider block(s) of another format left out ({blocks}): "
                "they go back only to the format they came from, not to {format}",
                blocks=", ".join(foreign),
                format=fmt,
            )
        )
    return messages, thinking


def _losses(options: RunOptions, file: str, fmt: str) -> list[str]:
    """Say what the first request cannot carry into `fmt`, per JSON path (fc convert's account);
    a request the format cannot hold at all is exit 2 here, before anything is written."""
    request = Request(
        model=options.model,
        system=options.system,
        messages=options.history or [],
        tools=options.tool_specs or [],
        tool_choice=options.tool_choice,
        parallel_tool_calls=options.parallel_tool_calls,
        max_tokens=options.max_tokens,
        thinking=options.thinking,
        effort=options.effort,
    )
    doc = Document(file, request.to_json_dict(), "internal", "request", "", internal=request)
    converted = convert(doc, fmt)
    return [
        Msg("into {format}: {line}", format=fmt, line=line)
        for line in converted.losses + converted.warnings
    ]


def _trace_url(
    name: str, traced: str | None, manifest: Manifest, strict: bool, notes: list[str]
) -> str | None:
    """Find the trace's own base URL, for a replay on the same provider: a trace made against a
    local server is replayed there, not at the provider's public endpoint. $FC_BASE_URL comes
    first, as it does for fc run."""
    url = manifest.base_url
    api = manifest.options.api if manifest.options is not None else None
    profile = profile_for(name, api) if name in PROFILES else None
    if name != traced or url is None or profile is None or os.environ.get("FC_BASE_URL"):
        return None
    if url in (profile.base_url, profile.strict_base_url if strict else None):
        return None
    if "***" in url:  # a password was in it, masked in the manifest: it cannot be used again
        notes.append(
            Msg(
                "the trace's base URL {url} carried a password; give it again with --base-url",
                url=url,
            )
        )
        return None
    notes.append(Msg("sent to {url}, the trace's base URL (--base-url to change)", url=url))
    return url


def _trace_tools(options: Options | None, trace_dir: Path) -> str:
    """Find the tools the trace ran with: its tools file from the trace, wherever fc runs; else
    the name as it was typed (a built-in set, or a trace without `tools_file`)."""
    if options is None:
        return "weather"
    found = tools_file_in({"tools_file": options.tools_file}, trace_dir)
    if found is not None and found.is_file():
        return str(found)
    return options.tools or "weather"


def _load_tools(name: str, *, from_trace: bool) -> ToolSet:
    try:
        return load_toolset(name)
    except UsageError as e:
        if from_trace:
            raise e.at(
                hint=Msg(
                    "the trace was run with --tools {name}; give --tools to find them from here",
                    name=name,
                )
            ) from e
        raise


def _choice_text(choice: ToolChoice | None) -> str | None:
    if choice is None:
        return None
    return choice.name if choice.type == "tool" else choice.type
