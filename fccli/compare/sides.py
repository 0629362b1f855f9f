"""The two things `fc compare` puts side by side, read: two traces, or two step files.

A trace is read as `fc show` reads it (a missing step file is a note, not a refusal); a step
file as `fc diff` reads it (its format detected, its content read into the internal format). A
replay names its original in its manifest (`replayed_from`); given alone, it is compared with
that original, and a replay beside its original is aligned at the step it replayed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from fccli.compare.facts import StepFacts, document_facts, step_facts
from fccli.core.errors import InputFileError, UsageError
from fccli.cost.price import price_usage
from fccli.cost.target import DEMO, Target, price_target
from fccli.cost.trace import TraceCost, price_trace, usage_of
from fccli.diff.structural import kind_said
from fccli.i18n import Msg
from fccli.providers.demo.model import INFO as DEMO_INFO
from fccli.trace.names import MANIFEST
from fccli.trace.reader import Document, Trace, read_document, read_trace


@dataclass
class Side:
    """One of the two things compared: a trace or a step file, and its steps' facts."""

    name: str
    """The path as given (for a replay given alone, its original: the path the manifest says)."""
    kind: Literal["trace", "file"]
    steps: list[StepFacts]
    trace: Trace | None = None
    document: Document | None = None
    cost: TraceCost | None = None
    """A trace's steps priced (a step file's price is on its step)."""
    price_basis: str | None = None
    """Why it is priced as another model than its own (the demo, --price-model); a Msg."""

    @property
    def format(self) -> str | None:
        if self.trace is not None:
            return self.trace.wire_format
        return self.document.format if self.document is not None else None

    def facts(self) -> dict[str, Any]:
        """What the header says of it: provider, format, model, status, question, time."""
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "format": self.format}
        if self.trace is not None:
            m = self.trace.record
            out.update(
                provider=m.provider,
                model=m.model,
                status=m.status,
                question=m.question,
                duration_ms=m.duration_ms,
            )
        elif self.document is not None:
            out.update(file_kind=self.document.kind, model=self.steps[0].model)
        out["steps"] = len(self.steps)
        return out


@dataclass
class Sides:
    """A and B as read, and how their steps line up."""

    a: Side
    b: Side
    offset: int = 0
    """B's step k stands beside A's step k + offset (a replay of A's step 1 + offset)."""
    notes: list[str] = field(default_factory=list)
    """What the reader must know about the alignment (Msgs)."""


def read_sides(a: str, b: str | None, price_model: str | None = None) -> Sides:
    """Read A and B (B None: A is a replay, compared with its original), their steps priced as
    their own models, or both as `price_model`."""
    first = _trace_dir(a)
    if b is None:
        if first is None:
            raise UsageError(
                Msg("{a} is a file: compare it with another file (fc compare A B)", a=a)
            )
        replay = read_trace(first)
        origin = replayed_from(replay)
        if origin is None:
            raise UsageError(
                Msg("{a} is not a replay: give the trace to compare it with", a=a),
                hint=Msg("fc compare A B; given one trace, fc compares a replay with its original"),
            )
        original = read_trace(origin)
        return _aligned(
            _trace_side(str(origin), original, price_model), _trace_side(a, replay, price_model)
        )
    second = _trace_dir(b)
    if (first is None) != (second is None):
        trace, file = (a, b) if first is not None else (b, a)
        raise UsageError(
            Msg(
                "{trace} is a trace and {file} a file: compare two traces or two files",
                trace=trace,
                file=file,
            ),
            hint=Msg("a step of a trace is a file: {trace}/1-response.json", trace=trace),
        )
    if first is None or second is None:
        return _files(_file_side(a, price_model), _file_side(b, price_model))
    return _aligned(
        _trace_side(a, read_trace(first), price_model),
        _trace_side(b, read_trace(second), price_model),
    )


def _files(a: Side, b: Side) -> Sides:
    """Two step files: both requests, both responses, or both messages arrays."""
    assert a.document is not None and b.document is not None
    if a.document.kind != b.document.kind:
        raise UsageError(
            Msg(
                "{a} is a {a_kind} and {b} a {b_kind}: not one step's same file",
                a=a.name,
                a_kind=kind_said(a.document.kind),
                b=b.name,
                b_kind=kind_said(b.document.kind),
            ),
            hint=Msg(
                "compare a step's request with its request, or its response with its response"
            ),
        )
    return Sides(a, b)


def _trace_dir(name: str) -> Path | None:
    """The trace directory NAME is (or whose manifest it is); None for any other file."""
    path = Path(name)
    if path.is_dir():
        return path
    if path.name == MANIFEST and path.is_file():
        return path.parent
    return None


def _trace_side(name: str, trace: Trace, price_model: str | None) -> Side:
    cost = price_trace(trace.record, price_model)
    steps = [step_facts(s, trace.wire_format) for s in trace.steps]
    error = trace.record.error
    for facts in steps:
        facts.cost = cost.steps.get(facts.number)
        if error is not None and error.step == facts.number:
            message = (error.message or "").removeprefix(f"step {facts.number}: ")
            facts.error = ": ".join(filter(None, [error.kind, message])) or "?"
    return Side(name, "trace", steps, trace=trace, cost=cost, price_basis=cost.basis)


def _file_side(name: str, price_model: str | None) -> Side:
    if name == "-":
        raise UsageError(Msg("fc compare reads files, not stdin: give two paths"))
    doc = read_document(name)
    facts = document_facts(doc)
    usage = usage_of(facts.usage)
    if usage is None:
        return Side(name, "file", [facts], document=doc)
    # A file names no provider: its model's name finds the price (the demo's, the demo).
    provider = DEMO if facts.model == DEMO_INFO.default_model else None
    target = price_target(provider, facts.model, price_model)
    facts.cost = price_usage(usage, target, None)
    basis = target.basis if isinstance(target, Target) else None
    return Side(name, "file", [facts], document=doc, price_basis=basis)


def replayed_from(trace: Trace) -> Path | None:
    """The trace a replay came from, where it is found: the path its manifest says (from here),
    else that trace's name beside the replay; None for a trace that is not a replay."""
    source = trace.record.replayed_from
    if source is None or not source.trace:
        return None
    said = Path(source.trace)
    for candidate in (said, trace.path.parent / said, trace.path.parent / said.name):
        if (candidate / MANIFEST).is_file():
            return candidate
    raise InputFileError(
        source.trace,
        Msg("the original of replay {replay} is not found here", replay=str(trace.path)),
    )


def _aligned(a: Side, b: Side) -> Sides:
    """Line up a replay with its original at the step it replayed."""
    assert a.trace is not None and b.trace is not None
    for original, replay, sign in ((a, b, 1), (b, a, -1)):
        assert original.trace is not None and replay.trace is not None
        step = replay.trace.record.replayed_from.step if replay.trace.record.replayed_from else None
        if not isinstance(step, int) or step < 1 or not _same(replay.trace, original.trace):
            continue
        note = Msg(
            "{replay} replays step {step} of {original}: its step 1 stands beside step {step}",
            replay=replay.name,
            step=step,
            original=original.name,
        )
        return Sides(a, b, offset=sign * (step - 1), notes=[note])
    return Sides(a, b)


def _same(replay: Trace, original: Trace) -> bool:
    try:
        found = replayed_from(replay)
    except InputFileError:
        return False
    return found is not None and found.resolve() == original.path.resolve()
