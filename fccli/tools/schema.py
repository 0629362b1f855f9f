"""A small JSON Schema validator for the subset tool schemas use, and honest about the rest.

Checked: type (a name or a list of names, null included), properties, required,
additionalProperties (true, false or a schema), enum, const, items, minItems, maxItems, anyOf,
oneOf, allOf, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength,
pattern, and `$ref` to the schema's own `$defs` / `definitions` (pydantic writes those for
nested models). Any other keyword met on the way (format, multipleOf, uniqueItems, not,
patternProperties, if/then/else...) is named in `unchecked`, so a finding can say what it did
not look at instead of passing it silently.

No dependency: fc validates its own tools with pydantic; this reads the schema as a provider's
model sees it, for histories made by any program.
"""

from __future__ import annotations

import json
import math
import operator
import re
from collections.abc import Callable
from typing import Any

from fccli.i18n import N_, Joined, Msg
from fccli.wire.shape import describe

CHECKED = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "enum",
        "const",
        "items",
        "minItems",
        "maxItems",
        "anyOf",
        "oneOf",
        "allOf",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "pattern",
        "$ref",
    }
)
NOT_CONSTRAINTS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$schema",
        "$id",
        "$comment",
        "$defs",
        "definitions",
        "deprecated",
        "readOnly",
        "writeOnly",
        "strict",
    }
)
MAX_DEPTH = 64
"""A `$ref` cycle stops here."""


class SchemaReport:
    """What validation found. A plain class, not a dataclass: `fc run` imports this (start-up)."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        """Each: where in the arguments, and what is wrong there (a Msg: English, and said in
        the chosen language by `fccli.i18n.localized`)."""
        self.unchecked: set[str] = set()
        """Keywords met but not checked."""


def validate(value: Any, schema: Any) -> SchemaReport:
    report = SchemaReport()
    _check(value, schema, "$", schema, report, 0)
    return report


_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    # JSON Schema: 1.0 is an integer too.
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and math.isfinite(v) and v.is_integer())
    ),
}


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:59] + "…"


def _check(value: Any, schema: Any, path: str, root: Any, report: SchemaReport, depth: int) -> None:
    if schema is True or (not isinstance(schema, dict) and schema is not False):
        return  # true, or not a schema at all: anything goes
    if schema is False:
        report.errors.append(Msg("{path}: no value is allowed here", path=path))
        return
    if depth > MAX_DEPTH:
        report.unchecked.add("$ref")
        return
    report.unchecked.update(k for k in schema if k not in CHECKED and k not in NOT_CONSTRAINTS)
    if "$ref" in schema:
        target = _resolve(root, schema["$ref"])
        if target is None:
            report.unchecked.add("$ref")
        else:
            _check(value, target, path, root, report, depth + 1)
    before = len(report.errors)
    _check_type(value, schema, path, report)
    if len(report.errors) > before:
        return  # the wrong type: its other keywords would only say the same again
    if "enum" in schema and isinstance(schema["enum"], list) and value not in schema["enum"]:
        allowed = ", ".join(_shown(v) for v in schema["enum"])
        report.errors.append(
            Msg(
                "{path}: {value} is not one of {allowed}",
                path=path,
                value=_shown(value),
                allowed=allowed,
            )
        )
    if "const" in schema and value != schema["const"]:
        report.errors.append(
            Msg(
                "{path}: must be {const}, found {value}",
                path=path,
                const=_shown(schema["const"]),
                value=_shown(value),
            )
        )
    _check_combinations(value, schema, path, root, report, depth)
    if isinstance(value, dict):
        _check_object(value, schema, path, root, report, depth)
    elif isinstance(value, list):
        _check_array(value, schema, path, root, report, depth)
    elif isinstance(value, str):
        _check_string(value, schema, path, report)
    elif _TYPES["number"](value):
        _check_number(value, schema, path, report)


def _resolve(root: Any, ref: Any) -> Any:
    """Return a `#/$defs/Name` (or `#/definitions/Name`, or `#`) inside the schema itself; else
    None."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    node = root
    for part in filter(None, ref[1:].split("/")):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _check_type(value: Any, schema: dict[str, Any], path: str, report: SchemaReport) -> None:
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if isinstance(kind, str) else []
    known = [k for k in kinds if isinstance(k, str) and k in _TYPES]
    if len(known) < len(kinds):
        report.unchecked.add("type")
    if known and not any(_TYPES[k](value) for k in known):
        wanted = Joined(
            (
                Msg("an {type}", type=k) if k[0] in "aeiou" else Msg("a {type}", type=k)
                for k in known
            ),
            " or ",
        )
        report.errors.append(
            Msg(
                "{path}: expected {wanted}, found {kind} {value}",
                path=path,
                wanted=wanted,
                kind=describe(value),
                value=_shown(value),
            )
        )


def _check_combinations(
    value: Any, schema: dict[str, Any], path: str, root: Any, report: SchemaReport, depth: int
) -> None:
    for key in ("anyOf", "oneOf", "allOf"):
        choices = schema.get(key)
        if not isinstance(choices, list) or not choices:
            continue
        branches = []
        for choice in choices:
            branch = SchemaReport()
            _check(value, choice, path, root, branch, depth + 1)
            report.unchecked |= branch.unchecked
            branches.append(branch.errors)
        passing = sum(1 for errors in branches if not errors)
        if key == "allOf":
            for errors in branches:
                report.errors.extend(errors)
        elif passing == 0:
            why = Joined((errors[0] for errors in branches), "; or ")
            report.errors.append(
                Msg(
                    "{path}: matches none of the {key} choices ({why})", path=path, key=key, why=why
                )
            )
        elif key == "oneOf" and passing > 1:
            report.errors.append(
                Msg(
                    "{path}: matches {passing} of the oneOf choices, not exactly one",
                    path=path,
                    passing=passing,
                )
            )


def _check_object(
    value: dict[str, Any],
    schema: dict[str, Any],
    path: str,
    root: Any,
    report: SchemaReport,
    depth: int,
) -> None:
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    required = schema.get("required")
    for name in required if isinstance(required, list) else []:
        if isinstance(name, str) and name not in value:
            report.errors.append(
                Msg("{path}: the required property {name!r} is missing", path=path, name=name)
            )
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        where = f"{path}.{name}"
        if name in properties:
            _check(item, properties[name], where, root, report, depth + 1)
        elif extra is False:
            report.errors.append(
                Msg("{path}: property {name!r} is not in the schema", path=path, name=name)
            )
        elif isinstance(extra, dict):
            _check(item, extra, where, root, report, depth + 1)


def _check_array(
    value: list[Any],
    schema: dict[str, Any],
    path: str,
    root: Any,
    report: SchemaReport,
    depth: int,
) -> None:
    items = schema.get("items")
    if isinstance(items, (dict, bool)):
        for i, item in enumerate(value):
            _check(item, items, f"{path}[{i}]", root, report, depth + 1)
    _check_size(
        len(value),
        schema.get("minItems"),
        schema.get("maxItems"),
        N_("{path}: {size} item(s), fewer than minItems {least}"),
        N_("{path}: {size} item(s), more than maxItems {most}"),
        path,
        report,
    )


def _check_string(value: str, schema: dict[str, Any], path: str, report: SchemaReport) -> None:
    _check_size(
        len(value),
        schema.get("minLength"),
        schema.get("maxLength"),
        N_("{path}: {size} character(s), fewer than minLength {least}"),
        N_("{path}: {size} character(s), more than maxLength {most}"),
        path,
        report,
    )
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        try:
            found = re.search(pattern, value)
        except re.error:  # a pattern Python's re cannot read (ECMA-only syntax)
            report.unchecked.add("pattern")
            return
        if found is None:
            report.errors.append(
                Msg(
                    "{path}: {value} does not match the pattern {pattern!r}",
                    path=path,
                    value=_shown(value),
                    pattern=pattern,
                )
            )


def _check_size(
    size: int, least: Any, most: Any, fewer: str, more: str, path: str, report: SchemaReport
) -> None:
    """Report a size below `least` or above `most` (each checked when it is an integer); `fewer`
    and `more` are marked with N_ where they are written."""
    if isinstance(least, int) and size < least:
        report.errors.append(Msg.__new__(Msg, fewer, path=path, size=size, least=least))
    if isinstance(most, int) and size > most:
        report.errors.append(Msg.__new__(Msg, more, path=path, size=size, most=most))


def _check_number(value: float, schema: dict[str, Any], path: str, report: SchemaReport) -> None:
    for key, (holds, message) in _BOUNDS.items():
        bound = schema.get(key)
        if (
            isinstance(bound, (int, float))
            and not isinstance(bound, bool)
            and not holds(value, bound)
        ):
            shown = _shown(value)
            report.errors.append(Msg.__new__(Msg, message, path=path, value=shown, bound=bound))


_BOUNDS = {
    "minimum": (operator.ge, N_("{path}: {value} is not at least {bound}")),
    "maximum": (operator.le, N_("{path}: {value} is not at most {bound}")),
    "exclusiveMinimum": (operator.gt, N_("{path}: {value} is not above {bound}")),
    "exclusiveMaximum": (operator.lt, N_("{path}: {value} is not below {bound}")),
}
