"""`--otlp URL` on the commands that write a trace (`fc run`, `fc replay`): the trace exported
as OpenTelemetry spans when it closes, whether the run ended well or not."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from fccli.i18n import N_

if TYPE_CHECKING:
    from fccli.export.otel import LiveExport

OTLP = typer.Option(
    None,
    "--otlp",
    metavar="URL",
    envvar="FC_OTLP",
    help=N_(
        "Also export the trace, when it closes, as OpenTelemetry GenAI spans to this OTLP/HTTP "
        "endpoint (e.g. http://localhost:6006 for Phoenix; also $FC_OTLP). Needs the otel extra."
    ),
)
OTLP_CONTENT = typer.Option(
    False,
    "--otlp-content",
    help=N_("With --otlp: export the messages, arguments and results too (default: not)."),
)


def prepare(url: str | None, content: bool) -> LiveExport | None:
    """Checked before the run: the extra installed, the URL and the OTEL_* headers usable."""
    if not url:
        return None
    from fccli.export.otel import LiveExport

    return LiveExport(url, content=content)


@contextmanager
def exported_on_close(live: LiveExport | None, trace: Path) -> Iterator[None]:
    """Export the trace once the body is done. A run that failed is exported too, and its error
    stays the one reported (an export failure beside it is one more line)."""
    if live is None:
        yield
        return
    from fccli.core.errors import FcError

    try:
        yield
    except FcError:
        try:
            _said(live.send(trace).exported[0].trace_id, live)
        except FcError as e:
            from fccli.i18n import _

            print(_("fc: the trace was not exported: {error}", error=e.message), file=sys.stderr)
        raise
    _said(live.send(trace).exported[0].trace_id, live)


def _said(trace_id: str, live: LiveExport) -> None:
    from fccli.i18n import _

    said = _("exported trace {trace_id} to {target}", trace_id=trace_id, target=live.target.shown)
    print(said, file=sys.stderr)
