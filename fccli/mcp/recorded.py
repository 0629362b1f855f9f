"""The servers of a trace as `fc replay` offers them without starting them: each tool as its
`tools/list` answer described it, each call answered with the `CallToolResult` the trace kept
for the same tool and arguments (`fc replay --live-mcp` calls the servers again instead).

No SDK needed: everything comes from the trace's `mcp-<server>.jsonl`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fccli.core.models import ToolUseBlock
from fccli.i18n import _
from fccli.mcp.client import answer_from
from fccli.mcp.wiretap import compact
from fccli.tools.json_tools import Answer, SchemaTool
from fccli.tools.registry import Offered, ToolSet
from fccli.trace.mcp_log import Exchange, McpLog, exchanges, message


class RecordedTool(SchemaTool):
    def __init__(self, server: str, listed: dict[str, Any], calls: list[Exchange], where: Path):
        self.name = str(listed.get("name"))
        description = listed.get("description")
        self.description = description if isinstance(description, str) else ""
        schema = listed.get("inputSchema")
        self.input_schema = schema if isinstance(schema, dict) else {"type": "object"}
        self.server = server
        self.calls = calls
        self.where = where

    def answer(self, call: ToolUseBlock, arguments: dict[str, Any]) -> Answer:
        wanted = compact(arguments)
        for exchange in self.calls:
            params = message(exchange.request).get("params") or {}
            if compact(params.get("arguments") or {}) != wanted:
                continue
            result, error = exchange.result(), exchange.error()
            n = (exchange.response or exchange.request).get("n")
            served = {"server": self.server, "recorded": f"{self.where / exchange.file} #{n}"}
            if result is not None:
                return answer_from(self.name, result)._replace(served=served)
            said = (
                _(
                    "{tool}: the MCP server answered JSON-RPC error {code}: {message}",
                    tool=self.name,
                    code=error.get("code"),
                    message=str(error.get("message")),
                )
                if error is not None
                else _(
                    "{tool} could not run: its MCP server has gone (connection closed)",
                    tool=self.name,
                )
            )
            return Answer(said, True, "mcp_error", served)
        return Answer(
            _(
                "{tool}: the trace holds no result of server {server} for these arguments; "
                "replay with --live-mcp to call the server",
                tool=self.name,
                server=self.server,
            ),
            True,
            "no_implementation",
            {"server": self.server},
        )


def recorded_tools(trace: Path, logs: list[McpLog], base: ToolSet) -> ToolSet:
    """Offer the tools the trace's servers listed, answered from the trace, beside `base`."""
    served = list(exchanges(logs).values())
    offered: list[Offered] = list(base.tools.values())
    for log in logs:
        listed: list[dict[str, Any]] = []
        for entry in log.entries:
            tools = (message(entry).get("result") or {}).get("tools")
            if entry.get("dir") == "received" and isinstance(tools, list):
                listed += [
                    t for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)
                ]
        for tool in listed:
            if tool["name"] in base.tools:
                continue
            calls = [e for e in served if e.server == log.server and e.tool == tool["name"]]
            offered.append(RecordedTool(log.server, tool, calls, trace))
    return ToolSet(_("{set} + recorded MCP results", set=base.name), offered)
