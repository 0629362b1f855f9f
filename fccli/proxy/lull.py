"""When the proxy hands its facts to the journal (journal.py): a burst of requests is forwarded
first and recorded in the lull after it.

Measured on 2 cores (benchmarks/proxy.py, 16 clients): a journal that works while requests are
being forwarded takes CPU from the forwarding, and added 15-30 ms to the first byte of a stream.
So while requests keep coming the proxy holds the facts in its own memory, and the journal,
told so once (`Pause`), sleeps: it is not even woken to read them. The proxy hands them over
with `Resume` once none has come for `LULL_SECONDS`, and the journal records them until the
next burst begins (`Pause` again). One agent waits seconds for each answer and runs its tools
between requests: lulls come all the time, and its steps show this much later, at most.

A late look is not a lull: on a busy machine the proxy's process can go unscheduled for longer
than the lull, and facts it has not read yet do not count. A look that comes more than
`STALL_SECONDS` late counts as a lull only when no request is being forwarded; otherwise it
looks again a lull later.

Bounds, for requests that never pause: past `BACKLOG_BYTES` held, or once the oldest fact has
waited `HOLD_SECONDS`, the proxy hands everything over and goes on handing facts as they come
(a flood), until the next lull. The journal then works beside the forwarding, and the requests
pay for it again: on 2 cores nothing can both keep up with a flood and not compete with it.

`Holding` is only the rule, over a clock the caller reads: the tests script it.
"""

from __future__ import annotations

from typing import Any

from fccli.proxy.facts import Pause, Resume

LULL_SECONDS = 0.05
STALL_SECONDS = 0.01
HOLD_SECONDS = 120.0
"""Why so long: the bound is for a flood, not a burst. benchmarks/proxy.py sends ~3,400
requests over ~40 s (four bursts with short pauses the journal uses); at 30 s the journal
started working during the last burst, its backlog then older than the bound, and the first
byte came 16 ms later."""
BACKLOG_BYTES = 64 << 20
"""Bodies held, at most: memory stays bounded under a flood that never pauses."""


class Holding:
    """The facts of a burst, held until its lull. `add` and `look` return what to hand the
    journal now, in order; `due` is when to `look` next (None: nothing to look for)."""

    def __init__(
        self,
        lull: float = LULL_SECONDS,
        stall: float = STALL_SECONDS,
        hold: float = HOLD_SECONDS,
        backlog: int = BACKLOG_BYTES,
    ) -> None:
        self._lull, self._stall, self._hold, self._backlog = lull, stall, hold, backlog
        self.held: list[Any] = []
        self._size = 0
        self._first = 0.0
        """When the oldest held fact came."""
        self._last = 0.0
        """When the newest fact came."""
        self.due: float | None = None
        self._busy = False
        """A burst is on: the journal was told to pause, or it is a flood."""
        self._flooding = False

    def add(self, fact: Any, size: int, now: float) -> list[Any]:
        """`fact` came at `now`, with `size` bytes of body."""
        self._last = now
        if self._flooding:
            return [fact]
        self.held.append(fact)
        self._size += size
        if not self._busy:  # a burst begins: the journal holds off at once
            self._busy = True
            self._first = now
            self.due = now + self._lull
            return [Pause()]
        if self._size >= self._backlog:
            return self._flood()
        return []

    def look(self, now: float, forwarding: int) -> list[Any]:
        """Looked at `now` (for `due`), while `forwarding` requests are being forwarded."""
        if not self._busy or self.due is None:
            self.due = None
            return []
        stalled = now - self.due > self._stall
        if now >= self._last + self._lull and (not stalled or forwarding == 0):
            handed = self.held
            self.held, self._size, self.due = [], 0, None
            self._busy = self._flooding = False
            return [*handed, Resume()] if handed else []
        handed = []
        if not self._flooding and now - self._first >= self._hold:
            handed = self._flood()
        self.due = (now if stalled else self._last) + self._lull
        return handed

    def _flood(self) -> list[Any]:
        """Everything held, and from now on each fact as it comes, until the next lull."""
        self._flooding = True
        handed, self.held, self._size = self.held, [], 0
        return [*handed, Resume()]
