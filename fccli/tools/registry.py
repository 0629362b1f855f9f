"""A tool is a Python function; its schema comes from its type hints, its description from its docstring.

A function either takes plain typed parameters (`def get_weather(city: str)`, optionally
`Annotated[str, Field(description=...)]`) or one pydantic model (`def search(q: Query)`).
Either way a pydantic model validates the model's arguments before the function runs: the
arguments are input from outside, as untrusted as anything a user types.
"""

from __future__ import annotations

import inspect
import re
import typing
import warnings
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, NamedTuple, Protocol

from pydantic import BaseModel, ConfigDict, create_model

from fccli.core.errors import UsageError
from fccli.core.models import ToolSpec
from fccli.i18n import Msg


class ToolError(Exception):
    """Raised by a tool to fail with a message meant for the model (no type name prefixed)."""


# A NamedTuple, not a dataclass: start-up.
class Tool(NamedTuple):
    name: str
    description: str
    arguments_model: type[BaseModel]
    func: Callable[..., Any]
    takes_model: bool
    """True when `func` takes the validated model itself rather than keyword arguments."""

    def spec(self) -> ToolSpec:
        """Describe the tool: a pydantic model's schema as `model_json_schema()` gives it (titles
        and all, as article 004 passes it); the model fc makes of a signature, cleaned."""
        schema = self.arguments_model.model_json_schema()
        if not self.takes_model:
            schema = clean_schema(schema)
        return ToolSpec(name=self.name, description=self.description, input_schema=schema)

    def call(self, arguments: BaseModel) -> Any:
        if self.takes_model:
            value = self.func(arguments)
        else:
            value = self.func(
                **{name: getattr(arguments, name) for name in type(arguments).model_fields}
            )
        return settled(value)

    def call_unchecked(self, arguments: dict[str, Any]) -> Any:
        """Call the function on the arguments as the model sent them: what a harness that does not
        validate does (--harness-bug no-validation)."""
        if self.takes_model:
            return settled(self.func(self.arguments_model.model_construct(**arguments)))
        return settled(self.func(**arguments))


def settled(value: Any) -> Any:
    if inspect.isawaitable(value):
        # An async tool: each call runs in its own thread, so a fresh loop per call is fine.
        # asyncio only for async tools: start-up (tests/commands/test_startup.py).
        import asyncio

        value = asyncio.run(_awaited(value))
    return value


async def _awaited(value: Awaitable[Any]) -> Any:
    return await value


# What chat APIs accept as a function name (OpenAI, DeepSeek); Anthropic's rule is the same.
TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")


def tool_from_function(func: Callable[..., Any], name: str | None = None) -> Tool:
    tool_name = name or func.__name__
    if not TOOL_NAME.fullmatch(tool_name):
        raise UsageError(
            Msg("tool name {name!r} would be refused by providers", name=tool_name),
            hint=Msg("tool names are 1 to 64 of a-z A-Z 0-9 _ -"),
        )
    description = inspect.cleandoc(func.__doc__ or "").strip()
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception as e:  # a bad forward reference in a user's file
        raise UsageError(
            Msg("tool {name}: cannot read its type hints ({error})", name=tool_name, error=str(e))
        ) from None
    params = [
        p
        for p in inspect.signature(func).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if len(params) == 1 and _is_model(hints.get(params[0].name)):
        model = hints[params[0].name]
        tool = Tool(tool_name, description or _model_doc(model), model, func, takes_model=True)
        return _checked(tool)
    fields: dict[str, Any] = {}
    for p in params:
        _check_parameter(tool_name, p, hints)
        default = ... if p.default is inspect.Parameter.empty else p.default
        fields[p.name] = (hints[p.name], default)
    try:
        with warnings.catch_warnings():
            # A parameter called `json` or `schema` shadows a BaseModel method; harmless here.
            warnings.simplefilter("ignore")
            # Extra keys are refused: a model inventing parameters should hear about it.
            model = create_model(
                f"{tool_name}_arguments", __config__=ConfigDict(extra="forbid"), **fields
            )
    except Exception as e:
        raise UsageError(
            Msg(
                "tool {name}: its parameters cannot be described: {error}",
                name=tool_name,
                error=str(e),
            )
        ) from None
    return _checked(Tool(tool_name, description, model, func, takes_model=False))


def _check_parameter(tool: str, p: inspect.Parameter, hints: dict[str, Any]) -> None:
    if p.name not in hints:
        raise UsageError(
            Msg(
                "tool {tool}: parameter {name!r} has no type hint, "
                "so fc cannot tell the model what to send",
                tool=tool,
                name=p.name,
            )
        )
    if p.kind is p.POSITIONAL_ONLY:
        raise UsageError(
            Msg(
                "tool {tool}: parameter {name!r} is positional-only; arguments come by name",
                tool=tool,
                name=p.name,
            )
        )
    if p.name.startswith("_") or p.name.startswith("model_"):
        raise UsageError(
            Msg(
                "tool {tool}: parameter {name!r} cannot be an argument name "
                "(names starting with _ or model_ are reserved by pydantic)",
                tool=tool,
                name=p.name,
            )
        )


def _checked(tool: Tool) -> Tool:
    """Build the schema now, so a type JSON Schema cannot describe fails at load, not mid-run."""
    try:
        tool.spec()
    except Exception as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise UsageError(
            Msg(
                "tool {name}: its arguments have no JSON Schema: {error}",
                name=tool.name,
                error=first,
            )
        ) from None
    return tool


def _is_model(hint: Any) -> bool:
    return inspect.isclass(hint) and issubclass(hint, BaseModel)


def _model_doc(model: type[BaseModel]) -> str:
    doc = model.__doc__ or ""
    return "" if doc == BaseModel.__doc__ else inspect.cleandoc(doc).strip()


# pydantic sorts schema keys alphabetically; people read `type` and `properties` first.
_KEY_ORDER = ("type", "description", "properties", "items", "required", "additionalProperties")


def clean_schema(schema: Any) -> Any:
    """Drop pydantic's generated `title` keys (noise the model pays tokens for), keys in reading order.

    Only schema positions are cleaned, so a *property* called "title" stays.
    """
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    ordered = sorted(schema.items(), key=lambda kv: _rank(kv[0]))
    for key, value in ordered:
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs", "definitions", "patternProperties") and isinstance(
            value, dict
        ):
            out[key] = {k: clean_schema(v) for k, v in value.items()}
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(value, list):
            out[key] = [clean_schema(v) for v in value]
        elif key in ("items", "additionalProperties", "not") and isinstance(value, dict):
            out[key] = clean_schema(value)
        else:
            out[key] = value
    return out


def _rank(key: str) -> int:
    return _KEY_ORDER.index(key) if key in _KEY_ORDER else len(_KEY_ORDER)


class Offered(Protocol):
    """A tool as a run offers it: a Python function (Tool) or a JSON definition (JsonTool)."""

    @property
    def name(self) -> str: ...

    def spec(self) -> ToolSpec: ...


class ToolSet:
    """The tools offered in a run, by name, in the order they are offered."""

    def __init__(self, name: str, tools: Iterable[Offered]) -> None:
        self.name = name
        self.tools: dict[str, Offered] = {}
        self._specs: list[ToolSpec] | None = None
        self.closing: list[Callable[[], None]] = []
        """What `close()` does when the run is over (stop MCP servers)."""
        self.mcp: Any = None
        """The MCP client whose servers run some of these tools (fc run --mcp), if any."""
        for tool in tools:
            if tool.name in self.tools:
                raise UsageError(
                    Msg("tool set {set}: two tools are named {name!r}", set=name, name=tool.name)
                )
            self.tools[tool.name] = tool

    def specs(self) -> list[ToolSpec]:
        # Built once: every step of a run offers the same definitions.
        if self._specs is None:
            self._specs = [t.spec() for t in self.tools.values()]
        return list(self._specs)

    def get(self, name: str) -> Offered | None:
        return self.tools.get(name)

    def names(self) -> list[str]:
        return list(self.tools)

    def close(self) -> None:
        """Release what the tools hold (an MCP server's process): once, whatever happens."""
        closing, self.closing = self.closing, []
        for close in closing:
            close()
