"""`fc show [TRACE|FILE]`: a trace (or one request or response file) as a transcript."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from fccli.i18n import N_

if TYPE_CHECKING:
    from rich.console import Console

    from fccli.trace.reader import Trace


HELP = N_(
    "Print a trace as a transcript: each step's calls, ids, arguments, results and stop reason."
)
RANK = 40  # its place in `fc --help`


def show(
    target: str | None = typer.Argument(
        None,
        metavar="[TRACE|FILE]",
        help=N_(
            "A trace directory, or one request/response JSON file in any format, `-` for stdin "
            "(default: the newest trace under ./traces)."
        ),
    ),
    step: int | None = typer.Option(None, "--step", min=1, help=N_("Show only step N.")),
    wire: bool = typer.Option(
        False, "--wire", help=N_("Show each step's wire files (as sent and received) instead.")
    ),
    thinking: bool = typer.Option(False, "--thinking", help=N_("Show thinking in full.")),
    full: bool = typer.Option(False, "--full", help=N_("Do not fold long tool results.")),
    html: Path | None = typer.Option(
        None,
        "--html",
        metavar="FILE",
        callback=lambda value: _page_name(value),
        help=N_(
            "Write the trace as a self-contained HTML page to FILE (`-`: standard output): "
            "timeline, calls linked to their results, each step's four files side by side."
        ),
    ),
    check: bool = typer.Option(
        False, "--check", help=N_("With --html: show fc check's findings where they point.")
    ),
    json_output: bool = typer.Option(
        False, "--json", help=N_("Print the trace (manifest, steps, calls and results) as JSON.")
    ),
) -> None:
    from fccli.core.errors import UsageError
    from fccli.core.jsonio import dumps
    from fccli.i18n import Msg, _
    from fccli.render import transcript
    from fccli.render.console import make_console
    from fccli.trace.names import MANIFEST
    from fccli.trace.reader import (
        document_from,
        read_source,
        read_trace,
        resolve_trace,
        trace_json,
        trace_summary,
        traces_in,
        wire_json,
        wire_sections,
    )
    from fccli.wire.detect import is_manifest

    if html is not None and json_output:
        raise UsageError(Msg("--html and --json: choose one"))
    if check and html is None:
        raise UsageError(
            Msg("--check adds fc check's findings to the --html page"),
            hint=Msg("for the terminal: fc check TRACE"),
        )
    path = resolve_trace(target)
    console = transcript.recording_console() if html else make_console()
    if target == "-" or path.is_file():
        data, name = read_source(str(path) if target != "-" else "-")
        if target != "-" and is_manifest(data):
            path = path.parent  # a trace's manifest: the trace it belongs to
        else:
            if step is not None:
                raise UsageError(Msg("--step is for a trace directory, not a single file"))
            doc = document_from(data, name)
            if json_output and wire:
                typer.echo(dumps(doc.to_json(wire=True)), nl=False)
            elif json_output:
                typer.echo(dumps(doc.to_json()), nl=False)
            elif wire:
                heading = _(
                    "{name}: {format} {what}, as stored",
                    name=doc.name,
                    format=doc.format,
                    what=transcript.kind_text(doc.kind),
                )
                transcript.render_files(console, heading, [(doc.name, [(doc.name, doc.pretty())])])
            else:
                transcript.render_document(console, doc, thinking=thinking, full=full)
            _save_html(console, html)
            return
    if path.is_dir() and not (path / MANIFEST).exists():
        inside = traces_in(path)
        if inside:  # a folder of traces (traces/, traces/examples): what is in it
            if step is not None or wire:
                flag = "--step" if step is not None else "--wire"
                example = f"fc show {inside[0]} {flag}{f' {step}' if step else ''}"
                raise UsageError(
                    Msg(
                        "{path} is a folder of {n} traces; {flag} reads one of them",
                        path=str(path),
                        n=len(inside),
                        flag=flag,
                    ),
                    hint=Msg("e.g. {command}", command=example),
                )
            summaries = [trace_summary(t) for t in inside]
            if json_output:
                typer.echo(dumps({"folder": str(path), "traces": summaries}), nl=False)
            else:
                transcript.render_trace_list(console, path, summaries)
            _save_html(console, html)
            return
    trace = read_trace(path)
    if step is not None:
        trace.step(step)  # an unknown step is exit 2, before anything is printed
    if json_output:
        data = wire_json(trace, step) if wire else trace_json(trace, step)
        typer.echo(dumps(data), nl=False)
    elif wire:
        heading = _(
            "trace {path}: the {format} wire files, as stored",
            path=str(trace.path),
            format=trace.wire_format,
        )
        transcript.render_files(console, heading, wire_sections(trace, step))
    elif html is not None:
        _write_page(trace, html, check=check, step=step, thinking=thinking, full=full)
        return
    else:
        transcript.render_trace(console, trace, step=step, thinking=thinking, full=full)
    _save_html(console, html)


def _page_name(value: Path | None) -> Path | None:
    """`--html -o page.html` (another command's habit) would write a page named `-o`."""
    from fccli.i18n import _

    text = str(value) if value is not None else ""
    if text.startswith("-") and text != "-":
        raise typer.BadParameter(
            _(
                "takes the page's file name, not an option ({text}): "
                "`--html page.html`, or `--html -` for standard output",
                text=repr(text),
            )
        )
    return value


def _save_html(console: Console, html: Path | None) -> None:
    """A single file, a folder of traces or --wire: the terminal transcript as a page."""
    from fccli.i18n import _

    if html is not None:
        _write(html, console.export_html(), _("transcript written to {file}", file=str(html)))


def _write_page(trace: Trace, html: Path, *, check: bool, **options: Any) -> None:
    from fccli.render.html.page import trace_page
    from fccli.render.html.trace_page import gather

    data = gather(trace, check=check, page=None if str(html) == "-" else html)
    from fccli.i18n import _

    _write(html, trace_page(data, **options), _("page written to {file}", file=str(html)))


def _write(html: Path, page: str, written: str) -> None:
    from fccli.core.errors import UsageError, os_reason
    from fccli.i18n import Msg

    if str(html) == "-":
        sys.stdout.buffer.write(page.encode("utf-8"))
        sys.stdout.flush()
        return
    try:
        html.write_text(page, encoding="utf-8")
    except OSError as e:
        raise UsageError(
            Msg("cannot write {file}: {reason}", file=str(html), reason=os_reason(e))
        ) from None
    typer.echo(written)
