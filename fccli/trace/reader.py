"""Reading what fc wrote: a trace directory (manifest + each step's files) or a single JSON file.

A trace that failed part-way is read as far as it goes: a missing or unreadable step file is
noted on its step, never a reason to refuse the rest. The manifest is required (without it a
directory is not a trace). Wire files are read as stored: a real provider's body may be compact
JSON on one line, or not JSON at all (an error page); readers pretty-print them themselves.

A single file's format is detected from its content (fccli.wire.detect), not its name, and it is
read into the internal format through the wire format's translator. Every failure is an
InputFileError (exit 2) naming the file and, where there is one, the JSON path.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fccli.core.errors import ConversionError, FcError, InputFileError, UsageError
from fccli.core.jsonio import (
    READ_LIMIT,
    check_depth,
    dumps,
    parse_json,
    read_bytes,
    read_head,
    read_json,
    too_deep,
    validate,
)
from fccli.core.manifest import Manifest, read_manifest
from fccli.core.models import Message, Request, Response, ToolResultBlock, ToolSpec
from fccli.core.request_files import RequestFiles, quiet_collector, validate_request
from fccli.i18n import Msg, _
from fccli.trace.last import recalled
from fccli.trace.mcp_log import Exchange, McpLog, exchanges, read_mcp_logs
from fccli.trace.names import MANIFEST, STEP_FILE, TRACES_ROOT, step_file
from fccli.wire.registry import FORMATS, format_names, get_format

if TYPE_CHECKING:
    from fccli.wire.detect import Detected


# ---------------------------------------------------------------------------------------------
# a single file


class Document:
    """One JSON file, its detected format, and its content in the internal format.

    This module's records are plain classes, not dataclasses: start-up (docs/performance.md)."""

    def __init__(
        self,
        name: str,
        data: Any,
        format: str,
        kind: str,
        reason: str,
        internal: Request | Response | list[Message] | None = None,
        system: str | None = None,
    ) -> None:
        self.name = name
        """The path as given (`<stdin>` for `-`)."""
        self.data = data
        """The JSON as read."""
        self.format = format
        """`internal` or a wire format's name (fccli/wire/registry.py)."""
        self.kind = kind
        """request, response or messages."""
        self.reason = reason
        """What gave the format away (or `forced with --from`)."""
        self.internal = internal
        """The content read into the internal format (see `read_document(..., internal=True)`)."""
        self.system = system
        """A messages array's system prompt, when a chat array carried one as a message."""

    def internal_json(self) -> Any:
        if isinstance(self.internal, list):
            return [m.to_json_dict() for m in self.internal]
        return None if self.internal is None else self.internal.to_json_dict()

    def what(self) -> str:
        """Name what the file holds: `request`, `response` or `messages array` (a value, as
        `kind` is; a person reads `fccli.render.transcript.kind_text`)."""
        return "messages array" if self.kind == "messages" else self.kind

    def pretty(self) -> str:
        """Show the file as stored: JSON pretty-printed, a stream as its format lays it out."""
        if isinstance(self.data, StreamAnswer):
            return self.data.stored
        return dumps(self.data).rstrip("\n")

    def to_json(self, *, wire: bool = False) -> dict[str, Any]:
        """Describe the file for `fc show FILE --json`: what it is, and its content in the
        internal format (`--wire`: as stored)."""
        out = {"file": self.name, "format": self.format, "kind": self.kind, "reason": self.reason}
        if wire and isinstance(self.data, StreamAnswer):
            return {**out, "text": self.data.stored}
        if wire:
            return {**out, "json": self.data}
        if self.system is not None:
            out["system"] = self.system
        return {**out, "internal": self.internal_json()}


def read_source(name: str) -> tuple[Any, str]:
    """Read the JSON of a file, or of stdin for `-`; return it and the name to show for it."""
    if name == "-":
        data = sys.stdin.buffer.read(READ_LIMIT + 1)
        if len(data) > READ_LIMIT:
            raise InputFileError(
                "<stdin>",
                Msg("holds more than the {limit} bytes fc reads", limit=format(READ_LIMIT, ",")),
            )
        return _parse(data, "<stdin>"), "<stdin>"
    path = Path(name)
    if path.is_dir():
        raise InputFileError(name, Msg("is a directory; give a JSON file (fc show reads traces)"))
    if path.is_file():
        return _parse(read_bytes(path), name), name
    return read_json(path), name  # the missing-file error, worded as everywhere else


SHOWN_BYTES = 1 << 20
"""A stored file past this is shown folded (fc show --wire, the HTML page): its beginning as
text, and how much more there is."""


def _shown(path: Path) -> str | None:
    """Return a stored file past SHOWN_BYTES folded, its beginning as text; None for one
    shown whole."""
    head, size = read_head(path, SHOWN_BYTES + 1)
    if size <= SHOWN_BYTES:
        return None
    more = Msg(
        "… {more} more bytes not shown (the file is {size} bytes): {path}",
        more=format(size - SHOWN_BYTES, ","),
        size=format(size, ","),
        path=str(path),
    )
    return head[:SHOWN_BYTES].decode("utf-8", errors="replace") + "\n" + more


class StreamAnswer(dict):  # type: ignore[type-arg]
    """A raw stream file folded into the answer it streamed (the JSON a non-streamed call
    returns), with the stream as its format lays it out for reading (`fc show FILE --wire`)."""

    format: str = ""
    stored: str = ""


def _parse(data: bytes, source: str) -> Any:
    try:
        return parse_json(data, source)
    except InputFileError:
        fmt = _stream_format(data, source)
        if fmt is not None:
            return _folded(data, source, fmt)
        if _looks_like_sse(data):
            raise InputFileError(
                source,
                Msg(
                    "is a server-sent event stream, not a JSON document; "
                    "read the assembled N-response.<format>.json beside it"
                ),
            ) from None
        raise


def _stream_format(data: bytes, source: str) -> str | None:
    """Name the format of a raw stream file: its name's (`2-response.deepseek.sse`), else the
    one whose own framing it is (Bedrock's binary event stream); None for any other file."""
    m = STEP_FILE.fullmatch(Path(source).name)
    if m and m[2] == "response" and m[4] == "sse" and m[3] in FORMATS:
        return str(m[3])
    return next((name for name, f in FORMATS.items() if f.is_own_stream(data)), None)


def _folded(data: bytes, source: str, fmt: str) -> StreamAnswer:
    """Fold a raw stream file into its answer through the format's stream folder; exit 2,
    naming the command that shows the stream as it came, when it does not fold."""
    wire = FORMATS[fmt]
    try:
        folder = wire.stream_folder()
        folder.feed(data)
        answer = StreamAnswer(folder.finish())
    except FcError as e:
        path = Path(source)
        m = STEP_FILE.fullmatch(path.name)
        trace, step = (
            (str(path.parent), m[1]) if m and (path.parent / MANIFEST).is_file() else ("TRACE", "N")
        )
        error = InputFileError(
            source,
            Msg(
                "a {format} stream that does not fold into an answer ({problem})",
                format=fmt,
                problem=_message_of(e),
            ),
        )
        raise error.at(
            hint=Msg(
                "fc show {trace} --wire --step {step} shows it as it came", trace=trace, step=step
            )
        ) from None
    answer.format = fmt
    answer.stored = wire.stream_text(data) or data.decode("utf-8", errors="replace")
    return answer


def _looks_like_sse(data: bytes) -> bool:
    head = data.lstrip()[:200]
    return head.startswith((b"data:", b"event:", b": ")) or b"\ndata:" in head


def read_document(name: str, *, forced: str | None = None, internal: bool = True) -> Document:
    """Read NAME (`-` for stdin), detect its format, and read it into the internal format."""
    data, shown = read_source(name)
    return document_from(data, shown, forced=forced, internal=internal)


def document_from(
    data: Any, name: str, *, forced: str | None = None, internal: bool = True
) -> Document:
    """Detect the format of `data` read from `name` (or take `forced`), and read it in."""
    from fccli.wire.detect import TraceManifest, Unrecognised, detect  # a trace needs none

    try:
        detected: Detected = detect(data, name_hint=name)
    except TraceManifest as e:
        trace = "DIR" if name == "<stdin>" else str(Path(name).parent)
        raise InputFileError(
            name, Msg("{problem} (or `fc show {trace}`)", problem=_message_of(e), trace=trace)
        ) from None
    except Unrecognised as e:
        raise InputFileError(
            name, Msg("not a request or response fc can read: {problem}", problem=_message_of(e))
        ) from None
    fmt, reason = detected.format, detected.reason
    if forced is not None:
        if forced not in format_names():
            raise UsageError(
                Msg("unknown format {format}", format=repr(forced)),
                hint=Msg("known formats: {formats}", formats=", ".join(format_names())),
            )
        fmt, reason = (
            forced,
            Msg("forced with --from (the content looks {format})", format=detected.format),
        )
    doc = Document(name, data, fmt, detected.kind, reason)
    if isinstance(data, StreamAnswer):
        doc.reason = Msg(
            "a {format} stream, folded into its answer as fc run does: {reason}",
            format=data.format,
            reason=reason,
        )
    if internal:
        to_internal(doc)
        _check_arguments_depth(doc)
    return doc


def _check_arguments_depth(doc: Document) -> None:
    """Refuse arguments nested too deep, as a deep file is (exit 2).

    Arguments arrive as a JSON string in chat; read, they are nested as deep as the string
    said, past what the file's own nesting showed."""
    internal = doc.internal
    if isinstance(internal, Response):
        messages = [internal.as_message()]
    elif isinstance(internal, Request):
        messages = internal.messages
    else:
        messages = internal or []
    for message in messages:
        for call in message.tool_uses():
            try:
                check_depth(call.input, doc.name)
            except InputFileError:
                raise InputFileError(
                    doc.name,
                    Msg("the arguments of call {id}: {problem}", id=call.id, problem=too_deep()),
                ) from None


def to_internal(doc: Document) -> None:
    """Fill `doc.internal` (and `doc.system` for a chat messages array)."""
    try:
        if doc.format == "internal":
            doc.internal = _internal_from_json(doc.data, doc.kind, doc.name)
            return
        fmt = get_format(doc.format)
        if doc.kind == "response":
            doc.internal = fmt.from_wire_response(doc.data)
        elif doc.kind == "request":
            doc.internal = fmt.from_wire_request(doc.data)
        else:
            request = fmt.from_wire_request({"model": "", "messages": doc.data})
            doc.internal, doc.system = request.messages, request.system
    except ConversionError as e:
        raise InputFileError(
            doc.name,
            _cannot_be_read_as(doc.format, doc.kind, e.problem),
            json_path=_unwrapped(e.json_path, doc.kind),
        ) from None
    except InputFileError as e:
        if doc.kind != "messages":
            raise
        raise InputFileError(
            e.path, e.problem, json_path=_unwrapped(e.json_path, doc.kind)
        ) from None


def _cannot_be_read_as(fmt: str, kind: str, problem: str) -> Msg:
    if kind == "request":
        return Msg("cannot be read as {format} request: {problem}", format=fmt, problem=problem)
    if kind == "response":
        return Msg("cannot be read as {format} response: {problem}", format=fmt, problem=problem)
    return Msg("cannot be read as {format} messages array: {problem}", format=fmt, problem=problem)


def _message_of(error: Exception) -> str:
    """Return an exception's message, a Msg kept a Msg (`str(e)` would make it English only)."""
    message = error.args[0] if len(error.args) == 1 else None
    return message if isinstance(message, Msg) else str(error)


def _unwrapped(json_path: str | None, kind: str) -> str | None:
    """Give a JSON path of a messages array read as a request's messages as the array's own."""
    if json_path is None or kind != "messages" or not json_path.startswith("$.messages"):
        return json_path
    return "$" + json_path[len("$.messages") :]


def _internal_from_json(data: Any, kind: str, name: str) -> Request | Response | list[Message]:
    if kind == "response":
        return validate(Response, data, name)
    if kind == "request":
        return validate(Request, data, name)
    wrapped = validate(Request, {"model": "", "messages": data}, name)
    return wrapped.messages


def pretty(data: bytes) -> str:
    """Show a stored file as a person reads it: JSON pretty-printed, anything else as text."""
    try:
        return dumps(parse_json(data, "file")).rstrip("\n")
    except FcError:
        return data.decode("utf-8", errors="replace").rstrip("\n")


# ---------------------------------------------------------------------------------------------
# a trace directory


class Step:
    """One step of a trace, as read (a plain class: see Document)."""

    def __init__(self, number: int, record: dict[str, Any] | None = None) -> None:
        self.number = number
        self.record = record
        """The manifest's record of the step (stop reason, duration, usage, tool runs,
        attempts); None for a step that failed before its answer was read."""
        self.files: dict[str, Path] = {}
        """The step's files by role: request, wire_request, wire_response, wire_stream,
        response."""
        self.request: Request | None = None
        self.response: Response | None = None
        self.wire_messages: int | None = None
        """How many messages the wire request holds (chat: one per tool result)."""
        self.notes: list[str] = []
        """What could not be read, or was read another way (from the wire file): Msgs, English
        in `--json`, said in the chosen language by `fc show`."""
        self.unread: list[str] = []
        """The notes of files that could not be read at all (not JSON, too deep, a pipe...)."""
        self.error_body: str | None = None
        """The provider's own sentence, when the step's wire response is the provider's error
        body (a failed request keeps it there); "" for an error body that says nothing."""

    def tool_runs(self) -> list[dict[str, Any]]:
        runs = (self.record or {}).get("tool_runs")
        return [r for r in runs if isinstance(r, dict)] if isinstance(runs, list) else []


class Trace:
    """A trace directory, as read (a plain class: see Document)."""

    def __init__(
        self, path: Path, manifest: dict[str, Any], wire_format: str | None, steps: list[Step]
    ) -> None:
        self.path = path
        self.manifest = manifest
        """The manifest's JSON as read (`record` is the typed manifest readers read)."""
        self.wire_format = wire_format
        self.steps = steps
        self._record: Manifest | None = None
        self._mcp: list[McpLog] | None = None

    @property
    def record(self) -> Manifest:
        """The manifest, typed (fccli/core/manifest.py), read leniently once."""
        if self._record is None:
            self._record = read_manifest(self.manifest)
        return self._record

    def step(self, number: int) -> Step:
        """Return step `number`; a usage error naming the steps there are if it has none."""
        for s in self.steps:
            if s.number == number:
                return s
        if self.steps:
            hint = Msg("its steps: {steps}", steps=", ".join(str(s.number) for s in self.steps))
        else:
            hint = Msg("its steps: none")
        raise UsageError(
            Msg("{path} has no step {step}", path=str(self.path), step=number), hint=hint
        )

    def results(self) -> dict[str, ToolResultBlock]:
        """Collect every tool result handed back in any request, by the id it answers."""
        # The latest request's block for an id wins. Read from the last step back, the first
        # found wins, and a message already read (each request repeats the one before's, the
        # same objects) is skipped: its ids are all taken.
        out: dict[str, ToolResultBlock] = {}
        seen: set[int] = set()
        for s in reversed(self.steps):
            for message in reversed(s.request.messages) if s.request else []:
                if id(message) in seen:
                    continue
                seen.add(id(message))
                for block in reversed(message.tool_results()):
                    out.setdefault(block.tool_use_id, block)
        return out

    def runs(self) -> dict[str, dict[str, Any]]:
        """Collect the manifest's tool runs (duration, error kind), by call id."""
        return {
            r["id"]: r for s in self.steps for r in s.tool_runs() if isinstance(r.get("id"), str)
        }

    def mcp_logs(self) -> list[McpLog]:
        """The MCP servers' traffic (`mcp-<server>.jsonl`), read once."""
        if self._mcp is None:
            self._mcp = read_mcp_logs(self.path)
        return self._mcp

    def mcp_exchanges(self) -> dict[str, Exchange]:
        """Each call an MCP server ran: its tools/call and answer, by the model's call id."""
        return exchanges(self.mcp_logs())

    def tools(self, number: int) -> list[ToolSpec]:
        """Return the tools offered at step `number`, as its request says."""
        request = self.step(number).request
        return request.tools if request else []


def resolve_trace(target: str | None, root: Path = TRACES_ROOT) -> Path:
    """Return TARGET as given, else the trace fc wrote last from here (wherever --out put it)
    or the newest under ./traces, whichever began later."""
    if target is not None:
        return Path(target)
    last = recalled()
    newest = traces_in(root)[:1] if root.is_dir() else []
    if last is not None:
        return max([last, *newest], key=_started)
    if not root.is_dir():
        raise UsageError(
            Msg("no trace given and no {root}/ directory here", root=str(root)),
            hint=Msg("give a trace directory or a JSON file: fc show traces/<name>"),
        )
    if not newest:
        raise UsageError(
            Msg("no trace under {root}/", root=str(root)),
            hint=Msg("run fc run QUESTION first, or give a trace directory"),
        )
    return newest[0]


def traces_in(folder: Path) -> list[Path]:
    """List the traces in a folder that is not itself a trace, newest first: those fc run
    wrote (traces/<time>-<slug>) and one level down (traces/examples/<name>)."""
    found = [
        m.parent for pattern in ("*/" + MANIFEST, "*/*/" + MANIFEST) for m in folder.glob(pattern)
    ]
    return sorted(found, key=_started, reverse=True)


def trace_summary(path: Path) -> dict[str, Any]:
    """Sum up a trace in one line's worth for a listing, from its manifest alone."""
    try:
        manifest = read_json(path / MANIFEST)
    except FcError:
        manifest = None
    m = manifest if isinstance(manifest, dict) else {}
    steps = m.get("steps")
    return {
        "trace": str(path),
        "status": m.get("status") if isinstance(m.get("status"), str) else "?",
        "steps": len(steps) if isinstance(steps, list) else None,
        "provider": m.get("provider") if isinstance(m.get("provider"), str) else None,
        "question": m.get("question") if isinstance(m.get("question"), str) else None,
        "started_at": m.get("started_at") if isinstance(m.get("started_at"), str) else None,
        "cost_usd": _recorded_cost(m.get("cost")),
    }


def _recorded_cost(cost: Any) -> float | None:
    """Return the trace's cost in US dollars as its manifest records it, or None."""
    usd = cost.get("usd") if isinstance(cost, dict) else None
    if not isinstance(usd, int | float) or isinstance(usd, bool):
        return None
    return float(usd) if 0 <= usd < float("inf") else None  # NaN fails both


def _started(path: Path) -> tuple[str, float, str]:
    # The manifest's start time orders traces (names may be anything with --out); its mtime
    # breaks ties and stands in when the manifest cannot be read.
    manifest = path / MANIFEST
    try:
        started = read_json(manifest).get("started_at")
    except (FcError, AttributeError):
        started = None
    return (started if isinstance(started, str) else "", manifest.stat().st_mtime, path.name)


def read_trace(path: Path) -> Trace:
    """Read a trace directory as far as it goes: a step file that cannot be read is a note."""
    if not path.exists():
        raise InputFileError(str(path), Msg("no such file or directory"))
    if not path.is_dir():
        raise InputFileError(str(path), Msg("is not a trace directory"))
    if not (path / MANIFEST).is_file():
        raise InputFileError(
            str(path), Msg("is not an fc trace: it has no {manifest}", manifest=MANIFEST)
        )
    root = path.resolve()
    if not _inside(root, path / MANIFEST):
        raise InputFileError(str(path / MANIFEST), Msg("links outside the trace: not read"))
    manifest = read_json(path / MANIFEST)
    if not isinstance(manifest, dict) or not isinstance(manifest.get("steps", []), list):
        raise InputFileError(
            str(path / MANIFEST), Msg("not an fc trace manifest (expected an object with steps)")
        )
    files, odd = _step_files(path)
    wire_format = manifest.get("wire_format")
    if not isinstance(wire_format, str):
        suffixes = sorted({fmt for _, _, fmt, _ in files if fmt})
        wire_format = suffixes[0] if suffixes else None
    records = {
        r["step"]: r
        for r in manifest.get("steps", [])
        if isinstance(r, dict) and isinstance(r.get("step"), int)
    }
    numbers = sorted(set(records) | {n for n, _, _, _ in files} | {n for n, _ in odd})
    steps = [Step(n, records.get(n)) for n in numbers]
    by_number = {s.number: s for s in steps}
    for n, name in odd:
        _unread(
            by_number[n],
            Msg(
                "{file} is not a regular file (a pipe, a device or a socket): not read",
                file=str(path / name),
            ),
        )
    for n, role, fmt, ext in files:
        step = by_number[n]
        name = step_file(n, role, fmt, ext)
        if not _inside(root, path / name):
            _unread(step, Msg("{file} links outside the trace: not read", file=name))
        elif fmt is None:
            step.files[role] = path / name
        elif fmt == wire_format or wire_format is None:
            step.files[("wire_stream" if ext == "sse" else f"wire_{role}")] = path / name
        else:
            step.notes.append(
                Msg(
                    "{file} is not in the trace's wire format ({format})",
                    file=name,
                    format=wire_format,
                )
            )
    error = manifest.get("error")
    error = error if isinstance(error, dict) else {}
    series = {"request": RequestFiles(), "wire_request": RequestFiles()}
    with quiet_collector():
        for step in steps:
            status = error.get("http_status") if error.get("step") == step.number else None
            _read_step(step, wire_format, status if isinstance(status, int) else None, series)
    return Trace(path, manifest, wire_format, steps)


def _inside(root: Path, file: Path) -> bool:
    """Tell whether `file`, its links followed, is inside the trace directory `root`: a trace
    shared with a link to a file elsewhere would show that file (and put it in an HTML page)."""
    return not file.is_symlink() or file.resolve().is_relative_to(root)


def _step_files(
    path: Path,
) -> tuple[list[tuple[int, str, str | None, str]], list[tuple[int, str]]]:
    """List the step files (number, role, format, extension), and apart the step-named
    entries that are no regular file (a pipe, a device, a directory: never read)."""
    out, odd = [], []
    for entry in path.iterdir():
        m = STEP_FILE.fullmatch(entry.name)
        if not m:
            continue
        number, role, fmt, ext = m.groups()
        if fmt is None and ext == "sse":
            continue
        if entry.is_file():
            out.append((int(number), role, fmt, ext))
        elif not entry.is_symlink() or entry.exists():  # a dangling link is a missing file
            odd.append((int(number), entry.name))
    return sorted(out, key=lambda f: (f[0], f[1], f[2] or "", f[3])), sorted(odd)


def _unread(step: Step, note: str) -> None:
    """Note a step file that could not be read at all."""
    step.notes.append(note)
    step.unread.append(note)


def _history_field(wire_format: str | None) -> str:
    """Name the wire request's key holding the history (`messages`; Responses: `input`)."""
    fmt = FORMATS.get(wire_format or "")
    return fmt.history_field if fmt is not None else "messages"


def _read_step(
    step: Step, wire_format: str | None, http_status: int | None, series: dict[str, RequestFiles]
) -> None:
    wire_request = _read_quietly(step, "wire_request", series["wire_request"])
    history = _history_field(wire_format)
    if isinstance(wire_request, dict) and isinstance(wire_request.get(history), list):
        step.wire_messages = len(wire_request[history])
    request: Request | Response | None = _read_request(step, series["request"])
    if request is None and wire_request is not None and wire_format:
        request = _from_wire(step, "wire_request", wire_request, wire_format)
    step.request = request if isinstance(request, Request) else None

    response = _read_model(step, "response", Response)
    if response is None and "wire_response" in step.files and wire_format:
        wire_response = _read_quietly(step, "wire_response")
        if wire_response is not None and not _is_error_body(step, wire_response, http_status):
            response = _from_wire(step, "wire_response", wire_response, wire_format)
    step.response = response if isinstance(response, Response) else None
    request_file, response_file = (
        step_file(step.number, "request"),
        step_file(step.number, "response"),
    )
    if step.request is None and not {"request", "wire_request"} & set(step.files):
        step.notes.append(Msg("{file} is missing (and its wire form too)", file=request_file))
    if (
        step.response is None
        and step.record is not None
        and not set(step.files)
        - {
            "request",
            "wire_request",
        }
    ):
        step.notes.append(Msg("{file} is missing (and its wire form too)", file=response_file))
    if step.response is None and "wire_stream" in step.files and "wire_response" not in step.files:
        step.notes.append(
            Msg(
                "only the raw stream was kept ({file}): fc show --wire shows it",
                file=step.files["wire_stream"].name,
            )
        )


def _is_error_body(step: Step, data: Any, http_status: int | None) -> bool:
    """Tell whether `data` is the provider's error body, kept where a failed request's
    response would be; if so, note it in the provider's own sentence."""
    from fccli.wire.detect import error_body  # only for a step without its internal response

    sentence = error_body(data)
    if sentence is None:
        return False
    step.error_body = sentence
    name = step.files["wire_response"].name
    if http_status is not None and sentence:
        note = Msg(
            "{file}: the provider's error body (HTTP {status}): {said}",
            file=name,
            status=http_status,
            said=sentence,
        )
    elif http_status is not None:
        note = Msg(
            "{file}: the provider's error body (HTTP {status})", file=name, status=http_status
        )
    elif sentence:
        note = Msg("{file}: the provider's error body: {said}", file=name, said=sentence)
    else:
        note = Msg("{file}: the provider's error body", file=name)
    step.notes.append(note)
    return True


def _read_quietly(step: Step, role: str, series: RequestFiles | None = None) -> Any:
    """Read a step file's JSON; None, with a note saying why, when it cannot be read.

    A request file is read against the step before's (`series`): only its new messages are
    parsed."""
    path = step.files.get(role)
    if path is None:
        return None
    try:
        if series is None:
            return read_json(path)
        return series.read(read_bytes(path), str(path)).data
    except InputFileError as e:
        _unread(
            step,
            _error_text(e)
            if role != "wire_response"
            else Msg("{problem} (what the provider sent)", problem=_error_text(e)),
        )
        return None


def _read_request(step: Step, series: RequestFiles) -> Request | None:
    """Read the step's internal request, validating only the messages the step before did not
    have (series.validate_request)."""
    path = step.files.get("request")
    if path is None:
        return None
    try:
        parsed = series.read(read_bytes(path), str(path))
    except InputFileError as e:
        _unread(step, _error_text(e))
        return None
    try:
        return validate_request(parsed, path.name)
    except InputFileError as e:
        step.notes.append(_error_text(e))
        return None


def _error_text(error: FcError) -> str:
    """Return `str(error)`, as a Msg when the error's parts are (it is English in `--json`)."""
    return error.message if error.hint is None and error.step is None else str(error)


def _read_model(step: Step, role: str, model: type[Request] | type[Response]) -> Any:
    data = _read_quietly(step, role)
    if data is None:
        return None
    try:
        return validate(model, data, step.files[role].name)
    except InputFileError as e:
        step.notes.append(_error_text(e))
        return None


def _from_wire(step: Step, role: str, data: Any, wire_format: str) -> Request | Response | None:
    """Read a step's internal form from its wire file, when the internal file is missing."""

    name = step.files[role].name
    internal_name = name.replace(f".{wire_format}.json", ".json")
    try:
        fmt = get_format(wire_format)
        value: Request | Response = (
            fmt.from_wire_request(data) if role == "wire_request" else fmt.from_wire_response(data)
        )
    except FcError as e:
        step.notes.append(
            Msg(
                "{file}: cannot be read as {format}: {problem}",
                file=name,
                format=wire_format,
                problem=_error_text(e),
            )
        )
        return None
    there = (step.files[role].parent / internal_name).exists()
    if there:
        note = Msg("{file} cannot be read; read from {wire} instead", file=internal_name, wire=name)
    else:
        note = Msg("{file} is missing; read from {wire} instead", file=internal_name, wire=name)
    step.notes.append(note)
    return value


# ---------------------------------------------------------------------------------------------
# what fc show prints besides the transcript


def wire_sections(trace: Trace, step: int | None = None) -> list[tuple[str, list[tuple[str, str]]]]:
    """List each step's wire files as stored, pretty-printed (`fc show --wire`)."""
    out = []
    for s in trace.steps:
        if step is not None and s.number != step:
            continue
        files = [
            (s.files[role].name, _shown(s.files[role]) or pretty(read_bytes(s.files[role])))
            for role in ("wire_request", "wire_response")
            if role in s.files
        ]
        if "wire_stream" in s.files:
            stream = s.files["wire_stream"]
            files.append((stream.name, _shown(stream) or _stream_text(trace, stream)))
        out.append((_("step {step}", step=s.number), files))
    return out


def _stream_text(trace: Trace, path: Path) -> str:
    """Show a raw stream as its format lays it out for reading (AWS's binary frames, one line
    each), else as the text it is."""
    shown = _format_stream_text(trace, path)
    return shown if shown is not None else pretty(read_bytes(path))


def _format_stream_text(trace: Trace, path: Path) -> str | None:
    fmt = FORMATS.get(trace.wire_format) if trace.wire_format else None
    return fmt.stream_text(read_bytes(path)) if fmt is not None else None


def wire_json(trace: Trace, step: int | None = None) -> dict[str, Any]:
    """Give each step's wire files as stored (`fc show TRACE --wire --json`): each as JSON,
    or as text when it is not JSON (a stream, an error page)."""
    steps = []
    for s in trace.steps:
        if step is None or s.number == step:
            files = [
                stored_file(s.files[role])
                for role in ("wire_request", "wire_response")
                if role in s.files
            ]
            stream = s.files.get("wire_stream")
            if stream is not None:
                shown = _format_stream_text(trace, stream)
                files.append(
                    stored_file(stream) if shown is None else {"file": stream.name, "text": shown}
                )
            steps.append({"step": s.number, "files": files})
    return {"trace": str(trace.path), "wire_format": trace.wire_format, "steps": steps}


def stored_file(path: Path, fold: bool = False) -> dict[str, Any]:
    """Give a stored file as JSON, or as text when it is not JSON (`fold`: or past SHOWN_BYTES)."""
    folded = _shown(path) if fold else None
    if folded is not None:
        return {"file": path.name, "text": folded}
    data = read_bytes(path)
    try:
        return {"file": path.name, "json": parse_json(data, path.name)}
    except FcError:
        return {"file": path.name, "text": data.decode("utf-8", errors="replace")}


def trace_json(trace: Trace, step: int | None = None) -> dict[str, Any]:
    """Give the manifest and each step's content with each call's result (`fc show --json`)."""
    results, runs = trace.results(), trace.runs()
    steps = []
    for s in trace.steps:
        if step is not None and s.number != step:
            continue
        calls = []
        for call in s.response.tool_uses() if s.response else []:
            result = results.get(call.id)
            calls.append(
                {
                    **call.to_json_dict(),
                    "result": result.to_json_dict() if result else None,
                    "run": runs.get(call.id),
                }
            )
        steps.append(
            {
                "step": s.number,
                "files": sorted(p.name for p in s.files.values()),
                "request": s.request.to_json_dict() if s.request else None,
                "response": s.response.to_json_dict() if s.response else None,
                "calls": calls,
                "record": s.record,
                "notes": s.notes,
            }
        )
    return {"trace": str(trace.path), "manifest": trace.manifest, "steps": steps}
