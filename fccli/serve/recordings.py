"""The steps `fc serve` can play back, read from trace directories.

A step is played from its wire files alone: the request as it was sent (to match against) and
the response bytes as they came (to answer with), the raw stream beside them when there was one.
The internal files are not needed: a trace fc proxy wrote and one fc run wrote serve alike.

Every file played is checked when the trace is read: a regular file inside the trace (a symlink
leading out of it, a FIFO or a device is refused, naming the file), no larger than
`--max-response-mb`; it is read when played, piece by piece. A recorded status must be one HTTP
allows (100 to 599, and none of 1xx, 204, 304 with a body).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fccli.core.errors import InputFileError, UsageError
from fccli.core.jsonio import parse_json
from fccli.i18n import Msg
from fccli.trace.names import MANIFEST, STEP_FILE
from fccli.trace.reader import read_trace
from fccli.wire.registry import get_format

PIECE = 64 * 1024
"""How much of a file is read at once when it is played."""
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
"""The largest response file played (--max-response-mb)."""
MAX_REQUEST_BYTES = 64 * 1024 * 1024
"""The largest request file read (as large as fc serve takes a request)."""
BODILESS = frozenset({204, 304})


@dataclass(frozen=True)
class Played:
    """A file a step answers with: a regular file inside its trace, `size` bytes when read."""

    path: Path
    size: int

    def pieces(self) -> Iterator[bytes]:
        """Read the file piece by piece, opened without following a link (it was checked
        resolved: one put in its place since is refused)."""
        fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(f"{self.path} is no longer a regular file")
            left = self.size
            while left > 0:
                piece = f.read(min(PIECE, left))
                if not piece:
                    return
                left -= len(piece)
                yield piece

    def read(self) -> bytes:
        return b"".join(self.pieces())


@dataclass(frozen=True)
class Recorded:
    """One step of a trace, as a provider's answer to one request."""

    label: str
    """(A Msg: fccli/i18n) How the terminal and error messages name it: `step 2`, or `step 2 of traces/a` when
    several traces are served."""
    format: str
    """The trace's wire format (wire/registry.py)."""
    request: Any
    """The wire request as sent, parsed."""
    response: Played | None
    """`N-response.<format>.json` as stored: the body as received (a stream: assembled);
    None when the run stopped before an answer."""
    stream: Played | None
    """`N-response.<format>.sse`: the stream's raw bytes, when the step was streamed."""
    status: int = 200
    """The HTTP status the answer came with: the recorded error's, for a step that failed."""


def load_recordings(paths: list[Path], max_bytes: int = MAX_RESPONSE_BYTES) -> list[Recorded]:
    """Every step of every trace, in the order given (then by step number); `max_bytes`: the
    largest response file played."""
    if not paths:
        raise UsageError(Msg("give at least one trace directory to serve"))
    several = len(paths) > 1
    out: list[Recorded] = []
    for path in paths:
        out += _trace_steps(path, several, max_bytes)
    return out


def _checked_files(path: Path, max_bytes: int) -> None:
    """Check every step file and the manifest of the trace `path` before it is read (`_played`)."""
    if not path.is_dir():
        return  # the trace's reader says what it is
    inside = path.resolve()
    for entry in path.iterdir():
        found = STEP_FILE.fullmatch(entry.name)
        if found or entry.name == MANIFEST:
            largest = max_bytes if found and found[2] == "response" else MAX_REQUEST_BYTES
            _played(entry, inside, max(largest, max_bytes))


def _trace_steps(path: Path, several: bool, max_bytes: int) -> list[Recorded]:
    _checked_files(path, max_bytes)
    trace = read_trace(path)
    if not trace.steps:
        raise UsageError(Msg("{path} has no steps: there is nothing to play back", path=str(path)))
    fmt = trace.wire_format
    # A format that names the model in the URL (Gemini) has none in the body: the manifest's
    # stands in, so a request to another model's path does not match.
    url_model = trace.manifest.get("model") if fmt and not get_format(fmt).model_in_body else None
    played = [s for s in trace.steps if "wire_request" in s.files]
    if fmt is None or not played:
        raise UsageError(
            Msg(
                "{path} has no wire files: fc serve answers with the bytes the provider sent",
                path=str(path),
            ),
            hint=Msg("it needs N-request.<format>.json and N-response.<format>.json in the trace"),
        )
    if not get_format(fmt).routes:
        raise UsageError(
            Msg(
                "{path} is in the {format} format, which fc serve cannot answer in yet",
                path=str(path),
                format=fmt,
            )
        )
    error = trace.manifest.get("error")
    error = error if isinstance(error, dict) else {}
    out = []
    inside = path.resolve()
    for step in played:
        label = (
            Msg("step {step} of {trace}", step=step.number, trace=str(path))
            if several
            else Msg("step {step}", step=step.number)
        )
        response = _played(step.files.get("wire_response"), inside, max_bytes)
        status = 200
        if error.get("step") == step.number and step.error_body is not None:
            status = _status(error.get("http_status"), label, response)
        request = _played(step.files["wire_request"], inside, MAX_REQUEST_BYTES)
        assert request is not None
        out.append(
            Recorded(
                label=label,
                format=fmt,
                request=_with_url_model(_request(request), url_model),
                response=response,
                stream=_played(step.files.get("wire_stream"), inside, max_bytes),
                status=status,
            )
        )
    return out


def _status(value: Any, label: str, response: Played | None) -> int:
    """Check a recorded HTTP status: one HTTP allows, with a body only where it may have one."""
    if value is None:
        return 200
    if type(value) is not int or not 100 <= value <= 599:
        raise UsageError(
            Msg(
                "{step}: its recorded HTTP status {status} is not one HTTP allows (100 to 599)",
                step=label,
                status=repr(value)[:40],
            )
        )
    if (value < 200 or value in BODILESS) and response is not None and response.size:
        raise UsageError(
            Msg(
                "{step}: its recorded HTTP status {status} carries no body, but it has a response file",
                step=label,
                status=value,
            )
        )
    return value


def _played(path: Path | None, inside: Path, max_bytes: int) -> Played | None:
    """Check a file a step is played from: a regular file in the trace `inside`, of at most
    `max_bytes`; a usage error (exit 2) naming it otherwise."""
    if path is None:
        return None
    real = path.resolve()
    if not real.is_relative_to(inside):
        raise UsageError(
            Msg(
                "{path} leads out of its trace (to {target}): fc serve plays only the trace's own files",
                path=str(path),
                target=str(real),
            )
        )
    try:
        mode = real.stat()
    except OSError as e:
        raise InputFileError(
            str(path), Msg("cannot be read ({reason})", reason=e.strerror)
        ) from None
    if not stat.S_ISREG(mode.st_mode):
        raise InputFileError(
            str(path),
            Msg("is not a regular file (a pipe, a device or a socket); fc reads files"),
        )
    if mode.st_size > max_bytes:
        raise UsageError(
            Msg(
                "{path} is {size} bytes, above the limit of {limit} (--max-response-mb)",
                path=str(path),
                size=format(mode.st_size, ","),
                limit=format(max_bytes, ","),
            )
        )
    return Played(real, mode.st_size)


def _request(played: Played) -> Any:
    path = played.path
    data = parse_json(played.read(), str(path))
    if not isinstance(data, dict):
        raise InputFileError(str(path), Msg("is not a request: expected a JSON object"))
    return data


def _with_url_model(request: Any, model: Any) -> Any:
    if isinstance(model, str) and model and "model" not in request:
        return {"model": model, **request}
    return request
