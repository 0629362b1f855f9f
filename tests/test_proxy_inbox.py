"""The journal's inbox (fccli/proxy/journal.py): a burst of facts is only read while it lasts,
and handled in the lull after it; a stop, the pipe's end or a backlog over the limit are handled
at once. The pipe and the clock are scripted, so nothing here depends on the machine's speed."""

from __future__ import annotations

from typing import Any

from fccli.proxy.facts import Close, Said
from fccli.proxy.journal import Inbox, framed

LULL = 0.02


class ScriptedPipe:
    """What arrives (bytes; b"" is the pipe's end) at which moment, and a clock that moves only
    when the inbox waits."""

    def __init__(self, arrivals: list[tuple[float, bytes]]) -> None:
        self.arrivals = list(arrivals)
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    def readable(self, timeout: float | None) -> bool:
        if self.arrivals and (timeout is None or self.arrivals[0][0] <= self.now + timeout):
            self.now = max(self.now, self.arrivals[0][0])
            return True
        assert timeout is not None, "the inbox would wait for ever"
        self.now += timeout
        return False

    def read(self) -> bytes:
        assert self.arrivals and self.arrivals[0][0] <= self.now, "read before readable"
        return self.arrivals.pop(0)[1]

    def inbox(self, backlog: int = 1 << 30, hold: float = 1e9) -> Inbox:
        return Inbox(self.read, self.readable, self.clock, lull=LULL, backlog=backlog, hold=hold)


def said(n: int) -> Said:
    return Said("passed", "GET", f"/v1/models/{n}", 200, "not a model request")


def burst(count: int, every: float) -> list[tuple[float, bytes]]:
    return [(i * every, framed(said(i))) for i in range(count)]


def taken(inbox: Inbox, pipe: ScriptedPipe) -> list[tuple[float, Any]]:
    out = []
    while (fact := inbox.take()) is not None:
        out.append((pipe.now, fact))
    return out


def test_a_burst_is_handled_in_the_lull_after_it_in_order() -> None:
    pipe = ScriptedPipe([*burst(50, LULL / 4), (5.0, b"")])  # the last at 0.245 s
    handed = taken(pipe.inbox(), pipe)
    assert [fact for _, fact in handed] == [said(i) for i in range(50)]
    first_at = handed[0][0]
    assert first_at >= 49 * LULL / 4 + LULL  # nothing while the burst went on
    assert all(at < 5.0 for at, _ in handed)  # then all of it, without waiting for the end


def test_a_fact_arriving_during_the_catch_up_waits_for_the_next_lull() -> None:
    pipe = ScriptedPipe(
        [(0.0, framed(said(0)) + framed(said(1))), (0.021, framed(said(2))), (1.0, b"")]
    )
    inbox = pipe.inbox()
    assert inbox.take() == said(0)
    assert pipe.now == LULL  # the lull after the first arrival
    assert inbox.take() == said(1)  # read at 0.021: the rest waits for a lull again
    assert inbox.take() == said(2)
    assert pipe.now >= 0.021 + LULL
    assert inbox.take() is None


def test_a_stop_is_handled_at_once_with_everything_before_it() -> None:
    pipe = ScriptedPipe([*burst(10, LULL / 4), (0.05, framed(Close())), (9.0, b"")])
    handed = taken(pipe.inbox(), pipe)
    assert [fact for _, fact in handed] == [said(i) for i in range(10)] + [Close()]
    assert all(at == 0.05 for at, _ in handed)  # the last fact came at 0.045: no lull yet


def test_the_pipes_end_hands_out_what_is_left_and_drops_a_half_written_fact() -> None:
    half = framed(said(9))[:-3]
    pipe = ScriptedPipe([(0.0, framed(said(0)) + half), (0.001, b"")])
    handed = taken(pipe.inbox(), pipe)
    assert [fact for _, fact in handed] == [said(0)]
    assert handed[0][0] == 0.001


def test_a_fact_split_across_reads_is_whole_once_its_last_byte_came() -> None:
    whole = framed(said(7))
    pipe = ScriptedPipe([(0.0, whole[:5]), (0.001, whole[5:30]), (0.002, whole[30:]), (1.0, b"")])
    handed = taken(pipe.inbox(), pipe)
    assert handed == [(0.002 + LULL, said(7))]


def test_a_backlog_over_the_limit_is_handled_without_a_lull() -> None:
    size = len(framed(said(0)))
    pipe = ScriptedPipe([*burst(40, LULL / 4), (9.0, b"")])
    handed = taken(pipe.inbox(backlog=5 * size), pipe)
    assert [fact for _, fact in handed] == [said(i) for i in range(40)]
    assert handed[0][0] < 39 * LULL / 4  # while the burst still went on


def test_bytes_that_are_not_facts_end_the_reading() -> None:
    junk = (12).to_bytes(8, "big") + b"not a pickle"
    pipe = ScriptedPipe([(0.0, framed(said(1)) + junk + framed(said(2)))])
    assert [fact for _, fact in taken(pipe.inbox(), pipe)] == [said(1)]


def test_a_trickle_that_never_pauses_is_handled_at_most_the_hold_late_in_order() -> None:
    """Facts that keep coming a little faster than the lull (many agents, a client polling a
    path every 40 ms) never leave a lull, and far below the backlog: without a bound on the
    wait, the transcript and the traces would stay unwritten for as long as the trickle lasts."""
    every, hold = LULL / 2, 0.5
    pipe = ScriptedPipe([*burst(400, every), (100.0, b"")])  # 4 s of a fact every 10 ms
    handed = taken(pipe.inbox(hold=hold), pipe)
    assert [fact for _, fact in handed] == [said(i) for i in range(400)]
    late = [at - i * every for i, (at, _) in enumerate(handed)]
    assert max(late) <= hold + every, max(late)
    assert handed[0][0] >= hold  # still waits while it may: a burst is forwarded first
