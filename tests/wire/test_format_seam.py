"""The format seam (issue #14): wire/ is the one place that knows the formats.

Outside wire/ and the provider profiles, no module names a format: each takes the list from the
registry, so adding a format is one package plus one registry line (the toy format below).
"""

from __future__ import annotations

import ast
from pathlib import Path

from fccli.wire.registry import FORMATS

PACKAGE = Path(__file__).resolve().parent.parent.parent / "fccli"
ALLOWED = ("wire", "providers")
"""wire/ knows the formats; providers/ holds the profiles, which say which format each speaks."""


def _format_literals(source: str) -> list[tuple[int, str]]:
    """(line, name) of every string constant that is a format's name."""
    return [
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in FORMATS
    ]


def test_no_module_outside_wire_names_a_format() -> None:
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {name!r}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] not in ALLOWED
        for line, name in _format_literals(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_search_finds_a_format_name() -> None:
    # The test above can fail: a module naming a format is found, a longer string is not.
    source = 'KIND = "anthropic"\nNOTE = "anthropic blocks"\n'
    assert _format_literals(source) == [(1, "anthropic")]


def test_refuses_is_membership_in_refusals() -> None:
    """registry.refuses tells a rule without reading sentences (no provider's package for an
    internal-format history): the same answer as `rule in refusals(name)`."""
    from fccli.wire import registry

    for name in registry.format_names():
        for rule in [f"FC{n}" for n in range(100, 131)]:
            assert registry.refuses(name, rule) == (rule in registry.refusals(name)), (name, rule)
