"""`fc tools`: the tool definitions exactly as `fc run` would send them."""

from __future__ import annotations

from typing import Any

import typer

from fccli.core.errors import FindingsError, UsageError
from fccli.core.jsonio import dumps
from fccli.core.models import Request, ToolSpec
from fccli.i18n import N_, Msg
from fccli.providers.registry import KNOWN, wire_format_of
from fccli.tools.loader import load_toolset
from fccli.tools.strict import StrictProblem, strict_specs
from fccli.wire.registry import INTERNAL, format_names, get_format

HELP = N_("Print the tool definitions as they would be sent (the JSON the model reads).")
RANK = 30  # its place in `fc --help`


def tools(
    tools: str = typer.Option(
        "weather",
        "--tools",
        help=N_("A built-in tool set by name, or a path to a .py file of tools."),
    ),
    wire_format: str | None = typer.Option(
        None,
        "--format",
        "-f",
        help=N_("internal, or a wire format (fc providers lists them); default: the demo model's."),
    ),
    provider: str | None = typer.Option(
        None,
        "--provider",
        "-p",
        help=N_("Show them in this provider's format (overrides --format)."),
    ),
    strict: bool = typer.Option(
        False, "--strict", help=N_("Show the strict-mode form, and what strict mode refuses.")
    ),
    mcp: list[str] = typer.Option(
        [],
        "--mcp",
        metavar="SERVER",
        help=N_(
            "The tools of an MCP server (a command line or an http(s):// URL, as fc run --mcp "
            "takes it), instead of the weather set. Repeatable. Needs the mcp extra."
        ),
    ),
) -> None:
    specs = _mcp_specs(tools, mcp) if mcp else load_toolset(tools).specs()
    problems: list[StrictProblem] = []
    if strict:
        specs, problems = strict_specs(specs)

    if provider is not None:
        if provider not in KNOWN:
            raise UsageError(
                Msg("unknown provider {provider!r}", provider=provider),
                hint=Msg("known providers: {providers}", providers=", ".join(KNOWN)),
            )
        wire_format = wire_format_of(provider)
    wire_format = wire_format or wire_format_of("demo")
    if wire_format not in format_names():
        raise UsageError(
            Msg("unknown format {format!r}", format=wire_format),
            hint=Msg("formats: {formats}", formats=", ".join(format_names())),
        )
    if wire_format == INTERNAL:
        shown = [s.to_json_dict() for s in specs]
    else:
        fmt = get_format(wire_format)
        found: Any = fmt.to_wire_request(Request(model="-", messages=[], tools=specs))
        for key in fmt.places.tools.removeprefix("$.").split("."):  # where the format keeps them
            found = found.get(key) if isinstance(found, dict) else None
        shown = found if isinstance(found, list) else []
    typer.echo(dumps(shown), nl=False)
    if problems:
        said = problems[0].said()
        for problem in problems[1:]:
            # i18n: two messages said one after the other
            said = Msg("{first}; {then}", first=said, then=problem.said())
        raise FindingsError(
            Msg("not ready for strict mode: {problems}", problems=said),
            hint=Msg(
                "`fc run --strict` stops before sending these; remove the keywords to use "
                "strict mode"
            ),
        )


def _mcp_specs(tools: str, servers: list[str]) -> list[ToolSpec]:
    """List the tools `servers` offer (beside a --tools file's), as `fc run --mcp` would."""
    from fccli.mcp.errors import require_sdk

    require_sdk()
    from fccli.mcp.tools import with_mcp
    from fccli.tools.registry import ToolSet

    base = ToolSet("none", []) if tools == "weather" else load_toolset(tools)
    served, client = with_mcp(base, servers, timeout=None, max_bytes=64 << 20, step_of=lambda: None)
    client.close()
    return served.specs()
