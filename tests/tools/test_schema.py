"""The JSON Schema validator that `fc check` and JSON tools share (fccli/tools/schema.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fccli import i18n
from fccli.tools.schema import validate


@pytest.fixture
def zh() -> Iterator[None]:
    i18n.set_language("zh")
    yield
    i18n.set_language("en")


CITY = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
    "required": ["city"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("value", "schema", "problem"),
    [
        ({"city": "杭州"}, CITY, None),
        ({}, CITY, "the required property 'city' is missing"),
        ({"city": ["杭州"]}, CITY, "$.city: expected a string, found an array"),
        ({"city": "杭州", "country": "CN"}, CITY, "property 'country' is not in the schema"),
        ({"city": "杭州", "days": 0}, CITY, "$.days: 0 is not at least 1"),
        ({"city": "杭州", "days": 2.0}, CITY, None),  # JSON Schema: 2.0 is an integer
        ({"city": "杭州", "days": True}, CITY, "expected an integer, found a boolean"),
        (None, {"type": ["string", "null"]}, None),
        (3, {"type": ["string", "null"]}, "expected a string or a null"),
        ("c", {"enum": ["a", "b"]}, '"c" is not one of "a", "b"'),
        ("ab", {"type": "string", "minLength": 3}, "2 character(s), fewer than minLength 3"),
        ("abcd", {"type": "string", "maxLength": 3}, "more than maxLength 3"),
        ("x1", {"type": "string", "pattern": "^[a-z]+$"}, "does not match the pattern"),
        ([1, "2"], {"type": "array", "items": {"type": "integer"}}, "$[1]: expected an integer"),
        (5, {"type": "number", "maximum": 4}, "5 is not at most 4"),
        (5, {"type": "number", "exclusiveMaximum": 5}, "5 is not below 5"),
        ("x", {"anyOf": [{"type": "integer"}, {"type": "null"}]}, "matches none of the anyOf"),
        (1, {"oneOf": [{"type": "integer"}, {"type": "number"}]}, "matches 2 of the oneOf"),
        (1.5, {"oneOf": [{"type": "integer"}, {"type": "number"}]}, None),
        ("x", {"const": "y"}, 'must be "y"'),
        (
            {"place": {"name": 3}},
            {
                "type": "object",
                "properties": {"place": {"$ref": "#/$defs/Place"}},
                "$defs": {"Place": {"type": "object", "properties": {"name": {"type": "string"}}}},
            },
            "$.place.name: expected a string",
        ),
        ({"x": 1}, {"type": "object", "additionalProperties": {"type": "string"}}, "$.x"),
    ],
)
def test_the_schema_subset_tools_use(value: Any, schema: Any, problem: str | None) -> None:
    report = validate(value, schema)
    if problem is None:
        assert report.errors == []
    else:
        assert any(problem in e for e in report.errors), report.errors


def test_keywords_it_does_not_check_are_named_not_passed_silently() -> None:
    report = validate(
        "2026-13-45", {"type": "string", "format": "date", "pattern": "(?<=x", "not": {}}
    )
    assert report.errors == []
    assert report.unchecked == {"format", "pattern", "not"}


def test_a_ref_cycle_stops() -> None:
    schema = {"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/A"}}}
    assert validate(1, schema).unchecked == {"$ref"}


def test_schema_errors_are_said_in_chinese(zh) -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 2},
            "days": {"type": "integer", "minimum": 1},
            "unit": {"enum": ["c", "f"]},
        },
        "required": ["city", "when"],
        "additionalProperties": False,
    }
    report = validate({"city": "x", "days": 0, "unit": "k", "extra": 1}, schema)
    said = [i18n.localized(e) for e in report.errors]
    assert "$：缺少必需的属性 'when'" in said
    assert "$：属性 'extra' 不在 schema 里" in said
    assert "$.city：1 个字符，少于 minLength 2" in said
    assert "$.days：0 小于最小值 1" in said
    assert '$.unit："k" 不是 "c", "f" 之一' in said
    (wrong,) = validate([1], {"type": ["string", "object"]}).errors
    assert i18n.localized(wrong) == "$：应为 string 或 object，实际是一个数组 [1]"
    assert wrong == "$: expected a string or an object, found an array [1]"
