"""`fc mcp record --to URL --port N`: a local reverse proxy for a streamable HTTP MCP server.

The client is pointed at `http://127.0.0.1:N/<path>` instead of the server: each request goes
to the server's origin with the same path, method, headers (but Host) and body; its answer
comes back with the same status, headers and bytes, streamed as they come (an SSE stream
stays one). Each POST's JSON-RPC body and each message of the answers (a JSON body, or each
SSE event's `data`) is kept in the trace's `mcp-<server>.jsonl` as it passes (wiretap.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from fccli.core.errors import UsageError
from fccli.core.manifest import Manifest
from fccli.i18n import Msg
from fccli.mcp.record import RECORDED_BY, initialized
from fccli.mcp.servers import label_for, server_spec
from fccli.mcp.wiretap import KEPT_BYTES, BodyTap, Wiretap
from fccli.trace.mcp_log import McpLog
from fccli.trace.names import TRACES_ROOT
from fccli.trace.writer import TraceWriter, default_dir, prepare_dir

_HOP = {"host", "connection", "keep-alive", "transfer-encoding", "content-length", "upgrade"}
"""Headers of one hop, made again by each side (RFC 9110, 7.6.1), not relayed."""


def recorder(target: str, tap: Wiretap) -> Starlette:
    """Make the ASGI app that relays to the server at `target` and keeps its traffic in `tap`."""
    parts = urlsplit(target)
    origin = f"{parts.scheme}://{parts.netloc}"
    client = httpx.AsyncClient(timeout=httpx.Timeout(None), follow_redirects=False)

    async def relay(request: Request) -> Response:
        body = await request.body()
        if request.method == "POST" and body:
            tap.sent(body.decode("utf-8", errors="replace"))
        url = origin + request.url.path + (f"?{request.url.query}" if request.url.query else "")
        headers = [(k, v) for k, v in request.headers.raw if k.decode().lower() not in _HOP]
        upstream = await client.send(
            client.build_request(request.method, url, headers=headers, content=body), stream=True
        )
        session = upstream.headers.get("mcp-session-id")
        if session:
            tap.session_id = session
        kind = upstream.headers.get("content-type", "")
        watched = upstream.status_code < 300 and ("json" in kind or "event-stream" in kind)
        taken = BodyTap(tap, "event-stream" in kind, KEPT_BYTES) if watched else None

        async def passed() -> AsyncIterator[bytes]:
            try:
                async for chunk in upstream.aiter_raw():
                    if taken is not None:
                        taken.feed(chunk)
                    yield chunk
                if taken is not None:
                    taken.end()
            finally:
                await upstream.aclose()

        response = StreamingResponse(passed(), status_code=upstream.status_code)
        response.raw_headers = [
            (k, v) for k, v in upstream.headers.raw if k.decode().lower() not in _HOP
        ]
        return response

    methods = ["GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"]
    app = Starlette(routes=[Route("/{path:path}", relay, methods=methods)])
    app.state.close = client.aclose
    return app


class HttpRecording:
    """One recording of a streamable HTTP server: its trace, open from the start, its log
    written as messages pass, its manifest completed by `close()`."""

    def __init__(self, target: str, out: Path | None, *, force: bool) -> None:
        spec = server_spec(target)
        if spec.url is None:
            raise UsageError(
                Msg("--to takes the server's http(s):// URL, e.g. http://127.0.0.1:8000/mcp")
            )
        self.spec = spec
        path = prepare_dir(out or default_dir(TRACES_ROOT, "mcp-record"), force=force)
        self.trace = TraceWriter(path, Manifest(recorded_by=RECORDED_BY))
        self.tap = Wiretap(spec.secrets, lambda: None)
        self.label = label_for(spec, None, set())
        self.tap.attach(path / f"mcp-{self.label}.jsonl")
        self.app = recorder(target, self.tap)

    def close(self) -> None:
        """Name the server in the manifest and close the trace."""
        info = initialized(self.tap.messages)
        record = server_record(self.spec.shown(), self.label, self.tap, info)
        record["tools"] = McpLog(self.label, record["log"], self.tap.messages).listed() or []
        self.trace.manifest.mcp_servers = [record]
        self.trace.finish("ok")


def server_record(shown: str, label: str, tap: Wiretap, info: dict[str, Any]) -> dict[str, Any]:
    """Describe the recorded server for the manifest."""
    version = info.get("protocolVersion")
    server_info = info.get("serverInfo")
    return {
        "name": label,
        "transport": "streamable-http",
        "server": shown,
        "protocol_version": version if isinstance(version, str) else None,
        "server_info": server_info if isinstance(server_info, dict) else None,
        "session_id": tap.session_id,
        "log": f"mcp-{label}.jsonl",
        "stderr": None,
    }
