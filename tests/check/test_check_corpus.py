"""The corpus of broken histories: every rule trips, and does not, in every format it applies to.

tests/corpus/check/<format>/<RULE>-<what>.json is a request with one mistake: checking it must
give findings of that rule and of no other. <RULE>-<what>.ok.json is the same request put right:
checking it must give no finding at all. Each file is a request body exactly as it would be
sent, so `fc check` can be run on it by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fccli.check import RULES, check_request
from fccli.wire.registry import refusals

CORPUS = Path(__file__).parent.parent / "corpus" / "check"
CASES = sorted(CORPUS.glob("*/*.json"))


def _rule(case: Path) -> str:
    return case.name.split("-", 1)[0]


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_case(case: Path) -> None:
    findings = check_request(json.loads(case.read_text("utf-8")), case.parent.name)
    if case.name.endswith(".ok.json"):
        assert findings == [], [(f.rule, f.path, f.message) for f in findings]
    else:
        assert {f.rule for f in findings} == {_rule(case)}, [
            (f.rule, f.path, f.message) for f in findings
        ]


def test_every_rule_has_a_tripping_and_a_clean_case_in_each_of_its_formats() -> None:
    have = {(c.parent.name, c.name.endswith(".ok.json"), _rule(c)) for c in CASES}
    missing = [
        f"{fmt}/{rule_id}{' (clean)' if clean else ''}"
        for rule_id, rule in RULES.items()
        for fmt in rule.formats
        for clean in (False, True)
        if (fmt, clean, rule_id) not in have
    ]
    assert missing == []


def test_every_corpus_file_is_a_case_of_a_rule_that_applies_to_its_format() -> None:
    stray = [c for c in CASES if c.parent.name not in RULES[_rule(c)].formats]
    assert stray == []


def test_a_clean_case_differs_from_its_broken_twin() -> None:
    for case in CASES:
        if case.name.endswith(".ok.json"):
            twin = case.with_name(case.name.replace(".ok.json", ".json"))
            assert twin.exists(), f"{case} has no broken twin"
            assert twin.read_text("utf-8") != case.read_text("utf-8")


def test_errors_name_the_provider_message_they_predict() -> None:
    """Where PROTOCOL.md (or a thread named in findings.py) has the provider's words for a
    mistake, its case quotes them, indices filled in."""
    for case in CASES:
        fmt, rule = case.parent.name, RULES[_rule(case)]
        quotes = fmt in rule.formats and rule.id in refusals(fmt)
        if case.name.endswith(".ok.json") or not quotes:
            continue
        quoted = [
            f.provider_message
            for f in check_request(json.loads(case.read_text("utf-8")), fmt)
            if f.provider_message
        ]
        assert quoted, case
        assert all("{" not in q for q in quoted), quoted


@pytest.mark.parametrize("name", ["check.md", "check.zh.md"])
def test_the_check_page_lists_every_rule_with_its_severity(name: str) -> None:
    pages = Path(__file__).parent.parent.parent / "docs" / "reference"
    page = (pages / name).read_text("utf-8")
    for rule in RULES.values():
        assert f"| {rule.id} | {rule.severity} |" in page, f"{name}: {rule.id}"
