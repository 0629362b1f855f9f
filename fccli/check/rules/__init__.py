"""The rules, a module per concern; each rule is a function from a History to findings.

A rule reads the wire document of its own format where the mistake is format-specific, through
the History view (history.py), and says nothing for a format it does not apply to.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from fccli.check.findings import Finding
from fccli.check.history import History
from fccli.check.rules import answers, arguments, harness, ids, pairing, quirks, tools

RuleFunction = Callable[[History], Iterable[Finding]]

ALL: tuple[RuleFunction, ...] = (
    *pairing.RULES,
    *ids.RULES,
    *arguments.RULES,
    *quirks.RULES,
    *tools.RULES,
    *answers.RULES,
    *harness.RULES,
)
