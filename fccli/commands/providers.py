"""`fc providers`: the providers fc knows, their endpoints and keys, and what each supports."""

from __future__ import annotations

import typer

from fccli.core.jsonio import dumps
from fccli.i18n import N_
from fccli.providers.registry import describe_providers
from fccli.render.console import make_console
from fccli.render.providers_view import print_providers

HELP = N_(
    "List the providers: wire format, default model, base URL, key variable (set or not), "
    "capabilities."
)
RANK = 20  # its place in `fc --help`


def providers(
    json_output: bool = typer.Option(False, "--json", help=N_("Print the table as JSON.")),
) -> None:
    rows = describe_providers()
    if json_output:
        typer.echo(dumps(rows), nl=False)
        return

    print_providers(make_console(), rows)
