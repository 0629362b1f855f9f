"""Which requests fc proxy and fc serve answer: ones addressed to this server, not a web page's.

A page whose domain is rebound to 127.0.0.1 (DNS rebinding) reaches the server with its own
name in `Host`; a page's cross-site request carries its `Origin`. Both are refused before the
app reads anything: `Host` must be 127.0.0.1, localhost, [::1], the address the connection came
to or the `--host` name, with the server's port; an `Origin` must be one `--allow-origin` names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from fccli.core.controls import escape_controls
from fccli.core.errors import UsageError
from fccli.i18n import Msg, localized

LOCAL_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
ORIGIN = re.compile(r"[a-z][a-z0-9+.-]*://(?:[a-z0-9._~-]+|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?")
"""An origin as a browser sends it: scheme, host and port, nothing else."""


class Guard:
    """Refuse a request addressed to another host, or sent by a web page not allowed."""

    def __init__(self, host: str = "", origins: Iterable[str] = ()) -> None:
        self.names = LOCAL_NAMES | ({_bracketed(host.lower())} if host else set())
        self.origins = frozenset(map(_origin, origins))

    def refusal(self, scope: dict[str, Any]) -> tuple[int, Msg] | None:
        """Say the status and why a request is refused (None: it is answered)."""
        hosts = [v for k, v in scope["headers"] if k.lower() == b"host"]
        origins = [v for k, v in scope["headers"] if k.lower() == b"origin"]
        server = scope.get("server") or ("", 0)
        names = self.names | {_bracketed(str(server[0]).lower())}
        host = hosts[0].decode("latin-1").lower() if len(hosts) == 1 else ""
        name, port = _split(host)
        if name not in names or port != server[1]:
            return 421, Msg(
                "refused: the request is addressed to {host}, not this server "
                "(127.0.0.1:{port}, localhost:{port} or [::1]:{port})",
                host=repr(host),
                port=server[1],
            )
        for origin in origins:
            said = origin.decode("latin-1")
            if said.rstrip("/").lower() not in self.origins:
                return 403, Msg(
                    "refused: a request from the web page {origin} (--allow-origin lets one in)",
                    origin=repr(said),
                )
        return None


def _origin(given: str) -> str:
    """Return an --allow-origin as a browser would send it; exit 2 for one that is not an
    origin (a path, a wildcard, `null`: it would let no page in, or the wrong ones)."""
    origin = given.strip().rstrip("/").lower()
    if not ORIGIN.fullmatch(origin):
        raise UsageError(
            Msg("--allow-origin {origin}: not an origin", origin=escape_controls(repr(given))),
            hint=Msg(
                "give scheme://host[:port], as the page's address begins: e.g. http://localhost:3000"
            ),
        )
    return origin


def _bracketed(host: str) -> str:
    return f"[{host.strip('[]')}]" if ":" in host else host


def _split(host: str) -> tuple[str, int]:
    """Split `name:port` (a port left out is 80)."""
    name, colon, port = host.rpartition(":")
    if not colon or name.endswith(":") or (host.startswith("[") and not name.endswith("]")):
        return host, 80  # no port: a bare name, or a bare IPv6 literal
    return (name, int(port)) if port.isdigit() and len(port) <= 5 else ("", 0)


async def answer(send: Any, status: int, why: str) -> None:
    """Answer a refused request with one plain-text line."""
    data = f"{why}\n".encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", b"%d" % len(data)),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


class Guarded:
    """An ASGI app behind a `Guard`: a refused request is answered here and said with `say`."""

    def __init__(self, app: Any, guard: Guard, say: Callable[[str], None]) -> None:
        self.app, self.guard, self.say = app, guard, say

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        refused = self.guard.refusal(scope) if scope["type"] == "http" else None
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, why = refused
        shown = escape_controls(f"{scope['method']} {scope['path']}")
        self.say(f"{shown}: HTTP {status}: {escape_controls(localized(why))}")
        await answer(send, status, why)
