"""`fc mcp demo`: MCP servers fc brings along."""

from __future__ import annotations

import typer

from fccli.i18n import N_

HELP = N_("MCP tool servers: `fc mcp demo` serves the demo tools over stdio (fc run --mcp).")
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
