"""The floor under `fc proxy`'s added latency: a bare pass-through with no fc code, the same
server stack (uvicorn, with uvloop and httptools where installed) and the same forwarding
(an httpx transport of one connection per request in flight, as fccli/proxy/upstreams.py does),
recording nothing.

Usage: python benchmarks/passthrough.py UPSTREAM_URL   (prints "pass-through on URL", serves
until killed). benchmarks/proxy.py --floor runs it beside fc proxy.
"""

from __future__ import annotations

import socket
import sys
from typing import Any

import httpx
import uvicorn

HOP_BY_HOP = {b"connection", b"keep-alive", b"transfer-encoding", b"host", b"content-length"}


class PassThrough:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.free: list[httpx.AsyncHTTPTransport] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in HOP_BY_HOP]
        client = self.free.pop() if self.free else httpx.AsyncHTTPTransport()
        try:
            request = httpx.Request(
                scope["method"],
                self.upstream + scope["path"],
                headers=headers,
                content=body,
                extensions={"timeout": {"connect": 60, "read": 60, "write": 60, "pool": 60}},
            )
            response = await client.handle_async_request(request)
            try:
                out = [(k, v) for k, v in response.headers.raw if k.lower() not in HOP_BY_HOP]
                await send(
                    {"type": "http.response.start", "status": response.status_code, "headers": out}
                )
                async for chunk in response.aiter_raw():
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                await send({"type": "http.response.body", "body": b""})
            finally:
                await response.aclose()
        finally:
            self.free.append(client)


def main() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(2048)
    print(f"pass-through on http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(PassThrough(sys.argv[1]), log_config=None, access_log=False)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
