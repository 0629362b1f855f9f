"""`fc diff`: internal vs wire as a field-by-field mapping (golden files), two files of one
format by JSON path, two wire formats by meaning; --exit-code, --json, and bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from fccli.convert.translate import convert
from fccli.core.jsonio import dumps
from fccli.diff.compare import diff_documents
from fccli.diff.structural import Change, changes, segments, where
from fccli.render.diff_view import render_diff
from fccli.trace.reader import document_from, read_document
from tests.conftest import REPO
from tests.support import golden

EXAMPLES = REPO / "traces" / "examples"
NAMES = sorted(
    p.name
    for p in EXAMPLES.iterdir()
    if (p / "manifest.json").is_file()
    # The examples the demo model made, in its DeepSeek format (the Gemini one has its own tests).
    and json.loads((p / "manifest.json").read_text("utf-8"))["wire_format"] == "deepseek"
)


def load(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def rendered(a: str, b: str) -> str:
    console = golden.string_console()
    render_diff(console, diff_documents(read_document(a), read_document(b)))
    return golden.output(console)


# ---------------------------------------------------------------------------------------------
# internal vs wire: the mapping


@pytest.mark.parametrize(
    ("trace", "a", "b"),
    [
        ("hangzhou", "1-request.json", "1-request.deepseek.json"),
        ("hangzhou", "2-request.json", "2-request.deepseek.json"),
        ("unknown-city", "2-request.json", "2-request.deepseek.json"),
        ("three-cities", "2-request.json", "2-request.deepseek.json"),
        ("three-cities", "1-response.json", "1-response.deepseek.json"),
    ],
)
def test_mappings_match_their_golden_files(
    trace: str, a: str, b: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(EXAMPLES / trace)
    name = f"diff-{trace}-{a.removesuffix('.json')}.txt"
    golden.check(name, rendered(a, b))


@pytest.mark.parametrize("trace", NAMES)
def test_the_mapping_of_each_step_names_the_fields_that_change_name(fc, trace: str) -> None:
    here = EXAMPLES / trace
    step1 = fc("diff", "1-request.json", "1-request.deepseek.json", "--exit-code", cwd=here)
    assert step1.returncode == 0, step1.stderr
    assert (
        ".content[0].text" in step1.stdout and "text block → the `content` string" in step1.stdout
    )
    assert ".input_schema" in step1.stdout and ".parameters" in step1.stdout
    step2 = fc("diff", "2-request.json", "2-request.deepseek.json", "--exit-code", cwd=here)
    assert step2.returncode == 0, step2.stderr
    out = step2.stdout
    for pair in (
        ("    .input", ".function.arguments", "`input` object → `arguments` JSON string"),
        ("    .tool_use_id", ".tool_call_id", "`tool_use_id` → `tool_call_id`"),
        (".content[0].thinking", ".reasoning_content", "thinking block → `reasoning_content`"),
    ):
        line = next(
            line
            for line in out.splitlines()
            if line.startswith(f"  {pair[0].strip()}") or pair[0] in line
        )
        assert pair[1] in line
        assert pair[2] in out
    assert "tool_result" in out
    assert "the same meaning:" in out
    calls = sum(1 for b in load(here / "1-response.json")["content"] if b["type"] == "tool_use")
    assert f"1 user message → {calls} `tool` message" in out


def test_an_error_result_shows_the_marker_that_replaces_is_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(EXAMPLES / "unknown-city")
    out = rendered("2-request.json", "2-request.deepseek.json")
    line = next(line for line in out.splitlines() if line.lstrip().startswith(".is_error"))
    assert "→     .content" in line
    assert "no flag in deepseek: the '[tool error] ' marker" in out


def test_the_wire_file_first_gives_the_same_mapping(fc) -> None:
    here = EXAMPLES / "hangzhou"
    forward = fc("diff", "2-request.json", "2-request.deepseek.json", "--json", cwd=here)
    backward = fc("diff", "2-request.deepseek.json", "2-request.json", "--json", cwd=here)
    a, b = json.loads(forward.stdout), json.loads(backward.stdout)
    assert a["mapping"] == b["mapping"]
    assert a["same"] and b["same"]


def test_a_response_maps_its_stop_reason_and_lists_what_only_the_wire_has(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(EXAMPLES / "hangzhou")
    out = rendered("1-response.json", "1-response.deepseek.json")
    assert (
        '$.stop_reason                        → $.choices[0].finish_reason  "tool_use" → "tool_calls"'
        in out
    )
    assert "only in deepseek (the internal format keeps none of these):" in out
    assert "  $.created = 1767225600" in out


def edited(tmp_path: Path, source: Path, edit: Any, name: str) -> Path:
    data = load(source)
    edit(data)
    path = tmp_path / name
    path.write_text(dumps(data), encoding="utf-8")
    return path


def test_a_real_difference_in_meaning_is_flagged_with_where_it_is(fc, tmp_path: Path) -> None:
    source = EXAMPLES / "three-cities" / "2-request.deepseek.json"

    def edit(data: dict[str, Any]) -> None:
        data["messages"][1]["tool_calls"][1]["function"]["arguments"] = '{"city":"广州"}'
        data["messages"][3]["content"] = '{"temp_c": 39}'

    wire = edited(tmp_path, source, edit, "2-request.deepseek.json")
    result = fc("diff", str(EXAMPLES / "three-cities" / "2-request.json"), str(wire), "--exit-code")
    assert result.returncode == 1
    out = result.stdout
    assert "2 differences in meaning" in out
    assert (
        '~ $.messages[1].content[3].input.city  (message 1 (assistant) › call call_d0d48405d893073b585c2b19 (get_weather) › input.city): "上海" → "广州"'
        in out
    )
    assert "result for call_d0d48405d893073b585c2b19 › content" in out
    arguments_row = [line for line in out.splitlines() if line.strip().startswith(".input")][1]
    assert "≠ differs" in arguments_row
    data = json.loads(
        fc("diff", str(EXAMPLES / "three-cities" / "2-request.json"), str(wire), "--json").stdout
    )
    assert data["same"] is False
    assert {d["path"] for d in data["differences"]} == {
        "$.messages[1].content[3].input.city",
        "$.messages[2].content[1].content",
    }


def test_arguments_written_with_other_spacing_mean_the_same(fc, tmp_path: Path) -> None:
    source = EXAMPLES / "hangzhou" / "2-request.deepseek.json"

    def edit(data: dict[str, Any]) -> None:
        data["messages"][1]["tool_calls"][0]["function"]["arguments"] = '{ "city" : "杭州" }'

    wire = edited(tmp_path, source, edit, "w.deepseek.json")
    result = fc("diff", str(EXAMPLES / "hangzhou" / "2-request.json"), str(wire), "--exit-code")
    assert result.returncode == 0, result.stdout
    assert "≠" not in result.stdout


def test_openai_has_no_place_for_thinking(tmp_path: Path) -> None:
    internal = read_document(str(EXAMPLES / "hangzhou" / "2-request.json"))
    wire = convert(internal, "openai").output
    result = diff_documents(internal, document_from(wire, "2-request.openai.json"))
    row = next(link for link in result.links if link.a.endswith("content[0].thinking"))
    assert row.b == [] and row.note == "no place in openai"
    assert not result.differ  # openai says all it can; the loss is convert's to report


def test_anthropic_maps_block_for_block(tmp_path: Path) -> None:
    internal = read_document(str(EXAMPLES / "unknown-city" / "2-request.json"))
    wire = convert(internal, "anthropic").output
    result = diff_documents(internal, document_from(wire, "2-request.anthropic.json"))
    rows = {link.a: link for link in result.links}
    assert rows["$.messages[1].content[2].input"].b == ["$.messages[1].content[2].input"]
    assert rows["$.messages[2].content[0].is_error"].b == ["$.messages[2].content[0].is_error"]
    assert ("$.max_tokens", 4096) in result.wire_only
    assert not result.differ


# ---------------------------------------------------------------------------------------------
# one format: structural; two wire formats: meaning


def test_two_files_of_one_format_are_diffed_by_path_with_long_strings_inline(
    fc, tmp_path: Path
) -> None:
    source = EXAMPLES / "hangzhou" / "2-request.deepseek.json"

    def edit(data: dict[str, Any]) -> None:
        data["messages"][2]["content"] = data["messages"][2]["content"].replace("21", "39")
        data["tools"][0]["function"]["strict"] = True
        del data["messages"][1]["reasoning_content"]

    shutil.copy(source, tmp_path / "a.deepseek.json")
    edited(tmp_path, source, edit, "b.deepseek.json")
    golden_text = fc("diff", "a.deepseek.json", "b.deepseek.json", cwd=tmp_path).stdout
    golden.check("diff-structural.txt", golden_text)
    assert (
        fc("diff", "a.deepseek.json", "b.deepseek.json", "--exit-code", cwd=tmp_path).returncode
        == 1
    )
    same = fc("diff", "a.deepseek.json", "a.deepseek.json", "--exit-code", cwd=tmp_path)
    assert same.returncode == 0 and "no differences" in same.stdout


def test_two_wire_formats_are_compared_by_meaning(tmp_path: Path) -> None:
    internal = read_document(str(EXAMPLES / "three-cities" / "2-request.json"))
    deepseek = document_from(convert(internal, "deepseek").output, "a.deepseek.json")
    anthropic_wire = convert(internal, "anthropic").output
    anthropic_wire.pop("max_tokens")  # not the same request any more: max_tokens now differs
    anthropic = document_from(anthropic_wire, "b.anthropic.json", forced="anthropic")
    result = diff_documents(deepseek, anthropic)
    assert result.mode == "meaning"
    assert [c.to_json() for c in result.changes] == []
    anthropic_wire["messages"][2]["content"][0]["is_error"] = True
    result = diff_documents(
        deepseek, document_from(anthropic_wire, "b.anthropic.json", forced="anthropic")
    )
    assert [(c.path, c.old, c.new) for c in result.changes] == [
        ("$.messages[2].content[0].is_error", False, True)
    ]


# ---------------------------------------------------------------------------------------------
# the structural differ itself


def test_an_inserted_element_is_one_change_not_a_cascade() -> None:
    a = {"m": [{"x": 1}, {"x": 2}, {"x": 3}]}
    b = {"m": [{"x": 1}, {"x": 9}, {"x": 2}, {"x": 3}]}
    assert changes(a, b) == [Change(("m", 1), "added", new={"x": 9})]


def test_keys_added_removed_and_values_of_another_type() -> None:
    found = changes({"a": 1, "b": True, "c": 1}, {"a": 1, "b": 1, "d": None})
    assert [(c.path, c.kind) for c in found] == [
        ("$.b", "changed"),
        ("$.c", "removed"),
        ("$.d", "added"),
    ]
    assert changes({"weird key": 1}, {"weird key": 2})[0].path == '$["weird key"]'


def test_string_segments_work_character_by_character() -> None:
    assert segments("杭州现在 21°C", "杭州现在 39°C") == [
        ("=", "杭州现在 "),
        ("-", "21"),
        ("+", "39"),
        ("=", "°C"),
    ]


def test_where_names_the_element_in_words() -> None:
    doc = load(EXAMPLES / "hangzhou" / "2-request.json")
    said = where(doc, ("messages", 1, "content", 2, "input", "city"))
    assert (
        said
        == "message 1 (assistant) › call call_3a59e4a9768d1b816e073447 (get_weather) › input.city"
    )
    assert where(doc, ("tools", 0, "description")) == "tool get_weather › description"


# ---------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    ("a", "b", "says"),
    [
        ("1-request.json", "1-response.deepseek.json", "is a request and"),
        ("1-request.json", "nothing.json", "nothing.json: no such file"),
        ("1-request.json", "bad.json", "bad.json: not valid JSON"),
        ("1-request.json", "other.json", "not a request or response fc can read"),
        ("1-request.json", ".", "is a directory"),
    ],
)
def test_bad_input_is_exit_2_with_one_clear_line(
    fc, tmp_path: Path, a: str, b: str, says: str
) -> None:
    for name in ("1-request.json", "1-response.deepseek.json"):
        shutil.copy(EXAMPLES / "hangzhou" / name, tmp_path / name)
    (tmp_path / "bad.json").write_text("{")
    (tmp_path / "other.json").write_text('{"x": 1}')
    result = fc("diff", a, b)
    assert result.returncode == 2
    assert says in result.stderr.splitlines()[0]
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) <= 2


# ---------------------------------------------------------------------------------------------
# arguments that were not a JSON object


def cut_call(arguments: str) -> dict[str, Any]:
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": arguments},
    }
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return {"id": "r", "choices": [{"index": 0, "message": message, "finish_reason": "length"}]}


def test_a_cut_call_kept_as_the_model_sent_it_means_the_same() -> None:
    wire = document_from(cut_call('{"ci'), "1-response.deepseek.json")
    internal = document_from(wire.internal_json(), "1-response.json")
    assert internal.internal_json()["content"][0]["raw_arguments"] == '{"ci'
    result = diff_documents(internal, wire)
    assert not result.differ
    row = next(link for link in result.links if link.a.endswith(".raw_arguments"))
    assert row.b == ["$.choices[0].message.tool_calls[0].function.arguments"]
    assert row.status == "same"
    other = diff_documents(internal, document_from(cut_call('{"x'), "1-response.deepseek.json"))
    assert [(c.path, c.kind, c.new) for c in other.changes] == [
        ("$.content[0].raw_arguments", "added", '{"x')
    ]


def test_a_cut_call_sent_back_in_a_history_as_an_empty_object_means_the_same() -> None:
    request = load(EXAMPLES / "hangzhou" / "2-request.json")
    call = request["messages"][1]["content"][2]
    call["input"], call["raw_arguments"] = {}, '{"ci'
    internal = document_from(request, "2-request.json")
    wire = convert(internal, "deepseek").output
    assert wire["messages"][1]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert not diff_documents(internal, document_from(wire, "2-request.deepseek.json")).differ


# ---------------------------------------------------------------------------------------------
# what a tester tried from a fresh clone


def test_a_manifest_is_named_as_one(fc) -> None:
    result = fc("diff", "manifest.json", "1-request.json", cwd=EXAMPLES / "hangzhou")
    assert result.returncode == 2
    assert result.stderr == (
        "fc: error: manifest.json: this is a trace's manifest; give a request or response file "
        "(or `fc show .`)\n"
    )
    deeper = fc("diff", "hangzhou/1-request.json", "hangzhou/manifest.json", cwd=EXAMPLES)
    assert deeper.returncode == 2
    assert "(or `fc show hangzhou`)" in deeper.stderr and "error body" not in deeper.stderr


def test_two_different_steps_are_said_to_be_and_compared_by_meaning(fc) -> None:
    here = EXAMPLES / "hangzhou"
    result = fc("diff", "1-request.json", "2-request.deepseek.json", cwd=here)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "these look like different steps (1 vs 3 messages)" in out
    assert "only in deepseek" not in out and "keeps none of these" not in out
    assert "+ B $.messages[1]  (message 1 (assistant))" in out
    backward = fc("diff", "2-request.deepseek.json", "1-request.json", "--json", cwd=here)
    data = json.loads(backward.stdout)
    assert data["mode"] == "meaning" and "mapping" not in data
    assert data["note"].startswith("these look like different steps (3 vs 1 messages)")
    assert [d["kind"] for d in data["differences"]] == ["removed", "removed"]


def test_one_step_with_another_number_of_wire_messages_is_not_mapped(tmp_path: Path) -> None:
    # The same three internal messages, but the wire file has one more call and its result.
    wire = load(EXAMPLES / "hangzhou" / "2-request.deepseek.json")
    call = dict(wire["messages"][1]["tool_calls"][0], id="call_2")
    wire["messages"][1]["tool_calls"].append(call)
    wire["messages"].append(dict(wire["messages"][2], tool_call_id="call_2"))
    internal = document_from(load(EXAMPLES / "hangzhou" / "2-request.json"), "2-request.json")
    result = diff_documents(internal, document_from(wire, "2-request.deepseek.json"))
    assert result.mode == "meaning"
    assert result.note is not None
    assert result.note.startswith(
        "these look like different steps (2-request.json translates to 3 deepseek messages, "
        "2-request.deepseek.json holds 4)"
    )
    assert {c.kind for c in result.changes} == {"added"}


def test_paths_of_a_cross_format_diff_say_which_file_they_are_in(tmp_path: Path) -> None:
    internal = read_document(str(EXAMPLES / "three-cities" / "2-request.json"))
    deepseek = document_from(convert(internal, "deepseek").output, "a.deepseek.json")
    anthropic_wire = convert(internal, "anthropic").output
    anthropic_wire.pop("max_tokens")
    assistant = anthropic_wire["messages"][1]["content"]
    assert [b["type"] for b in assistant[:2]] == ["thinking", "text"]
    del assistant[0]  # B's text block is now its content[0]; A's is content[1]
    assistant[0]["text"] = "changed"
    anthropic = document_from(anthropic_wire, "b.anthropic.json", forced="anthropic")
    result = diff_documents(deepseek, anthropic)
    assert [(c.kind, c.path, c.b_path) for c in result.changes] == [
        ("removed", "$.messages[1].content[0]", None),
        ("changed", "$.messages[1].content[1].text", "$.messages[1].content[0].text"),
    ]
    console = golden.string_console()
    render_diff(console, result)
    out = golden.output(console)
    assert (
        "the paths are of that form (`fc convert FILE --to internal` gives it), A's or B's as marked"
        in out
    )
    assert "\n- A $.messages[1].content[0]  (message 1 (assistant) › thinking block): " in out
    assert "\n~ A $.messages[1].content[1].text, B $.messages[1].content[0].text  (" in out
    assert result.to_json()["differences"][1]["b_path"] == "$.messages[1].content[0].text"
