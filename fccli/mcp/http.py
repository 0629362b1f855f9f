"""An MCP server over streamable HTTP, every JSON-RPC message kept as its bytes went.

The SDK's `streamable_http_client` does the protocol (the session header, SSE or JSON answers,
the closing DELETE); fc hands it an HTTP client whose transport keeps what passes: each POST's
body as sent, each answer's JSON body or each SSE event's `data` as received. The
`Mcp-Session-Id` the server gives is kept for the manifest (and `mcp.session.id` in OTel).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from typing import Any

import httpx2
from mcp.client.streamable_http import streamable_http_client

from fccli.mcp.wiretap import BodyTap, Wiretap


def http_transport(
    url: str, tap: Wiretap, max_bytes: int, timeout: float
) -> AbstractAsyncContextManager[Any]:
    """Connect to the MCP endpoint `url`, its traffic kept in `tap`."""
    client = httpx2.AsyncClient(
        transport=_Tapped(httpx2.AsyncHTTPTransport(), tap, max_bytes),
        # No read limit of its own: a call waits as long as --tool-timeout says (the session's
        # per-request timeout), and a server's event stream may stay quiet for long.
        timeout=httpx2.Timeout(timeout, read=None),
    )
    return _Closing(streamable_http_client(url, http_client=client), client)


class _Closing:
    """The SDK's transport, then the client fc made for it closed."""

    def __init__(self, inner: AbstractAsyncContextManager[Any], client: httpx2.AsyncClient):
        self.inner = inner
        self.client = client

    async def __aenter__(self) -> Any:
        await self.client.__aenter__()
        return await self.inner.__aenter__()

    async def __aexit__(self, *exc: Any) -> None:
        try:
            await self.inner.__aexit__(*exc)
        finally:
            await self.client.__aexit__(None, None, None)


class _Tapped(httpx2.AsyncBaseTransport):
    def __init__(self, inner: httpx2.AsyncBaseTransport, tap: Wiretap, max_bytes: int) -> None:
        self.inner = inner
        self.tap = tap
        self.max_bytes = max_bytes

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.method == "POST":
            self.tap.sent((await request.aread()).decode("utf-8", errors="replace"))
        response = await self.inner.handle_async_request(request)
        session = response.headers.get("mcp-session-id")
        if session:
            self.tap.session_id = session
        kind = response.headers.get("content-type", "")
        if response.status_code < 300 and ("json" in kind or "event-stream" in kind):
            response.stream = _Stream(
                response.stream, self.tap, "event-stream" in kind, self.max_bytes
            )
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


class _Stream(httpx2.AsyncByteStream):
    """An answer's body as it arrives, each message in it kept once it is whole."""

    def __init__(self, inner: Any, tap: Wiretap, sse: bool, max_bytes: int) -> None:
        self.inner = inner
        self.body = BodyTap(tap, sse)
        self.tap = tap
        self.max_bytes = max_bytes

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            if self.body.size + len(chunk) > self.max_bytes:
                self.tap.event(
                    "body_cut", bytes=self.body.size + len(chunk), max_bytes=self.max_bytes
                )
                raise httpx2.ReadError(
                    f"the answer is over --max-response-mb ({self.max_bytes:,} bytes)"
                )
            self.body.feed(chunk)
            yield chunk
        self.body.end()

    async def aclose(self) -> None:
        await self.inner.aclose()
