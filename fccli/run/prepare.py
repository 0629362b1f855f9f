"""Everything `fc run` does between parsing options and printing: check the options, find the
provider and tools, open the trace, and run the round trip. `fc replay` opens its provider and
trace through the same functions (below `prepare_run`)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from fccli.core.cities import cities
from fccli.core.errors import UsageError
from fccli.core.manifest import Manifest, Options
from fccli.core.models import Request, ToolChoice, ToolSpec
from fccli.i18n import Msg
from fccli.options.declared import RunSettings as RunSettings  # tests build theirs from here
from fccli.options.declared import Settings, declared, megabytes
from fccli.options.harness_bugs import HARNESS_BUGS
from fccli.options.manifest import kept_options
from fccli.providers.base import Provider
from fccli.providers.demo.faults import DEMO_FAULTS
from fccli.providers.demo.model import (
    DEMO_SKILLS,
    DEMO_STREAM_PACE,
    SCHEMA_FAULTS,
    DemoProvider,
)
from fccli.providers.profiles import PROFILES, Profile, profile_for
from fccli.providers.registry import Connection, default_provider_name, get_provider
from fccli.run.engine import RoundTrip, RunOptions
from fccli.run.events import Event, RunResult, StreamProgress
from fccli.run.json_mode import parse_response_format
from fccli.tools.json_tools import Asker, JsonTool
from fccli.tools.loader import NO_TOOLS, load_toolset, tools_file_entry
from fccli.tools.registry import ToolSet
from fccli.tools.strict import strict_specs
from fccli.trace.names import TRACES_ROOT
from fccli.trace.slug import slugify
from fccli.trace.writer import TraceWriter, default_dir, prepare_dir, written_by_fc
from fccli.wire.registry import WireFormat, get_format


class PreparedRun(NamedTuple):
    """A round trip checked and ready: its provider, tools and open trace."""

    provider_name: str
    provider: Provider
    wire: WireFormat
    tools: ToolSet
    trace: TraceWriter
    options: RunOptions
    notes: list[str]
    """What a learner should know before the run starts (a tool without a description, ...)."""
    pace_ms: int | None = None
    asks: bool = False
    """A person answers for the tools (--ask): no spinner while the tools run."""
    settings: Settings | None = None
    """The options the round trip runs with (a replay: as rebuilt from the trace)."""

    def execute(
        self, on_event: Callable[[Event], None] | None = None, *, stream_deltas: bool = False
    ) -> RunResult:
        """Run the round trip, emitting its events to `on_event`, and close the provider."""
        engine = RoundTrip(
            self.provider,
            self.wire,
            self.tools,
            self.trace,
            on_event or (lambda e: None),
            stream_deltas=stream_deltas,
        )
        if stream_deltas and isinstance(self.provider, DemoProvider):
            # Someone watches the fragments arrive: the offline model writes at a visible pace
            # rather than all at once. Traces are unchanged (only times differ).
            self.provider.pace = DEMO_STREAM_PACE if self.pace_ms is None else self.pace_ms / 1000
        elif stream_deltas and self.pace_ms:
            engine.emit = _paced(engine.emit, self.pace_ms / 1000)
        try:
            return engine.run(self.options)
        finally:
            close_provider(self.provider)
            self.tools.close()


def _paced(emit: Callable[[Event], None], seconds: float) -> Callable[[Event], None]:
    """Show a real provider's fragments no faster than one per `seconds` (--pace)."""

    def paced(event: Event) -> None:
        emit(event)
        if isinstance(event, StreamProgress):
            time.sleep(seconds)

    return paced


def _refuse_fault(settings: Settings) -> None:
    """Refuse a demo or harness option without its provider, or without the stream it needs."""
    fault = settings.demo_fault
    if fault is not None and fault not in DEMO_FAULTS:
        raise UsageError(
            Msg("unknown --demo-fault {fault!r}", fault=fault),
            hint=Msg("kinds: {kinds}", kinds=", ".join(DEMO_FAULTS)),
        )
    name = settings.provider or default_provider_name()
    if fault is not None and name != "demo":
        raise UsageError(
            Msg(
                "--demo-fault makes the offline demo model err on purpose; "
                "it has no meaning for {name}",
                name=name,
            ),
            hint=Msg("add --provider demo"),
        )
    if settings.demo_skill is not None and settings.demo_skill not in DEMO_SKILLS:
        raise UsageError(
            Msg("unknown --demo-skill {skill!r}", skill=settings.demo_skill),
            hint=Msg("weak or strong"),
        )
    if settings.demo_skill is not None and name != "demo":
        raise UsageError(
            Msg(
                "--demo-skill sets how well the offline demo model fills arguments; {name} fills "
                "them as it does",
                name=name,
            ),
            hint=Msg("add --provider demo"),
        )
    if settings.harness_bug is not None and settings.harness_bug not in HARNESS_BUGS:
        raise UsageError(
            Msg("unknown --harness-bug {bug!r}", bug=settings.harness_bug),
            hint=Msg("kinds: {kinds}", kinds=", ".join(HARNESS_BUGS)),
        )
    if settings.pace is not None and not settings.stream:
        raise UsageError(
            Msg("--pace slows the fragments of a streamed answer, and this run streams nothing"),
            hint=Msg("add --stream"),
        )
    if settings.ask and not settings.tools.lower().endswith(".json"):
        raise UsageError(
            Msg("--ask answers for tools defined in a JSON file; these tools run their own code"),
            hint="--tools FILE.json --ask",
        )
    if fault == "cut-stream" and not settings.stream:
        raise UsageError(
            Msg("--demo-fault cut-stream cuts a stream, so it needs --stream"),
            hint="fc run --stream --demo-fault cut-stream QUESTION",
        )


def parse_tool_choice(value: str | None, tools: ToolSet) -> ToolChoice | None:
    """Read --tool-choice: auto, none, required, or the name of a tool offered."""
    if value is None:
        return None
    if value in ("auto", "none", "required"):
        return ToolChoice(type=value)  # type: ignore[arg-type]
    if tools.get(value) is None:
        raise UsageError(
            Msg(
                "--tool-choice {value!r} is neither auto, none, required nor a tool offered",
                value=value,
            ),
            hint=Msg("tools offered: {tools}", tools=", ".join(tools.names())),
        )
    return ToolChoice(type="tool", name=value)


def prepare_run(settings: Settings, asker: Asker | None = None) -> PreparedRun:
    """Check everything that can be checked before anything is written or sent; `asker` answers
    for the tools with --ask."""
    asker = asker if settings.ask else None
    if not settings.question.strip():
        raise UsageError(Msg("the question is empty"))
    name = settings.provider or default_provider_name()
    refuse_demo_base_url(name, settings.base_url)
    _refuse_fault(settings)
    _refuse_meaningless(settings, name)
    response_format = parse_response_format(settings.response_format)
    tools = load_toolset(settings.tools, asker)
    if settings.harness_bug == "identity-from-args":
        for tool in tools.tools.values():
            if isinstance(tool, JsonTool):
                tool.identity_from_args = True
    opened: list[TraceWriter] = []
    if settings.mcp:
        tools = _with_mcp(settings, tools, opened)
    try:
        return _prepared(settings, name, tools, response_format, asker, opened)
    except BaseException:
        tools.close()
        raise


def _with_mcp(settings: Settings, tools: ToolSet, opened: list[TraceWriter]) -> ToolSet:
    """Start the --mcp servers and offer their tools (beside a --tools file's)."""
    base = ToolSet(NO_TOOLS, []) if settings.tools == declared("tools").default else tools
    return start_mcp(settings.mcp, base, settings, opened)


def start_mcp(
    servers: list[str], base: ToolSet, settings: Settings, opened: list[TraceWriter]
) -> ToolSet:
    """Start MCP `servers` and offer their tools beside `base`'s; the calls of a step are
    numbered with the step of the trace `opened` will hold."""
    from fccli.mcp.errors import require_sdk

    require_sdk()
    from fccli.mcp.tools import with_mcp

    def step_of() -> int | None:
        # The calls of a step run once its answer is on record: the last step is theirs.
        steps = opened[0].manifest.steps if opened else []
        return steps[-1].step if steps else None

    served, client = with_mcp(
        base,
        servers,
        timeout=settings.tool_timeout,
        max_bytes=megabytes(settings.max_response_mb),
        step_of=step_of,
        connect_timeout=settings.mcp_timeout,
    )
    served.closing.append(client.close)
    served.mcp = client
    return served


def attach_mcp(tools: ToolSet, trace: TraceWriter, opened: list[TraceWriter]) -> list[str]:
    """Write the MCP servers' traffic into `trace` from now on, and name them in its manifest;
    return what a learner is told of them before the run starts."""
    opened.append(trace)
    client = tools.mcp
    if client is None:
        return []
    client.attach(trace.path)
    trace.manifest.mcp_servers = client.records()
    trace.save_manifest()
    return [
        Msg(
            "MCP server {name} ({transport}, protocol {version}) offers {tools}; its JSON-RPC "
            "goes to {log}",
            name=record["name"],
            transport=record["transport"],
            version=str(record["protocol_version"]),
            tools=", ".join(record["tools"]) or "-",
            log=record["log"],
        )
        for record in trace.manifest.mcp_servers
    ]


def _prepared(
    settings: Settings,
    name: str,
    tools: ToolSet,
    response_format: dict[str, Any] | None,
    asker: Asker | None,
    opened: list[TraceWriter],
) -> PreparedRun:
    """Prepare the run once its tools are there (prepare_run's second half)."""
    specs = _tool_specs(tools, strict=settings.strict)
    provider, wire = open_provider(
        name,
        connection(settings),
        demo_fault=settings.demo_fault,
        demo_skill=settings.demo_skill or "strong",
    )
    options = RunOptions(
        question=settings.question,
        model=settings.model or provider.info.default_model,
        system=settings.system,
        max_steps=settings.max_steps,
        thinking=settings.thinking,
        effort=settings.effort,
        tool_choice=parse_tool_choice(settings.tool_choice, tools),
        parallel_tool_calls=False if settings.no_parallel else None,
        max_tokens=settings.max_tokens,
        tool_specs=specs,
        stream=settings.stream,
        response_format=response_format,
        harness_bug=settings.harness_bug,
        # A person typing a result is not timed out; an abandoned reader would also keep
        # holding stdin when the next call asks.
        tool_timeout=None if asker is not None else settings.tool_timeout,
    )
    problem = request_problem(wire, options)
    if problem is not None:
        close_provider(provider)
        hint = (
            None
            if "thinking" not in problem  # a format's own limit: its sentence says what to do
            else Msg("add --no-thinking to force a tool, or nudge in the question")
            if "tool_choice" in problem
            else Msg("raise --max-tokens, or run without --thinking")
        )
        raise UsageError(problem, hint=hint)
    out = settings.out or default_dir(TRACES_ROOT, slugify(settings.question, _city_names()))
    if tools.mcp is not None and settings.tools == declared("tools").default:
        settings = settings.but(tools=NO_TOOLS)  # the servers' tools took the weather set's place
    tools_file = tools_file_entry(settings.tools, out)
    trace = open_trace(
        provider,
        out,
        force=settings.force and settings.out is not None,
        manifest=trace_manifest(
            name,
            provider,
            options,
            kept_options(settings, tools_offered=tools.names(), tools_file=tools_file),
        ),
    )
    notes: list[str] = attach_mcp(tools, trace, opened)
    notes += [
        Msg(
            "tool {name} has no description: the model sees only its name and parameters",
            name=spec.name,
        )
        for spec in tools.specs()
        if not spec.description
    ]
    notes += connection_notes(name, settings.provider, settings.base_url, provider)
    notes += kept_note(trace.path)
    if settings.demo_fault and settings.demo_fault in SCHEMA_FAULTS and settings.strict:
        # The demo keeps a strict tool's calls to its schema, as a provider does (said on the step).
        notes.append(
            Msg(
                "--demo-fault {fault}: strict mode will prevent this mistake for a strict tool: "
                "a call that breaks the schema cannot come out",
                fault=settings.demo_fault,
            )
        )
    elif settings.demo_fault:
        notes.append(
            Msg(
                "--demo-fault {fault}: the demo model makes this mistake on purpose",
                fault=settings.demo_fault,
            )
        )
    if settings.harness_bug:
        notes.append(
            Msg(
                "--harness-bug {bug}: fc's harness makes this mistake on purpose",
                bug=settings.harness_bug,
            )
        )
    if notes:
        for note in notes:
            trace.note(note)
        trace.save_manifest()
    return PreparedRun(
        name,
        provider,
        wire,
        tools,
        trace,
        options,
        notes,
        pace_ms=settings.pace,
        asks=asker is not None,
        settings=settings,
    )


def _refuse_meaningless(settings: Settings, name: str) -> None:
    """Refuse an option the provider has no switch for, or a combination it refuses."""
    profile = spoken_profile(name, settings.api)
    if settings.thinking is not None and profile is not None and not profile.thinking:
        flag = "--thinking" if settings.thinking else "--no-thinking"
        raise UsageError(
            Msg(
                "{flag} has no meaning for {name}: its chat format has no thinking switch",
                flag=flag,
                name=name,
            ),
            hint=Msg("thinking can be switched for deepseek, anthropic and the demo"),
        )
    refuse_effort(name, profile, settings.effort, settings.thinking)
    if profile is not None and not profile.has_strict and (settings.strict or settings.no_parallel):
        flag = "--strict" if settings.strict else "--no-parallel"
        raise UsageError(
            Msg(
                "{flag} has no meaning for {name}: it has no strict mode and no switch for "
                "parallel calls (fc providers)",
                flag=flag,
                name=name,
            ),
            hint=Msg("run without {flag}", flag=flag),
        )
    if getattr(settings, "region", None) and (profile is None or not profile.signing_name):
        raise UsageError(
            Msg(
                "--region has no meaning for {name}: it is not reached in an AWS region", name=name
            ),
            hint=Msg("run without --region"),
        )
    forced = settings.tool_choice not in (None, "auto", "none")
    thinking_on = settings.thinking is not False
    if profile is not None and profile.forcing_needs_no_thinking and forced and thinking_on:
        raise UsageError(
            Msg(
                "tool_choice {choice!r} is refused in {name}'s thinking mode "
                "(on by default), which accepts only auto or none",
                choice=settings.tool_choice,
                name=name,
            ),
            hint=Msg("add --no-thinking to force a tool, or nudge in the question"),
        )


EFFORTS = declared("effort").choices or ()
"""The values of --effort (CLI.md); a provider takes some of them (Profile.efforts)."""


def spoken_profile(name: str, api: str | None) -> Profile | None:
    """Find the profile `name` is spoken to with `--api`; None for the demo (it speaks
    DeepSeek's chat format only, as the refusal says)."""
    if name == "demo":
        if api not in (None, "chat"):
            raise UsageError(
                Msg(
                    "--api {api}: the offline demo model speaks DeepSeek's chat format only",
                    api=api,
                ),
                hint=Msg("-p deepseek --api {api} reaches DeepSeek in that format", api=api),
            )
        return None
    if name not in PROFILES:
        return None  # get_provider says it is unknown
    return profile_for(name, api)


def refuse_effort(
    name: str, profile: Profile | None, effort: str | None, thinking: bool | None
) -> None:
    """Refuse --effort where the provider does not take it; on DeepSeek (and the demo) it is the
    strength of thinking mode, so asking for it with --no-thinking asks for two things at once."""
    if effort is None:
        return
    if effort not in EFFORTS:
        raise UsageError(Msg("unknown --effort {effort!r}: choose low, high or max", effort=effort))
    efforts = profile.efforts if profile is not None else EFFORTS
    if effort not in efforts:
        raise UsageError(
            Msg(
                "--effort {effort}: {name} takes {efforts}",
                effort=effort,
                name=name,
                efforts=", ".join(efforts),
            )
            if efforts
            else Msg("--effort {effort}: {name} has no effort setting", effort=effort, name=name)
        )
    bound = profile.effort_is_thinking if profile is not None else True
    if bound and thinking is False:
        raise UsageError(
            Msg(
                "--effort {effort} and --no-thinking contradict each other: on {name} the effort "
                "is thinking mode's, and --no-thinking turns thinking off (give one of them)",
                effort=effort,
                name=name,
            )
        )


def _tool_specs(tools: ToolSet, *, strict: bool) -> list[ToolSpec]:
    """Make the tool definitions as sent: in strict form with --strict."""
    if not strict:
        return tools.specs()
    specs, problems = strict_specs(tools.specs())
    if problems:
        # Reported rather than sent: the provider would answer 400, or stop enforcing.
        raise UsageError(
            Msg("--strict: {problems}", problems=_joined([p.said() for p in problems])),
            hint=Msg("remove those keywords from the tool's parameters, or run without --strict"),
        )
    return specs


# ---------------------------------------------------------------------------------------------
# shared with `fc replay`, which starts a run from an earlier trace's step


def refuse_demo_base_url(name: str, base_url: str | None) -> None:
    """Refuse --base-url for the offline demo."""
    # Only an explicit --base-url is refused for the demo: $FC_BASE_URL, set for a real
    # provider in the shell, must not break the offline run.
    if base_url and name == "demo":
        raise UsageError(Msg("--base-url has no meaning for the offline demo provider"))


def connection(settings: Settings) -> Connection:
    """Make the connection to a real provider that `settings` ask for."""
    return Connection(
        base_url=settings.base_url,
        strict=settings.strict,
        retries=settings.retries,
        timeout=settings.timeout,
        api=settings.api,
        max_response_bytes=megabytes(settings.max_response_mb),
        model=settings.model,
        region=getattr(settings, "region", None),  # fc run's (replay keeps the trace's URL)
    )


def open_provider(
    name: str, connection: Connection, *, demo_fault: str | None = None, demo_skill: str = "strong"
) -> tuple[Provider, WireFormat]:
    """Open the provider and find its wire format. Call it last of the checks: a key is read,
    and an HTTP client made, only for a run that can go."""
    provider = get_provider(
        name, connection=connection, demo_fault=demo_fault, demo_skill=demo_skill
    )
    return provider, get_format(provider.info.wire_format)


def request_problem(wire: WireFormat, options: RunOptions) -> str | None:
    """Say why the provider would refuse every request of this run (a tool_choice its thinking
    mode refuses, a thinking budget over max_tokens), before anything is sent; None if not."""
    return wire.request_problem(
        Request(
            model=options.model,
            messages=[],
            tool_choice=options.tool_choice,
            thinking=options.thinking,
            max_tokens=options.max_tokens,
            response_format=options.response_format,
        )
    )


def open_trace(provider: Provider, path: Path, *, force: bool, manifest: Manifest) -> TraceWriter:
    """Create the trace directory and its first manifest; the provider is closed if it cannot be."""
    try:
        return TraceWriter(prepare_dir(path, force=force), manifest)
    except UsageError:
        close_provider(provider)
        raise


def kept_note(path: Path) -> list[str]:
    """Say what --force left in the trace, not being fc's to replace."""
    kept = sorted(e.name for e in path.iterdir() if not written_by_fc(e))
    if not kept:
        return []
    return [
        Msg(
            "kept {kept} in {path}: --force replaces only the files fc wrote",
            kept=", ".join(kept),
            path=str(path),
        )
    ]


def trace_manifest(
    name: str, provider: Provider, options: RunOptions, settings: Options
) -> Manifest:
    """Make the manifest of a trace before its first step (`fc run` and `fc replay` alike);
    `settings` are the options as the manifest keeps them."""
    return Manifest(
        provider=name,
        wire_format=provider.info.wire_format,
        model=options.model,
        base_url=provider.info.base_url,
        question=options.question,
        options=settings,
    )


def connection_notes(
    name: str, asked: str | None, base_url: str | None, provider: Provider
) -> list[str]:
    """Say what a learner may not expect of where the requests go; `asked` is the provider
    named on the command line (None when fc chose it), `base_url` the --base-url given."""
    notes: list[str] = []
    if name == "demo" and asked is None and os.environ.get("FC_BASE_URL"):
        notes.append(
            Msg(
                "$FC_BASE_URL is set, but no --provider or key chose a real provider: "
                "this run is the offline demo (add -p, e.g. -p ollama)"
            )
        )
    key_env = PROFILES[name].key_env if name in PROFILES else None
    if key_env and not base_url and os.environ.get("FC_BASE_URL"):
        # The key goes wherever the URL points; one set in the shell long ago is easy to forget.
        notes.append(
            Msg(
                "${key_env} goes to {url}, taken from $FC_BASE_URL",
                key_env=key_env,
                url=provider.info.base_url,
            )
        )
    return notes


def close_provider(provider: Provider) -> None:
    """Close the provider's HTTP client, if it has one."""
    close = getattr(provider, "close", None)
    if close is not None:
        close()


def _city_names() -> dict[str, str]:
    """Map each city's Chinese name to its English one (for the trace's directory name)."""
    return {c["zh"]: c["en"] for c in cities()}


def _joined(problems: list[Msg]) -> Msg:
    """Join several problems into one message, `a; b`, each said in the chosen language."""
    joined = problems[0]
    for problem in problems[1:]:
        # i18n: two messages said one after the other
        joined = Msg("{first}; {then}", first=joined, then=problem)
    return joined
