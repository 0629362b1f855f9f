"""`fc diff`: the mapping of an internal file onto its wire form, or a diff by JSON path.

Takes the differ's objects (fccli.diff); no wire format, provider or transport here. Without
colour, removed and added pieces of a long string are marked `[-…-]` and `{+…+}`.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from fccli.core.jsonio import dumps
from fccli.diff.paths import compact
from fccli.diff.structural import kind_said
from fccli.i18n import _, language, localized
from fccli.render.console import make_console, print_hanging

if TYPE_CHECKING:
    from fccli.diff.compare import DiffResult, Side
    from fccli.diff.mapping import Link
    from fccli.diff.structural import Change

CONTEXT = 24
"""Characters of unchanged text kept on each side of a change inside a long string."""
VALUE_LIMIT = 80
LEFT_MAX = 36
RIGHT_MAX = 24
STATUS = {"differs": ("≠ differs", "bold red"), "missing": ("✗ missing", "bold red")}


def _status(status: str) -> tuple[str, str]:
    style = STATUS[status][1]
    return (_("≠ differs") if status == "differs" else _("✗ missing")), style


def _differences(n: int) -> str:
    return _("1 difference") if n == 1 else _("{n} differences", n=n)


def print_diff(result: DiffResult, *, json_output: bool) -> None:
    """Print the comparison: as JSON on stdout, or as the diff view."""
    if json_output:
        sys.stdout.write(dumps(result.to_json()))
    else:
        render_diff(make_console(), result)


def render_diff(console: Console, result: DiffResult) -> None:
    """Draw the comparison: the mapping's rows, or the changes by path."""
    _header(console, result)
    if result.mode == "mapping":
        _mapping(console, result)
        return
    console.print()
    if result.note:
        console.print(Text(localized(result.note), style="dim"))
    if not result.changes:
        console.print(Text(_("no differences"), style="bold green"))
        return
    # Meaning: the paths are of the internal forms of two files; say whose each one is.
    _changes(console, result.changes, tagged=result.mode == "meaning")
    console.print(Text(_differences(len(result.changes)), style="bold"))


def _side(side: Side) -> str:
    return _(
        "{name}: {format} {kind}",
        name=side.name,
        format=side.format,
        kind=localized(kind_said(side.kind)),
    )


def _header(console: Console, result: DiffResult) -> None:
    for tag, style, side in (("A ", "bold red", result.a), ("B ", "bold green", result.b)):
        reason = _(" ({reason})", reason=localized(side.reason)) if side.reason else ""
        print_hanging(console, Text(tag, style), Text.assemble(_side(side), (reason, "dim")), 2)


# ---- the mapping


def _mapping(console: Console, result: DiffResult) -> None:
    internal, wire = (result.a, result.b) if result.a.format == "internal" else (result.b, result.a)
    console.print()
    said = _(
        "internal ({internal}) → {format} ({wire})",
        internal=internal.name,
        format=wire.format,
        wire=wire.name,
    )
    print_hanging(console, Text(_("field by field, message by message: "), "bold"), Text(said), 2)
    rows: list[tuple[Text, Text, Text]] = []
    parents: list[Link] = []
    for link in result.links:
        del parents[link.level :]
        rows.append(_row(link, parents[-1] if parents else None))
        parents.append(link)
    _columns(console, rows, (_("internal"), wire.format))
    if result.wire_only:
        console.print()
        console.print(
            Text(
                _(
                    "only in {format} (the internal format keeps none of these):",
                    format=wire.format,
                ),
                style="bold",
            )
        )
        for path, value in result.wire_only:
            print_hanging(
                console, Text("  "), Text.assemble(path, (f" = {_value(value, 50)}", "dim")), 4
            )
    console.print()
    if result.note:
        console.print(Text(localized(result.note), style="dim"))
    if not result.changes:
        said = _(
            "{summary}; read back from {wire}, all equal", summary=result.summary, wire=wire.name
        )
        print_hanging(console, Text(_("the same meaning: "), "bold green"), Text(said), 2)
        return
    n = len(result.changes)
    counted = _("1 difference in meaning") if n == 1 else _("{n} differences in meaning", n=n)
    said = _(
        " ({wire} read back into the internal format, against what {internal} says in {format}):",
        wire=wire.name,
        internal=internal.name,
        format=wire.format,
    )
    print_hanging(console, Text(counted, "bold red"), Text(said), 2)
    _changes(console, result.changes, b_name=wire.name)


def _row(link: Link, parent: Link | None) -> tuple[Text, Text, Text]:
    indent = "  " * link.level
    a = _relative(link.a, parent.a if parent else None)
    left = Text(indent + a)
    if link.label and not a.endswith(f".{link.label}"):  # `.content[0].text` says `text` already
        left.append(f"  {localized(link.label)}", style="dim")
    if not link.b:
        right = Text(indent + "—", style="yellow")
    else:
        base = parent.b[0] if parent and len(parent.b) == 1 else None
        right = Text(indent + ", ".join(_relative(b, base) for b in link.b))
        if link.b_label:
            right.append(f"  {link.b_label}", style="dim")
    how = Text(localized(link.note) or "", style="yellow" if not link.b else "")
    if link.status in STATUS:  # beside the wire path, where the eye is
        said, style = _status(link.status)
        right.append(f"  {said}", style=style)
    return left, right, how


def _columns(
    console: Console, rows: list[tuple[Text, Text, Text]], titles: tuple[str, str]
) -> None:
    """internal → wire, then how; the note goes under the row when the line would run over."""
    left_w = min(max([cell_len(titles[0]), *(cell_len(r[0].plain) for r in rows)]), LEFT_MAX)
    right_w = min(max([cell_len(titles[1]), *(cell_len(r[1].plain) for r in rows)]), RIGHT_MAX)
    width = console.width
    console.print(Text.assemble((_pad(titles[0], left_w), "bold"), "   ", (titles[1], "bold")))
    for left, right, how in rows:
        start = Text.assemble(left, " " * max(left_w - cell_len(left.plain), 0), " → ")
        indent = left_w + 3  # under the wire path
        if how.plain:
            gap = max(left_w + 3 + right_w - cell_len(start.plain + right.plain), 0) + 2
            if cell_len(start.plain + right.plain) + gap + cell_len(how.plain) <= width:
                right = Text.assemble(right, " " * gap, how)
            else:
                print_hanging(console, start, right, indent)
                indent = left_w + 5
                start, right = Text(" " * indent), how
        print_hanging(console, start, right, indent)


def _pad(text: str, width: int) -> str:
    return text + " " * max(width - cell_len(text), 0)


def _relative(path: str, base: str | None) -> str:
    if base and base != "$" and path.startswith(base) and path != base:
        rest = path[len(base) :]
        if rest[0] in ".[":
            return rest
    return path


# ---- changes


def _path(change: Change, tagged: bool, b_name: str) -> str:
    """The change's path; `tagged`: with the file it is in (`A $.x`, `+ B $.y`, and a changed
    value at another place in B: `A $.x, B $.y`)."""
    b_path = change.b_path
    if not tagged:
        if b_path is None:
            return change.path
        return _("{path} (in {file}: {b_path})", path=change.path, file=b_name, b_path=b_path)
    if change.kind == "added":
        return f"B {change.path}"
    return f"A {change.path}" + (f", B {b_path}" if b_path is not None else "")


def _changes(
    console: Console, changes: list[Change], *, tagged: bool = False, b_name: str = "B"
) -> None:
    for change in changes:
        where = (
            Text(_("  ({where})", where=change.where), style="dim") if change.where else Text("")
        )
        colon = "：" if change.where and language() == "zh" else ": "  # after `（…）`, full-width
        path = _path(change, tagged, b_name)
        if change.kind == "removed":
            body = Text.assemble(path, where, colon, (_value(change.old), "red"))
            print_hanging(console, Text("- ", "bold red"), body, 2)
        elif change.kind == "added":
            body = Text.assemble(path, where, colon, (_value(change.new), "green"))
            print_hanging(console, Text("+ ", "bold green"), body, 2)
        else:
            pieces = change.inline()
            if pieces is None:
                body = Text.assemble(
                    path,
                    where,
                    colon,
                    (_value(change.old), "red"),
                    " → ",
                    (_value(change.new), "green"),
                )
                print_hanging(console, Text("~ ", "bold yellow"), body, 2)
            else:
                console.print(Text.assemble(("~ ", "bold yellow"), path, where, colon.strip()))
                console.print(Text.assemble("    ", _inline(pieces, console.color_system is None)))


def _inline(pieces: list[tuple[str, str]], plain: bool) -> Text:
    out = Text()
    last = len(pieces) - 1
    for i, (op, text) in enumerate(pieces):
        if op == "=":
            if len(text) > 2 * CONTEXT:
                head = text[:CONTEXT] if i > 0 else ""
                tail = text[-CONTEXT:] if i < last else ""
                text = f"{head}…{tail}" if head or tail else "…"
            out.append(text)
        elif op == "-":
            out.append(f"[-{text}-]" if plain else text, style="bold red strike")
        else:
            out.append(f"{{+{text}+}}" if plain else text, style="bold green underline")
    return out


def _value(value: Any, limit: int = VALUE_LIMIT) -> str:
    return compact(value, limit)
