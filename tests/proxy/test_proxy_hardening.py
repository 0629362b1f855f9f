"""fc proxy as a hostile client on this machine, or a web page in its browser, meets it: it
forwards only to its upstream (no request target leads elsewhere, no key leaves for another
host), answers only requests addressed to it and not sent by a web page, holds a bounded
request body, and counts an answer decompressed against --max-record-mb."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.proxy_harness import proxy
from tests.support.trap import Trap, raw_request

CHAT = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
KEY = "sk-agent-do-not-leak"
HEADERS = f"Authorization: Bearer {KEY}\r\nContent-Type: application/json"

TARGETS = [
    "@127.0.0.1:{port}/v1/chat/completions",
    "http://127.0.0.1:{port}/v1/chat/completions",
    ":{port}/v1/chat/completions",
    "//127.0.0.1:{port}/v1/chat/completions",
    "/\\127.0.0.1:{port}/v1/chat/completions",
    "/v1/../../@127.0.0.1:{port}/v1/chat/completions",
    "/v1/%2e%2e/%2E%2E/v1/chat/completions",
    "/v1/%5c127.0.0.1:{port}/chat/completions",
    "127.0.0.1:{port}",
]
UPSTREAMS = ["url", "deepseek-base-url", "openai"]


def _options(kind: str, fake: FakeProvider) -> dict[str, object]:
    if kind == "url":
        return {"to": fake.url}
    if kind == "deepseek-base-url":
        return {"to": "deepseek", "base_url": fake.url}
    return {"to": "openai"}  # nothing may be sent at all: no network is reached


@pytest.mark.parametrize("plain", [True, False], ids=["h11", "auto"])
@pytest.mark.parametrize("kind", UPSTREAMS)
def test_no_request_target_reaches_another_port(tmp_path: Path, kind: str, plain: bool) -> None:
    with FakeProvider() as fake, Trap() as trap:
        with proxy(tmp_path / "out", plain=plain, **_options(kind, fake)) as running:
            for target in TARGETS:
                target = target.format(port=trap.port)
                if not plain and kind == "openai" and target.startswith("http://"):
                    continue  # httptools keeps only the path: forwarded to the real upstream
                status, body = raw_request(
                    running.url, f"POST {target} HTTP/1.1\r\n{HEADERS}", CHAT
                )
                assert 400 <= status < 500, (target, status, body)
                assert KEY.encode() not in body
            printed = running.printed
        assert trap.connections == 0, trap.received
        assert KEY not in printed
    if kind == "url" and plain:
        # what the proxy itself refused was said in the provider's error shape, as a 400
        assert "request target" in printed


def test_a_refused_target_is_said_in_the_providers_error_shape(tmp_path: Path) -> None:
    with FakeProvider() as fake, proxy(tmp_path / "out", to=fake.url, plain=True) as running:
        status, body = raw_request(
            running.url, f"POST @127.0.0.1:1/v1/chat/completions HTTP/1.1\r\n{HEADERS}", CHAT
        )
        assert status == 400
        error = json.loads(body)["error"]
        assert "request target must be a path" in error["message"]
        assert fake.received == []


def test_a_plain_path_still_goes_to_the_upstream(tmp_path: Path) -> None:
    with FakeProvider() as fake, proxy(tmp_path / "out", to=fake.url) as running:
        head = f"POST /v1/chat/completions?x=1 HTTP/1.1\r\nAuthorization: Bearer {DEFAULT_KEY}"
        status, _ = raw_request(running.url, head, CHAT)
        assert status == 200
        assert len(fake.received) == 1


@pytest.mark.parametrize(
    "host",
    ["attacker.example", "attacker.example:{port}", "127.0.0.1:1", "localhost", ""],
)
def test_a_request_addressed_to_another_host_is_refused(tmp_path: Path, host: str) -> None:
    """DNS rebinding: a page whose name now resolves to 127.0.0.1 sends its own name as Host."""
    with FakeProvider() as fake, proxy(tmp_path / "out", to=fake.url) as running:
        port = running.url.rsplit(":", 1)[1]
        head = f"POST /v1/chat/completions HTTP/1.1\r\n{HEADERS}"
        status, body = raw_request(running.url, head, CHAT, host=host.format(port=port))
        assert status == 421, body
        assert fake.received == []


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "LOCALHOST"])
def test_a_request_to_a_local_name_and_the_port_is_answered(tmp_path: Path, name: str) -> None:
    with FakeProvider() as fake, proxy(tmp_path / "out", to=fake.url) as running:
        port = running.url.rsplit(":", 1)[1]
        head = f"POST /v1/chat/completions HTTP/1.1\r\nAuthorization: Bearer {DEFAULT_KEY}"
        status, _ = raw_request(running.url, head, CHAT, host=f"{name}:{port}")
        assert status == 200


def test_a_web_pages_request_is_refused_unless_allowed(tmp_path: Path) -> None:
    with FakeProvider() as fake:
        head = f"POST /v1/chat/completions HTTP/1.1\r\nAuthorization: Bearer {DEFAULT_KEY}"
        with proxy(tmp_path / "a", to=fake.url) as running:
            status, body = raw_request(running.url, head + "\r\nOrigin: https://evil.example", CHAT)
            assert status == 403, body
            assert b"--allow-origin" in body
            assert fake.received == []
        allowed = ("http://localhost:3000",)
        with proxy(tmp_path / "b", to=fake.url, allow_origins=allowed) as running:
            status, _ = raw_request(running.url, head + "\r\nOrigin: http://localhost:3000", CHAT)
            assert status == 200
            status, _ = raw_request(running.url, head + "\r\nOrigin: null", CHAT)
            assert status == 403
        assert len(fake.received) == 1


def test_a_request_body_past_the_cap_gets_413_and_is_not_forwarded(tmp_path: Path) -> None:
    with FakeProvider() as fake:
        options = {"to": fake.url, "max_request_bytes": 1024}
        with proxy(tmp_path / "out", **options) as running:  # type: ignore[arg-type]
            big = json.dumps({"model": "m", "messages": [], "pad": "x" * 4096}).encode()
            head = f"POST /v1/chat/completions HTTP/1.1\r\n{HEADERS}"
            status, body = raw_request(running.url, head, big)
            assert status == 413
            assert "--max-request-mb" in json.loads(body)["error"]["message"]
            assert "413" in running.printed and "--max-request-mb" in running.printed
        assert fake.received == []


def test_a_small_gzip_answer_is_counted_decompressed(tmp_path: Path) -> None:
    """8 MB of zeros gzipped to a few KB, above a 1 MB --max-record-mb: forwarded, not
    recorded (counted compressed, it went into the trace whole)."""
    size = 8 * 1024 * 1024
    with FakeProvider() as fake:
        fake.script.append({"hostile": "gzip_bomb", "size": size})
        options = {"to": fake.url, "max_record_bytes": 1024 * 1024}
        with proxy(tmp_path / "out", **options) as running:  # type: ignore[arg-type]
            head = f"POST /v1/chat/completions HTTP/1.1\r\nAuthorization: Bearer {DEFAULT_KEY}"
            status, body = raw_request(running.url, head, CHAT)
            assert status == 200
            assert len(body) < 64 * 1024  # the client gets the bytes as they came
            assert gzip.decompress(body) == b"\0" * size
            traces = running.traces()
            printed = running.printed
        assert "--max-record-mb" in printed or "1,048,576" in printed, printed
        files = [f for trace in traces for f in trace.iterdir()]
        assert sum(os.path.getsize(f) for f in files) < 256 * 1024


def test_strict_checking_a_heavy_request_does_not_hold_up_another_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--strict-check reads a 4 MB request of 120,000 blocks for seconds: in a thread, while
    another agent's request goes through at once. The heavy one is held in its check until the
    light one has its answer: checked on the event loop, it would hold the light one up too."""
    from fccli.proxy import handler

    blocks = [{"type": "text", "text": f"x{i}"} for i in range(300)]
    heavy = json.dumps({"model": "m", "messages": [{"role": "user", "content": blocks}] * 10})
    checking, answered = threading.Event(), threading.Event()
    check = handler.strict_findings

    def held(fmt: Any, path: str, body: bytes, limit: int) -> Any:
        if len(body) == len(heavy):
            checking.set()
            answered.wait(10)
        return check(fmt, path, body, limit)

    monkeypatch.setattr(handler, "strict_findings", held)
    head = f"POST /v1/chat/completions HTTP/1.1\r\nAuthorization: Bearer {DEFAULT_KEY}"
    ended: dict[str, float] = {}
    with (
        FakeProvider() as fake,
        proxy(tmp_path / "out", to=fake.url, strict_check=True) as running,
    ):

        def ask_heavy() -> None:
            raw_request(running.url, head, heavy.encode(), timeout=120)
            ended["heavy"] = time.monotonic()

        thread = threading.Thread(target=ask_heavy)
        thread.start()
        assert checking.wait(10)  # the heavy one is being checked
        started = time.monotonic()
        status, _ = raw_request(running.url, head, CHAT)
        ended["light"] = time.monotonic()
        answered.set()
        thread.join()
    assert status == 200
    assert ended["light"] - started < 1.0
    assert ended["light"] < ended["heavy"]


SMUGGLED = b"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nContent-Length: 2\r\n\r\n{}"
SHAPES = {
    "cl-and-te": b"Content-Length: {n}\r\nTransfer-Encoding: chunked\r\n",
    "two-lengths": b"Content-Length: {n}\r\nContent-Length: 0\r\n",
    "obs-fold": b"Content-Length: {n}\r\nX-Folded: a\r\n b\r\n",
    "te-obfuscated": b"Content-Length: {n}\r\nTransfer-Encoding: xchunked\r\n",
}


@pytest.mark.parametrize("plain", [True, False], ids=["h11", "auto"])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_request_smuggling_shapes_never_reach_the_upstream_as_two(
    tmp_path: Path, shape: str, plain: bool
) -> None:
    """A body that hides a second request: refused (400), or read as one request; the
    upstream never gets the hidden one."""
    import socket

    with FakeProvider() as fake, proxy(tmp_path / "out", to=fake.url, plain=plain) as running:
        host = running.url.removeprefix("http://").encode()
        hidden = SMUGGLED.replace(b"{host}", host)
        body = b"0\r\n\r\n" + hidden
        head = b"POST /v1/models HTTP/1.1\r\nHost: " + host + b"\r\n"
        head += SHAPES[shape].replace(b"{n}", str(len(body)).encode())
        with socket.create_connection(("127.0.0.1", int(host.split(b":")[1])), timeout=10) as s:
            s.sendall(head + b"\r\n" + body)
            s.shutdown(socket.SHUT_WR)
            got = b""
            with contextlib.suppress(OSError):
                while chunk := s.recv(65536):
                    got += chunk
        assert got.count(b"HTTP/1.1 ") <= 1, got
        assert all(r.path != "/v1/chat/completions" for r in fake.received), fake.received


@pytest.mark.parametrize("option", ["--to", "--base-url"])
def test_a_url_with_credentials_is_refused_not_silently_dropped(option: str) -> None:
    from fccli.core.errors import UsageError
    from fccli.proxy.target import resolve

    url = "http://user:hunter2@127.0.0.1:8000"
    with pytest.raises(UsageError) as caught:
        resolve(url) if option == "--to" else resolve("deepseek", url)
    said = str(caught.value)
    assert option in said and "user:password@" in said
    assert "hunter2" not in said
