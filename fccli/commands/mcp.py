"""`fc mcp demo`: MCP servers fc brings along."""

from __future__ import annotations

from pathlib import Path

import typer

from fccli.i18n import N_

HELP = N_(
    "MCP tool servers: `fc mcp demo` serves the demo tools over stdio (fc run --mcp); "
    "`fc mcp record -- COMMAND` records a client's traffic with a server."
)
RANK = 125  # its place in `fc --help`


mcp = typer.Typer(
    help=HELP,
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@mcp.command(
    "demo",
    help=N_(
        "Serve the demo MCP server over stdio: get_weather, get_alerts (always fails) and the "
        'resource weather://cities. For `fc run --mcp "fc mcp demo"`. Needs the mcp extra.'
    ),
)
def demo() -> None:
    from fccli.mcp.errors import require_sdk

    require_sdk()
    from fccli.mcp.demo import serve

    serve()


@mcp.command(
    "record",
    help=N_(
        "Stand between an MCP client and a stdio server: point the client at `fc mcp record -- "
        "COMMAND` instead of COMMAND. fc starts the server, relays every line both ways "
        "unchanged, and keeps them as a trace (fc show reads it)."
    ),
    context_settings={"allow_interspersed_args": False},
)
def record(
    command: list[str] = typer.Argument(
        None, metavar="-- COMMAND…", help=N_("The server's command line.")
    ),
    out: Path | None = typer.Option(
        None, "--out", "-o", help=N_("Trace directory (default traces/<time>-mcp-record).")
    ),
    force: bool = typer.Option(False, "--force", help=N_("Replace a non-empty --out trace.")),
    to: str | None = typer.Option(
        None,
        "--to",
        metavar="URL",
        help=N_(
            "Record a streamable HTTP server instead: fc listens on 127.0.0.1:--port and relays "
            "every request to URL's server, unchanged, until Ctrl-C."
        ),
    ),
    port: int = typer.Option(
        8765, "--port", min=0, max=65535, help=N_("The port --to listens on.")
    ),
) -> None:
    from fccli.i18n import _

    if to is not None:
        from fccli.mcp.record_http import HttpRecording
        from fccli.serve.launch import bind, run

        recording = HttpRecording(to, out, force=force and out is not None)
        bound = bind("127.0.0.1", port)
        typer.echo(
            _(
                "recording {url} at {local} into {trace}; Ctrl-C ends",
                url=recording.spec.shown(),
                local=bound.url,
                trace=str(recording.trace.path),
            ),
            err=True,
        )
        run(recording.app, bound, on_close=recording.close)
        return
    from fccli.mcp.record import record as relay

    path = relay(command or [], out, force=force and out is not None)
    typer.echo(_("trace: {path}", path=str(path)), err=True)
