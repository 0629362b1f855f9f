"""Mistakes of a harness that runs tools on MCP servers, seen in a trace's JSON-RPC
(`mcp-<server>.jsonl`, fccli/trace/mcp_log.py) beside its requests.

FC135: the server answered `isError: true` (or a JSON-RPC error), and the tool result handed
back to the model says success: the model believes a failure worked.

FC136: a `tools/call` of a tool the server never listed in `tools/list`: the harness offered
the model a tool from somewhere else (another server, a stale list) and sent the call here.
"""

from __future__ import annotations

from pathlib import Path

from fccli.check.findings import Finding
from fccli.i18n import Msg
from fccli.trace.mcp_log import McpLog, exchanges, message
from fccli.trace.reader import Trace, read_trace


def mcp_findings(root: Path, logs: list[McpLog]) -> list[Finding]:
    """Check the MCP traffic of the trace at `root` against what the model was handed."""
    return _unlisted(logs) + _error_as_success(read_trace(root), logs)


def _unlisted(logs: list[McpLog]) -> list[Finding]:
    out = []
    for log in logs:
        listed = log.listed()
        if listed is None:
            continue
        for k, entry in enumerate(log.entries):
            body = message(entry)
            name = (body.get("params") or {}).get("name")
            if entry.get("dir") != "sent" or body.get("method") != "tools/call" or name in listed:
                continue
            out.append(
                Finding(
                    "FC136",
                    "error",
                    Msg(
                        "a tools/call of {name!r}, which server {server} never listed "
                        "(its tools: {tools})",
                        name=str(name),
                        server=log.server,
                        tools=", ".join(listed) or "none",
                    ),
                    f"$[{k}].message.params.name",
                ).in_file(log.file)
            )
    return out


def _error_as_success(trace: Trace, logs: list[McpLog]) -> list[Finding]:
    out = []
    served = exchanges(logs)
    for step in trace.steps:
        if step.request is None:
            continue
        for i, m in enumerate(step.request.messages):
            for j, block in enumerate(m.content):
                exchange = served.get(getattr(block, "tool_use_id", None) or "")
                if exchange is None or not exchange.is_error or getattr(block, "is_error", True):
                    continue
                out.append(
                    Finding(
                        "FC135",
                        "error",
                        Msg(
                            "the result of {id} is handed back as a success, but server {server} "
                            "answered it as an error ({file} #{n}): the model will believe the "
                            "call worked",
                            id=exchange.call,
                            server=exchange.server,
                            file=exchange.file,
                            n=(exchange.response or {}).get("n"),
                        ),
                        f"$.messages[{i}].content[{j}]",
                    ).in_file(step.files["request"].name if "request" in step.files else "")
                )
                served.pop(exchange.call)
    return out
