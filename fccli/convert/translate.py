"""`fc convert`: a request, response or messages array from one format into another, and an
honest account of what the target cannot hold.

How the account is made: translate, translate back, and compare with the original. Whatever
does not come back is reported by JSON path, in plain words. Two legs may lose something: a
wire source read into the internal format (fields the internal format has no place for, such as
a response's `created`), and the internal form written into the target format (a thinking
block into OpenAI chat). Changes of form that lose nothing but are worth knowing (an error
result's `is_error` carried as a marker in chat text) are reported as notes.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fccli.core.errors import ConversionError, InputFileError, UsageError
from fccli.core.jsonio import dumps
from fccli.core.models import Message, ProviderBlock, Request, Response
from fccli.diff.paths import compact, path_str
from fccli.diff.structural import Change, changes
from fccli.i18n import Msg, _
from fccli.trace.reader import Document, read_document
from fccli.wire.registry import FORMATS, WireFormat, format_names, get_format, layout
from fccli.wire.registry import INTERNAL as INTERNAL_NAME

INTERNAL = Msg("the internal format")


@dataclass
class Converted:
    output: Any
    """The document in the target format (JSON)."""
    source: str
    kind: str
    target: str
    losses: list[str] = field(default_factory=list)
    """What did not survive, one line each: `$.path: what and why`."""
    notes: list[str] = field(default_factory=list)
    """Changes of form that lose nothing, and values the target required that the source did
    not set, that a reader of the output should know."""
    warnings: list[str] = field(default_factory=list)
    """What the output holds that the target's provider would refuse."""
    added: list[str] = field(default_factory=list)
    """The paths of values the translation set (named in `notes`): a default the target requires."""

    def what(self) -> str:
        """Say what the output is: `anthropic request`, `internal messages array`."""
        if self.kind == "messages":
            return _("{format} messages array", format=self.target)
        if self.kind == "response":
            return _("{format} response", format=self.target)
        return _("{format} request", format=self.target)


def convert_file(name: str, target: str, *, source: str | None, out: Path | None) -> Converted:
    """Read the file `name` (`-`: stdin; `source`: its format, instead of detecting it) and
    translate it into `target`. Refuse an `out` that is the file itself, before reading it."""
    if out is not None and name != "-" and out.resolve() == Path(name).resolve():
        raise UsageError(
            Msg("-o {out} is the file being converted; write somewhere else", out=str(out))
        )
    return convert(read_document(name, forced=source), target)


def write_converted(converted: Converted, out: Path | None) -> None:
    """Write the output as JSON to `out`, or to stdout when None."""
    text = dumps(converted.output)
    if out is None:
        sys.stdout.write(text)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as e:
        raise UsageError(
            Msg("cannot write {out}: {reason}", out=str(out), reason=str(e.strerror))
        ) from None


def convert(doc: Document, target: str) -> Converted:
    if target not in format_names():
        raise UsageError(
            Msg("unknown target format {target}", target=repr(target)),
            hint=Msg("known formats: {formats}", formats=", ".join(format_names())),
        )
    internal = doc.internal
    assert internal is not None, "read the document with internal=True"
    out = Converted(None, doc.format, doc.kind, target)
    if doc.format == target and target != INTERNAL_NAME:
        # Already in the target format: through the internal format and back would only lose
        # what the internal format has no place for (a response's `created`), for nothing.
        out.output = doc.data
        return out
    try:
        if doc.format != INTERNAL_NAME:
            out.losses += _source_losses(doc)
            out.notes += _source_notes(doc)
        request = _as_request(internal, doc.system)
        if (
            doc.kind == "messages"
            and doc.system is not None
            and not layout(target).system_in_history
        ):
            system = compact(doc.system, 40)
            lost = (
                Msg(
                    "the system message ({system}) has no place in a messages array of "
                    "the internal format: convert the whole request to keep it",
                    system=system,
                )
                if target == INTERNAL_NAME
                else Msg(
                    "the system message ({system}) has no place in a messages array of "
                    "{holder}: convert the whole request to keep it",
                    system=system,
                    holder=target,
                )
            )
            out.losses.append(Msg("{path}: {what}", path="$[0]", what=lost))
        if target == INTERNAL_NAME:
            out.output = doc.internal_json()
            return out
        fmt = _format(target)
        if isinstance(internal, Response):
            wire = fmt.to_wire_response(internal)
            back: Any = fmt.from_wire_response(wire).to_json_dict()
            out.output = wire
            _round_trip(out, internal.to_json_dict(), back, fmt.holder, (), target=fmt)
        else:
            assert request is not None
            wire = fmt.to_wire_request(request)
            back = fmt.from_wire_request(wire).to_json_dict()
            # A messages array is written as the target's history (Responses: `input` items).
            history = fmt.history_field
            prefix: tuple[str, ...] = ("messages",) if doc.kind == "messages" else ()
            out.output = wire[history] if doc.kind == "messages" else wire
            _round_trip(out, request.to_json_dict(), back, fmt.holder, prefix, target=fmt)
            out.notes += fmt.written_notes(request)
            out.warnings += fmt.output_warnings(*_messages_of(out.output, history))
            if not request.model and fmt.model_in_body and not _names_model(doc.format):
                # A body read from a format that names the model in the URL (Gemini) has none.
                out.warnings.append(
                    Msg(
                        '$.model: "" ({format} names the model in the URL, not the body): '
                        "set the model {holder} should use",
                        format=doc.format,
                        holder=fmt.holder,
                    )
                )
    except ConversionError as e:
        raise InputFileError(
            doc.name,
            Msg("cannot be written as {target}: {problem}", target=target, problem=e.problem),
            json_path=e.json_path,
        ) from None
    return out


def _names_model(name: str) -> bool:
    """Whether a body of this format names its model (the internal format's does)."""
    return name not in FORMATS or FORMATS[name].model_in_body


def _messages_of(body: Any, history: str = "messages") -> tuple[Any, str]:
    """A request's history (or a messages array itself), and its JSON path; `history` is the
    format's key for it (wire/base.py's history_field)."""
    if isinstance(body, dict):
        return body.get(history), f"$.{history}"
    return body, "$"


def _format(name: str) -> WireFormat:
    return get_format(name)


def _as_request(internal: Request | Response | list[Message], system: str | None) -> Request | None:
    if isinstance(internal, list):
        return Request(model="", system=system, messages=internal)
    return internal if isinstance(internal, Request) else None


# ---------------------------------------------------------------------------------------------
# what does not come back


def _source_losses(doc: Document) -> list[str]:
    """What of a wire file the internal format keeps nothing of: the file, against what its
    internal form translates back to."""
    fmt = _format(doc.format)
    internal = doc.internal
    if isinstance(internal, Response):
        back: Any = fmt.to_wire_response(internal)
        original = doc.data
        prefix: tuple[str, ...] = ()
    else:
        request = _as_request(internal, doc.system) if internal is not None else None
        assert request is not None
        back = fmt.to_wire_request(request)
        original = doc.data if doc.kind == "request" else {"model": "", "messages": doc.data}
        prefix = () if doc.kind == "request" else ("messages",)
    # What the re-encoding adds (a default fc writes) is not in the output: not reported.
    leg = Converted(None, doc.format, doc.kind, "internal")
    _round_trip(leg, original, back, INTERNAL, prefix, source=doc.format)
    return leg.losses


def _round_trip(
    out: Converted,
    original: Any,
    back: Any,
    holder: str,
    prefix: tuple[str, ...],
    *,
    source: str | None = None,
    target: WireFormat | None = None,
) -> None:
    """What differs after a round trip: a value that did not come back is a loss; a setting that
    came back where there was none is one the translation set (a note: a default the target
    requires). Anything else that appears inside the history is a change of what it says: a
    loss too."""
    for change in changes(original, back):
        if _same_json_text(change):
            continue  # `{"a": 1}` and `{"a":1}`: the same arguments
        loc = change.loc
        if loc == ("model",) and target is not None and not target.model_in_body:
            continue  # said in the format's notes: the model goes in the URL (Gemini)
        if prefix and loc[: len(prefix)] == prefix:
            loc = loc[len(prefix) :]
        elif prefix:
            continue  # the wrapper request fc put around a messages array
        if change.kind == "added" and len(loc) == 1 and not prefix:
            out.added.append(path_str(loc))
            said = explain_added(change, target)
            out.notes.append(Msg("{path}: {what}", path=path_str(loc), what=said))
        else:
            said = explain(change, holder, source)
            out.losses.append(Msg("{path}: {what}", path=path_str(loc), what=said))


def _same_json_text(change: Change) -> bool:
    if change.kind != "changed" or not (
        isinstance(change.old, str) and isinstance(change.new, str)
    ):
        return False
    try:
        return bool(json.loads(change.old) == json.loads(change.new))
    except ValueError:
        return False


def explain(change: Change, holder: str, source: str | None = None) -> str:
    """One difference after a round trip, in words: what happened and why."""
    key = next((str(s) for s in reversed(change.loc) if isinstance(s, str)), "")
    old, new = change.old, change.new
    if change.kind == "removed":
        if isinstance(old, dict) and old.get("type") == "thinking":
            return Msg("a thinking block dropped: {holder} has no reasoning field", holder=holder)
        if isinstance(old, dict) and old.get("type") == "provider_block":
            kept = ProviderBlock.model_validate(old)
            return Msg(
                "the {format} {kind} block dropped: {holder} has no place for it "
                "(it goes back to {format} only, unchanged)",
                format=kept.format,
                kind=kept.kind(),
                holder=holder,
            )
        if isinstance(old, dict) and old.get("type") == "text":
            return Msg(
                "a text block ({text}) merged into the one before, "
                "or dropped if empty: {holder} has one content string per message",
                text=compact(old.get("text"), 30),
                holder=holder,
            )
        if key == "signature":
            return Msg(
                "the thinking block's signature dropped: {holder} has no place for it",
                holder=holder,
            )
        if key == "raw_arguments":
            return Msg(
                "raw_arguments {raw} dropped: {holder} carries the parsed "
                "arguments (here {{}}), not the text the model sent",
                raw=compact(old, 30),
                holder=holder,
            )
        if key == "thinking" and isinstance(old, bool):
            if old:
                return Msg("thinking on dropped: {holder} has no thinking switch", holder=holder)
            return Msg("thinking off dropped: {holder} has no thinking switch", holder=holder)
        if key == "reasoning_tokens":
            return Msg(
                "reasoning_tokens ({n}) dropped: {holder}'s usage has no such count",
                n=old,
                holder=holder,
            )
        if holder == INTERNAL and source:
            return Msg(
                "{value} dropped: the internal format has no place for {source}'s `{key}`",
                value=compact(old, 40),
                source=source,
                key=key,
            )
        return Msg(
            "{value} dropped: {holder} has no place for it", value=compact(old, 40), holder=holder
        )
    if change.kind == "added":
        return Msg("{value} added by the translation", value=compact(new, 40))
    if key == "stop_reason":
        return Msg(
            "stop_reason {old} comes back as {new}: {holder} has one name for both",
            old=repr(old),
            new=repr(new),
            holder=holder,
        )
    if isinstance(old, str) and isinstance(new, str) and old and old in new:
        return Msg(
            "joined with the next {key} block(s) into {text}: {holder} has one "
            "{key} string per message",
            key=key,
            text=compact(new, 30),
            holder=holder,
        )
    if key in ("parallel_tool_calls", "tool_choice"):
        return Msg(
            "{old} comes back as {new}: {holder} cannot say this combination",
            old=compact(old),
            new=compact(new),
            holder=holder,
        )
    return Msg("{old} comes back as {new}", old=compact(old, 40), new=compact(new, 40))


def explain_added(change: Change, target: WireFormat | None) -> str:
    """A value the round trip gives back where the source had none: set by the translation."""
    key = next((str(s) for s in reversed(change.loc) if isinstance(s, str)), "")
    said = target.added_note(key, compact(change.new)) if target is not None else None
    return said or Msg("set to {value} by the translation", value=compact(change.new, 40))


# ---------------------------------------------------------------------------------------------
# changes of form worth a note


def _source_notes(doc: Document) -> list[str]:
    if doc.format == INTERNAL_NAME or not isinstance(doc.internal, (Request, list)):
        return []
    fmt = _format(doc.format)
    return fmt.read_notes(*_messages_of(doc.data, fmt.history_field))
