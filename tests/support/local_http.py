"""httpx's one-request functions for the tests' own servers on 127.0.0.1.

Plain HTTP, so `verify=False`: otherwise each request builds a TLS context it never uses, and
loading the CA bundle into it is CPU spent at every request (docs/performance.md).
"""

from __future__ import annotations

from typing import Any

import httpx


def post(url: str, **kwargs: Any) -> httpx.Response:
    return httpx.post(url, verify=False, **kwargs)


def get(url: str, **kwargs: Any) -> httpx.Response:
    return httpx.get(url, verify=False, **kwargs)


def stream(method: str, url: str, **kwargs: Any) -> Any:
    """`httpx.stream`: a context manager giving the response as it arrives."""
    return httpx.stream(method, url, verify=False, **kwargs)
