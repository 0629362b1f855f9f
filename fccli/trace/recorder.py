"""Write one step of a trace: its files, named by trace/names.py, and its manifest record.

`fc run` and `fc replay` (run/engine.py) and `fc proxy` (proxy/step.py) write every step
through a `StepRecorder`; the directory, lock and manifest are `TraceWriter`'s (writer.py),
which writes every file atomically.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from fccli.core.manifest import StepRecord, StreamRecord
from fccli.core.models import Request, Response
from fccli.i18n import Msg
from fccli.trace.names import step_file
from fccli.trace.writer import TraceWriter

MASKED = Msg("the response echoed a secret; fc keeps and reads it as ***")
"""The record's `masked`: the answer's files hold a secret it echoed as ***."""


def _iso(wall: float) -> str:
    return datetime.fromtimestamp(wall, timezone.utc).isoformat(timespec="milliseconds")


class StepRecorder:
    """Write step `number` of `trace`, whose wire format is `fmt`, and keep its manifest record.

    `started`: when the request came (`time.time()`), the record's `started_at`; None: set it
    with `start()` when the request goes out."""

    def __init__(self, trace: TraceWriter, number: int, fmt: str, started: float | None = None):
        self.trace = trace
        self.number = number
        self.fmt = fmt
        self.record = StepRecord(
            step=number,
            started_at=None if started is None else _iso(started),
            stop_reason=None,
            wire_stop_reason=None,
            duration_ms=None,
            usage=None,
            tool_runs=[],
        )

    def name(self, role: str, *, wire: bool = True, ext: str = "json") -> str:
        """Name one of this step's files: `2-response.deepseek.sse`, `2-request.json`."""
        return step_file(self.number, role, self.fmt if wire else None, ext)

    def start(self) -> None:
        """Record now as the moment the request goes out."""
        self.record.started_at = _iso(time.time())

    def internal(self, request: Request) -> dict[str, Any]:
        """Return the request in fc's internal format as it will be written (history.py)."""
        return self.trace.encoder.internal(request)

    def request(
        self, request: Request, wire: bytes | Any, internal: dict[str, Any] | None = None
    ) -> Path:
        """Write the request as sent (bytes: as they are) and in fc's internal format (`internal`:
        as `internal()` gave it); return the wire file, whose bytes are what goes out. A wire
        body's history items equal to the last request's become those very objects."""
        kind = f"request.{self.fmt}"
        if not isinstance(wire, bytes):
            self.trace.encoder.same_items(kind, wire)
        path = self.trace.write(self.name("request"), wire, kind)
        if internal is None:
            internal = self.internal(request)
        self.trace.write(self.name("request", wire=False), internal, "request")
        return path

    def answer(self, data: bytes | Any, *, stream: bool = False) -> Path:
        """Write the answer as it came: bytes as they are (`stream`: a stream's raw `.sse`),
        anything else as JSON (a stream assembled)."""
        return self.trace.write(self.name("response", ext="sse" if stream else "json"), data)

    def response(self, response: Response, wire_stop_reason: str | None) -> None:
        """Write the answer in fc's internal format; put its stop reasons and usage on record."""
        self.internal_response(response)
        self.record.stop_reason = response.stop_reason
        self.record.wire_stop_reason = wire_stop_reason
        self.record.usage = response.usage.to_json_dict() if response.usage else None

    def internal_response(self, response: Response) -> None:
        """Write the answer in fc's internal format only (one that is not on record: cut)."""
        self.trace.write(self.name("response", wire=False), response.to_json_dict())

    def timed(self, duration_ms: float, stream: StreamRecord | None = None) -> None:
        """Put how long the answer took on record, and a stream's size and first byte."""
        self.record.duration_ms = round(duration_ms, 1)
        if stream is not None:
            self.record.stream = stream

    def masked(self) -> None:
        """Say on record that the answer's files hold a secret it echoed as ***."""
        self.record.masked = MASKED

    def add(self, *, save: bool = True) -> None:
        """Put the step on the manifest (`save`: and write it now)."""
        self.trace.manifest.steps.append(self.record)
        if save:
            self.trace.save_manifest()

    def refused(self, harness_bug: str) -> None:
        """Put a step the provider refused on the manifest: only what --harness-bug changed."""
        self.record = StepRecord(step=self.number, harness_bug=harness_bug)
        self.add()
