"""Reading a trace's MCP traffic back: `mcp-<server>.jsonl`, one JSON-RPC message a line.

Written by fccli/mcp/wiretap.py (its docstring has the line's layout). Each `tools/call` the
run made is paired here with its answer by JSON-RPC id, and with the model's call by the
call id both lines carry: `fc show`, `fc check`, the page and the OTel export read the chain
model call → tools/call → CallToolResult → tool result from `exchanges()`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from fccli.core.errors import FcError
from fccli.core.jsonio import READ_LIMIT, read_head
from fccli.trace.names import MCP_LOG


class McpLog(NamedTuple):
    server: str
    """The server's name in the trace (`mcp-<server>.jsonl`)."""
    file: str
    entries: list[dict[str, Any]]
    """Its lines as read; a line that is not a JSON object is left out."""

    def listed(self) -> list[str] | None:
        """The tool names its `tools/list` answers gave (None: it never answered one)."""
        asked = {
            _key(e.get("id")) for e in self.entries if message(e).get("method") == "tools/list"
        }
        names: list[str] | None = None
        for entry in self.entries:
            body = message(entry)
            if entry.get("dir") == "received" and _key(body.get("id")) in asked:
                tools = (body.get("result") or {}).get("tools")
                if isinstance(tools, list):
                    names = (names or []) + [
                        t["name"]
                        for t in tools
                        if isinstance(t, dict) and isinstance(t.get("name"), str)
                    ]
        return names


class Exchange(NamedTuple):
    """One `tools/call` and its answer, for the model's call `call`."""

    server: str
    file: str
    call: str
    step: int | None
    request: dict[str, Any]
    """The request's line (`n`, `at`, `message`...)."""
    response: dict[str, Any] | None
    """The answer's line; None when none came (a crash, a hang)."""

    @property
    def request_id(self) -> Any:
        return message(self.request).get("id")

    @property
    def tool(self) -> str | None:
        name = (message(self.request).get("params") or {}).get("name")
        return name if isinstance(name, str) else None

    def result(self) -> dict[str, Any] | None:
        """The CallToolResult, when the answer is one."""
        if self.response is None:
            return None
        result = message(self.response).get("result")
        return result if isinstance(result, dict) else None

    def error(self) -> dict[str, Any] | None:
        """The JSON-RPC error, when the answer is one."""
        if self.response is None:
            return None
        error = message(self.response).get("error")
        return error if isinstance(error, dict) else None

    @property
    def is_error(self) -> bool:
        """True for a result with `isError: true`, or a JSON-RPC error."""
        result = self.result()
        return self.error() is not None or (result is not None and result.get("isError") is True)


def message(entry: dict[str, Any]) -> dict[str, Any]:
    """Return the JSON-RPC message of a line: as kept, or parsed from its raw text."""
    body = entry.get("message")
    if body is None and isinstance(entry.get("raw"), str):
        try:
            body = json.loads(entry["raw"])
        except (ValueError, RecursionError):
            body = None
    return body if isinstance(body, dict) else {}


def _key(value: Any) -> str:
    return json.dumps(value)


def read_mcp_logs(path: Path) -> list[McpLog]:
    """Read every MCP log of the trace at `path`, in name order: of a log past READ_LIMIT bytes
    (a trace from elsewhere), its whole lines within the limit."""
    logs = []
    for file in sorted(path.glob("mcp-*.jsonl")):
        found = MCP_LOG.fullmatch(file.name)
        if found is None or not file.is_file():
            continue
        entries = []
        try:
            data, size = read_head(file, READ_LIMIT)
        except FcError:
            continue
        text = data.decode("utf-8", errors="replace")
        if size > READ_LIMIT:
            text = text[: text.rfind("\n") + 1]
        for line in text.splitlines():
            try:
                entry = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(entry, dict):
                entries.append(entry)
        logs.append(McpLog(found.group(1), file.name, entries))
    return logs


def exchanges(logs: list[McpLog]) -> dict[str, Exchange]:
    """Pair every tools/call with its answer; by the model's call id."""
    out: dict[str, Exchange] = {}
    for log in logs:
        answers = {
            _key(message(e).get("id")): e
            for e in log.entries
            if e.get("dir") == "received" and "id" in message(e)
        }
        for entry in log.entries:
            body = message(entry)
            call = entry.get("call")
            if entry.get("dir") != "sent" or body.get("method") != "tools/call":
                continue
            if not isinstance(call, str):
                continue
            step = entry.get("step")
            out[call] = Exchange(
                log.server,
                log.file,
                call,
                step if isinstance(step, int) else None,
                entry,
                answers.get(_key(body.get("id"))),
            )
    return out
