"""Checking a trace directory: every request file in its own format, the two forms of each step
against each other, and every answer for one given without a call (FC119).

A step's wire request is what its internal request translates to, exactly (the engine writes
both from one Request). When they differ, one of them was edited by hand: FC120 points at the
first difference, and the wire file is what was (or will be) sent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from fccli.check.agreement import Agreed, Agreement, agree
from fccli.check.findings import Finding, finding
from fccli.check.lint import Checked, inspect
from fccli.check.rules.answers import made_up_message, may_answer_unasked
from fccli.check.rules.mcp import mcp_findings
from fccli.core.errors import ConversionError, FcError, InputFileError
from fccli.core.jsonio import read_bytes, read_json
from fccli.core.manifest import Manifest, read_manifest
from fccli.core.models import Response
from fccli.core.request_files import RequestFiles, quiet_collector
from fccli.i18n import Msg
from fccli.trace.mcp_log import read_mcp_logs
from fccli.trace.names import STEP_FILE
from fccli.wire.registry import INTERNAL, format_names, get_format, layout


@dataclass
class TraceCheck:
    files: list[str] = field(default_factory=list)
    """The files read, in step order."""
    findings: list[Finding] = field(default_factory=list)


@dataclass
class _Step:
    requests: dict[str, Path] = field(default_factory=dict)
    responses: dict[str, Path] = field(default_factory=dict)
    read: dict[str, tuple[Any, Checked]] = field(default_factory=dict)
    answer: tuple[Response, str, str] | tuple[()] | None = None
    """The answer as `_response` read it (`()`: none reads), once read."""
    failed: bool = False
    """The run stopped at this step: its wire response may be the provider's error page."""
    agreement: dict[str, Agreement] = field(default_factory=dict)
    """Per wire format: what the internal request translates to, and whether the file is it."""


@dataclass
class _Before:
    """What the step before left for the next to build on, per format."""

    request_files: dict[str, RequestFiles] = field(default_factory=dict)
    checked: dict[str, Checked] = field(default_factory=dict)
    agreed: dict[str, Agreed | None] = field(default_factory=dict)


def check_trace(path: str | Path) -> list[Finding]:
    """Return the findings for a trace directory, each naming its file. Raises InputFileError (exit
    2) for a directory that is not a trace or a request file that cannot be read."""
    return inspect_trace(path).findings


def inspect_trace(path: str | Path) -> TraceCheck:
    root = Path(path)
    if not root.is_dir():
        raise InputFileError(str(path), Msg("not a directory"))
    steps: dict[int, _Step] = {}
    for entry in sorted(root.iterdir()):
        m = STEP_FILE.fullmatch(entry.name)
        if m and m[4] == "json" and not entry.is_file() and entry.exists():
            read_bytes(entry)  # a pipe, a device, a directory: said (exit 2), never read
        if m and m[4] == "json" and entry.is_file():
            step = steps.setdefault(int(m[1]), _Step())
            files = step.requests if m[2] == "request" else step.responses
            files[m[3] or INTERNAL] = entry
    logs = read_mcp_logs(root)
    if not steps and logs:  # fc mcp record: the servers' traffic alone
        return TraceCheck([log.file for log in logs], mcp_findings(root, logs))
    if not any(step.requests for step in steps.values()):
        raise InputFileError(
            str(path), Msg("no request files (1-request.json, ...): not an fc trace")
        )
    out = TraceCheck()
    manifest = _manifest(root)
    if manifest.error is not None and manifest.error.step in steps:
        steps[manifest.error.step].failed = True
    bugs = manifest.harness_bugs()
    # Each request is read against the one before in its format (fccli/core/request_files.py): the
    # messages it repeats are neither parsed nor read again. Only the step before is kept.
    kept = _Before()
    # A trace fc proxy recorded is read the other way: its wire requests are the agent's.
    recorded = manifest.recorded_by is not None
    agreement = _read_agreement if recorded else _agreement
    breaks: list[Finding] = []
    with quiet_collector():
        previous: _Step | None = None
        for number in sorted(steps):
            step = steps[number]
            for fmt, file in sorted(step.requests.items(), key=lambda kv: kv[0] != INTERNAL):
                out.files.append(file.name)
                out.findings += _request(step, fmt, file, kept)
            out.findings += agreement(step, bugs.get(number))
            out.findings += _answer(step, out.files)
            if previous is not None:
                breaks += _cache_break(previous, step)
                previous.read.clear()
            previous = step
    out.findings += breaks
    if steps:
        out.findings += _unread_stop(manifest, steps[max(steps)])
    out.findings += _carried_on(steps)
    out.findings += _success_invented(manifest, steps)
    if logs:
        out.files += [log.file for log in logs]
        out.findings += mcp_findings(root, logs)
    out.findings = _once(out.findings)
    return out


ONCE_PER_TRACE = frozenset({"FC117", "FC118", "FC132", "FC134"})
"""Rules about what every request of a run repeats (JSON mode, the tools offered): said for the
first file that has it, not again for each step and format."""


def _once(findings: list[Finding]) -> list[Finding]:
    seen: set[tuple[str, str]] = set()
    kept = []
    for f in findings:
        if f.rule in ONCE_PER_TRACE:
            key = (f.rule, str(f.message))
            if key in seen:
                continue
            seen.add(key)
        kept.append(f)
    return kept


def _success_invented(manifest: Manifest, steps: dict[int, _Step]) -> list[Finding]:
    """FC133: a call the manifest records as failed, handed back in the next request as a
    success: the model is told it worked (the course's third text: never invent a success)."""
    out = []
    for record in manifest.steps:
        failed = {r.id: r for r in record.tool_runs if r.is_error and r.id}
        after = steps.get(record.step + 1)
        file = after.requests.get(INTERNAL) if after is not None else None
        if not failed or file is None:
            continue
        try:
            doc = read_json(file)
        except FcError:
            continue  # said by the request's own reading
        messages = doc.get("messages") if isinstance(doc, dict) else None
        for i, message in enumerate(messages if isinstance(messages, list) else []):
            content = message.get("content") if isinstance(message, dict) else None
            for k, block in enumerate(content if isinstance(content, list) else []):
                if not isinstance(block, dict) or block.get("type") != "tool_result":
                    continue
                call_id = block.get("tool_use_id")
                run = failed.get(call_id) if isinstance(call_id, str) else None
                if run is None or block.get("is_error") is True:
                    continue
                out.append(
                    Finding(
                        "FC133",
                        "error",
                        Msg(
                            "{id} failed ({error}), but the result handed back for it is no "
                            "error: the model is told the tool worked and will say so. Hand "
                            "the error back as it is, marked is_error",
                            id=run.id,
                            error=(run.error or "").split(". ")[0],
                        ),
                        f"$.messages[{i}].content[{k}]",
                    ).in_file(file.name)
                )
    return out


def _unread_stop(manifest: Manifest, last: _Step) -> list[Finding]:
    """FC130: the run says it finished well, yet its last answer asked for tools: the harness
    took a tool request for the answer (the course's opening story), and no call ever ran."""
    read = _response(last)
    if read is None or read[0].stop_reason != "tool_use" or not read[0].tool_uses():
        return []
    if manifest.status != "ok":
        return []  # stopped by --max-steps, or by an error: said in the manifest
    response, fmt, name = read
    ids = ", ".join(c.id for c in response.tool_uses())
    where = layout(fmt).places.stop
    return [
        Finding(
            "FC130",
            "error",
            Msg(
                "the run ended as done on this answer, but its stop reason is tool_use: the calls "
                "{ids} were never executed and their results never handed back. The harness must "
                "read the stop reason first; an answer shown from here is made of nothing looked up",
                ids=ids,
            ),
            where,
        ).in_file(name)
    ]


def _carried_on(steps: dict[int, _Step]) -> list[Finding]:
    """FC130 too: a step whose answer asked for tools, followed by a request that answers none
    of its calls and no longer holds them: the harness took the request for a reply and asked
    again, so whatever the model said next was looked up nowhere."""
    out = []
    for number, step in sorted(steps.items()):
        after = steps.get(number + 1)
        read = _response(step)
        file = after.requests.get(INTERNAL) if after is not None else None
        if read is None or file is None or read[0].stop_reason != "tool_use":
            continue
        ids = [c.id for c in read[0].tool_uses()]
        try:
            text = read_bytes(file).decode("utf-8", "replace")
        except FcError:
            continue
        if not ids or any(i in text for i in ids):
            continue  # the calls are in the history (answered or not: other rules say which)
        _, fmt, name = read
        out.append(
            Finding(
                "FC130",
                "error",
                Msg(
                    "this answer's stop reason is tool_use, but the next request holds neither "
                    "its calls {ids} nor their results: the harness took the request for a reply "
                    "and asked again. No tool ran; what the model says next is made of nothing "
                    "looked up",
                    ids=", ".join(ids),
                ),
                layout(fmt).places.stop,
            ).in_file(name)
        )
    return out


def _cache_break(before: _Step, after: _Step) -> list[Finding]:
    """FC122: where a step's wire request stops repeating the one before it.

    A provider's prompt cache matches a prompt from its start: the step-2 request repeats
    step 1's tools and messages unchanged, so they come from the cache, billed far lower. A
    message edited by hand in between breaks the match there, and everything after it is
    read again at full price.
    """
    out = []
    for fmt, (doc, _) in after.read.items():
        if fmt == INTERNAL or fmt not in before.read:
            continue
        where = _first_change(before.read[fmt][0], doc, fmt)
        if where is None:
            continue
        earlier = before.requests[fmt].name
        out.append(
            finding(
                "FC122",
                fmt,
                where,
                Msg(
                    "{earlier} sent something else here; a prompt cache matches the history "
                    "from its start, so it breaks at this point: from here on the input is read "
                    "again at full price (the usage's cache counts show it)",
                    earlier=earlier,
                ),
            ).in_file(after.requests[fmt].name)
        )
    return out


def _first_change(earlier: Any, later: Any, fmt: str) -> str | None:
    """Return the first place where `later` does not repeat `earlier`: the parts a prompt of format
    `fmt` begins with (system, tools), then each earlier message; new messages at the end are
    no change."""
    if not isinstance(earlier, dict) or not isinstance(later, dict):
        return None
    for place in layout(fmt).places.prompt:
        key = place.removeprefix("$.")
        if earlier.get(key) != later.get(key):
            return place
    history = layout(fmt).history_field
    old, new = earlier.get(history), later.get(history)
    if not isinstance(old, list) or not isinstance(new, list):
        return None
    if old == new[: len(old)]:
        return None  # what it repeats are mostly the same objects: compared in C at once
    for i, message in enumerate(old):
        if i >= len(new):
            return f"$.{history}[{len(new)}]"
        if message != new[i]:
            return first_difference(message, new[i], f"$.{history}[{i}]")
    return None


def _request(step: _Step, fmt: str, file: Path, before: _Before) -> list[Finding]:
    if fmt not in format_names():
        return [
            finding(
                "FC100",
                fmt,
                "$",
                Msg("fc cannot check the {fmt} format yet; this file was skipped", fmt=fmt),
            ).in_file(file.name)
        ]
    doc = (
        before.request_files.setdefault(fmt, RequestFiles()).read(read_bytes(file), str(file)).data
    )
    translated = False
    internal = step.read.get(INTERNAL)
    request = internal[1].request if internal is not None and fmt != INTERNAL else None
    if request is not None:
        wire = get_format(fmt)
        agreement = agree(wire, request, doc, before.agreed.get(fmt))
        step.agreement[fmt] = agreement
        before.agreed[fmt] = agreement.agreed
        # What fc's translator writes for a request the format can send, its reader reads back
        # (the format contract): the file need not be read by it again.
        translated = agreement.same and wire.request_problem(request) is None
    try:
        checked = inspect(doc, fmt, after=before.checked.get(fmt), translated=translated)
    except ConversionError as e:
        raise InputFileError(str(file), e.problem, json_path=e.json_path) from None
    step.read[fmt] = (doc, checked)
    before.checked[fmt] = checked
    return [f.in_file(file.name) for f in checked.findings]


def _read_agreement(step: _Step, bug: str | None = None) -> list[Finding]:
    """Check a recorded step: the internal request must be what the wire request reads as (the
    agent's own spelling, `"content": ""` for `null`, is no difference)."""
    if INTERNAL not in step.read:
        return []
    internal = step.read[INTERNAL][0]
    out = []
    for fmt, (doc, _) in step.read.items():
        if fmt == INTERNAL:
            continue
        try:
            read = get_format(fmt).from_wire_request(doc).to_json_dict()
        except FcError:
            continue  # FC100 has said what is wrong with it
        where = first_difference(read, internal)
        if where is not None:
            name = step.requests[fmt].name
            out.append(
                finding(
                    "FC120",
                    INTERNAL,
                    where,
                    Msg(
                        "this is not what {name} reads as (first difference here): one of the two "
                        "was edited; {name} is what the agent sent",
                        name=name,
                    ),
                ).in_file(step.requests[INTERNAL].name)
            )
    return out


def _agreement(step: _Step, bug: str | None = None) -> list[Finding]:
    if INTERNAL not in step.read:
        return []
    request = step.read[INTERNAL][1].request
    if request is None:
        return []  # FC100 has said what is wrong with it
    out = []
    for fmt, (doc, _) in step.read.items():
        if fmt == INTERNAL:
            continue
        name = step.requests[fmt].name
        agreement = step.agreement.get(fmt) or agree(get_format(fmt), request, doc, None)
        expected = agreement.expected
        if isinstance(expected, ConversionError):
            e = expected
            out.append(
                finding(
                    "FC120",
                    fmt,
                    e.json_path or "$",
                    Msg(
                        "the internal request of this step cannot be written in {fmt} "
                        "({problem}), yet this file says it was",
                        fmt=fmt,
                        problem=e.problem,
                    ),
                ).in_file(name)
            )
            continue
        where = None if agreement.same else first_difference(expected, doc)
        if where is not None:
            why = (
                Msg("--harness-bug {bug} wrote it so on purpose (the manifest says so)", bug=bug)
                if bug
                else Msg("one of the two was edited")
            )
            out.append(
                finding(
                    "FC120",
                    fmt,
                    where,
                    Msg(
                        "this is not what {name} translates to (first difference here): {why}; "
                        "this file is what is sent",
                        name=step.requests[INTERNAL].name,
                        why=why,
                    ),
                ).in_file(name)
            )
    return out


def first_difference(a: Any, b: Any, path: str = "$") -> str | None:
    """Return the JSON path of the first place where two JSON values differ, or None."""
    if type(a) is not type(b):
        return path
    if isinstance(a, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            if key not in a or key not in b:
                return f"{path}.{key}"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found is not None:
                return found
        return None if len(a) == len(b) else f"{path}[{min(len(a), len(b))}]"
    return None if a == b else path


def _answer(step: _Step, files: list[str]) -> list[Finding]:
    """FC119 on the step's response: an answer with no call, no call before it either."""
    history = step.read.get(INTERNAL) or next(iter(step.read.values()), None)
    read = _response(step)
    if read is None or history is None:
        return []
    response, fmt, name = read
    files.append(name)
    h = history[1].history
    if response.stop_reason != "end_turn" or response.tool_uses() or h.calls():
        return []
    if not may_answer_unasked(h):
        return []
    where = layout(fmt).places.answer
    return [finding("FC119", h.format, where, made_up_message(h)).in_file(name)]


def _response(step: _Step) -> tuple[Response, str, str] | None:
    """Return the step's answer, its format and file: from the internal file, else the wire one;
    None when neither reads (a failed step keeps the provider's error body, or raw bytes, there).

    Every response file of a step that did not fail is read once: one that is no JSON (too
    deep, binary) is said, exit 2, never skipped. The answer is kept on the step."""
    if step.answer is not None:
        return step.answer or None
    found: tuple[Response, str, str] | None = None
    # fc writes the internal answer only once it read the wire one: without it (or when the
    # run stopped here), the wire file may be the provider's error page
    failed = step.failed or INTERNAL not in step.responses
    for fmt, file in sorted(step.responses.items(), key=lambda kv: kv[0] != INTERNAL):
        if found is not None and failed:
            break
        try:
            doc = read_json(file)
        except InputFileError:
            if fmt == INTERNAL or not failed:
                raise  # fc writes no such file: said (exit 2), not skipped
            continue  # the provider's error page, kept as it came
        if found is not None:
            continue
        try:
            if fmt == INTERNAL:
                found = Response.model_validate(doc), fmt, file.name
            elif fmt in format_names():
                found = get_format(fmt).from_wire_response(doc), fmt, file.name
        except (FcError, ValidationError):
            continue
    step.answer = found or ()
    return found


def _manifest(root: Path) -> Manifest:
    """Return the trace's manifest, typed; empty when it cannot be read."""
    try:
        return read_manifest(read_json(root / "manifest.json"))
    except FcError:
        return Manifest()
