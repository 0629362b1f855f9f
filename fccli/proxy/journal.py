"""Where the proxy's slow work happens: one thread that writes the traces and prints the
transcript, in the order the event loop hands it the jobs, off the path of the requests.

Forwarding must add as little as it can to each request (benchmarks/proxy.py); writing a trace
takes a few file operations per step and the transcript a few Rich renderings, several
milliseconds together on a busy machine. The event loop reads, checks and matches each request
(what must come before forwarding) and hands the rest to this thread. File I/O releases the
interpreter lock, so the writing overlaps the forwarding; one thread keeps every trace's files
and the terminal's lines in order.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

SWITCH_INTERVAL = 0.0005
"""Seconds a thread holds the interpreter lock while another waits for it (Python's default is
0.005): the event loop gets it back soon after the journal's thread starts a rendering."""


class Journal:
    def __init__(self, on_error: Callable[[BaseException], None]) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fc-proxy-journal")
        self._on_error = on_error
        self._closed = False

    def __call__(self, job: Callable[..., Any], *args: Any) -> None:
        """Run `job(*args)` after every job handed in before it (at once, once closed)."""
        if self._closed:
            self._run(job, args)
            return
        self._pool.submit(self._run, job, args)

    def _run(self, job: Callable[..., Any], args: tuple[Any, ...]) -> None:
        try:
            job(*args)
        except BaseException as e:  # a bug in fc: said, and the journal goes on
            with contextlib.suppress(BaseException):
                self._on_error(e)

    def flush(self, timeout: float | None = 30) -> None:
        """Wait until every job handed in so far has run."""
        if not self._closed:
            self._pool.submit(lambda: None).result(timeout)

    def close(self) -> None:
        """Run what is queued, then stop the thread."""
        self._closed = True
        self._pool.shutdown(wait=True)


def quick_handoff() -> None:
    """A shorter switch interval for this process (the proxy's, not a test's)."""
    sys.setswitchinterval(SWITCH_INTERVAL)
