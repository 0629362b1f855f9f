"""Everything `fc run` does between parsing options and printing: check the options, find the
provider and tools, open the trace, and run the round trip."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fccli.core.errors import UsageError
from fccli.core.models import Request, ToolChoice, ToolSpec
from fccli.engine import RoundTrip, RunOptions
from fccli.events import Event, RunResult
from fccli.providers.base import Provider
from fccli.providers.faults import DEMO_FAULTS
from fccli.providers.formats import WireFormat, get_format
from fccli.providers.profiles import PROFILES
from fccli.providers.registry import Connection, default_provider_name, get_provider
from fccli.slug import slugify
from fccli.tools.loader import load_toolset
from fccli.tools.registry import ToolSet
from fccli.tools.strict import strict_specs
from fccli.trace import TraceWriter, default_dir, prepare_dir

TRACES_ROOT = Path("traces")


@dataclass
class RunSettings:
    question: str
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    tools: str = "weather"
    system: str | None = None
    stream: bool = False
    thinking: bool | None = None
    tool_choice: str | None = None
    strict: bool = False
    parallel: bool = True
    max_steps: int = 8
    max_tokens: int | None = None
    retries: int = 3
    timeout: float = 600.0
    out: Path | None = None
    force: bool = False
    demo_fault: str | None = None


@dataclass
class PreparedRun:
    provider_name: str
    provider: Provider
    wire: WireFormat
    tools: ToolSet
    trace: TraceWriter
    options: RunOptions
    notes: list[str]
    """What a learner should know before the run starts (a tool without a description, ...)."""

    def execute(self, on_event: Callable[[Event], None] | None = None) -> RunResult:
        engine = RoundTrip(
            self.provider, self.wire, self.tools, self.trace, on_event or (lambda e: None)
        )
        try:
            return engine.run(self.options)
        finally:
            _close(self.provider)


def _refuse_unbuilt(settings: RunSettings) -> None:
    fault = settings.demo_fault
    if fault is not None and fault not in DEMO_FAULTS:
        raise UsageError(f"unknown --demo-fault {fault!r}", hint=f"kinds: {', '.join(DEMO_FAULTS)}")
    name = settings.provider or default_provider_name()
    if fault is not None and name != "demo":
        raise UsageError(
            f"--demo-fault makes the offline demo model err on purpose; it has no meaning for {name}",
            hint="add --provider demo",
        )
    if fault == "cut-stream" and not settings.stream:
        raise UsageError(
            "--demo-fault cut-stream needs --stream, which is not available in this version of fc yet"
        )
    # Said plainly rather than silently ignored: a flag that does nothing would mislead a learner.
    unbuilt = {
        "--stream": settings.stream,
    }
    for flag, used in unbuilt.items():
        if used:
            raise UsageError(f"{flag} is not available in this version of fc yet")


def parse_tool_choice(value: str | None, tools: ToolSet) -> ToolChoice | None:
    if value is None:
        return None
    if value in ("auto", "none", "required"):
        return ToolChoice(type=value)  # type: ignore[arg-type]
    if tools.get(value) is None:
        raise UsageError(
            f"--tool-choice {value!r} is neither auto, none, required nor a tool offered",
            hint=f"tools offered: {', '.join(tools.names())}",
        )
    return ToolChoice(type="tool", name=value)


def prepare_run(settings: RunSettings) -> PreparedRun:
    """Check everything that can be checked before anything is written or sent."""
    if not settings.question.strip():
        raise UsageError("the question is empty")
    name = settings.provider or default_provider_name()
    # Only an explicit --base-url is refused for the demo: $FC_BASE_URL, set for a real
    # provider in the shell, must not break the offline run.
    if settings.base_url and name == "demo":
        raise UsageError("--base-url has no meaning for the offline demo provider")
    _refuse_unbuilt(settings)
    _refuse_meaningless(settings, name)
    tools = load_toolset(settings.tools)
    specs = _tool_specs(tools, strict=settings.strict)
    # Last of the checks: a key is read, and an HTTP client made, only for a run that can go.
    provider = get_provider(
        name,
        connection=Connection(
            base_url=settings.base_url,
            strict=settings.strict,
            retries=settings.retries,
            timeout=settings.timeout,
        ),
        demo_fault=settings.demo_fault,
    )
    wire = get_format(provider.info.wire_format)
    options = RunOptions(
        question=settings.question,
        model=settings.model or provider.info.default_model,
        system=settings.system,
        max_steps=settings.max_steps,
        thinking=settings.thinking,
        tool_choice=parse_tool_choice(settings.tool_choice, tools),
        parallel_tool_calls=None if settings.parallel else False,
        max_tokens=settings.max_tokens,
        tool_specs=specs,
    )
    problem = wire.request_problem(
        Request(
            model=options.model,
            messages=[],
            tool_choice=options.tool_choice,
            thinking=options.thinking,
            max_tokens=options.max_tokens,
        )
    )
    if problem is not None:
        _close(provider)
        hint = (
            "add --no-thinking to force a tool, or nudge in the question"
            if "tool_choice" in problem
            else "raise --max-tokens, or run without --thinking"
        )
        raise UsageError(problem, hint=hint)
    try:
        if settings.out is not None:
            path = prepare_dir(settings.out, force=settings.force)
        else:
            path = prepare_dir(
                default_dir(TRACES_ROOT, slugify(settings.question, _city_names())), force=False
            )
    except UsageError:
        _close(provider)
        raise
    trace = TraceWriter(
        path,
        {
            "provider": name,
            "wire_format": wire.name,
            "model": options.model,
            "base_url": provider.info.base_url,
            "question": settings.question,
            "options": {
                "tools": settings.tools,
                "tools_offered": tools.names(),
                "system": settings.system,
                "stream": settings.stream,
                "thinking": settings.thinking,
                "tool_choice": settings.tool_choice,
                "parallel_tool_calls": options.parallel_tool_calls,
                "strict": settings.strict,
                "max_steps": settings.max_steps,
                "max_tokens": settings.max_tokens,
                "retries": settings.retries,
            },
        },
    )
    notes = [
        f"tool {spec.name} has no description: the model sees only its name and parameters"
        for spec in tools.specs()
        if not spec.description
    ]
    if name == "demo" and settings.provider is None and os.environ.get("FC_BASE_URL"):
        notes.append(
            "$FC_BASE_URL is set, but no --provider or key chose a real provider: "
            "this run is the offline demo (add -p, e.g. -p ollama)"
        )
    key_env = PROFILES[name].key_env if name in PROFILES else None
    if key_env and not settings.base_url and os.environ.get("FC_BASE_URL"):
        # The key goes wherever the URL points; one set in the shell long ago is easy to forget.
        notes.append(f"${key_env} goes to {provider.info.base_url}, taken from $FC_BASE_URL")
    if settings.demo_fault:
        # Said in the trace: this run's mistake was asked for, not the model's own.
        trace.manifest["options"]["demo_fault"] = settings.demo_fault
        notes.append(
            f"--demo-fault {settings.demo_fault}: the demo model makes this mistake on purpose"
        )
    if notes:
        trace.manifest["notes"] = list(notes)
        trace.save_manifest()
    return PreparedRun(name, provider, wire, tools, trace, options, notes)


def _refuse_meaningless(settings: RunSettings, name: str) -> None:
    profile = PROFILES.get(name)
    if settings.thinking is not None and profile is not None and not profile.thinking:
        flag = "--thinking" if settings.thinking else "--no-thinking"
        raise UsageError(
            f"{flag} has no meaning for {name}: its chat format has no thinking switch",
            hint="thinking can be switched for deepseek, anthropic and the demo",
        )


def _tool_specs(tools: ToolSet, *, strict: bool) -> list[ToolSpec]:
    if not strict:
        return tools.specs()
    specs, problems = strict_specs(tools.specs())
    if problems:
        # Reported rather than sent: the provider would answer 400, or stop enforcing.
        raise UsageError(
            "--strict: " + "; ".join(str(p) for p in problems),
            hint="remove those keywords from the tool's parameters, or run without --strict",
        )
    return specs


def _close(provider: Provider) -> None:
    close = getattr(provider, "close", None)
    if close is not None:
        close()


def _city_names() -> dict[str, str]:
    from fccli.cities import cities

    return {c["zh"]: c["en"] for c in cities()}
