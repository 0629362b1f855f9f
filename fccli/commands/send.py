"""`fc send FILE`: post a wire-format request file as it is; print or save the raw response."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from fccli.commands.help_format import help_text
from fccli.commands.limits import MAX_RESPONSE_MB, TIMEOUT, megabytes
from fccli.core.errors import UsageError
from fccli.i18n import N_, Msg, _, localized
from fccli.render.linebreak import terminal_width, wrapped
from fccli.send.output import check_writable, end_line, save, shown_on
from fccli.wire.listing import said_formats

HELP = N_(
    "Post FILE's bytes exactly, and print the raw response body (a stream as it arrives, "
    "when the file asks for one). HTTP errors: the provider's sentence on stderr, exit 3."
)
RANK = 100  # its place in `fc --help`

# Shared with `fc curl`, which reads the same file and finds the same provider.
FILE = typer.Argument(
    ..., metavar="FILE", help=N_("A wire-format request body, e.g. TRACE/2-request.deepseek.json.")
)
PROVIDER = typer.Option(
    None,
    "--provider",
    "-p",
    help=help_text(
        Msg(
            "Where to send it (default: the provider of the file's format, {formats}; a responses "
            "file goes to openai; another provider of the same format family, e.g. ollama; demo "
            "answers offline, fc send only).",
            formats=said_formats(internal=False),
        )
    ),
)
BASE_URL = typer.Option(
    None, "--base-url", help=N_("Endpoint root (default: $FC_BASE_URL, else the provider's).")
)


def send(
    file: str = FILE,
    provider: str | None = PROVIDER,
    base_url: str | None = BASE_URL,
    out: Path | None = typer.Option(
        None, "--out", "-o", help=N_("Save the response body to this file instead of printing it.")
    ),
    retries: int = typer.Option(
        3, "--retries", min=0, max=10, help=N_("Retries on 429, 5xx and connection errors.")
    ),
    timeout: float = TIMEOUT,
    max_response_mb: float = MAX_RESPONSE_MB,
) -> None:
    if out is not None and out.resolve() == Path(file).resolve():
        raise UsageError(
            Msg("-o {out} is the request being sent; save the response elsewhere", out=str(out))
        )
    # imported as it runs: `fc send --help` stays light (start-up)
    from fccli.send.post import provider_for, read_request_file, send_file, with_provider_model

    request = read_request_file(file)
    name = provider_for(request, provider)
    request, swapped = with_provider_model(request, name)
    if swapped is not None:
        said = _("fc: note: ") + localized(swapped)
        typer.echo(wrapped(said, terminal_width(sys.stderr), 2), err=True)
    if out is not None:
        check_writable(out)  # before the call: a response sent for nothing is billed anyway

    show = shown_on(sys.stdout)
    pieces: list[bytes] = []
    try:
        body = send_file(
            request,
            name,
            base_url=base_url,
            retries=retries,
            timeout=timeout,
            max_response_bytes=megabytes(max_response_mb),
            on_bytes=show if out is None else pieces.append,
        )
    finally:
        if out is not None and pieces:  # a stream cut short: what came is kept
            save(out, b"".join(pieces))
    if out is not None:
        if not request.stream:
            save(out, body)
        typer.echo(
            _("fc: wrote the response ({n} bytes) to {out}", n=len(body), out=str(out)), err=True
        )
        return
    if not request.stream:
        show(body)
    end_line(sys.stdout, body)
