"""What `fc check` prints: the findings by file, each with its place, its plain-words reason and
the provider's 400 it predicts; or, with --json, the report as JSON on stdout.

Printed in the chosen language (fccli/i18n): a finding's message is a Msg, said here; the
provider's own 400 sentence is quoted as it is, never translated. `--json` is the report as it
is kept, English."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from fccli.core.jsonio import dumps
from fccli.i18n import N_, _, gettext, language, localized, tidy
from fccli.render.console import make_console

if TYPE_CHECKING:
    from fccli.check.findings import Finding
    from fccli.check.report import Report


PROVIDERS = (N_("OpenAI and DeepSeek"), N_("OpenAI-compatible servers"))
"""Who answers a mistake with a 400 (fccli/wire's `refusals`), where that is more than a name:
said in the chosen language (a name alone, `Anthropic`, stays as it is)."""


def _counted(n: int, severity: str) -> str:
    if severity == "error":
        return _("1 error") if n == 1 else _("{n} errors", n=n)
    if severity == "warning":
        return _("1 warning") if n == 1 else _("{n} warnings", n=n)
    return _("1 note") if n == 1 else _("{n} notes", n=n)


def _what(report: Report) -> str:
    if report.kind == "trace":
        n = len(report.files)
        return _("a trace, 1 file read") if n == 1 else _("a trace, {n} files read", n=n)
    fmt = report.format or "x"
    if fmt[0] in "aeiou":
        what = _("an {format} request", format=fmt)
    else:
        what = _("a {format} request", format=fmt)
    if report.reason:
        reason = escape(str(localized(report.reason)))
        what += f"[dim]（{reason}）[/]" if language() == "zh" else f" [dim]({reason})[/]"
    return what


def render_report(console: Console, report: Report, *, strict: bool = False) -> None:
    console.print(
        _("[bold]fc check[/] {target}: {what}", target=escape(report.target), what=_what(report))
    )
    current: str | None = None
    for f in report.findings:
        if f.file is not None and f.file != current and report.kind == "trace":
            current = f.file
            console.print(f"\n[bold]{escape(f.file)}[/]")
        _finding(console, f)
    console.print()
    if not report.findings:
        console.print(_("[green]no problems found[/]"))
        return
    counts = [_counted(report.errors, "error"), _counted(report.warnings, "warning")]
    if report.notes:
        counts.append(_counted(report.notes, "note"))
    summary = ("，" if language() == "zh" else ", ").join(counts)
    colour = "red" if report.failed(strict) else "yellow"
    space = "" if language() == "zh" else " "  # `（…）` after Chinese text: no space
    note = space + _("[dim](--strict: warnings fail too)[/]") if strict and report.warnings else ""
    console.print(f"[{colour}]{summary}[/]{note}")


def _finding(console: Console, f: Finding) -> None:
    if f.severity == "error":
        mark = _("[red]✗ error[/]")
    elif f.severity == "warning":
        mark = _("[yellow]! warning[/]")
    else:
        mark = _("[cyan]i note[/]")
    console.print(
        "  "
        + _(
            "{mark} [bold]{rule}[/] at [magenta]{path}[/]",
            mark=mark,
            rule=f.rule,
            path=escape(f.path),
        )
    )
    console.print(f"    {escape(str(localized(f.message)))}")
    if f.provider_message:
        who = escape(gettext(f.provider)) if f.provider else _("the provider")
        # One line of text, so that it wraps within the terminal as a whole.
        said = Text.from_markup("    " + tidy(_("[dim]{who} would answer 400:[/] ", who=who)))
        said.append(f.provider_message, style="italic")
        console.print(said)
        meaning = getattr(f.provider_message, "meaning", None)
        said_here = meaning() if meaning is not None else None
        if (
            said_here
        ):  # what the provider's sentence says, in the chosen language (never in English)
            console.print("    " + _("[dim](it means: {meaning})[/]", meaning=escape(said_here)))


def print_report(report: Report, *, json_output: bool, strict: bool) -> None:
    """Print the report: as JSON on stdout, or the findings by file."""
    if json_output:
        print_json_report(report)
    else:
        render_report(make_console(), report, strict=strict)


def print_json_report(report: Report) -> None:
    """`fc check --json`: the report on stdout, nothing else."""
    sys.stdout.write(dumps(report.to_json_dict()))
