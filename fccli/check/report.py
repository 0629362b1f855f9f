"""`fc check PATH`: a trace directory or one JSON file, read, detected and checked."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from fccli.check.findings import Finding, count
from fccli.check.lint import inspect
from fccli.check.traces import inspect_trace
from fccli.core.errors import ConversionError, InputFileError, UsageError
from fccli.i18n import Msg
from fccli.trace.reader import StreamAnswer, read_source
from fccli.wire.detect import Unrecognised, detect
from fccli.wire.registry import format_names


@dataclass
class Report:
    target: str
    kind: Literal["trace", "file"]
    findings: list[Finding]
    files: list[str] = field(default_factory=list)
    format: str | None = None
    """A single file's format."""
    reason: str | None = None
    """Why that format: what detection saw, or --format."""

    @property
    def errors(self) -> int:
        return count(self.findings, "error")

    @property
    def warnings(self) -> int:
        return count(self.findings, "warning")

    @property
    def notes(self) -> int:
        return count(self.findings, "note")

    def failed(self, strict: bool = False) -> bool:
        """Exit 1: an error, or with `strict` a warning."""
        return bool(self.errors or (strict and self.warnings))

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "kind": self.kind,
            "format": self.format,
            "format_reason": self.reason,
            "files": self.files,
            "errors": self.errors,
            "warnings": self.warnings,
            "notes": self.notes,
            "findings": [f.to_json_dict() for f in self.findings],
        }


def check_path(path: Path, fmt: str | None = None) -> Report:
    if path.is_dir():
        if fmt is not None:
            raise UsageError(
                Msg("--format applies to a single file; a trace names each file's format itself")
            )
        trace = inspect_trace(path)
        return Report(str(path), "trace", trace.findings, trace.files)
    doc = read_source(str(path))[0]  # a raw stream file folded: said below to be a response
    if fmt is not None:
        if fmt not in format_names():
            raise UsageError(
                Msg("unknown --format {fmt!r}", fmt=fmt),
                hint=Msg("formats: {formats}", formats=", ".join(format_names())),
            )
        reason = "--format"
    else:
        try:
            detected = detect(doc, name_hint=path.name)
        except Unrecognised as e:
            raise InputFileError(str(path), e.args[0] if e.args else str(e)) from None
        if detected.kind == "response" and isinstance(doc, StreamAnswer):
            raise InputFileError(
                str(path),
                Msg(
                    "this is a streamed response ({format} format), not a request; fc check reads "
                    "requests, messages arrays and trace directories (fc show {path} shows it)",
                    format=detected.format,
                    path=str(path),
                ),
            )
        if detected.kind == "response":
            raise InputFileError(
                str(path),
                Msg(
                    "this is a response ({format} format), not a request; fc check reads "
                    "requests, messages arrays and trace directories",
                    format=detected.format,
                ),
            )
        fmt, reason = detected.format, detected.reason
    try:
        checked = inspect(doc, fmt)
    except ConversionError as e:
        raise InputFileError(str(path), e.problem, json_path=e.json_path) from None
    return Report(str(path), "file", checked.findings, [path.name], fmt, reason)
