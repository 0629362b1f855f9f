"""`fc providers`: the providers fc knows, their endpoints and keys, and what each supports."""

from __future__ import annotations

import typer

from fccli.i18n import N_

HELP = N_(
    "List the providers: wire format, default model, base URL, key variable (set or not), "
    "capabilities."
)
RANK = 20  # its place in `fc --help`


def providers(
    json_output: bool = typer.Option(False, "--json", help=N_("Print the table as JSON.")),
) -> None:
    from fccli.providers.registry import describe_providers

    rows = describe_providers()
    if json_output:
        from fccli.core.jsonio import dumps

        typer.echo(dumps(rows), nl=False)
        return
    from fccli.render.console import make_console
    from fccli.render.providers_view import print_providers

    print_providers(make_console(), rows)
