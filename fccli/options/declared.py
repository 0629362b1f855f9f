"""Every option of the commands that run a round trip (`fc run`, `fc replay`), declared once.

Each declaration says what the command line shows (flags, type, default, help), which commands
take it, how the manifest keeps it and how `fc replay` rebuilds it from a trace. The typer
parameters (fccli/commands/parameters.py), the settings `fc run` and `fc replay` read
(`Settings`), the manifest's options and replay's rebuild (fccli/options/manifest.py) all come
from `OPTIONS`, in its order. Help texts are marked `N_` (a text with values in it is a `Msg`):
the help page says them in the chosen language.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from fccli.i18n import N_, Joined, Msg

RUN, REPLAY, SEND = "run", "replay", "send"

CARRIED = "carried"
"""`fc replay` runs with the trace's value, unless its command line gives one."""
SAME_PROVIDER = "same provider"
"""`fc replay` runs with the trace's value when it runs on the trace's provider."""
REQUESTED = "requested"
"""`fc replay` takes the value from the replayed step's request, which holds it."""

VALUE, TEXT = "value", "text"
"""How a transcript lists a kept option that differs from its default: `--flag value`, or
`--flag "text"` cut short (a bool: its flag alone)."""


def _unchanged(value: Any) -> Any:
    """Return `value` as it is."""
    return value


class Keep(NamedTuple):
    """How the manifest's options keep an option's value."""

    key: str
    always: bool = False
    """Written even when None (as null); else only when given."""
    written: Callable[[Any], Any] = _unchanged
    """The value as the manifest writes it (None: not written, unless `always`)."""
    read: Callable[[Any], Any] = _unchanged
    """The option's value from the manifest's."""


class Option(NamedTuple):
    """One option (or argument) of the commands that take it."""

    name: str
    """The parameter's name, and the setting's."""
    flags: tuple[str, ...]
    """`--effort`, `--stream/--no-stream`, `-p`; none for an argument."""
    type: Any
    default: Any
    help: str | Callable[[], Msg]
    """Marked `N_`; a text with values in it is made when the help is (`Msg`)."""
    commands: tuple[str, ...] = (RUN,)
    metavar: str | None = None
    """What the help shows for its value (default: its choices, `low|high|max`)."""
    choices: tuple[str, ...] | None = None
    """The values it takes, checked where the run is prepared (with a message of fc's own)."""
    min: float | None = None
    max: float | None = None
    envvar: str | None = None
    argument: bool = False
    kept: Keep | None = None
    replay: str | None = None
    """How `fc replay` rebuilds the run's value: CARRIED, SAME_PROVIDER, REQUESTED or None (not)."""
    shown: str | None = VALUE
    """How a transcript lists it among the run's options (VALUE, TEXT, or None: not listed)."""
    variants: Mapping[str, Mapping[str, Any]] | None = None
    """What differs on another command: `{"replay": {"help": ..., "default": None}}`."""

    def on(self, command: str) -> Option:
        """Show the option as `command` does."""
        changes = (self.variants or {}).get(command)
        return self._replace(**changes) if changes else self


def _kinds() -> dict[str, str]:
    """List the kinds of --demo-fault and --harness-bug for their help texts."""
    # imported here: a reader of the declarations (a transcript) needs no provider
    from fccli.options.harness_bugs import HARNESS_BUGS
    from fccli.providers.demo.faults import DEMO_FAULTS

    return {"faults": ", ".join(DEMO_FAULTS), "bugs": ", ".join(HARNESS_BUGS)}


def _faults_help() -> Msg:
    """Make --demo-fault's help, its kinds listed."""
    return Msg(
        "Demo provider only: make the model commit a classic mistake, to watch the "
        "harness handle it: {faults} (cut-stream needs --stream).",
        **_kinds(),
    )


def _bugs_help() -> Msg:
    """Make --harness-bug's help, its kinds listed."""
    return Msg(
        "Make fc's own harness commit a classic mistake, to see what it does and how "
        "fc check finds it: {bugs}.",
        **_kinds(),
    )


def _providers_help() -> Msg:
    """Make --provider's help, the providers listed as their profiles name them."""
    # imported here: a reader of the declarations (a transcript) needs no provider
    from fccli.providers.profiles import PROFILES

    return Msg(
        "{providers}. Default: $FC_PROVIDER; else deepseek when DEEPSEEK_API_KEY is set; "
        "else demo (offline).",
        providers=Joined(("demo", *PROFILES), ", "),
    )


# A table: one declaration per paragraph, in the order `fc run --help` lists them.
# fmt: off
OPTIONS: tuple[Option, ...] = (
    Option("question", (), str, ..., N_("What to ask, e.g. 杭州今天适合跑步吗？"), metavar="QUESTION",
        argument=True),
    Option("trace", (), Path, ..., N_("The trace directory to replay from."), commands=(REPLAY,),
        metavar="TRACE", argument=True),
    Option("step", ("--step",), int, None, N_(
        "The step to re-send (default: the last one whose request hands tool results back)."),
        commands=(REPLAY,), min=1),
    Option("set_", ("--set",), list[str], [], N_(
        "Replace the result of call ID with TEXT (ID=@FILE reads it from a file, @- from "
        "stdin). Repeatable. An id may be shortened to a prefix that names one call."),
        commands=(REPLAY,), metavar="ID=TEXT"),
    Option("error", ("--error",), list[str], [], N_(
        "Mark the result of call ID as an error. Repeatable."), commands=(REPLAY,), metavar="ID"),
    Option("ok", ("--ok",), list[str], [], N_(
        "Mark the result of call ID as a success. Repeatable."), commands=(REPLAY,), metavar="ID"),
    Option("edit", ("--edit",), bool, False, N_(
        "Edit the step's tool results in $EDITOR (a small JSON document)."), commands=(REPLAY,)),
    Option("source", ("--from",), str, None, N_(
        "The step's file that holds your hand edit, N-request.json (internal) or "
        "N-request.<format>.json (wire), when the two disagree and fc cannot tell from their "
        "times which was edited (fc says which it used, and why)."), commands=(REPLAY,),
        metavar="internal|wire"),
    Option("once", ("--once",), bool, False, N_(
        "Send the edited request only; do not continue the round trip."), commands=(REPLAY,)),
    Option("provider", ("--provider", "-p"), str, None, _providers_help, commands=(RUN, REPLAY),
        variants={REPLAY: dict(help=N_("Replay on another provider (default: the trace's)."))}),
    Option("model", ("--model", "-m"), str, None, N_("Model name (each provider has a default)."),
        commands=(RUN, REPLAY),
        variants={REPLAY: dict(help=N_("Model name (default: the trace's, on its provider)."))}),
    Option("base_url", ("--base-url",), str, None, N_(
        "Endpoint root, e.g. http://127.0.0.1:8000. Default: $FC_BASE_URL."),
        commands=(RUN, REPLAY),
        variants={REPLAY: dict(help=N_(
            "Endpoint root (default: $FC_BASE_URL, else the trace's)."))}),
    Option("region", ("--region",), str, None, N_(
        "The AWS region of -p bedrock (default: $AWS_REGION, else us-east-1)."), metavar="R"),
    Option("tools", ("--tools",), str, "weather", N_(
        "A built-in tool set (weather), none (a plain question), a .py file of tool functions, "
        "or a .json file of tool definitions (internal, chat or Anthropic form)."),
        commands=(RUN, REPLAY), kept=Keep("tools", always=True), replay=CARRIED,
        variants={REPLAY: dict(default=None, help=N_(
            "The tools that run the model's further calls (default: the trace's set)."))}),
    Option("mcp", ("--mcp",), list[str], [], N_(
        "An MCP server whose tools the model is offered: a command line (stdio, started and "
        "stopped by fc, e.g. \"fc mcp demo\") or an http(s):// URL (streamable HTTP). "
        "Repeatable. Its JSON-RPC is kept in the trace (mcp-<server>.jsonl). With --mcp, "
        "--tools adds a file's tools beside the servers' (the weather set is left out)."),
        metavar="SERVER", shown=None),
    Option("mcp_timeout", ("--mcp-timeout",), float, 30.0, N_(
        "Seconds an MCP server has to start and answer initialize (and each tools/list); "
        "past it fc stops it, exit 3."), commands=(RUN, REPLAY), metavar="S", min=0.01,
        shown=None),
    Option("live_mcp", ("--live-mcp",), bool, False, N_(
        "Call the trace's MCP servers again (started as the manifest names them) for the "
        "model's further calls; default: answer each from the trace's recorded result for the "
        "same tool and arguments."), commands=(REPLAY,)),
    Option("ask", ("--ask",), bool, False, N_(
        "You are the tool: a JSON-defined tool with no result in its file shows the call and "
        "reads the result you type (start with 'error:' for an error result)."), shown=None,
        kept=Keep("ask", written=lambda ask: True if ask else None, read=lambda kept: kept is True)),
    Option("response_format", ("--response-format",), str, None, N_(
        "JSON mode: json_object, or json_schema:FILE (a JSON Schema the answer must fit). "
        "Governs the answer (content), not the tool calls."), kept=Keep("response_format"),
        shown=None),
    Option("system", ("--system",), str, None, N_("A system prompt."),
        kept=Keep("system", always=True), replay=REQUESTED, shown=TEXT),
    Option("stream", ("--stream/--no-stream",), bool, False, N_(
        "Stream the responses (SSE): watch the fragments arrive; the trace keeps the raw .sse "
        "too."), commands=(RUN, REPLAY), kept=Keep("stream", always=True), replay=CARRIED,
        variants={REPLAY: dict(default=None, help=N_(
            "Stream the responses (default: as the trace)."))}),
    Option("thinking", ("--thinking/--no-thinking",), bool, None, N_(
        "Thinking mode where the provider has one. Default: the provider's."),
        kept=Keep("thinking", always=True), replay=REQUESTED),
    Option("effort", ("--effort",), str, None, N_(
        "How hard the model thinks, in the format's own field (chat: reasoning_effort; "
        "Anthropic: output_config.effort). On DeepSeek it is thinking mode's effort."),
        choices=("low", "high", "max"), kept=Keep("effort"), replay=REQUESTED),
    Option("api", ("--api",), str, None, N_(
        "The format to speak to the provider in: -p deepseek --api anthropic uses "
        "https://api.deepseek.com/anthropic; -p openai --api responses uses OpenAI's "
        "/v1/responses. Default: the provider's own."), metavar="chat|anthropic|responses",
        kept=Keep("api"), replay=SAME_PROVIDER),
    Option("tool_choice", ("--tool-choice",), str, None, N_(
        "auto, none, required, or a tool name."), kept=Keep("tool_choice", always=True),
        replay=REQUESTED),
    Option("strict", ("--strict",), bool, False, N_(
        "Send tool schemas in strict form (every property required, no extra ones); keywords "
        "strict mode refuses are reported, not sent. See `fc tools --strict`."),
        kept=Keep("strict", always=True), replay=REQUESTED),
    Option("no_parallel", ("--no-parallel",), bool, False, N_(
        "Ask for at most one tool call per response."), replay=REQUESTED,
        kept=Keep("parallel_tool_calls", always=True, written=lambda no: False if no else None,
        read=lambda parallel: parallel is False)),
    Option("max_steps", ("--max-steps",), int, 8, N_("Stop after N model requests."),
        commands=(RUN, REPLAY), min=1, kept=Keep("max_steps", always=True), replay=CARRIED,
        variants={REPLAY: dict(default=None, help=N_(
            "Stop after N model requests (default: as the trace)."))}),
    Option("max_tokens", ("--max-tokens",), int, None, N_(
        "Cap each answer's length (an answer cut off is not executed)."), min=1,
        kept=Keep("max_tokens", always=True), replay=REQUESTED),
    Option("retries", ("--retries",), int, 3, N_(
        "Retries on 429, 5xx and connection errors (backoff, Retry-After honoured)."),
        commands=(RUN, REPLAY), min=0, max=10, kept=Keep("retries", always=True), replay=CARRIED,
        shown=None,
        variants={REPLAY: dict(default=None, help=N_(
            "Retries on 429, 5xx and connection errors."))}),
    Option("timeout", ("--timeout",), float, 600.0, N_(
        "Seconds one answer may take in all, a stream too (thinking takes a while); past it fc "
        "stops reading, keeps what came, exit 3."), commands=(RUN, REPLAY, SEND), min=1.0),
    Option("max_response_mb", ("--max-response-mb",), float, 64.0, N_(
        "The most MB of one answer fc reads (decompressed); past it fc stops reading, keeps "
        "what came, exit 3."), commands=(RUN, REPLAY, SEND), min=0.01),
    Option("tool_timeout", ("--tool-timeout",), float, 120.0, N_(
        "Seconds a tool may run; past it the call gets an error result the model reads, and "
        "the run goes on (the tool is left to finish in the background)."), commands=(RUN, REPLAY),
        min=0.01),
    Option("out", ("--out", "-o"), Path, None, N_(
        "Trace directory (default traces/<time>-<slug>)."), commands=(RUN, REPLAY),
        variants={REPLAY: dict(help=N_("The new trace's directory (default: TRACE.replay-N)."))}),
    Option("force", ("--force",), bool, False, N_("Replace a non-empty --out directory."),
        commands=(RUN, REPLAY),
        variants={REPLAY: dict(help=N_("Replace a non-empty --out trace."))}),
    Option("demo_fault", ("--demo-fault",), str, None, _faults_help, kept=Keep("demo_fault"),
        replay=SAME_PROVIDER, shown=None),
    Option("demo_skill", ("--demo-skill",), str, None, N_(
        "Demo provider only: strong (default) fills arguments from the question by type and "
        "schema; weak puts the whole question into the first required string parameter, as the "
        "course's first demo model does."), kept=Keep("demo_skill"), replay=SAME_PROVIDER,
        shown=None),
    Option("harness_bug", ("--harness-bug",), str, None, _bugs_help, kept=Keep("harness_bug"),
        shown=None),
    Option("pace", ("--pace",), int, None, N_(
        "Milliseconds between the fragments of a streamed answer in the live view (the demo's "
        "stream; slows it for eyes)."), min=0, max=5000, kept=Keep("pace_ms"), shown=None),
    Option("price_model", ("--price-model",), str, None, N_(
        "Price the run as model NAME would cost (a name genai-prices knows: claude-haiku-4-5, "
        "gpt-5-mini...); default: the model asked, the demo as deepseek-flash."),
        commands=(RUN, REPLAY), metavar="NAME", kept=Keep("price_model"), replay=CARRIED),
    Option("json_output", ("--json",), bool, False, N_(
        "Print the run summary as JSON instead of the transcript."), commands=(RUN, REPLAY),
        variants={REPLAY: dict(help=N_(
            "Print the new trace's summary as JSON instead of the transcript."))}),
    Option("otlp", ("--otlp",), str, None, N_(
        "Also export the trace, when it closes, as OpenTelemetry GenAI spans to this OTLP/HTTP "
        "endpoint (e.g. http://localhost:6006 for Phoenix; also $FC_OTLP). Needs the otel "
        "extra."), commands=(RUN, REPLAY), metavar="URL", envvar="FC_OTLP"),
    Option("otlp_content", ("--otlp-content",), bool, False, N_(
        "With --otlp: export the messages, arguments and results too (default: not)."),
        commands=(RUN, REPLAY)),

)
# fmt: on


def options_of(command: str) -> list[Option]:
    """List the options `command` takes, in the order its help shows them, as it shows them."""
    return [option.on(command) for option in OPTIONS if command in option.commands]


def declared(name: str, command: str = RUN) -> Option:
    """Find the option named `name`, as `command` shows it."""
    for option in OPTIONS:
        if option.name == name:
            return option.on(command)
    raise KeyError(name)


class Settings:
    """The values of one command's options, by name; an option not given has its default.

    `RunSettings(question="...", stream=True)` is `fc run "..." --stream`."""

    command = RUN

    def __init__(self, **values: Any) -> None:
        options = {option.name: option for option in options_of(self.command)}
        unknown = sorted(set(values) - set(options))
        if unknown:
            raise TypeError(f"fc {self.command} has no option {', '.join(unknown)}")
        missing = [n for n, o in options.items() if o.default is ... and n not in values]
        if missing:
            raise TypeError(f"fc {self.command} needs {', '.join(missing)}")
        self.values = {name: values.get(name, option.default) for name, option in options.items()}
        for name, value in self.values.items():
            if isinstance(value, list):
                self.values[name] = list(value)  # a default is shared

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["values"][name]
        except KeyError:
            raise AttributeError(name) from None

    def but(self, **changes: Any) -> Settings:
        """Copy these settings with `changes`."""
        return type(self)(**{**self.values, **changes})

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.values!r})"


class RunSettings(Settings):
    command = RUN


class ReplaySettings(Settings):
    command = REPLAY


def settings_for(command: str) -> type[Settings]:
    """Find the settings class of `command`."""
    return ReplaySettings if command == REPLAY else RunSettings


def megabytes(value: float) -> int:
    """Convert `value` MB (--max-response-mb) to bytes."""
    return int(value * 1024 * 1024)
