"""fc show of a hostile trace: a file past what fc reads is refused, a large stored file is
shown folded (`--wire`, `--html`), and a step file that links outside the trace is never read,
so nothing of what it points to reaches the terminal or a page meant to be shared."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fccli.core import jsonio
from fccli.trace import reader
from tests.conftest import REPO

THREE_CITIES = REPO / "traces" / "examples" / "three-cities"
OUTSIDE = "TEXT-FROM-OUTSIDE-THE-TRACE"


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    copy = tmp_path / "trace"
    shutil.copytree(THREE_CITIES, copy)
    return copy


def test_a_large_wire_file_is_shown_folded(fc, trace: Path, monkeypatch) -> None:
    monkeypatch.setattr(reader, "SHOWN_BYTES", 4096)
    wire = trace / "1-response.deepseek.json"
    answer = json.loads(wire.read_bytes())
    answer["choices"][0]["message"]["content"] = "x" * 20_000
    wire.write_text(json.dumps(answer), encoding="utf-8")
    ran = fc("show", "--wire", str(trace))
    assert ran.returncode == 0, ran.stderr
    assert "more bytes not shown" in ran.stdout and str(wire) in ran.stdout
    assert len(ran.stdout) < 12_000
    page = trace.parent / "page.html"
    ran = fc("show", "--html", str(page), str(trace))
    assert ran.returncode == 0, ran.stderr
    assert "x" * 5000 not in page.read_text(encoding="utf-8")


def test_a_text_past_what_a_page_holds_is_cut(fc, trace: Path, monkeypatch) -> None:
    from fccli.render.html import steps

    monkeypatch.setattr(steps, "PAGE_CHARS", 1000)
    internal = trace / "2-response.json"
    answer = json.loads(internal.read_bytes())
    answer["content"] = [{"type": "text", "text": "y" * 50_000}]
    internal.write_text(json.dumps(answer), encoding="utf-8")
    page = trace.parent / "page.html"
    assert fc("show", "--html", str(page), str(trace)).returncode == 0
    html = page.read_text(encoding="utf-8")
    assert "49,000 more characters not shown" in html


def test_a_file_past_what_fc_reads_is_refused_not_loaded(fc, trace: Path, monkeypatch) -> None:
    monkeypatch.setattr(jsonio, "READ_LIMIT", 10_000)
    request = trace / "2-request.json"
    request.write_text(json.dumps({**json.loads(request.read_bytes()), "pad": "z" * 20_000}))
    ran = fc("show", str(request))
    assert ran.returncode == 2
    assert "above the 10,000 fc reads of one file" in ran.stderr
    ran = fc("show", str(trace))
    assert ran.returncode == 0, ran.stderr
    assert "2-request.json" in ran.stdout and "above the 10,000" in ran.stdout


def _linked_out(trace: Path, name: str) -> None:
    outside = trace.parent / "elsewhere.json"
    data = json.loads((trace / name).read_bytes())
    data["content"] = [{"type": "text", "text": OUTSIDE}] if "content" in data else OUTSIDE
    outside.write_text(json.dumps(data), encoding="utf-8")
    (trace / name).unlink()
    (trace / name).symlink_to(outside)


@pytest.mark.parametrize("name", ["2-response.deepseek.json", "2-response.json"])
def test_a_step_file_linked_outside_the_trace_is_never_read(fc, trace: Path, name: str) -> None:
    _linked_out(trace, name)
    page = trace.parent / "page.html"
    for args in (["show"], ["show", "--wire"], ["show", "--json"], ["show", "--html", str(page)]):
        ran = fc(*args, str(trace))
        assert ran.returncode == 0, (args, ran.stderr)
        assert OUTSIDE not in ran.stdout + ran.stderr, args
    assert OUTSIDE not in page.read_text(encoding="utf-8")
    assert f"{name} links outside the trace: not read" in fc("show", str(trace)).stdout


def test_a_link_inside_the_trace_is_read(fc, trace: Path) -> None:
    (trace / "kept.json").write_bytes((trace / "2-response.json").read_bytes())
    (trace / "2-response.json").unlink()
    (trace / "2-response.json").symlink_to("kept.json")
    ran = fc("show", str(trace))
    assert ran.returncode == 0 and "links outside" not in ran.stdout


def test_a_manifest_linked_outside_the_trace_is_refused(fc, trace: Path) -> None:
    outside = trace.parent / "manifest-elsewhere.json"
    outside.write_bytes((trace / "manifest.json").read_bytes())
    (trace / "manifest.json").unlink()
    (trace / "manifest.json").symlink_to(outside)
    ran = fc("show", str(trace))
    assert ran.returncode == 2
    assert "links outside the trace" in ran.stderr
