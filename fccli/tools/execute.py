"""From a call intent to a result: validate, execute, and turn every failure into an error result.

Nothing a model sends can crash the loop. An unknown tool name, arguments that are not JSON,
arguments that fail validation, and an exception inside the tool each become a `tool_result`
with `is_error: true` and a message the model can act on; the loop goes on and the model reads it.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import to_jsonable_python

from fccli.core.models import ToolResultBlock, ToolUseBlock
from fccli.tools.registry import Tool, ToolError, ToolSet


@dataclass
class ToolRun:
    """One executed (or refused) call, as the trace's manifest records it."""

    call: ToolUseBlock
    result: ToolResultBlock
    duration_ms: float
    error_kind: str | None = None
    """None, or unknown_tool | invalid_json | invalid_arguments | tool_error | tool_raised |
    tool_timeout."""

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
        return entry


def result_text(value: Any) -> str:
    """A tool's return value as the text handed back: strings as they are, the rest as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    # Datetimes, sets, dataclasses, models inside a dict: made JSON values (str() as a last
    # resort), since json.dumps raising here would crash the loop on a tool's ordinary return.
    return json.dumps(to_jsonable_python(value, fallback=str), ensure_ascii=False)


def describe_validation_error(tool: Tool, error: ValidationError) -> str:
    problems = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "(arguments)"
        problem = f"{where}: {item['msg']}"
        if item["type"] not in ("missing", "extra_forbidden"):
            problem += f" (got {json.dumps(item.get('input'), ensure_ascii=False)})"
        problems.append(problem)
    schema = json.dumps(tool.spec().input_schema, ensure_ascii=False)
    return (
        f"invalid arguments for {tool.name}: {'; '.join(problems)}. "
        f"Call it again with arguments that match its schema: {schema}"
    )


def without_strict_nulls(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
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


def run_call(tools: ToolSet, call: ToolUseBlock, *, strict: bool = False) -> ToolRun:
    start = time.perf_counter()

    def done(content: str, kind: str | None = None) -> ToolRun:
        result = ToolResultBlock(tool_use_id=call.id, content=content, is_error=kind is not None)
        return ToolRun(call, result, (time.perf_counter() - start) * 1000, kind)

    tool = tools.get(call.name)
    if tool is None:
        known = ", ".join(tools.names()) or "(none)"
        return done(f"unknown tool {call.name!r}; the tools offered are: {known}", "unknown_tool")
    broken = call.raw_arguments is not None and call.raw_arguments.strip() != ""
    prefix = ""
    if broken:
        # Read as {} so that validation says what is missing (PROTOCOL.md, mistake 4).
        raw = call.raw_arguments or ""
        shown = raw if len(raw) <= 200 else raw[:200] + "…"
        prefix = f"the arguments were not a JSON object ({shown!r}), so they were read as {{}}. "
    given = without_strict_nulls(tool, call.input) if strict else call.input
    try:
        arguments = tool.arguments_model.model_validate(given)
    except ValidationError as e:
        kind = "invalid_json" if prefix else "invalid_arguments"
        return done(prefix + describe_validation_error(tool, e), kind)
    if broken:
        # Even when {} would do, the model meant something else: never run a tool on
        # half-received arguments. (An empty string is how some servers say "no arguments".)
        return done(
            prefix + f"{tool.name} was not run; send the arguments again as a JSON object.",
            "invalid_json",
        )
    try:
        # Turning the value into text is part of the tool's run: a value JSON cannot hold is
        # the tool's failure, reported to the model, not a crash of the loop.
        return done(result_text(tool.call(arguments)))
    except ToolError as e:
        return done(f"{tool.name} failed: {e}", "tool_error")
    except BaseException as e:
        # Any BaseException: SystemExit, GeneratorExit, KeyboardInterrupt raised by the tool
        # itself (it runs in a thread of its own: a Ctrl-C reaches the loop, not the tool).
        return done(f"{tool.name} raised {type(e).__name__}: {_said(e)}", "tool_raised")


def _said(error: BaseException) -> str:
    """The exception's message; a tool's `__str__` that fails must not crash the loop either."""
    try:
        return str(error)
    except Exception:
        return "(its message cannot be read)"


MAX_CONCURRENT_CALLS = 8


def run_calls(
    tools: ToolSet,
    calls: list[ToolUseBlock],
    *,
    strict: bool = False,
    timeout: float | None = None,
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
            running.result = run_call(tools, running.call, strict=strict)
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
            text = (
                f"{call.name} did not finish within --tool-timeout {timeout:g} s; "
                "fc stopped waiting for it"
            )
            result = ToolResultBlock(tool_use_id=call.id, content=text, is_error=True)
            return ToolRun(call, result, timeout * 1000, "tool_timeout")
        running.done.wait(left)
    return running.result if running.result is not None else _lost(running.call)


def _lost(call: ToolUseBlock) -> ToolRun:
    # Only a failure in fc itself ends a worker without a result; every call still gets its
    # answer, or the next request is refused.
    result = ToolResultBlock(
        tool_use_id=call.id, content=f"{call.name} did not finish", is_error=True
    )
    return ToolRun(call, result, 0.0, "tool_raised")
