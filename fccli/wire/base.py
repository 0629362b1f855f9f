"""What a wire format is: everything fc knows about one, declared in its own package.

A format is one object of a WireFormat class, listed in `wire/registry.py`; every other module
(the reader, check, convert, diff, send, replay, the engine) takes the formats from the registry
and asks them, so adding a format is one new package plus one registry line.

A format declares its layout (wire/view.py's BlocksLayout): how `fc check` reads its history,
where its fields are, its id rules and markers. Formats of one layout share a `family` (`chat`,
`blocks`, `items`...): `fc diff` compares those field by field, and `fc send` takes one to
any provider of its family; a format of a new layout names its own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol

from fccli.core.errors import ProtocolError, ProviderError
from fccli.core.models import Request, Response
from fccli.core.stream import OnDelta
from fccli.i18n import Msg
from fccli.wire.routes import Route as Route
from fccli.wire.routes import openai_error_body as openai_error_body
from fccli.wire.sse import SSEDecoder, guarded, not_a_stream, note_once

if TYPE_CHECKING:
    from fccli.core.secrets import Secrets
from fccli.wire.view import (
    BlocksLayout,
)

Kind = Literal["request", "response", "messages"]

Refusal = tuple[str, str]
"""(who answers, what they answer with HTTP 400): a provider's sentence for an `fc check` rule.
`{n}`, `{k}`, `{ids}` and other names in it are filled in with the place of the finding."""


class Detected(NamedTuple):
    """A document's format and kind, and why (a NamedTuple: see Route)."""

    format: str
    """A format's name (`internal` or one of the registry's)."""
    kind: Kind
    reason: str
    """What gave it away, for a learner (and for `--format` when it guessed wrong)."""


class StreamFolder(Protocol):
    """Assembles a streamed answer from its raw bytes, piece by piece (wire/*/stream.py)."""

    @property
    def bytes_received(self) -> int: ...

    notes: list[str]
    """What a learner should know about the stream (no `[DONE]` after finish_reason, ...)."""

    @property
    def ended(self) -> bool:
        """The format's own last event came (chat's `data: [DONE]`, Anthropic's `message_stop`,
        the Responses API's `response.completed`): what an SDK stops reading at. False for a
        format that has none (Gemini's streams end with the body)."""
        ...

    def feed(self, chunk: bytes) -> None: ...

    def finish(self, cut: str | None = None) -> dict[str, Any]:
        """Return the answer as a non-streamed call returns it, or StreamCut when it ended early."""
        ...


class StreamAssembler:
    """What every stream folder shares; a format's folder maps its own events only (its
    `_fold`, and its `finish` from what was folded), as pydantic-ai's parts manager leaves each
    model to map its deltas. Here: the SSE decoding fed piece by piece, the listener guarded,
    notes said once, and the two ways a stream fails that no format words differently (an
    event of the wrong shape, the provider's error inside the stream)."""

    def __init__(self, on_delta: OnDelta | None, literals: frozenset[str] = frozenset()) -> None:
        self.notes: list[str] = []
        """What a learner should know about this stream (no end marker, ...)."""
        self._on_delta = None if on_delta is None else guarded(on_delta)
        self._sse = SSEDecoder(literals=literals)
        self._noted: set[str] = set()
        self._after_end = 0
        """Events that came after the end marker, ignored."""

    after_end_note = ""
    """What a format with an end marker notes of events after it (`N_("{count} event(s) after
    `message_stop` ignored")`)."""

    @property
    def bytes_received(self) -> int:
        return self._sse.bytes_received

    @property
    def ended(self) -> bool:
        return False  # a format with an end marker says when it came

    def feed(self, chunk: bytes) -> None:
        for objs in self._sse.feed_json_slices(chunk):
            self._take(objs)

    def _take(self, objs: list[Any]) -> None:
        """Fold a slice of events, or count it as ignored once the stream has ended."""
        if self.ended:
            self._after_end += len(objs)
        else:
            self._fold(objs)

    def _fold(self, objs: list[Any]) -> None:
        raise NotImplementedError

    def _note_after_end(self) -> None:
        if self._after_end:
            self.notes.append(Msg.__new__(Msg, self.after_end_note, count=self._after_end))

    def _note(self, key: str, text: str) -> None:
        note_once(self.notes, self._noted, key, text)

    def _closing(self, cut: str | None) -> list[str]:
        """At the end of the body: fold a last event that lacked its blank line, and return the
        reasons the stream ended early so far (the transport's `cut`, a last event or line cut
        off). Raise the error of a body that is no event stream at all."""
        reasons = [cut] if cut else []
        try:
            objs = self._sse.finish_json()
        except ProtocolError:
            objs = []
            reasons.append(Msg("the last event was cut off"))
        if objs:
            if not self.ended:
                self.notes.append(Msg("the last event had no closing blank line"))
            self._take(objs)
        unfinished = self._sse.unfinished
        if unfinished and not self._whole_last_line(unfinished):
            reasons.append(Msg("the last line was cut off"))
        error = None if cut else not_a_stream(self._sse)
        if error is not None:
            raise error
        return reasons

    def _whole_last_line(self, line: str) -> bool:
        """Return whether a last line without its line end still said all it had to."""
        return False

    def _bad_shape(self, objs: list[Any], n: int, error: Exception) -> ProtocolError:
        """Return the error for event `n` of the last slice `objs`, which had an unexpected shape."""
        number = self._sse.events - len(objs) + n + 1
        # fc's own words for a wrong shape are a Msg (`TypeError(Msg(...))`); Python's stay as said
        reason = (
            error.args[0] if len(error.args) == 1 and isinstance(error.args[0], Msg) else str(error)
        )
        return ProtocolError(
            Msg(
                "event {number} of the stream has an unexpected shape ({kind}: {error})",
                number=number,
                kind=type(error).__name__,
                error=reason,
            )
        )

    def _raise_error(self, obj: dict[str, Any]) -> None:
        """Return the provider's own error, sent inside the stream (`{"error": {...}}`)."""
        error = obj.get("error")
        if isinstance(error, dict):
            kind = error.get("type") or error.get("code") or "error"
            message = error.get("message") or json.dumps(error, ensure_ascii=False)
        else:
            kind, message = "error", str(error)
        raw = self._sse.raw_data(obj)
        raise ProviderError(
            Msg(
                "the provider reported an error in the stream: {kind}: {message}",
                kind=kind,
                message=message,
            ),
            body=raw if raw is not None else json.dumps(obj, ensure_ascii=False),
        )


class Codec(Protocol):
    """A format's codec module, both directions."""

    def to_wire_request(self, request: Request, /) -> dict[str, Any]: ...
    def from_wire_request(self, body: Any, /) -> Request: ...
    def to_wire_response(self, response: Response, /) -> dict[str, Any]: ...
    def from_wire_response(self, body: Any, /) -> Response: ...


class WireFormat(BlocksLayout):
    """A wire format: a format class derives from this one and overrides what it knows. What it
    leaves: laid out as fc's own blocks (BlocksLayout), no refusal known before sending,
    recognised by its family's data only, thinking off, nothing to note in convert, no local
    server paths, errors in OpenAI's shape."""

    @property
    def family(self) -> str:
        """`chat`, `blocks`, or a new layout's own name (see the module's docstring)."""
        raise NotImplementedError

    @property
    def holder(self) -> str:
        """The format as a loss line names it (`openai chat`: "openai chat has no place...")."""
        raise NotImplementedError

    @property
    def stop_field(self) -> str:
        """The wire name of the stop reason's field (chat: `finish_reason`)."""
        raise NotImplementedError

    @property
    def results_layout(self) -> str:
        """How the results of one turn travel in this format, in a learner's words."""
        raise NotImplementedError

    @property
    def refusals(self) -> Mapping[str, Refusal]:
        """Per `fc check` rule (`FC101`...), what the format's providers answer with HTTP 400.
        A rule quoted here for some formats only (FC107, FC113...) applies to those only."""
        raise NotImplementedError

    appends_messages = False
    """True when the wire body of a request is made message by message: its `messages` are the
    wire messages of the request's first messages, then those of the rest, and nothing else in
    it depends on the messages. `fc check` then translates only a trace's new messages at each
    step (tests/wire/test_format_contract.py holds a format that says so to it)."""
    model_in_body = True
    """The request body names the model (Gemini's names it in the URL instead)."""
    routes: tuple[Route, ...] = ()
    """The request paths this format's providers answer at (`fc proxy`, `fc serve`); a path two
    formats share (chat dialects) goes to the one the server is told to speak; none: no local
    server answers in the format."""
    stream_media_type = "text/event-stream"
    """The content type of a streamed answer (Ollama's NDJSON: `application/x-ndjson`;
    Bedrock's: AWS's binary event stream): what fc asks for in `accept`, and what `fc serve`
    answers a stream with."""
    sdk_base_url: tuple[str, str] | None = None
    """How the format's official SDK is pointed elsewhere: (its environment variable, the path
    to add to a server's root), e.g. `("OPENAI_BASE_URL", "/v1")`."""
    setting_names: Mapping[str, str] = {}
    """The internal request's settings the format keeps at its top level under another name
    (Ollama: `{"thinking": "think"}`), for `fc diff`'s mapping."""
    model_prefixes: tuple[str, ...] = ()
    """How its models' names begin (`claude`), for telling a document's format by its model."""
    codec: Codec
    """The format's codec module: the translations below go to it."""

    def to_wire_request(self, request: Request) -> dict[str, Any]:
        return self.codec.to_wire_request(request)

    def from_wire_request(self, body: Any) -> Request:
        return self.codec.from_wire_request(body)

    def to_wire_response(self, response: Response) -> dict[str, Any]:
        return self.codec.to_wire_response(response)

    def from_wire_response(self, body: Any) -> Response:
        return self.codec.from_wire_response(body)

    def wire_stop_reason(self, body: Any) -> str | None:
        """Return the stop reason as the wire says it (at `places.stop`), for showing side by
        side."""
        value = body
        for key in re.findall(r"\w+", self.places.stop):
            if isinstance(value, dict):
                value = value.get(key)
            elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
                value = value[int(key)]
            else:
                return None
        return value if isinstance(value, str) else None

    def stream_folder(self, on_delta: OnDelta | None = None) -> StreamFolder:
        raise NotImplementedError

    def stream_text(self, raw: bytes) -> str | None:
        """Return a raw stream as text a reader can follow (`fc show --wire`); None: it is text
        already (server-sent events), shown as it came."""
        return None

    def mask_stream(self, raw: bytes, secrets: Secrets) -> bytes | None:
        """Return a raw stream with `secrets` masked, when this format frames its streams its own
        way (masked as bytes, AWS's frames would no longer read); None: server-sent events,
        which the transport masks itself."""
        return None

    def is_own_stream(self, raw: bytes) -> bool:
        """Tell whether raw bytes are a stream framed as only this format frames one (AWS's
        binary event stream); False for server-sent events, which formats share."""
        return False

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """Return an error as this format's providers answer one (HTTP `status`), so that a
        client's SDK reads fc's own errors (`fc proxy`'s 502, `fc serve`'s 4xx) as the
        provider's."""
        return openai_error_body(status, message)

    def invented(self, call_id: str) -> bool:
        """Return whether `call_id` is one fc made up for a call the provider sent without one
        (never on the wire)."""
        return False

    def request_problem(self, request: Request) -> str | None:
        """Return a reason the provider would refuse the request, known before sending it."""
        return None

    def detect(self, doc: Any, name_hint: str | None) -> Detected | None:
        """Return this format's claim on a document, from its content; None when it has none.
        (The chat and blocks families are told apart by `wire/detect.py` from what they
        declare; a format of its own layout says here how it is recognised.)"""
        return None

    def added_note(self, key: str, value: Any) -> str | None:
        """Return why the translation set `key` to `value` where the source had none, when this
        format requires it (`fc convert`'s notes); None for the plain wording."""
        return None

    def read_notes(self, messages: Any, base: str) -> list[str]:
        """Return the changes of form worth a note when a messages array of this format (at JSON
        path `base`) is read into the internal format (`fc convert`)."""
        return []

    def written_notes(self, request: Request) -> list[str]:
        """Return the changes of form worth a note when `request` is written in this format."""
        return []

    def output_warnings(self, messages: Any, base: str) -> list[str]:
        """Return what this format's provider would refuse in a messages array written by fc
        (`fc convert` warns)."""
        return []


def marker_read_notes(
    entries: Any, base: str, marker: str, key: str, is_result: Callable[[dict[str, Any]], bool]
) -> list[str]:
    """`fc convert`'s notes on reading a format without an error flag (chat, Responses): each
    result (`is_result`) whose text (`key`) starts with `marker` is read as an error."""
    out: list[str] = []
    for i, entry in enumerate(entries if isinstance(entries, list) else []):
        text = entry.get(key) if isinstance(entry, dict) else None
        if isinstance(text, str) and text.startswith(marker) and is_result(entry):
            out.append(
                Msg(
                    "{base}[{i}].{key}: read as an error result (is_error: true), since the text starts with {marker!r}",
                    base=base,
                    i=i,
                    key=key,
                    marker=marker,
                )
            )
    return out


def marker_written_notes(request: Request, marker: str, how: str) -> list[str]:
    """`fc convert`'s notes on writing error results where the format has no flag: `how` says
    where the marker goes."""
    return [
        Msg(
            "$.messages[{i}].content[{j}].is_error: {how} as {marker!r} (read back as is_error: true)",
            i=i,
            j=j,
            how=how,
            marker=marker,
        )
        for i, message in enumerate(request.messages)
        for j, block in enumerate(message.content)
        if block.type == "tool_result" and block.is_error
    ]
