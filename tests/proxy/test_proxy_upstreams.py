"""The proxy's upstream clients: one per request in flight, lent and given back, so that a
request never waits on another's connection and httpx's pool has one connection to look at
(fccli/proxy/upstreams.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from fccli.proxy.upstreams import Upstreams
from tests.support import local_http
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.proxy_harness import proxy

ASK = {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}]}


def test_a_client_is_lent_to_one_request_at_a_time_and_reused_after() -> None:
    async def scenario() -> None:
        upstreams = Upstreams(timeout=5)
        first, second = upstreams.lend(), upstreams.lend()
        assert first is not second  # two requests in flight: a client each
        assert upstreams.timeout["read"] == 5 and upstreams.timeout["connect"] == 30
        upstreams.give_back(first)
        assert upstreams.lend() is first and upstreams.made == 2  # given back: lent again
        upstreams.give_back(first)
        upstreams.give_back(second)
        closed = []
        for lent in (first, second):
            lent.aclose = lambda lent=lent: _closing(closed, lent)  # type: ignore[method-assign]
        await upstreams.aclose()
        assert closed == [first, second] and upstreams.made == 0

    asyncio.run(scenario())


async def _closing(closed: list[httpx.AsyncHTTPTransport], lent: httpx.AsyncHTTPTransport) -> None:
    closed.append(lent)
    await httpx.AsyncHTTPTransport.aclose(lent)


def test_a_proxy_named_by_the_environment_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """Behind a firewall people set HTTPS_PROXY to reach their provider: the upstream requests
    go through it, as httpx routes them (NO_PROXY included); without one, through a transport."""

    async def lent_through() -> httpx.AsyncClient | None:
        upstreams = Upstreams(timeout=5)
        lent = upstreams.lend()
        client = getattr(lent, "client", None)
        await upstreams.aclose()
        return client

    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    assert asyncio.run(lent_through()) is None
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:3128")
    client = asyncio.run(lent_through())
    assert client is not None
    transport = client._transport_for_url(httpx.URL("https://api.deepseek.com/chat/completions"))
    assert transport is not client._transport  # the proxy's


def test_requests_one_after_another_go_through_one_client(tmp_path: Path) -> None:
    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        for _ in range(3):
            answer = local_http.post(
                px.url + "/v1/chat/completions",
                json=ASK,
                headers={"Authorization": f"Bearer {DEFAULT_KEY}"},
            )
            assert answer.status_code == 200
        assert px.app.upstreams.made == 1


def test_a_target_without_https_gets_no_ca_bundle_and_still_verifies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An http:// target never makes TLS: its transports skip the CA bundle (memory), and a
    context that trusts no one would refuse any TLS all the same."""
    import ssl

    from fccli.proxy.target import resolve

    async def context(tls: bool) -> ssl.SSLContext:
        upstreams = Upstreams(timeout=5, tls=tls)
        upstreams.lend()
        made = upstreams._verify
        await upstreams.aclose()
        return made

    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    assert not resolve("http://127.0.0.1:9").tls and resolve("deepseek").tls
    assert resolve("deepseek", "http://127.0.0.1:9").tls is False
    bare, full = asyncio.run(context(False)), asyncio.run(context(True))
    assert bare.cert_store_stats()["x509_ca"] == 0 < full.cert_store_stats()["x509_ca"]
    assert bare.verify_mode == ssl.CERT_REQUIRED and bare.check_hostname
