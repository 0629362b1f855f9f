"""`fc export otel TRACE…`: traces as OpenTelemetry GenAI spans, to a collector or a file."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from fccli.i18n import N_, _, localized

HELP = N_("Send traces elsewhere: `fc export otel` for OpenTelemetry backends.")
RANK = 130  # its place in `fc --help`


export = typer.Typer(
    help=HELP,
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@export.command(
    "otel",
    help=N_(
        "Export traces as OpenTelemetry GenAI spans (semantic conventions v1.41.1): one trace "
        "per fc trace, a chat span per step, an execute_tool span per tool run. Needs the otel "
        "extra."
    ),
)
def otel(
    traces: list[Path] = typer.Argument(
        None,
        metavar="TRACE…",
        help=N_(
            "Trace directories (default: the trace fc wrote last from this directory, or the "
            "newest under ./traces, whichever began later)."
        ),
    ),
    endpoint: str | None = typer.Option(
        None,
        "--endpoint",
        metavar="URL",
        help=N_(
            "An OTLP/HTTP traces endpoint, e.g. http://localhost:6006/v1/traces (a URL without "
            "a path gets /v1/traces). Default: $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else "
            "$OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. Headers: $OTEL_EXPORTER_OTLP_HEADERS."
        ),
    ),
    output: str | None = typer.Option(
        None, "--output", "-o", metavar="FILE", help=N_("Write to FILE instead (- for stdout).")
    ),
    fmt: str | None = typer.Option(
        None,
        "--format",
        metavar="json|protobuf",
        help=N_(
            "OTLP encoding. Default: protobuf to an endpoint, OTLP/JSON (one line per trace) "
            "to a file."
        ),
    ),
    content: bool = typer.Option(
        False,
        "--content/--no-content",
        help=N_(
            "Also export the messages, system prompt, tool definitions, arguments and results "
            "(opt-in, as the conventions ask). Default: no text of the conversation leaves."
        ),
    ),
) -> None:
    """Export traces as OpenTelemetry GenAI spans (semantic conventions v1.41.1): one trace per
    fc trace, a chat span per step, an execute_tool span per tool run. Needs the otel extra."""

    # imported as it runs: `fc export otel --help` stays light (start-up)
    from fccli.export.otel import ExportSettings, export_otel
    from fccli.trace.reader import resolve_trace

    report = export_otel(
        ExportSettings(
            traces=list(traces) if traces else [resolve_trace(None)],
            endpoint=endpoint,
            output=output,
            format=fmt,
            content=content,
        )
    )
    if report.stdout is not None:
        sys.stdout.buffer.write(report.stdout)
        sys.stdout.buffer.flush()
    # What was done goes to stdout, unless stdout holds the export itself.
    say = sys.stderr if report.stdout is not None else sys.stdout
    for item in report.exported:
        said = _(
            "{path}: trace {trace_id}, {spans} spans",
            path=str(item.path),
            trace_id=item.trace_id,
            spans=item.spans,
        )
        print(said, file=say)
        for note in item.notes:
            print("  " + _("note: {note}", note=note), file=say)
    for warning in report.warnings:
        print(_("warning: {warning}", warning=localized(warning)), file=sys.stderr)
    where = _("stdout") if report.where == "stdout" else report.where
    said = _(
        "exported {count} trace(s) to {where} ({format})",
        count=len(report.exported),
        where=where,
        format=report.format,
    )
    print(said, file=say)
