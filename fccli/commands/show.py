"""`fc show [TRACE|FILE]`: a trace (or one request or response file) as a transcript."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from fccli.core.errors import UsageError
from fccli.i18n import N_, Msg, _

HELP = N_(
    "Print a trace as a transcript: each step's calls, ids, arguments, results and stop reason."
)
RANK = 40  # its place in `fc --help`


def page_option(help: str) -> Any:
    """`--html FILE`: where a command writes its page (`-`: standard output)."""
    return typer.Option(
        None, "--html", metavar="FILE", callback=lambda value: page_name(value), help=help
    )


def page_name(value: Path | None) -> Path | None:
    """Refuse an option as the page's name: `--html -o page.html` (another command's habit)
    would write a page named `-o`."""
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


def show(
    target: str | None = typer.Argument(
        None,
        metavar="[TRACE|FILE]",
        help=N_(
            "A trace directory, or one request/response JSON file in any format, `-` for stdin "
            "(default: the trace fc wrote last from this directory, wherever --out put it, or the "
            "newest under ./traces, whichever began later)."
        ),
    ),
    step: int | None = typer.Option(None, "--step", min=1, help=N_("Show only step N.")),
    wire: bool = typer.Option(
        False, "--wire", help=N_("Show each step's wire files (as sent and received) instead.")
    ),
    thinking: bool = typer.Option(False, "--thinking", help=N_("Show thinking in full.")),
    full: bool = typer.Option(False, "--full", help=N_("Do not fold long tool results.")),
    html: Path | None = page_option(
        N_(
            "Write the trace as a self-contained HTML page to FILE (`-`: standard output): "
            "timeline, calls linked to their results, each step's four files side by side."
        )
    ),
    check: bool = typer.Option(
        False, "--check", help=N_("With --html: show fc check's findings where they point.")
    ),
    json_output: bool = typer.Option(
        False, "--json", help=N_("Print the trace (manifest, steps, calls and results) as JSON.")
    ),
    price_model: str | None = typer.Option(
        None,
        "--price-model",
        metavar="NAME",
        help=N_(
            "Price the trace as model NAME would cost (a name genai-prices knows: "
            "claude-haiku-4-5, gpt-5-mini...); default: as it was run."
        ),
    ),
) -> None:
    if html is not None and json_output:
        raise UsageError(Msg("--html and --json: choose one"))
    if check and html is None:
        raise UsageError(
            Msg("--check adds fc check's findings to the --html page"),
            hint=Msg("for the terminal: fc check TRACE"),
        )
    # imported as it runs: `fc show --help` stays light (start-up)
    from fccli.render.show_view import ShowAsked, show_document, show_path
    from fccli.trace.reader import read_source, resolve_trace
    from fccli.wire.detect import is_manifest

    asked = ShowAsked(
        step=step,
        wire=wire,
        thinking=thinking,
        full=full,
        html=html,
        check=check,
        json_output=json_output,
        price_model=price_model,
    )
    path = resolve_trace(target)
    if target == "-" or path.is_file():
        data, name = read_source(str(path) if target != "-" else "-")
        if target == "-" or not is_manifest(data):
            show_document(data, name, asked)
            return
        path = path.parent  # a trace's manifest: the trace it belongs to
    show_path(path, asked)
