"""fc proxy's limits as options set them: --timeout is a total (an upstream that trickles its
answer, or its headers, is cut when it runs out), and an --allow-origin that is no origin is
refused at start, by fc serve too."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support import local_http
from tests.support.proxy_harness import proxy

pytestmark = pytest.mark.server

CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}


@contextlib.contextmanager
def trickling(headers_too: bool) -> Iterator[str]:
    """An upstream that answers a byte at a time, every 50 ms, for ever (its headers too, with
    `headers_too`)."""
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            threading.Thread(target=drip, args=(conn,), daemon=True).start()

    def drip(conn: socket.socket) -> None:
        with contextlib.suppress(OSError), conn:
            conn.recv(65536)
            head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n"
            if not headers_too:
                conn.sendall(head)
                head = b"data: " + b"x" * 10_000
            for byte in head:
                if stop.wait(0.05):
                    return
                conn.sendall(bytes([byte]))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        server.close()


@pytest.mark.parametrize("headers_too", [False, True], ids=["body", "headers"])
def test_the_timeout_is_a_total_a_trickle_does_not_outrun(tmp_path: Path, headers_too) -> None:
    with trickling(headers_too) as url, proxy(tmp_path / "out", to=url, timeout=0.3) as running:
        started = time.monotonic()
        with contextlib.suppress(httpx.HTTPError):
            reply = local_http.post(running.url + "/v1/chat/completions", json=CHAT, timeout=30)
            if headers_too:
                assert reply.status_code == 502
                assert "in time" in reply.text
        took = time.monotonic() - started
        assert took < 5  # a byte every 50 ms would go on for ever
        deadline = time.monotonic() + 10
        said = "in time" if headers_too else "within --timeout (0.3 s)"
        while said not in running.printed and time.monotonic() < deadline:
            time.sleep(0.02)
        printed = running.printed
    assert said in printed, printed
    [trace] = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    manifest = json.loads((trace / "manifest.json").read_bytes())
    assert manifest["status"] in ("error", "interrupted")
    assert said in manifest["error"]["message"]


@pytest.mark.parametrize("origin", ["null", "*", "localhost:3000", "http://localhost:3000/app"])
@pytest.mark.parametrize("command", ["proxy", "serve"])
def test_an_allow_origin_that_is_no_origin_is_refused_at_start(fc, origin, command) -> None:
    target = (
        ["--to", "http://127.0.0.1:9"]
        if command == "proxy"
        else [str(Path("traces/examples/three-cities").resolve())]
    )
    ran = fc(command, *target, "--port", "0", "--allow-origin", origin)
    assert ran.returncode == 2
    assert f"--allow-origin {origin!r}: not an origin" in ran.stderr
    assert "http://localhost:3000" in ran.stderr  # an example of one
