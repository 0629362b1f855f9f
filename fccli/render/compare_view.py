"""`fc compare`: two traces' steps side by side on a wide terminal, one under the other in a
narrow one or a pipe; `--json`. (`--html`: render/compare_page.py, from the same rows.)

Takes the comparison's objects (fccli.compare); no wire format, provider or transport here.
A field that differs is marked `≠` and shows A's value and B's; one that is the same shows it
once. Tokens and time are measures: shown for both, never a difference.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from fccli.compare.fields import ABSENT
from fccli.core.jsonio import dumps
from fccli.cost.money import usd
from fccli.diff.structural import kind_said
from fccli.i18n import Joined, _, localized
from fccli.render.console import BrokenText, make_console, print_hanging
from fccli.render.diff_view import render_diff
from fccli.render.html.steps import tokens_text
from fccli.render.transcript import duration, status_text
from fccli.trace.words import translated

if TYPE_CHECKING:
    from rich.console import Console

    from fccli.compare.comparison import Comparison
    from fccli.compare.fields import Field
    from fccli.compare.sides import Side

SIDE_BY_SIDE = 100
"""The fewest columns the two sides are laid out beside each other in."""
VALUE_LIMIT = 400
"""Characters of a value shown on the terminal (a tool result may be megabytes)."""
LABEL_MAX = 24


@dataclass
class Row:
    """One line of a step's table: a field's label and its two values as shown."""

    label: str
    a: str
    b: str
    differs: bool
    """Marked `≠`: a field of the setup or of what was asked and answered that differs."""
    level: int = 0

    @property
    def same(self) -> bool:
        return self.a == self.b


def print_comparison(result: Comparison, *, json_output: bool) -> None:
    """Print the comparison: as JSON, or on the terminal."""
    if json_output:
        sys.stdout.write(dumps(result.to_json()))
    else:
        render_comparison(make_console(), result)


def render_comparison(console: Console, result: Comparison) -> None:
    """Draw the comparison: who is compared, where they first differ, then step by step."""
    _header(console, result)
    beside = not console.soft_wrap and console.width >= SIDE_BY_SIDE
    for pair in result.pairs:
        console.print()
        rows = [row(f) for f in pair.fields]
        title = Text.assemble((localized(pair.label()), "bold"))
        if pair.a is None or pair.b is None:
            title.append(" " + (_("only in B") if pair.a is None else _("only in A")), "bold red")
        elif pair.differs:
            title.append(" ≠", "bold red")
        _table(console, title, rows, result, beside=beside)
    if result.a.kind == "trace":
        console.print()
        _table(console, Text(_("in all"), "bold"), totals_rows(result), result, beside=beside)
    if result.diff is not None:
        console.print()
        console.print(Text(_("as fc diff compares the two files:"), "bold"))
        render_diff(console, result.diff)


def _header(console: Console, result: Comparison) -> None:
    for tag, side in (("A ", result.a), ("B ", result.b)):
        print_hanging(console, Text(tag, "bold"), Text(side_said(side)), 2)
    first = result.first
    if first is None:
        said = _("the same questions, calls, arguments, results and answers at every step")
        print_hanging(console, Text(_("the same round trip: "), "bold green"), Text(said), 2)
    else:
        start = Text(_("first divergence: "), "bold red")
        print_hanging(console, start, Text(localized(first.text)), 2)
    setup = result.setup_differences()
    if setup:
        said = _(", ").join(
            _("{what} {a} ≠ {b}", what=localized(f.what), a=value(f.a), b=value(f.b)) for f in setup
        )
        print_hanging(console, Text(_("set up differently: "), "bold"), Text(said), 2)
    for note in result.notes:
        console.print(Text(localized(note), style="dim"))


def side_said(side: Side) -> str:
    """`strong: demo (deepseek format), model fc-demo, ok, 2 steps, 25.3 ms`."""
    facts = side.facts()
    if side.kind == "file":
        return _(
            "{name}: {format} {kind}",
            name=side.name,
            format=facts["format"],
            kind=localized(kind_said(facts["file_kind"])),
        )
    parts = [
        _(
            "{provider} ({format} format)",
            provider=facts.get("provider") or "?",
            format=facts.get("format") or "?",
        ),
        _("model {model}", model=facts.get("model") or "?"),
        status_text(str(facts.get("status") or "?")),
        _("1 step") if facts["steps"] == 1 else _("{n} steps", n=facts["steps"]),
    ]
    if facts.get("duration_ms") is not None:
        parts.append(duration(facts["duration_ms"]))
    return str(localized(Joined([side.name, Joined(parts, ", ", zh_sep="，")], ": ")))


def row(f: Field) -> Row:
    """A field as a row: its label and each side's value in words."""
    differs = f.kind != "measure" and not f.same
    return Row(localized(f.name), _value_of(f, f.a), _value_of(f, f.b), differs, f.level)


def totals_rows(result: Comparison) -> list[Row]:
    """The rows of `in all`: steps, tokens and time of each side."""
    totals = result.totals()
    a, b = totals["a"], totals["b"]
    rows = [
        Row(_("steps"), str(a["steps"]), str(b["steps"]), False),
        Row(_("tokens"), _tokens(a["tokens"]), _tokens(b["tokens"]), False),
    ]
    if "cost_usd" in a or "cost_usd" in b:
        rows.append(Row(_("cost"), _total_cost(a), _total_cost(b), False))
    if "cache_saved_usd" in a or "cache_saved_usd" in b:
        saved_a, saved_b = (_money(t.get("cache_saved_usd")) for t in (a, b))
        rows.append(Row(_("saved by the cache"), saved_a, saved_b, False))
    rows.append(Row(_("time"), _time(a["duration_ms"]), _time(b["duration_ms"]), False))
    return rows


def _total_cost(totals: dict[str, Any]) -> str:
    if "cost_usd" not in totals:
        return "—"
    if totals["cost_usd"] is None:
        return _("price unknown")
    said = _money(totals["cost_usd"])
    unpriced = totals.get("unpriced_steps")
    if unpriced:
        steps = ", ".join(str(n) for n in unpriced)
        said += _(" (at least: step {steps} has no price)", steps=steps)
    return said


def _money(amount: Any) -> str:
    """Dollars as fccli.cost writes them (`$0.000071`); a reason for no price as it is."""
    if isinstance(amount, (int, float)) and not isinstance(amount, bool):
        return usd(Decimal(repr(amount)))
    return "—" if amount is None else str(localized(amount))


def _value_of(f: Field, v: Any) -> str:
    if v is ABSENT:
        return "—"
    if f.key == "usage":
        return _tokens(v)
    if f.key == "duration_ms":
        return _time(v)
    if f.key in ("cost_usd", "cache_saved_usd"):
        return _money(v)
    if f.key == "error" and isinstance(v, str):
        return str(translated(v))  # fc's own words, kept in English in the manifest
    return value(v)


def value(v: Any, limit: int = VALUE_LIMIT) -> str:
    """A value as the view shows it: a string as it is, anything else as JSON; cut to `limit`."""
    if v is ABSENT:
        return "—"
    if v is None:
        return "—"
    if isinstance(v, bool):
        return _("yes") if v else _("no")
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return ", ".join(v) if v else _("none")
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    if len(text) > limit:
        more = len(text) - limit
        return text[:limit] + _("… ({n:,} more characters)", n=more)
    return text if text else '""'


def _tokens(usage: Any) -> str:
    if not isinstance(usage, dict):
        return "—"
    said = tokens_text(usage) or "—"
    cached = usage.get("cache_read_tokens")
    if isinstance(cached, int) and cached:
        said += _(" · {n} from the cache", n=cached)
    return said


def _time(ms: Any) -> str:
    return "—" if ms is None else duration(ms)


# ---- layout


def _table(
    console: Console, title: Text, rows: list[Row], result: Comparison, *, beside: bool
) -> None:
    if beside:
        _beside(console, title, rows, result)
    else:
        _stacked(console, title, rows)


def _beside(console: Console, title: Text, rows: list[Row], result: Comparison) -> None:
    """Two columns, A's and B's; a row that differs marked `≠` and coloured."""
    table = Table(title=title, title_justify="left", box=None, expand=True, pad_edge=False)
    table.add_column("", width=1, no_wrap=True)
    table.add_column("", max_width=LABEL_MAX)
    table.add_column(f"A  {result.a.name}", ratio=1, overflow="fold")
    table.add_column(f"B  {result.b.name}", ratio=1, overflow="fold")
    for r in rows:
        style = "red" if r.differs else ("" if r.same else "yellow")
        label = BrokenText("  " * r.level + r.label, style="dim" if r.level else "")
        a = BrokenText(r.a, style=style)
        b = BrokenText(r.b, style="green" if r.differs else ("dim" if r.same else style))
        table.add_row(Text("≠", "bold red") if r.differs else "", label, a, b)
    console.print(table)


def _stacked(console: Console, title: Text, rows: list[Row]) -> None:
    """One under the other: a value the two share once, else A's line and B's line."""
    console.print(Text.assemble(title, " ", ("─" * 8, "dim")))
    width = min(max([cell_len("  " * r.level + r.label) for r in rows] + [0]), LABEL_MAX)
    indent = width + 4
    for r in rows:
        label = "  " * r.level + r.label
        start = Text.assemble(
            ("≠ " if r.differs else "  ", "bold red"),
            (label + " " * max(width - cell_len(label), 0) + "  ", "dim" if r.level else ""),
        )
        if r.same:
            _lines(console, start, Text(r.a), indent)
            continue
        style_a, style_b = ("red", "green") if r.differs else ("", "")
        _lines(console, start, Text.assemble(("A ", "bold"), (r.a, style_a)), indent + 2)
        # B's tag in the start, not the body: a start of spaces alone would hang at the indent
        b_start = Text.assemble(" " * indent, ("B ", "bold"))
        _lines(console, b_start, Text(r.b, style_b), indent + 2)


def _lines(console: Console, start: Text, body: Text, indent: int) -> None:
    """Print `body` after `start`, each of its own lines hanging at `indent`."""
    for i, line in enumerate(body.split("\n", allow_blank=True)):
        print_hanging(console, start if i == 0 else Text(" " * indent), line, indent)
