"""`fc convert FILE --to FORMAT`: a request or response into another format; losses on stderr."""

from __future__ import annotations

from pathlib import Path

import typer

from fccli.convert.translate import convert as translate
from fccli.core.controls import escape_controls
from fccli.core.errors import UsageError
from fccli.core.jsonio import dumps
from fccli.i18n import N_, Msg, _, localized
from fccli.trace.reader import read_document

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
        help=N_("Target format: internal, deepseek, openai, anthropic, responses or gemini."),
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
    if out is not None and file != "-" and out.resolve() == Path(file).resolve():
        raise UsageError(
            Msg("-o {out} is the file being converted; write somewhere else", out=str(out))
        )
    converted = translate(read_document(file, forced=source), to)

    # The labels are said in the chosen language too (`fc: 丢失：...` under zh); scripts that
    # read them run under English (CLI.md names no contract on these lines).
    for label, lines in (
        (_("fc: note: "), converted.notes),
        (_("fc: lost: "), converted.losses),
        (_("fc: warning: "), converted.warnings),
    ):
        for line in lines:
            typer.echo(label + escape_controls(localized(line)), err=True)
    text = dumps(converted.output)
    if out is None:
        typer.echo(text, nl=False)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as e:
        raise UsageError(
            Msg("cannot write {out}: {reason}", out=str(out), reason=str(e.strerror))
        ) from None
    typer.echo(_("wrote {out} ({what})", out=str(out), what=converted.what()), err=True)
