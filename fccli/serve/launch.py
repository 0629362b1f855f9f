"""Running an ASGI app on host:port for `fc proxy` and `fc serve`, with fc's own lines.

The socket is bound here, before uvicorn starts, so that a port in use is one clear line
(exit 2) instead of uvicorn's log, and `--port 0` can say which port the system chose. uvicorn's
loggers are silenced: the app prints what the user should see. Ctrl-C (and SIGTERM) stop the
server as uvicorn does (open answers get a moment to finish, then are cancelled); `on_close` then
closes what is still open, and the signal goes on to the CLI's one catch (exit 130, or 143).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import ipaddress
import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fccli.core.errors import UsageError
from fccli.i18n import Msg

LOOPBACK_NAMES = ("localhost",)
GRACE_SECONDS = 1
"""How long answers still streaming at Ctrl-C may go on before they are cancelled."""
HEADER_SECONDS = 30.0
"""How long a connection may take to send a request's headers (a half-sent request, left open,
would hold a file descriptor for good)."""


@dataclass
class Bound:
    """A listening socket, and the address to give clients."""

    sock: socket.socket
    host: str
    port: int

    @property
    def url(self) -> str:
        host = self.host.strip("[]")
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}"


def is_loopback(host: str) -> bool:
    """Say whether `host` is this machine only (`127.1` and the like, as the system reads them,
    included)."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:  # the short IPv4 forms the system takes: 127.1, 2130706433
        return ipaddress.IPv4Address(socket.inet_aton(host)).is_loopback
    except (OSError, ValueError):
        return False


def exposure_warning(host: str) -> Msg | None:
    """What to say when `--host` makes the server reachable from other machines."""
    if is_loopback(host):
        return None
    return Msg(
        "listening on {host}, not only this machine: anyone who can reach it can use it, "
        "and through fc proxy spend the key your agent sends",
        host=host,
    )


def bind(host: str, port: int) -> Bound:
    """A socket listening on host:port; a port in use or a host that is not here is one line."""
    try:
        infos = socket.getaddrinfo(
            host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except (socket.gaierror, UnicodeError) as e:
        raise UsageError(
            Msg("cannot listen on {address}: {error}", address=repr(host), error=str(e)),
            hint=Msg("e.g. --host 127.0.0.1"),
        ) from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise UsageError(
                Msg(
                    "port {port} on {host} is in use (another fc proxy or serve?)",
                    port=port,
                    host=host,
                ),
                hint=Msg("choose another with --port, or stop what listens there"),
            ) from None
        raise UsageError(
            Msg(
                "cannot listen on {address}: {error}",
                address=host + ":" + str(port),
                error=e.strerror,
            )
        ) from None
    sock.setblocking(False)
    return Bound(sock, host, sock.getsockname()[1])


def quiet_uvicorn() -> None:
    """uvicorn's own log lines (start-up, shutdown, access) are not shown: fc prints its own."""
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi"):
        logger = logging.getLogger(name)
        logger.handlers = [logging.NullHandler()]
        logger.propagate = False


def make_server(app: Any, *, plain: bool = False, prompt: bool = False) -> Any:
    """A uvicorn server for `app`, fc's settings: no logs, a short grace at Ctrl-C. The app's
    lifespan shutdown (where it has one) closes what it holds, in its own event loop. `plain`:
    asyncio and h11 even where the `fast` extra's uvloop and httptools are installed (what a
    plain install serves with, so the tests keep that path too). `prompt`: a server that
    `InThread.stop()` stops at once (`_prompt_server`)."""
    import uvicorn  # imported when a server runs (start-up)

    quiet_uvicorn()
    config = uvicorn.Config(
        app,
        log_config=None,
        access_log=False,
        lifespan="auto",
        timeout_graceful_shutdown=GRACE_SECONDS,
        # h11 (pure Python, which uvicorn needs anyway), or httptools where it is installed.
        http=_timed_protocol(plain),
        loop="asyncio" if plain else "auto",
        ws="none",
    )
    return (_prompt_server() if prompt else uvicorn.Server)(config)


@functools.cache
def _prompt_server() -> type:
    """uvicorn's server, stopping as soon as it is told: uvicorn looks at `should_exit` every
    0.1 s, then gives the connections it asked to close a fixed 0.1 s and looks at them every
    0.1 s. The same steps, waited for in milliseconds: the tests start and stop a server in a
    thread hundreds of times."""
    import asyncio

    import uvicorn

    class Prompt(uvicorn.Server):
        grace: float = GRACE_SECONDS
        _loop: Any = None
        _woken: Any = None

        def wake(self) -> None:
            """Have the main loop look at `should_exit` now (from any thread)."""
            if self._loop is not None:
                with contextlib.suppress(RuntimeError):  # the loop has ended already
                    self._loop.call_soon_threadsafe(self._woken.set)

        async def main_loop(self) -> None:
            self._woken = asyncio.Event()
            self._loop = asyncio.get_running_loop()
            counter = 0
            while not await self.on_tick(counter):
                counter = (counter + 1) % 864000
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._woken.wait(), 0.1)

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            for server in self.servers:
                server.close()
            for sock in sockets or []:
                sock.close()
            state = self.server_state
            for connection in list(state.connections):
                connection.shutdown()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + self.grace
            while (state.connections or state.tasks) and loop.time() < deadline:
                await asyncio.sleep(0.002)
            for task in state.tasks:
                task.cancel()
            if not self.force_exit:
                await self.lifespan.shutdown()

    return Prompt


class _HeaderTimeout:
    """Close a connection whose request headers have not all come `HEADER_SECONDS` after it
    opened or after its last answer (uvicorn times out an idle connection only between
    requests, not one sending its headers a byte at a time)."""

    loop: Any
    cycle: Any
    transport: Any
    _header_timer: Any = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._header_timer is None and self._between_requests():
            self._arm()
        super().data_received(data)  # type: ignore[misc]

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        super().connection_lost(exc)  # type: ignore[misc]

    def _between_requests(self) -> bool:
        return self.cycle is None or bool(self.cycle.response_complete)

    def _arm(self) -> None:
        waiting = self.cycle

        def late() -> None:
            self._header_timer = None
            if self.cycle is waiting and self._between_requests():
                self.transport.close()

        self._header_timer = self.loop.call_later(HEADER_SECONDS, late)


def _timed_protocol(plain: bool) -> type:
    """uvicorn's HTTP protocol (h11; httptools where installed and not `plain`), with headers
    timed out."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    base: type = H11Protocol
    if not plain:
        try:
            from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

            base = HttpToolsProtocol
        except ImportError:
            pass
    return type(f"Timed{base.__name__}", (_HeaderTimeout, base), {})


def _tell_stopping(app: Any, server: Any) -> None:
    """An app with a `stopping` attribute gets a callable that says whether the server is
    shutting down: a client's connection closed by fc itself is not a client that went away."""
    if hasattr(app, "stopping"):
        app.stopping = lambda: bool(server.should_exit)


def run(app: Any, bound: Bound, on_close: Callable[[], None] = lambda: None) -> None:
    """Serve `app` on `bound` until Ctrl-C or SIGTERM; `on_close` runs on every way out, before
    the signal is raised again for the CLI (KeyboardInterrupt: exit 130)."""
    server = make_server(app)
    _tell_stopping(app, server)
    try:
        server.run(sockets=[bound.sock])
    finally:
        try:
            on_close()
        finally:
            bound.sock.close()


class InThread:
    """A server run in a thread of this process (tests, benchmarks): no signals, stopped by
    `stop()`, which waits for it to end; answers still going on get `grace` seconds first."""

    def __init__(
        self, app: Any, bound: Bound, *, plain: bool = False, grace: float = GRACE_SECONDS
    ) -> None:
        self.bound = bound
        self.url = bound.url
        self._server = make_server(app, plain=plain, prompt=True)
        self._server.grace = grace
        _tell_stopping(app, self._server)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [bound.sock]}, daemon=True
        )

    def start(self) -> InThread:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started and self._thread.is_alive():
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start within 10 s")
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._server.wake()
        self._thread.join(timeout=10)
        self.bound.sock.close()

    def __enter__(self) -> InThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
