"""The one writer of a step (fccli/trace/recorder.py): CLI.md's file names, wire bytes as they
are, and the step's manifest record, as `fc run`, `fc replay` and `fc proxy` write them."""

from __future__ import annotations

import json
from pathlib import Path

from fccli.core.manifest import Manifest, StreamRecord
from fccli.core.models import Message, Request, Response, TextBlock, Usage
from fccli.trace.names import STEP_FILE, step_file
from fccli.trace.recorder import MASKED, StepRecorder
from fccli.trace.writer import TraceWriter, prepare_dir, release

REQUEST = Request(model="m", messages=[Message(role="user", content=[TextBlock(text="hi")])])
RESPONSE = Response(
    content=[TextBlock(text="hello")], stop_reason="end_turn", usage=Usage(input_tokens=3)
)


def _trace(path: Path) -> TraceWriter:
    return TraceWriter(prepare_dir(path, force=False), Manifest(provider="demo"))


def test_a_step_is_written_in_the_names_of_cli_md(tmp_path: Path) -> None:
    trace = _trace(tmp_path)
    files = StepRecorder(trace, 2, "deepseek")
    wire = b'{"model":"m",  "messages":[]}'  # as the client sent it: never re-encoded
    assert files.request(REQUEST, wire) == tmp_path / "2-request.deepseek.json"
    files.answer(b"data: {}\n\n", stream=True)
    files.answer({"id": "x"})
    files.response(RESPONSE, "stop")
    trace.finish("ok")
    release(tmp_path)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [
        "2-request.deepseek.json",
        "2-request.json",
        "2-response.deepseek.json",
        "2-response.deepseek.sse",
        "2-response.json",
        "manifest.json",
    ]
    assert all(STEP_FILE.fullmatch(n) for n in names if n != "manifest.json")
    assert (tmp_path / "2-request.deepseek.json").read_bytes() == wire
    assert (tmp_path / "2-response.deepseek.sse").read_bytes() == b"data: {}\n\n"
    assert json.loads((tmp_path / "2-request.json").read_bytes()) == REQUEST.to_json_dict()
    assert json.loads((tmp_path / "2-response.json").read_bytes())["stop_reason"] == "end_turn"
    assert files.name("response", ext="sse") == step_file(2, "response", "deepseek", "sse")
    assert files.name("request", wire=False) == "2-request.json"


def test_the_record_holds_what_the_step_says_and_reaches_the_manifest(tmp_path: Path) -> None:
    trace = _trace(tmp_path)
    files = StepRecorder(trace, 1, "anthropic", started=0.0)
    assert files.record.started_at == "1970-01-01T00:00:00.000+00:00"
    files.timed(12.34, StreamRecord(bytes=10, pieces=2, first_byte_ms=1.0))
    files.masked()
    files.response(RESPONSE, "end_turn")
    files.add(save=False)  # on the manifest in memory, written with the next save
    on_disk = json.loads((tmp_path / "manifest.json").read_bytes())
    assert on_disk["steps"] == []
    trace.save_manifest()
    (step,) = json.loads((tmp_path / "manifest.json").read_bytes())["steps"]
    assert step == {
        "step": 1,
        "started_at": "1970-01-01T00:00:00.000+00:00",
        "stop_reason": "end_turn",
        "wire_stop_reason": "end_turn",
        "duration_ms": 12.3,
        "usage": RESPONSE.usage.to_json_dict() if RESPONSE.usage else None,
        "tool_runs": [],
        "stream": {"bytes": 10, "pieces": 2, "first_byte_ms": 1.0},
        "masked": str(MASKED),
    }
    trace.finish("ok")


def test_a_refused_step_keeps_only_what_the_harness_bug_changed(tmp_path: Path) -> None:
    trace = _trace(tmp_path)
    StepRecorder(trace, 3, "deepseek").refused("drop-reasoning: ...")
    (step,) = json.loads((tmp_path / "manifest.json").read_bytes())["steps"]
    assert step == {"step": 3, "harness_bug": "drop-reasoning: ..."}
    trace.finish("error")
