"""`--otlp URL` on the commands that write a trace (`fc run`, `fc replay`): the trace exported
as OpenTelemetry spans when it closes, whether the run ended well or not."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from fccli.core.errors import FcError
from fccli.core.jsonio import encoded_pieces, read_json
from fccli.i18n import Msg, _
from fccli.trace.names import MANIFEST
from fccli.trace.writer import write_atomic

if TYPE_CHECKING:
    from fccli.export.otel import LiveExport


def prepare(url: str | None, content: bool) -> LiveExport | None:
    """Check, before the run, that the extra is installed and the URL and OTEL_* headers usable."""
    if not url:
        return None
    from fccli.export.otel import LiveExport  # imported lazily: start-up of every run

    return LiveExport(url, content=content)


@contextmanager
def exported_on_close(live: LiveExport | None, trace: Path) -> Iterator[None]:
    """Export the trace once the body is done, whether it ended well or not.

    A failed export is one warning line and a note in the manifest, never the exit code: the
    run's job was done, or its own error stays the one reported."""
    if live is None:
        yield
        return
    try:
        yield
    except FcError:
        _export(live, trace)
        raise
    _export(live, trace)


def _export(live: LiveExport, trace: Path) -> None:
    """Send the trace; a failure is warned about and noted in the manifest."""
    try:
        _report_export(live, trace)
    except FcError as e:
        line = _("fc: warning: the trace was not exported: {error}", error=e.message)
        print(line, file=sys.stderr)
        target = live.target.shown
        _note(trace, Msg("the export to {target} failed: {error}", target=target, error=e.message))


def _report_export(live: LiveExport, trace: Path) -> None:
    """Send the trace and say on stderr where it went."""
    trace_id = live.send(trace).exported[0].trace_id
    line = _("exported trace {trace_id} to {target}", trace_id=trace_id, target=live.target.shown)
    print(line, file=sys.stderr)


def _note(trace: Path, text: str) -> None:
    """Add `text` to the closed trace's notes; a manifest that cannot be rewritten keeps none."""
    path = trace / MANIFEST
    try:
        manifest = read_json(path)
        notes = manifest.setdefault("notes", []) if isinstance(manifest, dict) else None
        if isinstance(notes, list):
            notes.append(text)
            write_atomic(path, encoded_pieces(manifest))
    except FcError:
        return
