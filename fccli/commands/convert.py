"""`fc convert FILE --to FORMAT`: a request or response into another format; losses on stderr."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from fccli.commands.help_format import help_text
from fccli.core.controls import escape_controls
from fccli.i18n import N_, Msg, _, localized
from fccli.render.linebreak import terminal_width, wrapped
from fccli.wire.listing import said_formats

HELP = N_(
    "Translate a request, response or messages array; what the target cannot hold goes to stderr."
)
RANK = 60  # its place in `fc --help`


def convert(
    file: str = typer.Argument(..., metavar="FILE", help=N_("A JSON file, or `-` for stdin.")),
    to: str = typer.Option(
        ...,
        "--to",
        "-t",
        help=help_text(Msg("Target format: {formats}.", formats=said_formats())),
    ),
    source: str | None = typer.Option(
        None,
        "--from",
        "-f",
        help=N_("The source format, when detection from the content guesses wrong."),
    ),
    out: Path | None = typer.Option(
        None, "--out", "-o", help=N_("Write to this file, not stdout.")
    ),
) -> None:
    # imported as it runs: `fc convert --help` stays light (start-up)
    from fccli.convert.translate import convert_file, write_converted

    converted = convert_file(file, to, source=source, out=out)
    # The labels are said in the chosen language too (`fc: 丢失：...` under zh); scripts that
    # read them run under English (CLI.md names no contract on these lines).
    for label, lines in (
        (_("fc: note: "), converted.notes),
        (_("fc: lost: "), converted.losses),
        (_("fc: warning: "), converted.warnings),
    ):
        for line in lines:
            said = label + escape_controls(localized(line))
            typer.echo(wrapped(said, terminal_width(sys.stderr), 2), err=True)
    write_converted(converted, out)
    if out is not None:
        typer.echo(_("wrote {out} ({what})", out=str(out), what=converted.what()), err=True)
