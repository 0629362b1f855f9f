"""`fc curl FILE`: the curl command that sends a wire-format request file to its provider."""

from __future__ import annotations

import sys

import typer

from fccli.commands.send import BASE_URL, FILE, PROVIDER
from fccli.i18n import N_, _, localized
from fccli.render.linebreak import terminal_width, wrapped

HELP = N_(
    'Print a curl command that posts FILE as it is, with the key as "$ENV_VAR", never its value.'
)
RANK = 90  # its place in `fc --help`


def curl(
    file: str = FILE,
    provider: str | None = PROVIDER,
    base_url: str | None = BASE_URL,
) -> None:
    # imported as it runs: `fc curl --help` stays light (start-up)
    from fccli.send.curl import curl_command
    from fccli.send.post import provider_for, read_request_file

    file_ = read_request_file(file)
    command = curl_command(file_, provider_for(file_, provider), base_url)
    for note in command.notes:  # on a terminal, broken where the language allows
        said = _("fc: note: ") + localized(note)
        typer.echo(wrapped(said, terminal_width(sys.stderr), 2), err=True)
    typer.echo(command.text)
