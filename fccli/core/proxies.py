"""Whether the environment names a proxy that fc's requests go through."""

from __future__ import annotations

from urllib.request import getproxies


def environment_names_a_proxy() -> bool:
    """Say whether HTTP_PROXY, HTTPS_PROXY or ALL_PROXY (any case) names a proxy: a request
    to an http:// URL may then be carried over TLS to it."""
    found = getproxies()
    return any(found.get(scheme) for scheme in ("http", "https", "all"))
