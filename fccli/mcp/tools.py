"""The servers' tools as a run offers them: one tool per `tools/list` entry, run by `tools/call`.

An MCP tool is known by its JSON Schema (`inputSchema`), as a JSON tool is: the model's
arguments are validated against it before anything goes to the server (tools/execute.py),
and the provider's format is made from it as from any tool (`parameters`, `input_schema`,
`functionDeclarations`). A name two servers share is refused, naming both: a run never
shadows one server's tool with another's.
"""

from __future__ import annotations

from typing import Any

from fccli.core.errors import UsageError
from fccli.core.models import ToolUseBlock
from fccli.i18n import Msg
from fccli.mcp.client import CONNECT_TIMEOUT, Listed, McpClient
from fccli.mcp.servers import server_spec
from fccli.tools.json_tools import Answer, SchemaTool
from fccli.tools.registry import TOOL_NAME, Offered, ToolSet


class McpTool(SchemaTool):
    def __init__(self, listed: Listed, client: McpClient, timeout: float | None) -> None:
        self.name = listed.name
        self.description = listed.description
        self.input_schema = listed.input_schema
        self.server = listed.server
        self.client = client
        self.timeout = timeout

    def answer(self, call: ToolUseBlock, arguments: dict[str, Any]) -> Answer:
        answer, served = self.client.call(self.server, self.name, call, arguments, self.timeout)
        return answer._replace(served=served)


def with_mcp(
    tools: ToolSet,
    servers: list[str],
    *,
    timeout: float | None,
    max_bytes: int,
    step_of: Any,
    connect_timeout: float = CONNECT_TIMEOUT,
) -> tuple[ToolSet, McpClient]:
    """Start `servers` and add their tools to `tools`; the client stops them on `close()`."""
    client = McpClient(
        [server_spec(s) for s in servers],
        max_bytes=max_bytes,
        step_of=step_of,
        connect_timeout=connect_timeout,
    )
    listed = client.start()
    try:
        offered: list[Offered] = list(tools.tools.values())
        owners: dict[str, str] = {name: tools.name for name in tools.names()}
        for item in listed:
            if not TOOL_NAME.fullmatch(item.name):
                raise UsageError(
                    Msg(
                        "MCP server {server}: its tool name {name!r} would be refused by "
                        "providers (1 to 64 of a-z A-Z 0-9 _ -)",
                        server=item.server,
                        name=item.name,
                    )
                )
            if item.name in owners:
                raise UsageError(
                    Msg(
                        "two tools are named {name!r}: one of {first}, one of MCP server "
                        "{second}; fc will not hide one behind the other",
                        name=item.name,
                        first=owners[item.name],
                        second=item.server,
                    ),
                    hint=Msg("drop one of them (--mcp, or --tools none)"),
                )
            owners[item.name] = Msg("MCP server {server}", server=item.server)
            offered.append(McpTool(item, client, timeout))
        names = ", ".join(s.label for s in client.servers)
        return ToolSet(f"{tools.name} + mcp: {names}", offered), client
    except BaseException:
        client.close()
        raise
