"""The message catalog: every marked string has its Chinese, and the shipped .mo is the .po.

fc's strings are marked with `_()`, `Msg()` and `N_()` (fccli/i18n/__init__.py); Babel extracts
them as `python scripts/i18n.py update` does. A string marked any other way (an f-string, a
variable) would be missing from the catalog and stay English, so that is a failure too.
"""

from __future__ import annotations

import ast
import gettext
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(REPO / "scripts"))
i18n_tool = pytest.importorskip("i18n", reason="scripts/i18n.py needs Babel (dev extra)")

FIELD = re.compile(r"(?<!\{)\{([a-zA-Z_][a-zA-Z0-9_]*)[^{}]*\}(?!\})")
MARKUP = re.compile(r"\[/?[a-z][a-z0-9 #_.-]*\]|\[/\]")


@pytest.fixture(scope="module")
def extracted():
    """What Babel extracts from fccli (~1 s): once for the tests here, which only read it."""
    return i18n_tool.extracted()


@pytest.fixture(scope="module")
def extracted_ids(extracted) -> frozenset[str]:
    return frozenset(m.id for m in extracted if m.id)


@pytest.fixture(scope="module")
def catalog(extracted):
    po = i18n_tool.read(i18n_tool.PO)
    po.update(extracted, no_fuzzy_matching=True, update_creation_date=False)
    return po


@pytest.fixture(scope="module")
def fccli_trees() -> list[tuple[Path, ast.AST]]:
    """fccli's modules (those outside fccli/i18n, where the markers are defined), parsed once."""
    return [
        (path, ast.parse(path.read_text("utf-8")))
        for path in sorted((REPO / "fccli").rglob("*.py"))
        if path.parent.name != "i18n"
    ]


def test_every_marked_string_has_a_chinese_translation(catalog) -> None:
    missing = i18n_tool.untranslated(catalog)
    assert not missing, f"{len(missing)} msgid(s) without Chinese; first: {missing[:5]}"


def test_no_translation_is_left_for_a_string_no_longer_in_the_code(extracted_ids) -> None:
    po = i18n_tool.read(i18n_tool.PO)
    stale = sorted(m.id for m in po if m.id and m.id not in extracted_ids)
    assert not stale, f"fc.po has msgids the code no longer marks (run update): {stale[:5]}"


def test_a_translation_keeps_the_placeholders_and_markup_of_its_msgid(catalog) -> None:
    for message in catalog:
        if not message.id or not message.string:
            continue
        assert sorted(FIELD.findall(message.string)) == sorted(FIELD.findall(message.id)), (
            message.id
        )
        assert sorted(MARKUP.findall(message.string)) == sorted(MARKUP.findall(message.id)), (
            message.id
        )


def test_the_shipped_mo_is_the_compiled_po() -> None:
    assert i18n_tool.MO.read_bytes() == i18n_tool.compiled(i18n_tool.read(i18n_tool.PO)), (
        "fc.mo is stale: python scripts/i18n.py update"
    )
    with i18n_tool.MO.open("rb") as file:
        loaded = gettext.GNUTranslations(file)
    for message in i18n_tool.read(i18n_tool.PO):
        if message.id and message.string:
            assert loaded.gettext(message.id) == message.string


MARKERS = {"_", "Msg", "N_"}


def test_every_marker_is_called_with_a_literal_string(fccli_trees) -> None:
    """`_(f"...")` or `_(text)` cannot be extracted: the catalog would never have it."""
    wrong = []
    for path, tree in fccli_trees:
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in MARKERS
                and not (
                    node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                )
            ):
                wrong.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not wrong, f"marker called without a literal string: {wrong}"


def test_babel_extracts_every_marker_python_sees(fccli_trees, extracted_ids) -> None:
    """A marker inside an f-string's braces (`f"{_('x')}"`) is real code to Python but invisible
    to Babel's extractor: its msgid would never reach the catalog and stay English."""
    seen: dict[str, str] = {}
    for path, tree in fccli_trees:
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in MARKERS
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
                and node.args[0].value
            ):
                seen.setdefault(node.args[0].value, f"{path.relative_to(REPO)}:{node.lineno}")
    unseen = sorted(where for msgid, where in seen.items() if msgid not in extracted_ids)
    assert not unseen, f"markers Babel does not extract (inside an f-string?): {unseen}"
