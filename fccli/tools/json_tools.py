"""Tools written as JSON (`fc run --tools tools.json`): definitions with no code behind them.

The file is a list of tool definitions (or `{"tools": [...]}`) in any of the three forms a
learner meets: fc's internal `{name, description, input_schema}`, which is Anthropic's too,
or the chat form `{type: "function", function: {name, description, parameters, strict?}}`.

A JSON tool has no implementation, so its results come from the file, beside the definition:

    "results": [{"arguments": {"city": "北京"}, "result": {"temp_c": 12}}, ...],
    "default": "text or any JSON value"

The first entry whose `arguments` the call's arguments contain (same values) answers;
`"is_error": true` in an entry makes its result an error result. Else the `default`. Else, with
`fc run --ask`, the person at the terminal is the tool: fc shows the call and reads the result.
Else the result is an error result saying the tool has no implementation and how to give it
one (a definition copied from a request file's `tools` has none).

Arguments are validated against the definition's JSON Schema before any of that, as a harness
must: an invalid call gets an error result, never a table entry.

`{"session": {"user_id": "U1001"}, "tools": [...]}` says who is logged in. A parameter named in
the session is the harness's to fill, never the model's (the course's second text: identity
comes from the session): it is left out of the definition the model sees, and the session's
value is what the tool gets, whatever the call says. `--harness-bug identity-from-args` offers
it to the model and runs with what the model wrote.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from fccli.core.errors import UsageError
from fccli.core.jsonio import parse_json
from fccli.core.models import ToolSpec, ToolUseBlock
from fccli.i18n import Msg, _
from fccli.tools.registry import TOOL_NAME, ToolSet
from fccli.tools.schema import validate

Asker = Callable[[ToolUseBlock], str]
"""Shows a call to the person at the terminal and returns the result they typed."""

ASKED_ERROR_PREFIX = "error:"
"""A typed answer starting with this is handed back as an error result."""


# Not a dataclass: start-up.
class Answer(NamedTuple):
    content: str
    is_error: bool = False
    kind: str | None = None
    """None, or tool_error (the file says so) | no_implementation; an MCP tool's: tool_error
    (isError) | tool_timeout | server_gone | mcp_error (a JSON-RPC error, an unreadable answer)."""
    served: dict[str, Any] | None = None
    """Which MCP server ran the call, and its JSON-RPC id (the manifest's `mcp`)."""


class SchemaTool:
    """A tool known by its JSON Schema alone: its arguments are validated against the schema,
    then it answers (from a file, the person at the terminal, an MCP server)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    strict: bool | None = None
    asker: Asker | None = None

    def spec(self) -> ToolSpec:
        return ToolSpec(
            name=self.name,
            description=self.description,
            input_schema=self.input_schema,
            strict=self.strict,
        )

    def problems(self, arguments: dict[str, Any]) -> list[str]:
        return validate(arguments, self.input_schema).errors

    def answer(self, call: ToolUseBlock, arguments: dict[str, Any]) -> Answer:
        raise NotImplementedError


class JsonTool(SchemaTool):
    def __init__(
        self,
        name: str,
        description: str,
        input_schema: dict[str, Any],
        *,
        strict: bool | None = None,
        results: list[dict[str, Any]] | None = None,
        default: Any = None,
        has_default: bool = False,
        source: str = "",
    ) -> None:
        self.name = name
        self.description = description
        self.input_schema = input_schema
        self.strict = strict
        self.results: list[dict[str, Any]] = [] if results is None else results
        self.default = default
        self.has_default = has_default
        self.source = source
        self.asker: Asker | None = None
        self.session: dict[str, Any] = {}
        """The session's values of this tool's parameters (the file's `session`), by name."""
        self.identity_from_args = False
        """--harness-bug identity-from-args: the session's parameters offered to the model and
        taken from its arguments."""

    def spec(self) -> ToolSpec:
        return ToolSpec(
            name=self.name,
            description=self.description,
            input_schema=self.offered_schema(),
            strict=self.strict,
        )

    def offered_schema(self) -> dict[str, Any]:
        """Return the schema the model sees: without the session's parameters, unless the
        harness takes identity from the model."""
        if not self.session or self.identity_from_args:
            return self.input_schema
        properties = self.input_schema.get("properties")
        required = self.input_schema.get("required")
        schema = dict(self.input_schema)
        if isinstance(properties, dict):
            schema["properties"] = {k: v for k, v in properties.items() if k not in self.session}
        if isinstance(required, list):
            schema["required"] = [k for k in required if k not in self.session]
        return schema

    def with_session(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Return the arguments the tool runs with: the session's values over the model's."""
        if not self.session or self.identity_from_args:
            return arguments
        return {**arguments, **self.session}

    def problems(self, arguments: dict[str, Any]) -> list[str]:
        return validate(self.with_session(arguments), self.input_schema).errors

    def answer(self, call: ToolUseBlock, arguments: dict[str, Any]) -> Answer:
        arguments = self.with_session(arguments)
        for entry in self.results:
            wanted = entry.get("arguments") or {}
            if all(k in arguments and arguments[k] == v for k, v in wanted.items()):
                error = entry.get("is_error") is True
                return Answer(_text(entry.get("result")), error, "tool_error" if error else None)
        if self.has_default:
            return Answer(_text(self.default))
        if self.asker is not None:
            typed = self.asker(call)
            if typed.casefold().startswith(ASKED_ERROR_PREFIX):
                return Answer(typed[len(ASKED_ERROR_PREFIX) :].strip(), True, "tool_error")
            return Answer(typed)
        if self.results:
            said = _(
                "{tool} has no implementation: no `results` entry in {source} matches these "
                "arguments and it has no `default`; add one beside its definition, or run with "
                "--ask to answer its calls yourself",
                tool=self.name,
                source=self.source,
            )
        else:  # a definition alone, as copied from a request file's `tools`
            said = _(
                "{tool} has no implementation: {source} holds its definition only, and a JSON "
                'tool answers from its file. Add `"default": RESULT` or `"results": '
                '[{{"arguments": {{...}}, "result": RESULT}}]` beside its definition, or run '
                "with --ask to answer its calls yourself",
                tool=self.name,
                source=self.source,
            )
        return Answer(said, True, "no_implementation")


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def require_tools_file(path: Path) -> None:
    """Refuse a tools file that is missing or not a regular file."""
    if not path.is_file():
        raise UsageError(
            Msg("{path}: not a regular file", path=str(path))
            if path.exists()
            else Msg("{path}: no such tools file", path=str(path))
        )


def load_json_tools(path: Path, asker: Asker | None = None) -> ToolSet:
    require_tools_file(path)
    doc = parse_json(path.read_bytes(), str(path))
    items = doc.get("tools") if isinstance(doc, dict) else doc
    if not isinstance(items, list) or not items:
        raise UsageError(
            Msg(
                '{path}: expected a list of tool definitions (or {{"tools": [...]}})',
                path=str(path),
            ),
            hint=Msg('e.g. [{"name": "get_order", "description": "...", "input_schema": {...}}]'),
        )
    tools = [_tool(item, f"{path}[{i}]", str(path)) for i, item in enumerate(items)]
    session = doc.get("session", {}) if isinstance(doc, dict) else {}
    if not isinstance(session, dict):
        raise UsageError(
            Msg('{path}: `session` is an object: {{"user_id": "..."}}', path=str(path))
        )
    for tool in tools:
        tool.asker = asker
        properties = tool.input_schema.get("properties")
        if isinstance(properties, dict):
            tool.session = {k: v for k, v in session.items() if k in properties}
    return ToolSet(str(path), tools)


def _tool(item: Any, where: str, source: str) -> JsonTool:
    if not isinstance(item, dict):
        raise UsageError(Msg("{where}: a tool definition is an object", where=where))
    definition = item.get("function") if item.get("type") == "function" else item
    if not isinstance(definition, dict):
        raise UsageError(
            Msg("{where}: `function` is an object: {{name, description, parameters}}", where=where)
        )
    name = definition.get("name")
    if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
        raise UsageError(
            Msg(
                "{where}: the tool's name {name!r} would be refused by providers",
                where=where,
                name=name,
            ),
            hint=Msg("tool names are 1 to 64 of a-z A-Z 0-9 _ -"),
        )
    schema = definition.get("parameters", definition.get("input_schema"))
    if schema is None:
        schema = {"type": "object", "properties": {}}
    if not isinstance(schema, dict):
        raise UsageError(
            Msg(
                "{where}: {name}'s parameters (input_schema) must be a JSON Schema object",
                where=where,
                name=name,
            )
        )
    description = definition.get("description") or ""
    if not isinstance(description, str):
        raise UsageError(Msg("{where}: {name}'s description must be text", where=where, name=name))
    strict = definition.get("strict")
    results = item.get("results", [])
    if not isinstance(results, list) or not all(
        isinstance(r, dict) and isinstance(r.get("arguments", {}), dict) for r in results
    ):
        raise UsageError(
            Msg(
                '{where}: {name}\'s `results` is a list of {{"arguments": {{...}}, "result": ...}}',
                where=where,
                name=name,
            )
        )
    return JsonTool(
        name=name,
        description=description,
        input_schema=schema,
        strict=strict if isinstance(strict, bool) else None,
        results=results,
        default=item.get("default"),
        has_default="default" in item,
        source=source,
    )
