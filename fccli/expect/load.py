"""A rules file of `fc expect`, read: TOML, each key known, each value of its type.

A mistake is a usage error (exit 2) naming the file and the line: TOML's own parser says where
its syntax goes wrong; for a key fc does not know, or a value of the wrong kind, the line is
found here, from the table the key is in (`locate`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from fccli.core.errors import InputFileError, UsageError
from fccli.core.jsonpath import path_tail
from fccli.expect.paths import MISSING, parse
from fccli.expect.rules import (
    Answer,
    Arguments,
    CallPattern,
    MaxSteps,
    NoErrorResults,
    Order,
    Rule,
    StopReason,
    ToolNotUsed,
    ToolUsed,
)
from fccli.i18n import Msg

STOP_REASONS = ("end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal")
"""The stop reasons of fc's internal format (CLI.md)."""
TOP = (
    "max_steps",
    "stop_reason",
    "no_error_results",
    "tools_used",
    "tools_not_used",
    "order",
    "arguments",
    "answer",
)
TABLES = {
    "order": ("name", "calls", "exact"),
    "arguments": ("name", "tool", "path", "equals", "matches", "schema", "for"),
    "answer": ("name", "contains", "not_contains", "matches", "ignore_case"),
}
MAX_NESTING = 64
"""The deepest a value or a schema in a rules file may be nested."""
SCHEMA_KEYWORDS = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "enum", "const", "items",
        "minItems", "maxItems", "anyOf", "oneOf", "allOf", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern", "$ref",
        "title", "description", "default", "examples", "$schema", "$id", "$comment", "$defs",
        "definitions",
    }
)  # fmt: skip
"""What fc's schema validator (fccli/tools/schema.py) checks, and the words that constrain
nothing: a schema with any other keyword is refused rather than passed unchecked."""


@dataclass
class Rules:
    """The rules of one file, in the order written."""

    rules: list[Rule] = field(default_factory=list)
    source: str = "<rules>"

    def __len__(self) -> int:
        return len(self.rules)

    def __iter__(self) -> Any:
        return iter(self.rules)


class _Reader:
    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source

    def fail(self, where: tuple[str | int, ...], problem: str) -> UsageError:
        line = locate(self.text, where)
        name = (
            self.source if line is None else Msg("{file}, line {line}", file=self.source, line=line)
        )
        return InputFileError(name, problem)

    def strings(self, value: Any, where: tuple[str | int, ...], key: str) -> list[str]:
        values = [value] if isinstance(value, str) else value
        if (
            not isinstance(values, list)
            or not values
            or not all(isinstance(v, str) for v in values)
        ):
            raise self.fail(where, Msg("{key} takes a string or a list of strings", key=key))
        return values

    def regex(self, value: Any, where: tuple[str | int, ...], flags: int = 0) -> re.Pattern[str]:
        if not isinstance(value, str):
            raise self.fail(where, Msg("matches takes a regular expression, as a string"))
        try:
            return re.compile(value, flags)
        except re.error as e:
            raise self.fail(
                where, Msg("not a regular expression: {problem}", problem=str(e))
            ) from None

    def json_value(self, value: Any, where: tuple[str | int, ...], depth: int = 0) -> Any:
        """Return a TOML value that JSON can hold; a usage error for a date or a time (TOML
        has them, a call's arguments cannot), or one nested past MAX_NESTING."""
        if depth > MAX_NESTING:
            raise self.fail(where, Msg("nested deeper than {n} levels", n=MAX_NESTING))
        if isinstance(value, dict):
            return {k: self.json_value(v, where, depth + 1) for k, v in value.items()}
        if isinstance(value, list):
            return [self.json_value(v, where, depth + 1) for v in value]
        if not isinstance(value, str | int | float | bool):
            raise self.fail(
                where, Msg("a TOML date or time is not a JSON value: write it as a string")
            )
        return value

    def tables(
        self, data: dict[str, Any], key: str
    ) -> list[tuple[tuple[str | int, ...], dict[str, Any]]]:
        value = data[key]
        items: list[tuple[tuple[str | int, ...], dict[str, Any]]]
        if isinstance(value, dict):
            items = [((key,), value)]
        elif isinstance(value, list) and all(isinstance(v, dict) for v in value):
            items = [((key, i), v) for i, v in enumerate(value)]
        else:
            raise self.fail((key,), Msg("{key} is a table ([{key}] or [[{key}]])", key=key))
        for where, table in items:
            for k in table:
                if k not in TABLES[key]:
                    raise self.fail(
                        (*where, k),
                        Msg(
                            "unknown key {key} in {table} (known: {known})",
                            key=k,
                            table=key,
                            known=", ".join(TABLES[key]),
                        ),
                    )
        return items


def load_rules(text: str, *, source: str = "<rules>") -> Rules:
    """Read a rules file's TOML text; a usage error naming `source` and the line on a mistake."""
    data = _toml(text, source)
    reader = _Reader(text, source)
    rules = Rules(source=source)
    for key in data:
        if key not in TOP:
            raise reader.fail(
                (key,), Msg("unknown rule {key} (known: {known})", key=key, known=", ".join(TOP))
            )
    for key, value in data.items():
        rules.rules += _read(reader, data, key, value)
    return rules


def _read(reader: _Reader, data: dict[str, Any], key: str, value: Any) -> list[Rule]:
    where: tuple[str | int, ...] = (key,)
    if key == "max_steps":
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise reader.fail(where, Msg("max_steps takes a whole number, 1 or more"))
        return [MaxSteps(key, value)]
    if key == "stop_reason":
        reasons = reader.strings(value, where, key)
        for reason in reasons:
            if reason not in STOP_REASONS:
                raise reader.fail(
                    where,
                    Msg(
                        "unknown stop reason {reason} (fc's: {known})",
                        reason=repr(reason),
                        known=", ".join(STOP_REASONS),
                    ),
                )
        return [StopReason(key, reasons)]
    if key == "no_error_results":
        if not isinstance(value, bool):
            raise reader.fail(where, Msg("no_error_results takes true or false"))
        return [NoErrorResults(key)] if value else []
    if key == "tools_used":
        return [ToolUsed(key, tool) for tool in reader.strings(value, where, key)]
    if key == "tools_not_used":
        return [ToolNotUsed(key, tool) for tool in reader.strings(value, where, key)]
    reading = {"order": _order, "arguments": _arguments, "answer": _answer}[key]
    items = reader.tables(data, key)
    out = []
    for where, table in items:
        name = table.get("name", key if len(items) == 1 else f"{key}[{where[-1]}]")
        if not isinstance(name, str) or not name:
            raise reader.fail((*where, "name"), Msg("name takes a string"))
        out.append(reading(reader, where, table, name))
    return out


def _order(reader: _Reader, where: tuple[str | int, ...], table: dict[str, Any], name: str) -> Rule:
    calls = table.get("calls")
    if not isinstance(calls, list) or not calls:
        raise reader.fail(
            where, Msg("order needs calls: a list of tool names or {tool, arguments} tables")
        )
    patterns = []
    for call in calls:
        if isinstance(call, str):
            patterns.append(CallPattern(call))
            continue
        if (
            not isinstance(call, dict)
            or not isinstance(call.get("tool"), str)
            or not isinstance(call.get("arguments", {}), dict)
            or set(call) - {"tool", "arguments"}
        ):
            raise reader.fail(
                (*where, "calls"),
                Msg(
                    'each call is a tool name, or a table of tool and arguments: {tool = "get_weather", arguments = {city = "杭州"}}'
                ),
            )
        arguments = reader.json_value(call.get("arguments", {}), (*where, "calls"))
        patterns.append(CallPattern(call["tool"], arguments))
    exact = table.get("exact", False)
    if not isinstance(exact, bool):
        raise reader.fail((*where, "exact"), Msg("exact takes true or false"))
    return Order(name, patterns, exact)


def _arguments(
    reader: _Reader, where: tuple[str | int, ...], table: dict[str, Any], name: str
) -> Rule:
    tool = table.get("tool")
    if not isinstance(tool, str) or not tool:
        raise reader.fail(
            where, Msg("arguments needs tool: the name of the tool whose calls it checks")
        )
    path_text = table.get("path", "$")
    if not isinstance(path_text, str):
        raise reader.fail((*where, "path"), Msg("path takes a string: city, address.zip, stops[0]"))
    try:
        path = parse(path_text)
    except ValueError as e:
        raise reader.fail((*where, "path"), e.args[0]) from None
    if not {"equals", "matches", "schema"} & set(table):
        raise reader.fail(where, Msg("arguments needs equals, matches or schema"))
    matches = reader.regex(table["matches"], (*where, "matches")) if "matches" in table else None
    schema = table.get("schema")
    if "schema" in table:
        if not isinstance(schema, dict):
            raise reader.fail((*where, "schema"), Msg("schema takes a table: a JSON Schema"))
        schema = reader.json_value(schema, (*where, "schema"))
        unknown = _unchecked(schema)
        if unknown:
            raise reader.fail(
                (*where, "schema"),
                Msg("fc does not check the schema keyword {keyword}", keyword=unknown),
            )
    which = table.get("for", "every")
    if which not in ("every", "any"):
        raise reader.fail((*where, "for"), Msg('for takes "every" (the default) or "any"'))
    equals = (
        reader.json_value(table["equals"], (*where, "equals")) if "equals" in table else MISSING
    )
    return Arguments(
        name, tool, path, "$" + path_tail(path), equals, matches, schema, which == "every"
    )


def _answer(
    reader: _Reader, where: tuple[str | int, ...], table: dict[str, Any], name: str
) -> Rule:
    ignore_case = table.get("ignore_case", False)
    if not isinstance(ignore_case, bool):
        raise reader.fail((*where, "ignore_case"), Msg("ignore_case takes true or false"))
    if not {"contains", "not_contains", "matches"} & set(table):
        raise reader.fail(where, Msg("answer needs contains, not_contains or matches"))
    contains = (
        reader.strings(table["contains"], (*where, "contains"), "contains")
        if "contains" in table
        else []
    )
    lacks = (
        reader.strings(table["not_contains"], (*where, "not_contains"), "not_contains")
        if "not_contains" in table
        else []
    )
    flags = re.IGNORECASE if ignore_case else 0
    matches = (
        reader.regex(table["matches"], (*where, "matches"), flags) if "matches" in table else None
    )
    return Answer(name, contains, lacks, matches, ignore_case)


def _unchecked(schema: Any) -> str | None:
    """Return the first keyword of `schema` fc's validator does not check, or None."""
    if not isinstance(schema, dict):
        return None
    for key, value in schema.items():
        if key not in SCHEMA_KEYWORDS:
            return str(key)
        children: list[Any] = []
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            children = list(value.values())
        elif key in ("items", "additionalProperties"):
            children = [value]
        elif key in ("anyOf", "oneOf", "allOf") and isinstance(value, list):
            children = value
        for child in children:
            found = _unchecked(child)
            if found is not None:
                return found
    return None


def _toml(text: str, source: str) -> dict[str, Any]:
    from importlib import import_module

    try:
        tomllib: Any = import_module("tomllib")
    except ImportError:  # Python 3.10: the same parser, as the package tomli, if installed
        try:
            tomllib = import_module("tomli")
        except ImportError:
            raise UsageError(
                Msg("fc expect reads TOML with Python 3.11's tomllib; on Python 3.10 install tomli")
            ) from None
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        said = str(e)
        m = re.search(r"\s*\(at (?:line (\d+), column \d+|end of document)\)$", said)
        if m is None:
            raise InputFileError(source, Msg("not TOML: {problem}", problem=said)) from None
        line = (
            int(m.group(1)) if m.group(1) else max(text.count("\n") + (not text.endswith("\n")), 1)
        )
        where = Msg("{file}, line {line}", file=source, line=line)
        raise InputFileError(where, Msg("not TOML: {problem}", problem=said[: m.start()])) from None
    return data


# ---------------------------------------------------------------------------------------------
# the line a key is on

_HEADER = re.compile(r"\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_KEY = re.compile(
    r"""\s*((?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*'))*)\s*="""
)
_PART = re.compile(r"""[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*'""")


def _parts(dotted: str) -> list[str]:
    out = []
    for part in _PART.findall(dotted):
        if part[0] == '"':
            import json

            out.append(json.loads(part))
        elif part[0] == "'":
            out.append(part[1:-1])
        else:
            out.append(part)
    return out


def locate(text: str, where: tuple[str | int, ...]) -> int | None:
    """Return the line (1-based) of the table header or key that holds `where` most closely
    (a key inside an inline table: the line of the table), or None."""
    arrays: dict[tuple[str, ...], int] = {}
    table: tuple[str | int, ...] = ()
    best, best_len = None, 0
    in_string = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.count('"""') % 2 or line.count("'''") % 2:
            in_string = not in_string
            if not in_string:
                continue
        elif in_string:
            continue
        header = _HEADER.match(line)
        found: tuple[str | int, ...] | None = None
        if header:
            keys = _parts(header.group(2))
            path: list[str | int] = []
            for i, key in enumerate(keys):
                path.append(key)
                prefix = tuple(keys[: i + 1])
                if header.group(1) == "[[" and i == len(keys) - 1:
                    arrays[prefix] = arrays.get(prefix, -1) + 1
                if prefix in arrays:
                    path.append(arrays[prefix])
            table = found = tuple(path)
        else:
            assignment = _KEY.match(line)
            if assignment:
                found = (*table, *_parts(assignment.group(1)))
        if found is not None:
            common = _common(found, where)
            if common > best_len:
                best, best_len = number, common
            if common == len(where) == len(found):
                return number
    return best


def _common(a: tuple[str | int, ...], b: tuple[str | int, ...]) -> int:
    """How far `a` is a prefix of `b` (0 unless all of `a` is)."""
    if len(a) > len(b) or b[: len(a)] != a:
        return 0
    return len(a)
