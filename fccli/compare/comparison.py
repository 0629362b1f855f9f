"""Two traces (or step files) compared: steps aligned, each compared field by field, the first
divergence named.

Steps stand side by side by number (a replay beside its original: from the step it replayed).
The first divergence is the first field of what was asked and answered that differs (a
question, a result handed back, a stop reason, a call, an argument, a text), in the order the
steps happened; the setup (model, format, tools) and the measures (tokens, time) are compared
too, but two runs on different models or formats that do the same thing are the same round trip.
Two step files are also compared as `fc diff` compares them (mapping, structure or meaning).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from fccli.compare.facts import StepFacts
from fccli.compare.fields import ABSENT, Field, step_fields
from fccli.compare.sides import Side, Sides, read_sides
from fccli.cost.money import as_number
from fccli.diff.compare import diff_documents
from fccli.diff.paths import compact
from fccli.i18n import Joined, Msg

if TYPE_CHECKING:
    from fccli.diff.compare import DiffResult

SHOWN = 40
"""Characters of a value the divergence line shows."""


@dataclass
class StepPair:
    """A step of A beside a step of B (either None when only the other has it)."""

    a: StepFacts | None
    b: StepFacts | None
    fields: list[Field]

    @property
    def differences(self) -> list[Field]:
        """The fields of what was asked and answered that differ."""
        return [f for f in self.fields if f.kind == "behaviour" and not f.same]

    @property
    def differs(self) -> bool:
        return self.a is None or self.b is None or bool(self.differences)

    def label(self) -> str:
        """`step 2`, or `step 2 (B: step 1)` when the two numbers differ."""
        if self.a is not None and self.b is not None and self.a.number != self.b.number:
            return Msg("step {a} (B: step {b})", a=self.a.number, b=self.b.number)
        facts = self.a or self.b
        assert facts is not None
        return Msg("step {step}", step=facts.number)

    def to_json(self) -> dict[str, Any]:
        return {
            "a": None if self.a is None else self.a.number,
            "b": None if self.b is None else self.b.number,
            "same": not self.differs,
            "fields": [f.to_json() for f in self.fields],
        }


@dataclass
class Divergence:
    """Where A and B first part: the step pair and the field (None: a step only one has)."""

    pair: StepPair
    field: Field | None
    text: str
    """`step 1: call get_weather city 杭州 ≠ 杭州今天适合跑步吗？` (a Msg)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "a_step": None if self.pair.a is None else self.pair.a.number,
            "b_step": None if self.pair.b is None else self.pair.b.number,
            "field": None if self.field is None else self.field.key,
            "text": str(self.text),
        }


@dataclass
class Comparison:
    """What `fc compare` found."""

    a: Side
    b: Side
    pairs: list[StepPair]
    notes: list[str] = field(default_factory=list)
    diff: DiffResult | None = None
    """Two step files: fc diff's comparison of them."""

    @cached_property
    def first(self) -> Divergence | None:
        for pair in self.pairs:
            if pair.a is None or pair.b is None:
                return Divergence(pair, None, _only(pair))
            for f in pair.differences:
                return Divergence(pair, f, Msg("{step}: {said}", step=pair.label(), said=said(f)))
        return None

    @property
    def same(self) -> bool:
        """Whether A and B asked and answered the same at every step."""
        return self.first is None

    def setup_differences(self) -> list[Field]:
        """The setup fields that differ, the first of each (model, format, tools)."""
        out: dict[str, Field] = {}
        for pair in self.pairs:
            for f in pair.fields:
                if f.kind == "setup" and not f.same and pair.a is not None and pair.b is not None:
                    out.setdefault(f.key, f)
        return list(out.values())

    def totals(self) -> dict[str, dict[str, Any]]:
        """Each side's steps, tokens (summed by kind) and time."""
        return {"a": _totals(self.a), "b": _totals(self.b)}

    def to_json(self) -> dict[str, Any]:
        first = self.first
        out: dict[str, Any] = {
            "a": self.a.facts(),
            "b": self.b.facts(),
            "same": first is None,
            "first_divergence": None if first is None else first.to_json(),
            "setup_differences": [f.to_json() for f in self.setup_differences()],
            "totals": self.totals(),
            "steps": [p.to_json() for p in self.pairs],
        }
        if self.notes:
            out["notes"] = [str(n) for n in self.notes]
        if self.diff is not None:
            out["diff"] = self.diff.to_json()
        return out


def compare(a: str, b: str | None, price_model: str | None = None) -> Comparison:
    """Compare A and B: two trace directories or two step files (B None: A is a replay); their
    steps priced as their own models, or both as `price_model`."""
    sides = read_sides(a, b, price_model)
    return compare_sides(sides)


def compare_sides(sides: Sides) -> Comparison:
    """Align the two sides' steps and compare each pair."""
    a_steps = {s.number: s for s in sides.a.steps}
    b_steps = {s.number: s for s in sides.b.steps}
    numbers = sorted({n for n in a_steps} | {n - sides.offset for n in b_steps})
    pairs = []
    for n in numbers:
        x, y = a_steps.get(n), b_steps.get(n - sides.offset)
        if x is None and y is None:
            continue
        if x is not None and y is None and n - sides.offset < 1:
            continue  # before the step a replay starts from: not compared
        pairs.append(StepPair(x, y, step_fields(x, y)))
    diff = None
    if sides.a.document is not None and sides.b.document is not None:
        diff = diff_documents(sides.a.document, sides.b.document)
    notes = [
        *sides.notes,
        *_unread(sides.a, "A"),
        *_unread(sides.b, "B"),
        *_price_bases(sides.a, sides.b),
    ]
    return Comparison(sides.a, sides.b, pairs, notes=notes, diff=diff)


def _unread(side: Side, label: str) -> list[str]:
    """Say each step file of a trace that could not be read (its step compared without it)."""
    steps = side.trace.steps if side.trace is not None else []
    return [Joined([label, note], ": ") for step in steps for note in step.unread]


def _price_bases(a: Side, b: Side) -> list[str]:
    """Say which model a side is priced as when it is not its own (the demo, --price-model)."""
    bases = [a.price_basis, b.price_basis]
    if bases[0] is not None and bases[0] == bases[1]:
        return [Msg("A and B: {basis}", basis=bases[0])]
    return [
        Joined([name, basis], ": ")
        for name, basis in zip("AB", bases, strict=True)
        if basis is not None
    ]


def _only(pair: StepPair) -> str:
    if pair.a is None:
        return Msg("{step}: only in B", step=pair.label())
    return Msg("{step}: only in A", step=pair.label())


def said(f: Field) -> str:
    """A field's difference in words: `call get_weather city 杭州 ≠ 杭州今天适合跑步吗？`, or
    `call 1 get_weather only in A`."""
    if f.b is ABSENT:
        return Msg("{what} {value} only in A", what=f.what, value=shown(f.a))
    if f.a is ABSENT:
        return Msg("{what} {value} only in B", what=f.what, value=shown(f.b))
    return Msg("{what} {a} ≠ {b}", what=f.what, a=shown(f.a), b=shown(f.b))


def shown(value: Any, limit: int = SHOWN) -> str:
    """A value on one line: a string as it reads (blanks run together), anything else as JSON;
    cut to `limit` characters."""
    if isinstance(value, str):
        text = " ".join(value.split()) or '""'
        return text if len(text) <= limit else text[: limit - 1] + "…"
    if isinstance(value, bool):
        return "true" if value else "false"
    return compact(value, limit)


def _totals(side: Side) -> dict[str, Any]:
    tokens: dict[str, int] = {}
    for s in side.steps:
        for key, n in (s.usage or {}).items():
            tokens[key] = tokens.get(key, 0) + n
    durations = [s.duration_ms for s in side.steps if s.duration_ms is not None]
    total_ms = side.trace.record.duration_ms if side.trace is not None else None
    if total_ms is None and durations:
        total_ms = round(sum(durations), 3)
    out: dict[str, Any] = {"steps": len(side.steps), "tokens": tokens or None}
    cost = side.cost
    if cost is not None:
        out["cost_usd"] = as_number(cost.usd) if cost.priced else None
        out["unpriced_steps"] = cost.unpriced
        if cost.saved_usd is not None:
            out["cache_saved_usd"] = as_number(cost.saved_usd)
    out["duration_ms"] = total_ms
    return out
