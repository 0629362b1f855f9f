"""fc proxy's journal records in the lulls between bursts (fccli/proxy/lull.py): the proxy holds
a burst's facts and tells the journal to pause; it hands them over with `Resume` once none has
come for a lull. The journal's side (`Inbox`) reads what the pipe brings and hands out only
while not paused. The clock, the pipe and the proxy's looks are scripted, so nothing here
depends on the machine's speed."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fccli.proxy.facts import Close, Pause, Resume, Said
from fccli.proxy.journal import Inbox, framed
from fccli.proxy.lull import Holding

LULL = 0.02
STALL = 0.005


def said(n: int) -> Said:
    return Said("passed", "GET", f"/v1/models/{n}", 200, "not a model request")


# The proxy's side: when a burst's facts are handed over


class Proxy:
    """A Holding looked at as the proxy's event loop does: at `due`, or `late` seconds after
    it when the process went unscheduled; `handed` keeps what went to the journal, and when."""

    def __init__(self, holding: Holding) -> None:
        self.holding = holding
        self.handed: list[tuple[float, Any]] = []

    def run(
        self,
        arrivals: list[tuple[float, Any, int]],
        forwarding: int = 1,
        late: float = 0.0,
        until: float = 1e9,
    ) -> None:
        """`arrivals`: (when, fact, body size), in time order; `late`: every look comes this
        late; `forwarding`: requests in flight at each look."""
        pending = list(arrivals)
        while True:
            due = self.holding.due
            look = None if due is None else due + late
            if pending and (look is None or pending[0][0] <= look):
                at, fact, size = pending.pop(0)
                self._hand(at, self.holding.add(fact, size, at))
            elif look is not None and look <= until:
                self._hand(look, self.holding.look(look, forwarding))
            else:
                return

    def _hand(self, at: float, facts: list[Any]) -> None:
        self.handed += [(at, fact) for fact in facts]

    def facts(self) -> list[Any]:
        return [f for _, f in self.handed if not isinstance(f, (Pause, Resume))]

    def first(self, kind: type) -> float:
        return next(at for at, fact in self.handed if isinstance(fact, kind))


def burst(count: int, every: float, start: float = 0.0, first: int = 0) -> list[Any]:
    return [(start + i * every, said(first + i), 100) for i in range(count)]


def holding(**limits: Any) -> Holding:
    return Holding(lull=LULL, stall=STALL, **{"hold": 1e9, "backlog": 1 << 30, **limits})


def test_a_burst_is_held_and_handed_over_in_the_lull_after_it() -> None:
    proxy, arrivals = Proxy(holding()), burst(50, LULL / 4)
    proxy.run(arrivals)  # the last at 0.245 s
    assert proxy.handed[0] == (0.0, Pause())  # at once: the journal stops recording
    assert [f for _, f in proxy.handed[1:]] == [*(said(i) for i in range(50)), Resume()]
    assert {at for at, _ in proxy.handed[1:]} == {arrivals[-1][0] + LULL}
    assert proxy.holding.due is None  # nothing left to look for


def test_the_next_burst_pauses_the_journal_again() -> None:
    proxy = Proxy(holding())
    proxy.run([*burst(3, LULL / 4), *burst(3, LULL / 4, start=1.0, first=3)])
    kinds = [type(f).__name__ for _, f in proxy.handed]
    assert kinds == ["Pause", "Said", "Said", "Said", "Resume"] * 2
    assert proxy.facts() == [said(i) for i in range(6)]


def test_a_late_look_while_requests_are_forwarded_is_not_a_lull() -> None:
    """The proxy's process went unscheduled: facts may be waiting that it has not read yet."""
    proxy = Proxy(holding())
    proxy.run(burst(2, 0.001), forwarding=3, late=2 * STALL, until=1.0)
    assert proxy.handed == [(0.0, Pause())]  # every look came late, requests in flight
    assert proxy.holding.due is not None  # still looking


def test_a_late_look_with_nothing_forwarded_is_a_lull() -> None:
    """One agent on a busy machine: its step is written even when every look comes late."""
    proxy = Proxy(holding())
    proxy.run(burst(2, 0.001), forwarding=0, late=2 * STALL)
    assert proxy.facts() == [said(0), said(1)]
    assert proxy.first(Resume) == LULL + 2 * STALL  # the look due a lull after the first


def test_a_trickle_that_never_pauses_is_handed_over_at_most_the_hold_late_in_order() -> None:
    """Facts that keep coming a little faster than the lull (many agents, a client polling a
    path) never leave one: past the hold everything goes over, then each fact as it comes,
    until the next lull, when a new burst pauses the journal again."""
    every, hold = LULL / 2, 0.5
    proxy = Proxy(holding(hold=hold))
    proxy.run([*burst(400, every), *burst(2, every, start=10.0, first=400)])
    assert proxy.facts() == [said(i) for i in range(402)]
    handed_at = {fact: at for at, fact in proxy.handed}
    late = [handed_at[said(i)] - i * every for i in range(400)]
    assert max(late) <= hold + every, max(late)
    assert proxy.first(Resume) >= hold  # still held while it may be: a burst is forwarded first
    assert [at for at, f in proxy.handed if isinstance(f, Pause)] == [0.0, 10.0]


def test_a_backlog_over_the_limit_is_handed_over_without_a_lull() -> None:
    proxy, arrivals = Proxy(holding(backlog=500)), burst(40, LULL / 4)
    proxy.run(arrivals)
    assert proxy.facts() == [said(i) for i in range(40)]
    assert proxy.first(Resume) == arrivals[4][0]  # the fifth fact's 100 bytes reached 500


@settings(max_examples=60, deadline=None)
@given(
    gaps=st.lists(st.sampled_from([0.0, 0.001, LULL / 2, LULL, 3 * LULL]), max_size=40),
    late=st.sampled_from([0.0, STALL / 2, 2 * STALL]),
    forwarding=st.integers(0, 2),
    hold=st.sampled_from([0.05, 1e9]),
    backlog=st.sampled_from([250, 1 << 30]),
)
def test_every_fact_goes_over_once_in_order_and_pauses_alternate_with_resumes(
    gaps: list[float], late: float, forwarding: int, hold: float, backlog: int
) -> None:
    arrivals, at = [], 0.0
    for i, gap in enumerate(gaps):
        at += gap
        arrivals.append((at, said(i), 100))
    proxy = Proxy(holding(hold=hold, backlog=backlog))
    proxy.run(arrivals, forwarding=forwarding, late=late, until=at + 10)
    assert proxy.facts() + proxy.holding.held == [said(i) for i in range(len(gaps))]
    markers = [f for _, f in proxy.handed if isinstance(f, (Pause, Resume))]
    assert all(type(a) is not type(b) for a, b in itertools.pairwise(markers))
    assert not markers or isinstance(markers[0], Pause)
    if forwarding == 0 or late <= STALL:  # then a lull always ends in a hand-over
        assert proxy.holding.held == [] and proxy.holding.due is None


# The journal's side: what it may record, and when


class ScriptedPipe:
    """What arrives (bytes; b"" is the pipe's end) at which moment, and a clock that moves when
    the journal waits, or works (`work` seconds per fact handled)."""

    def __init__(self, arrivals: list[tuple[float, bytes]]) -> None:
        self.arrivals = list(arrivals)
        self.now = 0.0

    def readable(self, timeout: float | None) -> bool:
        if self.arrivals and (timeout is None or self.arrivals[0][0] <= self.now + timeout):
            self.now = max(self.now, self.arrivals[0][0])
            return True
        assert timeout is not None, "the journal would wait for ever"
        self.now += timeout
        return False

    def read(self) -> bytes:
        assert self.arrivals and self.arrivals[0][0] <= self.now, "read before readable"
        return self.arrivals.pop(0)[1]

    def taken(self, work: float = 0.01) -> list[tuple[float, Any]]:
        inbox, out = Inbox(self.read, self.readable), []
        while (fact := inbox.take()) is not None:
            out.append((self.now, fact))
            self.now += work
        return out


def frames(*facts: Any) -> bytes:
    return b"".join(framed(f) for f in facts)


def test_the_journal_stops_at_a_pause_between_two_facts_and_goes_on_at_resume() -> None:
    pipe = ScriptedPipe(
        [
            (0.0, frames(said(0), said(1), said(2))),
            (0.015, frames(Pause())),  # a burst began while the journal handled said(1)
            (1.0, frames(said(3), Resume())),
            (2.0, b""),
        ]
    )
    assert pipe.taken() == [(0.0, said(0)), (0.01, said(1)), (1.0, said(2)), (1.01, said(3))]


def test_a_stop_hands_out_everything_at_once_even_in_a_burst() -> None:
    pipe = ScriptedPipe(
        [(0.0, frames(Pause(), said(0), said(1))), (0.5, frames(Close())), (1.0, b"")]
    )
    assert pipe.taken(work=0) == [(0.5, said(0)), (0.5, said(1)), (0.5, Close())]


def test_the_pipes_end_hands_out_what_is_left_and_drops_a_half_written_fact() -> None:
    half = framed(said(9))[:-3]
    pipe = ScriptedPipe([(0.0, frames(Pause(), said(0)) + half), (0.3, b"")])
    assert pipe.taken() == [(0.3, said(0))]


def test_a_fact_split_across_reads_is_whole_once_its_last_byte_came() -> None:
    whole = framed(said(7))
    pipe = ScriptedPipe([(0.0, whole[:5]), (0.001, whole[5:30]), (0.002, whole[30:]), (1.0, b"")])
    assert pipe.taken() == [(0.002, said(7))]


def test_bytes_that_are_not_facts_end_the_reading() -> None:
    junk = (12).to_bytes(8, "big") + b"not a pickle"
    pipe = ScriptedPipe([(0.0, framed(said(1)) + junk + framed(said(2)))])
    assert [fact for _, fact in pipe.taken()] == [said(1)]
