"""What the hardening tests of fc proxy and fc serve need: a listener that must get nothing, and
requests written byte by byte (an HTTP client would correct the target or the headers)."""

from __future__ import annotations

import contextlib
import socket
import threading
from urllib.parse import urlsplit


class Trap:
    """A listener on 127.0.0.1 that counts the connections it gets (a test asserts none)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.received = b""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.settimeout(0.5)
            with contextlib.suppress(OSError):
                self.received += conn.recv(65536)
            conn.close()

    def __enter__(self) -> Trap:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


def raw_request(
    url: str, head: str, body: bytes = b"", host: str | None = None, timeout: float = 10
) -> tuple[int, bytes]:
    """Send `head` (request line and headers, without Host unless `host` says one; "" for none)
    and `body` to the server at `url`; return the status and the body (Connection: close)."""
    parts = urlsplit(url)
    port = parts.port
    assert parts.hostname and port
    host_line = (
        f"Host: {parts.netloc}\r\n" if host is None else (f"Host: {host}\r\n" if host else "")
    )
    data = (
        head.rstrip("\r\n").encode("latin-1")
        + b"\r\n"
        + host_line.encode("latin-1")
        + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    with socket.create_connection((parts.hostname, port), timeout=timeout) as s:
        s.sendall(data)
        got = b""
        while chunk := s.recv(65536):
            got += chunk
    head_bytes, _, rest = got.partition(b"\r\n\r\n")
    status = int(head_bytes.split(b" ", 2)[1]) if head_bytes else 0
    return status, rest
