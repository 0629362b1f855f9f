"""Arguments: a JSON object, valid for the tool called, and a tool that was offered.

FC108 arguments that are not valid JSON (where they travel as a string) · FC109 valid JSON but
not an object · FC110 arguments that fail the tool's schema · FC111 a call to a tool not offered.

FC110 and FC111 are the harness's mistake, not the model's (PROTOCOL.md, mistake 4: validate
arguments like user input). A model may well send bad arguments; the harness is right when it
answers with an error result the model can read, and wrong when the call's result is a success:
then it ran something it should have refused. So these two speak only when the request carries
the tools and the call's result is not an error.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fccli.check.findings import Finding, finding
from fccli.check.history import Call, History, OfferedTool
from fccli.check.rules.common import call_label, shown
from fccli.i18n import Joined, Msg
from fccli.tools.schema import validate
from fccli.wire.shape import describe

SHOWN_ERRORS = 3


def arguments_shape(h: History) -> Iterator[Finding]:
    for call in h.calls():
        if not call.parses:
            yield finding(
                "FC108",
                h.format,
                call.args_path,
                Msg(
                    "the arguments of call {call} are not valid JSON ({raw}): the history must "
                    "carry a JSON object string; a harness answers such a call with an error "
                    "result and sends its arguments back as a valid object",
                    call=call_label(call),
                    raw=shown(call.raw),
                ),
                n=call.message,
                k=call.position,
            )
        elif h.layout.arguments_as_text and not isinstance(call.raw, str):
            yield finding(
                "FC109",
                h.format,
                call.args_path,
                Msg(
                    "the arguments of call {call} are {kind}, not a string: the format carries "
                    "them as a JSON object *string*",
                    call=call_label(call),
                    kind=describe(call.raw),
                ),
                n=call.message,
                k=call.position,
            )
        elif not isinstance(call.arguments, dict):
            label, kind = call_label(call), describe(call.arguments)
            if h.layout.arguments_as_text:
                message = Msg(
                    "the arguments of call {call} are valid JSON but {kind}, not an object",
                    call=label,
                    kind=kind,
                )
            elif isinstance(call.arguments, str):
                message = Msg(
                    "the input of call {call} is {kind}, not an object (a JSON string? content "
                    "blocks carry the object itself)",
                    call=label,
                    kind=kind,
                )
            else:
                message = Msg(
                    "the input of call {call} is {kind}, not an object", call=label, kind=kind
                )
            yield finding(
                "FC109",
                h.format,
                call.args_path,
                message,
                n=call.message,
                k=call.position,
            )


def _offered(h: History, name: object) -> OfferedTool | None:
    return next((t for t in h.tools if t.name == name), None)


def answered_as_fine(h: History) -> Iterator[Finding]:
    for _, f in _answered(h, 0, []):
        yield f


def answered_window(h: History, start: int) -> tuple[list[tuple[int, Finding]], int]:
    """Return the findings about calls from message `start` on, each with its message; and where the
    next request, repeating these messages, must start again: at the first call with no result
    yet (a later message may bring it)."""
    unanswered: list[int] = []
    found = list(_answered(h, start, unanswered))
    return found, min(unanswered, default=len(h.turns))


def _answered(h: History, start: int, unanswered: list[int]) -> Iterator[tuple[int, Finding]]:
    if not h.tools:
        return  # without the tools, what was offered is unknown
    for call in (c for turn in h.turns[start:] for c in turn.calls):
        if not isinstance(call.arguments, dict):
            continue  # FC108 / FC109
        result = h.result_of(call)
        if result is None:
            unanswered.append(call.message)
        if result is None or result.is_error:
            continue  # no result (FC101), or the harness refused it as it should
        tool = _offered(h, call.name)
        if tool is None:
            offered = ", ".join(str(n) for n in h.tool_names())
            yield (
                call.message,
                finding(
                    "FC111",
                    h.format,
                    call.name_path,
                    Msg(
                        "call {call} asks for a tool not offered ({offered}), yet its result is "
                        "not an error: answer an unknown tool with an error result that names the "
                        "tools offered",
                        call=call_label(call),
                        offered=offered,
                    ),
                ),
            )
            continue
        for f in _schema(h, call, tool):
            yield call.message, f


def _schema(h: History, call: Call, tool: OfferedTool) -> Iterator[Finding]:
    # A call is read once in a trace (its Call repeats in every later request, the same
    # object), and so is its report: the schema's exact text tells the same schema again.
    key = tool.schema_text
    report = call.reports.get(key) if key is not None else None
    if report is None:
        report = validate(call.arguments, tool.schema if tool.schema is not None else {})
        if key is not None:
            call.reports[key] = report
    if not report.errors:
        return
    shown_errors: list[Any] = list(report.errors[:SHOWN_ERRORS])
    if len(report.errors) > SHOWN_ERRORS:
        shown_errors.append(Msg("and {n} more", n=len(report.errors) - SHOWN_ERRORS))
    errors = Joined(shown_errors)
    if report.unchecked:
        message = Msg(
            "the arguments of call {call} fail the tool's schema ({errors}), yet its result is "
            "not an error: validate arguments like user input and answer a failure with an error "
            "result (not checked: {unchecked})",
            call=call_label(call),
            errors=errors,
            unchecked=", ".join(sorted(report.unchecked)),
        )
    else:
        message = Msg(
            "the arguments of call {call} fail the tool's schema ({errors}), yet its result is "
            "not an error: validate arguments like user input and answer a failure with an error "
            "result",
            call=call_label(call),
            errors=errors,
        )
    yield finding("FC110", h.format, call.args_path, message)


RULES = (arguments_shape, answered_as_fine)
