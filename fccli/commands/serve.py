"""`fc serve TRACE…`: a local server that answers as the provider recorded in the traces."""

from __future__ import annotations

from pathlib import Path

import typer

from fccli.commands.limits import megabytes
from fccli.i18n import N_
from fccli.serve.start import serve_traces

HELP = N_(
    "Answer each request with the recorded response of the step it equals (volatile fields "
    "normalised; docs/reference/serve.md); a request matching no step gets HTTP 400 in "
    "the provider's error shape saying which step came closest and what differs. Ctrl-C "
    "stops."
)
RANK = 120  # its place in `fc --help`


def serve(
    traces: list[Path] = typer.Argument(
        ...,
        metavar="TRACE…",
        help=N_("Trace directories (made by fc run or fc proxy) to play back."),
    ),
    port: int = typer.Option(8787, "--port", min=0, max=65535, help=N_("Port (0: any free one).")),
    host: str = typer.Option(
        "127.0.0.1",
        "--host",
        help=N_(
            "Address to listen on. Anything but this machine (127.0.0.1, ::1, localhost) makes "
            "the traces readable by anyone who can reach it, and fc warns."
        ),
    ),
    allow_origin: list[str] = typer.Option(
        [],
        "--allow-origin",
        metavar="ORIGIN",
        help=N_(
            "A web page allowed to ask (e.g. http://localhost:3000); repeatable. Requests a "
            "browser sends with another Origin get HTTP 403."
        ),
    ),
    max_response_mb: float = typer.Option(
        64.0,
        "--max-response-mb",
        min=0.01,
        help=N_("The largest response file played; a larger one stops fc serve at start."),
    ),
) -> None:
    serve_traces(traces, host, port, say, allow_origin, megabytes(max_response_mb))


def say(line: str) -> None:
    typer.echo(line)
