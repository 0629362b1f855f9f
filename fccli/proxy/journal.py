"""Where the proxy's slow work happens, off the requests' path: the journal, which reads,
matches and checks each model request, writes the traces and prints the transcript
(handler.py).

The event loop only forwards, and hands the journal plain facts (facts.py) through one of two
transports, each running the same FactHandler over the facts in the order the loop saw them:

- `ChildJournal` (`fc proxy`): a child process (`python -m fccli.proxy.child`, child.py) fed pickled
  facts through a pipe. Its CPU time goes to the other core instead of holding the event loop's
  interpreter lock. It records one request at a time as it comes, and a burst of them in the
  lull after it (bursts.py): while the burst goes on it only keeps what comes, reading the pipe
  every `LULL_SECONDS`. It prints to the same terminal. It is in a session of its own, so the
  terminal's Ctrl-C does not reach it: the proxy tells it to close the open traces (`Close`),
  and a pipe that ends without that (the proxy was killed) closes them too. Writes to the pipe
  never block the loop: what the pipe cannot take yet waits in memory and is written when the
  loop sees the pipe writable, up to `PENDING_BYTES`; past that, requests are forwarded without
  being handed over (`_Unhanded`).
- `ThreadJournal` (the in-process tests, which read the terminal and the trace right after a
  request: `flush`): a thread of the proxy's process.

Stopping waits for the journal to write what is queued, at most `FINISH_SECONDS`, and says so
when it could not.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from queue import SimpleQueue
from typing import TYPE_CHECKING, Any

from fccli.i18n import language
from fccli.proxy.bursts import BurstGate
from fccli.proxy.child import TRIM_BYTES, framed, trimmer
from fccli.proxy.facts import Asked, Close, Ended, Flush, Notice, Pause, Resume, Unrecorded

if sys.platform != "win32":
    import fcntl

if TYPE_CHECKING:
    from fccli.proxy.settings import Settings
    from fccli.proxy.target import Target
    from fccli.render.proxy_view import ProxyView

FINISH_SECONDS = 120.0
"""How long stopping waits for the journal to write what is queued before giving up on it:
what a long burst left (the journal records in lulls) takes its time."""
PATIENT_SECONDS = 1.0
"""After this, stopping says that it is waiting for the journal."""
BATCH_SECONDS = 0.005
"""The proxy writes the facts of this long at once: each write to the pipe costs a system call,
and wakes a journal that is recording (docs/performance.md)."""
PIPE_BYTES = 1 << 20
"""The pipe's size where the system lets it be set (Linux): a paused journal reads it only every
LULL_SECONDS, and what a burst brings meanwhile waits there, not in the proxy's memory."""
PENDING_BYTES = 256 << 20
"""What the pipe has not taken yet, at most, before requests go unrecorded. A journal that
stops reading (its terminal paused with Ctrl-S, its output piped to a pager nobody scrolls)
blocks on its printing, and the proxy would hold every request's body and answer for it for
as long as the agent runs. Past this the proxy forwards requests without handing them over,
whole (neither their request nor their answer), and says how many once the pipe has drained.
Four times what a paused journal may keep (bursts.py, `BACKLOG_BYTES`): a journal that is only
slow to catch up loses nothing."""


def body_size(fact: Any) -> int:
    """Weigh a fact by the bytes of body it holds (what a backlog of them weighs)."""
    if isinstance(fact, Asked):
        return len(fact.body)
    if isinstance(fact, Ended) and fact.pieces:
        return fact.size
    return 0


class _Unhanded:
    """Decide which facts still go to the journal past `limit` bytes not yet written.

    None of a request that comes now; the answer of one it already has, without its pieces
    (its trace then says why the answer is missing). `count` is how many requests it did not
    get."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0
        self._rids: set[int] = set()
        """Requests not handed over, whose end is to come (dropped then too)."""

    def __call__(self, fact: Any, pending: int) -> Any | None:
        """Return `fact` as it may go to the journal, with `pending` bytes not yet written;
        None: not at all."""
        full = pending >= self.limit
        if isinstance(fact, Asked):
            if not full:
                return fact
            self.count += 1
            if fact.blocked is None:  # one that --strict-check blocked has no end
                self._rids.add(fact.rid)
            return None
        if isinstance(fact, Ended):
            if fact.rid in self._rids:
                self._rids.discard(fact.rid)
                return None
            if full and fact.pieces:
                return dataclasses.replace(fact, pieces=[], unkept=True)
            return fact
        if isinstance(fact, Notice) and fact.kind != "bug":  # a bug is always said
            if fact.about is not None:
                return None if fact.about in self._rids else fact
            if full:
                self.count += 1
                return None
        return fact

    def unrecorded_notice(self) -> list[Unrecorded]:
        """Tell the journal (once the pipe has drained) how many requests went unrecorded."""
        count, self.count = self.count, 0
        return [Unrecorded(count)] if count else []


class ThreadJournal:
    """Run the journal in a thread of this process."""

    def __init__(self, target: Target, settings: Settings, view: ProxyView) -> None:
        from fccli.proxy.handler import FactHandler  # the journal's work: not the proxy's imports

        self._scribe = FactHandler(target, settings, view)
        self._queue: SimpleQueue[Any] = SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="fc-proxy-journal", daemon=True)
        self._thread.start()

    def __call__(self, fact: Any) -> None:
        if self._thread.is_alive():
            self._queue.put(fact)

    def _run(self) -> None:
        while True:
            fact = self._queue.get()
            self._scribe(fact)
            if isinstance(fact, Close):
                return

    def flush(self, timeout: float = 30) -> None:
        """Wait until every fact handed in so far is handled."""
        done = threading.Event()
        self._queue.put(Flush(done))
        deadline = time.monotonic() + timeout
        while not done.wait(0.05):  # returns at once when set; else looks again for the end
            if not self._thread.is_alive() or time.monotonic() > deadline:
                return  # closed: everything before the close is handled

    def close(self, say: Callable[[str], None] | None = None) -> bool:
        """Close the open traces, write what is queued; False when that took too long."""
        self(Close())
        self._thread.join(FINISH_SECONDS)
        return not self._thread.is_alive()


class ChildJournal:
    """Run the journal in a child process, fed through a pipe."""

    def __init__(
        self,
        target: Target,
        settings: Settings,
        on_lost: Callable[[], None] = lambda: None,
        limit: int = PENDING_BYTES,
    ) -> None:
        """Start the journal's process and send it the target, settings and language.

        `on_lost`: said once if the journal's process is found gone while the proxy runs
        (the proxy goes on forwarding, without recording). `limit`: `PENDING_BYTES` (tests)."""
        self._child = subprocess.Popen(
            [sys.executable, "-m", "fccli.proxy.child"],
            stdin=subprocess.PIPE,
            start_new_session=True,  # the terminal's Ctrl-C is the proxy's to handle
        )
        assert self._child.stdin is not None
        self._fd = self._child.stdin.fileno()
        self._pending = bytearray()
        """What the pipe could not take yet."""
        self._trim, self._written = trimmer(), 0
        """Hands the heap's free memory back to the system; the bytes written since it last did."""
        self._unhanded = _Unhanded(limit)
        self._gate = BurstGate()
        self._look: asyncio.TimerHandle | None = None
        self._watched: asyncio.AbstractEventLoop | None = None
        self._batch: asyncio.TimerHandle | None = None
        self._dead = False
        self._on_lost = on_lost
        self.forwarding: Callable[[], int] = lambda: 0
        """How many requests the proxy is forwarding now (set by the app): one at a time is
        no burst, and a late look for a lull counts only when none is (bursts.py)."""
        if not self._send_now(framed((target, settings, language()))):
            self._lost()
        os.set_blocking(self._fd, False)
        if sys.platform == "linux":  # 1 MB, not 64 KB
            # a paused journal reads every LULL_SECONDS: what a burst brings meanwhile waits in
            # the pipe, not in the proxy's memory
            with contextlib.suppress(AttributeError, OSError):
                fcntl.fcntl(self._fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)

    def _lost(self) -> None:
        if not self._dead:
            self._dead = True
            self._on_lost()

    def __call__(self, fact: Any) -> None:
        """Hand `fact` on; never blocks."""
        if self._dead:
            return
        self._hand(self._gate.add(fact, body_size(fact), time.monotonic(), self.forwarding()))

    def _hand(self, facts: list[Any]) -> None:
        """Write `facts` to the pipe: at once when they tell the journal to pause or resume,
        else together, `BATCH_SECONDS` after the first of them."""
        for fact in facts:
            fact = self._unhanded(fact, len(self._pending))
            if fact is not None:
                self._pending += framed(fact)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (stopping): `close` writes what is pending
            return
        if self._look is None and self._gate.due is not None:
            self._look = loop.call_later(
                max(0.0, self._gate.due - time.monotonic()), self._look_for_lull
            )
        if not self._pending or self._watched is not None:
            return  # nothing to write, or written once the pipe can take it
        if any(isinstance(fact, (Pause, Resume)) for fact in facts):
            self._write_batch()
        elif self._batch is None:
            self._batch = loop.call_later(BATCH_SECONDS, self._write_batch)

    def _look_for_lull(self) -> None:
        self._look = None
        if not self._dead:
            self._hand(self._gate.look(time.monotonic(), self.forwarding()))

    def _write_batch(self) -> None:
        if self._batch is not None:
            self._batch.cancel()
            self._batch = None
        self._write_some()
        if self._pending and not self._dead:
            self._watch()

    def _write_some(self) -> None:
        try:
            written = os.write(self._fd, self._pending)
        except BlockingIOError:
            return
        except OSError:  # the journal is gone: the proxy goes on forwarding
            self._lost()
            written = len(self._pending)
        del self._pending[:written]
        self._written += written
        if not self._pending and self._unhanded.count and not self._dead:
            # Drained: the journal hears of the requests it did not get (said on the terminal).
            self._pending += b"".join(map(framed, self._unhanded.unrecorded_notice()))
            self._write_some()
        if not self._pending and self._written >= TRIM_BYTES:
            self._trim()
            self._written = 0

    def _watch(self) -> None:
        """Write the rest when the pipe can take it."""
        loop = asyncio.get_running_loop()
        loop.add_writer(self._fd, self._drain)
        self._watched = loop

    def _drain(self) -> None:
        self._write_some()
        if not self._pending and self._watched is not None:
            self._watched.remove_writer(self._fd)
            self._watched = None

    def _send_now(self, data: bytes, deadline: float | None = None) -> bool:
        """Write `data` whole, waiting for the pipe (until `deadline`); False if it could not."""
        view = memoryview(data)
        while view:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([], [self._fd], [], left)[1]:
                    return False
            try:
                view = view[os.write(self._fd, view) :]
            except BlockingIOError:
                continue
            except OSError:
                return False
        return True

    def flush(self, timeout: float = 30) -> None:
        """Do nothing: tests use the thread journal; a child's writes are seen once it is closed."""

    def close(self, say: Callable[[str], None] | None = None) -> bool:
        """Tell the journal to close the open traces and end; wait for it, at most
        FINISH_SECONDS (saying so after PATIENT_SECONDS). False when it could not finish, or
        when Ctrl-C (or SIGTERM) again stopped the wait, and the journal, at once."""
        for timer in (self._batch, self._look):
            if timer is not None:
                timer.cancel()
        self._batch = self._look = None
        if self._watched is not None:
            with contextlib.suppress(Exception):
                self._watched.remove_writer(self._fd)
            self._watched = None
        deadline = time.monotonic() + FINISH_SECONDS
        if not self._dead:
            # with how many requests the journal missed, if it did
            data = b"".join(
                [self._pending, *map(framed, [*self._unhanded.unrecorded_notice(), Close()])]
            )
            self._pending.clear()
            if not self._send_now(data, deadline):
                self._lost()
        self._dead = True  # a fact handed on after this (a task ending late) is dropped
        assert self._child.stdin is not None
        with contextlib.suppress(OSError):
            self._child.stdin.close()  # the end of the pipe: the journal ends too
        with self._ctrl_c_stops_it() as stopped:
            try:
                try:
                    self._child.wait(min(PATIENT_SECONDS, max(0.0, deadline - time.monotonic())))
                    return not stopped
                except subprocess.TimeoutExpired:
                    pass
                if say is not None:
                    say("waiting")
                self._child.wait(max(0.0, deadline - time.monotonic()))
                return not stopped
            except subprocess.TimeoutExpired:
                self._child.kill()
                self._child.wait()
                return False
            except BaseException:
                self._child.kill()
                self._child.wait()
                raise

    @contextlib.contextmanager
    def _ctrl_c_stops_it(self) -> Iterator[list[int]]:
        """Let Ctrl-C (or SIGTERM) again end the journal at once while stopping waits (the list
        it yields then holds the signal). The server's own handlers, still in place while it
        shuts down, would only note the signal and let the wait go on."""
        stopped: list[int] = []

        def stop_now(signum: int, frame: Any) -> None:
            stopped.append(signum)
            with contextlib.suppress(OSError):
                self._child.kill()

        previous = {}
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(ValueError, OSError):
                    previous[signum] = signal.signal(signum, stop_now)
        try:
            yield stopped
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
