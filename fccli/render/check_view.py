"""What `fc check` prints: the findings by file, each with its place, its plain-words reason and
the provider's 400 it predicts; or, with --json, the report as JSON on stdout."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from fccli.core.jsonio import dumps

if TYPE_CHECKING:
    from fccli.check.findings import Finding
    from fccli.check.report import Report


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def render_report(console: Console, report: Report, *, strict: bool = False) -> None:
    if report.kind == "trace":
        what = f"a trace, {_plural(len(report.files), 'file')} read"
    else:
        article = "an" if (report.format or "x")[0] in "aeiou" else "a"
        what = f"{article} {report.format} request"
        if report.reason:
            what += f" [dim]({escape(report.reason)})[/]"
    console.print(f"[bold]fc check[/] {escape(report.target)}: {what}")
    current: str | None = None
    for f in report.findings:
        if f.file is not None and f.file != current and report.kind == "trace":
            current = f.file
            console.print(f"\n[bold]{escape(f.file)}[/]")
        _finding(console, f)
    console.print()
    if not report.findings:
        console.print("[green]no problems found[/]")
        return
    summary = f"{_plural(report.errors, 'error')}, {_plural(report.warnings, 'warning')}"
    if report.notes:
        summary += f", {_plural(report.notes, 'note')}"
    colour = "red" if report.failed(strict) else "yellow"
    note = " [dim](--strict: warnings fail too)[/]" if strict and report.warnings else ""
    console.print(f"[{colour}]{summary}[/]{note}")


def _finding(console: Console, f: Finding) -> None:
    mark = {"error": "[red]✗ error[/]", "warning": "[yellow]! warning[/]"}.get(
        f.severity, "[cyan]i note[/]"
    )
    console.print(f"  {mark} [bold]{f.rule}[/] at [magenta]{escape(f.path)}[/]")
    console.print(f"    {escape(f.message)}")
    if f.provider_message:
        console.print(
            f"    [dim]{escape(f.provider or 'the provider')} would answer 400:[/] ", end=""
        )
        console.print(escape(f.provider_message), style="italic")


def print_json_report(report: Report) -> None:
    """`fc check --json`: the report on stdout, nothing else."""
    sys.stdout.write(dumps(report.to_json_dict()))
