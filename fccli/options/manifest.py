"""The options as the manifest keeps them, and as `fc replay` rebuilds them from a trace."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fccli.core.errors import UsageError
from fccli.core.manifest import Manifest, Options
from fccli.i18n import Msg
from fccli.options import declared
from fccli.options.declared import (
    CARRIED,
    REPLAY,
    RUN,
    SAME_PROVIDER,
    TEXT,
    Option,
    Settings,
)


def kept_options(settings: Settings, tools_offered: list[str], tools_file: Any) -> Options:
    """Make the manifest's options of a run with `settings`, with the tools it offered and the
    entry of its tools file (tools/loader.py; only for a file)."""
    kept: dict[str, Any] = {}
    for option in declared.options_of(RUN):
        if option.kept is None:
            continue
        value = option.kept.written(getattr(settings, option.name))
        if value is not None or option.kept.always:
            kept[option.kept.key] = value
    kept["tools_offered"] = tools_offered
    if tools_file:
        kept["tools_file"] = tools_file
    return Options(**kept)


def replayed_settings(given: Settings, manifest: Manifest, *, same_provider: bool) -> Settings:
    """Rebuild the run settings of a replay: what its command line gives, else the trace's value
    of each option replay carries over, else the default. The values the replayed request holds
    (REQUESTED: its system prompt, thinking, tool_choice...) are the caller's to set."""
    trace_options = manifest.options
    values: dict[str, Any] = {"question": manifest.question or ""}
    for option in declared.options_of(RUN):
        if option.replay is None:
            continue
        takes = REPLAY in option.commands
        if takes and getattr(given, option.name) is not None:
            values[option.name] = getattr(given, option.name)
        elif option.replay == CARRIED or (option.replay == SAME_PROVIDER and same_provider):
            values[option.name] = trace_value(option, trace_options)
    for name in ("timeout", "max_response_mb", "tool_timeout", "out", "force"):
        values[name] = getattr(given, name)
    return declared.RunSettings(**values)


def trace_value(option: Option, options: Options | None) -> Any:
    """Read the value of `option` the trace's manifest keeps, checked as the command line would:
    one of another type is not there (the default); one out of range is refused."""
    assert option.kept is not None
    raw = None if options is None else getattr(options, option.kept.key, None)
    value = option.kept.read(raw)
    base = option.type
    if value is None or (base is not bool and isinstance(value, bool)):
        return option.default
    if not isinstance(value, base if base is not float else (int, float)):
        return option.default
    low, high = option.min, option.max
    if (low is not None and value < low) or (high is not None and value > high):
        allowed = (
            Msg("{low} to {high}", low=low, high=high)
            if high is not None
            else Msg("at least {low}", low=low)
        )
        raise UsageError(
            Msg(
                "the trace's manifest says options.{name} = {value}; it must be {allowed}",
                name=option.kept.key,
                value=value,
                allowed=allowed,
            ),
            hint=Msg("give {flag} to choose", flag=option.flags[0].split("/")[0]),
        )
    return value


def as_typed(options: Options, quote: Callable[[str], str]) -> list[str]:
    """List the kept options that differ from their defaults, as they were typed
    (`--max-steps 3`, `--no-thinking`); `quote` writes a free text (the system prompt)."""
    typed = []
    for option in declared.options_of(RUN):
        if option.kept is None or option.shown is None:
            continue
        value = option.kept.read(getattr(options, option.kept.key, None))
        if value is None or value == option.default:
            continue
        on, _, off = option.flags[0].partition("/")
        if isinstance(value, bool):
            typed += [flag for flag in (on if value else off,) if flag]
        else:
            shown = quote(value) if option.shown == TEXT else value
            typed.append(f"{on} {shown}")
    return typed
