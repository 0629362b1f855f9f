"""Which step to replay, and which of its two request files to start from.

A step's `N-request.json` (internal) and `N-request.<fmt>.json` (wire) say the same thing when fc
wrote them: the wire file is exactly what the internal one translates to. When they disagree, a
person edited one of them, and that edit is what they want replayed. Which one? The engine writes
the wire file first and the internal one a moment later, so:

- the wire file newer than the internal one: the wire file was edited;
- the internal file newer by more than a moment: the internal file was edited;
- otherwise (a copied or checked-out trace, whose times say nothing): the wire file, since that
  is what is sent, and `fc check` (FC120) calls it so too.

`--from internal|wire` settles it by hand. Whatever is chosen is said, with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fccli.check.traces import first_difference
from fccli.core.errors import ConversionError, InputFileError, UsageError
from fccli.core.jsonio import read_json, validate
from fccli.core.models import Request
from fccli.i18n import Msg
from fccli.trace.names import MANIFEST, step_file

if TYPE_CHECKING:
    from fccli.trace.reader import Trace
    from fccli.wire.registry import WireFormat

SOURCES = ("internal", "wire")
SAME_MOMENT_NS = 1_000_000_000
"""fc writes a step's two request files within milliseconds; an edit by hand comes later."""
STREAM_KEYS = ("stream", "stream_options")
"""Left out when the two files are compared: streaming is the replay's own choice
(--stream/--no-stream), not part of the step's history."""


@dataclass
class StepSource:
    step: int
    request: Request
    """The step's request as read from the file chosen."""
    file: str
    """That file's name."""
    original: Request
    """The step's request as fc wrote it: the other file, when one of the two was edited."""
    note: str | None = None
    """Why this file, when there was a choice to make (they disagree, or one is missing)."""
    hand_edit: dict[str, Any] | None = None
    """The manifest's record of an edit by hand."""
    notes: list[str] = field(default_factory=list)


def steps_with_results(trace: Trace) -> list[int]:
    return [
        s.number
        for s in trace.steps
        if s.request is not None and any(m.tool_results() for m in s.request.messages)
    ]


def choose_step(trace: Trace, asked: int | None) -> int:
    """Choose the step: `--step N`, or the last one whose request hands tool results back."""
    having = steps_with_results(trace)
    listed = ", ".join(map(str, having))
    if asked is not None:
        trace.step(asked)  # a step the trace does not have: exit 2, naming the ones it has
        if asked not in having:
            raise UsageError(
                Msg(
                    "step {step} of {trace} hands back no tool results: there is nothing to edit",
                    step=asked,
                    trace=str(trace.path),
                ),
                hint=Msg("steps that do: {steps}", steps=listed)
                if having
                else Msg("no step of this trace does"),
            )
        return asked
    if not having:
        raise UsageError(
            Msg(
                "{trace} has no step that hands tool results back: there is nothing to edit",
                trace=str(trace.path),
            ),
            hint=Msg(
                "the model called no tool in this run (fc show {trace})", trace=str(trace.path)
            ),
        )
    return having[-1]


@dataclass
class _File:
    path: Path
    data: Any = None
    request: Request | None = None
    error: InputFileError | None = None

    @property
    def exists(self) -> bool:
        return self.path.is_file()


def _read(path: Path, wire: WireFormat | None) -> _File:
    out = _File(path)
    if not out.exists:
        return out
    try:
        out.data = read_json(path)
        if wire is None:
            out.request = validate(Request, out.data, path.name)
        else:
            out.request = wire.from_wire_request(out.data)
    except ConversionError as e:
        name = wire.name if wire else "internal"
        out.error = InputFileError(
            str(path),
            Msg("cannot be read as a {format} request: {problem}", format=name, problem=e.problem),
            json_path=e.json_path,
        )
    except InputFileError as e:
        out.error = e
    return out


def read_step_request(
    trace_path: Path,
    step: int,
    wire: WireFormat,
    prefer: str | None = None,
    *,
    bug: str | None = None,
) -> StepSource:
    """Read the step's request to replay from one of its two files, and say why that one. `bug`:
    the --harness-bug the manifest records for the step, which made the two disagree on purpose."""
    internal = _read(trace_path / step_file(step, "request"), None)
    wired = _read(trace_path / step_file(step, "request", wire.name), wire)
    files = {"internal": internal, "wire": wired}
    if prefer is not None and prefer not in SOURCES:
        raise UsageError(Msg("--from {value}: choose internal or wire", value=repr(prefer)))
    for kind, f in files.items():
        instead = "wire" if kind == "internal" else "internal"
        # A wire file a --harness-bug wrote unreadable (pack-results) is the bug's, on record.
        on_purpose = bug is not None and kind == "wire" and prefer != "wire"
        if f.error is not None and prefer != instead and not on_purpose:
            # A file broken while being edited is never passed over in silence.
            raise f.error.at(
                hint=Msg("fix it, or replay from the other file: --from {other}", other=instead)
            )
    if prefer is not None and not files[prefer].exists:
        raise InputFileError(str(files[prefer].path), Msg("no such file (asked for with --from)"))
    if not internal.exists and not wired.exists:
        raise InputFileError(
            str(internal.path), Msg("no such file, nor {other}", other=wired.path.name)
        )
    unread = [f for f in (internal, wired) if f.request is None]
    if unread:
        (present,) = [f for f in (internal, wired) if f.request is not None]
        assert present.request is not None
        missing = unread[0].path.name
        said = (
            Msg(
                "{file} cannot be read; the request is read from {other}",
                file=missing,
                other=present.path.name,
            )
            if unread[0].exists
            else Msg(
                "{file} is missing; the request is read from {other}",
                file=missing,
                other=present.path.name,
            )
        )
        note: str = said
        return StepSource(step, present.request, present.path.name, present.request, note)
    assert internal.request is not None and wired.request is not None
    where = disagreement(internal.request, wired.data, wire)
    if where is None:
        chosen = files[prefer or "internal"]
        assert chosen.request is not None
        agreed = StepSource(step, chosen.request, chosen.path.name, internal.request)
        later = edited_together(trace_path, step, internal.path, wired.path)
        if later is not None:
            agreed.note = Msg(
                "{internal} and {wire} agree, but both were changed {duration} after the step's "
                "response: edited by hand, replaying {chosen}",
                internal=internal.path.name,
                wire=wired.path.name,
                duration=_duration(later),
                chosen=chosen.path.name,
            )
            agreed.hand_edit = {
                "kind": "hand-edited",
                "file": chosen.path.name,
                "files": [internal.path.name, wired.path.name],
                "why": Msg(
                    "both request files were changed {duration} after the files fc wrote after "
                    "them",
                    duration=_duration(later),
                ),
            }
        return agreed
    why: str
    if bug is not None:
        # Not an edit: the harness's mistake, made on purpose and on record. A replay is fc's
        # own harness sending again, so it starts from fc's request unless told otherwise.
        kind, why = (
            prefer or "internal",
            Msg("as --from asked")
            if prefer
            else Msg("fc's own request; the replay does not repeat the harness's mistake"),
        )
        said = Msg(
            "--harness-bug {bug} wrote the wire file so on purpose (the manifest says so)",
            bug=bug,
        )
    else:
        kind, why = (
            (prefer, Msg("as --from asked")) if prefer else edited_file(internal.path, wired.path)
        )
        said = Msg("one was edited by hand")
    chosen, other = (internal, wired) if kind == "internal" else (wired, internal)
    assert chosen.request is not None and other.request is not None
    note = Msg(
        "{internal} and {wire} disagree (first at {where} of the wire file): {said}. "
        "Replaying {chosen}: {why}",
        internal=internal.path.name,
        wire=wired.path.name,
        where=where,
        said=said,
        chosen=chosen.path.name,
        why=why,
    )
    source = StepSource(step, chosen.request, chosen.path.name, other.request, note)
    if bug is None:
        source.hand_edit = {
            "kind": "hand-edited",
            "file": chosen.path.name,
            "ids": changed_results(other.request, chosen.request),
            "first_difference": where,
            "why": why,
        }
    if kind == "wire":
        lost = disagreement(wired.request, wired.data, wire)
        if lost is not None:
            source.notes.append(_translation_note(wired, lost))
    return source


def _translation_note(wired: _File, where: str) -> str:
    """Say what the replay's translation changes at `where` of the wire file it reads (the
    first such place): a field fc's internal format cannot hold is not sent; one the file lacks but
    fc always writes (a harness bug dropped it, or a hand edit) is put back."""
    if _at(wired.data, where) is None:
        return Msg(
            "{file}: {where} is not in the file, and fc's translation puts it back, "
            "so the replay sends it (the first such place)",
            file=wired.path.name,
            where=where,
        )
    return Msg(
        "{file}: {where} has no place in fc's internal format, so the replay "
        "does not send it (the first such place)",
        file=wired.path.name,
        where=where,
    )


def _at(data: Any, path: str) -> Any:
    """Find the value at a JSON path as `first_difference` writes them (`$.a[1].b`); None where
    the path leads nowhere."""
    for key, index in re.findall(r"\.([^.\[]+)|\[(\d+)\]", path.removeprefix("$")):
        if key and isinstance(data, dict) and key in data:
            data = data[key]
        elif index and isinstance(data, list) and int(index) < len(data):
            data = data[int(index)]
        else:
            return None
    return data


def disagreement(request: Request, wire_data: Any, wire: WireFormat) -> str | None:
    """Find where the wire body differs from what `request` translates to (a JSON path), or
    None."""
    try:
        expected = wire.to_wire_request(request)
    except ConversionError as e:  # an internal request edited into one the format cannot hold
        return e.json_path or "$"
    return first_difference(_without_stream(expected), _without_stream(wire_data))


def _without_stream(body: Any) -> Any:
    if not isinstance(body, dict):
        return body
    return {k: v for k, v in body.items() if k not in STREAM_KEYS}


def edited_file(internal: Path, wire: Path) -> tuple[str, str]:
    """Tell which of two request files that disagree was edited ("internal" | "wire") and why,
    from their times."""
    t_internal, t_wire = internal.stat().st_mtime_ns, wire.stat().st_mtime_ns
    if t_wire > t_internal:
        return "wire", Msg(
            "it was changed after {file} (fc writes the wire file first)", file=internal.name
        )
    if t_internal - t_wire > SAME_MOMENT_NS:
        later = (t_internal - t_wire) / 1e9
        return (
            "internal",
            Msg(
                "it was changed {duration} after {file} (fc writes the two together)",
                duration=_duration(later),
                file=wire.name,
            ),
        )
    return (
        "wire",
        Msg(
            "the files' times do not tell which was edited, and the wire file is what is sent "
            "(--from internal for the other)"
        ),
    )


def edited_together(trace_path: Path, step: int, *requests: Path) -> float | None:
    """Measure how many seconds the step's request files are newer than the files fc wrote after
    them (the step's responses, the manifest), when more than a moment; else None."""
    after = [
        p
        for p in (trace_path / MANIFEST, *sorted(trace_path.glob(f"{step}-response*.json")))
        if p.is_file()
    ]
    if not after:
        return None
    try:
        oldest_request = min(p.stat().st_mtime_ns for p in requests)
        newest_after = max(p.stat().st_mtime_ns for p in after)
    except OSError:
        return None
    if oldest_request - newest_after > SAME_MOMENT_NS:
        return (oldest_request - newest_after) / 1e9
    return None


def _duration(seconds: float) -> str:
    if seconds < 120:
        return Msg("{n} s", n=round(seconds))
    if seconds < 7200:
        return Msg("{n} min", n=round(seconds / 60))
    return Msg("{n} h", n=round(seconds / 3600))


def changed_results(before: Request, after: Request) -> list[str]:
    """List the ids whose result (text or error flag) differs between two readings of a
    request."""
    a, b = _results(before), _results(after)
    return [i for i in [*a, *(i for i in b if i not in a)] if a.get(i) != b.get(i)]


def _results(request: Request) -> dict[str, tuple[str, bool]]:
    return {
        block.tool_use_id: (block.content, block.is_error)
        for message in request.messages
        for block in message.tool_results()
    }
