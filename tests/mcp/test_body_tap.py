"""What the MCP wiretap keeps of an HTTP answer's body (fc mcp record --to, fc run --mcp URL):
each SSE event once whole, however the body is cut; of a body past the limit, nothing more, and
the cut said in the log; a long body without an event's end is not scanned again and again. And
what `fc mcp record` keeps of a stdio line past the limit: its start, its length."""

from __future__ import annotations

import io
import time

import pytest

from fccli.core.secrets import Secrets
from fccli.mcp.wiretap import BodyTap, Wiretap


def _tap() -> Wiretap:
    return Wiretap(Secrets([]), lambda: None)


def test_events_cut_anywhere_are_kept_once_whole() -> None:
    body = b'event: message\r\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\r\n\r\n' * 3
    for size in (1, 2, 5, len(body)):
        tap = _tap()
        taken = BodyTap(tap, sse=True)
        for at in range(0, len(body), size):
            taken.feed(body[at : at + size])
        taken.end()
        assert [m["message"]["id"] for m in tap.messages] == [1, 1, 1], size


def test_a_body_past_the_limit_is_kept_no_further_and_said() -> None:
    tap = _tap()
    taken = BodyTap(tap, sse=False, limit=1000)
    for _ in range(10):
        taken.feed(b"x" * 300)
    taken.end()
    assert [m.get("event") for m in tap.messages] == ["body_cut"]
    assert tap.messages[0]["max_bytes"] == 1000 and taken.buffer == bytearray()


def test_a_long_event_is_not_scanned_again_for_every_piece() -> None:
    taken = BodyTap(_tap(), sse=True)
    started = time.process_time()
    for _ in range(512):  # 32 MB in 64 KB pieces, no event's end in them
        taken.feed(b"data: " + b"x" * 65530)
    assert time.process_time() - started < 2  # scanned whole each time: ~8 GB of copying
    assert taken.size == 512 * 65536


def test_fc_mcp_record_keeps_the_start_of_a_line_past_the_limit_and_passes_it_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fccli.mcp import record

    monkeypatch.setattr(record, "KEPT_BYTES", 64)
    tap, sink = _tap(), io.BytesIO()
    lines = b'{"jsonrpc":"2.0","id":1}\n' + b"y" * 1000 + b"\n" + b'{"jsonrpc":"2.0","id":2}'
    record._copy_lines(io.BytesIO(lines), sink, tap, tap.received)
    assert sink.getvalue() == lines  # the client gets every byte
    kept = [
        (m.get("message", {}).get("id"), m.get("raw", "")[:3], m.get("bytes")) for m in tap.messages
    ]
    assert kept == [(1, "", None), (None, "yyy", None), (None, "", 1001), (2, "", None)]
