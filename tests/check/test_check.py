"""The linter's parts: traces, the engine's own check, and never crashing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fccli.check import check_outgoing, check_request, check_trace
from fccli.check.traces import first_difference
from fccli.core.errors import ConversionError, InputFileError, UsageError
from fccli.core.models import Request
from fccli.wire.registry import format_names, layout
from tests.conftest import REPO

EXAMPLES = sorted((REPO / "traces" / "examples").iterdir())
CORPUS = Path(__file__).parent.parent / "corpus" / "check"


def load(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def test_an_unchecked_keyword_is_said_in_the_finding() -> None:
    doc = load(CORPUS / "internal" / "FC110-arguments-fail-the-schema-yet-the-tool-ran.json")
    doc["tools"][0]["input_schema"]["properties"]["city"]["format"] = "city-name"
    (finding,) = check_request(doc, "internal")
    assert finding.rule == "FC110"
    assert "(not checked: format)" in finding.message


# ---------------------------------------------------------------------------------------------
# one request


def test_a_bare_messages_array_is_checked_with_paths_into_it() -> None:
    doc = load(CORPUS / "deepseek" / "FC101-call-without-result.json")
    (finding,) = check_request(doc["messages"], "deepseek")
    assert (finding.rule, finding.path) == ("FC101", "$[1]")
    refused = load(CORPUS / "openai" / "FC100-a-part-fc-cannot-read.json")["messages"]
    (finding,) = check_request(refused, "openai")
    assert (finding.rule, finding.path) == ("FC100", "$[2].role")


def test_paths_point_into_the_file_as_written_not_the_internal_form() -> None:
    doc = load(CORPUS / "openai" / "FC102-result-without-call.json")
    doc["messages"].insert(0, {"role": "system", "content": "Be brief."})
    (finding,) = check_request(doc, "openai")
    assert finding.path == "$.messages[2]"  # the system message counts, as on the wire


def test_something_that_is_not_a_request_is_a_usage_error() -> None:
    with pytest.raises(ConversionError):
        check_request({"choices": []}, "openai")
    with pytest.raises(UsageError):
        check_request([], "cohere")


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)
_keys = st.sampled_from(
    ["role", "content", "type", "id", "tool_use_id", "tool_call_id", "tool_calls", "input", "name"]
)
_message = st.dictionaries(
    _keys, _json | st.sampled_from(["user", "assistant", "tool", "tool_use"])
)


@settings(deadline=None)
@given(
    messages=st.lists(_message, max_size=4),
    tools=_json,
    choice=_json,
    fmt=st.sampled_from(format_names()),
)
def test_any_history_is_reported_never_a_crash(
    messages: list[Any], tools: Any, choice: Any, fmt: str
) -> None:
    # The history under the format's own key (Responses: `input`).
    doc = {"model": "m", layout(fmt).history_field: messages, "tools": tools, "tool_choice": choice}
    for finding in check_request(doc, fmt):
        assert finding.rule.startswith("FC1")
        assert finding.path.startswith("$")


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _places(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _places(v, (*path, i))
    return out


_CORPUS_DOCS = [(c.parent.name, load(c)) for c in sorted(CORPUS.glob("*/*.json"))]


@settings(deadline=None)
@given(data=st.data())
def test_a_corpus_request_broken_anywhere_is_reported_never_a_crash(data: st.DataObject) -> None:
    fmt, doc = data.draw(st.sampled_from(_CORPUS_DOCS))
    doc = json.loads(json.dumps(doc))
    for _ in range(data.draw(st.integers(1, 3))):
        place = data.draw(st.sampled_from(_places(doc)[1:]))
        parent = doc
        for key in place[:-1]:
            parent = parent[key]
        parent[place[-1]] = data.draw(_json | st.sampled_from(["tool", "tool_use", "call_1"]))
    if not isinstance(doc.get("messages"), list):
        return
    for finding in check_request(doc, fmt):
        assert finding.path.startswith("$")


# ---------------------------------------------------------------------------------------------
# traces


@pytest.mark.parametrize("trace", EXAMPLES, ids=lambda p: p.name)
def test_every_example_trace_is_clean(trace: Path) -> None:
    assert check_trace(trace) == []


def test_a_hand_edited_wire_file_disagrees_with_its_internal_twin(tmp_path: Path) -> None:
    trace = tmp_path / "t"
    shutil.copytree(REPO / "traces" / "examples" / "hangzhou", trace)
    wire = trace / "2-request.deepseek.json"
    body = load(wire)
    body["messages"][2]["content"] = "晴，35°C"
    wire.write_text(json.dumps(body, ensure_ascii=False, indent=2), "utf-8")
    (finding,) = check_trace(trace)
    assert (finding.rule, finding.file, finding.path) == (
        "FC120",
        "2-request.deepseek.json",
        "$.messages[2].content",
    )


def test_each_trace_file_is_checked_in_its_own_format(tmp_path: Path) -> None:
    trace = tmp_path / "t"
    shutil.copytree(REPO / "traces" / "examples" / "hangzhou", trace)
    wire = trace / "2-request.deepseek.json"
    body = load(wire)
    del body["messages"][1]["reasoning_content"]
    wire.write_text(json.dumps(body, ensure_ascii=False, indent=2), "utf-8")
    rules = {(f.rule, f.file) for f in check_trace(trace)}
    assert ("FC112", "2-request.deepseek.json") in rules


def test_a_failed_steps_unreadable_response_is_skipped(tmp_path: Path) -> None:
    trace = tmp_path / "t"
    shutil.copytree(REPO / "traces" / "examples" / "hangzhou", trace)
    (trace / "2-response.json").unlink()
    (trace / "2-response.deepseek.json").write_text("<html>502 Bad Gateway</html>")
    assert check_trace(trace) == []


def test_a_directory_without_requests_is_not_a_trace(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="not an fc trace"):
        check_trace(tmp_path)


def test_first_difference() -> None:
    assert first_difference({"a": [1, 2]}, {"a": [1, 2]}) is None
    assert first_difference({"a": [1, 2]}, {"a": [1, 3]}) == "$.a[1]"
    assert first_difference({"a": [1]}, {"a": [1, 2]}) == "$.a[1]"
    assert first_difference({"a": 1}, {"a": 1, "b": 2}) == "$.b"
    assert first_difference({"a": 1}, {"a": True}) == "$.a"


# ---------------------------------------------------------------------------------------------
# the engine's own check


def _fmt(trace: str) -> str:
    """The example's wire format, as its manifest says (the demo model's is deepseek)."""
    return str(load(REPO / "traces" / "examples" / trace / "manifest.json")["wire_format"])


def _step(trace: str, n: int) -> tuple[Request, dict[str, Any]]:
    root = REPO / "traces" / "examples" / trace
    return Request.model_validate(load(root / f"{n}-request.json")), load(
        root / f"{n}-request.{_fmt(trace)}.json"
    )


@pytest.mark.parametrize("trace", [p.name for p in EXAMPLES])
def test_the_engines_requests_pass_its_own_check(trace: str) -> None:
    for n in (1, 2):
        request, wire = _step(trace, n)
        assert check_outgoing(request, wire, _fmt(trace)) == []


def test_the_engines_check_finds_what_would_be_refused() -> None:
    request, wire = _step("hangzhou", 2)
    del wire["messages"][2]  # the tool message: a call with no result
    (finding,) = check_outgoing(request, wire, "deepseek")
    assert (finding.rule, finding.severity) == ("FC101", "error")


def test_the_engines_check_sees_the_internal_form_the_wire_hides() -> None:
    request, wire = _step("three-cities", 2)
    results = request.messages[2].content
    request.messages[2].content = results[:1]
    request.messages.append(request.messages[2].model_copy(update={"content": results[1:]}))
    # In chat the split results are three tool messages in a row, which is fine there.
    findings = check_outgoing(request, wire, "deepseek")
    assert [(f.rule, f.file) for f in findings] == [("FC103", "internal")]


def test_schema_failures_are_only_a_warning_for_the_engine() -> None:
    doc = load(CORPUS / "deepseek" / "FC110-arguments-fail-the-schema-yet-the-tool-ran.json")
    request = Request(model="m", messages=[])
    (finding,) = [f for f in check_outgoing(request, doc, "deepseek") if f.rule == "FC110"]
    assert finding.severity == "warning"
