"""Assertions on what an agent did: `fc expect TRACE RULES`, and the same from the pytest plugin.

    rules = load_rules(Path("expect.toml").read_text(), source="expect.toml")
    broken = evaluate(Path("traces/hangzhou"), rules)        # [] when every rule holds

A rules file is TOML (docs/reference/expect.md): tools used or not, calls in an order, a call's
arguments (equal to a value, matching a pattern, valid against a JSON Schema), at most N steps,
no error results, the final answer, the stop reason. Each broken rule is a `Broken`: its name,
the step, the file and a JSON path into it (fc's internal form), and a message (a Msg: English,
said in the chosen language by `fccli.i18n.localized`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from fccli.expect.facts import Facts, Step
from fccli.expect.load import Rules, load_rules
from fccli.expect.rules import Broken

__all__ = ["Broken", "Rules", "Step", "evaluate", "evaluate_steps", "load_rules"]


def evaluate(trace_dir: Path, rules: Rules) -> list[Broken]:
    """Check `rules` against a trace directory (any wire format fc reads), or against one
    request or response file; the broken ones, in the rules' order.

    An unreadable trace or file is an InputFileError (exit 2); a step that cannot be read is
    a step without its request or response, as `fc show` reads it."""
    from fccli.expect.read import facts_of

    return check(facts_of(trace_dir), rules)


def evaluate_steps(steps: Sequence[Step], rules: Rules) -> list[Broken]:
    """Check `rules` against steps held in memory, in the order given (their numbers name the
    files the places point into: `2-response.json`)."""
    from fccli.expect.facts import from_steps

    return check(from_steps(steps), rules)


def check(facts: Facts, rules: Rules) -> list[Broken]:
    """Check each rule against the facts; the broken ones, in the rules' order."""
    return [broken for rule in rules if (broken := rule.check(facts)) is not None]
