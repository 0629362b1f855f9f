"""`fc replay TRACE`: re-send a step with edited tool results, as a new trace."""

from __future__ import annotations

from pathlib import Path

import typer

from fccli.commands.limits import MAX_RESPONSE_MB, TIMEOUT, TOOL_TIMEOUT, megabytes
from fccli.commands.otlp import OTLP, OTLP_CONTENT
from fccli.i18n import N_

HELP = N_(
    "Re-send a step of a trace with edited tool results and continue from there: the model "
    "answers from whatever it is handed. Writes a new trace; the old one is never touched."
)
RANK = 80  # its place in `fc --help`


def replay(
    trace: Path = typer.Argument(
        ..., metavar="TRACE", help=N_("The trace directory to replay from.")
    ),
    step: int | None = typer.Option(
        None,
        "--step",
        min=1,
        help=N_(
            "The step to re-send (default: the last one whose request hands tool results back)."
        ),
    ),
    set_: list[str] = typer.Option(
        [],
        "--set",
        metavar="ID=TEXT",
        help=N_(
            "Replace the result of call ID with TEXT (ID=@FILE reads it from a file, @- from "
            "stdin). Repeatable. An id may be shortened to a prefix that names one call."
        ),
    ),
    error: list[str] = typer.Option(
        [], "--error", metavar="ID", help=N_("Mark the result of call ID as an error. Repeatable.")
    ),
    ok: list[str] = typer.Option(
        [], "--ok", metavar="ID", help=N_("Mark the result of call ID as a success. Repeatable.")
    ),
    edit: bool = typer.Option(
        False, "--edit", help=N_("Edit the step's tool results in $EDITOR (a small JSON document).")
    ),
    source: str | None = typer.Option(
        None,
        "--from",
        metavar="internal|wire",
        help=N_(
            "The step's file that holds your hand edit, N-request.json (internal) or "
            "N-request.<format>.json (wire), when the two disagree and fc cannot tell from their "
            "times which was edited (fc says which it used, and why)."
        ),
    ),
    once: bool = typer.Option(
        False, "--once", help=N_("Send the edited request only; do not continue the round trip.")
    ),
    max_steps: int | None = typer.Option(
        None, "--max-steps", min=1, help=N_("Stop after N model requests (default: as the trace).")
    ),
    provider: str | None = typer.Option(
        None, "--provider", "-p", help=N_("Replay on another provider (default: the trace's).")
    ),
    model: str | None = typer.Option(
        None, "--model", "-m", help=N_("Model name (default: the trace's, on its provider).")
    ),
    base_url: str | None = typer.Option(
        None, "--base-url", help=N_("Endpoint root (default: $FC_BASE_URL, else the trace's).")
    ),
    tools: str | None = typer.Option(
        None,
        "--tools",
        help=N_("The tools that run the model's further calls (default: the trace's set)."),
    ),
    stream: bool | None = typer.Option(
        None, "--stream/--no-stream", help=N_("Stream the responses (default: as the trace).")
    ),
    retries: int | None = typer.Option(
        None, "--retries", min=0, max=10, help=N_("Retries on 429, 5xx and connection errors.")
    ),
    timeout: float = TIMEOUT,
    max_response_mb: float = MAX_RESPONSE_MB,
    tool_timeout: float = TOOL_TIMEOUT,
    out: Path | None = typer.Option(
        None, "--out", "-o", help=N_("The new trace's directory (default: TRACE.replay-N).")
    ),
    force: bool = typer.Option(False, "--force", help=N_("Replace a non-empty --out trace.")),
    json_output: bool = typer.Option(
        False, "--json", help=N_("Print the new trace's summary as JSON instead of the transcript.")
    ),
    otlp: str | None = OTLP,
    otlp_content: bool = OTLP_CONTENT,
) -> None:
    """Re-send a step of a trace with edited tool results and continue from there: the model
    answers from whatever it is handed. Writes a new trace; the old one is never touched."""
    from fccli.commands.otlp import exported_on_close, prepare
    from fccli.commands.watch import watch
    from fccli.render.replay_view import render_answers, render_plan, replayed_step_origin
    from fccli.replay.edits import EditsAsked
    from fccli.replay.prepare import ReplaySettings, prepare_replay

    live = prepare(otlp, otlp_content)
    prepared = prepare_replay(
        ReplaySettings(
            trace=trace,
            step=step,
            edits=EditsAsked(sets=set_, errors=error, oks=ok, editor=edit),
            source=source,
            once=once,
            max_steps=max_steps,
            provider=provider,
            model=model,
            base_url=base_url,
            tools=tools,
            stream=stream,
            retries=retries,
            timeout=timeout,
            max_response_bytes=megabytes(max_response_mb),
            tool_timeout=tool_timeout,
            out=out,
            force=force,
        )
    )
    with exported_on_close(live, prepared.run.trace.path):
        result, console = watch(
            prepared.run,
            json_output=json_output,
            execute=prepared.execute,
            before=lambda c: render_plan(c, prepared.plan),
            step_origin=lambda n: replayed_step_origin(prepared.plan, n),
        )
    if console is not None:
        render_answers(console, prepared.plan, result)
