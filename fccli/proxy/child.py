"""The journal's child process (`python -m fccli.proxy.child`, started by journal.py's
`ChildJournal`): the facts the proxy writes to its stdin, read as they come (`Inbox`) and
handled (handler.py) until `Close` or the pipe's end.

A lean entry: at import it loads only the pipe's framing and the facts, so that the proxy can
import it too; `main` loads what recording needs (not asyncio, httpx, typer, nor the commands).
Every module the child holds is memory it keeps for as long as fc proxy runs
(tests/proxy/test_proxy_child.py lists what it must not load).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import sys
import time
import types
from collections import deque
from collections.abc import Callable
from typing import Any

from fccli.proxy.bursts import LULL_SECONDS
from fccli.proxy.facts import Close, Pause, Resume

if sys.platform != "win32":
    import resource

NICENESS = 0
"""The journal's priority beside the proxy's. Not lower: it waits for lulls, so it does not
compete with a burst, and on a busy machine a lower priority left it so little CPU that an
agent's last step was written after a `fc show` run right after the agent."""
KEPT_BYTES = 128 << 20
"""What the journal keeps read and not handled, at most, beside a burst's (`Inbox`)."""
TRIM_BYTES = 4 << 20
"""Once the journal has handled this many bytes of facts since it last did, and has none left
queued, it hands the memory they left free back to the system (`trimmer`); the proxy does the
same once it has written as many to the pipe and has none left to write."""
_LENGTH = 8
"""Each fact goes through the pipe as its length (8 bytes, big-endian), then one byte that
says what it is (`_TAGS`), then its pickle: the journal can tell a whole fact from part of one
without blocking on the pipe, and keeps a fact as its pickle until it handles it."""
_TAGS = {Pause: b"p", Resume: b"r", Close: b"c"}
"""The facts the inbox itself acts on; any other is `_FACT`."""
_FACT = b"f"


def framed(fact: Any) -> bytes:
    data = _TAGS.get(type(fact), _FACT) + pickle.dumps(fact, pickle.HIGHEST_PROTOCOL)
    return len(data).to_bytes(_LENGTH, "big") + data


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
        self._facts: deque[bytes] = deque()
        """The pickles of the facts read and not handed out yet: a burst of thousands of
        requests waits for its lull as its bytes, not as objects (whose memory, freed among
        the traces' own, the process would keep)."""
        self.kept = 0
        """Their bytes."""
        self.taken = 0
        """The bytes of the facts handed out so far."""
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
                    data = self._facts.popleft()
                    self.kept -= len(data)
                    self.taken += len(data)
                    try:
                        return pickle.loads(data)
                    except Exception:  # not what the proxy writes: nothing after it is read
                        self._facts.clear()
                        self.kept, self._ended = 0, True
                        return None
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
            at = start + size
            tag = self._buffer[start]
            if tag in b"pr":
                self._paused = tag == ord("p")
                continue
            self._facts.append(bytes(self._buffer[start + 1 : at]))
            self.kept += size - 1
            if tag == ord("c"):
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


def trimmer() -> Callable[[], object]:
    """Return what hands the free memory of the C library's heap back to the system (glibc's
    `malloc_trim`; elsewhere nothing). A burst's pickles, and what recording it made and
    dropped, are freed among the open traces' own objects: without it the process would keep
    its largest backlog's memory for as long as it runs (docs/performance.md); so would the
    proxy, of what a paused journal left it to hold."""
    if sys.platform != "linux":
        return lambda: None
    try:
        import ctypes

        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return lambda: None
    return lambda: trim(0)


def _without_price_updates() -> None:
    """Leave out genai-prices' price updater, which it imports with its table: an HTTP client
    of its own and more (~6 MB), for prices fetched anew, where fc prices from the table the
    package ships (fccli/cost). Any name taken from it is a function that says so if called."""

    def absent(name: str) -> Any:
        def updater(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError(f"fc proxy's journal prices from genai-prices' table: no {name}")

        return updater

    updates = types.ModuleType("genai_prices.update_prices", "fc proxy: no price updates")
    updates.__getattr__ = absent  # type: ignore[method-assign]
    sys.modules.setdefault(updates.__name__, updates)


def main() -> None:
    """Run the journal's child process: the facts from stdin, until `Close` or the pipe's end."""
    from fccli.core.plugins import without_pydantic_plugins

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _without_price_updates()
    without_pydantic_plugins()  # whose loader imports importlib.metadata, email, zipfile...
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    _more_open_files()
    inbox = _pipe_inbox(sys.stdin.fileno())
    header = inbox.take()
    if header is None:
        return
    from fccli.i18n import set_language
    from fccli.proxy.handler import FactHandler
    from fccli.render.console import make_console
    from fccli.render.proxy_view import ProxyView

    target, settings, lang = header
    set_language(lang)
    scribe = FactHandler(target, settings, ProxyView(make_console(), target.name))
    trim, trimmed = trimmer(), 0
    while not scribe.closed:
        fact = inbox.take()
        if fact is None:  # the proxy is gone: its traces are closed
            scribe(Close())
            break
        scribe(fact)
        if not inbox.kept and inbox.taken - trimmed >= TRIM_BYTES:
            trim()
            trimmed = inbox.taken


if __name__ == "__main__":
    main()
