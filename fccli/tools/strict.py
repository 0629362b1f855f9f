"""Strict mode: tool schemas the provider holds the model's arguments to exactly.

The strict form (PROTOCOL.md, DeepSeek specifics; OpenAI's structured-outputs guide says the
same): every object lists ALL its properties in `required` and says `additionalProperties:
false`; a property that was optional becomes nullable (`["string", "null"]`), so the model
writes `null` instead of leaving it out; nested objects, array items and `$defs` too. Some
keywords are refused in strict schemas; fc reports them by name rather than send a request the
provider answers with 400, or, worse, silently stop enforcing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from fccli.core.models import ToolSpec
from fccli.i18n import Msg

REJECTED_KEYWORDS = (
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
)
"""Keywords strict mode refuses (PROTOCOL.md's list, with the exclusive bounds of the same family)."""

_SCHEMA_MAPS = ("properties", "$defs", "definitions")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


# A NamedTuple, not a dataclass: start-up.
class StrictProblem(NamedTuple):
    tool: str
    path: str
    """JSON path inside the tool's input_schema."""
    problem: str

    def __str__(self) -> str:
        return f"{self.tool}: {self.problem} at {self.path}"

    def said(self) -> Msg:
        """`str(self)`, still said in the chosen language when printed."""
        return Msg(
            "{tool}: {problem} at {path}", tool=self.tool, problem=self.problem, path=self.path
        )


def strict_spec(spec: ToolSpec) -> tuple[ToolSpec, list[StrictProblem]]:
    """Return the tool in strict form, and what strict mode would refuse in it."""
    problems: list[StrictProblem] = []
    schema = _rewrite(spec.input_schema, "$", spec.name, problems)
    return spec.model_copy(update={"input_schema": schema, "strict": True}), problems


def strict_specs(specs: Iterable[ToolSpec]) -> tuple[list[ToolSpec], list[StrictProblem]]:
    out: list[ToolSpec] = []
    problems: list[StrictProblem] = []
    for spec in specs:
        strict, found = strict_spec(spec)
        out.append(strict)
        problems.extend(found)
    return out, problems


def strict_violations(tool: str, schema: Any) -> list[StrictProblem]:
    """Return where a schema sent with `strict: true` is not in strict form (for `fc check`)."""
    problems: list[StrictProblem] = []
    _inspect(schema, "$", tool, problems)
    return problems


def _is_object(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return (
        kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in schema
    )


def _refused(tool: str, path: str, key: str) -> StrictProblem:
    return StrictProblem(tool, f"{path}.{key}", Msg("`{key}` is refused in strict mode", key=key))


def _rewrite(schema: Any, path: str, tool: str, problems: list[StrictProblem]) -> Any:
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in REJECTED_KEYWORDS:
            problems.append(_refused(tool, path, key))
            out[key] = value
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {
                k: _rewrite(v, f"{path}.{key}.{k}", tool, problems) for k, v in value.items()
            }
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [
                _rewrite(v, f"{path}.{key}[{i}]", tool, problems) for i, v in enumerate(value)
            ]
        elif key == "items" and isinstance(value, dict):
            out[key] = _rewrite(value, f"{path}.items", tool, problems)
        else:
            out[key] = value
    if _is_object(out):
        properties = out.get("properties", {})
        required = set(_names(out.get("required")))
        out["properties"] = {
            name: prop if name in required else _nullable(prop) for name, prop in properties.items()
        }
        out["required"] = list(properties)
        extra = out.get("additionalProperties")
        if isinstance(extra, dict) or extra is True:
            problems.append(
                StrictProblem(
                    tool,
                    f"{path}.additionalProperties",
                    Msg("extra properties are not allowed in strict mode (a free-form object)"),
                )
            )
        elif "properties" not in schema and extra is not False:
            # `{"type": "object"}` alone means "any object"; strict mode would close it to `{}`.
            problems.append(
                StrictProblem(
                    tool,
                    path,
                    Msg("a free-form object (no properties) cannot be expressed in strict mode"),
                )
            )
        out["additionalProperties"] = False
    return out


def _names(required: Any) -> list[str]:
    """Return `required` as a list of names; anything else (a string, null) lists none."""
    if not isinstance(required, list):
        return []
    return [n for n in required if isinstance(n, str)]


def _nullable(schema: Any) -> Any:
    """Return an optional property in strict form: always present, `null` when the model has no
    value."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"] if kind != "null" else kind
    elif isinstance(kind, list):
        out["type"] = kind if "null" in kind else [*kind, "null"]
    elif isinstance(out.get("anyOf"), list):
        if {"type": "null"} not in out["anyOf"]:
            out["anyOf"] = [*out["anyOf"], {"type": "null"}]
        return out
    else:  # $ref, enum without a type: say "or null" around it
        return {"anyOf": [schema, {"type": "null"}]}
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def _inspect(schema: Any, path: str, tool: str, problems: list[StrictProblem]) -> None:
    if not isinstance(schema, dict):
        return
    for key in REJECTED_KEYWORDS:
        if key in schema:
            problems.append(_refused(tool, path, key))
    if _is_object(schema):
        properties = schema.get("properties", {})
        if isinstance(properties, dict):
            required = _names(schema.get("required"))
            missing = [n for n in properties if n not in required]
            if missing:
                problems.append(
                    StrictProblem(
                        tool,
                        f"{path}.required",
                        Msg(
                            "strict mode needs every property in `required`; missing: {missing}",
                            missing=", ".join(missing),
                        ),
                    )
                )
        if schema.get("additionalProperties") is not False:
            problems.append(
                StrictProblem(
                    tool,
                    f"{path}.additionalProperties",
                    Msg("strict mode needs `additionalProperties: false`"),
                )
            )
    for key in _SCHEMA_MAPS:
        value = schema.get(key)
        if isinstance(value, dict):
            for name, sub in value.items():
                _inspect(sub, f"{path}.{key}.{name}", tool, problems)
    for key in _SCHEMA_LISTS:
        value = schema.get(key)
        if isinstance(value, list):
            for i, sub in enumerate(value):
                _inspect(sub, f"{path}.{key}[{i}]", tool, problems)
    if isinstance(schema.get("items"), dict):
        _inspect(schema["items"], f"{path}.items", tool, problems)
