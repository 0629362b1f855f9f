"""Checking one request body (or a bare messages array) of a known format.

The rules (rules/) read a lenient view of the document, so a broken history is reported, never
a crash. Beside them, fc's own reader for the format (the wire module's from_wire_request, or
the internal model) reads the document too: what it refuses becomes FC100, unless a rule has
already said it about the same place.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import TypeAdapter, ValidationError

from fccli.check.findings import Finding, finding
from fccli.check.history import History, read_history
from fccli.check.rules import ALL, CONTEXT_ONLY, PER_TURN, WINDOWED, RuleFunction
from fccli.core.errors import ConversionError, FcError, InputFileError, UsageError
from fccli.core.jsonio import json_path
from fccli.core.models import Message, Request
from fccli.core.request_files import validate_after
from fccli.i18n import Msg
from fccli.wire.registry import format_names, get_format, layout

MAX_READER_FINDINGS = 5


class Checked:
    """One request's check (a plain class: `fc run` imports this module, start-up)."""

    def __init__(
        self,
        findings: list[Finding],
        history: History,
        request: Request | None = None,
        by_rule: dict[RuleFunction, list[Finding]] | None = None,
        context: str | None = None,
        windows: dict[RuleFunction, tuple[list[tuple[int, Finding]], int]] | None = None,
    ) -> None:
        self.findings = findings
        self.history = history
        self.request = request
        """An internal request as its reader read it (None for another format, or when
        refused)."""
        self.by_rule: dict[RuleFunction, list[Finding]] = {} if by_rule is None else by_rule
        """Each rule's findings, for the next request of a trace to build on."""
        self.context = context
        """The request besides its messages, as text (see _context)."""
        self.windows: dict[RuleFunction, tuple[list[tuple[int, Finding]], int]] = (
            {} if windows is None else windows
        )
        """The WINDOWED rules' findings, each with its message, and their cuts."""


def check_request(request_doc: Any, fmt: str) -> list[Finding]:
    """Return the findings for a request body of format `fmt` (internal, deepseek, openai,
    anthropic), or for a bare messages array. Raises UsageError for an unknown format and
    ConversionError (exit 2) for a document that is not a request at all."""
    return inspect(request_doc, fmt).findings


def check_outgoing(request: Request, wire_body: dict[str, Any], fmt: str) -> list[Finding]:
    """Check a request before the engine sends it: the wire body as it will go, and the internal
    request it was made from. Only errors matter there: one is a bug in fc, and nothing is sent.

    FC110 (arguments failing the schema, answered as fine) is only a warning here: the engine
    validated each call with the tool's own pydantic model, the authority for fc's tools, which
    accepts what JSON Schema read strictly may not (the string "3" for an integer).
    """
    return OutgoingChecks()(request.to_json_dict(), wire_body, fmt)


class OutgoingChecks:
    """Check a run's requests as check_outgoing does, each against the one before it, whose
    messages it repeats as the same objects (only the new ones are read)."""

    def __init__(self) -> None:
        self._wire: Checked | None = None
        self._internal: Checked | None = None

    def __call__(
        self,
        internal: dict[str, Any],
        wire_body: dict[str, Any],
        fmt: str,
        translated: bool = False,
    ) -> list[Finding]:
        """Return the findings; `translated`: as inspect() has it, of the wire body."""
        self._wire = inspect(wire_body, fmt, after=self._wire, translated=translated)
        findings = [_demoted(f) for f in self._wire.findings]
        reported = {f.rule for f in findings}
        # The wire hides some internal mistakes (results split over two user messages are two
        # tool messages in chat, which is fine there); fc's own form must still be right.
        self._internal = inspect(internal, "internal", after=self._internal)
        findings += [
            f.in_file("internal") for f in self._internal.findings if f.rule not in reported
        ]
        return findings


def _demoted(f: Finding) -> Finding:
    if f.rule != "FC110":
        return f
    return f._replace(
        severity="warning",
        message=Msg(
            "{message} (fc's executor validated it with the tool's own model)", message=f.message
        ),
    )


def inspect(
    request_doc: Any, fmt: str, *, after: Checked | None = None, translated: bool = False
) -> Checked:
    """Return the findings for one request. `after`: the check of the request before it in a trace,
    whose messages this one repeats as the same objects (fccli/core/request_files.py); what was read of
    them is taken, not read again, and the rules that speak of one message at a time (PER_TURN)
    read only the new ones. The findings are the same either way.

    `translated`: the document is exactly what fc's translator writes for a valid internal
    request the format can send; the format contract (tests/wire/test_format_contract.py) holds
    every format's reader to read that back, so it is not read again here."""
    if fmt not in format_names():
        raise UsageError(
            Msg("unknown format {fmt!r}", fmt=fmt),
            hint=Msg("formats: {formats}", formats=", ".join(format_names())),
        )
    key = layout(fmt).history_field
    if isinstance(request_doc, list):
        doc, root = {key: request_doc}, "$"
    elif isinstance(request_doc, dict) and isinstance(request_doc.get(key), (list, str)):
        doc, root = request_doc, f"$.{key}"
    else:
        raise ConversionError(
            Msg(
                "not a request: expected an object with a `{key}` array, or a messages array",
                key=key,
            )
        )
    history = read_history(doc, fmt, root, after=after.history if after else None)
    context = _context(doc, fmt, root)
    repeats = _repeats(after, history, context)
    by_rule: dict[RuleFunction, list[Finding]] = {}
    windows: dict[RuleFunction, tuple[list[tuple[int, Finding]], int]] = {}
    for rule in ALL:
        if after is not None and repeats and rule in CONTEXT_ONLY:
            by_rule[rule] = after.by_rule[rule]
        elif after is not None and repeats and rule in PER_TURN:
            tail = history.with_turns(history.turns[repeats:])
            by_rule[rule] = [*after.by_rule[rule], *rule(tail)]
        elif rule in WINDOWED:
            kept: list[tuple[int, Finding]] = []
            cut = 0
            if after is not None and repeats:
                found, cut = after.windows[rule]
                kept = [(n, f) for n, f in found if n < cut]
            found, cut = WINDOWED[rule](history, cut)
            windows[rule] = ([*kept, *found], cut)
            by_rule[rule] = [f for _, f in windows[rule][0]]
        else:
            by_rule[rule] = list(rule(history))
    findings = [f for out in by_rule.values() for f in out]
    request = _internal_after(request_doc, fmt, after, history)
    refused: list[Finding] = []
    if request is None and not translated:
        refused, request = _reader(request_doc, fmt)
    whole = re.compile(rf"\$(\.{re.escape(layout(fmt).history_field)})?\[\d+\]")
    findings += [f for f in refused if not _already_reported(f, findings, whole)]
    return Checked(sorted(findings, key=_order), history, request, by_rule, context, windows)


def _context(doc: dict[str, Any], fmt: str, root: str) -> str | None:
    """Return what the rules read besides the messages (tools, tool_choice, thinking...), as exact
    text: two requests with the same give the same findings about the same messages."""
    try:
        rest = json.dumps({k: v for k, v in doc.items() if k != layout(fmt).history_field})
    except (TypeError, ValueError, RecursionError):
        return None
    return f"{fmt} {root} {rest}"


def _repeats(after: Checked | None, history: History, context: str | None) -> int:
    """Return how many leading turns of `history` are those `after` read (the same objects), in the
    same context; 0 when the request must be read whole."""
    if after is None or context is None or context != after.context:
        return 0
    repeated = len(after.history.turns)
    if not repeated or len(history.turns) < repeated:
        return 0
    return repeated if history.turns[repeated - 1] is after.history.turns[-1] else 0


def _internal_after(
    request_doc: Any, fmt: str, after: Checked | None, history: History
) -> Request | None:
    """Return an internal request whose messages lead with those of the request checked before it:
    only the new ones validated (None when anything is refused: _reader says what)."""
    if fmt != "internal" or after is None or after.request is None:
        return None
    reused = len(after.history.turns)
    if not reused or history.turns[0] is not after.history.turns[0]:
        return None  # not the same Turn object: the messages were read afresh
    try:
        return validate_after(request_doc, after.request, reused, "request")
    except InputFileError:
        return None


def _reader(request_doc: Any, fmt: str) -> tuple[list[Finding], Request | None]:
    """Return what fc's reader for the format refuses in the document; and an internal request as
    read."""
    bare = isinstance(request_doc, list)
    try:
        if fmt == "internal":
            if bare:
                TypeAdapter(list[Message]).validate_python(request_doc)
            else:
                return [], Request.model_validate(request_doc)
        else:
            # A bare messages array gets a stand-in model name: only the messages are read.
            wire = get_format(fmt)
            wire.from_wire_request(
                {"model": "-", wire.history_field: request_doc} if bare else request_doc
            )
    except ValidationError as e:
        return [
            _refused(fmt, err["msg"], json_path(tuple(err["loc"])))
            for err in e.errors()[:MAX_READER_FINDINGS]
        ], None
    except ConversionError as e:
        path = e.json_path or "$"
        root = f"$.{layout(fmt).history_field}"
        if bare and path.startswith(root):
            path = "$" + path[len(root) :]
        return [_refused(fmt, e.problem, path)], None
    except (FcError, ValueError, TypeError, KeyError, AttributeError, RecursionError) as e:
        # The translators are meant to raise ConversionError only; a document that trips one
        # is reported, not a crash of the linter.
        return [_refused(fmt, f"{type(e).__name__}: {e}", "$")], None
    return [], None


def _refused(fmt: str, problem: str, path: str) -> Finding:
    return finding(
        "FC100",
        fmt,
        path,
        Msg(
            "fc's {fmt} reader refuses this: {problem} (the other rules read around it)",
            fmt=fmt,
            problem=problem,
        ),
    )


def _already_reported(refused: Finding, findings: list[Finding], whole: re.Pattern[str]) -> bool:
    """Return whether a rule already speaks of this place (or of a part of it): FC100 would repeat
    it. `whole`: the path of a whole message."""
    for f in findings:
        if whole.fullmatch(f.path):
            continue  # a whole message: the refused part may be another problem in it
        if refused.path == f.path or refused.path.startswith((f.path + ".", f.path + "[")):
            return True
        if f.path.startswith((refused.path + ".", refused.path + "[")):
            return True
    return False


def _order(f: Finding) -> tuple[Any, ...]:
    """Findings in the order of the document: `$.messages[10]` after `$.messages[9]`."""
    parts = re.split(r"(\d+)", f.path)
    return (tuple(int(p) if p.isdigit() else p for p in parts), f.rule)
