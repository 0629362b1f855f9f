"""`fc providers`: where each provider is, its key (set or not, never its value), what it supports."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

_CAPABILITIES = (
    ("models", "models"),
    ("--api", "apis"),
    ("thinking", "thinking"),
    ("effort", "effort"),
    ("tool_choice", "tool_choice"),
    ("strict", "strict"),
    ("one call", "parallel_control"),
    ("stream", "streaming"),
)


def _key(row: dict[str, Any]) -> str:
    if row["key_env"] is None:
        return "no key needed"
    return f"${row['key_env']} " + ("(set)" if row["key_set"] else "(not set)")


def _capability(row: dict[str, Any], field: str) -> str:
    if field == "models":
        others = ", ".join(row["other_models"])
        default = f"{row['default_model']} (the default)"
        return (
            f"{default}, {others}; -m takes any name" if others else f"{default}; -m takes any name"
        )
    if field == "apis":
        return ", ".join(row["apis"])
    return str(row[field])


def print_providers(console: Console, rows: list[dict[str, Any]]) -> None:
    """One table of where each provider is, then what each supports. When the table does not
    fit the width (a narrow terminal), each provider's place goes with its capabilities instead,
    one field a line, so that no URL or key variable is broken in two."""
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("provider", no_wrap=True)
    table.add_column("format", no_wrap=True)
    table.add_column("default model", no_wrap=True)
    table.add_column("base URL", overflow="fold")
    table.add_column("key", overflow="fold")
    for row in rows:
        table.add_row(
            _name(row), row["wire_format"], row["default_model"], row["base_url"], _key(row)
        )
    unbounded = console.options.update_width(10_000)
    fits = Measurement.get(console, unbounded, table).maximum <= console.width
    if fits:
        console.print(table)
    console.print(_DEFAULT)
    for row in rows:
        console.print()
        console.print(Text(row["name"] if fits else _name(row), style="bold"))
        grid = Table.grid(padding=(0, 2))
        grid.add_column(no_wrap=True, style="dim")
        grid.add_column(overflow="fold")
        place = [] if fits else [("format", "wire_format"), ("model", "default_model")]
        for label, field in place:
            grid.add_row(f"  {label}", row[field])
        if not fits:
            grid.add_row("  base URL", row["base_url"])
            grid.add_row("  key", _key(row))
        for label, field in _CAPABILITIES:
            grid.add_row(f"  {label}", _capability(row, field))
        console.print(grid)


_DEFAULT = "* the default now: $FC_PROVIDER, else deepseek when its key is set, else demo"


def _name(row: dict[str, Any]) -> str:
    return str(row["name"]) + (" *" if row["default"] else "")
