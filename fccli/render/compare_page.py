"""`fc compare A B --html FILE`: the comparison as one self-contained page.

The same rows as the terminal (render/compare_view.py), in two columns, A's and B's, for every
step; a field that differs is marked (`≠`, class `differs`). Built with the trace page's parts
(render/html/page.py: head, style, policy; markup.py: every string escaped); no script runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from fccli import __version__
from fccli.i18n import _, localized
from fccli.render.compare_view import Row, row, side_said, totals_rows, value
from fccli.render.html.markup import esc, tag
from fccli.render.html.page import html_document
from fccli.render.show_view import save_page

if TYPE_CHECKING:
    from fccli.compare.comparison import Comparison, StepPair
    from fccli.compare.fields import Field
    from fccli.diff.compare import DiffResult

FIRST = "first"
"""The id of the row of the first divergence."""

STYLE = (
    "table.cmp{width:100%;border-collapse:collapse;table-layout:fixed;margin-top:8px}"
    "table.cmp col.mark{width:1.6em}table.cmp col.field{width:20%}"
    "table.cmp th,table.cmp td{border-top:1px solid var(--line);padding:4px 8px;"
    "vertical-align:top;text-align:left;overflow-wrap:anywhere;white-space:pre-wrap}"
    "table.cmp thead th{font-size:13px;color:var(--dim);border-top:none}"
    "table.cmp th.field{font-weight:400;color:var(--dim)}"
    "table.cmp tr.sub th.field{padding-left:22px}"
    "table.cmp tr.differs td.a,table.cmp tr.differs td.b{"
    "background:color-mix(in srgb,var(--bad) 8%,var(--card))}"
    "table.cmp tr.differs th.field{color:var(--bad);font-weight:600}"
    "table.cmp td.mark{color:var(--bad);font-weight:700}"
    "table.cmp tr.measure td.b{color:var(--warn)}"
    "section.step h2 .badge{margin-left:8px;vertical-align:middle}"
    "ul.changes{font:12px var(--mono);padding-left:18px}"
)


def write_comparison_page(result: Comparison, html: Path) -> None:
    """Write the page to `html` (`-`: standard output) and say so."""
    save_page(html, comparison_page(result), _("page written to {file}", file=str(html)))


def comparison_page(result: Comparison) -> str:
    """The comparison as one HTML page (a str)."""
    body = (
        _header(result)
        + _banners(result)
        + "".join(_step(result, pair) for pair in result.pairs)
        + (
            _section(_("in all"), "", _table(result, totals_rows(result)), "totals")
            if result.a.kind == "trace"
            else ""
        )
        + (_diff(result.diff) if result.diff is not None else "")
        + _footer(result)
    )
    title = _("fc compare {a} {b}", a=result.a.name, b=result.b.name)
    return html_document(title, body, style=STYLE)


def _header(result: Comparison) -> str:
    kicker = tag("p", esc(_("fc compare")), class_="kicker")
    h1 = tag("h1", esc(f"{result.a.name}  ⇄  {result.b.name}"))
    facts = "".join(
        tag("div", tag("dt", esc(name)) + tag("dd", esc(side_said(side))))
        for name, side in (("A", result.a), ("B", result.b))
    )
    return tag("header", kicker + h1 + tag("dl", facts, class_="facts"))


def _banners(result: Comparison) -> str:
    out = []
    first = result.first
    if first is None:
        said = _("the same questions, calls, arguments, results and answers at every step")
        out.append(
            tag(
                "div",
                tag("strong", esc(_("the same round trip: "))) + esc(said),
                class_="banner ok",
            )
        )
    else:
        out.append(
            tag(
                "div",
                tag("strong", esc(_("first divergence: ")))
                + tag(
                    "a",
                    esc(localized(first.text)),
                    href=f"#{_first_anchor(first.pair, first.field)}",
                ),
                class_="banner bad first",
            )
        )
    setup = result.setup_differences()
    if setup:
        said = _(", ").join(
            _("{what} {a} ≠ {b}", what=localized(f.what), a=value(f.a), b=value(f.b)) for f in setup
        )
        out.append(
            tag(
                "div",
                tag("strong", esc(_("set up differently: "))) + esc(said),
                class_="banner warn",
            )
        )
    out += [tag("div", esc(localized(note)), class_="banner") for note in result.notes]
    return "".join(out)


def _anchor(pair: StepPair) -> str:
    facts = pair.a or pair.b
    assert facts is not None
    side = "a" if pair.a is not None else "b"
    return f"step-{side}{facts.number}"


def _step(result: Comparison, pair: StepPair) -> str:
    if pair.a is None or pair.b is None:
        mark = tag(
            "span", esc(_("only in B") if pair.a is None else _("only in A")), class_="badge bad"
        )
    elif pair.differs:
        mark = tag("span", esc(_("differs")), class_="badge bad")
    else:
        mark = tag("span", esc(_("same")), class_="badge ok")
    first = result.first
    marked = first.field if first is not None and first.pair is pair else None
    rows = [row(f) for f in pair.fields]
    ids = [FIRST if f is marked else None for f in pair.fields]
    body = _table(result, rows, ids)
    return _section(localized(pair.label()), mark, body, "step", _anchor(pair))


def _first_anchor(pair: StepPair, field: Field | None) -> str:
    """Where the first divergence is: its row, or its step when it is a step only one has."""
    return FIRST if field is not None else _anchor(pair)


def _section(title: str, mark: str, body: str, class_: str, id_: str | None = None) -> str:
    return tag("section", tag("h2", esc(title) + mark) + body, class_=class_, id=id_)


def _table(result: Comparison, rows: list[Row], ids: list[str | None] | None = None) -> str:
    cols = tag("colgroup", '<col class="mark"><col class="field"><col class="a"><col class="b">')
    head = tag(
        "thead",
        tag(
            "tr",
            tag("th", "")
            + tag("th", "")
            + tag("th", esc(f"A  {result.a.name}"), class_="a")
            + tag("th", esc(f"B  {result.b.name}"), class_="b"),
        ),
    )
    body = "".join(_row(r, i) for r, i in zip(rows, ids or [None] * len(rows), strict=True))
    return tag("table", cols + head + tag("tbody", body), class_="cmp")


def _row(r: Row, id_: str | None = None) -> str:
    classes = ["differs" if r.differs else ("measure" if not r.same else "same")]
    if r.level:
        classes.append("sub")
    cells = (
        tag("td", "≠" if r.differs else "", class_="mark")
        + tag("th", esc(r.label), class_="field", scope="row")
        + tag("td", esc(r.a), class_="a")
        + tag("td", esc(r.b), class_="b")
    )
    return tag("tr", cells, class_=" ".join(classes), id=id_)


def _diff(diff: DiffResult) -> str:
    """Two files: what fc diff finds between them, by path."""
    items = []
    for c in diff.changes:
        old = "" if c.kind == "added" else value(c.old, 200)
        new = "" if c.kind == "removed" else value(c.new, 200)
        mark = {"added": "+", "removed": "-"}.get(c.kind, "~")
        said = f"{mark} {c.path}: {old}{' → ' if old and new else ''}{new}"
        items.append(tag("li", esc(said)))
    if not items:
        items.append(tag("li", esc(_("no differences"))))
    title = _("as fc diff compares the two files:")
    return _section(title, "", tag("ul", "".join(items), class_="changes"), "diff")


def _footer(result: Comparison) -> str:
    command = f"fc compare {result.a.name} {result.b.name} --html FILE"
    made = _("made by fc {version}: {command}", version=__version__, command=command)
    return tag("footer", esc(made))
