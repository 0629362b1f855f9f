"""`fc run QUESTION`: the tool-call round trip, written as a trace."""

from __future__ import annotations

from pathlib import Path

import typer

from fccli.commands.help_format import help_text
from fccli.commands.limits import MAX_RESPONSE_MB, TIMEOUT, TOOL_TIMEOUT, megabytes
from fccli.commands.otlp import OTLP, OTLP_CONTENT
from fccli.i18n import N_, Msg
from fccli.providers.demo.faults import DEMO_FAULTS
from fccli.run.harness_bugs import HARNESS_BUGS

HELP = N_(
    "Ask with tool definitions, execute the calls the model asks for, hand the results "
    "back, repeat."
)
RANK = 10  # its place in `fc --help`


def run(
    question: str = typer.Argument(
        ..., metavar="QUESTION", help=N_("What to ask, e.g. 杭州今天适合跑步吗？")
    ),
    provider: str | None = typer.Option(
        None,
        "--provider",
        "-p",
        help=N_(
            "demo, deepseek, openai, anthropic, ollama. "
            "Default: $FC_PROVIDER; else deepseek when DEEPSEEK_API_KEY is set; else demo (offline)."
        ),
    ),
    model: str | None = typer.Option(
        None, "--model", "-m", help=N_("Model name (each provider has a default).")
    ),
    base_url: str | None = typer.Option(
        None,
        "--base-url",
        help=N_("Endpoint root, e.g. http://127.0.0.1:8000. Default: $FC_BASE_URL."),
    ),
    tools: str = typer.Option(
        "weather",
        "--tools",
        help=N_(
            "A built-in tool set (weather), none (a plain question), a .py file of tool "
            "functions, or a .json file of tool definitions (internal, chat or Anthropic form)."
        ),
    ),
    ask: bool = typer.Option(
        False,
        "--ask",
        help=N_(
            "You are the tool: a JSON-defined tool with no result in its file shows the call "
            "and reads the result you type (start with 'error:' for an error result)."
        ),
    ),
    response_format: str | None = typer.Option(
        None,
        "--response-format",
        help=N_(
            "JSON mode: json_object, or json_schema:FILE (a JSON Schema the answer must fit). "
            "Governs the answer (content), not the tool calls."
        ),
    ),
    system: str | None = typer.Option(None, "--system", help=N_("A system prompt.")),
    stream: bool = typer.Option(
        False,
        "--stream/--no-stream",
        help=N_(
            "Stream the responses (SSE): watch the fragments arrive; the trace keeps the raw .sse too."
        ),
    ),
    thinking: bool | None = typer.Option(
        None,
        "--thinking/--no-thinking",
        help=N_("Thinking mode where the provider has one. Default: the provider's."),
    ),
    effort: str | None = typer.Option(
        None,
        "--effort",
        metavar="low|high|max",
        help=N_(
            "How hard the model thinks, in the format's own field (chat: reasoning_effort; "
            "Anthropic: output_config.effort). On DeepSeek it is thinking mode's effort."
        ),
    ),
    api: str | None = typer.Option(
        None,
        "--api",
        metavar="chat|anthropic|responses",
        help=N_(
            "The format to speak to the provider in: -p deepseek --api anthropic uses "
            "https://api.deepseek.com/anthropic; -p openai --api responses uses OpenAI's /v1/responses. Default: the provider's own."
        ),
    ),
    tool_choice: str | None = typer.Option(
        None, "--tool-choice", help=N_("auto, none, required, or a tool name.")
    ),
    strict: bool = typer.Option(
        False,
        "--strict",
        help=N_(
            "Send tool schemas in strict form (every property required, no extra ones); "
            "keywords strict mode refuses are reported, not sent. See `fc tools --strict`."
        ),
    ),
    no_parallel: bool = typer.Option(
        False, "--no-parallel", help=N_("Ask for at most one tool call per response.")
    ),
    max_steps: int = typer.Option(8, "--max-steps", min=1, help=N_("Stop after N model requests.")),
    max_tokens: int | None = typer.Option(
        None,
        "--max-tokens",
        min=1,
        help=N_("Cap each answer's length (an answer cut off is not executed)."),
    ),
    retries: int = typer.Option(
        3,
        "--retries",
        min=0,
        max=10,
        help=N_("Retries on 429, 5xx and connection errors (backoff, Retry-After honoured)."),
    ),
    timeout: float = TIMEOUT,
    max_response_mb: float = MAX_RESPONSE_MB,
    tool_timeout: float = TOOL_TIMEOUT,
    out: Path | None = typer.Option(
        None, "--out", "-o", help=N_("Trace directory (default traces/<time>-<slug>).")
    ),
    force: bool = typer.Option(False, "--force", help=N_("Replace a non-empty --out directory.")),
    demo_fault: str | None = typer.Option(
        None,
        "--demo-fault",
        help=help_text(
            Msg(
                "Demo provider only: make the model commit a classic mistake, to watch the "
                "harness handle it: {faults} (cut-stream needs --stream).",
                faults=", ".join(DEMO_FAULTS),
            )
        ),
    ),
    demo_skill: str | None = typer.Option(
        None,
        "--demo-skill",
        help=N_(
            "Demo provider only: strong (default) fills arguments from the question by type and "
            "schema; weak puts the whole question into the first required string parameter, as "
            "the course's first demo model does."
        ),
    ),
    harness_bug: str | None = typer.Option(
        None,
        "--harness-bug",
        help=help_text(
            Msg(
                "Make fc's own harness commit a classic mistake, to see what it does and how "
                "fc check finds it: {bugs}.",
                bugs=", ".join(HARNESS_BUGS),
            )
        ),
    ),
    pace: int | None = typer.Option(
        None,
        "--pace",
        min=0,
        max=5000,
        help=N_(
            "Milliseconds between the fragments of a streamed answer in the live view "
            "(the demo's stream; slows it for eyes)."
        ),
    ),
    json_output: bool = typer.Option(
        False, "--json", help=N_("Print the run summary as JSON instead of the transcript.")
    ),
    otlp: str | None = OTLP,
    otlp_content: bool = OTLP_CONTENT,
) -> None:
    """Ask with tool definitions, execute the calls the model asks for, hand the results back, repeat."""
    from fccli.commands.ask import ask_at_terminal
    from fccli.commands.otlp import exported_on_close, prepare
    from fccli.commands.watch import watch
    from fccli.run.prepare import RunSettings, prepare_run

    live = prepare(otlp, otlp_content)
    prepared = prepare_run(
        RunSettings(
            question=question,
            provider=provider,
            model=model,
            base_url=base_url,
            tools=tools,
            system=system,
            stream=stream,
            thinking=thinking,
            effort=effort,
            api=api,
            tool_choice=tool_choice,
            strict=strict,
            parallel=not no_parallel,
            max_steps=max_steps,
            max_tokens=max_tokens,
            retries=retries,
            timeout=timeout,
            max_response_bytes=megabytes(max_response_mb),
            tool_timeout=tool_timeout,
            out=out,
            force=force,
            demo_fault=demo_fault,
            demo_skill=demo_skill,
            response_format=response_format,
            asker=ask_at_terminal if ask else None,
            harness_bug=harness_bug,
            pace_ms=pace,
        )
    )
    with exported_on_close(live, prepared.trace.path):
        watch(prepared, json_output=json_output)
