"""SIGTERM and SIGHUP handled as Ctrl-C is: the run stops where it is, the bytes that came are
written, and the trace says `interrupted` (and by which signal), instead of dying with a
manifest left `running`. Exit 128 + the signal's number, as a shell reports it (130, 143, 129).
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from types import FrameType

HANDLED = ("SIGTERM", "SIGHUP")


class Terminated(KeyboardInterrupt):
    """A signal asking fc to stop, raised where the main thread is, as Ctrl-C would be."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


received: list[int] = []
"""The signals that stopped this process (SIGINT is Ctrl-C, not listed)."""


def _raise(signum: int, frame: FrameType | None) -> None:
    received.append(signum)
    raise Terminated(signum)


def install() -> Callable[[], None]:
    """Handle SIGTERM and SIGHUP as Ctrl-C; returns what puts the old handlers back."""
    previous: dict[int, object] = {}
    for name in HANDLED:
        number = getattr(signal, name, None)
        if number is None:  # Windows has no SIGHUP
            continue
        try:
            previous[number] = signal.signal(number, _raise)
        except ValueError:  # not the main thread (fc called from a thread): leave them be
            continue

    def restore() -> None:
        for number, handler in previous.items():
            signal.signal(number, handler)  # type: ignore[arg-type]

    return restore


def signal_name() -> str | None:
    """SIGTERM or SIGHUP when one stopped fc; None for Ctrl-C (or nothing)."""
    return signal.Signals(received[-1]).name if received else None


def exit_code() -> int:
    return 128 + (received[-1] if received else signal.SIGINT)
