"""fc's MCP client: start the servers, list their tools, run the model's calls through them.

The engine is synchronous and runs each call in a thread of its own; the SDK is async. So the
servers live on one event loop in a thread of their own (an anyio blocking portal), each as a
`ClientSession` on a transport that keeps every message (stdio.py, http.py): `initialize`,
`notifications/initialized`, `tools/list` when they start, then one `tools/call` per call.
"""

from __future__ import annotations

import contextlib
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from fccli.core.controls import escape_controls
from fccli.core.errors import FcError, ProviderError, UsageError
from fccli.core.models import ToolUseBlock
from fccli.i18n import Msg, _
from fccli.mcp.servers import ServerSpec, label_for
from fccli.mcp.wiretap import Wiretap, mask_parts
from fccli.tools.json_tools import Answer

CONNECT_TIMEOUT = 30.0
"""Seconds a server has to start and answer `initialize` (and each `tools/list`) by default:
`--mcp-timeout`."""
MAX_PAGES = 100
"""Pages of `tools/list` fc asks for at most: a server whose every page names a next one would
be asked for ever."""
STDERR_TAIL = 600
"""How much of a server's stderr a failure to start quotes."""


class Listed(NamedTuple):
    """One tool as a server's `tools/list` gave it."""

    server: str
    name: str
    description: str
    input_schema: dict[str, Any]


class Server:
    """One connected server: its session, its wiretap, what its handshake said."""

    def __init__(self, spec: ServerSpec, tap: Wiretap, stderr: Path) -> None:
        self.spec = spec
        self.tap = tap
        self.stderr = stderr
        self.label = ""
        self.session: Any = None
        self.protocol_version: str | None = None
        self.server_info: dict[str, Any] | None = None
        self.tools: list[Listed] = []

    def record(self) -> dict[str, Any]:
        """Describe the server for the manifest (its secrets masked)."""
        return {
            "name": self.label,
            "transport": self.spec.transport,
            "server": self.spec.shown(),
            "protocol_version": self.protocol_version,
            "server_info": self.server_info,
            "session_id": self.tap.session_id,
            "tools": [t.name for t in self.tools],
            "log": f"mcp-{self.label}.jsonl",
            "stderr": f"mcp-{self.label}.stderr" if self.spec.url is None else None,
        }


class McpClient:
    """The servers of one run, on their own event loop; `close()` stops them."""

    def __init__(
        self,
        specs: list[ServerSpec],
        *,
        max_bytes: int,
        step_of: Callable[[], int | None],
        connect_timeout: float = CONNECT_TIMEOUT,
    ) -> None:
        from anyio.from_thread import start_blocking_portal

        self.max_bytes = max_bytes
        self.connect_timeout = connect_timeout
        self._scratch = Path(tempfile.mkdtemp(prefix="fc-mcp-"))
        self.servers = [
            Server(
                spec,
                Wiretap(spec.secrets, step_of),
                self._scratch / f"{i}.stderr",
            )
            for i, spec in enumerate(specs)
        ]
        self._portal_cm: Any = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._closing: Any = None
        self._held: Any = None
        self._trace: Path | None = None

    def start(self) -> list[Listed]:
        """Connect every server and list its tools; a server that cannot is a clear error."""
        try:
            self._held, _started = self._portal.start_task(self._hold)
        except BaseException as e:
            self.close()
            error = _unwrapped(e)  # out of the task group's exception group
            if isinstance(error, (FcError, KeyboardInterrupt)):
                raise error from None
            raise ProviderError(
                Msg("an MCP server failed: {error}", error=_said(e, self.connect_timeout))
            ) from None
        taken: set[str] = set()
        for server in self.servers:
            name = (server.server_info or {}).get("name")
            server.label = label_for(server.spec, name if isinstance(name, str) else None, taken)
            server.tools = [t._replace(server=server.label) for t in server.tools]
        return [tool for server in self.servers for tool in server.tools]

    async def _hold(self, task_status: Any) -> None:
        """Open every server's session, list its tools, and keep them open until `close()`."""
        import anyio

        self._closing = anyio.Event()
        async with contextlib.AsyncExitStack() as stack:
            for server in self.servers:
                try:
                    await self._connect(stack, server)
                except BaseException as e:
                    raise self._failed_start(server, e) from None
            task_status.started()
            await self._closing.wait()

    async def _connect(self, stack: contextlib.AsyncExitStack, server: Server) -> None:
        waiting = _Waiting(server.spec.shown(), self.connect_timeout)
        try:
            await self._handshake(stack, server)
        finally:
            waiting.done()

    async def _handshake(self, stack: contextlib.AsyncExitStack, server: Server) -> None:
        """Start the server, `initialize`, and list its tools."""
        from fccli import __version__

        try:
            read, write = await stack.enter_async_context(self._transport(stack, server))
        except OSError as e:
            if server.spec.url is not None:
                raise
            raise UsageError(
                Msg(
                    "--mcp {server!r}: cannot start it: {error}",
                    server=server.spec.shown(),
                    error=e.strerror or str(e),
                )
            ) from None
        # The SDK is imported once the server's process is on its way: both take a while.
        from mcp.client.session import ClientSession
        from mcp_types import Implementation

        session = await stack.enter_async_context(
            ClientSession(
                read,
                write,
                read_timeout_seconds=self.connect_timeout,
                client_info=Implementation(name="fc", version=__version__),
            )
        )
        result = await session.initialize()
        server.protocol_version = result.protocol_version
        server.server_info = result.server_info.model_dump(mode="json", exclude_none=True)
        listed = []
        cursor = None
        asked: set[str] = set()
        while True:
            from mcp_types import PaginatedRequestParams

            page = await session.list_tools(
                params=None if cursor is None else PaginatedRequestParams(cursor=cursor)
            )
            listed += page.tools
            cursor = page.next_cursor
            if not cursor:
                break
            if cursor in asked or len(asked) >= MAX_PAGES:
                raise ProviderError(
                    Msg(
                        "--mcp {server!r}: its tools/list did not end after {n} pages (each "
                        "names a next one); fc stopped asking",
                        server=server.spec.shown(),
                        n=len(asked) + 1,
                    )
                )
            asked.add(cursor)
        server.tools = [
            Listed("", t.name, t.description or "", dict(t.input_schema)) for t in listed
        ]
        server.session = session

    def _transport(
        self, stack: contextlib.AsyncExitStack, server: Server
    ) -> contextlib.AbstractAsyncContextManager[Any]:
        """Make the server's transport: its process over stdio, or streamable HTTP."""
        if server.spec.url is not None:
            from fccli.mcp.http import http_transport

            return http_transport(server.spec.url, server.tap, self.max_bytes, self.connect_timeout)
        from fccli.mcp.stdio import stdio_transport

        stderr = stack.enter_context(server.stderr.open("wb"))
        return stdio_transport(server.spec.argv, server.tap, stderr, self.max_bytes)

    def _failed_start(self, server: Server, error: BaseException) -> FcError:
        """Say why a server could not start: its error, and the end of its stderr."""
        error = _unwrapped(error)
        if isinstance(error, FcError):
            return error
        tail = ""
        with contextlib.suppress(OSError):
            tail = server.stderr.read_bytes()[-STDERR_TAIL:].decode("utf-8", errors="replace")
        tail = server.spec.secrets.text(tail) if server.spec.secrets else tail
        said = _said(error, self.connect_timeout)
        return ProviderError(
            Msg(
                "--mcp {server!r} did not start as an MCP server: {error}",
                server=server.spec.shown(),
                error=said,
            ),
            hint=Msg("its stderr ends: {tail}", tail=tail.strip()) if tail.strip() else None,
        )

    def attach(self, trace: Path) -> None:
        """Write each server's traffic so far into `trace`, and the rest as it comes."""
        self._trace = trace
        for server in self.servers:
            server.tap.attach(trace / f"mcp-{server.label}.jsonl")

    def call(
        self,
        label: str,
        name: str,
        call: ToolUseBlock,
        arguments: dict[str, Any],
        timeout: float | None,
    ) -> tuple[Answer, dict[str, Any]]:
        """Run `call` through `tools/call` of server `label`; return the answer and what the
        manifest keeps of it."""
        server = next(s for s in self.servers if s.label == label)
        server.tap.expect_call(call.id, name, arguments)
        result = None
        try:
            result = self._portal.call(self._call, server, name, arguments, timeout)
        except BaseException as e:
            answer = _failed_call(name, _unwrapped(e))
        else:
            dumped = result.model_dump(mode="json", by_alias=True, exclude_none=True)
            mask_parts(server.spec.secrets, dumped)  # a key cut across two parts: joined below
            answer = answer_from(name, dumped)
        if server.spec.secrets:  # a server may echo its own token: never to the model or the trace
            answer = answer._replace(content=server.spec.secrets.text(answer.content))
        served: dict[str, Any] = {
            "server": label,
            "request_id": server.tap.request_ids.get(call.id),
        }
        if getattr(result, "structured_content", None) is not None:
            served["structured_content"] = True
        return answer, served

    async def _call(
        self, server: Server, name: str, arguments: dict[str, Any], timeout: float | None
    ) -> Any:
        return await server.session.call_tool(name, arguments, read_timeout_seconds=timeout)

    def records(self) -> list[dict[str, Any]]:
        return [server.record() for server in self.servers]

    def close(self) -> None:
        """Stop every server (stdin closed, then signals), keep their stderr in the trace."""
        if self._portal_cm is None:
            return
        try:
            if self._held is not None and self._closing is not None:
                self._portal.call(self._closing.set)
                with contextlib.suppress(BaseException):
                    self._held.result(timeout=10)
            else:  # stopped while still connecting (a signal): cancel, never wait for it
                with contextlib.suppress(BaseException):
                    self._portal.call(self._portal.stop, True)
        finally:
            with contextlib.suppress(BaseException):
                self._portal_cm.__exit__(None, None, None)
            self._portal_cm = None
            self._keep_stderr()

    def _keep_stderr(self) -> None:
        for server in self.servers:
            if self._trace is not None and server.spec.url is None and server.label:
                with contextlib.suppress(OSError):
                    data = server.stderr.read_bytes()
                    if server.spec.secrets:
                        data = server.spec.secrets.raw(data)
                    (self._trace / f"mcp-{server.label}.stderr").write_bytes(data)
            with contextlib.suppress(OSError):
                server.stderr.unlink()
        with contextlib.suppress(OSError):
            self._scratch.rmdir()


class _Waiting:
    """Say at once on stderr that fc waits for a server's answer to `initialize`: a server that
    never answers is otherwise a silent wait. On a terminal the line is erased once it answers."""

    def __init__(self, server: str, seconds: float) -> None:
        self.terminal = False
        line = _(
            "fc: waiting for MCP server {server!r} to answer initialize (at most {seconds} s: "
            "--mcp-timeout)",
            server=server,
            seconds=format(seconds, "g"),
        )
        with contextlib.suppress(OSError, ValueError, AttributeError):  # closed, or no stderr
            self.terminal = sys.stderr.isatty()
            sys.stderr.write(escape_controls(line) + ("" if self.terminal else "\n"))
            sys.stderr.flush()

    def done(self) -> None:
        if self.terminal:
            with contextlib.suppress(OSError, ValueError, AttributeError):
                sys.stderr.write("\r\x1b[2K")
                sys.stderr.flush()


def answer_from(name: str, result: dict[str, Any]) -> Answer:
    """Make the text handed back of a CallToolResult (as JSON): its text parts, in order; what
    the model cannot be handed as text (an image, audio) is named in its place, a resource by
    its text or its URI; `structuredContent` only when there is no text part."""
    parts: list[str] = []
    blocks = result.get("content")
    for block in blocks if isinstance(blocks, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif kind in ("image", "audio"):
            data = block.get("data")
            parts.append(
                _(
                    "[{kind} {mime}, {size} characters of base64: kept in the trace, not handed "
                    "to the model]",
                    kind=str(kind),
                    mime=str(block.get("mimeType")),
                    size=len(data) if isinstance(data, str) else 0,
                )
            )
        elif kind == "resource":
            inner = block.get("resource")
            inner = inner if isinstance(inner, dict) else {}
            text = inner.get("text")
            parts.append(
                text if isinstance(text, str) else _("[resource {uri}]", uri=str(inner.get("uri")))
            )
        elif kind == "resource_link":
            parts.append(_("[resource {uri}]", uri=str(block.get("uri"))))
    structured = result.get("structuredContent")
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False))
    text = "\n".join(parts)
    if result.get("isError") is True:
        return Answer(
            text or _("{tool} failed (the server said no more)", tool=name), True, "tool_error"
        )
    return Answer(text)


def _failed_call(name: str, error: BaseException) -> Answer:
    """Make the error result of a call that got no CallToolResult."""
    from mcp.shared.exceptions import MCPError

    if isinstance(error, MCPError):
        if "timed out" in error.message:
            return Answer(
                _("{tool} did not answer within --tool-timeout; fc stopped waiting", tool=name),
                True,
                "tool_timeout",
            )
        if error.message == "Connection closed":
            return Answer(
                _("{tool} could not run: its MCP server has gone (connection closed)", tool=name),
                True,
                "server_gone",
            )
        return Answer(
            _(
                "{tool}: the MCP server answered JSON-RPC error {code}: {message}",
                tool=name,
                code=error.code,
                message=error.message,
            ),
            True,
            "mcp_error",
        )
    return Answer(
        _("{tool}: the MCP call failed: {error}", tool=name, error=_said(error)), True, "mcp_error"
    )


def _unwrapped(error: BaseException) -> BaseException:
    """Find the error inside task groups' exception groups: fc's own where one is there, else
    the first (a failing task's siblings fail after it)."""
    leaves = _leaves(error)
    return next((e for e in leaves if isinstance(e, FcError)), leaves[0])


def _leaves(error: BaseException) -> list[BaseException]:
    inner = getattr(error, "exceptions", None)  # a BaseExceptionGroup (3.11, or anyio's backport)
    if not isinstance(inner, tuple) or not inner:
        return [error]
    return [leaf for e in inner for leaf in _leaves(e)]


def _said(error: BaseException, timeout: float = CONNECT_TIMEOUT) -> str:
    error = _unwrapped(error)
    if isinstance(error, TimeoutError) or "timed out" in str(getattr(error, "message", "")):
        return _("no answer within {seconds} s (--mcp-timeout)", seconds=format(timeout, "g"))
    text = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
