"""What `fc show TRACE --html` puts on the page besides the trace itself, gathered here so the
page builder (fccli.render.html) only lays out data:

- each step's files as stored (the four a step writes: internal and wire, request and response);
- the field mapping of each internal file onto its wire file, as `fc diff` computes it (the
  translator marks it), so hovering a field finds its counterpart;
- with `--check`, what `fc check` finds in the trace;
- for a replayed trace, its edits as was/now, read against the original trace when it is there.

Nothing here fails the page: what cannot be read is said on the page, not raised.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fccli.check import check_trace
from fccli.core.errors import FcError
from fccli.diff.compare import diff_documents
from fccli.i18n import _
from fccli.render.html.markup import href_path
from fccli.replay.prepare import result_changes
from fccli.trace.reader import Trace, document_from, read_trace, stored_file

if TYPE_CHECKING:
    from fccli.check.findings import Finding
    from fccli.core.manifest import ReplayedFrom
    from fccli.diff.compare import DiffResult
    from fccli.replay.changes import ResultChange

FILE_ROLES = ("request", "wire_request", "response", "wire_response")
"""A step's four files, in the order the page pairs them: the request's two, the response's two."""


@dataclass
class Replayed:
    """A replayed trace: where it came from and what was edited."""

    origin: str
    """The original trace's path, as the manifest has it."""
    origin_href: str
    """The same, relative to the page (a path, never a URL from the trace)."""
    step: Any
    status: Any
    answer: Any
    edits: list[dict[str, Any]]
    """The manifest's edit records (`set`, `error`, `ok`, `editor`)."""
    changes: list[ResultChange] | None = None
    """Each result that went out different from the original's, was and now; None when the
    original trace could not be read."""
    problem: str | None = None
    """Why the original could not be read."""


@dataclass
class PageData:
    trace: Trace
    files: dict[tuple[int, str], dict[str, Any]] = field(default_factory=dict)
    """(step, role) → `{"file": name, "json": value}` or `{"file": name, "text": text}`."""
    mappings: dict[tuple[int, str], DiffResult] = field(default_factory=dict)
    """(step, "request" | "response") → fc diff's mapping of the internal file onto the wire file."""
    findings: list[Finding] | None = None
    """fc check's findings (None: not asked for)."""
    check_problem: str | None = None
    replayed: Replayed | None = None


def gather(trace: Trace, *, check: bool, page: Path | None) -> PageData:
    """Everything the page shows of TRACE; `page` is where it will be written (None: stdout),
    for links to other traces."""
    data = PageData(trace)
    for step in trace.steps:
        for role in FILE_ROLES:
            path = step.files.get(role)
            if path is not None:
                try:
                    data.files[(step.number, role)] = stored_file(path, fold=True)
                except FcError:
                    continue  # the step's notes say it could not be read
        for role in ("request", "response"):
            mapping = _mapping(data, step.number, role, trace.wire_format)
            if mapping is not None:
                data.mappings[(step.number, role)] = mapping
    if check:
        _check(data)
    data.replayed = _replayed(trace, page)
    return data


def _mapping(data: PageData, step: int, role: str, wire_format: str | None) -> DiffResult | None:
    """fc diff's mapping of one step's internal file onto its wire file, or None when either is
    missing or not what its name says (the page then shows the two files unlinked)."""
    internal, wire = data.files.get((step, role)), data.files.get((step, f"wire_{role}"))
    if wire_format is None or internal is None or wire is None:
        return None
    if "json" not in internal or "json" not in wire:
        return None
    try:
        a = document_from(internal["json"], internal["file"], forced="internal")
        b = document_from(wire["json"], wire["file"], forced=wire_format)
        result = diff_documents(a, b)
    except (FcError, ValueError, TypeError, KeyError, RecursionError):
        return None  # a hand-edited or broken file: shown as it is, without links
    return result if result.mode == "mapping" else None


def _check(data: PageData) -> None:
    try:
        data.findings = check_trace(data.trace.path)
    except FcError as e:
        data.findings = []
        data.check_problem = e.localized()


def _replayed(trace: Trace, page: Path | None) -> Replayed | None:
    source = trace.record.replayed_from
    if source is None:
        return None
    origin = source.trace or ""
    out = Replayed(
        origin=origin,
        origin_href=_relative(origin, page),
        step=source.step,
        status=source.status,
        answer=source.final_answer,
        edits=trace.record.edits or [],
    )
    out.changes, out.problem = _changes(trace, source, out.edits)
    return out


def _changes(
    trace: Trace, source: ReplayedFrom, edits: list[dict[str, Any]]
) -> tuple[list[ResultChange] | None, str | None]:
    """Was/now of each edited result: the original step's request against this trace's first."""
    origin, number = source.trace, source.step
    if not origin or number is None:
        return None, _("the manifest does not say which trace and step were replayed")
    replayed = trace.steps[0].request if trace.steps else None
    if replayed is None:
        return None, _("this trace's first request cannot be read")
    try:
        before = read_trace(Path(origin)).step(number).request
    except FcError as e:
        return None, _("the original trace cannot be read here ({error})", error=e.localized())
    if before is None:
        return None, _("step {step} of the original has no readable request", step=number)
    return result_changes(before, replayed, edits), None


def _relative(origin: str, page: Path | None) -> str:
    """The original trace's path as a link from where the page is written."""
    if not origin:
        return ""
    if page is None or Path(origin).is_absolute():
        return href_path(origin)
    try:
        return href_path(os.path.relpath(Path(origin).resolve(), page.resolve().parent))
    except ValueError:  # another drive (Windows)
        return href_path(origin)
