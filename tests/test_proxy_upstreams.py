"""The proxy's upstream clients: one per request in flight, lent and given back, so that a
request never waits on another's connection and httpx's pool has one connection to look at
(fccli/proxy/upstreams.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

from fccli.proxy.upstreams import Upstreams
from tests.fake_provider import DEFAULT_KEY, FakeProvider
from tests.proxy_harness import proxy

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
        await upstreams.aclose()
        assert first.is_closed and second.is_closed and upstreams.made == 0

    asyncio.run(scenario())


def test_requests_one_after_another_go_through_one_client(tmp_path: Path) -> None:
    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        for _ in range(3):
            answer = httpx.post(
                px.url + "/v1/chat/completions",
                json=ASK,
                headers={"Authorization": f"Bearer {DEFAULT_KEY}"},
            )
            assert answer.status_code == 200
        assert px.app.upstreams.made == 1
