"""`fc export otel TRACE…` and `fc run --otlp URL`: read, build, then write or send; report.

Every trace is read before anything is sent: one that cannot be read is exit 2 with nothing
exported. Each trace then goes in its own request, so that a failure part-way can say exactly
which traces arrived and which did not (exit 3). What a trace lacks (a step file missing) is
exported as far as it goes and said in the report's notes, never dropped in silence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from fccli.core.errors import ProviderError, UsageError, os_reason
from fccli.core.extras import require_otel
from fccli.export import deliver
from fccli.export.spans import TraceRecord, build
from fccli.i18n import Msg, localized
from fccli.trace.reader import read_trace

FORMATS = ("json", "protobuf")
CONTENT_TYPES = {"protobuf": "application/x-protobuf", "json": "application/json"}


@dataclass
class ExportSettings:
    traces: list[Path]
    endpoint: str | None = None
    output: str | None = None
    """A file, or `-` for stdout."""
    format: str | None = None
    """json or protobuf; default protobuf to an endpoint, json to a file."""
    content: bool = False


@dataclass
class Exported:
    path: Path
    trace_id: str
    """Hex, as backends show it."""
    spans: int
    notes: list[str] = field(default_factory=list)


@dataclass
class ExportReport:
    where: str
    """The URL (password masked) or the file written."""
    format: str
    exported: list[Exported]
    warnings: list[str] = field(default_factory=list)
    """What the collector said along with a success."""
    stdout: bytes | None = None
    """The encoded export, when `-o -` asks for it on stdout (the command prints it)."""


def export_otel(settings: ExportSettings) -> ExportReport:
    require_otel("fc export")
    if settings.endpoint and settings.output:
        raise UsageError(Msg("give --endpoint or -o, not both"))
    if settings.format is not None and settings.format not in FORMATS:
        raise UsageError(
            Msg("unknown --format {value}", value=repr(settings.format)),
            hint=Msg("json or protobuf"),
        )
    target = None
    if settings.output is None:
        target = deliver.destination(settings.endpoint)
        if target is None:
            raise UsageError(
                Msg("where to? give --endpoint URL or -o FILE"),
                hint=Msg(
                    "or set OTEL_EXPORTER_OTLP_ENDPOINT (e.g. http://localhost:6006 for Phoenix)"
                ),
            )
    records = [
        (path, build(read_trace(path), content=settings.content)) for path in settings.traces
    ]
    if target is None:
        return _to_file(records, settings.output or "-", settings.format or "json")
    return _to_endpoint(records, target, settings.format or "protobuf")


def _to_file(records: list[tuple[Path, TraceRecord]], output: str, fmt: str) -> ExportReport:
    traces = [r for _, r in records]
    if fmt == "json":
        # JSON Lines, one export request per trace: the OTLP file exporter's layout, which
        # the collector's otlpjsonfile receiver reads back.
        data = b"".join(_encoded([t], "json") + b"\n" for t in traces)
    else:
        data = _encoded(traces, "protobuf")  # protobuf messages do not delimit: one request
    exported = [_exported(p, r) for p, r in records]
    if output == "-":
        return ExportReport("stdout", fmt, exported, stdout=data)
    try:
        Path(output).write_bytes(data)
    except OSError as e:
        raise UsageError(
            Msg("cannot write {path}: {error}", path=output, error=os_reason(e))
        ) from None
    return ExportReport(output, fmt, exported)


def _to_endpoint(
    records: list[tuple[Path, TraceRecord]], target: deliver.Destination, fmt: str
) -> ExportReport:
    report = ExportReport(target.shown, fmt, [])
    for path, record in records:
        try:
            posted = deliver.post(target, _encoded([record], fmt), CONTENT_TYPES[fmt])
        except ProviderError as e:
            # Only printed (an export's error goes in no trace): said in the chosen language.
            hints = [localized(e.hint), localized(_partial(report, records))]
            raise e.at(hint="; ".join(filter(None, hints))) from e
        if posted.rejected:
            report.exported.append(_exported(path, record))
            fields = {
                "target": target.shown,
                "rejected": posted.rejected,
                "spans": len(record.spans),
                "path": str(path),
            }
            raise ProviderError(
                Msg(
                    "{target} rejected {rejected} of the {spans} spans of {path}: {message}",
                    **fields,
                    message=posted.message,
                )
                if posted.message
                else Msg("{target} rejected {rejected} of the {spans} spans of {path}", **fields),
                hint=_partial(report, records),
            )
        if posted.message:
            report.warnings.append(
                Msg("{path}: the collector said: {message}", path=str(path), message=posted.message)
            )
        report.exported.append(_exported(path, record))
    return report


def _partial(report: ExportReport, records: list[tuple[Path, TraceRecord]]) -> Msg | None:
    if len(records) == 1 and not report.exported:
        return None
    done = [str(e.path) for e in report.exported]
    rest = [str(p) for p, _ in records[len(done) :]]
    fields = {
        "done": len(done),
        "total": len(records),
        "exported": ", ".join(done),
        "rest": ", ".join(rest),
    }
    if done and rest:
        return Msg("exported {done} of {total} traces ({exported}); not exported: {rest}", **fields)
    if done:
        return Msg("exported {done} of {total} traces ({exported})", **fields)
    if rest:
        return Msg("exported {done} of {total} traces; not exported: {rest}", **fields)
    return Msg("exported {done} of {total} traces", **fields)


def _encoded(traces: list[TraceRecord], fmt: str) -> bytes:
    from fccli.export import otlp  # the `otel` extra: checked by require_otel first

    if fmt == "protobuf":
        return otlp.protobuf_bytes(traces)
    return json.dumps(otlp.json_dict(traces), ensure_ascii=False, separators=(",", ":")).encode()


def _exported(path: Path, record: TraceRecord) -> Exported:
    return Exported(path, record.trace_id.hex(), len(record.spans), record.notes)


# ---------------------------------------------------------------------------------------------
# live: `fc run --otlp URL`, `fc replay --otlp URL`


class LiveExport:
    """Checked before the run (the extra installed, the URL usable, the headers well formed),
    so that a run is never made only to fail at the end for a typo; sent when the trace closes."""

    def __init__(self, url: str, *, content: bool = False) -> None:
        require_otel("--otlp")
        target = deliver.destination(url, option="--otlp")
        assert target is not None  # a URL was given
        self.target = target
        self.content = content

    def send(self, trace: Path) -> ExportReport:
        record = build(read_trace(trace), content=self.content)
        return _to_endpoint([(trace, record)], self.target, "protobuf")
