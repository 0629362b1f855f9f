"""What the event loop hands the journal (journal.py): plain facts about each exchange, picklable
and cheap to build, so that the loop does no more than forward and the journal (in a child
process) does the reading, matching, checking, writing and printing.

One model request is an `Asked`, then an `Ended` with the same `rid`, in that order; other lines
for the terminal are `Notice`. Times are the loop's `time.perf_counter()`: only their differences
are used. The client's key is among `Asked.secrets`, which the journal holds in memory only, to
mask an answer that echoes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fccli.i18n import Msg


@dataclass(frozen=True)
class Asked:
    """A model request was read and is being forwarded."""

    rid: int
    fmt: str
    """The wire format its path says (the registry's name)."""
    path: str
    body: bytes
    secrets: tuple[str, ...]
    """The client's key header values and query values: never written, masked where echoed."""
    start: float
    wall: float
    """`time.time()` at the start: the step's `started_at`."""
    findings: list[tuple[str, str]] | None = None
    """What `fc check` found, when --strict-check read it before forwarding."""
    blocked: str | None = None
    """--strict-check stopped it (why): not forwarded, answered 400."""


@dataclass(frozen=True)
class Ended:
    """The exchange of request `rid` is over, one way or another."""

    rid: int
    outcome: str
    """`done`; `left` (the client went away before the upstream's answer ended: `why`); `cut`
    (fc proxy stopped: `why`); `broken` (the upstream's answer broke off: `reason`, unmasked);
    `unreachable` (no answer: `why`, masked); `failed` (a bug in fc proxy while it passed the
    answer on: `reason`, unmasked)."""
    status: int = 0
    encoding: str = ""
    """The answer's Content-Encoding."""
    pieces: list[bytes] = field(default_factory=list)
    """The answer's body as it came, piece by piece (empty when above the record limit)."""
    size: int = 0
    first_byte: float | None = None
    end: float = 0.0
    why: str = ""
    reason: str = ""
    unkept: bool = False
    """The answer's pieces were not handed over: the journal had fallen behind (journal.py,
    `PENDING_BYTES`); it was forwarded, not recorded."""


@dataclass(frozen=True)
class Notice:
    """A line for the terminal about a request that is not recorded: `passed` (forwarded, not
    recorded), `refused` (fc answered it itself), or `bug` (`path` is the error's kind)."""

    kind: str
    method: str
    path: str
    status: int | None
    why: str
    about: int | None = None
    """The model request it is about (its rid), if any."""


@dataclass(frozen=True)
class Unrecorded:
    """(To the journal in a child process) `count` requests were forwarded and not handed over:
    the journal had fallen behind (journal.py, `PENDING_BYTES`)."""

    count: int


@dataclass(frozen=True)
class Close:
    """fc proxy stops: every open trace is closed `interrupted`, and the journal ends."""


@dataclass(frozen=True)
class Tick:
    """Time passed: conversations whose agent sent no next request for a while are closed."""


@dataclass(frozen=True)
class Pause:
    """(To the journal in a child process) a burst of requests began: record nothing until
    `Resume` (bursts.py)."""


@dataclass(frozen=True)
class Resume:
    """(To the journal in a child process) the facts before it may be recorded now."""


@dataclass
class Flush:
    """(In-process journal) `done` is set once every fact before it is handled."""

    done: Any


def too_big(size: int, limit: int) -> Msg:
    """Say that a request's body of `size` bytes is above the limit of what is recorded."""
    return Msg(
        "its body is {size} bytes, above the limit of {limit}",
        size=format(size, ","),
        limit=format(limit, ","),
    )
