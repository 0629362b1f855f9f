"""Compare two documents: `fc diff` picks one of three comparisons from their formats.

- **mapping** (diff/mapping.py), internal vs a wire format (one request, or one response): which
  internal element became which wire element, message by message, with a note wherever the
  representation changes; then whether the two say the same thing: the wire file read back into
  the internal format, compared with what the format can say of the internal file.
- **structural** (diff/structural.py), two files of one format: every added, removed and changed
  value by JSON path.
- **meaning**, two different wire formats (or two messages arrays): both read into the internal
  format, then compared structurally there.

It never prints (render/diff_view.py does).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from fccli.core.errors import UsageError
from fccli.core.models import Request
from fccli.diff.mapping import Link, mapped
from fccli.diff.structural import Change, changes, described_changes, kind_said
from fccli.i18n import Msg
from fccli.trace.reader import Document, read_document
from fccli.wire.registry import INTERNAL, family, get_format


@dataclass
class Side:
    """One of the two documents compared: its file, format, kind and why that format."""

    name: str
    format: str
    kind: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"file": self.name, "format": self.format, "kind": self.kind, "reason": self.reason}


@dataclass
class DiffResult:
    """What `fc diff` found: the comparison made, and its changes (and mapping rows)."""

    mode: Literal["mapping", "structural", "meaning"]
    a: Side
    b: Side
    changes: list[Change]
    """structural: of the files as they are; mapping and meaning: of what they say, in the
    internal format."""
    links: list[Link] = field(default_factory=list)
    wire_only: list[tuple[str, Any]] = field(default_factory=list)
    """Mapping: fields of the wire file the internal format keeps nothing of."""
    summary: str = ""
    """Mapping: what was compared (`2 calls, 2 results, 1 text, 1 tool`)."""
    note: str | None = None

    @property
    def differ(self) -> bool:
        return bool(self.changes)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "mode": self.mode,
            "a": self.a.to_json(),
            "b": self.b.to_json(),
            "same": not self.differ,
            "differences": [c.to_json() for c in self.changes],
        }
        if self.mode == "mapping":
            out["mapping"] = [link.to_json() for link in self.links]
            out["only_in_wire"] = [{"path": p, "value": v} for p, v in self.wire_only]
            out["compared"] = self.summary
        if self.note:
            out["note"] = self.note
        return out


def diff_files(a: str, b: str) -> DiffResult:
    """Compare two JSON files (`-`: stdin), their formats detected from the content."""
    return diff_documents(read_document(a), read_document(b))


def diff_documents(a: Document, b: Document) -> DiffResult:
    """Compare two documents in the way their formats call for."""
    side_a, side_b = (Side(d.name, d.format, d.kind, d.reason) for d in (a, b))
    # Formats of one layout (DeepSeek and OpenAI chat) compare field by field; the internal
    # format is mapped onto a wire format instead.
    same_family = a.format == b.format or (
        INTERNAL not in (a.format, b.format) and family(a.format) == family(b.format)
    )
    if same_family:
        return DiffResult("structural", side_a, side_b, changes(a.data, b.data))
    if a.kind != b.kind:
        raise UsageError(
            Msg(
                "{a} is a {a_kind} and {b} a {b_kind}, in different formats: nothing to map",
                a=a.name,
                a_kind=kind_said(a.kind),
                b=b.name,
                b_kind=kind_said(b.kind),
            ),
            hint=Msg(
                "compare a step's request with its request, or its response with its response"
            ),
        )
    if "internal" in (a.format, b.format) and a.kind != "messages":
        other_step = _other_step(a, b)
        if other_step is None:
            return _mapping(a, b, side_a, side_b)
        why = Msg(
            "{why}, so they are compared by meaning, not mapped field by field", why=other_step
        )
    else:
        why = Msg(
            "{a} and {b} differ in form, so they are compared by meaning",
            a=a.format,
            b=b.format,
        )
    note = Msg(
        "{why}\nboth were read into the internal format; the paths are of that form "
        "(`fc convert FILE --to internal` gives it), A's or B's as marked",
        why=why,
    )
    return DiffResult(
        "meaning",
        side_a,
        side_b,
        described_changes(a.internal_json(), b.internal_json()),
        note=note,
    )


def _other_step(a: Document, b: Document) -> str | None:
    """Say why an internal request and a wire request cannot be one step, or None when they may be:
    the internal one read and the wire one read hold different numbers of messages, or the
    internal one translates to a different number of wire messages than the wire file holds.
    (A mapping of two different steps would call everything the longer one adds `only in the
    wire file`, as if the internal format could not hold it.)"""
    if not (isinstance(a.internal, Request) and isinstance(b.internal, Request)):
        return None
    n_a, n_b = len(a.internal.messages), len(b.internal.messages)
    if n_a != n_b:
        return Msg("these look like different steps ({a} vs {b} messages)", a=n_a, b=n_b)
    internal_doc, wire_doc = (a, b) if a.format == "internal" else (b, a)
    assert isinstance(internal_doc.internal, Request)
    fmt = get_format(wire_doc.format)
    translated = fmt.to_wire_request(internal_doc.internal).get(fmt.history_field)
    held = wire_doc.data.get(fmt.history_field) if isinstance(wire_doc.data, dict) else None
    if isinstance(translated, list) and isinstance(held, list) and len(translated) != len(held):
        return Msg(
            "these look like different steps ({internal} translates to {n} {format} messages, "
            "{wire} holds {held})",
            internal=internal_doc.name,
            n=len(translated),
            format=wire_doc.format,
            wire=wire_doc.name,
            held=len(held),
        )
    return None


def _mapping(a: Document, b: Document, side_a: Side, side_b: Side) -> DiffResult:
    internal_doc, wire_doc = (a, b) if a.format == "internal" else (b, a)
    found = mapped(internal_doc, wire_doc)
    note = None
    if internal_doc is b:
        note = Msg("the internal file is {b}: the mapping reads from it to {a}", b=b.name, a=a.name)
    return DiffResult(
        "mapping",
        side_a,
        side_b,
        found.differences,
        links=found.links,
        wire_only=found.wire_only,
        summary=found.summary,
        note=note,
    )
