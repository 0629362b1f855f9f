"""`--otlp URL` on the commands that write a trace (`fc run`, `fc replay`): the trace exported
as OpenTelemetry spans when it closes, whether the run ended well or not."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from fccli.core.errors import FcError
from fccli.i18n import _

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
    """Export the trace once the body is done. A run that failed is exported too, and its error
    stays the one reported (an export failure beside it is one more line)."""
    if live is None:
        yield
        return
    try:
        yield
    except FcError:
        try:
            _report_export(live, trace)
        except FcError as e:
            print(_("fc: the trace was not exported: {error}", error=e.message), file=sys.stderr)
        raise
    _report_export(live, trace)


def _report_export(live: LiveExport, trace: Path) -> None:
    """Send the trace and say on stderr where it went."""
    trace_id = live.send(trace).exported[0].trace_id
    line = _("exported trace {trace_id} to {target}", trace_id=trace_id, target=live.target.shown)
    print(line, file=sys.stderr)
