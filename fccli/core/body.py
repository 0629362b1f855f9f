"""What a provider sends: a request body's bytes, or the file they were written to (read a
piece at a time as it goes out). Light on purpose: the offline run imports it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

PIECE = 1 << 20


class FileBody:
    """A request body as it was written to its file, read from there a piece at a time as it is
    sent: a 20 MB tool result is then not held a third time, as the body's bytes.
    `bytes(body)` reads it whole (the offline demo reads the request as JSON)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._size = path.stat().st_size

    def __len__(self) -> int:
        return self._size

    def __bytes__(self) -> bytes:
        return self.path.read_bytes()

    def pieces(self) -> Iterator[bytes]:
        with self.path.open("rb") as f:
            while piece := f.read(PIECE):
                yield piece


Body = bytes | FileBody
"""What a provider sends: the bytes, or the file they were written to."""
