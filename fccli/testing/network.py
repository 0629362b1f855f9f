"""The guard that keeps a test away from the real providers: their host names do not resolve.

`socket.getaddrinfo` is wrapped while a guard is on; every client (httpx, requests, aiohttp,
the SDKs built on them) resolves a host through it before it connects. A provider's host (from
fc's provider profiles, and any the `fc_provider_hosts` ini option adds) gets a resolution
error at once, and the guard keeps its name: the test fails naming it, whatever the agent did
with the error. A client that connects to an address it was given, or through an HTTP proxy
(which resolves the host itself), is not seen.
"""

from __future__ import annotations

import fnmatch
import socket
import threading
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from fccli.i18n import _

_lock = threading.Lock()
_guards: list[Guard] = []
_original: Any = None


def provider_hosts() -> list[str]:
    """The hosts of fc's provider profiles, as patterns (`bedrock-runtime.*.amazonaws.com`);
    local servers (Ollama's localhost) left out."""
    from fccli.providers.profiles import PROFILES, VARIANTS

    hosts: list[str] = []
    for profile in [*PROFILES.values(), *VARIANTS.values()]:
        for url in (profile.base_url, profile.strict_base_url):
            host = urlsplit((url or "").replace("{region}", "*")).hostname
            if host and host != "localhost" and host not in hosts:
                hosts.append(host)
    return hosts


class Guard:
    """Refuse to resolve the providers' hosts while on, except `allowed` (fc proxy's upstream
    when recording)."""

    def __init__(self, hosts: Iterable[str], allowed: Iterable[str] = ()) -> None:
        self.hosts = [h.lower() for h in hosts]
        self.allowed = {h.lower() for h in allowed}
        self.hits: list[str] = []
        """The hosts the test's code tried to reach, in order, once each."""

    def blocks(self, host: str) -> bool:
        name = host.lower().rstrip(".")
        if name in self.allowed:
            return False
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.hosts)

    def __enter__(self) -> Guard:
        global _original
        with _lock:
            if not _guards:
                _original = socket.getaddrinfo
                socket.getaddrinfo = _guarded
            _guards.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        global _original
        with _lock:
            if self in _guards:
                _guards.remove(self)
            if not _guards and _original is not None:
                socket.getaddrinfo = _original
                _original = None

    def problem(self) -> str | None:
        """Say which real providers the test reached for (None: none)."""
        if not self.hits:
            return None
        return _(
            "fc: the test reached for a real provider ({hosts}); a test plays recorded traces "
            "(point the agent at fc_traces' base URL), or is marked "
            "@pytest.mark.fc_allow_providers",
            hosts=", ".join(self.hits),
        )


def _guarded(host: Any, *args: Any, **kwargs: Any) -> Any:
    name = host.decode("ascii", "replace") if isinstance(host, bytes) else host
    if isinstance(name, str):
        for guard in list(_guards):
            if guard.blocks(name):
                if name not in guard.hits:
                    guard.hits.append(name)
                raise socket.gaierror(
                    socket.EAI_NONAME, f"fc: {name} is a real provider, refused in this test"
                )
    return _original(host, *args, **kwargs)
