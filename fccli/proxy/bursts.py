"""When fc proxy's journal (journal.py) records: in the lulls between bursts of requests.

A journal that works while requests are being forwarded takes CPU from the forwarding and
delays the first byte of a stream; one woken by every batch of facts only to read them costs
CPU for every request (docs/performance.md). So when a burst begins the proxy tells the journal
so (`Pause`): the journal then keeps what comes through the pipe, reads it only every so often,
and records nothing. The proxy says `Resume` once no
request has come or ended for `LULL_SECONDS`, and the journal records what it kept, until the
next `Pause`. A burst is two requests or more being forwarded at once: one agent, asking one
thing at a time, is recorded as it goes (its steps are on disk soon after its answers are: the
journal is a process of its own, and a busy machine can run it later). The facts themselves go through the pipe as they
come, not held in the proxy: a proxy killed outright loses none that it wrote (the journal
records them once the pipe ends).

A late look is not a lull: on a busy machine the proxy's process can go unscheduled for longer
than the lull, and facts it has not read yet do not count. A look that comes more than
`STALL_SECONDS` late counts as a lull only when no request is being forwarded; otherwise it
looks again a lull later.

Bounds, for requests that never pause: past `BACKLOG_BYTES` kept, or once the oldest kept fact
has waited `HOLD_SECONDS`, the proxy says `Resume` and does not pause the journal again until
the next lull (a flood). The journal then works beside the forwarding, and the requests pay for
it again: on 2 cores nothing can both keep up with a flood and not compete with it.

`BurstGate` is only the rule, over a clock the caller reads: the tests script it.
"""

from __future__ import annotations

from typing import Any

from fccli.proxy.facts import Pause, Resume

LULL_SECONDS = 0.05
STALL_SECONDS = 0.01
HOLD_SECONDS = 120.0
"""Long, because the bound is for a flood, not a burst: a benchmark's bursts with short pauses
between them must not reach it (docs/performance.md)."""
BACKLOG_BYTES = 64 << 20
"""Bodies held, at most: memory stays bounded under a flood that never pauses."""


class BurstGate:
    """Decide whether the journal may record.

    `add` and `look` return what to hand the journal now, in order: the fact, after `Pause`
    when a burst begins; `Resume` when it may record again. `due` is when to `look` next (None:
    nothing to look for)."""

    def __init__(
        self,
        lull: float = LULL_SECONDS,
        stall: float = STALL_SECONDS,
        hold: float = HOLD_SECONDS,
        backlog: int = BACKLOG_BYTES,
    ) -> None:
        self._lull, self._stall, self._hold, self._backlog = lull, stall, hold, backlog
        self._size = 0
        """The bytes of body handed over since the journal paused."""
        self._first = 0.0
        """When the burst began."""
        self._last = 0.0
        """When the newest fact came."""
        self.due: float | None = None
        self._busy = False
        """A burst is on: the journal was told to pause, or it is a flood."""
        self._flooding = False

    def add(self, fact: Any, size: int, now: float, forwarding: int) -> list[Any]:
        """Take `fact`, come at `now` with `size` bytes of body while `forwarding` requests were
        being forwarded (its own included)."""
        self._last = now
        if self._flooding:
            return [fact]
        if not self._busy and forwarding <= 1:  # one request at a time: recorded as it comes
            return [fact]
        if not self._busy:  # a burst begins: the journal holds off at once
            self._busy = True
            self._first, self._size = now, size
            self.due = now + self._lull
            return [Pause(), fact]
        self._size += size
        if self._size >= self._backlog:
            return [fact, *self._flood()]
        return [fact]

    def look(self, now: float, forwarding: int) -> list[Any]:
        """Look whether a lull came, at `now` (for `due`), while `forwarding` requests are
        being forwarded."""
        if not self._busy or self.due is None:
            self.due = None
            return []
        stalled = now - self.due > self._stall
        if now >= self._last + self._lull and (not stalled or forwarding == 0):
            flooding = self._flooding
            self.due, self._busy, self._flooding = None, False, False
            return [] if flooding else [Resume()]
        handed = []
        if not self._flooding and now - self._first >= self._hold:
            handed = self._flood()
        self.due = (now if stalled else self._last) + self._lull
        return handed

    def _flood(self) -> list[Any]:
        """Let the journal record from now on, until the next lull."""
        self._flooding = True
        return [Resume()]
