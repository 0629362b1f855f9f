"""fc proxy's memory when its journal stops reading (fccli/proxy/journal.py, `PENDING_BYTES`):
a journal blocked on its printing (a terminal paused with Ctrl-S, a pager nobody scrolls) no
longer empties the pipe, and past the limit the proxy hands it no more requests, whole, until
the pipe drains; then the journal says how many it missed."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from pathlib import Path

import pytest

from fccli.proxy.child import TRIM_BYTES
from fccli.proxy.facts import Asked, Ended, Notice, Unrecorded
from fccli.proxy.journal import PENDING_BYTES, ChildJournal, _Unhanded
from fccli.proxy.settings import Settings
from fccli.proxy.target import resolve
from tests.proxy.test_proxy_handler import CALLED, _answer, _asked, _ended


def _big(rid: int, padding: int) -> Asked:
    """A request starting a conversation of its own (its question names it), `padding` bytes
    of system prompt."""
    return _asked(
        rid, [{"role": "system", "content": "x" * padding}, {"role": "user", "content": f"q{rid}"}]
    )


def test_past_the_limit_a_request_goes_unhanded_whole_and_one_handed_keeps_its_end() -> None:
    unhanded = _Unhanded(limit=100)
    answer = _ended(1, _answer(CALLED, "tool_calls"))
    refused = Notice("refused", "POST", "/v1/chat/completions", 502, "down", about=2)
    passed = Notice("passed", "GET", "/v1/models", 200, "not a model request")
    bug = Notice("bug", "", "KeyError", None, "x")
    out = [
        unhanded(_big(1, 10), 0),  # room: handed
        unhanded(_big(2, 10), 100),  # full from here on
        unhanded(refused, 100),  # about request 2: not said, not counted again
        unhanded(Ended(2, "unreachable", why="down"), 100),
        unhanded(passed, 100),
        unhanded(bug, 100),  # a bug is always said
        unhanded(answer, 100),  # request 1's end, without its pieces
        unhanded(_ended(3, b"{}"), 0),  # an end whose request it never saw (not this one's)
    ]
    assert [type(f).__name__ if f else None for f in out] == [
        "Asked",
        None,
        None,
        None,
        None,
        "Notice",
        "Ended",
        "Ended",
    ]
    assert out[5] == bug
    assert out[6] == Ended(**{**answer.__dict__, "pieces": [], "unkept": True})
    assert unhanded.unrecorded_notice() == [Unrecorded(2)] and unhanded.unrecorded_notice() == []


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="no SIGSTOP (Windows)")
def test_a_journal_that_stops_reading_costs_bounded_memory_and_hears_what_it_missed(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    limit, padding = 1 << 20, 300_000
    journal = ChildJournal(resolve("http://127.0.0.1:9"), Settings(out=tmp_path), limit=limit)
    pid = journal._child.pid
    most = 0

    async def lull() -> None:
        """Until the proxy has told the journal that it may record (`Resume`)."""
        deadline = time.monotonic() + 20
        while journal._gate.due is not None:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.01)

    async def agents() -> None:
        nonlocal most
        os.kill(pid, signal.SIGSTOP)  # the journal reads no more
        try:
            for burst in range(3):  # 18 requests of ~300 KB each, in three bursts
                for rid in range(burst * 6 + 1, burst * 6 + 7):
                    journal(_big(rid, padding))
                    journal(_ended(rid, _answer(CALLED, "tool_calls")))
                await lull()
                most = max(most, len(journal._pending))
        finally:
            os.kill(pid, signal.SIGCONT)
        deadline = time.monotonic() + 30
        while journal._pending:  # drained, and told
            assert time.monotonic() < deadline
            await asyncio.sleep(0.01)
        journal(_big(99, 10))  # recorded again
        journal(_ended(99, _answer({"role": "assistant", "content": "好"}, "stop")))
        await lull()
        assert journal.close()

    try:
        asyncio.run(agents())
    finally:
        if journal._child.poll() is None:  # a failure above: the child is not left behind
            journal._child.kill()
            journal._child.wait()
    assert most <= limit + padding + 4096  # one request over the limit at most
    traces = {
        json.loads((t / "manifest.json").read_text())["question"]: t for t in tmp_path.iterdir()
    }
    handed = [traces[q] for q in traces if q != "q99"]
    # those that came while the pipe had room (its own, then the limit), whole or not at all
    assert 0 < len(handed) < 18
    printed = " ".join(capfd.readouterr().out.split())
    said = f"fc proxy forwarded {18 - len(handed)} request(s) without recording them"
    assert printed.count(said) == 1, printed
    missing = 0
    for trace in handed:
        manifest = json.loads((trace / "manifest.json").read_text())
        if manifest["status"] == "error":  # its answer came once the pipe was full: it says so
            assert "journal had fallen behind" in manifest["error"]["message"]
            missing += 1
        else:
            assert (trace / "1-response.json").exists()
    assert missing >= 1
    assert json.loads((traces["q99"] / "manifest.json").read_text())["status"] == "ok"


def test_the_proxy_gives_the_heap_back_once_it_has_written_a_backlog_out() -> None:
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    journal = object.__new__(ChildJournal)  # its writing alone, without a journal's process
    trims: list[int] = []
    journal._fd, journal._dead, journal._unhanded = write_end, False, _Unhanded(PENDING_BYTES)
    journal._pending = bytearray(TRIM_BYTES + 1)
    journal._trim, journal._written = lambda: trims.append(len(journal._pending)), 0
    try:
        journal._write_some()  # the pipe takes a part
        assert journal._pending and trims == []
        while journal._pending:
            os.read(read_end, 1 << 20)
            journal._write_some()
        assert trims == [0]  # once, when all was written
        journal._pending += b"x" * 10
        journal._write_some()
        assert trims == [0]  # not again for a few bytes
    finally:
        os.close(read_end)
        os.close(write_end)
