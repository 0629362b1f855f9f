"""Every place `fc check` reports is a place in the file it names, in every registered format.

A rule that points somewhere asks the format where (wire/view.py's Places, the paths its view
keeps): the broken histories of tests/corpus/check and traces the demo made, written in each
format, are checked, and each finding's JSON path must lead into the document it names.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from fccli.check import check_request, check_trace
from fccli.core.models import Request, Response
from fccli.run.prepare import RunSettings, prepare_run
from fccli.trace.names import STEP_FILE
from fccli.wire.registry import FORMATS, format_names, get_format, layout

CORPUS = Path(__file__).parent.parent / "corpus" / "check"
_STEP = re.compile(r"\.([^.\[\]]+)|\[(\d+)\]")


def place(doc: Any, path: str) -> tuple[bool, Any]:
    """(whether `path` leads somewhere in `doc`, what is there)."""
    assert path.startswith("$"), path
    at = doc
    for key, index in (m.groups() for m in _STEP.finditer(path, 1)):
        if key is not None and isinstance(at, dict) and key in at:
            at = at[key]
        elif index is not None and isinstance(at, list) and int(index) < len(at):
            at = at[int(index)]
        else:
            return False, None
    return True, at


def missing_key(doc: Any, path: str) -> bool:
    """`path` names a key its object lacks (what a finding says must be added)."""
    parent, _, key = path.rpartition(".")
    found, at = place(doc, parent)
    return bool(parent) and found and isinstance(at, dict) and key not in at


@pytest.mark.parametrize("fmt", format_names())
def test_every_place_a_request_rule_reports_is_in_the_document(fmt: str) -> None:
    cases = sorted((CORPUS / fmt).glob("*.json"))
    assert cases, fmt
    for case in cases:
        doc = json.loads(case.read_text("utf-8"))
        for f in check_request(doc, fmt):
            found, _ = place(doc, f.path)
            assert found or missing_key(doc, f.path), (case.name, f)


def _run(out: Path, question: str, **settings: Any) -> Path:
    prepare_run(RunSettings(question=question, provider="demo", out=out, **settings)).execute()
    return out


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Traces the demo made: a tool request taken for the answer, an answer with no call, and
    a run of two steps."""
    root = tmp_path_factory.mktemp("demo")
    return {
        "stop": _run(root / "stop", "北京、上海今天适合跑步吗？", harness_bug="ignore-stop-reason"),
        "unasked": _run(root / "unasked", "你好"),
        "two": _run(root / "two", "杭州今天适合跑步吗？"),
    }


def in_format(trace: Path, out: Path, fmt: str) -> Path:
    """The trace with its wire files in `fmt` and no internal response (as when it was lost)."""
    out.mkdir()
    shutil.copy(trace / "manifest.json", out / "manifest.json")
    wire = get_format(fmt)
    for file in sorted(trace.iterdir()):
        m = STEP_FILE.fullmatch(file.name)
        if not m or m[3] or m[4] != "json":
            continue
        body = json.loads(file.read_text("utf-8"))
        if m[2] == "request":
            shutil.copy(file, out / file.name)
            wired = wire.to_wire_request(Request.model_validate(body))
        else:
            wired = wire.to_wire_response(Response.model_validate(body))
        (out / f"{m[1]}-{m[2]}.{fmt}.json").write_text(json.dumps(wired), "utf-8")
    return out


def _places(trace: Path, rule: str) -> list[tuple[str, Any]]:
    """Where each finding of `rule` points, and what is there; each must be a place."""
    out = []
    for f in check_trace(trace):
        if f.rule == rule:
            assert f.file is not None
            found, at = place(json.loads((trace / f.file).read_text("utf-8")), f.path)
            assert found, f
            out.append((f.path, at))
    return out


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_fc130_points_at_the_stop_reason_as_the_format_writes_it(
    fmt: str, demo: dict[str, Path], tmp_path: Path
) -> None:
    trace = in_format(demo["stop"], tmp_path / fmt, fmt)
    found = _places(trace, "FC130")
    stop = layout(fmt).places.stop
    assert [path for path, _ in found] == [stop]
    assert found[0][1] == get_format(fmt).wire_stop_reason(
        json.loads((trace / f"1-response.{fmt}.json").read_text("utf-8"))
    )


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_fc119_points_at_the_answer_as_the_format_writes_it(
    fmt: str, demo: dict[str, Path], tmp_path: Path
) -> None:
    trace = in_format(demo["unasked"], tmp_path / fmt, fmt)
    assert [path for path, _ in _places(trace, "FC119")] == [layout(fmt).places.answer]


def _edit_first_text(value: Any) -> bool:
    """Change the first non-empty string in `value` in place; whether there was one."""
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, inner in items if isinstance(value, (dict, list)) else ():
        if isinstance(inner, str) and inner and key not in ("role", "type"):
            value[key] = inner + "！"
            return True
        if _edit_first_text(inner):
            return True
    return False


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_an_edited_step_is_reported_where_it_was_edited(
    fmt: str, demo: dict[str, Path], tmp_path: Path
) -> None:
    trace = in_format(demo["two"], tmp_path / fmt, fmt)
    second = trace / f"2-request.{fmt}.json"
    body = json.loads(second.read_text("utf-8"))
    assert _edit_first_text(body[layout(fmt).history_field][0])
    second.write_text(json.dumps(body), "utf-8")
    assert _places(trace, "FC122"), "the prompt cache breaks at the edit"
    assert _places(trace, "FC120"), "the wire request is not what the internal one says"
