"""`fc proxy --to PROVIDER|URL`: trace any agent's requests on their way to the provider."""

from __future__ import annotations

from pathlib import Path

import typer

from fccli.commands.limits import megabytes
from fccli.i18n import N_

HELP = N_("Forward an agent's requests to a provider unchanged, recording each as a trace step.")
RANK = 110  # its place in `fc --help`


def proxy(
    to: str = typer.Option(
        ...,
        "--to",
        help=N_(
            "Where to forward: deepseek, openai, anthropic (any provider fc knows, every format "
            "it speaks; a format's name, e.g. ollama-native, for that one only), or a URL "
            "(an OpenAI-compatible server, e.g. http://127.0.0.1:8000)."
        ),
    ),
    port: int = typer.Option(
        8787, "--port", min=0, max=65535, help=N_("Port to listen on (0: any).")
    ),
    host: str = typer.Option(
        "127.0.0.1",
        "--host",
        help=N_(
            "Address to listen on. Another than this machine's (127.0.0.1, ::1, localhost) "
            "lets anyone who reaches it spend the key your agent sends; fc warns."
        ),
    ),
    out: Path | None = typer.Option(
        None,
        "--out",
        "-o",
        help=N_("Where traces go, one directory each (default traces/proxy-<time>)."),
    ),
    base_url: str | None = typer.Option(
        None,
        "--base-url",
        help=N_(
            "With --to NAME: where that provider is, if not its own address (a local stand-in)."
        ),
    ),
    strict_check: bool = typer.Option(
        False,
        "--strict-check",
        help=N_(
            "Answer HTTP 400 (in the provider's shape) instead of forwarding a request in which "
            "fc check finds an error. Default: warn and forward."
        ),
    ),
    max_record_mb: float = typer.Option(
        16.0,
        "--max-record-mb",
        min=0.001,
        help=N_(
            "A request or answer body above this is forwarded and not recorded (said on the terminal)."
        ),
    ),
    max_request_mb: float = typer.Option(
        64.0,
        "--max-request-mb",
        min=0.001,
        help=N_(
            "A request body above this gets HTTP 413 and is not forwarded (said on the terminal)."
        ),
    ),
    allow_origin: list[str] = typer.Option(
        [],
        "--allow-origin",
        metavar="ORIGIN",
        help=N_(
            "A web page allowed to send through the proxy (e.g. http://localhost:3000); "
            "repeatable. Requests a browser sends with another Origin get HTTP 403."
        ),
    ),
    timeout: float = typer.Option(
        600.0,
        "--timeout",
        min=1.0,
        help=N_(
            "Seconds the provider's answer may take in all, as fc run's --timeout (a trickle "
            "counts); past it the agent gets a 502, or its stream cut, and the trace says so."
        ),
    ),
) -> None:
    given = {
        "to": to,
        "port": port,
        "host": host,
        "out": None if out is None else str(out),
        "base_url": base_url,
        "strict_check": strict_check,
        "max_record_bytes": megabytes(max_record_mb),
        "max_request_bytes": megabytes(max_request_mb),
        "allow_origins": list(allow_origin),
        "timeout": timeout,
    }
    # served by a process without typer and click where it can be (proxy_lean.py), else here
    from fccli.commands.proxy_lean import hand_over, serve

    hand_over(given)
    serve(given)
