"""`fc export otel --content` then `fc import`: every example trace comes back with the same
calls, arguments, results and answers; what OTLP does not carry is named here, and in
docs/reference/import.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.proto", reason="the otel extra is not installed")

from fccli.wire.registry import get_format
from tests.conftest import REPO

EXAMPLES = sorted(p for p in (REPO / "traces" / "examples").iterdir() if p.is_dir())

# What the spans do not carry (docs/reference/import.md, "What comes back"): a request's
# switches the conventions have no attribute for, a tool's strict flag, a thinking block's
# signature, a Responses item's id.
REQUEST_LOST = frozenset({"thinking", "tool_choice", "parallel_tool_calls", "effort"})
BLOCK_LOST = frozenset({"signature", "item_id", "strict"})


def _meaning(value: Any, top: bool = False) -> Any:
    if isinstance(value, dict):
        return {
            k: _meaning(v)
            for k, v in value.items()
            if k not in BLOCK_LOST and not (top and k in REQUEST_LOST)
        }
    if isinstance(value, list):
        return [_meaning(v) for v in value]
    return value


def _internal_files(trace: Path) -> list[str]:
    return sorted(p.name for p in trace.glob("*-re*.json") if p.name.count(".") == 1)


def test_every_example_comes_back_from_its_export(fc, tmp_path: Path) -> None:
    # all examples in one file (JSON Lines, one trace a line), and one as protobuf
    ran = fc("export", "otel", "--content", *map(str, EXAMPLES), "-o", "all.jsonl")
    assert ran.returncode == 0, ran.stderr
    ran = fc("import", "all.jsonl", "-o", "back")
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr == ""  # fc's own spans lack nothing fc needs
    for index, example in enumerate(EXAMPLES, start=1):
        back = tmp_path / "back" / str(index)
        assert _internal_files(back) == _internal_files(example), example.name
        for name in _internal_files(example):
            original = json.loads((example / name).read_text())
            got = json.loads((back / name).read_text())
            assert _meaning(got, True) == _meaning(original, True), (example.name, name)
        want = json.loads((example / "manifest.json").read_text())
        manifest = json.loads((back / "manifest.json").read_text())
        for key in ("provider", "wire_format", "model", "question", "status", "final_answer"):
            assert manifest[key] == want[key], (example.name, key)
        assert manifest["imported_from"]["source"] == "fc export otel"
        for step, step_want in zip(manifest["steps"], want["steps"], strict=True):
            for key in ("stop_reason", "wire_stop_reason", "usage", "duration_ms"):
                assert step[key] == step_want[key], (example.name, step["step"], key)
            runs = [
                {k: r[k] for k in ("id", "name", "arguments", "is_error", "duration_ms")}
                for r in step["tool_runs"]
            ]
            assert runs == [
                {k: r[k] for k in ("id", "name", "arguments", "is_error", "duration_ms")}
                for r in step_want["tool_runs"]
            ]
        # the wire request is written by the format's codec, as fc run writes it (the answer
        # as the provider sent it is not in the spans: its codec writes one that reads the same)
        fmt = get_format(want["wire_format"])
        name = f"1-request.{fmt.name}.json"
        read = [fmt.from_wire_request(json.loads((t / name).read_text())) for t in (back, example)]
        assert _meaning(read[0].to_json_dict(), True) == _meaning(read[1].to_json_dict(), True)

    ran = fc(
        "export", "otel", "--content", "--format", "protobuf", str(EXAMPLES[0]), "-o", "one.pb"
    )
    assert ran.returncode == 0, ran.stderr
    ran = fc("import", "one.pb", "-o", "one")
    assert ran.returncode == 0, ran.stderr
    steps = len(json.loads((EXAMPLES[0] / "manifest.json").read_text())["steps"])
    assert ran.stdout == f"wrote one: {steps} step(s) from fc export otel\n"
    for name in _internal_files(EXAMPLES[0]):
        assert _meaning(json.loads((tmp_path / "one" / name).read_text()), True) == _meaning(
            json.loads((EXAMPLES[0] / name).read_text()), True
        )
