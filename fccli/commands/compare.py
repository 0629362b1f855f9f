"""`fc compare A B`: two traces (or two step files) side by side, the first divergence named."""

from __future__ import annotations

from pathlib import Path

import typer

from fccli.commands.show import page_option
from fccli.core.errors import UsageError
from fccli.i18n import N_, Msg

HELP = N_(
    "Put two traces (or two step files) side by side, step by step, and name where they first "
    "differ."
)
RANK = 55  # its place in `fc --help`: after fc diff


def compare(
    a: str = typer.Argument(
        ...,
        metavar="A",
        help=N_(
            "A trace directory or a step file (any format). A replay given alone is compared "
            "with its original."
        ),
    ),
    b: str | None = typer.Argument(
        None, metavar="[B]", help=N_("Another trace directory, or another step file.")
    ),
    exit_code: bool = typer.Option(
        False,
        "--exit-code",
        help=N_("Exit 1 when they differ in what was asked or answered (as fc diff --exit-code)."),
    ),
    html: Path | None = page_option(
        N_(
            "Write the comparison as a self-contained HTML page to FILE (`-`: standard output): "
            "the two traces' steps in two columns, differing fields marked."
        )
    ),
    price_model: str | None = typer.Option(
        None,
        "--price-model",
        metavar="NAME",
        help=N_("Price both as model NAME would cost (a name in genai-prices' table)."),
    ),
    json_output: bool = typer.Option(False, "--json", help=N_("Print the comparison as JSON.")),
) -> None:
    if html is not None and json_output:
        raise UsageError(Msg("--html and --json: choose one"))
    # imported as it runs: `fc compare --help` stays light (start-up)
    from fccli.compare.comparison import compare as compared
    from fccli.render.compare_view import print_comparison

    result = compared(a, b, price_model)
    if html is not None:
        from fccli.render.compare_page import write_comparison_page  # for --html only

        write_comparison_page(result, html)
    else:
        print_comparison(result, json_output=json_output)
    if exit_code and not result.same:
        raise typer.Exit(1)
