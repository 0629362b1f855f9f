"""A streamed Gemini answer (`:streamGenerateContent?alt=sse`), assembled.

Each `data:` event is a whole GenerateContentResponse holding the parts that are new since the
last one (python-genai `models.py`, generate_content_stream: every chunk parses as a
GenerateContentResponse). A functionCall arrives whole in one chunk (the Gemini API streams no
argument fragments); text and thought text come in pieces, which are joined into one part as a
non-streamed answer has it. `finishReason` comes with the last chunk, `usageMetadata` with every
chunk, cumulative: the last one is the total.

There is no end marker (no `[DONE]`, no `message_stop`): the stream has ended early, and
StreamCut is raised, when the connection was cut (`finish(cut)`), the last line stopped mid-way,
or no chunk carried a finishReason. An error inside the stream (`{"error": {...}}`) is the
provider's error.
"""

from __future__ import annotations

import json
from typing import Any

from fccli.core.errors import StreamCut
from fccli.core.stream import OnDelta, StreamDelta
from fccli.i18n import Msg
from fccli.wire.base import StreamAssembler
from fccli.wire.gemini.codec import SIGNATURE
from fccli.wire.sse import ListenerFailed, ended_early


class GeminiStreamFolder(StreamAssembler):
    """Feed it the raw bytes of a streamGenerateContent stream; `finish()` gives the answer."""

    def __init__(self, on_delta: OnDelta | None = None) -> None:
        super().__init__(on_delta)
        self._parts: list[dict[str, Any]] = []
        self._candidate: dict[str, Any] = {}
        self._top: dict[str, Any] = {}
        self._chunks = 0
        self._calls = 0

    def _fold(self, objs: list[Any]) -> None:
        n = 0
        try:
            for n, obj in enumerate(objs):  # noqa: B007 (n names the bad event below)
                if "error" in obj and "candidates" not in obj:
                    self._raise_error(obj)
                self._chunks += 1
                for key, value in obj.items():
                    if key != "candidates":
                        self._top[key] = value  # usageMetadata (cumulative), modelVersion...
                candidates = obj.get("candidates") or []
                if candidates:
                    self._candidate_chunk(candidates[0])
        except ListenerFailed as e:
            raise e.error from None
        except (TypeError, AttributeError, KeyError, IndexError, ValueError) as e:
            raise self._bad_shape(objs, n, e) from None

    def _candidate_chunk(self, candidate: dict[str, Any]) -> None:
        for key, value in candidate.items():
            if key != "content":
                self._candidate[key] = value
        content = candidate.get("content") or {}
        for part in content.get("parts") or []:
            self._add(dict(part))

    def _add(self, part: dict[str, Any]) -> None:
        text = part.get("text")
        last = self._parts[-1] if self._parts else None
        emit = self._on_delta
        if isinstance(text, str):
            thought = part.get("thought") is True
            if emit is not None and text:
                emit(StreamDelta("thinking" if thought else "text", text))
            if (
                last is not None
                and isinstance(last.get("text"), str)
                and (last.get("thought") is True) == thought
                and SIGNATURE not in last
                and set(part) <= {"text", "thought", SIGNATURE}
            ):
                # A piece of the text before it: one part, as the non-streamed answer has it.
                last["text"] += text
                if SIGNATURE in part:
                    last[SIGNATURE] = part[SIGNATURE]
                return
        elif "functionCall" in part and emit is not None:
            call = part["functionCall"]
            arguments = json.dumps(call.get("args", {}), ensure_ascii=False)
            emit(StreamDelta("call", arguments, self._calls, call.get("id"), call.get("name")))
            self._calls += 1
        self._parts.append(part)

    def finish(self, cut: str | None = None) -> dict[str, Any]:
        reasons = self._closing(cut)
        body = self._body()
        if self._chunks == 0:
            reasons.append(Msg("no chunk"))
        elif "finishReason" not in self._candidate:
            reasons.append(Msg("no finishReason"))
        if reasons:
            raise StreamCut(
                ended_early(self.bytes_received, reasons),
                bytes_received=self.bytes_received,
                partial=body,
            )
        return body

    def _body(self) -> dict[str, Any]:
        candidate = {"content": {"role": "model", "parts": self._parts}, **self._candidate}
        return {"candidates": [candidate], **self._top}
