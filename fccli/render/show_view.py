"""`fc show`: a trace, a folder of traces or one file, as a transcript, wire files, JSON or a page."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fccli.core.errors import UsageError, os_reason
from fccli.core.jsonio import dumps
from fccli.cost.record import step_record, trace_cost_record
from fccli.cost.trace import price_trace
from fccli.i18n import Msg, _
from fccli.render import transcript
from fccli.render.console import make_console
from fccli.trace.names import MANIFEST
from fccli.trace.reader import (
    Trace,
    document_from,
    read_trace,
    trace_json,
    trace_summary,
    traces_in,
    wire_json,
    wire_sections,
)

if TYPE_CHECKING:
    from rich.console import Console


@dataclass(frozen=True)
class ShowAsked:
    """What `fc show` was asked to show, and how."""

    step: int | None = None
    wire: bool = False
    thinking: bool = False
    full: bool = False
    html: Path | None = None
    check: bool = False
    json_output: bool = False
    price_model: str | None = None


def show_document(data: Any, name: str, asked: ShowAsked) -> None:
    """Show one request, response or messages file (its content `data`, read from `name`)."""
    if asked.step is not None:
        raise UsageError(Msg("--step is for a trace directory, not a single file"))
    console = transcript.recording_console() if asked.html else make_console()
    doc = document_from(data, name)
    if asked.json_output and asked.wire:
        sys.stdout.write(dumps(doc.to_json(wire=True)))
    elif asked.json_output:
        sys.stdout.write(dumps(doc.to_json()))
    elif asked.wire:
        heading = _(
            "{name}: {format} {what}, as stored",
            name=doc.name,
            format=doc.format,
            what=transcript.kind_text(doc.kind),
        )
        transcript.render_files(console, heading, [(doc.name, [(doc.name, doc.pretty())])])
    else:
        transcript.render_document(console, doc, thinking=asked.thinking, full=asked.full)
    _save_html(console, asked.html)


def show_path(path: Path, asked: ShowAsked) -> None:
    """Show a trace, or what a folder of traces holds."""
    console = transcript.recording_console() if asked.html else make_console()
    if path.is_dir() and not (path / MANIFEST).exists():
        inside = traces_in(path)
        if inside:  # a folder of traces (traces/, traces/examples): what is in it
            if asked.step is not None or asked.wire:
                flag = "--step" if asked.step is not None else "--wire"
                example = f"fc show {inside[0]} {flag}{f' {asked.step}' if asked.step else ''}"
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
            if asked.json_output:
                sys.stdout.write(dumps({"folder": str(path), "traces": summaries}))
            else:
                transcript.render_trace_list(console, path, summaries)
            _save_html(console, asked.html)
            return
    trace = read_trace(path)
    if asked.step is not None:
        trace.step(asked.step)  # an unknown asked.step is exit 2, before anything is printed
    if asked.json_output:
        if asked.wire:
            data = wire_json(trace, asked.step)
        else:
            data = with_cost(trace_json(trace, asked.step), trace, asked.price_model)
        sys.stdout.write(dumps(data))
    elif asked.wire:
        heading = _(
            "trace {path}: the {format} wire files, as stored",
            path=str(trace.path),
            format=trace.wire_format,
        )
        transcript.render_files(console, heading, wire_sections(trace, asked.step))
    elif asked.html is not None:
        _write_page(
            trace,
            asked.html,
            check=asked.check,
            step=asked.step,
            thinking=asked.thinking,
            full=asked.full,
            price_model=asked.price_model,
        )
        return
    else:
        transcript.render_trace(
            console,
            trace,
            step=asked.step,
            thinking=asked.thinking,
            full=asked.full,
            price_model=asked.price_model,
        )
    _save_html(console, asked.html)


def with_cost(data: dict[str, Any], trace: Trace, price_model: str | None) -> dict[str, Any]:
    """Add what the trace and each step cost to `fc show --json`'s data, priced now (as
    `price_model`, if given), in the manifest's shape."""
    cost = price_trace(trace.record, price_model)
    for step in data["steps"]:
        price = cost.steps.get(step["step"])
        step["cost"] = None if price is None else step_record(price).to_json_dict()
    return {**data, "cost": trace_cost_record(cost).to_json_dict()}


def _save_html(console: Console, html: Path | None) -> None:
    """Save the terminal transcript as a page (a single file, a folder of traces, --wire)."""
    if html is not None:
        save_page(html, console.export_html(), _("transcript written to {file}", file=str(html)))


def _write_page(trace: Trace, html: Path, *, check: bool, **options: Any) -> None:
    """Write the trace's own HTML page: timeline, calls linked to results, files side by side."""
    # imported for --html only: a transcript needs no page (start-up)
    from fccli.render.html.page import trace_page
    from fccli.render.html.trace_page import gather

    data = gather(trace, check=check, page=None if str(html) == "-" else html)
    save_page(html, trace_page(data, **options), _("page written to {file}", file=str(html)))


def save_page(html: Path, page: str, written: str) -> None:
    """Write a page to `html` (`-`: stdout) and say so."""
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
    print(written)
