"""The server pieces `fc proxy` and `fc serve` share: binding, routes, error bodies."""

from __future__ import annotations

import contextlib
import socket
import time

import httpx
import pytest

from fccli.core.errors import UsageError
from fccli.serve import launch
from fccli.serve.launch import Bound, InThread, bind, exposure_warning
from fccli.wire.base import Route
from fccli.wire.registry import FORMATS, formats_at, route_at
from tests.support import local_http


def test_a_port_in_use_is_one_line_and_exit_2() -> None:
    first = bind("127.0.0.1", 0)
    try:
        with pytest.raises(UsageError) as caught:
            bind("127.0.0.1", first.port)
        assert caught.value.exit_code == 2
        assert f"port {first.port} on 127.0.0.1 is in use" in str(caught.value)
        assert "--port" in str(caught.value)
    finally:
        first.sock.close()


def test_a_host_that_is_not_here_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="cannot listen on"):
        bind("no-such-host.invalid", 0)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2", "127.1"])
def test_loopback_hosts_need_no_warning(host: str) -> None:
    assert exposure_warning(host) is None


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "example.org"])
def test_other_hosts_are_warned_about(host: str) -> None:
    warning = exposure_warning(host)
    assert warning is not None and "anyone who can reach it" in warning and "key" in warning


@pytest.mark.parametrize("host", ["::1", "[::1]"])
def test_an_ipv6_address_is_bracketed_once_in_the_url(host: str) -> None:
    assert Bound(None, host, 8787).url == "http://[::1]:8787"  # type: ignore[arg-type]


async def _hello(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": scope["path"].encode()})


def test_an_app_runs_in_a_thread_and_stops() -> None:
    with InThread(_hello, bind("127.0.0.1", 0)) as server:
        assert local_http.get(server.url + "/x/y").text == "/x/y"
    with pytest.raises(httpx.ConnectError):
        local_http.get(server.url + "/x")


@pytest.mark.parametrize("plain", [True, False], ids=["h11", "auto"])
def test_a_half_sent_request_is_closed_after_the_header_timeout(monkeypatch, plain) -> None:
    """Slowloris: headers that never end, first on a new connection, then after an answer on a
    kept-alive one, each hold the connection only `HEADER_SECONDS`."""
    monkeypatch.setattr(launch, "HEADER_SECONDS", 0.2)
    with InThread(_hello, bind("127.0.0.1", 0), plain=plain) as server:
        for first in (b"", b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n"):
            with socket.create_connection(("127.0.0.1", server.bound.port), timeout=10) as s:
                s.sendall(first)
                answer = b""
                while first and not answer.endswith(b"0\r\n\r\n"):  # the whole answer
                    answer += s.recv(4096)
                started = time.monotonic()
                s.sendall(b"GET /b HTTP/1.1\r\nHost: x\r\n")
                with contextlib.suppress(OSError):
                    for _ in range(8):  # a header now and then: still never the end
                        time.sleep(0.05)
                        s.sendall(b"X-Drip: 1\r\n")
                try:
                    closed = s.recv(4096) == b""
                except ConnectionResetError:  # a drip came after the close: answered by a reset
                    closed = True
                assert closed  # by the server
                assert time.monotonic() - started < 5


def test_the_formats_declare_their_paths() -> None:
    chat = [f.name for f in formats_at("/v1/chat/completions")]
    assert chat == [f.name for f in FORMATS.values() if f.family == "chat"]
    assert chat == [f.name for f in formats_at("/chat/completions")]
    assert [f.family for f in formats_at("/v1/messages")] == ["blocks"]
    assert formats_at("/v1/models") == []
    assert formats_at("/v1/chat/completions/extra") == []


def test_a_route_pattern_stands_for_one_segment() -> None:
    route = Route("/v1beta/models/{model}:streamGenerateContent", streams=True)
    assert route.matches("/v1beta/models/gemini-2.5-flash:streamGenerateContent")
    assert not route.matches("/v1beta/models/a/b:streamGenerateContent")
    assert not route.matches("/v1beta/models/x:generateContent")
    fmt = formats_at("/v1/messages")[0]
    assert route_at(fmt, "/v1/messages") == Route("/v1/messages")
    assert route_at(fmt, "/v1/other") is None


def test_error_bodies_have_each_providers_shape() -> None:
    blocks = formats_at("/v1/messages")[0]
    assert blocks.error_body(502, "upstream down") == {
        "type": "error",
        "error": {"type": "api_error", "message": "upstream down"},
    }
    assert blocks.error_body(404, "no")["error"]["type"] == "not_found_error"
    for chat in formats_at("/chat/completions"):
        assert chat.error_body(400, "bad") == {
            "error": {
                "message": "bad",
                "type": "invalid_request_error",
                "param": None,
                "code": None,
            }
        }
        assert chat.error_body(502, "down")["error"]["type"] == "server_error"
