"""Servers the MCP tests share: one SDK server over streamable HTTP, one fake provider."""

from __future__ import annotations

import pytest

from tests.support.fake_provider import FakeProvider


@pytest.fixture(scope="package")
def mcp_http():
    """The URL of a streamable HTTP MCP server written with the SDK (tests/support/mcp_http.py)."""
    pytest.importorskip("mcp")
    from tests.support.mcp_http import serve

    server = serve()
    yield server.url + "/mcp"
    server.stop()


@pytest.fixture(scope="package")
def provider():
    with FakeProvider() as server:
        yield server
