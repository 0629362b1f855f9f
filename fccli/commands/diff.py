"""`fc diff A B`: internal vs wire, field by field; or two files of one format, by JSON path."""

from __future__ import annotations

import typer

from fccli.i18n import N_, _

HELP = N_("Compare two request or response files; formats are detected from the content.")
RANK = 50  # its place in `fc --help`


def diff(
    a: str = typer.Argument(..., metavar="A", help=N_("A JSON file (`-` for stdin).")),
    b: str = typer.Argument(..., metavar="B", help=N_("Another JSON file (`-` for stdin).")),
    exit_code: bool = typer.Option(
        False, "--exit-code", help=N_("Exit 1 when they differ (in meaning, across formats).")
    ),
    json_output: bool = typer.Option(False, "--json", help=N_("Print the comparison as JSON.")),
) -> None:
    if a == "-" and b == "-":
        raise typer.BadParameter(_("only one of A and B can be stdin"))
    # imported as it runs: `fc diff --help` stays light (start-up)
    from fccli.diff.compare import diff_files
    from fccli.render.diff_view import print_diff

    result = diff_files(a, b)
    print_diff(result, json_output=json_output)
    if exit_code and result.differ:
        raise typer.Exit(1)
