"""Options that bound what one answer or one tool may take, shared by run, replay and send."""

from __future__ import annotations

import typer

from fccli.i18n import N_

TIMEOUT = typer.Option(
    600.0,
    "--timeout",
    min=1.0,
    help=N_(
        "Seconds one answer may take in all, a stream too (thinking takes a while); "
        "past it fc stops reading, keeps what came, exit 3."
    ),
)
MAX_RESPONSE_MB = typer.Option(
    64.0,
    "--max-response-mb",
    min=0.01,
    help=N_(
        "The most MB of one answer fc reads (decompressed); past it fc stops reading, keeps "
        "what came, exit 3."
    ),
)
TOOL_TIMEOUT = typer.Option(
    120.0,
    "--tool-timeout",
    min=0.01,
    help=N_(
        "Seconds a tool may run; past it the call gets an error result the model reads, "
        "and the run goes on (the tool is left to finish in the background)."
    ),
)


def megabytes(value: float) -> int:
    return int(value * 1024 * 1024)
