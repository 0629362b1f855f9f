"""`fc check PATH`: lint a trace or one request/messages file for protocol mistakes."""

from __future__ import annotations

from pathlib import Path

import typer

from fccli.commands.help_format import help_text
from fccli.core.errors import FindingsError
from fccli.i18n import N_, Msg
from fccli.wire.listing import said_formats

HELP = N_(
    "Find the mistakes providers answer with HTTP 400 (and the harness mistakes they never "
    "see), before anything is sent. Exit 1 on an error (or a warning with --strict), 0 "
    "otherwise, 2 for a file that cannot be read."
)
RANK = 70  # its place in `fc --help`


def check(
    path: Path = typer.Argument(
        ...,
        metavar="PATH",
        help=N_(
            "A trace directory, or one JSON file: a request body of any format, or a messages array."
        ),
    ),
    fmt: str | None = typer.Option(
        None,
        "--format",
        "-f",
        help=help_text(
            Msg("{formats}: the file's format, instead of detecting it.", formats=said_formats())
        ),
    ),
    json_output: bool = typer.Option(False, "--json", help=N_("Print the findings as JSON.")),
    strict: bool = typer.Option(False, "--strict", help=N_("Warnings fail too (exit 1).")),
) -> None:
    # imported as it runs: `fc check --help` stays light (start-up)
    from fccli.check.report import check_path
    from fccli.render.check_view import print_report

    report = check_path(path, fmt)
    print_report(report, json_output=json_output, strict=strict)
    if report.failed(strict):
        if report.errors:
            raise FindingsError(
                Msg("fc check: {n} error(s) in {path}", n=report.errors, path=str(path))
            )
        raise FindingsError(
            Msg("fc check: {n} warning(s) in {path} (--strict)", n=report.warnings, path=str(path))
        )
