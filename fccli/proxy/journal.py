"""Where the proxy's slow work happens, off the requests' path: the journal, which reads,
matches and checks each model request, writes the traces and prints the transcript
(handler.py).

The event loop only forwards, and hands the journal plain facts (facts.py) through one of two
transports, each running the same FactHandler over the facts in the order the loop saw them:

- `ChildJournal` (`fc proxy`): a child process (`python -m fccli.proxy.journal`) fed pickled
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
import pickle
import select
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from queue import SimpleQueue
from typing import TYPE_CHECKING, Any

from fccli.i18n import language, set_language
from fccli.proxy.bursts import LULL_SECONDS, BurstGate
from fccli.proxy.facts import Asked, Close, Ended, Flush, Notice, Pause, Resume, Unrecorded
from fccli.proxy.handler import FactHandler
from fccli.render.console import make_console
from fccli.render.proxy_view import ProxyView

if sys.platform != "win32":
    import fcntl
    import resource

if TYPE_CHECKING:
    from fccli.proxy.settings import Settings
    from fccli.proxy.target import Target

FINISH_SECONDS = 120.0
"""How long stopping waits for the journal to write what is queued before giving up on it:
what a long burst left (the journal records in lulls) takes its time."""
PATIENT_SECONDS = 1.0
"""After this, stopping says that it is waiting for the journal."""
NICENESS = 0
"""The journal's priority beside the proxy's. Not lower: it waits for lulls, so it does not
compete with a burst, and on a busy machine a lower priority left it so little CPU that an
agent's last step was written after a `fc show` run right after the agent."""
BATCH_SECONDS = 0.005
"""The proxy writes the facts of this long at once: each write to the pipe costs a system call,
and wakes a journal that is recording (docs/performance.md)."""
PIPE_BYTES = 1 << 20
"""The pipe's size where the system lets it be set (Linux): a paused journal reads it only every
LULL_SECONDS, and what a burst brings meanwhile waits there, not in the proxy's memory."""
KEPT_BYTES = 128 << 20
"""What the journal keeps read and not handled, at most, beside a burst's (`Inbox`)."""
PENDING_BYTES = 256 << 20
"""What the pipe has not taken yet, at most, before requests go unrecorded. A journal that
stops reading (its terminal paused with Ctrl-S, its output piped to a pager nobody scrolls)
blocks on its printing, and the proxy would hold every request's body and answer for it for
as long as the agent runs. Past this the proxy forwards requests without handing them over,
whole (neither their request nor their answer), and says how many once the pipe has drained.
Four times what a paused journal may keep (bursts.py, `BACKLOG_BYTES`): a journal that is only
slow to catch up loses nothing."""
_LENGTH = 8
"""Each fact goes through the pipe as its pickle's length (8 bytes, big-endian), then the
pickle: the journal can tell a whole fact from part of one without blocking on the pipe."""


def framed(fact: Any) -> bytes:
    data = pickle.dumps(fact, pickle.HIGHEST_PROTOCOL)
    return len(data).to_bytes(_LENGTH, "big") + data


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
            [sys.executable, "-m", "fccli.proxy.journal"],
            stdin=subprocess.PIPE,
            start_new_session=True,  # the terminal's Ctrl-C is the proxy's to handle
        )
        assert self._child.stdin is not None
        self._fd = self._child.stdin.fileno()
        self._pending = bytearray()
        """What the pipe could not take yet."""
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
        if not self._pending and self._unhanded.count and not self._dead:
            # Drained: the journal hears of the requests it did not get (said on the terminal).
            self._pending += b"".join(map(framed, self._unhanded.unrecorded_notice()))
            self._write_some()

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


class Inbox:
    """Hand out the facts from the proxy, in order, each once it is whole, unless the proxy
    said `Pause` (a burst of requests is being forwarded) and not yet `Resume`; all of them once
    it says `Close` or its pipe ends. While paused it is not woken by every write to the pipe:
    it reads what came every `nap` seconds.

    A journal that records slower than the proxy forwards (one client sending request after
    request to an upstream that answers at once) keeps at most `limit` bytes of facts it has not
    handled: past that it reads no more until it has handled some, the pipe fills, and the
    proxy's own bound (`PENDING_BYTES`) forwards requests without recording them, and says so.

    `read()` returns what the pipe has (b"" at its end); `readable(timeout)` waits at most
    `timeout` seconds (None: for ever) for something to read; `sleep(seconds)` naps. The tests
    script all three."""

    def __init__(
        self,
        read: Callable[[], bytes],
        readable: Callable[[float | None], bool],
        sleep: Callable[[float], None] = time.sleep,
        nap: float = LULL_SECONDS,
        limit: int = KEPT_BYTES,
    ) -> None:
        self._read, self._readable, self._sleep, self._nap = read, readable, sleep, nap
        self._limit = limit
        self._buffer = bytearray()
        self._facts: deque[tuple[Any, int]] = deque()
        self.kept = 0
        """The bytes of the facts read and not handed out yet."""
        self._paused = False
        self._ended = False

    def take(self) -> Any | None:
        """Return the next fact, when it may be handled; None once the pipe has ended and every fact
        before its end was handed out (part of a fact at the end is dropped: the proxy died
        writing it). Between two facts it looks, without waiting, whether the proxy said
        `Pause`: a burst stops the recording at once."""
        while True:
            if self._facts and (self._ended or not self._paused):
                if self._ended or self.kept >= self._limit or not self._readable(0):
                    fact, size = self._facts.popleft()
                    self.kept -= size
                    return fact
            elif self._ended:
                return None
            elif self._paused:
                self._sleep(self._nap)
                if not self._readable(0):
                    continue
            elif not self._readable(None):
                continue
            self._receive()

    def _receive(self) -> None:
        data = self._read()
        if not data:
            self._ended = True
            return
        self._buffer += data
        at = 0
        while len(self._buffer) - at >= _LENGTH:
            size = int.from_bytes(self._buffer[at : at + _LENGTH], "big")
            if len(self._buffer) - at - _LENGTH < size:
                break
            start = at + _LENGTH
            try:
                fact = pickle.loads(self._buffer[start : start + size])
            except Exception:  # not what the proxy writes: the pipe is read no further
                self._ended = True
                break
            at = start + size
            if isinstance(fact, (Pause, Resume)):
                self._paused = isinstance(fact, Pause)
                continue
            self._facts.append((fact, size))
            self.kept += size
            if isinstance(fact, Close):
                self._paused = False
        del self._buffer[:at]


def _pipe_inbox(fd: int) -> Inbox:
    def read() -> bytes:
        try:
            return os.read(fd, 1 << 20)
        except OSError:
            return b""

    def readable(timeout: float | None) -> bool:
        return bool(select.select([fd], [], [], timeout)[0])

    return Inbox(read, readable)


def _more_open_files() -> None:
    """Raise the journal's soft limit of open files to the hard one, where the system lets it.

    Each open trace holds its lock file open until it ends (trace/writer.py, `claim`), and an
    agent's conversations stay open until it stops asking: past the soft limit (256 on macOS,
    1,024 on many Linux systems) the next trace could not be written."""
    if sys.platform == "win32":
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    for wanted in (hard, 10240):  # macOS refuses more than its OPEN_MAX for an unlimited hard
        if soft != resource.RLIM_INFINITY and (wanted == resource.RLIM_INFINITY or wanted > soft):
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
                return


def main() -> None:
    """Run the journal's child process: the facts from stdin, until `Close` or the pipe's end."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    _more_open_files()
    inbox = _pipe_inbox(sys.stdin.fileno())
    header = inbox.take()
    if header is None:
        return
    target, settings, lang = header
    set_language(lang)
    scribe = FactHandler(target, settings, ProxyView(make_console(), target.name))
    while not scribe.closed:
        fact = inbox.take()
        if fact is None:  # the proxy is gone: its traces are closed
            scribe(Close())
            break
        scribe(fact)


if __name__ == "__main__":
    main()
