"""The proxy's connections to the upstream: httpx clients of one connection each, each lent to
one request at a time, not one client whose pool all requests share.

Why not one pool: httpx's pool (httpcore) looks at every connection it holds each time a
request enters or leaves it, and asks each idle one's socket whether the server closed it (two
system calls, through anyio). At 16 concurrent clients that is a hundred system calls per
request, CPU on the event loop's path (and, when the journal was a thread, a chance each time for
it to take the interpreter lock: tens of milliseconds per request at 16 clients,
benchmarks/proxy.py). A client of one connection has one to look at. The clients share one SSL
context (building one takes tens of milliseconds); there are as many as requests were ever in
flight at once, each keeping its connection alive as httpx does (5 s idle).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx


class Upstreams:
    def __init__(self, timeout: float) -> None:
        self._timeout_seconds = timeout
        self._free: list[httpx.AsyncClient] = []
        self._all: list[httpx.AsyncClient] = []
        self._verify: Any = True
        self.timeout: dict[str, float | None] = {}
        """Per request (httpx's `timeout` extension): silence allowed, and to connect."""

    def lend(self) -> httpx.AsyncClient:
        """A client no other request is using; `give_back` it when its answer is closed."""
        if self._free:
            return self._free.pop()
        import httpx

        timeout = httpx.Timeout(self._timeout_seconds, connect=30.0)
        if not self._all:
            self.timeout = timeout.as_dict()
            make_context = getattr(httpx, "create_ssl_context", None)  # httpx >= 0.28
            self._verify = make_context() if make_context is not None else True
        client = httpx.AsyncClient(
            timeout=timeout,
            limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
            follow_redirects=False,
            verify=self._verify,
        )
        self._all.append(client)
        return client

    @property
    def made(self) -> int:
        """How many clients there are: the most requests in flight at once so far."""
        return len(self._all)

    def give_back(self, client: httpx.AsyncClient) -> None:
        self._free.append(client)

    async def aclose(self) -> None:
        clients, self._all, self._free = self._all, [], []
        for client in clients:
            await client.aclose()
