"""`fc import FILE`: other tools' traces (OTLP GenAI spans, `llm logs --json`) as fc traces."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from fccli.i18n import N_, _, localized

HELP = N_("Read other tools' traces (OTLP GenAI spans, `llm logs --json`) into fc traces.")
RANK = 122  # its place in `fc --help`: a command lists before the groups (mcp, export)


def import_(
    file: Path = typer.Argument(
        ...,
        metavar="FILE",
        help=N_(
            "OTLP trace data (JSON, JSON Lines or protobuf) of GenAI spans, as fc export otel, "
            "OpenLLMetry, opentelemetry-instrumentation-openai-v2, OpenInference or Logfire "
            "write it; or the output of `llm logs --json`."
        ),
    ),
    out: Path | None = typer.Option(
        None,
        "--out",
        "-o",
        metavar="TRACE_DIR",
        help=N_(
            "The trace directory to write (default: traces/DATE-TIME-import-SLUG). A file "
            "holding several conversations gets one trace each: TRACE_DIR/1, TRACE_DIR/2..."
        ),
    ),
    force: bool = typer.Option(
        False, "--force", help=N_("Replace an existing trace at TRACE_DIR.")
    ),
) -> None:
    """Read other tools' traces (OTLP GenAI spans, `llm logs --json`) into fc traces: internal
    and wire files and a manifest, as fc run writes them; what the file does not hold is said on
    stderr and in the manifest's notes."""
    # imported as it runs: `fc import --help` stays light (start-up)
    from fccli.core.controls import escape_controls
    from fccli.importer.build import target, write
    from fccli.importer.source import read

    imported = read(file)
    count = len(imported.conversations)
    origin = {"file": file.name, "kind": imported.kind}
    for index, conversation in enumerate(imported.conversations, start=1):
        written = write(conversation, target(out, index, count, conversation), origin, force=force)
        said = _(
            "wrote {path}: {steps} step(s) from {source}",
            path=str(written.path),
            steps=written.steps,
            source=written.source,
        )
        print(escape_controls(said))
        for note in written.notes:
            print(escape_controls(_("fc: note: ") + localized(note)), file=sys.stderr)
