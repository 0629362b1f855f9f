"""fc proxy's journal records in the gate between bursts (fccli/proxy/bursts.py): the proxy
hands over each fact as it comes, says `Pause` when a burst begins and `Resume` once none has
come for a lull. The journal's side (`Inbox`) keeps what the pipe brings, reading it only every
so often while paused, and hands facts out only while not paused. The clock, the pipe and the
proxy's looks are scripted, so nothing here depends on the machine's speed."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fccli.proxy.bursts import BurstGate
from fccli.proxy.child import Inbox, framed
from fccli.proxy.facts import Close, Notice, Pause, Resume

LULL = 0.02
STALL = 0.005
NAP = 0.05


def said(n: int) -> Notice:
    return Notice("passed", "GET", f"/v1/models/{n}", 200, "not a model request")


# The proxy's side: when a burst's facts are handed over


class Proxy:
    """BurstGate looked at as the proxy's event loop does: at `due`, or `late` seconds after
    it when the process went unscheduled; `handed` keeps what went to the journal, and when."""

    def __init__(self, gate: BurstGate) -> None:
        self.gate = gate
        self.handed: list[tuple[float, Any]] = []

    def run(
        self,
        arrivals: list[tuple[float, Any, int]],
        forwarding: int = 1,
        late: float = 0.0,
        until: float = 1e9,
        asking: int = 2,
    ) -> None:
        """`arrivals`: (when, fact, body size), in time order; `late`: every look comes this
        late; `forwarding`: requests in flight at each look, `asking` as each fact comes."""
        pending = list(arrivals)
        while True:
            due = self.gate.due
            look = None if due is None else due + late
            if pending and (look is None or pending[0][0] <= look):
                at, fact, size = pending.pop(0)
                self._hand(at, self.gate.add(fact, size, at, asking))
            elif look is not None and look <= until:
                self._hand(look, self.gate.look(look, forwarding))
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


def gate(**limits: Any) -> BurstGate:
    return BurstGate(lull=LULL, stall=STALL, **{"hold": 1e9, "backlog": 1 << 30, **limits})


def resumes(proxy: Proxy) -> list[float]:
    return [at for at, fact in proxy.handed if isinstance(fact, Resume)]


def test_a_burst_pauses_the_journal_at_once_and_resumes_it_in_the_lull_after() -> None:
    proxy, arrivals = Proxy(gate()), burst(50, LULL / 4)
    proxy.run(arrivals)  # the last at 0.245 s
    assert proxy.handed[:2] == [(0.0, Pause()), (0.0, said(0))]
    # every fact as it came (a proxy killed outright loses none it had)
    assert [(at, f) for at, f in proxy.handed if isinstance(f, Notice)] == [
        (at, f) for at, f, _ in arrivals
    ]
    assert proxy.handed[-1] == (arrivals[-1][0] + LULL, Resume())
    assert proxy.gate.due is None  # nothing left to look for


def test_one_request_at_a_time_is_recorded_as_it_comes() -> None:
    """One agent: no burst to wait out, and `fc show` run right after it finds its last step."""
    proxy, arrivals = Proxy(gate()), burst(6, LULL / 4)
    proxy.run(arrivals, asking=1)
    assert proxy.handed == [(at, f) for at, f, _ in arrivals]  # no Pause, no Resume
    assert proxy.gate.due is None


def test_the_next_burst_pauses_the_journal_again() -> None:
    proxy = Proxy(gate())
    proxy.run([*burst(3, LULL / 4), *burst(3, LULL / 4, start=1.0, first=3)])
    kinds = [type(f).__name__ for _, f in proxy.handed]
    assert kinds == ["Pause", "Notice", "Notice", "Notice", "Resume"] * 2
    assert proxy.facts() == [said(i) for i in range(6)]


def test_a_late_look_while_requests_are_forwarded_is_not_a_lull() -> None:
    """The proxy's process went unscheduled: facts may be waiting that it has not read yet."""
    proxy = Proxy(gate())
    proxy.run(burst(2, 0.001), forwarding=3, late=2 * STALL, until=1.0)
    assert resumes(proxy) == []  # every look came late, requests in flight
    assert proxy.gate.due is not None  # still looking


def test_a_late_look_with_nothing_forwarded_is_a_lull() -> None:
    """One agent on a busy machine: its step is recorded even when every look comes late."""
    proxy = Proxy(gate())
    proxy.run(burst(2, 0.001), forwarding=0, late=2 * STALL)
    assert resumes(proxy) == [LULL + 2 * STALL]  # the look due a lull after the first


def test_a_trickle_that_never_pauses_is_recorded_at_most_the_hold_late() -> None:
    """Facts that keep coming a little faster than the lull (many agents, a client polling a
    path) never leave one: past the hold the journal records beside them, until the next
    lull, when a new burst pauses it again."""
    every, hold = LULL / 2, 0.5
    proxy = Proxy(gate(hold=hold))
    proxy.run([*burst(400, every), *burst(2, every, start=10.0, first=400)])
    assert proxy.facts() == [said(i) for i in range(402)]
    assert resumes(proxy)[0] == 0.5  # paused while it may be: a burst is forwarded first
    assert [at for at, f in proxy.handed if isinstance(f, Pause)] == [0.0, 10.0]


def test_a_backlog_over_the_limit_lets_the_journal_record_without_a_lull() -> None:
    proxy, arrivals = Proxy(gate(backlog=500)), burst(40, LULL / 4)
    proxy.run(arrivals)
    assert proxy.facts() == [said(i) for i in range(40)]
    assert resumes(proxy)[0] == arrivals[4][0]  # the fifth fact's 100 bytes reached 500


@settings(deadline=None)
@given(
    gaps=st.lists(st.sampled_from([0.0, 0.001, LULL / 2, LULL, 3 * LULL]), max_size=40),
    late=st.sampled_from([0.0, STALL / 2, 2 * STALL]),
    forwarding=st.integers(0, 2),
    asking=st.integers(1, 3),
    hold=st.sampled_from([0.05, 1e9]),
    backlog=st.sampled_from([250, 1 << 30]),
)
def test_every_fact_goes_over_at_once_in_order_and_pauses_alternate_with_resumes(
    gaps: list[float], late: float, forwarding: int, asking: int, hold: float, backlog: int
) -> None:
    arrivals, at = [], 0.0
    for i, gap in enumerate(gaps):
        at += gap
        arrivals.append((at, said(i), 100))
    proxy = Proxy(gate(hold=hold, backlog=backlog))
    proxy.run(arrivals, forwarding=forwarding, late=late, until=at + 10, asking=asking)
    assert [(t, f) for t, f in proxy.handed if isinstance(f, Notice)] == [
        (t, f) for t, f, _ in arrivals
    ]
    markers = [f for _, f in proxy.handed if isinstance(f, (Pause, Resume))]
    assert all(type(a) is not type(b) for a, b in itertools.pairwise(markers))
    assert not markers or isinstance(markers[0], Pause)
    if forwarding == 0 or late <= STALL:  # then a lull always comes, and the journal records
        assert not markers or isinstance(markers[-1], Resume)
        assert proxy.gate.due is None


# The journal's side: what it may record, and when


class ScriptedPipe:
    """What arrives (bytes; b"" is the pipe's end) at which moment, and a clock that moves when
    the journal waits, or works (`work` seconds per fact handled)."""

    def __init__(self, arrivals: list[tuple[float, bytes]]) -> None:
        self.arrivals = list(arrivals)
        self.now = 0.0
        self.reads = 0
        self.max_read = 1 << 30

    def readable(self, timeout: float | None) -> bool:
        if self.arrivals and (timeout is None or self.arrivals[0][0] <= self.now + timeout):
            self.now = max(self.now, self.arrivals[0][0])
            return True
        assert timeout is not None, "the journal would wait for ever"
        self.now += timeout
        return False

    def read(self) -> bytes:
        """Everything that has come, as a pipe gives it (its end: once the rest was read)."""
        assert self.arrivals and self.arrivals[0][0] <= self.now, "read before readable"
        self.reads += 1
        data = b""
        while self.arrivals and self.arrivals[0][0] <= self.now and self.arrivals[0][1]:
            if data and len(data) + len(self.arrivals[0][1]) > self.max_read:
                break  # as a pipe of this size holds, and os.read takes, no more
            data += self.arrivals.pop(0)[1]
        if not data:
            self.arrivals.pop(0)
        return data

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def taken(self, work: float = 0.01, limit: int = 1 << 30) -> list[tuple[float, Any]]:
        inbox, out = Inbox(self.read, self.readable, self.sleep, nap=NAP, limit=limit), []
        self.most_kept = 0
        while (fact := inbox.take()) is not None:
            self.most_kept = max(self.most_kept, inbox.kept)
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
    handed = pipe.taken()
    assert [f for _, f in handed] == [said(i) for i in range(4)]
    assert [at for at, _ in handed[:2]] == [0.0, 0.01]
    assert 1.0 <= handed[2][0] <= 1.0 + NAP  # read at the end of the nap it came in


def test_a_paused_journal_reads_only_once_a_nap_whatever_comes() -> None:
    """A burst writes to the pipe every few milliseconds: a journal woken by each write spent
    ~0.4 ms of CPU per request only reading."""
    writes = [(0.001 * i, framed(said(i))) for i in range(1, 200)]  # 200 writes in 0.2 s
    pipe = ScriptedPipe([(0.0, frames(Pause())), *writes, (0.3, frames(Resume())), (1.0, b"")])
    assert [f for _, f in pipe.taken(work=0)] == [said(i) for i in range(1, 200)]
    assert pipe.reads <= 0.3 / NAP + 3  # not 200


def test_a_journal_slower_than_the_proxy_stops_reading_past_its_limit() -> None:
    """One client sending request after request: without a bound the journal would keep in
    memory all that it has not recorded yet; past it the pipe fills and the proxy's own bound
    takes over (tests/proxy/test_proxy_backlog.py)."""
    size = len(framed(said(0)))
    writes = [(0.001 * i, framed(said(i))) for i in range(300)]  # one every ms, handled in 10
    pipe = ScriptedPipe([*writes, (10.0, b"")])
    pipe.max_read = 10 * size
    handed = pipe.taken(limit=20 * size)
    assert [f for _, f in handed] == [said(i) for i in range(300)]
    assert pipe.most_kept < 20 * size + 10 * size  # the limit, and one read past it
    unbounded = ScriptedPipe([*writes, (10.0, b"")])
    unbounded.max_read = 10 * size
    unbounded.taken()
    assert unbounded.most_kept > 200 * size  # what the limit is for


def test_a_stop_hands_out_everything_at_once_even_in_a_burst() -> None:
    pipe = ScriptedPipe(
        [(0.0, frames(Pause(), said(0), said(1))), (0.5, frames(Close())), (1.0, b"")]
    )
    handed = pipe.taken(work=0)
    assert [f for _, f in handed] == [said(0), said(1), Close()]
    assert len({at for at, _ in handed}) == 1 and 0.5 <= handed[0][0] <= 0.5 + NAP


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
