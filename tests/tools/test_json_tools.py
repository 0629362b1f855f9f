"""Tools written as JSON (`--tools FILE.json`), `--tools none`, `--ask`, and JSON mode on the wire."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fccli.core.errors import UsageError
from fccli.core.models import Message, Request, TextBlock, ToolUseBlock
from fccli.tools.execute import run_call
from fccli.tools.json_tools import load_json_tools
from fccli.tools.loader import load_toolset
from fccli.wire.anthropic import codec as anthropic
from fccli.wire.chat import codec as chat
from fccli.wire.detect import detect

SCHEMA = {
    "type": "object",
    "properties": {"order_id": {"type": "string"}, "amount": {"type": "number"}},
    "required": ["order_id"],
}
RESULTS = [
    {"arguments": {"order_id": "A-1"}, "result": {"status": "shipped"}},
    {"arguments": {"order_id": "B-2"}, "result": "no such order", "is_error": True},
]


EXAMPLES = Path(__file__).resolve().parent.parent.parent / "traces" / "examples"


def write(tmp_path: Path, doc: Any, name: str = "tools.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc, ensure_ascii=False), "utf-8")
    return path


@pytest.mark.parametrize(
    "definition",
    [
        {"name": "get_order", "description": "查订单", "input_schema": SCHEMA},
        {
            "type": "function",
            "function": {"name": "get_order", "description": "查订单", "parameters": SCHEMA},
        },
    ],
    ids=["internal-or-anthropic", "chat"],
)
def test_each_form_gives_the_same_tool(tmp_path: Path, definition: dict[str, Any]) -> None:
    for doc in ([definition], {"tools": [definition]}):
        (spec,) = load_toolset(str(write(tmp_path, doc))).specs()
        assert (spec.name, spec.description, spec.input_schema) == ("get_order", "查订单", SCHEMA)


def call(tools_path: Path, arguments: dict[str, Any], **kw: Any) -> Any:
    tools = load_json_tools(tools_path, **kw)
    return run_call(tools, ToolUseBlock(id="c1", name="get_order", input=arguments))


def test_results_come_from_the_table_then_the_default_then_say_there_is_no_code(
    tmp_path: Path,
) -> None:
    tool = {"name": "get_order", "description": "", "input_schema": SCHEMA, "results": RESULTS}
    bare = write(tmp_path, [tool])
    shipped = call(bare, {"order_id": "A-1", "amount": 3})  # the entry's arguments, and more
    assert (shipped.result.content, shipped.result.is_error) == ('{"status": "shipped"}', False)
    missing = call(bare, {"order_id": "B-2"})
    assert (missing.result.content, missing.result.is_error) == ("no such order", True)
    none = call(bare, {"order_id": "C-3"})
    assert none.result.is_error and none.error_kind == "no_implementation"
    assert "no implementation" in none.result.content
    assert "no `results` entry" in none.result.content and "--ask" in none.result.content
    with_default = write(tmp_path, [{**tool, "default": "ok"}], "d.json")
    assert call(with_default, {"order_id": "C-3"}).result.content == "ok"


def test_a_tool_copied_from_a_request_file_is_told_how_to_get_results(tmp_path: Path) -> None:
    # The `tools` of a trace's request file, or the whole file, is a tools file: its definitions
    # load, and a call says what they lack (a result beside each) and the ways to give one.
    request = json.loads((EXAMPLES / "hangzhou" / "1-request.deepseek.json").read_text("utf-8"))
    for doc in (request["tools"], request):
        path = write(tmp_path, doc)
        tools = load_json_tools(path)
        run = run_call(tools, ToolUseBlock(id="c1", name="get_weather", input={"city": "杭州"}))
        assert run.result.is_error and run.error_kind == "no_implementation"
        said = run.result.content
        assert f"{path} holds its definition only" in said, said
        assert '`"default": RESULT`' in said and '"results": [{"arguments"' in said
        assert "--ask" in said


def test_arguments_are_validated_against_the_schema_before_any_result(tmp_path: Path) -> None:
    path = write(tmp_path, [{"name": "get_order", "input_schema": SCHEMA, "default": "ok"}])
    run = call(path, {"order_id": 5})
    assert run.result.is_error and run.error_kind == "invalid_arguments"
    assert "expected a string" in run.result.content


def test_ask_makes_the_person_the_tool(tmp_path: Path) -> None:
    path = write(tmp_path, [{"name": "get_order", "input_schema": SCHEMA}])
    seen = []

    def person(block: ToolUseBlock) -> str:
        seen.append(block.input)
        return "error: the warehouse is closed" if len(seen) > 1 else "arrived"

    assert call(path, {"order_id": "X"}, asker=person).result.content == "arrived"
    failed = call(path, {"order_id": "Y"}, asker=person)
    assert (failed.result.content, failed.result.is_error) == ("the warehouse is closed", True)
    assert seen == [{"order_id": "X"}, {"order_id": "Y"}]


@pytest.mark.parametrize(
    ("doc", "words"),
    [
        ({"name": "x"}, "a list of tool definitions"),
        ([], "a list of tool definitions"),
        (["x"], "a tool definition is an object"),
        ([{"name": "bad name!"}], "would be refused"),
        ([{"name": "t", "input_schema": []}], "must be a JSON Schema object"),
        ([{"name": "t", "results": {"a": 1}}], "`results` is a list"),
        ([{"type": "function", "function": "t"}], "`function` is an object"),
    ],
)
def test_a_malformed_file_is_a_usage_error(tmp_path: Path, doc: Any, words: str) -> None:
    with pytest.raises(UsageError, match=words):
        load_toolset(str(write(tmp_path, doc)))


def test_tools_none_offers_nothing_and_the_cli_refuses_what_makes_no_sense(
    fc, tmp_path: Path
) -> None:
    assert load_toolset("none").specs() == []
    done = fc("run", "北京今天要带伞吗？", "--tools", "none", "-o", "t")
    assert done.returncode == 0, done.stderr
    request = json.loads((tmp_path / "t/1-request.deepseek.json").read_text("utf-8"))
    assert "tools" not in request
    refused = [
        (["--ask"], "--ask answers for tools defined in a JSON file"),
        (["--pace", "50"], "--pace slows the fragments of a streamed answer"),
        (["--harness-bug", "forget-all"], "unknown --harness-bug"),
        (["--demo-skill", "genius"], "unknown --demo-skill"),
        (["--response-format", "yaml"], "neither json_object nor json_schema:FILE"),
        (["--response-format", "json_schema:nowhere.json"], "no such schema file"),
        (["-p", "ollama", "--demo-skill", "weak"], "--demo-skill sets how well"),
    ]
    for extra, words in refused:
        result = fc("run", "杭州？", *extra)
        assert result.returncode == 2, (extra, result.stderr)
        assert words in result.stderr, (extra, result.stderr)


def test_pace_slows_the_demo_stream_and_is_recorded(fc, tmp_path: Path) -> None:
    done = fc("run", "杭州？", "--stream", "--pace", "1", "-o", "t")
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "t/manifest.json").read_text("utf-8"))
    assert manifest["options"]["pace_ms"] == 1


# ---------------------------------------------------------------------------------------------
# JSON mode on the wire


def _request(response_format: dict[str, Any]) -> Request:
    return Request(
        model="m",
        messages=[Message(role="user", content=[TextBlock(text="q, as json")])],
        response_format=response_format,
    )


SCHEMA_FORMAT = {"type": "json_schema", "json_schema": {"name": "answer", "schema": SCHEMA}}


def test_json_mode_travels_as_chats_response_format_both_ways() -> None:
    for fmt in ({"type": "json_object"}, SCHEMA_FORMAT):
        body = chat.to_wire_request(_request(fmt))
        assert body["response_format"] == fmt
        assert chat.from_wire_request(body).response_format == fmt


def test_json_mode_travels_as_anthropics_output_config_and_json_object_is_refused() -> None:
    body = anthropic.to_wire_request(_request(SCHEMA_FORMAT))
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": SCHEMA}}
    back = anthropic.from_wire_request(body).response_format
    assert back is not None and back["json_schema"]["schema"] == SCHEMA
    assert anthropic.request_problem(_request(SCHEMA_FORMAT)) is None
    problem = anthropic.request_problem(_request({"type": "json_object"}))
    assert problem is not None and "no json_object mode" in problem
    assert "output_config" not in anthropic.to_wire_request(_request({"type": "json_object"}))


def test_detection_tells_json_mode_in_each_format_apart() -> None:
    internal = _request({"type": "json_object"}).to_json_dict()
    assert detect(internal).format == "internal"
    wire = chat.to_wire_request(_request({"type": "json_object"}))
    assert detect(wire).format in ("openai", "deepseek")
    assert detect(anthropic.to_wire_request(_request(SCHEMA_FORMAT))).format == "anthropic"


def test_anthropic_refuses_json_object_before_sending(fc) -> None:
    # The key is checked after the request: the refusal comes first, whatever the key.
    from tests.conftest import clean_env

    result = fc(
        "run",
        "q json",
        "-p",
        "anthropic",
        "--response-format",
        "json_object",
        env=clean_env(ANTHROPIC_API_KEY="sk-test"),
    )
    assert result.returncode == 2
    assert "no json_object mode" in result.stderr


def test_the_person_answering_for_a_tool_is_never_timed_out(
    fc, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # --ask: a learner reads the call and types a result; however long that takes, the answer
    # is the result (and no abandoned reader is left holding stdin for the next call).
    import time

    import fccli.commands.ask

    def slow_person(call: Any) -> str:
        time.sleep(0.6)
        return '{"status": "已签收"}'

    monkeypatch.setattr(fccli.commands.ask, "ask_at_terminal", slow_person)
    tools = Path(__file__).resolve().parent.parent.parent / "docs/course/orders.json"
    done = fc(
        "run",
        "我的订单 ORD-2024-999999 到哪了？",
        "--tools",
        str(tools),
        "--ask",
        "--tool-timeout",
        "0.2",
        "-o",
        "t",
    )
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "t/manifest.json").read_text("utf-8"))
    (run,) = manifest["steps"][0]["tool_runs"]
    assert run["is_error"] is False, run
    assert "已签收" in done.stdout
