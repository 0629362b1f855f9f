"""The internal format: its JSON shape is a contract (CLI.md), and bad files name file and JSON path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fccli.core.errors import InputFileError
from fccli.core.jsonio import MAX_DEPTH, dumps, json_path, parse_json, read_json, validate
from fccli.core.models import (
    Message,
    Request,
    Response,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)


def test_blocks_dump_to_the_shapes_of_cli_md() -> None:
    message = Message(
        role="assistant",
        content=[
            TextBlock(text="我先查一下杭州的天气。"),
            ToolUseBlock(id="toolu_1", name="get_weather", input={"city": "杭州"}),
        ],
    )
    assert message.to_json_dict() == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "我先查一下杭州的天气。"},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "杭州"}},
        ],
    }


def test_tool_result_always_says_is_error() -> None:
    block = ToolResultBlock(tool_use_id="toolu_1", content="21")
    assert block.to_json_dict() == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "21",
        "is_error": False,
    }


def test_raw_arguments_appear_only_when_the_arguments_were_not_an_object() -> None:
    ok = ToolUseBlock(id="a", name="t", input={"x": 1})
    bad = ToolUseBlock(id="b", name="t", input={}, raw_arguments='{"x": ')
    assert "raw_arguments" not in ok.to_json_dict()
    assert bad.to_json_dict()["raw_arguments"] == '{"x": '


def test_a_string_content_means_one_text_block() -> None:
    message = Message.model_validate({"role": "user", "content": "hi"})
    assert message.content == [TextBlock(text="hi")]


def test_request_round_trips_through_json() -> None:
    request = Request(
        model="m",
        messages=[
            Message(role="user", content=[TextBlock(text="q")]),
            Message(
                role="assistant",
                content=[ToolUseBlock(id="c1", name="t", input={"a": [1, {"b": None}]})],
            ),
            Message(
                role="user", content=[ToolResultBlock(tool_use_id="c1", content="x", is_error=True)]
            ),
        ],
    )
    assert Request.model_validate(json.loads(dumps(request.to_json_dict()))) == request


def test_response_reports_its_calls_and_text() -> None:
    response = Response.model_validate(
        {
            "content": [
                {"type": "thinking", "thinking": "hm"},
                {"type": "text", "text": "a"},
                {"type": "tool_use", "id": "c", "name": "t", "input": {}},
            ],
            "stop_reason": "tool_use",
        }
    )
    assert [c.id for c in response.tool_uses()] == ["c"]
    assert response.text() == "a"
    assert response.as_message().role == "assistant"


def test_unknown_stop_reasons_are_kept_not_rejected() -> None:
    assert Response(content=[], stop_reason="pause_turn").stop_reason == "pause_turn"


def test_a_bad_block_names_the_file_and_the_json_path(tmp_path: Path) -> None:
    path = tmp_path / "2-request.json"
    bad = {
        "model": "m",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "q"}]},
            {"role": "user", "content": [{"type": "tool_result", "content": "21"}]},
        ],
    }
    path.write_text(json.dumps(bad))
    with pytest.raises(InputFileError) as err:
        validate(Request, read_json(path), str(path))
    assert err.value.path == str(path)
    assert err.value.json_path == "$.messages[1].content[0].tool_use_id"
    assert "Field required" in str(err.value)


def test_an_unknown_block_type_is_named(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(
        json.dumps({"model": "m", "messages": [{"role": "user", "content": [{"type": "image"}]}]})
    )
    with pytest.raises(InputFileError) as err:
        validate(Request, read_json(path), str(path))
    assert err.value.json_path == "$.messages[0].content[0]"
    assert "image" in str(err.value)


def test_malformed_json_says_where(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"model": "m",\n "messages": [}')
    with pytest.raises(InputFileError) as err:
        read_json(path)
    assert str(path) in str(err.value)
    assert "line 2" in str(err.value)


def test_a_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="no such file"):
        read_json(tmp_path / "nope.json")


def test_json_path_drops_the_union_tag() -> None:
    assert json_path(("messages", 2, "content", 0, "tool_result", "tool_use_id")) == (
        "$.messages[2].content[0].tool_use_id"
    )
    assert json_path(()) == "$"


def test_files_are_pretty_utf8_json() -> None:
    assert dumps({"city": "杭州"}) == '{\n  "city": "杭州"\n}\n'


def test_a_tool_choice_names_a_tool_exactly_when_its_type_is_tool() -> None:
    from pydantic import ValidationError

    from fccli.core.models import ToolChoice

    assert ToolChoice(type="tool", name="get_weather").name == "get_weather"
    with pytest.raises(ValidationError):
        ToolChoice(type="tool")
    with pytest.raises(ValidationError):
        ToolChoice(type="auto", name="get_weather")


# ---------------------------------------------------------------------------------------------
# what cannot be read at all: nested too deeply, empty


def test_json_nested_past_pythons_stack_is_an_input_error_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 5000)
    with pytest.raises(InputFileError) as err:
        read_json(path)
    assert (
        str(err.value)
        == f"{path}: nested too deeply (more than {MAX_DEPTH} levels of arrays and objects)"
    )


def test_json_nested_deeper_than_fc_reads_says_where(tmp_path: Path) -> None:
    deep = {"messages": [{"input": json.loads("[" * 300 + "]" * 300)}]}
    with pytest.raises(InputFileError, match="nested too deeply") as err:
        parse_json(json.dumps(deep), "d.json")
    assert err.value.json_path == "$.messages[0].input[0][0][0][0][0]…"
    # Just inside the limit is read.
    ok = json.loads("[" * (MAX_DEPTH - 1) + "{}" + "]" * (MAX_DEPTH - 1))
    assert parse_json(json.dumps(ok), "ok.json") == ok
    with pytest.raises(InputFileError, match="nested too deeply"):
        parse_json(json.dumps([ok]), "one-more.json")


@pytest.mark.parametrize(
    ("text", "says"), [(b"", "empty file"), (b" \n\t", "empty file (only blanks)")]
)
def test_an_empty_file_says_so(tmp_path: Path, text: bytes, says: str) -> None:
    path = tmp_path / "e.json"
    path.write_bytes(text)
    with pytest.raises(InputFileError) as err:
        read_json(path)
    assert str(err.value) == f"{path}: {says}"


def test_an_errors_step_is_a_field_said_when_shown_and_at_copies_it() -> None:
    from fccli.core.errors import ProviderError, StreamCut

    cut = StreamCut("the stream ended early", bytes_received=12, partial={"a": 1})
    located = cut.at(step=2, hint="see 2-response.openai.sse")
    assert located is not cut and isinstance(located, StreamCut)
    assert (cut.step, cut.hint) == (None, None)  # the raised one is never changed
    assert (located.step, located.message, located.partial) == (2, cut.message, {"a": 1})
    assert str(located) == "step 2: the stream ended early\nsee 2-response.openai.sse"
    assert ProviderError("boom", step=3).said() == "step 3: boom"
