"""Two steps' facts compared field by field: what was offered, handed back, asked and answered.

Calls are paired by their place in the response (ids differ between formats and runs), their
arguments compared by JSON path with fc diff's structural diff; results handed back are paired
by place too, each named by the call it answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from fccli.compare.facts import OPTIONS, Call, HandedBack, StepFacts
from fccli.cost.money import as_number
from fccli.cost.price import StepCost, StepPrice, Unpriced
from fccli.diff.paths import canon, path_str
from fccli.diff.structural import changes
from fccli.i18n import Joined, Msg


class _Absent:
    """A field one side does not have (a step, a call, an argument it lacks)."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()

CALL = Msg("call")
"""The word before a call's tool and argument (`call get_weather city`): a phrase of
parts, not a message of its own, so that no kept sentence beginning `call …` is read back as
one (fccli/trace/words.py)."""

TOOL = Msg("tool")

Kind = Literal["setup", "behaviour", "measure"]
"""setup: what the run was given (model, format, tools); behaviour: what was asked and answered
(the first divergence is the first of these that differs); measure: tokens, time, cost."""


@dataclass(frozen=True)
class Field:
    """One field of a step, on both sides."""

    key: str
    """Its name in `--json` (`calls[0].input.city`)."""
    what: str
    """What it is, in words (a Msg): `call get_weather city`."""
    kind: Kind
    a: Any = ABSENT
    b: Any = ABSENT
    level: int = 0
    """1 for an argument or a result's error flag: shown under its call or result."""
    label: str = ""
    """What a row of the view calls it, when not `what` (under its call: `city`)."""

    @property
    def name(self) -> str:
        """The row's label: `label`, else `what`."""
        return self.label or self.what

    @property
    def same(self) -> bool:
        if self.a is ABSENT or self.b is ABSENT:
            return self.a is self.b
        return canon(self.a) == canon(self.b)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"field": self.key, "kind": self.kind, "same": self.same}
        if self.a is not ABSENT:
            out["a"] = self.a
        if self.b is not ABSENT:
            out["b"] = self.b
        return out


def step_fields(a: StepFacts | None, b: StepFacts | None) -> list[Field]:
    """Compare two steps (None: the side has no such step), in the order a step happens:
    what it was given, the request, the response, then what it cost."""

    def both(attr: str) -> tuple[Any, Any]:
        return (
            ABSENT if a is None else getattr(a, attr),
            ABSENT if b is None else getattr(b, attr),
        )

    out = [
        Field("model", Msg("model"), "setup", *both("model")),
        Field("format", Msg("format"), "setup", *both("format")),
        Field("tools", Msg("tools offered"), "setup", *both("tools")),
    ]
    out += _tool_specs(*both("tool_specs"))
    out += _options(*both("options"))
    question = both("question")
    if any(q not in (None, ABSENT) for q in question):
        out.append(Field("question", Msg("question"), "behaviour", *question))
    out += _handed_back(*both("handed_back"))
    if any(f is not None and f.answered for f in (a, b)):
        # A side without a response has none of its fields: `stop reason end_turn only in A`.
        x, y = (f if f is not None and f.answered else None for f in (a, b))
        answers = (ABSENT if x is None else x.stop_reason, ABSENT if y is None else y.stop_reason)
        out.append(Field("stop_reason", Msg("stop reason"), "behaviour", *answers))
        out += _calls(ABSENT if x is None else x.calls, ABSENT if y is None else y.calls)
        # no text is no field to compare: `text … only in B`, not `null ≠ …`
        text_a, text_b = (ABSENT if f is None or f.text is None else f.text for f in (x, y))
        out.append(Field("text", Msg("text"), "behaviour", text_a, text_b))
    errors = both("error")
    if any(e not in (None, ABSENT) for e in errors):
        out.append(Field("error", Msg("stopped by"), "behaviour", *errors))
    costs = both("cost")
    out += [
        Field("usage", Msg("tokens"), "measure", *both("usage")),
        Field("cost_usd", Msg("cost"), "measure", _usd(costs[0]), _usd(costs[1])),
        Field(
            "cache_saved_usd",
            Msg("saved by the cache"),
            "measure",
            _saved(costs[0]),
            _saved(costs[1]),
        ),
        Field("duration_ms", Msg("time"), "measure", *both("duration_ms")),
    ]
    return [f for f in out if not {id(f.a), id(f.b)} <= {id(None), id(ABSENT)}]


def _tool_specs(a: Any, b: Any) -> list[Field]:
    """The definitions of the tools both offer, field by field (`strict`, the schema...)."""
    if ABSENT in (a, b):
        return []
    out = []
    for name in [n for n in a if n in b]:
        out += _by_path(f"tools.{name}", (TOOL, name), "setup", a[name], b[name], (name,))
    return out


def _options(a: Any, b: Any) -> list[Field]:
    """The request's settings either side sets (`thinking`, `tool_choice`...), by their names."""
    left = {} if a is ABSENT else a
    right = {} if b is ABSENT else b
    names = [k for k in OPTIONS if k in left or k in right]
    return [
        Field(f"request.{k}", k, "setup", left.get(k, ABSENT), right.get(k, ABSENT)) for k in names
    ]


def _usd(price: StepPrice | Any | None) -> Any:
    """A step's price as a number of dollars, or why it has none (a Msg)."""
    if isinstance(price, StepCost):
        return as_number(price.usd)
    return price.why if isinstance(price, Unpriced) else price


def _saved(price: StepPrice | Any | None) -> Any:
    """What the prompt cache saved, in dollars; None when the step reported no cache."""
    if isinstance(price, StepCost) and price.saved_usd is not None:
        return as_number(price.saved_usd)
    return ABSENT if price is ABSENT else None


def _paired(a: Any, b: Any) -> list[tuple[Any, Any]]:
    """Pair two lists by place; the longer one's rest against ABSENT."""
    left = [] if a is ABSENT else list(a)
    right = [] if b is ABSENT else list(b)
    n = max(len(left), len(right))
    left += [ABSENT] * (n - len(left))
    right += [ABSENT] * (n - len(right))
    return list(zip(left, right, strict=True))


def _name(x: Call | HandedBack | Any, y: Call | HandedBack | Any) -> str:
    return x.name if x is not ABSENT else y.name


def _handed_back(a: Any, b: Any) -> list[Field]:
    out = []
    for i, (x, y) in enumerate(_paired(a, b)):
        what = Msg("result for {id}", id=_name(x, y))
        out.append(
            Field(f"handed_back[{i}]", what, "behaviour", _of(x, "content"), _of(y, "content"))
        )
        flags = _of(x, "is_error"), _of(y, "is_error")
        if ABSENT not in flags and flags[0] != flags[1]:
            error = Msg("result for {name}: an error", name=_name(x, y))
            out.append(
                Field(
                    f"handed_back[{i}].is_error",
                    error,
                    "behaviour",
                    *flags,
                    level=1,
                    label=Msg("an error"),
                )
            )
    return out


def _calls(a: Any, b: Any) -> list[Field]:
    out = []
    for i, (x, y) in enumerate(_paired(a, b)):
        name = _name(x, y)
        key = f"calls[{i}]"
        names = _of(x, "name"), _of(y, "name")
        out.append(Field(f"{key}.name", Joined([CALL, str(i + 1)], " "), "behaviour", *names))
        inputs = _of(x, "input"), _of(y, "input")
        if ABSENT in inputs or canon(inputs[0]) == canon(inputs[1]):
            what = Joined([CALL, name, Msg("arguments")], " ")
            out.append(
                Field(f"{key}.input", what, "behaviour", *inputs, level=1, label=Msg("arguments"))
            )
            continue
        out += _by_path(f"{key}.input", (CALL, name), "behaviour", *inputs)
    return out


def _by_path(
    key: str, what: tuple[str, ...], kind: Kind, a: Any, b: Any, label: tuple[str, ...] = ()
) -> list[Field]:
    """A field for each value that differs between two JSON values, by its path (fc diff's
    structural diff): `key` and the words `what` and `label` followed by the path."""
    out = []
    for change in changes(a, b):
        path = path_str(change.loc)
        where = path[1:].lstrip(".")  # `city`, `a.b[0]`, `["a b"]`
        out.append(
            Field(
                f"{key}{path[1:]}",
                Joined([*what, where], " "),
                kind,
                change.old if change.kind != "added" else ABSENT,
                change.new if change.kind != "removed" else ABSENT,
                level=1,
                label=Joined([*label, where], " ") if label else where,
            )
        )
    return out


def _of(item: Any, attr: str) -> Any:
    return ABSENT if item is ABSENT else getattr(item, attr)
