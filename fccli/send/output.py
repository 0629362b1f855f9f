"""Where `fc send` puts a response body: stdout (bytes in a pipe, escaped text on a terminal), or
a file checked before anything is sent."""

from __future__ import annotations

import codecs
import os
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from fccli.core.controls import escape_controls
from fccli.core.errors import UsageError
from fccli.i18n import Msg


def shown_on(stdout: TextIO) -> Callable[[bytes], None]:
    """Return how the body reaches stdout: its bytes exactly in a pipe; on a terminal, as text
    with its control characters escaped, since a body may hold escape sequences that would
    drive the terminal (a clipboard write, a screen clear)."""
    if not stdout.isatty():

        def raw(piece: bytes) -> None:
            stdout.buffer.write(piece)
            stdout.buffer.flush()

        return raw
    decoder = codecs.getincrementaldecoder("utf-8")("replace")  # a character cut across pieces

    def text(piece: bytes) -> None:
        stdout.write(escape_controls(decoder.decode(piece)))
        stdout.flush()

    return text


def end_line(stdout: TextIO, body: bytes) -> None:
    """End the body's last line on a terminal, so the prompt comes on a line of its own; a pipe
    gets the bytes as they are."""
    if stdout.isatty() and not body.endswith(b"\n"):
        stdout.buffer.write(b"\n")
    stdout.buffer.flush()


def check_writable(out: Path) -> None:
    """Refuse an -o that cannot be written, before anything is sent. Nothing is created."""
    if out.is_dir():
        raise UsageError(
            Msg("cannot write {out}: it is a directory", out=str(out)),
            hint=Msg("give a file name"),
        )
    parent = out.parent
    if not parent.is_dir():
        raise UsageError(
            Msg("cannot write {out}: {parent} is not a directory", out=str(out), parent=str(parent))
            if parent.exists()
            else Msg("cannot write {out}: no directory {parent}", out=str(out), parent=str(parent)),
            hint=Msg("create the directory first, or choose another -o"),
        )
    if out.exists() and not os.access(out, os.W_OK):
        raise UsageError(Msg("cannot write {out}: permission denied", out=str(out)))
    if not out.exists() and not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(
            Msg(
                "cannot write {out}: permission denied in {parent}",
                out=str(out),
                parent=str(parent),
            )
        )


def save(out: Path, data: bytes) -> None:
    """Write the body to `out`; a failure is a usage error saying why."""
    try:
        out.write_bytes(data)
    except OSError as e:
        raise UsageError(
            Msg("cannot write {out}: {reason}", out=str(out), reason=str(e.strerror))
        ) from None
