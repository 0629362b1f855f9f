"""A streamed Converse answer (`/converse-stream`), assembled.

The body is AWS's binary event stream (eventstream.py), not server-sent events. Each message's
`:event-type` names a member of ConverseStreamOutput (botocore's service model) and its payload
is that member as JSON (Bedrock adds a `p` field of padding, which is no data):

- `messageStart {role}`;
- `contentBlockStart {contentBlockIndex, start: {toolUse: {toolUseId, name}}}`: only a call
  announces its block; a text or reasoning block begins with its first delta;
- `contentBlockDelta {contentBlockIndex, delta}` with `text`, `toolUse.input` (the call's input
  as JSON text, in pieces) or `reasoningContent` (`text`, `signature`, `redactedContent`);
- `contentBlockStop {contentBlockIndex}`; `messageStop {stopReason}`;
- `metadata {usage, metrics}`, last.

A message of type `exception` (`:exception-type` throttlingException, modelStreamErrorException,
...) is the provider's error inside the stream. The stream has ended early, and StreamCut is
raised, when the connection was cut, a message stopped mid-way, no `messageStop` came, or a
call's input does not parse; a missing `metadata` passes with a note (no usage).
"""

from __future__ import annotations

import json
from typing import Any

from fccli.core.errors import ProtocolError, ProviderError, StreamCut
from fccli.core.stream import OnDelta, StreamDelta
from fccli.i18n import Joined, Msg
from fccli.wire.bedrock.eventstream import EventStreamDecoder, Frame
from fccli.wire.shape import parse_arguments
from fccli.wire.sse import ListenerFailed, call_label, ended_early, guarded, joined, tail


class _Block:
    __slots__ = ("call", "closed", "kind", "parts", "signature", "start")

    def __init__(self, kind: str, start: dict[str, Any], call: int) -> None:
        self.kind = kind
        """text, reasoning or toolUse."""
        self.start = start
        self.call = call
        self.parts: list[str] = []
        self.signature: list[str] = []
        self.closed = False

    def wire(self) -> tuple[dict[str, Any], str | None]:
        """Return the block as a non-streamed answer has it, and the input's text when it does
        not parse to an object."""
        text = joined(self.parts)
        if self.kind == "toolUse":
            value, raw = parse_arguments(text) if text else ({}, None)
            return {"toolUse": {**self.start, "input": value}}, raw
        if self.kind == "reasoning":
            reasoning: dict[str, Any] = {"text": text}
            if self.signature:
                reasoning["signature"] = joined(self.signature)
            return {"reasoningContent": {"reasoningText": reasoning}}, None
        return {self.kind: text}, None


class BedrockStreamFolder:
    """Feed it the raw bytes of a ConverseStream answer; `finish()` gives the answer."""

    def __init__(self, on_delta: OnDelta | None = None) -> None:
        self.notes: list[str] = []
        self._on_delta = None if on_delta is None else guarded(on_delta)
        self._decoder = EventStreamDecoder()
        self._broken: ProtocolError | None = None
        self._blocks: dict[int, _Block] = {}
        self._kept: dict[int, dict[str, Any]] = {}
        """Blocks fc has no delta for (an image...), as their start gave them."""
        self._role: str | None = None
        self._stop: dict[str, Any] | None = None
        self._metadata: dict[str, Any] | None = None
        self._calls = 0
        self._after_end = 0

    @property
    def bytes_received(self) -> int:
        return self._decoder.bytes_received

    @property
    def ended(self) -> bool:
        return self._metadata is not None

    def feed(self, chunk: bytes) -> None:
        if self._broken is not None:
            self._decoder.bytes_received += len(chunk)
            return
        try:
            frames = self._decoder.feed(chunk)
        except ProtocolError as e:
            # Said at the end: a cut connection is the reason then, not the bytes it left.
            self._broken = e
            return
        for frame in frames:
            self._frame(frame)

    def _frame(self, frame: Frame) -> None:
        headers = frame.headers
        kind = headers.get(":message-type", "event")
        if kind in ("exception", "error"):
            self._raise_error(frame)
        if self.ended:
            self._after_end += 1
            return
        name = headers.get(":event-type")
        try:
            event = json.loads(frame.payload) if frame.payload else {}
            if not isinstance(event, dict):
                raise TypeError(Msg("the payload is not a JSON object"))
            self._event(name, event)
        except ListenerFailed as e:
            raise e.error from None
        except (TypeError, AttributeError, KeyError, ValueError) as e:
            reason = e.args[0] if len(e.args) == 1 and isinstance(e.args[0], Msg) else str(e)
            raise ProtocolError(
                Msg(
                    "message {number} of the event stream ({event}) has an unexpected shape "
                    "({kind}: {error})",
                    number=self._decoder.frames,
                    event=name,
                    kind=type(e).__name__,
                    error=reason,
                )
            ) from None

    def _event(self, name: Any, event: dict[str, Any]) -> None:
        emit = self._on_delta
        if name == "messageStart":
            self._role = event.get("role")
        elif name == "contentBlockStart":
            index = int(event["contentBlockIndex"])
            start = event["start"]
            if index in self._blocks or index in self._kept:
                raise ProtocolError(
                    Msg("content block {index} of the stream started twice", index=index)
                )
            if "toolUse" in start:
                head = dict(start["toolUse"])
                self._blocks[index] = _Block("toolUse", head, self._calls)
                if emit is not None:
                    emit(
                        StreamDelta(
                            "call", "", self._calls, head.get("toolUseId"), head.get("name")
                        )
                    )
                self._calls += 1
            else:
                self._kept[index] = dict(start)
        elif name == "contentBlockDelta":
            self._delta(int(event["contentBlockIndex"]), event["delta"])
        elif name == "contentBlockStop":
            index = int(event["contentBlockIndex"])
            if index in self._blocks:
                self._blocks[index].closed = True
        elif name == "messageStop":
            self._stop = {k: v for k, v in event.items() if k != "p"}
        elif name == "metadata":
            self._metadata = {k: v for k, v in event.items() if k != "p"}
        else:
            self._note(Msg("a {event} event is not kept", event=name))

    def _delta(self, index: int, delta: dict[str, Any]) -> None:
        emit = self._on_delta
        block = self._blocks.get(index)
        if "toolUse" in delta:
            if block is None or block.kind != "toolUse":
                raise ProtocolError(
                    Msg("a call's input came for block {index}, which is no call", index=index)
                )
            piece = delta["toolUse"]["input"]
            block.parts.append(piece)
            if emit is not None and piece:
                head = block.start
                emit(
                    StreamDelta("call", piece, block.call, head.get("toolUseId"), head.get("name"))
                )
            return
        if "text" in delta:
            kind, piece = "text", delta["text"]
        elif "reasoningContent" in delta:
            kind, reasoning = "reasoning", delta["reasoningContent"]
            if "signature" in reasoning:
                self._block(index, kind).signature.append(reasoning["signature"])
                return
            if "text" not in reasoning:
                self._note(Msg("redacted reasoning in the stream is not kept"))
                return
            piece = reasoning["text"]
        else:
            self._note(Msg("a {kind} delta is not kept", kind=", ".join(sorted(delta))))
            return
        if not isinstance(piece, str):
            raise TypeError(Msg("a delta's text is not a string"))
        self._block(index, kind).parts.append(piece)
        if emit is not None and piece:
            emit(StreamDelta("thinking" if kind == "reasoning" else "text", piece))

    def _block(self, index: int, kind: str) -> _Block:
        block = self._blocks.get(index)
        if block is None:
            block = self._blocks[index] = _Block(kind, {}, -1)
        elif block.kind != kind:
            raise ProtocolError(
                Msg(
                    "block {index} of the stream is {was} and grew by {kind}",
                    index=index,
                    was=block.kind,
                    kind=kind,
                )
            )
        return block

    def _raise_error(self, frame: Frame) -> None:
        headers = frame.headers
        kind = headers.get(":exception-type") or headers.get(":error-code") or "error"
        text = frame.payload.decode("utf-8", errors="replace")
        try:
            said = json.loads(text)
        except ValueError:
            said = None
        message = said.get("message") if isinstance(said, dict) else None
        if not isinstance(message, str):
            message = headers.get(":error-message") or text
        raise ProviderError(
            Msg(
                "the provider reported an error in the stream: {kind}: {message}",
                kind=kind,
                message=message,
            ),
            body=text,
        )

    def _note(self, text: str) -> None:
        """Say `text` once, however often the stream gives cause."""
        if text not in self.notes:
            self.notes.append(text)

    def finish(self, cut: str | None = None) -> dict[str, Any]:
        reasons = [cut] if cut else []
        if self._broken is not None:
            if not cut:
                raise self._broken
        elif self._decoder.pending:
            reasons.append(Msg("the last message was cut off"))
        body, bad = self._body()
        if self._stop is None:
            reasons.append(Msg("no `messageStop`"))
        if reasons or bad:
            text: Msg = (
                ended_early(self.bytes_received, reasons)
                if reasons
                else Msg("the stream ended after {count:,} bytes", count=self.bytes_received)
            )
            if bad:
                calls = Joined(
                    [
                        Msg(
                            "{call} has incomplete input: {tail}",
                            call=call_label(b.start.get("toolUseId"), b.start.get("name")),
                            tail=tail(joined(b.parts)),
                        )
                        for b in bad
                    ],
                    "; ",
                )
                text = Msg("{message}; {calls}", message=text, calls=calls)
            raise StreamCut(
                text, bytes_received=self.bytes_received, partial=body, ended=not reasons
            )
        if self._metadata is None:
            self.notes.append(Msg("no `metadata` event: the answer says no usage"))
        if self._after_end:
            self.notes.append(
                Msg("{count} event(s) after `metadata` ignored", count=self._after_end)
            )
        return body

    def _body(self) -> tuple[dict[str, Any], list[_Block]]:
        content: list[tuple[int, dict[str, Any]]] = [(i, b) for i, b in self._kept.items()]
        bad = []
        for index, block in self._blocks.items():
            wire, raw = block.wire()
            if raw is not None:
                bad.append(block)
            content.append((index, wire))
        message = {
            "role": self._role or "assistant",
            "content": [b for _, b in sorted(content, key=lambda pair: pair[0])],
        }
        body: dict[str, Any] = {"output": {"message": message}}
        stop = self._stop or {}
        if "stopReason" in stop:
            body["stopReason"] = stop["stopReason"]
        body.update({k: v for k, v in stop.items() if k != "stopReason"})
        body.update(self._metadata or {})
        return body, bad
