"""A streamed Responses answer, assembled.

`ResponsesStreamFolder` takes the body's bytes as they arrive and gives back, once the stream has
ended, the JSON a non-streamed call returns. The events (openai-python
`src/openai/types/responses/response_stream_event.py`), each with a `type` and a
`sequence_number`:

- `response.created`, `response.in_progress` `{response}`: the response so far, output empty;
- `response.output_item.added` `{output_index, item}`: an item starts (a function_call with its
  `call_id`, `name` and empty `arguments`; a reasoning item whose encrypted_content may be
  incomplete);
- `response.function_call_arguments.delta` `{item_id, output_index, delta}`, then `.done`
  `{arguments}`; `response.output_text.delta` `{item_id, output_index, content_index, delta}`;
  `response.reasoning_summary_text.delta`: pieces, keyed by `item_id` / `output_index`;
- `response.output_item.done` `{output_index, item}`: the item whole, the copy to send back;
- `response.completed` (or `response.incomplete`, out of tokens) `{response}`: the whole response,
  the end; `response.failed` `{response: {error}}` and `error` `{code, message}`: the provider's
  error, raised as such. Other events (content_part.added, ...) carry nothing the items lack.

The stream has ended early, and StreamCut is raised, when no `response.completed` or
`response.incomplete` came (the connection was cut, the last line stopped mid-way). What did
arrive is assembled from the items, arguments as they were cut, for `StreamCut.partial`.
"""

from __future__ import annotations

from typing import Any

from fccli.core.errors import StreamCut
from fccli.core.stream import OnDelta, StreamDelta
from fccli.i18n import N_, Msg
from fccli.wire.base import StreamAssembler
from fccli.wire.sse import (
    ListenerFailed,
    call_label,
    ended_early,
    joined,
    with_incomplete,
)

_ENDS = ("response.completed", "response.incomplete")


class _Item:
    __slots__ = ("call", "done", "item", "parts")

    def __init__(self, item: dict[str, Any], call: int) -> None:
        self.item = item
        """The item as `output_item.added` gave it, replaced by the `.done` copy."""
        self.call = call
        """For a function_call, its position among the answer's calls; else -1."""
        self.parts: dict[int, list[str]] = {}
        """Text pieces by content index (arguments: index 0)."""
        self.done = False

    def assembled(self) -> dict[str, Any]:
        if self.done:
            return self.item
        item = dict(self.item)
        if item.get("type") == "function_call":
            item["arguments"] = joined([item.get("arguments") or "", *self.parts.get(0, [])])
        elif item.get("type") == "message" and self.parts:
            item["content"] = [
                {"type": "output_text", "text": joined(self.parts[k]), "annotations": []}
                for k in sorted(self.parts)
            ]
        return item


class ResponsesStreamFolder(StreamAssembler):
    """Feed it the raw bytes of a Responses stream; `finish()` gives the answer."""

    after_end_note = N_("{count} event(s) after `response.completed` ignored")

    def __init__(self, on_delta: OnDelta | None = None) -> None:
        super().__init__(on_delta)
        self._response: dict[str, Any] | None = None
        self._final: dict[str, Any] | None = None
        self._items: dict[int, _Item] = {}
        self._by_id: dict[str, _Item] = {}
        self._calls = 0

    @property
    def ended(self) -> bool:
        return self._final is not None

    def _fold(self, objs: list[Any]) -> None:
        n = 0
        try:
            for n, obj in enumerate(objs):
                if self._event(obj, obj.get("type")):
                    self._after_end += len(objs) - n - 1
                    break
        except ListenerFailed as e:
            raise e.error from None
        except (TypeError, AttributeError, KeyError, ValueError) as e:
            raise self._bad_shape(objs, n, e) from None

    def _item(self, obj: dict[str, Any]) -> _Item:
        """Return the item a delta belongs to: by item_id, else by output_index."""
        found = self._by_id.get(obj.get("item_id") or "")
        return found if found is not None else self._items[obj["output_index"]]

    def _event(self, obj: dict[str, Any], kind: Any) -> bool:
        """Fold one event; True for the last one (completed, incomplete)."""
        if kind == "response.function_call_arguments.delta":
            item = self._item(obj)
            piece = obj["delta"]
            item.parts.setdefault(0, []).append(piece)
            if self._on_delta is not None and piece:
                i = item.item
                self._on_delta(
                    StreamDelta("call", piece, item.call, i.get("call_id"), i.get("name"))
                )
        elif kind == "response.output_text.delta":
            item = self._item(obj)
            item.parts.setdefault(int(obj.get("content_index") or 0), []).append(obj["delta"])
            if self._on_delta is not None and obj["delta"]:
                self._on_delta(StreamDelta("text", obj["delta"]))
        elif kind == "response.reasoning_summary_text.delta":
            if self._on_delta is not None and obj["delta"]:
                self._on_delta(StreamDelta("thinking", obj["delta"]))
        elif kind == "response.output_item.added":
            self._added(obj)
        elif kind == "response.output_item.done":
            index = obj["output_index"]
            if index not in self._items:
                self._added(obj)
            done = self._items[index]
            done.item = dict(obj["item"])
            done.done = True
        elif kind in ("response.created", "response.in_progress"):
            self._response = dict(obj["response"])
        elif kind in _ENDS:
            self._final = dict(obj["response"])
            return True
        elif kind == "response.failed":
            response = obj.get("response")
            error = response.get("error") if isinstance(response, dict) else None
            self._raise_error({"error": error or {"message": Msg("the response failed")}})
        elif kind == "error":
            self._raise_error(
                {"error": {"code": obj.get("code"), "message": obj.get("message")}}
                if "error" not in obj
                else obj
            )
        return False

    def _added(self, obj: dict[str, Any]) -> None:
        index = obj["output_index"]
        if type(index) is not int:  # items are put in order by it: "1" beside 0 cannot be
            raise TypeError(
                Msg("output_index is {type}, not an integer", type=type(index).__name__)
            )
        started = dict(obj["item"])
        call = -1
        if started.get("type") == "function_call":
            call = self._calls
            self._calls += 1
        item = _Item(started, call)
        self._items[index] = item
        if isinstance(started.get("id"), str):
            self._by_id[started["id"]] = item
        if call >= 0 and self._on_delta is not None:
            self._on_delta(
                StreamDelta("call", "", call, started.get("call_id"), started.get("name"))
            )

    def finish(self, cut: str | None = None) -> dict[str, Any]:
        reasons = self._closing(cut)
        if self._final is None:
            reasons.append(Msg("no `response.completed`"))
        if reasons:
            body = self._assembled(self._response or {})
            open_calls = [i for i in self._items.values() if i.call >= 0 and not i.done and i.parts]
            text = with_incomplete(
                ended_early(self.bytes_received, reasons),
                [
                    (
                        call_label(i.item.get("call_id"), i.item.get("name")),
                        joined(i.parts.get(0, [])),
                    )
                    for i in open_calls
                ],
            )
            raise StreamCut(text, bytes_received=self.bytes_received, partial=body)
        assert self._final is not None
        self._note_after_end()
        # The last event holds the whole response; a server that leaves its output out
        # (some proxies do) still gave every item on the way.
        if self._final.get("output"):
            return self._final
        return self._assembled(self._final)

    def _assembled(self, response: dict[str, Any]) -> dict[str, Any]:
        body = dict(response)
        body["output"] = [self._items[k].assembled() for k in sorted(self._items)]
        return body
