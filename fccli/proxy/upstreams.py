"""The proxy's connections to the upstream: httpx transports of one connection each, each lent
to one request at a time, not one client whose pool all requests share.

Why not one pool: httpx's pool (httpcore) looks at every connection it holds each time a
request enters or leaves it, and asks each idle one's socket whether the server closed it: with
many concurrent clients, system calls on the event loop's path for every request
(docs/performance.md). A transport of one connection has one to look at. They share one SSL
context (costly to build); there are as many as requests were ever in flight at once, each
keeping its connection alive as httpx does.

Why transports, not clients: a request goes out as the agent sent it, so nothing an
`httpx.AsyncClient` adds around its transport is wanted (auth, redirects, its cookie jar, which
would keep the upstream's cookies, event hooks), and skipping it is cheaper. But for a proxy
named by the environment (`HTTPS_PROXY` and the like, which people behind a firewall need to
reach a provider), each is a client, which routes as httpx does (`NO_PROXY` included).
"""

from __future__ import annotations

from typing import Any, Protocol

import httpx

from fccli.core.proxies import environment_names_a_proxy


class Upstream(Protocol):
    """What a request is sent with: an httpx transport, or a client lent as one."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response: ...

    async def aclose(self) -> None: ...


class _ThroughClient:
    """An `httpx.AsyncClient` lent as a transport: it routes through the environment's proxy."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self.client.send(request, stream=True)

    async def aclose(self) -> None:
        await self.client.aclose()


class Upstreams:
    """Lend each request a connection of its own to the upstream, made as needed, kept for reuse."""

    def __init__(self, timeout: float, *, tls: bool = True) -> None:
        self._timeout_seconds = timeout
        self._tls = tls
        """Whether a request may go over TLS: False when the target is http:// only."""
        self._free: list[Upstream] = []
        self._all: list[Upstream] = []
        self._through_clients = False
        self._verify: Any = True
        self.timeout: dict[str, float | None] = {}
        """Per request (httpx's `timeout` extension): silence allowed, and to connect."""

    def lend(self) -> Upstream:
        """Lend a transport no other request is using; `give_back` it when its answer is closed."""
        if self._free:
            return self._free.pop()
        timeout = httpx.Timeout(self._timeout_seconds, connect=30.0)
        if not self._all:
            self.timeout = timeout.as_dict()
            self._through_clients = environment_names_a_proxy()
            self._verify = self._context()
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        made: Upstream
        if self._through_clients:
            client = httpx.AsyncClient(
                timeout=timeout, limits=limits, follow_redirects=False, verify=self._verify
            )
            made = _ThroughClient(client)
        else:
            made = httpx.AsyncHTTPTransport(limits=limits, verify=self._verify)
        self._all.append(made)
        return made

    def _context(self) -> Any:
        if not self._tls and not self._through_clients:
            # no TLS to make: a context that trusts no one, not the CA bundle's (~2 MB)
            import ssl

            return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        make_context = getattr(httpx, "create_ssl_context", None)  # httpx >= 0.28
        return make_context() if make_context is not None else True

    @property
    def made(self) -> int:
        """Count the transports: the most requests in flight at once so far."""
        return len(self._all)

    def give_back(self, client: Upstream) -> None:
        self._free.append(client)

    async def aclose(self) -> None:
        clients, self._all, self._free = self._all, [], []
        for client in clients:
            await client.aclose()
