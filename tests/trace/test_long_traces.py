"""Long traces read in linear time (issue 19): each request file is read against the one before,
and nothing found reading each file on its own goes unfound.

The reference every test here compares with is the plain reading: each file parsed and
validated whole, each request checked whole (`inspect` with no request before it).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from fccli.check.lint import Checked, inspect
from fccli.check.traces import inspect_trace
from fccli.core.jsonio import dumps, read_json, validate
from fccli.core.models import Request
from fccli.core.request_files import RequestFiles
from fccli.trace.reader import read_trace, trace_json
from tests.support.long_traces import write_long_trace

CORPUS = Path(__file__).parent.parent / "corpus" / "check"
STEPS = 100


@pytest.fixture(scope="module")
def long_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_long_trace(tmp_path_factory.mktemp("long") / "trace", STEPS)


@pytest.fixture
def copy(long_trace: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(long_trace, tmp_path / "trace"))


def _edit(path: Path, change: Any) -> None:
    doc = json.loads(path.read_text("utf-8"))
    change(doc)
    path.write_text(dumps(doc), encoding="utf-8")


def _findings(trace: Path) -> list[tuple[str, str | None, str]]:
    return [(f.rule, f.file, f.path) for f in inspect_trace(trace).findings]


def test_every_step_reads_as_its_file_read_alone(long_trace: Path) -> None:
    trace = read_trace(long_trace)
    for step in trace.steps:
        alone = validate(Request, read_json(step.files["request"]), "f")
        assert step.request == alone
        wire = read_json(step.files["wire_request"])
        assert step.wire_messages == len(wire["messages"])
    # the repeated messages were not read again: step 100 holds step 2's very objects
    assert trace.steps[-1].request is not None and trace.steps[1].request is not None
    assert trace.steps[-1].request.messages[1] is trace.steps[1].request.messages[1]


def test_a_long_clean_trace_has_no_findings(long_trace: Path) -> None:
    assert _findings(long_trace) == []


def test_a_call_id_edited_in_message_3_of_request_60_is_found(copy: Path) -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["messages"][3]["content"][0]["id"] = "call_99999"

    _edit(copy / "60-request.json", edit)
    assert _findings(copy) == [
        ("FC101", "60-request.json", "$.messages[3]"),
        ("FC102", "60-request.json", "$.messages[4].content[0]"),
        ("FC120", "60-request.deepseek.json", "$.messages[3].tool_calls[0].id"),
    ]
    step = read_trace(copy).step(60)
    assert step.request is not None
    assert step.request.messages[3].tool_uses()[0].id == "call_99999"
    assert read_trace(copy).step(61).request.messages[3].tool_uses()[0].id == "call_00002"  # type: ignore[union-attr]


def test_arguments_broken_in_message_3_of_wire_request_60_are_found(copy: Path) -> None:
    args = "$.messages[3].tool_calls[0].function.arguments"

    def edit(doc: dict[str, Any]) -> None:
        doc["messages"][3]["tool_calls"][0]["function"]["arguments"] = '{"city": "杭州"'

    _edit(copy / "60-request.deepseek.json", edit)
    assert _findings(copy) == [
        ("FC108", "60-request.deepseek.json", args),
        ("FC120", "60-request.deepseek.json", args),
        # the prompt cache breaks where request 60 stops repeating 59, and 61 repeating 60
        ("FC122", "60-request.deepseek.json", args),
        ("FC122", "61-request.deepseek.json", args),
    ]


def test_a_message_rewritten_with_other_spacing_is_read_afresh_and_found_fine(copy: Path) -> None:
    path = copy / "60-request.json"
    text = path.read_text("utf-8")
    at = text.index('"tool_use_id"', text.index('"tool_use_id"') + 1)
    path.write_text(text[:at] + " " + text[at:], encoding="utf-8")
    assert _findings(copy) == []
    assert trace_json(read_trace(copy)) == trace_json(read_trace(copy))


def _grown(doc: Any) -> tuple[list[Any], Any]:
    """The messages of a corpus case, and the document with the first k of them."""
    if isinstance(doc, list):
        return doc, lambda k: doc[:k]
    key = next(k for k in ("messages", "contents", "input") if k in doc)  # Gemini, Responses
    if not isinstance(doc[key], list):
        return [], lambda k: doc  # Responses' short form: a string, nothing to grow
    return doc[key], lambda k: {**doc, key: doc[key][:k]}


@pytest.mark.parametrize(
    "case", sorted(CORPUS.glob("*/*.json")), ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_a_corpus_history_grown_message_by_message_gives_the_findings_read_whole(
    case: Path,
) -> None:
    """Every broken history of the check corpus, as a trace would send it: one request per
    message added, each checked against the one before, and each the same as checked alone."""
    fmt = case.parent.name
    messages, first = _grown(json.loads(case.read_text("utf-8")))
    files, before = RequestFiles(), None
    for k in range(len(messages) + 1):
        raw = dumps(first(k)).encode("utf-8")
        checked: Checked = inspect(files.read(raw, case.name).data, fmt, after=before)
        alone = inspect(json.loads(raw), fmt)
        assert checked.findings == alone.findings, k
        assert checked.request == alone.request
        before = checked
