"""`fc expect TRACE RULES`: check what an agent did against a rules file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from fccli.i18n import N_

if TYPE_CHECKING:
    from fccli.expect import Broken

HELP = N_(
    "Check a trace against rules (a TOML file): tools used, calls in order, their arguments, "
    "steps, error results, the final answer, the stop reason. Exit 1 when a rule is broken."
)
RANK = 75  # its place in `fc --help`: after fc check

RULES_LIMIT = 1 << 20
"""The most bytes of a rules file fc reads."""


def expect(
    trace: Path = typer.Argument(
        ...,
        metavar="TRACE",
        help=N_("A trace directory, or one request or response file (any format fc reads)."),
    ),
    rules: Path = typer.Argument(
        ..., metavar="RULES", help=N_("The rules: a TOML file (docs/reference/expect.md).")
    ),
    json_output: bool = typer.Option(
        False, "--json", help=N_("Print the broken rules as JSON (English).")
    ),
) -> None:
    # imported as it runs: `fc expect --help` stays light (start-up)
    from fccli.core.errors import InputFileError
    from fccli.core.jsonio import read_bytes
    from fccli.expect import check, load_rules
    from fccli.expect.read import facts_of
    from fccli.i18n import Msg

    data = read_bytes(rules, RULES_LIMIT)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputFileError(str(rules), Msg("is not UTF-8 text (byte {n})", n=e.start)) from None
    loaded = load_rules(text, source=str(rules))
    if not len(loaded):
        raise InputFileError(str(rules), Msg("holds no rule (docs/reference/expect.md)"))
    facts = facts_of(trace)
    broken = check(facts, loaded)
    if json_output:
        _print_json(trace, rules, len(loaded), broken, facts.notes)
    else:
        _print(len(loaded), broken, facts.notes)
    if broken:  # said once, on stdout (the last line, or --json's "broken"), as fc diff does
        raise typer.Exit(1)


def _print_json(
    trace: Path, rules: Path, total: int, broken: list[Broken], notes: list[tuple[int, str]]
) -> None:
    import sys

    from fccli.core.jsonio import dumps

    sys.stdout.write(
        dumps(
            {
                "trace": str(trace),
                "rules": str(rules),
                "checked": total,
                "broken": [b.to_json_dict() for b in broken],
                "notes": [{"step": step, "note": str(note)} for step, note in notes],
            }
        )
    )


def _print(total: int, broken: list[Broken], notes: list[tuple[int, str]]) -> None:
    from rich.text import Text

    from fccli.i18n import _, localized
    from fccli.render.console import make_console, print_hanging

    console = make_console()
    for step, note in notes:
        console.print(Text(_("note: step {step}: {note}", step=step, note=localized(note)), "dim"))
    for b in broken:
        start = Text.assemble(("✗ ", "red"), (b.rule, "bold"))
        body = Text.assemble((b.where(), "magenta"), _(": "), str(localized(b.message)))
        print_hanging(console, start, body, 4)
    if broken:
        console.print(
            Text(_("{n} of {total} rule(s) broken", n=len(broken), total=total), "bold red")
        )
    else:
        console.print(Text(_("all {total} rule(s) hold", total=total), "bold green"))
