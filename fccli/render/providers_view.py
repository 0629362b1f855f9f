"""`fc providers`: where each provider is, its key (set or not, never its value), what it supports."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from fccli.i18n import N_, _, gettext, localized

_CAPABILITIES = (
    (N_("models"), "models"),
    ("--api", "apis"),
    (N_("thinking"), "thinking"),
    (N_("effort"), "effort"),
    ("tool_choice", "tool_choice"),
    ("strict", "strict"),
    (N_("one call"), "parallel_control"),
    (N_("stream"), "streaming"),
)


def _key(row: dict[str, Any]) -> str:
    if row["key_env"] is None:
        return _("no key needed")
    if row["key_set"]:
        return _("${key_env} (set)", key_env=row["key_env"])
    return _("${key_env} (not set)", key_env=row["key_env"])


def _capability(row: dict[str, Any], field: str) -> str:
    if field == "models":
        others = ", ".join(row["other_models"])
        if others:
            return _(
                "{model} (the default), {others}; -m takes any name",
                model=row["default_model"],
                others=others,
            )
        return _("{model} (the default); -m takes any name", model=row["default_model"])
    if field == "apis":
        return ", ".join(localized(api) for api in row["apis"])
    return str(localized(row[field]))


def print_providers(console: Console, rows: list[dict[str, Any]]) -> None:
    """One table of where each provider is, then what each supports. When the table does not
    fit the width (a narrow terminal), each provider's place goes with its capabilities instead,
    one field a line, so that no URL or key variable is broken in two."""
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column(_("provider"), no_wrap=True)
    table.add_column(_("format"), no_wrap=True)
    table.add_column(_("default model"), no_wrap=True)
    table.add_column(_("base URL"), overflow="fold")
    table.add_column(_("key"), overflow="fold")
    for row in rows:
        table.add_row(
            _name(row),
            row["wire_format"],
            row["default_model"],
            localized(row["base_url"]),
            _key(row),
        )
    unbounded = console.options.update_width(10_000)
    fits = Measurement.get(console, unbounded, table).maximum <= console.width
    if fits:
        console.print(table)
    console.print(
        _("* the default now: $FC_PROVIDER, else deepseek when its key is set, else demo")
    )
    for row in rows:
        console.print()
        console.print(Text(row["name"] if fits else _name(row), style="bold"))
        grid = Table.grid(padding=(0, 2))
        grid.add_column(no_wrap=True, style="dim")
        grid.add_column(overflow="fold")
        place = [] if fits else [(_("format"), "wire_format"), (_("model"), "default_model")]
        for label, field in place:
            grid.add_row(f"  {label}", row[field])
        if not fits:
            grid.add_row("  " + _("base URL"), localized(row["base_url"]))
            grid.add_row("  " + _("key"), _key(row))
        for label, field in _CAPABILITIES:
            grid.add_row(f"  {gettext(label)}", _capability(row, field))
        console.print(grid)


def _name(row: dict[str, Any]) -> str:
    return str(row["name"]) + (" *" if row["default"] else "")
