"""From a call intent to a result: validate, execute, and turn every failure into an error result.

Nothing a model sends can crash the loop. An unknown tool name, arguments that are not JSON,
arguments that fail validation, and an exception inside the tool each become a `tool_result`
with `is_error: true` and a message the model can act on; the loop goes on and the model reads it.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import to_jsonable_python

from fccli.core.models import ToolResultBlock, ToolUseBlock
from fccli.i18n import N_, Joined, Msg, _, gettext, language, localized
from fccli.tools.json_tools import SchemaTool
from fccli.tools.registry import Offered, Tool, ToolError, ToolSet


class ToolRun:
    """One executed (or refused) call, as the trace's manifest records it. A plain class, not a
    dataclass: start-up (docs/performance.md)."""

    def __init__(
        self,
        call: ToolUseBlock,
        result: ToolResultBlock,
        duration_ms: float,
        error_kind: str | None = None,
    ) -> None:
        self.call = call
        self.result = result
        self.duration_ms = duration_ms
        self.error_kind = error_kind
        """None, or unknown_tool | invalid_json | invalid_arguments | tool_error | tool_raised |
        tool_timeout | no_implementation (a JSON tool with no result for the call) | server_gone |
        mcp_error (an MCP server that broke down or answered a JSON-RPC error)."""
        self.unchecked: str | None = None
        """What validation would have said, when the harness ran the call without it
        (--harness-bug no-validation)."""
        self.served: dict[str, Any] | None = None
        """The MCP server that ran the call, and the JSON-RPC id of its tools/call."""

    def manifest_entry(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "id": self.call.id,
            "name": self.call.name,
            "arguments": self.call.input,
        }
        if self.call.raw_arguments is not None:
            entry["raw_arguments"] = self.call.raw_arguments
        entry["duration_ms"] = round(self.duration_ms, 3)
        entry["is_error"] = self.result.is_error
        entry["error"] = self.result.content if self.result.is_error else None
        entry["error_kind"] = self.error_kind
        if self.unchecked is not None:
            entry["unchecked"] = self.unchecked
        if self.served is not None:
            entry["mcp"] = self.served
        return entry


def result_text(value: Any) -> str:
    """Return a tool's return value as the text handed back: strings as they are, the rest as
    JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    # Datetimes, sets, dataclasses, models inside a dict: made JSON values (str() as a last
    # resort), since json.dumps raising here would crash the loop on a tool's ordinary return.
    return json.dumps(to_jsonable_python(value, fallback=str), ensure_ascii=False)


# pydantic's own words for the problems a model's arguments most often have: said to the model
# in the chosen language (any other is said as pydantic says it).
PYDANTIC_MESSAGES = {
    N_("Field required"),
    N_("Extra inputs are not permitted"),
    N_("Input should be a valid string"),
    N_("Input should be a valid integer"),
    N_("Input should be a valid integer, unable to parse string as an integer"),
    N_("Input should be a valid integer, got a number with a fractional part"),
    N_("Input should be a valid number"),
    N_("Input should be a valid number, unable to parse string as a number"),
    N_("Input should be a valid boolean"),
    N_("Input should be a valid boolean, unable to interpret input"),
    N_("Input should be a valid list"),
    N_("Input should be a valid dictionary"),
    N_("Input should be a valid array"),
    N_("Input should be an object"),
}


class _PydanticMessage(Msg):
    """One of pydantic's messages (PYDANTIC_MESSAGES marks them for the catalog), said in the
    chosen language where it is printed."""

    def localized(self) -> str:
        return gettext(str(self))


def describe_validation_error(tool: Tool, error: ValidationError) -> str:
    """Return what the model is told when its arguments fail validation (in the chosen language)."""
    problems = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or _("(arguments)")
        message = item["msg"]
        problem = gettext(message) if message in PYDANTIC_MESSAGES else message
        expected = (item.get("ctx") or {}).get("expected")
        if item["type"] in ("literal_error", "enum") and isinstance(expected, str):
            # "Input should be 'a', 'b' or 'c'": the choices are the schema's, the words fc's
            choices = expected if language() == "en" else re.sub(r", | or ", "、", expected)
            problem = _("Input should be {choices}", choices=choices)
        if item["type"] not in ("missing", "extra_forbidden"):
            got = json.dumps(item.get("input"), ensure_ascii=False)
            problems.append(
                _("{where}: {problem} (got {value})", where=where, problem=problem, value=got)
            )
        else:
            problems.append(_("{where}: {problem}", where=where, problem=problem))
    return invalid_arguments(tool.name, problems, tool.spec().input_schema)


def invalid_arguments(name: str, problems: list[str], schema: dict[str, Any]) -> str:
    return _(
        "invalid arguments for {tool}: {problems}. "
        "Call it again with arguments that match its schema: {schema}",
        tool=name,
        problems=_("; ").join(str(localized(p)) for p in problems),
        schema=json.dumps(schema, ensure_ascii=False),
    )


def without_strict_nulls(tool: Offered, arguments: dict[str, Any]) -> dict[str, Any]:
    """Strict mode makes every parameter required and the optional ones nullable, so the model
    writes `null` for "not given"; the tool's own schema means "absent, use the default".
    Nested objects too, as strict mode rewrote them."""
    schema = tool.spec().input_schema
    return _drop_nulls(arguments, schema, schema.get("$defs", {}))


def _drop_nulls(value: dict[str, Any], schema: Any, defs: dict[str, Any]) -> dict[str, Any]:
    schema = _resolved(schema, defs)
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    required = schema.get("required", []) if isinstance(schema, dict) else []
    out: dict[str, Any] = {}
    for key, item in value.items():
        if item is None and key not in required:
            continue
        if isinstance(item, dict) and key in properties:
            item = _drop_nulls(item, properties[key], defs)
        out[key] = item
    return out


def _resolved(schema: Any, defs: dict[str, Any]) -> Any:
    """Follow a local `$ref` (pydantic writes nested models as `#/$defs/Name`)."""
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return defs.get(ref.removeprefix("#/$defs/"), schema)
    for branch in schema.get("anyOf", []):  # Optional[Model]: anyOf [{$ref}, {type: null}]
        if isinstance(branch, dict) and "$ref" in branch:
            return _resolved(branch, defs)
    return schema


def run_call(
    tools: ToolSet, call: ToolUseBlock, *, strict: bool = False, validate: bool = True
) -> ToolRun:
    start = time.perf_counter()

    def done(content: str, kind: str | None = None) -> ToolRun:
        result = ToolResultBlock(tool_use_id=call.id, content=content, is_error=kind is not None)
        return ToolRun(call, result, (time.perf_counter() - start) * 1000, kind)

    tool = tools.get(call.name)
    if tool is None:
        known = ", ".join(tools.names()) or _("(none)")
        return done(
            _(
                "unknown tool {name!r}; the tools offered are: {known}",
                name=call.name,
                known=known,
            ),
            "unknown_tool",
        )
    broken = call.raw_arguments is not None and call.raw_arguments.strip() != ""
    prefix = ""
    if broken:
        # Read as {} so that validation says what is missing (PROTOCOL.md, mistake 4).
        raw = call.raw_arguments or ""
        shown = raw if len(raw) <= 200 else raw[:200] + "…"
        prefix = _(
            "the arguments were not a JSON object ({shown!r}), so they were read as {{}}. ",
            shown=shown,
        )
    given = without_strict_nulls(tool, call.input) if strict else call.input
    if not validate:
        return _run_unchecked(tool, call, given, done)
    if isinstance(tool, SchemaTool):
        return _run_json_tool(tool, call, given, prefix, broken, done)
    assert isinstance(tool, Tool)
    try:
        arguments = tool.arguments_model.model_validate(given)
    except ValidationError as e:
        kind = "invalid_json" if prefix else "invalid_arguments"
        return done(prefix + describe_validation_error(tool, e), kind)
    if broken:
        # Even when {} would do, the model meant something else: never run a tool on
        # half-received arguments. (An empty string is how some servers say "no arguments".)
        return done(prefix + _not_run(tool.name), "invalid_json")
    try:
        # Turning the value into text is part of the tool's run: a value JSON cannot hold is
        # the tool's failure, reported to the model, not a crash of the loop.
        return done(result_text(tool.call(arguments)))
    except ToolError as e:
        return done(_failed(tool.name, e), "tool_error")
    except BaseException as e:
        # Any BaseException: SystemExit, GeneratorExit, KeyboardInterrupt raised by the tool
        # itself (it runs in a thread of its own: a Ctrl-C reaches the loop, not the tool).
        return done(_raised(tool.name, e), "tool_raised")


def _message_of(error: BaseException) -> str:
    """Return the exception's message; a tool's `__str__` that fails must not crash the loop
    either."""
    try:
        return str(error)
    except Exception:
        return _("(its message cannot be read)")


def _not_run(name: str) -> str:
    return _("{tool} was not run; send the arguments again as a JSON object.", tool=name)


def _failed(name: str, error: ToolError) -> str:
    return _("{tool} failed: {error}", tool=name, error=_message_of(error))


def _raised(name: str, error: BaseException) -> str:
    return _(
        "{tool} raised {type}: {message}",
        tool=name,
        type=type(error).__name__,
        message=_message_of(error),
    )


def _run_json_tool(
    tool: SchemaTool,
    call: ToolUseBlock,
    given: dict[str, Any],
    prefix: str,
    broken: bool,
    done: Callable[[str, str | None], ToolRun],
) -> ToolRun:
    """Run a tool known by its JSON Schema: validate against it, then answer (from its file, the
    person at the terminal with --ask, its MCP server)."""
    problems = tool.problems(given)
    if problems:
        return done(
            prefix + invalid_arguments(tool.name, problems, tool.input_schema),
            "invalid_json" if prefix else "invalid_arguments",
        )
    if broken:
        return done(prefix + _not_run(tool.name), "invalid_json")
    return _answered(tool, call, given, done)


def _answered(
    tool: SchemaTool,
    call: ToolUseBlock,
    given: dict[str, Any],
    done: Callable[[str, str | None], ToolRun],
) -> ToolRun:
    """Ask a tool known by its schema for its answer: parallel calls ask a person one at a time."""
    with _ASKING if tool.asker is not None else contextlib.nullcontext():
        answer = tool.answer(call, given)
    run = done(answer.content, answer.kind if answer.is_error else None)
    run.served = answer.served
    return run


def _run_unchecked(
    tool: Offered,
    call: ToolUseBlock,
    given: dict[str, Any],
    done: Callable[[str, str | None], ToolRun],
) -> ToolRun:
    """--harness-bug no-validation: the arguments go to the tool as the model sent them. What
    validation would have said is kept on the run, for the trace to show."""
    if isinstance(tool, SchemaTool):
        problems = tool.problems(given)
        unchecked = Joined(problems) if problems else None
        run = _answered(tool, call, given, done)
    else:
        assert isinstance(tool, Tool)
        try:
            tool.arguments_model.model_validate(given)
            unchecked = None
        except ValidationError as e:
            unchecked = Joined(
                Msg(
                    "{where}: {problem}",
                    where=".".join(str(p) for p in item["loc"]) or Msg("(arguments)"),
                    problem=_PydanticMessage(item["msg"])
                    if item["msg"] in PYDANTIC_MESSAGES
                    else item["msg"],
                )
                for item in e.errors()
            )
        try:
            run = done(result_text(tool.call_unchecked(given)), None)
        except ToolError as e:
            run = done(_failed(tool.name, e), "tool_error")
        except (Exception, SystemExit) as e:
            run = done(_raised(tool.name, e), "tool_raised")
    run.unchecked = unchecked
    return run


_ASKING = threading.Lock()
MAX_CONCURRENT_CALLS = 8


def run_calls(
    tools: ToolSet,
    calls: list[ToolUseBlock],
    *,
    strict: bool = False,
    timeout: float | None = None,
    validate: bool = True,
) -> list[ToolRun]:
    """Execute all calls of one turn concurrently; results come back in call order.

    Each call runs in a daemon thread, the loop waiting at most `timeout` seconds for it from
    the moment it starts. A tool past it is abandoned, not stopped: Python cannot stop a thread,
    and a subprocess would cost every call a new interpreter and tools that pickle; so the call
    gets an error result the model reads, the run goes on, and the thread ends with fc at the
    latest. Daemon threads rather than a ThreadPoolExecutor: on Ctrl-C the loop must stop at
    once, and an executor's workers are joined at exit, so a slow tool would hold the process.
    """
    slots = threading.BoundedSemaphore(MAX_CONCURRENT_CALLS)
    lock = threading.Lock()
    runs = [_Running(call) for call in calls]

    def work(running: _Running) -> None:
        slots.acquire()
        try:
            with lock:
                running.started = time.perf_counter()
            running.result = run_call(tools, running.call, strict=strict, validate=validate)
        finally:
            with lock:
                if not running.abandoned:
                    slots.release()
                running.done.set()

    for running in runs:
        threading.Thread(
            target=work, args=(running,), name=f"fc-tool-{running.call.name}", daemon=True
        ).start()
    return [_wait(running, timeout, slots, lock) for running in runs]


class _Running:
    def __init__(self, call: ToolUseBlock) -> None:
        self.call = call
        self.done = threading.Event()
        self.started: float | None = None
        self.result: ToolRun | None = None
        self.abandoned = False


def _wait(
    running: _Running,
    timeout: float | None,
    slots: threading.BoundedSemaphore,
    lock: threading.Lock,
) -> ToolRun:
    while not running.done.is_set():
        with lock:
            started = running.started
        if timeout is None or started is None:  # waiting for a slot
            running.done.wait(0.05 if timeout is not None else None)
            continue
        left = started + timeout - time.perf_counter()
        if left <= 0:
            with lock:
                if running.done.is_set():
                    break
                running.abandoned = True
                slots.release()  # its slot goes to the next call; the thread runs on, unwaited
            call = running.call
            text = _(
                "{tool} did not finish within --tool-timeout {timeout} s; "
                "fc stopped waiting for it",
                tool=call.name,
                timeout=format(timeout, "g"),
            )
            result = ToolResultBlock(tool_use_id=call.id, content=text, is_error=True)
            return ToolRun(call, result, timeout * 1000, "tool_timeout")
        running.done.wait(left)
    return running.result if running.result is not None else _lost(running.call)


def _lost(call: ToolUseBlock) -> ToolRun:
    # Only a failure in fc itself ends a worker without a result; every call still gets its
    # answer, or the next request is refused.
    result = ToolResultBlock(
        tool_use_id=call.id, content=_("{tool} did not finish", tool=call.name), is_error=True
    )
    return ToolRun(call, result, 0.0, "tool_raised")
