"""The OpenAI Responses stream: its folder on honest streams (any pieces, a cut, an error event,
an incomplete end), and on hostile ones over HTTP (a server that breaks the event shapes), where
it says what is wrong (exit 3) or reads around it, never an internal error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fccli.core.errors import ProviderError, StreamCut
from tests.conftest import clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.wire.test_responses import RESPONSES, _answer

CREATED = {"type": "response.created", "response": {"id": "resp_1", "output": []}}
COMPLETED = {"type": "response.completed", "response": {"id": "resp_1", "output": []}}


def _sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def _added(index: Any, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def _run_stream(fc: Any, server: FakeProvider, events: list[dict[str, Any]]) -> Any:
    server.script = [
        {
            "hostile": "status",
            "status": 200,
            "body": _sse(events),
            "content_type": "text/event-stream",
        }
    ]
    return fc(
        "run", "杭州？", "-p", "openai", "--api", "responses", "-m", "gpt-4.1", "--stream",
        "--base-url", server.url, "-o", "t", env=clean_env(OPENAI_API_KEY=DEFAULT_KEY),
    )  # fmt: skip


def test_an_output_index_that_is_no_integer_is_a_bad_shape_not_a_crash(
    fc: Any, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    message = {"type": "message", "id": "msg_1", "role": "assistant", "content": []}
    events = [CREATED, _added(0, message), _added("1", {**message, "id": "msg_2"}), COMPLETED]
    result = _run_stream(fc, fake_provider, events)
    assert result.returncode == 3, result.stderr
    assert "unexpected shape" in result.stderr and "output_index" in result.stderr
    assert "internal error" not in result.stderr


@pytest.mark.parametrize("started", [3, ["x"], {"a": 1}])
def test_a_call_whose_started_arguments_are_no_string_is_read_around(
    fc: Any, fake_provider: FakeProvider, tmp_path: Path, started: Any
) -> None:
    call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather"}
    delta = {
        "type": "response.function_call_arguments.delta",
        "item_id": "fc_1",
        "output_index": 0,
        "delta": '{"city": "杭州"}',
    }
    result = _run_stream(
        fc, fake_provider, [CREATED, _added(0, {**call, "arguments": started}), delta, COMPLETED]
    )
    assert "internal error" not in result.stderr
    assert result.returncode in (0, 3), result.stderr
    # the arguments are kept as the text that came: what was there, then the pieces
    kept = json.loads((tmp_path / "t" / "1-response.responses.json").read_text(encoding="utf-8"))
    assert kept["output"][0]["arguments"] == json.dumps(started) + '{"city": "杭州"}'


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_a_call_with_arguments_that_are_no_json_goes_back_as_the_object_read(
    fc: Any, fake_provider: FakeProvider, tmp_path: Path, stream: bool
) -> None:
    # The model wrote broken JSON arguments (common enough): fc answers the call with an
    # error result and sends the call back as a valid object, as it does in chat. Carrying
    # the broken text back made fc refuse its own next request (FC108, exit 1).
    fake_provider.script = ["bad_json_args"]
    result = fc(
        "run", "杭州？", "-p", "openai", "--api", "responses", "--base-url", fake_provider.url,
        "-o", "t", *(["--stream"] if stream else []), env=clean_env(OPENAI_API_KEY=DEFAULT_KEY),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    sent = json.loads((tmp_path / "t" / "2-request.responses.json").read_text(encoding="utf-8"))
    calls = [i for i in sent["input"] if i.get("type") == "function_call"]
    assert calls and all(isinstance(json.loads(c["arguments"]), dict) for c in calls)
    answered = json.loads((tmp_path / "t" / "1-response.responses.json").read_text("utf-8"))
    assert any(
        i.get("type") == "function_call" and not _is_json(i["arguments"])
        for i in answered["output"]
    ), "the fault did not reach the answer"


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _stream(answer: dict[str, Any], *, end: bool = True) -> bytes:
    start = {**answer, "status": "in_progress", "output": []}
    events: list[dict[str, Any]] = [{"type": "response.created", "response": start}]
    for n, item in enumerate(answer["output"]):
        head = dict(item)
        if item["type"] == "function_call":
            head["arguments"] = ""
        events.append({"type": "response.output_item.added", "output_index": n, "item": head})
        if item["type"] == "function_call":
            text = item["arguments"]
            for k in range(0, len(text), 3):
                events.append(
                    {
                        "type": "response.function_call_arguments.delta",
                        "item_id": item["id"],
                        "output_index": n,
                        "delta": text[k : k + 3],
                    }
                )
        events.append({"type": "response.output_item.done", "output_index": n, "item": item})
    if end:
        events.append({"type": "response.completed", "response": answer})
    return _sse([{**e, "sequence_number": k} for k, e in enumerate(events)]).encode()


def test_a_stream_cut_mid_arguments_is_stream_cut_with_the_partial_call() -> None:
    raw = _stream(_answer(), end=False)
    cut = raw[: raw.index(b"response.output_item.done", raw.index(b"function_call_arguments"))]
    cut = cut[: cut.rindex(b"event:")]
    folder = RESPONSES.stream_folder()
    folder.feed(cut)
    with pytest.raises(StreamCut, match="incomplete arguments") as info:
        folder.finish("the connection closed mid-stream")
    assert info.value.partial is not None
    assert info.value.partial["output"][1]["call_id"] == "call_a"


def test_an_error_event_is_the_providers_error() -> None:
    folder = RESPONSES.stream_folder()
    event = {"type": "error", "code": "server_error", "message": "boom", "sequence_number": 0}
    with pytest.raises(ProviderError, match="server_error: boom"):
        folder.feed(_sse([event]).encode())


def test_a_stream_that_ends_incomplete_is_an_answer_not_a_cut() -> None:
    answer = _answer(status="incomplete", incomplete_details={"reason": "max_output_tokens"})
    raw = _stream(answer).replace(b"response.completed", b"response.incomplete")
    folder = RESPONSES.stream_folder()
    folder.feed(raw)
    assert RESPONSES.from_wire_response(folder.finish()).stop_reason == "max_tokens"
