"""A streamed Anthropic Messages answer, assembled.

`AnthropicStreamFolder` takes the body's bytes as they arrive and gives back, once the stream
has ended, exactly the JSON a non-streamed call returns. The events (docs.claude.com, "Streaming
Messages"; PROTOCOL.md, "Streaming"):

- `message_start {message}`: the message with empty content; its usage so far;
- `content_block_start {index, content_block}`, then `content_block_delta {index, delta}` with
  `text_delta.text`, `thinking_delta.thinking`, `signature_delta.signature` or
  `input_json_delta.partial_json` (a tool_use block's input as JSON text, in pieces: the block
  starts with `input: {}`, and a tool_use with no input_json_delta keeps that `{}`), then
  `content_block_stop {index}`;
- `message_delta {delta: {stop_reason, stop_sequence}, usage}`: usage counts are cumulative, so
  they replace the ones from message_start;
- `message_stop`; `ping` at any time; `error {error: {type, message}}` (overloaded_error, ...).
  Unknown event types are skipped, as Anthropic's versioning policy asks of clients.

The stream has ended early, and StreamCut is raised, when the connection was cut
(`finish(cut)`), the last line stopped mid-way, no stop_reason came, or no `message_stop`
came and a block is still open or a tool input does not parse. With a stop_reason, every
block closed and every input whole, a missing `message_stop` passes with a note (the stop
reason comes after the last block; the chat folder treats a missing `[DONE]` the same way).
A tool input that is not a JSON object raises StreamCut even in a complete stream: the
non-streamed format cannot hold it (Anthropic's fine-grained tool streaming can end so at
max_tokens). `StreamCut.partial` then shows such a block with `input: {}` and the text as it
came in `partial_json`, a key of fc's, not Anthropic's.
"""

from __future__ import annotations

from typing import Any, Literal

from fccli.core.errors import ProtocolError, StreamCut
from fccli.core.stream import OnDelta, StreamDelta
from fccli.i18n import N_, Joined, Msg
from fccli.wire.base import StreamAssembler
from fccli.wire.shape import parse_arguments
from fccli.wire.sse import (
    ListenerFailed,
    call_label,
    ended_early,
    joined,
    tail,
)

NO_STOP = Msg("no `message_stop`")

# The delta each kind of block grows by, and the key of the piece in it.
_GROWS_BY: dict[Any, tuple[str, str]] = {
    "text": ("text_delta", "text"),
    "thinking": ("thinking_delta", "thinking"),
    "tool_use": ("input_json_delta", "partial_json"),
    # Anthropic's own tools (web search, code execution, MCP) stream their input the same way.
    "server_tool_use": ("input_json_delta", "partial_json"),
    "mcp_tool_use": ("input_json_delta", "partial_json"),
    # A compaction summary (the beta SDKs' BetaCompactionBlock starts with `content: null`).
    "compaction": ("compaction_delta", "content"),
}


class _Block:
    __slots__ = (
        "block",
        "call",
        "closed",
        "delta_type",
        "index",
        "key",
        "kind",
        "parts",
        "signature",
    )

    def __init__(self, index: Any, block: dict[str, Any], call: int) -> None:
        self.index = index
        self.block = block
        """The block as content_block_start gave it."""
        self.call = call
        """For a tool_use block, its position among the answer's calls; else -1."""
        grows = _GROWS_BY.get(block.get("type"))
        self.delta_type: str | None = grows[0] if grows else None
        self.key: str | None = grows[1] if grows else None
        kind = block.get("type")
        self.kind: Literal["text", "thinking", "call"] | None = (
            "call"
            if call >= 0
            else "text"
            if kind == "text"
            else "thinking"
            if kind == "thinking"
            else None
        )
        self.parts: list[str] = []
        self.signature: list[str] = []
        self.closed = False

    def label(self) -> str:
        block = self.block
        return call_label(block.get("id") or f"#{self.call + 1}", block.get("name"))

    def input(self) -> tuple[Any, str | None]:
        """`(input, None)` when the JSON pieces parse to an object (or none came), else
        `(input as started, the text)`."""
        start = self.block.get("input", {})
        text = joined(self.parts)
        if not text:
            return start, None
        value, raw = parse_arguments(text)
        return (value, None) if raw is None else (start, raw)


class AnthropicStreamFolder(StreamAssembler):
    """Feed it the raw bytes of a Messages stream; `finish()` gives the answer."""

    after_end_note = N_("{count} event(s) after `message_stop` ignored")

    def __init__(self, on_delta: OnDelta | None = None) -> None:
        super().__init__(on_delta)
        self._message: dict[str, Any] | None = None
        self._usage: dict[str, Any] | None = None
        self._blocks: dict[Any, _Block] = {}
        self._calls = 0
        self._stopped = False

    @property
    def ended(self) -> bool:
        return self._stopped

    # -- folding parsed events

    def _fold(self, objs: list[Any]) -> None:
        blocks = self._blocks
        emit = self._on_delta
        event = self._event
        n = 0
        try:
            for n, obj in enumerate(objs):
                kind = obj.get("type")
                if kind == "content_block_delta":
                    block = blocks[obj["index"]]
                    delta = obj["delta"]
                    if delta["type"] == block.delta_type:
                        piece = delta[block.key]
                        block.parts.append(piece)
                        if emit is not None and piece:
                            self._emit(block, piece)
                    else:
                        self._other_delta(block, delta)
                elif kind == "ping":
                    continue
                elif event(obj, kind):  # message_stop
                    self._after_end += len(objs) - n - 1
                    break
        except ListenerFailed as e:
            raise e.error from None
        except (TypeError, AttributeError, KeyError) as e:
            raise self._bad_shape(objs, n, e) from None

    def _emit(self, block: _Block, piece: str) -> None:
        assert self._on_delta is not None
        if block.kind == "call":
            b = block.block
            self._on_delta(StreamDelta("call", piece, block.call, b.get("id"), b.get("name")))
        elif block.kind is not None:
            self._on_delta(StreamDelta(block.kind, piece))

    def _event(self, obj: dict[str, Any], kind: Any) -> bool:
        """Every event but a delta and ping; True for message_stop."""
        if kind == "message_start":
            message = dict(obj["message"])
            self._message = message
            usage = message.get("usage")
            self._usage = dict(usage) if isinstance(usage, dict) else None
        elif kind == "content_block_start":
            index = obj["index"]
            if index in self._blocks:
                raise ProtocolError(
                    Msg("content block {index} of the stream started twice", index=index)
                )
            started = dict(obj["content_block"])
            call = -1
            if started.get("type") == "tool_use":
                call = self._calls
                self._calls += 1
            block = _Block(index, started, call)
            self._blocks[index] = block
            if call >= 0 and self._on_delta is not None:
                self._on_delta(
                    StreamDelta("call", "", call, started.get("id"), started.get("name"))
                )
        elif kind == "content_block_stop":
            self._blocks[obj["index"]].closed = True
        elif kind == "message_delta":
            if self._message is None:
                self._message = {}
            delta = obj.get("delta")
            if isinstance(delta, dict):
                self._message.update(delta)
            usage = obj.get("usage")
            if isinstance(usage, dict):
                # Cumulative counts: the last one is the total.
                if self._usage is None:
                    self._usage = {}
                self._usage.update({k: v for k, v in usage.items() if v is not None})
        elif kind == "message_stop":
            self._stopped = True
            return True
        elif kind == "error" or obj.get("error"):
            # The documented `error` event, or an error object without its type, as some
            # Anthropic-compatible proxies send it.
            self._raise_error(obj)
        return False

    def _other_delta(self, block: _Block, delta: dict[str, Any]) -> None:
        kind = delta.get("type")
        if kind == "signature_delta" and block.block.get("type") == "thinking":
            block.signature.append(delta["signature"])
        elif kind == "citations_delta" and block.block.get("type") == "text":
            block.block.setdefault("citations", []).append(delta.get("citation"))
        else:
            self._note(
                f"delta {kind}",
                Msg(
                    "a {kind} delta for a {type} block is not kept",
                    kind=kind,
                    type=block.block.get("type"),
                ),
            )

    # -- the end

    def finish(self, cut: str | None = None) -> dict[str, Any]:
        """Return the assembled answer, as a non-streamed call returns it; StreamCut if it ended
        early."""
        reasons = self._closing(cut)
        if self._message is None:
            reasons.append(Msg("no `message_start`"))
        body, bad = self._body()
        message = self._message or {}
        open_blocks = [b for b in self._blocks.values() if not b.closed]
        if not self._stopped:
            reasons.append(NO_STOP)
        if message.get("stop_reason") is None:
            reasons.append(Msg("no stop_reason"))
        if open_blocks and not self._stopped:
            reasons.append(
                Msg(
                    "content block {indexes} not closed",
                    indexes=", ".join(str(b.index) for b in open_blocks),
                )
            )
        if (reasons and reasons != [NO_STOP]) or bad:
            incomplete = Joined(
                [
                    Msg(
                        "{call} has incomplete input: {tail}",
                        call=b.label(),
                        tail=tail(joined(b.parts)),
                    )
                    for b in bad
                ],
                "; ",
            )
            text: Msg
            if reasons:
                text = ended_early(self.bytes_received, reasons)
                if bad:
                    text = Msg("{message}; {calls}", message=text, calls=incomplete)
            else:
                text = Msg(
                    "the stream ended after {count:,} bytes, but {calls}",
                    count=self.bytes_received,
                    calls=incomplete,
                )
            ended = not reasons or reasons == [NO_STOP]
            raise StreamCut(text, bytes_received=self.bytes_received, partial=body, ended=ended)
        if not self._stopped:
            self.notes.append(Msg("no `message_stop` event; the stream ended after stop_reason"))
        self._note_after_end()
        return body

    def _body(self) -> tuple[dict[str, Any], list[_Block]]:
        body = dict(self._message or {})
        content: list[Any] = list(body.get("content") or [])
        bad: list[_Block] = []
        for b in self._blocks.values():
            block = dict(b.block)
            kind = block.get("type")
            if b.delta_type == "input_json_delta":
                value, raw = b.input()
                block["input"] = value
                if raw is not None:
                    bad.append(b)
                    block["partial_json"] = raw
            elif b.key is not None and (b.parts or block.get(b.key) is not None):
                # A block that grew by no piece keeps its start as it was (null stays null).
                block[b.key] = (block.get(b.key) or "") + joined(b.parts)
            if kind == "thinking" and (b.signature or "signature" in block):
                block["signature"] = (block.get("signature") or "") + joined(b.signature)
            content.append(block)
        body["content"] = content
        if self._usage is not None:
            body["usage"] = self._usage
        return body, bad
