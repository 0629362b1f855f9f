"""`fc providers`: where each provider is, its key (set or not, never its value), what it supports."""

from __future__ import annotations

from typing import Any

from rich.console import Console
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
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("provider", no_wrap=True)
    table.add_column("format", no_wrap=True)
    table.add_column("default model", no_wrap=True)
    table.add_column("base URL", overflow="fold")
    table.add_column("key", overflow="fold")
    for row in rows:
        name = row["name"] + (" *" if row["default"] else "")
        table.add_row(name, row["wire_format"], row["default_model"], row["base_url"], _key(row))
    console.print(table)
    console.print("* the default now: $FC_PROVIDER, else deepseek when its key is set, else demo")
    for row in rows:
        console.print()
        console.print(Text(row["name"], style="bold"))
        grid = Table.grid(padding=(0, 2))
        grid.add_column(no_wrap=True, style="dim")
        grid.add_column(overflow="fold")
        for label, field in _CAPABILITIES:
            grid.add_row(f"  {label}", _capability(row, field))
        console.print(grid)
