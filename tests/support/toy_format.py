"""A toy wire format of a layout family of its own (`turns`), for the test that adding a format
is one package-like module plus one registry entry (tests/wire/test_toy_format.py).

Its history is not a list of messages but of turns, each holding its question, the steps the
model took to answer it (what it said, the calls it made and their results, together) and the
answer:

    {"toy_version": 1, "model": "...", "tools": [...],
     "turns": [{"ask": "...", "steps": [{"say": "...", "calls": [{"id", "tool", "args"}],
                                          "results": [{"id", "output", "error"}]}],
                "answer": "..."}]}

An answer is `{"toy_version": 1, "say": "...", "calls": [...], "stop": "..."}`. What the toy
loses: thinking and provider blocks, and text sent beside results.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fccli.core.errors import ConversionError
from fccli.core.models import (
    Message,
    Request,
    Response,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from fccli.core.stream import OnDelta
from fccli.wire.base import Detected, Refusal, StreamFolder, WireFormat
from fccli.wire.shape import expect, shape_errors
from fccli.wire.view import (
    Call,
    Choice,
    OfferedTool,
    Places,
    Result,
    Turn,
    as_id,
    blocks_choice,
    offered_at,
)

MARK = "toy_version"
FAMILY = "turns"


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


def _calls(blocks: list[Any]) -> list[dict[str, Any]]:
    return [
        {"id": b.id, "tool": b.name, "args": b.input} for b in blocks if isinstance(b, ToolUseBlock)
    ]


def _text(blocks: list[Any]) -> str:
    return "".join(b.text for b in blocks if isinstance(b, TextBlock))


def turns_of(messages: list[Message]) -> list[dict[str, Any]]:
    """Messages laid out as turns (loses thinking, and text beside results)."""
    turns: list[dict[str, Any]] = []
    for m in messages:
        text, calls = _text(m.content), _calls(m.content)
        results = [b for b in m.content if isinstance(b, ToolResultBlock)]
        if m.role == "user" and results:
            if not turns:
                turns.append({"steps": []})
            if not turns[-1]["steps"]:
                turns[-1]["steps"].append({"calls": []})
            turns[-1]["steps"][-1]["results"] = [
                {
                    "id": r.tool_use_id,
                    "output": r.content,
                    **({"error": True} if r.is_error else {}),
                }
                for r in results
            ]
        elif m.role == "user":
            turns.append({"ask": text, "steps": []})
        elif calls:
            if not turns:
                turns.append({"steps": []})
            turns[-1]["steps"].append({**({"say": text} if text else {}), "calls": calls})
        else:
            if not turns:
                turns.append({"steps": []})
            turns[-1]["answer"] = text
    return turns


def messages_of(turns: Any) -> list[dict[str, Any]]:
    """Turns read back as fc's messages."""
    out: list[dict[str, Any]] = []
    for i, turn in enumerate(expect(turns, list, "$.turns", "a list of turns")):
        expect(turn, dict, f"$.turns[{i}]", "a turn")
        if "ask" in turn:
            out.append({"role": "user", "content": [{"type": "text", "text": turn["ask"]}]})
        for j, step in enumerate(
            expect(turn.get("steps", []), list, f"$.turns[{i}].steps", "a list")
        ):
            expect(step, dict, f"$.turns[{i}].steps[{j}]", "a step")
            said = [{"type": "text", "text": step["say"]}] if step.get("say") else []
            calls = [
                {
                    "type": "tool_use",
                    "id": c.get("id"),
                    "name": c.get("tool"),
                    "input": c.get("args"),
                }
                for c in step.get("calls", [])
            ]
            out.append({"role": "assistant", "content": said + calls})
            if "results" in step:
                out.append(
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": r.get("id"),
                                "content": r.get("output"),
                                "is_error": r.get("error") is True,
                            }
                            for r in step["results"]
                        ],
                    }
                )
        if "answer" in turn:
            out.append({"role": "assistant", "content": [{"type": "text", "text": turn["answer"]}]})
    return out


def _view_turns(turns: list[Any], root: str) -> list[Turn]:
    """Each toy turn as the view's turns: the question, then per step the model's calls and
    the results, then the answer; every call and result keeps its own path."""
    out: list[Turn] = []
    for i, turn in enumerate(turns):
        at = f"{root}[{i}]"
        turn = turn if isinstance(turn, dict) else {}
        if "ask" in turn:
            asked = Turn(len(out), "user", at, raw=turn)
            asked.kinds.append("text")
            asked.text = turn["ask"] if isinstance(turn["ask"], str) else ""
            out.append(asked)
        steps = turn.get("steps")
        for j, step in enumerate(steps if isinstance(steps, list) else []):
            where = f"{at}.steps[{j}]"
            step = step if isinstance(step, dict) else {}
            model = Turn(len(out), "assistant", where, raw=step)
            if isinstance(step.get("say"), str):
                model.kinds.append("text")
                model.text = step["say"]
            calls = step.get("calls")
            for k, c in enumerate(calls if isinstance(calls, list) else []):
                c = c if isinstance(c, dict) else {}
                path = f"{where}.calls[{k}]"
                args = c.get("args")
                model.kinds.append("call")
                model.calls.append(
                    Call(
                        as_id(c.get("id")),
                        c.get("tool"),
                        args,
                        args,
                        True,
                        model.index,
                        k,
                        path,
                        f"{path}.args",
                        f"{path}.tool",
                    )
                )
            out.append(model)
            results = step.get("results")
            if isinstance(results, list):
                user = Turn(len(out), "user", f"{where}.results", raw=step)
                for k, r in enumerate(results):
                    r = r if isinstance(r, dict) else {}
                    user.kinds.append("result")
                    user.results.append(
                        Result(
                            as_id(r.get("id")),
                            r.get("output"),
                            r.get("error") is True,
                            user.index,
                            k,
                            f"{where}.results[{k}]",
                            "id",
                            "output",
                        )
                    )
                out.append(user)
        if isinstance(turn.get("answer"), str):
            answer = Turn(len(out), "assistant", f"{at}.answer", raw=turn)
            answer.kinds.append("text")
            answer.text = turn["answer"]
            out.append(answer)
    return out


class ToyFormat(WireFormat):
    name = "toy"
    family = FAMILY
    holder = "toy"
    stop_field = "stop"
    history_field = "turns"
    results_layout = "the results of a step beside its calls, in the turn they answer"
    places = Places(stop="$.stop", answer="$.say")
    placement = "next_message"
    appends_turns = False
    model_in_body = True

    @property
    def refusals(self) -> Mapping[str, Refusal]:
        return {"FC101": ("Toy Inc.", "call {ids} has no result")}

    def read_turns(
        self, messages: list[Any], root: str, start: int, before: list[Turn]
    ) -> list[Turn]:
        return _view_turns(messages, root)

    def offered_tools(self, doc: dict[str, Any]) -> list[OfferedTool]:
        return offered_at(doc, "input_schema")

    def tool_choice(self, doc: dict[str, Any]) -> Choice | None:
        return blocks_choice(doc)

    def to_wire_request(self, request: Request) -> dict[str, Any]:
        body = request.to_json_dict()
        del body["messages"]
        return {MARK: 1, **body, "turns": turns_of(request.messages)}

    def from_wire_request(self, body: Any) -> Request:
        inner = self._unwrapped(body)
        inner["messages"] = messages_of(inner.pop("turns", None))
        with shape_errors():
            return Request.model_validate(inner)

    def to_wire_response(self, response: Response) -> dict[str, Any]:
        body: dict[str, Any] = {MARK: 1}
        for key in ("id", "model"):
            if getattr(response, key) is not None:
                body[key] = getattr(response, key)
        text, calls = _text(response.content), _calls(response.content)
        body.update({"say": text} if text else {})
        body.update({"calls": calls} if calls else {})
        body["stop"] = response.stop_reason
        if response.usage is not None:
            body["usage"] = response.usage.model_dump(exclude_none=True)
        return body

    def from_wire_response(self, body: Any) -> Response:
        inner = self._unwrapped(body)
        content: list[dict[str, Any]] = []
        if isinstance(inner.get("say"), str):
            content.append({"type": "text", "text": inner["say"]})
        for c in expect(inner.get("calls", []), list, "$.calls", "a list of calls"):
            content.append(
                {
                    "type": "tool_use",
                    "id": c.get("id"),
                    "name": c.get("tool"),
                    "input": c.get("args"),
                }
            )
        read = {k: inner[k] for k in ("id", "model", "usage") if k in inner}
        read["stop_reason"] = expect(inner.get("stop"), str, "$.stop", "a stop reason")
        with shape_errors():
            return Response.model_validate({**read, "content": content})

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
