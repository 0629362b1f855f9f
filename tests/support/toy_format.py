"""A toy wire format, for the test that adding a format is one module plus one registry line
(tests/wire/test_toy_format.py). It is fc's internal JSON with a `toy_version` field, and the stop
reason under `stop`: small, but a format of its own that every reader must find in the registry.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fccli.core.errors import ConversionError
from fccli.core.models import Request, Response
from fccli.core.stream import OnDelta
from fccli.wire.base import Detected, FormatDefaults, Refusal, StreamFolder
from fccli.wire.shape import expect, shape_errors

MARK = "toy_version"


class _WholeBody:
    """The toy has no stream of its own: the body arrives whole."""

    def __init__(self) -> None:
        self._data = bytearray()
        self.notes: list[str] = []

    @property
    def bytes_received(self) -> int:
        return len(self._data)

    ended = False

    def feed(self, chunk: bytes) -> None:
        self._data += chunk

    def finish(self, cut: str | None = None) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(self._data)
        return parsed


class ToyFormat(FormatDefaults):
    name = "toy"
    family = "blocks"
    holder = "toy"
    stop_field = "stop"
    results_layout = "all results in one user message, as fc's own blocks"
    reasoning_field = None
    thinking_tool_choices = None
    signed_thinking = False

    @property
    def refusals(self) -> Mapping[str, Refusal]:
        return {"FC101": ("Toy Inc.", "call {ids} has no result")}

    def to_wire_request(self, request: Request) -> dict[str, Any]:
        return {MARK: 1, **request.to_json_dict()}

    def from_wire_request(self, body: Any) -> Request:
        inner = self._unwrapped(body)
        with shape_errors():
            return Request.model_validate(inner)

    def to_wire_response(self, response: Response) -> dict[str, Any]:
        body = response.to_json_dict()
        return {MARK: 1, **{("stop" if k == "stop_reason" else k): v for k, v in body.items()}}

    def from_wire_response(self, body: Any) -> Response:
        inner = self._unwrapped(body)
        inner["stop_reason"] = expect(inner.pop("stop", None), str, "$.stop", "a stop reason")
        with shape_errors():
            return Response.model_validate(inner)

    def _unwrapped(self, body: Any) -> dict[str, Any]:
        expect(body, dict, "$", "an object")
        if body.get(MARK) != 1:
            raise ConversionError("not a toy body (toy_version 1)", json_path=f"$.{MARK}")
        return {k: v for k, v in body.items() if k != MARK}

    def wire_stop_reason(self, body: Any) -> str | None:
        stop = body.get("stop") if isinstance(body, dict) else None
        return stop if isinstance(stop, str) else None

    def stream_folder(self, on_delta: OnDelta | None = None) -> StreamFolder:
        return _WholeBody()

    def detect(self, doc: Any, name_hint: str | None) -> Detected | None:
        if not (isinstance(doc, dict) and MARK in doc):
            return None
        kind = "response" if "stop" in doc else "request"
        return Detected(self.name, kind, f"it has `{MARK}`")

    def thinking_on(self, body: dict[str, Any]) -> bool:
        return body.get("thinking") is True
