"""Where the proxy's slow work happens: the journal, which reads, matches and checks each model
request, writes the traces and prints the transcript (scribe.py), off the requests' path.

Forwarding must add as little as it can to each request (benchmarks/proxy.py). The event loop
only forwards, and hands the journal plain facts (facts.py) through one of two transports, each
running the same Scribe over the facts in the order the loop saw them:

- `ChildJournal` (`fc proxy`): a child process (`python -m fccli.proxy.journal`) fed pickled
  facts through a pipe. Its CPU time goes to the other core instead of holding the event loop's
  interpreter lock, and it runs at a lower priority, so that on a busy machine the forwarding
  wins and the journal catches up after. It prints to the same terminal. It is in a session of
  its own, so the terminal's Ctrl-C does not reach it: the proxy tells it to close the open
  traces (`Close`), and a pipe that ends without that (the proxy was killed) closes them too.
  Writes to the pipe never block the loop: what the pipe cannot take yet waits in memory and is
  written when the loop sees the pipe writable.
- `ThreadJournal` (the in-process tests, which read the terminal and the trace right after a
  request: `flush`): a thread of the proxy's process.

Stopping waits for the journal to write what is queued, at most `FINISH_SECONDS`, and says so
when it could not.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from queue import SimpleQueue
from typing import TYPE_CHECKING, Any

from fccli.proxy.facts import Close, Flush

if TYPE_CHECKING:
    from fccli.proxy.app import Settings
    from fccli.proxy.target import Target
    from fccli.render.proxy_view import ProxyView

FINISH_SECONDS = 30.0
"""How long stopping waits for the journal to write what is queued before giving up on it."""
PATIENT_SECONDS = 1.0
"""After this, stopping says that it is waiting for the journal."""
NICENESS = 10
"""The journal's child process runs at this lower priority than the proxy's."""


class ThreadJournal:
    """The journal in a thread of this process."""

    def __init__(self, target: Target, settings: Settings, view: ProxyView) -> None:
        from fccli.proxy.scribe import Scribe

        self._scribe = Scribe(target, settings, view)
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
    """The journal in a child process, fed through a pipe."""

    def __init__(
        self, target: Target, settings: Settings, on_lost: Callable[[], None] = lambda: None
    ) -> None:
        """`on_lost`: said once if the journal's process is found gone while the proxy runs
        (the proxy goes on forwarding, without recording)."""
        from fccli.i18n import language

        self._child = subprocess.Popen(
            [sys.executable, "-m", "fccli.proxy.journal"],
            stdin=subprocess.PIPE,
            start_new_session=True,  # the terminal's Ctrl-C is the proxy's to handle
        )
        assert self._child.stdin is not None
        self._fd = self._child.stdin.fileno()
        self._pending = bytearray()
        """What the pipe could not take yet."""
        self._watched: asyncio.AbstractEventLoop | None = None
        self._dead = False
        self._on_lost = on_lost
        if not self._send_now(
            pickle.dumps((target, settings, language()), pickle.HIGHEST_PROTOCOL)
        ):
            self._lost()
        os.set_blocking(self._fd, False)

    def _lost(self) -> None:
        if not self._dead:
            self._dead = True
            self._on_lost()

    def __call__(self, fact: Any) -> None:
        """Hand `fact` on; never blocks (what the pipe cannot take waits in memory)."""
        if self._dead:
            return
        data = pickle.dumps(fact, pickle.HIGHEST_PROTOCOL)
        if self._pending:
            self._pending += data
            return
        try:
            written = os.write(self._fd, data)
        except BlockingIOError:
            written = 0
        except OSError:  # the journal is gone: the proxy goes on forwarding
            self._lost()
            return
        if written < len(data):
            self._pending += data[written:]
            self._watch()

    def _watch(self) -> None:
        """Write the rest when the pipe can take it (on the running loop, if any)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop: `close` writes what is pending
        loop.add_writer(self._fd, self._drain)
        self._watched = loop

    def _drain(self) -> None:
        try:
            written = os.write(self._fd, self._pending)
        except BlockingIOError:
            return
        except OSError:
            self._lost()
            written = len(self._pending)
        del self._pending[:written]
        if not self._pending and self._watched is not None:
            self._watched.remove_writer(self._fd)
            self._watched = None

    def _send_now(self, data: bytes, deadline: float | None = None) -> bool:
        """Write `data` whole, waiting for the pipe (until `deadline`); False if it could not."""
        import select

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
        """(Tests use the thread journal; a child's writes are seen once it is closed.)"""

    def close(self, say: Callable[[str], None] | None = None) -> bool:
        """Tell the journal to close the open traces and end; wait for it, at most
        FINISH_SECONDS (saying so after PATIENT_SECONDS). False when it could not finish."""
        if self._watched is not None:
            with contextlib.suppress(Exception):
                self._watched.remove_writer(self._fd)
            self._watched = None
        deadline = time.monotonic() + FINISH_SECONDS
        if not self._dead:
            data = bytes(self._pending) + pickle.dumps(Close(), pickle.HIGHEST_PROTOCOL)
            self._pending.clear()
            self._dead = not self._send_now(data, deadline)
        assert self._child.stdin is not None
        with contextlib.suppress(OSError):
            self._child.stdin.close()  # the end of the pipe: the journal ends too
        try:
            self._child.wait(min(PATIENT_SECONDS, max(0.0, deadline - time.monotonic())))
            return True
        except subprocess.TimeoutExpired:
            pass
        if say is not None:
            say("waiting")
        try:
            self._child.wait(max(0.0, deadline - time.monotonic()))
            return True
        except subprocess.TimeoutExpired:
            self._child.kill()
            self._child.wait()
            return False
        except BaseException:  # Ctrl-C again: stop now
            self._child.kill()
            self._child.wait()
            raise


def main() -> None:
    """The journal's child process: the facts from stdin, until `Close` or the pipe's end."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    from fccli.i18n import set_language
    from fccli.proxy.scribe import Scribe
    from fccli.render.console import make_console
    from fccli.render.proxy_view import ProxyView

    source = pickle.Unpickler(sys.stdin.buffer)
    target, settings, lang = source.load()
    set_language(lang)
    scribe = Scribe(target, settings, ProxyView(make_console(), target.name))
    while not scribe.closed:
        try:
            fact = source.load()
        except (EOFError, pickle.UnpicklingError):  # the proxy is gone: its traces are closed
            scribe(Close())
            break
        scribe(fact)


if __name__ == "__main__":
    main()
