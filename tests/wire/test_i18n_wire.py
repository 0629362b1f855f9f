"""The wire formats and the error tree in Chinese (issue 18): what reading, converting or streaming
a wire body can fail with is said in Chinese under `--lang zh`, the same English as before under
`en`, and an error kept in a trace stays English whatever the language."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from fccli import i18n
from fccli.core.errors import (
    ConversionError,
    FcError,
    InputFileError,
    ProtocolError,
    ProviderError,
    StreamCut,
)
from fccli.i18n import Msg
from fccli.wire.detect import Unrecognised, detect
from fccli.wire.registry import FORMATS, get_format
from tests.conftest import clean_env


@pytest.fixture
def zh():
    i18n.set_language("zh")
    yield
    i18n.set_language("en")


def failure(call: Any, *args: Any) -> FcError:
    with pytest.raises(FcError) as caught:
        call(*args)
    return caught.value


def said(error: FcError) -> str:
    return error.localized()


# -- each codec's failures: Chinese under zh, the English unchanged


CODEC_FAILURES = [
    (
        "deepseek",
        "from_wire_request",
        {"model": "x", "messages": "hi"},
        "$.messages: expected an array of messages, found a string",
        "$.messages：应为一个消息数组，实际是一个字符串",
    ),
    (
        "openai",
        "from_wire_request",
        {"model": "x", "messages": [{"role": "robot", "content": "hi"}]},
        "$.messages[0].role: unknown role 'robot'",
        "$.messages[0].role：未知的 role 'robot'",
    ),
    (
        "openai",
        "from_wire_response",
        {"choices": []},
        "$.choices: the response has no choices",
        "$.choices：响应里没有 choices",
    ),
    (
        "anthropic",
        "from_wire_request",
        {"model": "x", "max_tokens": 5, "messages": [{"role": "system", "content": "hi"}]},
        "$.messages[0].role: unknown role 'system' (Anthropic has user and assistant only)",
        "$.messages[0].role：未知的 role 'system'（Anthropic 只有 user 和 assistant）",
    ),
    (
        "anthropic",
        "from_wire_request",
        {"model": None, "messages": []},
        "$.model: expected the model's name, found null",
        "$.model：应为模型名称，实际是空值（null）",
    ),
    (
        "gemini",
        "from_wire_response",
        {"candidates": [], "promptFeedback": {"blockReason": "SAFETY"}},
        "$.candidates: no candidate: the prompt was blocked (SAFETY)",
        "$.candidates：没有 candidate：提示被拦截了（SAFETY）",
    ),
    (
        "responses",
        "from_wire_request",
        {"model": "x", "input": [], "tools": [{"type": "web_search"}]},
        "$.tools[0].type: fc holds function tools only, found type 'web_search'",
        "$.tools[0].type：fc 只容纳 function 工具，这里的类型是 'web_search'",
    ),
]


@pytest.mark.parametrize(("fmt", "method", "body", "english", "chinese"), CODEC_FAILURES)
def test_a_codecs_failure_is_said_in_chinese_and_kept_in_english(
    zh: None, fmt: str, method: str, body: Any, english: str, chinese: str
) -> None:
    error = failure(getattr(FORMATS[fmt], method), body)
    assert isinstance(error, ConversionError)
    assert said(error) == chinese
    assert str(error) == english  # what a trace or --json keeps


@pytest.mark.parametrize(("fmt", "method", "body", "english", "chinese"), CODEC_FAILURES)
def test_under_english_a_codecs_failure_is_said_as_before(
    fmt: str, method: str, body: Any, english: str, chinese: str
) -> None:
    error = failure(getattr(FORMATS[fmt], method), body)
    assert said(error) == english == str(error)


def test_a_pydantic_shape_error_keeps_pydantics_words_inside_a_chinese_sentence(zh: None) -> None:
    body = {"choices": [{"message": {"content": "x"}, "finish_reason": "stop"}]}
    body["usage"] = {"prompt_tokens": 1}
    response = FORMATS["openai"].from_wire_response(body)  # reads: nothing to say
    assert response.stop_reason == "end_turn"


def test_an_unknown_wire_format_is_said_in_chinese(zh: None) -> None:
    error = failure(get_format, "klingon")
    assert said(error).startswith("未知的厂商格式 'klingon'\n已知的格式：deepseek, mistral, openai")
    assert str(error).startswith("unknown wire format 'klingon'\nknown formats: deepseek")


def test_a_request_the_provider_would_refuse_is_said_in_chinese(zh: None) -> None:
    from fccli.core.models import Request, ToolChoice

    request = Request(
        model="m", messages=[], thinking=True, tool_choice=ToolChoice(type="required")
    )
    problem = FORMATS["deepseek"].request_problem(request)
    assert problem == (
        "tool_choice 'required' is refused in deepseek's thinking mode, which accepts only "
        "auto or none"
    )
    assert i18n.localized(problem) == (
        "deepseek 的思考模式拒绝 tool_choice 'required'，只接受 auto 或 none"
    )


# -- convert's notes (printed by fccli/convert/translate.py: here, that they are Msgs)


def test_the_notes_of_a_conversion_are_msgs_said_in_chinese(zh: None) -> None:
    from fccli.core.models import Message, Request, ToolResultBlock

    result = ToolResultBlock(tool_use_id="c1", content="boom", is_error=True)
    request = Request(model="m", messages=[Message(role="user", content=[result])])
    (note,) = FORMATS["openai"].written_notes(request)
    assert note == (
        "$.messages[0].content[0].is_error: is_error has no place in chat: marked in the text "
        "as '[tool error] ' (read back as is_error: true)"
    )
    assert i18n.localized(note) == (
        "$.messages[0].content[0].is_error：chat 里没有 is_error 的位置：标记在文本中，"
        "标记为 '[tool error] '（读回时为 is_error: true）"
    )
    added = FORMATS["anthropic"].added_note("max_tokens", "4096")
    assert i18n.localized(added) == "设为 4096（Anthropic 要求 max_tokens；源文件没有设置）"
    assert i18n.localized(FORMATS["anthropic"].results_layout) == (
        "所有 tool_result 内容块放在一条 user 消息里"
    )


# -- detection


def test_what_gave_a_format_away_is_said_in_chinese(zh: None) -> None:
    found = detect(
        {"model": "m", "messages": [{"role": "tool", "tool_call_id": "c", "content": ""}]}
    )
    assert found.reason == 'a message has `"role": "tool"`'
    assert i18n.localized(found.reason) == '有消息带 `"role": "tool"`'


def test_an_unrecognised_document_keeps_its_msg_through_str(zh: None) -> None:
    with pytest.raises(Unrecognised) as caught:
        detect([1, 2])
    problem = str(caught.value)  # what a caller passes on as an InputFileError's problem
    assert isinstance(problem, Msg)
    error = InputFileError("b.json", problem)
    assert said(error) == "b.json：是 JSON 数组，但不是消息数组（带 `role` 的对象）"
    assert str(error) == "b.json: a JSON array, but not of messages (objects with a `role`)"


# -- streams


def _fold(fmt: str, body: bytes, cut: str | None = None) -> dict[str, Any]:
    folder = FORMATS[fmt].stream_folder()
    folder.feed(body)
    return folder.finish(cut)


def _sse(*events: Any) -> bytes:
    return b"".join(
        f"data: {e if isinstance(e, str) else json.dumps(e)}\n\n".encode() for e in events
    )


CALL_HEAD = {
    "choices": [
        {
            "index": 0,
            "delta": {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"ci'},
                    }
                ]
            },
        }
    ]
}


def test_a_cut_chat_stream_is_said_in_chinese_and_kept_in_english(zh: None) -> None:
    with pytest.raises(StreamCut) as caught:
        _fold("deepseek", _sse(CALL_HEAD))
    error = caught.value
    assert str(error) == (
        "the stream ended early after 167 bytes: no `data: [DONE]`, no finish_reason; "
        "call c1 (get_weather) has incomplete arguments: '{\"ci'"
    )
    assert said(error) == (
        "流在 167 字节后提前结束：没有 `data: [DONE]`，没有 finish_reason；"
        "调用 c1（get_weather）的参数不完整：'{\"ci'"
    )
    assert said(error.at(step=2)).startswith("第 2 步：流在 167 字节后提前结束")


def test_a_cut_anthropic_stream_is_said_in_chinese(zh: None) -> None:
    start = {"type": "message_start", "message": {"id": "m", "content": [], "role": "assistant"}}
    block = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
    }
    with pytest.raises(StreamCut) as caught:
        _fold("anthropic", _sse(start, block), cut=Msg("the connection closed mid-stream"))
    assert said(caught.value).startswith("流在 ")
    assert (
        "提前结束：the connection closed mid-stream，没有 `message_stop`，没有 stop_reason，"
        in (said(caught.value))
    )
    assert "内容块 0 没有关闭" in said(caught.value)


def test_a_body_that_is_no_event_stream_is_said_in_chinese(zh: None) -> None:
    with pytest.raises(ProtocolError) as caught:
        _fold("openai", b"<html>502 Bad Gateway</html>")
    assert said(caught.value) == (
        "回答不是事件流：28 字节里没有 `data:` 行，开头是 '<html>502 Bad Gateway</html>'"
    )
    assert str(caught.value).startswith("the answer is not an event stream: 28 bytes")


def test_an_event_that_is_not_json_and_the_providers_own_error(zh: None) -> None:
    with pytest.raises(ProtocolError) as caught:
        _fold("openai", b"data: {nope\n\n")
    assert said(caught.value) == "流的第 1 个事件不是 JSON：'{nope'"
    with pytest.raises(ProviderError) as error:
        _fold("openai", _sse({"error": {"type": "overloaded", "message": "Server busy"}}))
    # the provider's own sentence is quoted as it came
    assert said(error.value) == "厂商在流中报告了错误：overloaded：Server busy"


def test_a_streams_notes_are_msgs(zh: None) -> None:
    stop = {"choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]}
    folder = FORMATS["openai"].stream_folder()
    folder.feed(_sse(stop))
    folder.finish()
    assert folder.notes == ["no `data: [DONE]` line; the stream ended after finish_reason"]
    assert i18n.localized(folder.notes[0]) == "没有 `data: [DONE]` 行；流在 finish_reason 之后结束"


def test_a_listed_msg_crosses_processes_and_says_each_item() -> None:
    listed = i18n.Joined([Msg("no chunk"), Msg("no finishReason")], ", ", zh_sep="，")
    again = pickle.loads(pickle.dumps(Msg("x: {reasons}", reasons=listed)))
    assert again == "x: no chunk, no finishReason"
    i18n.set_language("zh")
    try:
        assert i18n.localized(listed) == "没有任何分块，没有 finishReason"
    finally:
        i18n.set_language("en")


# -- the error tree and `fc: error:`


def test_input_file_error_at_a_json_path_is_one_chinese_sentence(zh: None) -> None:
    problem = Msg("expected {what}, found {found}", what=Msg("an integer"), found=Msg("a string"))
    error = InputFileError("body.json", problem, json_path="$.max_tokens")
    assert said(error) == "body.json，位置 $.max_tokens：应为一个整数，实际是一个字符串"
    assert str(error) == "body.json, at $.max_tokens: expected an integer, found a string"
    assert error.problem == problem and error.json_path == "$.max_tokens"


def test_fc_error_line_is_chinese_under_zh_and_english_under_en(fc, tmp_path: Path) -> None:
    (tmp_path / "b.json").write_text("[1, 2]")
    zh = fc("check", "b.json", "--lang", "zh")
    assert zh.returncode == 2
    assert zh.stderr == "fc: 错误：b.json：是 JSON 数组，但不是消息数组（带 `role` 的对象）\n"
    en = fc("check", "b.json")
    assert en.returncode == 2
    assert (
        en.stderr
        == "fc: error: b.json: a JSON array, but not of messages (objects with a `role`)\n"
    )
    stream = fc("check", "b.json", env=clean_env(FC_LANG="zh"))
    assert stream.stderr.startswith("fc: 错误：b.json：")


def test_an_internal_error_is_said_in_chinese(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    from fccli.commands import entry

    def boom(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("oops")

    monkeypatch.setattr("fccli.commands.help_format.prepared", lambda command: boom)
    monkeypatch.setattr(sys, "argv", ["fc", "--lang", "zh", "show"])
    with pytest.raises(SystemExit) as exit_:
        entry.main()
    i18n.set_language("en")
    assert exit_.value.code == 1
    assert capsys.readouterr().err == (
        "fc: 错误：内部错误：RuntimeError：oops\n"
        "fc: 错误：这是 fc 的缺陷（bug）；设置 FC_DEBUG=1 可查看 traceback\n"
    )


def test_an_error_written_to_a_trace_stays_english(fc, tmp_path: Path) -> None:
    """A stream cut under zh: the manifest's error is the English one, byte for byte."""
    question = "杭州今天适合跑步吗？"
    args = ("run", question, "--stream", "--demo-fault", "cut-stream")
    zh = fc(*args, "-o", "zh", "--lang", "zh")
    en = fc(*args, "-o", "en")
    assert zh.returncode == en.returncode == 3
    assert zh.stderr.startswith("fc: 错误：第 1 步：")
    kept = [json.loads((tmp_path / d / "manifest.json").read_text()) for d in ("zh", "en")]
    assert kept[0]["error"] == kept[1]["error"]
    assert kept[0]["error"]["message"].startswith("step 1: the stream ended early after")
    for name in ("1-request.deepseek.json", "1-response.deepseek.sse"):
        assert (tmp_path / "zh" / name).read_bytes() == (tmp_path / "en" / name).read_bytes()


def test_interrupted_by_a_signal_is_said_in_chinese(
    zh: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from fccli.commands import entry

    class Stopped:
        signal_name = staticmethod(lambda: "SIGTERM")
        exit_code = staticmethod(lambda: 143)

    with pytest.raises(SystemExit) as exit_:
        entry._interrupted(Stopped, i18n._("interrupted"))
    assert exit_.value.code == 143
    assert capsys.readouterr().err == "fc: 错误：已中断（由 SIGTERM 引起）\n"
    i18n.set_language("en")
    with pytest.raises(SystemExit):
        entry._interrupted(Stopped, i18n._("interrupted"))
    assert capsys.readouterr().err == "fc: error: interrupted (by SIGTERM)\n"
