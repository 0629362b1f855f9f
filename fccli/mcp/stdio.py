"""An MCP server over stdio, started and stopped by fc, every line it reads and writes kept.

A transport in the SDK's sense (`mcp.client.Transport`): an async context manager yielding the
read and write streams `ClientSession` runs on. fc's own rather than the SDK's `stdio_client`,
because that one parses a line before anyone can see its text: here each line is kept as it
came (wiretap.py), then parsed. Messages go out as the SDK's writes them (compact JSON, one per
line). A line that is not JSON-RPC is kept and skipped; one that names a pending request's id
fails that request; one past --max-response-mb is cut, kept in part, and fails its request.
The server's stderr goes to a file of the trace, never over the run view.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
from collections.abc import AsyncIterator
from typing import IO, Any

import anyio
from anyio.abc import Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from fccli.mcp.wiretap import Wiretap

_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)')
"""A JSON-RPC id near the start of a line too long to parse."""
_HEAD = 2000
"""How much of a line cut short is kept."""
EXIT_GRACE = 1.0
"""Seconds a server has to exit once its stdin is closed, then again after SIGTERM."""

SERVER_ERROR = -32603
"""JSON-RPC's internal error: what a request gets when its answer cannot be read."""

INHERITED = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "SYSTEMROOT", "TEMP")
"""The environment a server gets from fc's (as the SDK's stdio client does, a short list): no
API key of the user's reaches a server unless its command line passes it."""


def server_environment() -> dict[str, str]:
    """Make the environment a stdio server starts with."""
    return {name: os.environ[name] for name in INHERITED if name in os.environ}


@contextlib.asynccontextmanager
async def stdio_transport(
    argv: list[str], tap: Wiretap, stderr: IO[bytes] | int, max_bytes: int
) -> AsyncIterator[tuple[Any, Any]]:
    """Start `argv` and exchange JSON-RPC lines with it; `stderr`: where its stderr goes."""
    process = await anyio.open_process(
        argv, env=server_environment(), stderr=stderr, start_new_session=True
    )
    incoming: tuple[MemoryObjectSendStream[Any], MemoryObjectReceiveStream[Any]]
    incoming = anyio.create_memory_object_stream(0)
    outgoing: tuple[MemoryObjectSendStream[Any], MemoryObjectReceiveStream[Any]]
    outgoing = anyio.create_memory_object_stream(0)
    to_session, from_server = incoming
    to_server, from_session = outgoing

    async def read() -> None:
        assert process.stdout is not None
        reader = _Lines(tap, max_bytes)
        async with to_session:
            with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, OSError):
                async for chunk in process.stdout:
                    for item in reader.feed(chunk):
                        await to_session.send(item)
            for item in reader.rest():
                await to_session.send(item)

    async def write() -> None:
        assert process.stdin is not None
        try:
            async with from_session:
                async for message in from_session:
                    raw = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    tap.sent(raw)
                    await process.stdin.send((raw + "\n").encode("utf-8"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await to_session.aclose()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read)
        tasks.start_soon(write)
        try:
            yield from_server, to_server
        finally:
            with anyio.CancelScope(shield=True):
                await to_server.aclose()
                await _stop(process, tap)
            tasks.cancel_scope.cancel()


class _Lines:
    """Split a server's stdout into lines, keep each, and make them messages for the session."""

    def __init__(self, tap: Wiretap, max_bytes: int) -> None:
        self.tap = tap
        self.max_bytes = max_bytes
        self.pieces: list[bytes] = []
        """The line begun and not yet ended (kept in pieces: a long one is not copied again
        with every chunk)."""
        self.size = 0
        self.cut: int | None = None
        """Bytes skipped so far of a line past max_bytes (None: not skipping)."""

    def feed(self, chunk: bytes) -> list[Any]:
        out: list[Any] = []
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                rest = chunk[start:]
                if self.cut is not None:
                    self.cut += len(rest)
                elif rest:
                    self.pieces.append(rest)
                    self.size += len(rest)
                    if self.size > self.max_bytes:
                        out += self._too_long(b"".join(self.pieces)[:_HEAD], self.size)
                        self.pieces, self.size = [], 0
                return out
            piece, start = chunk[start:end], end + 1
            if self.cut is not None:
                self.tap.event("line_cut", bytes=self.cut + len(piece), max_bytes=self.max_bytes)
                self.cut = None
                continue
            line = b"".join([*self.pieces, piece])
            self.pieces, self.size = [], 0
            if len(line) > self.max_bytes:
                out += self._too_long(line[:_HEAD], len(line))
                self.tap.event("line_cut", bytes=len(line), max_bytes=self.max_bytes)
                self.cut = None
                continue
            out += self._line(line)

    def rest(self) -> list[Any]:
        """Read what is left when stdout ends: a last line without its newline."""
        if self.cut is not None:
            self.tap.event("line_cut", bytes=self.cut, max_bytes=self.max_bytes)
            return []
        line = b"".join(self.pieces)
        self.pieces, self.size = [], 0
        return self._line(line) if line.strip() else []

    def _line(self, line: bytes) -> list[Any]:
        import mcp_types as types
        from mcp.shared.message import SessionMessage

        text = line.decode("utf-8", errors="replace").removesuffix("\r")
        if not text.strip():
            return []
        self.tap.received(text)
        try:
            message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        except ValueError as e:
            return [_failure(_ID.search(line), f"not a JSON-RPC message: {_first_line(e)}", e)]
        return [SessionMessage(message)]

    def _too_long(self, head: bytes, size: int) -> list[Any]:
        """Start skipping a line past max_bytes (`head`: its first bytes, `size` so far); fail
        the request it answers, if it says which."""
        self.tap.received(head.decode("utf-8", errors="replace") + "…")
        self.cut = size
        said = f"the answer is over --max-response-mb ({self.max_bytes:,} bytes); fc stopped reading it"
        return [_failure(_ID.search(head), said, ValueError(said))]


def _failure(found: re.Match[bytes] | None, said: str, error: Exception) -> Any:
    """Answer the request a broken line names with a JSON-RPC error (a SessionMessage); else
    hand on `error`."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    if found is None:
        return error
    try:
        request_id = types.jsonrpc_message_adapter.validate_json(
            b'{"jsonrpc":"2.0","id":' + found.group(1) + b',"result":{}}', by_name=False
        ).id  # type: ignore[union-attr]
    except ValueError:
        return error
    return SessionMessage(
        types.JSONRPCError(
            jsonrpc="2.0", id=request_id, error=types.ErrorData(code=SERVER_ERROR, message=said)
        )
    )


def _first_line(error: Exception) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__


async def _stop(process: Process, tap: Wiretap) -> None:
    """Close the server's stdin and wait; then SIGTERM its process group, then SIGKILL."""
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        if process.stdin is not None:
            await process.stdin.aclose()
    # The server was started in a session of its own: its children go with it (POSIX).
    for sig in (None, signal.SIGTERM, getattr(signal, "SIGKILL", signal.SIGTERM)):
        if sig is not None:
            with contextlib.suppress(OSError):
                if hasattr(os, "killpg"):
                    os.killpg(process.pid, sig)
                else:  # Windows: the process alone
                    process.terminate()
        with anyio.move_on_after(EXIT_GRACE):
            while process.returncode is None:
                await anyio.sleep(0.01)
        if process.returncode is not None:
            break
    if process.returncode is not None:
        tap.event("exit", code=process.returncode)
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        if process.stdout is not None:
            await process.stdout.aclose()
    with contextlib.suppress(Exception):
        await process.aclose()
